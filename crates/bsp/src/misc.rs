//! Lumps with their own structure: entities (text), occlusion, physics collision, and the
//! lightmap sample groups of a face.

use std::borrow::Cow;

use srcmap_bytes::{Endian, Reader, Writer};

use crate::codec::{Ctx, Cur, Field, Out, Record};
use crate::error::{Error, Result};
use crate::lump::{OCCLUSION, PHYSCOLLIDE};
use crate::records::{ColorRgbExp32, Face, OccluderPolyData, Vector};

/// One entity of the entity lump: its key/value pairs in file order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Entity {
    pub pairs: Vec<(String, String)>,
}

impl Entity {
    /// The first value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
    pub fn classname(&self) -> Option<&str> {
        self.get("classname")
    }
    /// Sets `key` (replacing its first occurrence, or appending).
    pub fn set(&mut self, key: &str, value: impl Into<String>) {
        match self.pairs.iter_mut().find(|(k, _)| k == key) {
            Some(pair) => pair.1 = value.into(),
            None => self.pairs.push((key.to_string(), value.into())),
        }
    }
}

/// Whether entity text must be read as Latin-1 (it is not valid UTF-8: old maps carry
/// Windows-1252 bytes in names and messages).
pub fn entities_are_latin1(data: &[u8]) -> bool {
    std::str::from_utf8(data).is_err()
}

/// Parses the entity lump text (`{ "key" "value" ... }` blocks, NUL-terminated).
/// `base` is the lump's file offset, for errors. Text that is not UTF-8 is read as Latin-1, so
/// [`write_entities`] with `latin1` gives the bytes back.
pub fn parse_entities(data: &[u8], lump: usize, base: u64) -> Result<Vec<Entity>> {
    parse_entities_latin1(data, lump, base).0
}

/// The index of the first `needle` in `hay`, eight bytes at a time.
#[inline]
pub(crate) fn find_byte(hay: &[u8], needle: u8) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let pattern = LO * needle as u64;
    let (chunks, rest) = hay.as_chunks::<8>();
    for (k, c) in chunks.iter().enumerate() {
        let x = u64::from_le_bytes(*c) ^ pattern;
        // The lowest flagged byte is exactly the first zero byte of `x`.
        let zero = x.wrapping_sub(LO) & !x & HI;
        if zero != 0 {
            return Some(k * 8 + (zero.trailing_zeros() / 8) as usize);
        }
    }
    rest.iter()
        .position(|&b| b == needle)
        .map(|p| chunks.len() * 8 + p)
}

/// [`parse_entities`], and whether the text is Latin-1 ([`entities_are_latin1`]), validating
/// the text only once.
pub(crate) fn parse_entities_latin1(data: &[u8], lump: usize, base: u64) -> (Result<Vec<Entity>>, bool) {
    match Entities::parse(Cow::Borrowed(data), lump, base) {
        Ok(e) => (Ok(e.to_vec()), e.latin1()),
        Err(e) => (Err(e), entities_are_latin1(data)),
    }
}

/// The entity lump as borrowed key/value text: every `{ "key" "value" ... }` block tokenised
/// once, each key and value a slice of the lump (no per-key allocation). Text that is not
/// UTF-8 is converted once from Latin-1 (see [`parse_entities`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Entities<'a> {
    text: Cow<'a, str>,
    /// Per pair: key start, key end, value start, value end (byte offsets into `text`).
    pairs: Vec<[u32; 4]>,
    /// Per entity: the end of its pairs in `pairs`.
    ends: Vec<u32>,
    latin1: bool,
}

/// One entity of [`Entities`]: its key/value pairs in file order, borrowed.
#[derive(Debug, Clone, Copy)]
pub struct EntityRef<'e> {
    text: &'e str,
    pairs: &'e [[u32; 4]],
}

