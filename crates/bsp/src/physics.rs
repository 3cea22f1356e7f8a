//! Physics collision lumps: the brush models' collision (physcollide, 29) and the
//! displacements' (physdisp, 28), owned and borrowing their VPhysics blobs from the lump.

use std::borrow::Cow;

use srcmap_bytes::{Endian, Reader, Writer};

use crate::error::{BspError, Result};
use crate::lump::{PHYSCOLLIDE, PHYSDISP};

/// Collision data of one brush model in the physcollide lump (29).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PhysModel {
    /// Index of the brush model (`*N`).
    pub model_index: i32,
    /// Each solid's collision blob (a `compactsurfaceheader_t` and what follows, VPhysics format).
    pub solids: Vec<Vec<u8>>,
    /// The key/value text describing the solids (as in `.phy` files).
    pub key_data: Vec<u8>,
}

/// The physcollide lump: one entry per brush model, then the `-1` terminator.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PhysCollide {
    pub models: Vec<PhysModel>,
    /// The terminator's `dataSize`, `keydataSize`, `solidCount` (normally -1, 0, 0).
    pub terminator: [i32; 3],
    /// Bytes after the terminator, if any.
    pub tail: Vec<u8>,
}

/// [`PhysModel`] borrowing its blobs from the lump.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PhysModelView<'a> {
    pub model_index: i32,
    pub solids: Vec<Cow<'a, [u8]>>,
    pub key_data: Cow<'a, [u8]>,
}

/// [`PhysCollide`] borrowing its blobs from the lump.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PhysCollideView<'a> {
    pub models: Vec<PhysModelView<'a>>,
    pub terminator: [i32; 3],
    pub tail: Cow<'a, [u8]>,
}

/// The 16-byte header before each model's collision data (the terminator's when
/// `model_index` is -1).
struct ModelHeader {
    /// Where the header lies, for errors.
    at: u64,
    model_index: i32,
    data_size: i32,
    key_size: i32,
    solid_count: i32,
}

impl ModelHeader {
    fn read(r: &mut Reader<'_>) -> Result<ModelHeader> {
        let err = |e| BspError::from_read(PHYSCOLLIDE, e);
        Ok(ModelHeader {
            at: r.offset(),
            model_index: r.i32().map_err(err)?,
            data_size: r.i32().map_err(err)?,
            key_size: r.i32().map_err(err)?,
            solid_count: r.i32().map_err(err)?,
        })
    }

    /// The model's solids and key data, which follow the header in `r`.
    fn read_model<'a>(&self, r: &mut Reader<'a>) -> Result<PhysModelView<'a>> {
        let err = |e| BspError::from_read(PHYSCOLLIDE, e);
        let model_index = self.model_index;
        if self.data_size < 0 || self.key_size < 0 || self.solid_count < 0 {
            return Err(BspError::lump(
                PHYSCOLLIDE,
                self.at,
                format!("model {model_index}: negative size in the header"),
            ));
        }
        let blob = r.sub(self.data_size as usize).map_err(err)?;
        let solids = read_solids(blob, model_index, self.solid_count)?;
        let key_data = Cow::Borrowed(r.bytes(self.key_size as usize).map_err(err)?);
        Ok(PhysModelView {
            model_index,
            solids,
            key_data,
        })
    }
}