impl<'e> EntityRef<'e> {
    /// The key/value pairs in file order.
    pub fn pairs(&self) -> impl ExactSizeIterator<Item = (&'e str, &'e str)> + 'e {
        let text = self.text;
        self.pairs
            .iter()
            .map(move |&[a, b, c, d]| (&text[a as usize..b as usize], &text[c as usize..d as usize]))
    }
    /// The first value of `key`.
    pub fn get(&self, key: &str) -> Option<&'e str> {
        self.pairs().find(|(k, _)| *k == key).map(|(_, v)| v)
    }
    pub fn classname(&self) -> Option<&'e str> {
        self.get("classname")
    }
    /// An owned copy.
    pub fn to_entity(&self) -> Entity {
        Entity {
            pairs: self.pairs().map(|(k, v)| (k.to_owned(), v.to_owned())).collect(),
        }
    }
}

impl<'a> Entities<'a> {
    /// Tokenises the entity lump (NUL-terminated text). `base` is the lump's file offset, for
    /// errors. Borrows the text when `data` is borrowed and UTF-8.
    pub fn parse(data: Cow<'a, [u8]>, lump: usize, base: u64) -> Result<Entities<'a>> {
        let end = memchr::memchr(0, &data).unwrap_or(data.len());
        // Validate once; tokens are then cut at ASCII delimiters, always on char boundaries.
        // The NUL is a character boundary, so the whole lump is UTF-8 iff both sides of it are.
        let (utf8, latin1): (Option<Cow<'a, str>>, bool) = match &data {
            Cow::Borrowed(b) => {
                let b: &'a [u8] = b;
                let t = std::str::from_utf8(&b[..end]).ok();
                let latin1 = t.is_none() || std::str::from_utf8(&b[end..]).is_err();
                (t.map(Cow::Borrowed), latin1)
            }
            Cow::Owned(v) => {
                let t = std::str::from_utf8(&v[..end])
                    .ok()
                    .map(|s| Cow::Owned(s.to_owned()));
                let latin1 = t.is_none() || std::str::from_utf8(&v[end..]).is_err();
                (t, latin1)
            }
        };
        let bytes = &data[..end];
        let (mut pairs, mut ends) = tokenize_entities(bytes, lump, base)?;
        let text = match utf8 {
            Some(t) => t,
            None => {
                // Each byte one char: offsets move, so cut the converted text again (the same
                // tokens: every delimiter is ASCII).
                let s: String = bytes.iter().map(|&c| c as char).collect();
                (pairs, ends) = tokenize_entities(s.as_bytes(), lump, base)?;
                Cow::Owned(s)
            }
        };
        Ok(Entities {
            text,
            pairs,
            ends,
            latin1,
        })
    }
    /// The text was not UTF-8 (or had non-UTF-8 bytes after its NUL): written back as Latin-1.
    pub fn latin1(&self) -> bool {
        self.latin1
    }
    pub fn len(&self) -> usize {
        self.ends.len()
    }
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
    /// Entity `i`.
    pub fn get(&self, i: usize) -> Option<EntityRef<'_>> {
        let end = *self.ends.get(i)? as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        Some(EntityRef {
            text: &self.text,
            pairs: &self.pairs[start..end],
        })
    }
    /// The entities in file order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = EntityRef<'_>> + '_ {
        let text: &str = &self.text;
        let pairs = &self.pairs[..];
        self.ends.iter().enumerate().map(move |(i, &end)| {
            let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
            EntityRef {
                text,
                pairs: &pairs[start..end as usize],
            }
        })
    }
    /// Owned copies of every entity.
    pub fn to_vec(&self) -> Vec<Entity> {
        self.iter().map(|e| e.to_entity()).collect()
    }
}

/// Whether `b` is whitespace to the entity tokenizer (`u8::is_ascii_whitespace`).
#[inline(always)]
fn entity_space(b: u8) -> bool {
    b <= b' ' && matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

/// The next token at `*i` (not whitespace): a quoted string (without its quotes) or a bare word
/// (up to whitespace, a brace or a quote; empty when `*i` is a brace). Moves `*i` past it.
#[inline(always)]
fn entity_token(bytes: &[u8], i: &mut usize, lump: usize, base: u64) -> Result<(u32, u32)> {
    let start = *i;
    if bytes[start] == b'"' {
        match find_byte(&bytes[start + 1..], b'"') {
            Some(len) => {
                *i = start + len + 2;
                Ok(((start + 1) as u32, (start + 1 + len) as u32))
            }
            None => Err(Error::lump(
                lump,
                base + start as u64,
                "unterminated quoted string",
            )),
        }
    } else {
        let len = bytes[start..]
            .iter()
            .position(|&b| entity_space(b) || matches!(b, b'{' | b'}' | b'"'))
            .unwrap_or(bytes.len() - start);
        *i = start + len;
        Ok((start as u32, (start + len) as u32))
    }
}

/// Cuts entity text into key/value ranges: `(pairs, ends)` as in [`Entities`]. Inside an
/// entity a key may be any token but a brace; a value may be any token (a brace there is an
/// empty bare value, and the brace is read next).
#[allow(clippy::type_complexity)]
fn tokenize_entities(bytes: &[u8], lump: usize, base: u64) -> Result<(Vec<[u32; 4]>, Vec<u32>)> {
    // A pair takes at least 6 bytes (`"k" "v"`), typically 25-40; an entity 100 or more.
    let mut pairs: Vec<[u32; 4]> = Vec::with_capacity(bytes.len() / 24 + 4);
    let mut ends: Vec<u32> = Vec::with_capacity(bytes.len() / 128 + 1);
    let n = bytes.len();
    let skip = |mut i: usize| {
        while i < n && entity_space(bytes[i]) {
            i += 1;
        }
        i
    };
    let unterminated = || Error::lump(lump, base + n as u64, "entity lump ends inside an entity");
    let mut i = skip(0);
    while i < n {
        match bytes[i] {
            b'{' => i += 1,
            b'}' => return Err(Error::lump(lump, base + i as u64, "'}' outside an entity")),
            _ => {
                // A token out of place (an unterminated quote is reported as such first).
                entity_token(bytes, &mut i.clone(), lump, base)?;
                return Err(Error::lump(lump, base + i as u64, "key/value outside an entity"));
            }
        }
        // Inside an entity: pairs until its closing brace.
        loop {
            i = skip(i);
            if i >= n {
                return Err(unterminated());
            }
            match bytes[i] {
                b'}' => {
                    ends.push(pairs.len() as u32);
                    i += 1;
                    break;
                }
                b'{' => return Err(Error::lump(lump, base + i as u64, "'{' inside an entity")),
                _ => {}
            }
            let (ka, kb) = entity_token(bytes, &mut i, lump, base)?;
            i = skip(i);
            if i >= n {
                return Err(unterminated());
            }
            let (va, vb) = entity_token(bytes, &mut i, lump, base)?;
            pairs.push([ka, kb, va, vb]);
        }
        i = skip(i);
    }
    Ok((pairs, ends))
}

/// Writes entities as Valve's vbsp does: `{\n"key" "value"\n}\n` per entity, then a NUL.
/// With `latin1`, characters are written as single bytes (see [`parse_entities`]).
pub fn write_entities(entities: &[Entity], latin1: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let put = |out: &mut Vec<u8>, s: &str| {
        if latin1 {
            out.extend(s.chars().map(|c| if (c as u32) < 256 { c as u8 } else { b'?' }));
        } else {
            out.extend_from_slice(s.as_bytes());
        }
    };
    for e in entities {
        out.extend_from_slice(b"{\n");
        for (k, v) in &e.pairs {
            out.push(b'"');
            put(&mut out, k);
            out.extend_from_slice(b"\" \"");
            put(&mut out, v);
            out.extend_from_slice(b"\"\n");
        }
        out.extend_from_slice(b"}\n");
    }
    out.push(0);
    out
}

/// `doccluderdata_t`: 40 bytes in lump version 2, 36 (no `area`) before.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct OccluderData {
    pub flags: i32,
    pub first_poly: i32,
    pub poly_count: i32,
    pub mins: Vector,
    pub maxs: Vector,
    /// Lump version 2 only.
    pub area: i32,
}

/// The occlusion lump (9): occluders, their polygons and the polygons' vertex indices.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Occlusion {
    pub occluders: Vec<OccluderData>,
    pub polys: Vec<OccluderPolyData>,
    /// Indices into the vertex lump.
    pub vertex_indices: Vec<i32>,
}