/// A model's solids in its collision data `blob`, which they must fill exactly.
fn read_solids(mut blob: Reader<'_>, model_index: i32, solid_count: i32) -> Result<Vec<Cow<'_, [u8]>>> {
    let err = |e| BspError::from_read(PHYSCOLLIDE, e);
    let n = blob.check_count(solid_count as u64, 4).map_err(err)?;
    let mut solids = Vec::with_capacity(n);
    for _ in 0..n {
        let size = blob.i32().map_err(err)?;
        if size < 0 {
            return Err(BspError::lump(
                PHYSCOLLIDE,
                blob.offset() - 4,
                "negative solid size",
            ));
        }
        solids.push(Cow::Borrowed(blob.bytes(size as usize).map_err(err)?));
    }
    if blob.remaining() != 0 {
        return Err(BspError::lump(
            PHYSCOLLIDE,
            blob.offset(),
            format!(
                "model {model_index}: {} bytes of collision data left after {n} solids",
                blob.remaining()
            ),
        ));
    }
    Ok(solids)
}

impl<'a> PhysCollideView<'a> {
    /// Splits the lump into models and their solids without copying them.
    pub fn parse(data: &'a [u8], endian: Endian, base: u64) -> Result<PhysCollideView<'a>> {
        let mut r = Reader::with_base(data, base, endian);
        let mut models = Vec::new();
        loop {
            let h = ModelHeader::read(&mut r)?;
            if h.model_index == -1 {
                return Ok(PhysCollideView {
                    models,
                    terminator: [h.data_size, h.key_size, h.solid_count],
                    tail: Cow::Borrowed(r.rest()),
                });
            }
            models.push(h.read_model(&mut r)?);
        }
    }

    /// Owned copies of every blob.
    pub fn into_owned(self) -> PhysCollide {
        PhysCollide {
            models: self
                .models
                .into_iter()
                .map(|m| PhysModel {
                    model_index: m.model_index,
                    solids: m.solids.into_iter().map(Cow::into_owned).collect(),
                    key_data: m.key_data.into_owned(),
                })
                .collect(),
            terminator: self.terminator,
            tail: self.tail.into_owned(),
        }
    }

    /// The same view, no longer borrowing (for a lump that was decompressed).
    pub fn into_static(self) -> PhysCollideView<'static> {
        PhysCollideView {
            models: self
                .models
                .into_iter()
                .map(|m| PhysModelView {
                    model_index: m.model_index,
                    solids: m.solids.into_iter().map(|s| Cow::Owned(s.into_owned())).collect(),
                    key_data: Cow::Owned(m.key_data.into_owned()),
                })
                .collect(),
            terminator: self.terminator,
            tail: Cow::Owned(self.tail.into_owned()),
        }
    }
}

impl PhysCollide {
    /// Every model's solids and key data read (`srcmap-phys`); `base` is the lump's offset in
    /// the file (0 names offsets within the lump). Errors name the model, solid and byte.
    pub fn read_models(
        &self,
        base: u64,
    ) -> std::result::Result<Vec<srcmap_phys::ModelCollision>, srcmap_phys::PhysError> {
        let mut at = base;
        let mut out = Vec::with_capacity(self.models.len());
        for m in &self.models {
            out.push(srcmap_phys::ModelCollision::parse(
                m.model_index,
                &m.solids,
                &m.key_data,
                at,
            )?);
            at = srcmap_phys::ModelCollision::next_base(at, m.solids.iter().map(Vec::len), m.key_data.len());
        }
        Ok(out)
    }

    pub fn parse(data: &[u8], endian: Endian, base: u64) -> Result<PhysCollide> {
        PhysCollideView::parse(data, endian, base).map(PhysCollideView::into_owned)
    }

    pub fn to_bytes(&self, endian: Endian) -> Vec<u8> {
        let mut w = Writer::new(endian);
        for m in &self.models {
            let data_size: usize = m.solids.iter().map(|s| 4 + s.len()).sum();
            w.i32(m.model_index);
            w.i32(data_size as i32);
            w.i32(m.key_data.len() as i32);
            w.i32(m.solids.len() as i32);
            for s in &m.solids {
                w.i32(s.len() as i32);
                w.bytes(s);
            }
            w.bytes(&m.key_data);
        }
        w.i32(-1);
        for v in self.terminator {
            w.i32(v);
        }
        w.bytes(&self.tail);
        w.into_inner()
    }
}

/// Size-table entry of a displacement without collision (vbsp writes `-1` as a `u16`).
pub const NO_DISP_COLLISION: u16 = 0xffff;

/// The displacement collision lump (28, `dphysdisp_t`): a `u16` count, a `u16` size per
/// displacement ([`NO_DISP_COLLISION`] for one without collision, which has no bytes), then the
/// blobs back to back: each a packed outer hull ([`srcmap_phys::PackedHull`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PhysDisp {
    /// Each displacement's collision blob, `None` when it has none.
    pub blobs: Vec<Option<Vec<u8>>>,
    /// Bytes after the last blob.
    pub tail: Vec<u8>,
}

/// [`PhysDisp`] borrowing its blobs from the lump.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PhysDispView<'a> {
    pub blobs: Vec<Option<Cow<'a, [u8]>>>,
    pub tail: Cow<'a, [u8]>,
}

/// Displacement `i`'s collision of `size` bytes (`None` for [`NO_DISP_COLLISION`]).
fn read_disp_blob<'a>(r: &mut Reader<'a>, i: usize, size: u16) -> Result<Option<Cow<'a, [u8]>>> {
    if size == NO_DISP_COLLISION {
        return Ok(None);
    }
    let blob_at = r.offset();
    let remaining = r.remaining();
    let blob = r.bytes(size as usize).map_err(|_| {
        BspError::lump(
            PHYSDISP,
            blob_at,
            format!("displacement {i}: collision of {size} bytes runs past the lump ({remaining} left)"),
        )
    })?;
    Ok(Some(Cow::Borrowed(blob)))
}