impl Occlusion {
    pub fn parse(data: &[u8], ctx: &Ctx, base: u64) -> Result<Occlusion> {
        let err = |e| Error::from_read(OCCLUSION, e);
        let mut r = Reader::with_base(data, base, ctx.endian);
        let with_area = ctx.lump_version >= 2;
        let size = if with_area { 40 } else { 36 };
        let n = r.u32().map_err(err)?;
        let n = r.check_count(n as u64, size).map_err(err)?;
        let occluders = r
            .bytes(n * size as usize)
            .map_err(err)?
            .chunks_exact(size as usize)
            .map(|b| {
                let mut c = Cur::new(b, ctx.endian);
                OccluderData {
                    flags: c.i32(),
                    first_poly: c.i32(),
                    poly_count: c.i32(),
                    mins: c.vec3(),
                    maxs: c.vec3(),
                    area: if with_area { c.i32() } else { 0 },
                }
            })
            .collect();
        let n = r.u32().map_err(err)?;
        let n = r.check_count(n as u64, 12).map_err(err)?;
        let polys = r
            .bytes(n * 12)
            .map_err(err)?
            .chunks_exact(12)
            .map(|b| OccluderPolyData::read(&mut Cur::new(b, ctx.endian), ctx))
            .collect();
        let n = r.u32().map_err(err)?;
        let n = r.check_count(n as u64, 4).map_err(err)?;
        let mut vertex_indices = Vec::with_capacity(n);
        for _ in 0..n {
            vertex_indices.push(r.i32().map_err(err)?);
        }
        if r.remaining() != 0 {
            return Err(Error::lump(
                OCCLUSION,
                r.offset(),
                format!("{} unexpected bytes after the occlusion data", r.remaining()),
            ));
        }
        Ok(Occlusion {
            occluders,
            polys,
            vertex_indices,
        })
    }

    pub fn to_bytes(&self, ctx: &Ctx) -> Vec<u8> {
        let mut w = Out::new(
            ctx.endian,
            12 + self.occluders.len() * 40 + self.polys.len() * 12 + self.vertex_indices.len() * 4,
        );
        w.w.u32(self.occluders.len() as u32);
        for o in &self.occluders {
            w.w.i32(o.flags);
            w.w.i32(o.first_poly);
            w.w.i32(o.poly_count);
            o.mins.put(&mut w);
            o.maxs.put(&mut w);
            if ctx.lump_version >= 2 {
                w.w.i32(o.area);
            }
        }
        w.w.u32(self.polys.len() as u32);
        for p in &self.polys {
            p.write(&mut w, ctx);
        }
        w.w.u32(self.vertex_indices.len() as u32);
        for &i in &self.vertex_indices {
            w.w.i32(i);
        }
        w.w.into_inner()
    }
}

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