impl<'a> PhysDispView<'a> {
    /// Reads the count and size table and splits the blobs; errors name the displacement.
    pub fn parse(data: &'a [u8], endian: Endian, base: u64) -> Result<PhysDispView<'a>> {
        let err = |e| BspError::from_read(PHYSDISP, e);
        let mut r = Reader::with_base(data, base, endian);
        let n = r.u16().map_err(err)? as usize;
        let n = r.check_count(n as u64, 2).map_err(err)?;
        let at = r.offset();
        let mut sizes = Reader::with_base(r.bytes(n * 2).map_err(err)?, at, endian);
        let mut blobs = Vec::with_capacity(n);
        for i in 0..n {
            let size = sizes.u16().map_err(err)?;
            blobs.push(read_disp_blob(&mut r, i, size)?);
        }
        Ok(PhysDispView {
            blobs,
            tail: Cow::Borrowed(r.rest()),
        })
    }

    /// Owned copies of every blob.
    pub fn into_owned(self) -> PhysDisp {
        PhysDisp {
            blobs: self.blobs.into_iter().map(|b| b.map(Cow::into_owned)).collect(),
            tail: self.tail.into_owned(),
        }
    }

    /// The same view, no longer borrowing (for a lump that was decompressed).
    pub fn into_static(self) -> PhysDispView<'static> {
        PhysDispView {
            blobs: self
                .blobs
                .into_iter()
                .map(|b| b.map(|b| Cow::Owned(b.into_owned())))
                .collect(),
            tail: Cow::Owned(self.tail.into_owned()),
        }
    }
}

impl PhysDisp {
    /// See [`PhysDispView::parse`].
    pub fn parse(data: &[u8], endian: Endian, base: u64) -> Result<PhysDisp> {
        PhysDispView::parse(data, endian, base).map(PhysDispView::into_owned)
    }

    /// Every displacement's packed hull read (`None` without collision); `base` is the lump's
    /// offset in the file (0 names offsets within the lump). Errors name the displacement and
    /// the byte.
    pub fn read_hulls(
        &self,
        base: u64,
    ) -> std::result::Result<Vec<Option<srcmap_phys::PackedHull>>, srcmap_phys::PhysError> {
        let mut at = base + 2 + 2 * self.blobs.len() as u64;
        let mut out = Vec::with_capacity(self.blobs.len());
        for (i, b) in self.blobs.iter().enumerate() {
            out.push(match b {
                None => None,
                Some(b) => {
                    let hull = srcmap_phys::PackedHull::parse(b, at).map_err(|e| e.in_displacement(i))?;
                    at += b.len() as u64;
                    Some(hull)
                }
            });
        }
        Ok(out)
    }

    /// The lump from packed hulls, one per displacement.
    pub fn from_hulls(hulls: &[Option<srcmap_phys::PackedHull>]) -> PhysDisp {
        PhysDisp {
            blobs: hulls.iter().map(|h| h.as_ref().map(|h| h.to_bytes())).collect(),
            tail: Vec::new(),
        }
    }

    /// The size table: each blob's size, [`NO_DISP_COLLISION`] for none.
    fn write_sizes(&self, w: &mut Writer) -> Result<()> {
        for (i, b) in self.blobs.iter().enumerate() {
            match b {
                None => w.u16(NO_DISP_COLLISION),
                Some(b) if b.len() >= NO_DISP_COLLISION as usize => {
                    return Err(BspError::Write {
                        lump: PHYSDISP,
                        message: format!(
                            "displacement {i}: a collision blob of {} bytes exceeds the u16 size",
                            b.len()
                        ),
                    });
                }
                Some(b) => w.u16(b.len() as u16),
            }
        }
        Ok(())
    }

    /// Errors name the lump ([`BspError::Write`]) when a count or size does not fit its `u16`.
    pub fn to_bytes(&self, endian: Endian) -> Result<Vec<u8>> {
        let too_big = |message: String| BspError::Write {
            lump: PHYSDISP,
            message,
        };
        let mut w = Writer::new(endian);
        if self.blobs.len() > u16::MAX as usize {
            return Err(too_big(format!(
                "{} displacement blobs exceed the u16 count",
                self.blobs.len()
            )));
        }
        w.u16(self.blobs.len() as u16);
        self.write_sizes(&mut w)?;
        for b in self.blobs.iter().flatten() {
            w.bytes(b);
        }
        w.bytes(&self.tail);
        Ok(w.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_collision_entries_take_no_bytes_and_write_back() {
        // Two displacements: the first without collision (0xffff), the second a 2-byte blob.
        let lump = [2, 0, 0xff, 0xff, 2, 0, 7, 8];
        let pd = PhysDisp::parse(&lump, Endian::Little, 0).unwrap();
        assert_eq!(pd.blobs, vec![None, Some(vec![7, 8])]);
        assert_eq!(pd.to_bytes(Endian::Little).unwrap(), lump);
    }

    #[test]
    fn a_blob_past_the_lump_names_its_displacement_and_offset() {
        let lump = [2, 0, 1, 0, 9, 0, 7, 8];
        let e = PhysDisp::parse(&lump, Endian::Little, 100)
            .unwrap_err()
            .to_string();
        assert!(e.contains("displacement 1") && e.contains("107"), "{e}");
        // A packed hull too short for its counts names the displacement too.
        let pd = PhysDisp::parse(&[1, 0, 2, 0, 7, 8], Endian::Little, 100).unwrap();
        let e = pd.read_hulls(100).unwrap_err();
        assert_eq!((e.displacement, e.offset), (Some(0), 104));
    }
}