impl<'a> PhysCollideView<'a> {
    /// Splits the lump into models and their solids without copying them.
    pub fn parse(data: &'a [u8], endian: Endian, base: u64) -> Result<PhysCollideView<'a>> {
        let err = |e| Error::from_read(PHYSCOLLIDE, e);
        let mut r = Reader::with_base(data, base, endian);
        let mut models = Vec::new();
        loop {
            let at = r.offset();
            let model_index = r.i32().map_err(err)?;
            let data_size = r.i32().map_err(err)?;
            let key_size = r.i32().map_err(err)?;
            let solid_count = r.i32().map_err(err)?;
            if model_index == -1 {
                return Ok(PhysCollideView {
                    models,
                    terminator: [data_size, key_size, solid_count],
                    tail: Cow::Borrowed(r.rest()),
                });
            }
            if data_size < 0 || key_size < 0 || solid_count < 0 {
                return Err(Error::lump(
                    PHYSCOLLIDE,
                    at,
                    format!("model {model_index}: negative size in the header"),
                ));
            }
            let mut blob = r.sub(data_size as usize).map_err(err)?;
            let n = blob.check_count(solid_count as u64, 4).map_err(err)?;
            let mut solids = Vec::with_capacity(n);
            for _ in 0..n {
                let size = blob.i32().map_err(err)?;
                if size < 0 {
                    return Err(Error::lump(PHYSCOLLIDE, blob.offset() - 4, "negative solid size"));
                }
                solids.push(Cow::Borrowed(blob.bytes(size as usize).map_err(err)?));
            }
            if blob.remaining() != 0 {
                return Err(Error::lump(
                    PHYSCOLLIDE,
                    blob.offset(),
                    format!(
                        "model {model_index}: {} bytes of collision data left after {n} solids",
                        blob.remaining()
                    ),
                ));
            }
            let key_data = Cow::Borrowed(r.bytes(key_size as usize).map_err(err)?);
            models.push(PhysModelView {
                model_index,
                solids,
                key_data,
            });
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

/// Texinfo flag: the face has bump-mapped lighting (four sample sets per style).
pub const SURF_BUMPLIGHT: i32 = 0x800;

/// A face's lightmap samples.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FaceLighting {
    /// One average per style, in style order (stored before the samples, in reverse).
    pub averages: Vec<ColorRgbExp32>,
    /// For each style: `luxels` samples (times 4 when bump-mapped: normal then three bump bases).
    pub styles: Vec<Vec<ColorRgbExp32>>,
}

/// Cuts a face's sample groups out of a lighting lump (LDR or HDR). `None` when the face is
/// unlit or its samples fall outside the lump.
pub fn face_lighting(face: &Face, bumped: bool, lighting: &[ColorRgbExp32]) -> Option<FaceLighting> {
    if face.light_offset < 0 || face.light_offset % 4 != 0 {
        return None;
    }
    let first = face.light_offset as usize / 4;
    let styles = face.style_count();
    let per_style = face.luxel_count() * if bumped { 4 } else { 1 };
    let end = first.checked_add(per_style.checked_mul(styles)?)?;
    if styles == 0 || end > lighting.len() || first < styles {
        return None;
    }
    let averages = (0..styles).map(|s| lighting[first - 1 - s]).collect();
    let groups = (0..styles)
        .map(|s| lighting[first + s * per_style..first + (s + 1) * per_style].to_vec())
        .collect();
    Some(FaceLighting {
        averages,
        styles: groups,
    })
}

/// One luxel's sample position on a displacement (`LUMP_DISP_LIGHTMAP_SAMPLE_POSITIONS`): the
/// triangle of the displacement it lies in and its barycentric coordinates (0-255 each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DispSamplePosition {
    pub triangle: u32,
    pub barycentric: [u8; 3],
}

/// Decodes `count` sample positions starting at byte `start` of the lump. Each is a triangle
/// index (one byte; 255 means "255 plus the next byte", repeatedly) then three barycentric bytes.
/// Returns the positions and the offset after them, or `None` if the stream ends early.
pub fn decode_disp_sample_positions(
    data: &[u8],
    start: usize,
    count: usize,
) -> Option<(Vec<DispSamplePosition>, usize)> {
    let mut out = Vec::with_capacity(count.min(data.len() / 4));
    let mut i = start;
    for _ in 0..count {
        let mut triangle = 0u32;
        loop {
            let b = *data.get(i)?;
            i += 1;
            triangle += b as u32;
            if b != 255 {
                break;
            }
        }
        let bary = data.get(i..i + 3)?;
        out.push(DispSamplePosition {
            triangle,
            barycentric: [bary[0], bary[1], bary[2]],
        });
        i += 3;
    }
    Some((out, i))
}

/// Encodes sample positions (the inverse of [`decode_disp_sample_positions`]).
pub fn encode_disp_sample_positions(positions: &[DispSamplePosition], out: &mut Vec<u8>) {
    for p in positions {
        let mut t = p.triangle;
        while t >= 255 {
            out.push(255);
            t -= 255;
        }
        out.push(t as u8);
        out.extend_from_slice(&p.barycentric);
    }
}

/// The displacement collision lump (28, `dphysdisp_t`): one VPhysics blob per displacement.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PhysDisp {
    /// Each displacement's collision data (empty when it has none).
    pub blobs: Vec<Vec<u8>>,
    /// Bytes after the last blob.
    pub tail: Vec<u8>,
}

/// [`PhysDisp`] borrowing its blobs from the lump.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PhysDispView<'a> {
    pub blobs: Vec<Cow<'a, [u8]>>,
    pub tail: Cow<'a, [u8]>,
}

impl<'a> PhysDispView<'a> {
    /// `u16` count, `u16` size per displacement, then the blobs back to back.
    pub fn parse(data: &'a [u8], endian: Endian, base: u64) -> Result<PhysDispView<'a>> {
        let err = |e| Error::from_read(crate::lump::PHYSDISP, e);
        let mut r = Reader::with_base(data, base, endian);
        let n = r.u16().map_err(err)? as usize;
        let n = r.check_count(n as u64, 2).map_err(err)?;
        let at = r.offset();
        let mut sizes = Reader::with_base(r.bytes(n * 2).map_err(err)?, at, endian);
        let mut blobs = Vec::with_capacity(n);
        for _ in 0..n {
            let size = sizes.u16().map_err(err)? as usize;
            blobs.push(Cow::Borrowed(r.bytes(size).map_err(err)?));
        }
        Ok(PhysDispView {
            blobs,
            tail: Cow::Borrowed(r.rest()),
        })
    }

    /// Owned copies of every blob.
    pub fn into_owned(self) -> PhysDisp {
        PhysDisp {
            blobs: self.blobs.into_iter().map(Cow::into_owned).collect(),
            tail: self.tail.into_owned(),
        }
    }

    /// The same view, no longer borrowing (for a lump that was decompressed).
    pub fn into_static(self) -> PhysDispView<'static> {
        PhysDispView {
            blobs: self
                .blobs
                .into_iter()
                .map(|b| Cow::Owned(b.into_owned()))
                .collect(),
            tail: Cow::Owned(self.tail.into_owned()),
        }
    }
}

impl PhysDisp {
    /// `u16` count, `u16` size per displacement, then the blobs back to back.
    pub fn parse(data: &[u8], endian: Endian, base: u64) -> Result<PhysDisp> {
        PhysDispView::parse(data, endian, base).map(PhysDispView::into_owned)
    }

    pub fn to_bytes(&self, endian: Endian) -> std::result::Result<Vec<u8>, String> {
        let mut w = Writer::new(endian);
        if self.blobs.len() > u16::MAX as usize {
            return Err(format!(
                "{} displacement blobs exceed the u16 count",
                self.blobs.len()
            ));
        }
        w.u16(self.blobs.len() as u16);
        for b in &self.blobs {
            if b.len() > 0xffff {
                return Err(format!(
                    "a displacement collision blob of {} bytes exceeds the u16 size",
                    b.len()
                ));
            }
            w.u16(b.len() as u16);
        }
        for b in &self.blobs {
            w.bytes(b);
        }
        w.bytes(&self.tail);
        Ok(w.into_inner())
    }
}

#[cfg(test)]
mod entity_tests {
    use super::*;

    #[test]
    fn malformed_text_errors() {
        let cases: [(&[u8], &str, u64); 6] = [
            (b"{ \"a\" \"b\" } \"c", "unterminated quoted string", 12),
            (b"{ \"a\" \"b\" } c", "key/value outside an entity", 12),
            (b"}", "'}' outside an entity", 0),
            (b"{ \"a\" { }", "'{' inside an entity", 6),
            (b"{ \"a\" \"b\"", "entity lump ends inside an entity", 9),
            (b"{ \"a", "unterminated quoted string", 2),
        ];
        for (text, message, offset) in cases {
            let err = Entities::parse(Cow::Borrowed(text), 0, 100).unwrap_err();
            let shown = err.to_string();
            assert!(shown.contains(message), "{shown}");
            assert_eq!(err.offset(), Some(100 + offset), "{shown}");
        }
        // Braces as values are empty bare values.
        let e = Entities::parse(Cow::Borrowed(b"{ \"a\" }"), 0, 0).unwrap();
        assert_eq!(e.get(0).unwrap().pairs().collect::<Vec<_>>(), [("a", "")]);
    }

    #[test]
    fn tokens_of_every_length() {
        for len in 0..40 {
            let value = "x".repeat(len);
            let text = format!("{{\n\"k\" \"{value}\"\n\"{value}\" \"v\"\n}}\n");
            let e = Entities::parse(Cow::Borrowed(text.as_bytes()), 0, 0).unwrap();
            let pairs: Vec<_> = e.get(0).unwrap().pairs().collect();
            assert_eq!(pairs, [("k", value.as_str()), (value.as_str(), "v")]);
        }
    }
}
