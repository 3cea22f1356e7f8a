//! The lossless, lump-level document: every lump's stored bytes plus where it sat in the source
//! file, so that writing an untouched file reproduces it byte for byte (lump order, padding,
//! offsets of empty lumps, trailing bytes), and editing one lump leaves the others' bytes alone
//! (LZMA is never re-encoded for a lump that was not changed).

use std::borrow::Cow;

use srcmap_bytes::{Endian, Writer};

use crate::codec::Ctx;
use crate::error::{BspError, Result};
use crate::file::{BspFile, LumpOrder};
use crate::gamelump::{GameLumps, RawGameLumps};
use crate::lump::{GAME_LUMP, HEADER_LUMPS, HEADER_SIZE, PAKFILE};
use crate::lzma;
use crate::order::write_order;

/// One lump of a [`BspDocument`].
#[derive(Debug, Clone, Default)]
pub struct LumpSlot<'a> {
    /// `lump_t.version`: the lump's format version.
    pub version: u32,
    /// `lump_t.fourCC`: zero, or the uncompressed size of a compressed lump.
    pub fourcc: u32,
    /// The bytes as stored in the file (LZMA block if compressed).
    pub data: Cow<'a, [u8]>,
    /// Offset in the source file while the lump is untouched.
    origin: Option<u32>,
}

impl LumpSlot<'_> {
    pub fn is_compressed(&self) -> bool {
        lzma::is_compressed(&self.data)
    }
    /// Whether the lump still holds its bytes from the source file.
    pub fn is_untouched(&self) -> bool {
        self.origin.is_some()
    }
}

/// A BSP as a directory of stored lumps. Build one from a file ([`BspDocument::from_file`]) or
/// empty ([`BspDocument::new`]), replace lumps, and write it with [`BspDocument::to_bytes`].
#[derive(Debug, Clone)]
pub struct BspDocument<'a> {
    pub endian: Endian,
    pub version: i32,
    pub revision: i32,
    pub order: LumpOrder,
    pub lumps: Vec<LumpSlot<'a>>,
    /// Lumps in the order their data appears in the file.
    file_order: Vec<usize>,
    source: Option<&'a [u8]>,
    /// The absolute offset the stored game lump directory's `fileofs` values assume for the start
    /// of lump 35 (its original offset; 0 for a lump built here). `None`: console files whose
    /// offsets are relative to the lump and never need patching.
    game_lump_base: Option<u32>,
}

impl<'a> BspDocument<'a> {
    /// An empty document for BSP `version` (20 is Source 2013's), little-endian.
    pub fn new(version: i32) -> Self {
        BspDocument::with_order(version, LumpOrder::Standard)
    }

    /// An empty document for BSP `version` with `order` directory fields, its lumps to be laid
    /// out in the order that branch's tools write them ([`crate::order::write_order`]).
    pub fn with_order(version: i32, order: LumpOrder) -> Self {
        let written = write_order(version, order);
        let mut file_order: Vec<usize> = written.to_vec();
        file_order.extend((0..HEADER_LUMPS).filter(|i| !written.contains(i)));
        let mut lumps = vec![LumpSlot::default(); HEADER_LUMPS];
        for (i, slot) in lumps.iter_mut().enumerate() {
            if !written.contains(&i) {
                // Lumps Valve's tools never write keep offset 0 while empty.
                slot.origin = Some(0);
            }
        }
        BspDocument {
            endian: Endian::Little,
            version,
            revision: 0,
            order,
            lumps,
            file_order,
            source: None,
            game_lump_base: Some(0),
        }
    }

    /// A document holding every lump of `file` exactly as stored.
    pub fn from_file(file: &BspFile<'a>) -> Self {
        let h = &file.header;
        let lumps: Vec<LumpSlot<'a>> = (0..HEADER_LUMPS)
            .map(|i| {
                let e = h.lumps[i];
                LumpSlot {
                    version: e.version,
                    fourcc: e.fourcc,
                    data: Cow::Borrowed(file.stored(i)),
                    origin: Some(e.offset),
                }
            })
            .collect();
        let mut file_order: Vec<usize> = (0..HEADER_LUMPS).collect();
        // The branch's write order breaks ties between lumps at the same offset (empty ones), so
        // that a lump a later stage fills (vrad's leaf ambient lumps) lands where that branch's
        // tools put it.
        let written = write_order(h.version, h.order);
        let rank = |i: usize| written.iter().position(|&l| l == i).unwrap_or(HEADER_LUMPS + i);
        file_order.sort_by_key(|&i| (h.lumps[i].offset, h.lumps[i].len > 0, rank(i)));
        let gl = h.lumps[GAME_LUMP];
        let relative = crate::gamelump::has_relative_offsets(file.stored(GAME_LUMP), gl.offset, h.endian);
        BspDocument {
            endian: h.endian,
            version: h.version,
            revision: h.revision,
            order: h.order,
            lumps,
            file_order,
            source: Some(file.data()),
            game_lump_base: if relative { None } else { Some(gl.offset) },
        }
    }

    /// The lump's uncompressed bytes.
    pub fn lump_data(&self, lump: usize) -> Result<Cow<'_, [u8]>> {
        let slot = &self.lumps[lump];
        if lump != GAME_LUMP && slot.is_compressed() {
            let compressed = self
                .lumps
                .iter()
                .enumerate()
                .filter(|&(l, s)| l != GAME_LUMP && s.is_compressed());
            lzma::check_budget(compressed.map(|(_, s)| s.data.as_ref()))
                .map_err(|m| BspError::lump(lump, 0, m))?;
            lzma::decode(&slot.data)
                .map(Cow::Owned)
                .map_err(|e| BspError::lump(lump, 0, e.to_string()))
        } else {
            Ok(Cow::Borrowed(&slot.data))
        }
    }

    /// Replaces a lump with uncompressed `data`. For the game lump, the directory's offsets must be
    /// relative to the start of the lump (as [`crate::GameLumps::to_bytes`] writes them); they are
    /// made absolute on write.
    pub fn set_lump(&mut self, lump: usize, data: Vec<u8>, version: u32) {
        self.lumps[lump] = LumpSlot {
            version,
            fourcc: 0,
            data: Cow::Owned(data),
            origin: None,
        };
        // Relative directories (console files) stay relative; absolute ones now count from 0.
        if lump == GAME_LUMP && self.game_lump_base.is_some() {
            self.game_lump_base = Some(0);
        }
    }

    /// Replaces a lump with already-stored bytes (an LZMA block, or plain), keeping `fourcc`.
    pub fn set_lump_stored(&mut self, lump: usize, data: Vec<u8>, version: u32, fourcc: u32) {
        self.lumps[lump] = LumpSlot {
            version,
            fourcc,
            data: Cow::Owned(data),
            origin: None,
        };
        // Relative directories (console files) stay relative; absolute ones now count from 0.
        if lump == GAME_LUMP && self.game_lump_base.is_some() {
            self.game_lump_base = Some(0);
        }
    }

    /// The game lump directory with stored entries.
    pub fn raw_game_lumps(&self) -> Result<RawGameLumps> {
        let base = self.game_lump_base.unwrap_or(0);
        RawGameLumps::parse(
            &self.lumps[GAME_LUMP].data,
            base,
            self.game_lump_base.is_none(),
            self.endian,
        )
    }

    /// The game lump, parsed and decompressed.
    pub fn game_lumps_typed(&self, ctx: &Ctx) -> Result<GameLumps> {
        let raw = self.raw_game_lumps()?;
        GameLumps::parse(&raw, ctx)
    }

    /// LZMA-compresses every lump that is not already compressed and gets smaller (as Valve's
    /// bspzip does), and each game lump separately. The pakfile is never compressed as a lump.
    pub fn compress(&mut self) -> Result<()> {
        for lump in 0..HEADER_LUMPS {
            if lump == PAKFILE || lump == GAME_LUMP {
                continue;
            }
            let slot = &self.lumps[lump];
            if slot.data.is_empty() || slot.is_compressed() {
                continue;
            }
            let packed = lzma::encode(&slot.data).map_err(|e| BspError::Write {
                lump,
                message: e.to_string(),
            })?;
            if packed.len() < slot.data.len() {
                let (version, len) = (slot.version, slot.data.len() as u32);
                self.set_lump_stored(lump, packed, version, len);
            }
        }
        if !self.lumps[GAME_LUMP].data.is_empty() {
            let mut gl = self.raw_game_lumps()?;
            if gl.compress()? {
                let version = self.lumps[GAME_LUMP].version;
                self.set_lump(GAME_LUMP, gl.to_bytes(self.endian), version);
            }
        }
        Ok(())
    }

    /// Stores every lump uncompressed, game lumps included.
    pub fn decompress(&mut self) -> Result<()> {
        for lump in 0..HEADER_LUMPS {
            if lump == GAME_LUMP || !self.lumps[lump].is_compressed() {
                continue;
            }
            let data = self.lump_data(lump)?.into_owned();
            let version = self.lumps[lump].version;
            self.set_lump(lump, data, version);
        }
        if !self.lumps[GAME_LUMP].data.is_empty() {
            let mut gl = self.raw_game_lumps()?;
            if gl.decompress()? {
                let version = self.lumps[GAME_LUMP].version;
                self.set_lump(GAME_LUMP, gl.to_bytes(self.endian), version);
            }
        }
        Ok(())
    }

    /// Lays out and writes the file. Untouched lumps keep their offsets and the bytes between
    /// them for as long as nothing before them moved; everything else is 4-byte aligned.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut layout = Layout::new(self);
        for &lump in &self.file_order {
            layout.place(lump, &self.lumps[lump])?;
        }
        layout.finish();
        let Layout { mut out, entries, .. } = layout;
        self.move_game_lump_offsets(&mut out, entries[GAME_LUMP])?;
        out[..HEADER_SIZE].copy_from_slice(&self.header_bytes(&entries));
        Ok(out)
    }

    /// Game lump offsets are absolute: move them with the lump, written at `(offset, len)`.
    fn move_game_lump_offsets(&self, out: &mut [u8], (off, len): (u32, u32)) -> Result<()> {
        let Some(base) = self.game_lump_base else {
            return Ok(());
        };
        if len > 0 && off != base {
            let delta = off as i64 - base as i64;
            crate::gamelump::patch_offsets(&mut out[off as usize..(off + len) as usize], self.endian, delta)
                .map_err(|e| BspError::Write {
                    lump: GAME_LUMP,
                    message: e.to_string(),
                })?;
        }
        Ok(())
    }

    /// The file header: magic, version, the lump directory of `entries` and the revision.
    fn header_bytes(&self, entries: &[(u32, u32); HEADER_LUMPS]) -> Vec<u8> {
        let mut w = Writer::with_capacity(self.endian, HEADER_SIZE);
        w.bytes(if self.endian == Endian::Little {
            b"VBSP"
        } else {
            b"PSBV"
        });
        w.i32(self.version);
        for (lump, &(offset, len)) in entries.iter().enumerate() {
            let slot = &self.lumps[lump];
            match self.order {
                LumpOrder::Standard => {
                    w.u32(offset);
                    w.u32(len);
                    w.u32(slot.version);
                }
                LumpOrder::L4d2 => {
                    w.u32(slot.version);
                    w.u32(offset);
                    w.u32(len);
                }
            }
            w.u32(slot.fourcc);
        }
        w.i32(self.revision);
        w.buf
    }
}

/// The file [`BspDocument::to_bytes`] is laying out: the bytes so far (the header zeroed) and
/// each lump's `(offset, length)`.
struct Layout<'s> {
    out: Vec<u8>,
    entries: [(u32, u32); HEADER_LUMPS],
    /// True while every byte written so far sits where it sat in the source file.
    in_place: bool,
    source: Option<&'s [u8]>,
}

impl<'s> Layout<'s> {
    fn new(doc: &BspDocument<'s>) -> Self {
        let total: usize = doc.lumps.iter().map(|l| l.data.len() + 3).sum::<usize>() + HEADER_SIZE;
        let mut out = Vec::with_capacity(total);
        out.resize(HEADER_SIZE, 0);
        Layout {
            out,
            entries: [(0u32, 0u32); HEADER_LUMPS],
            in_place: doc.source.is_some(),
            source: doc.source,
        }
    }

    /// Writes `slot` at its source offset while everything before it is in place, else at the
    /// next 4-byte boundary.
    fn place(&mut self, lump: usize, slot: &LumpSlot<'_>) -> Result<()> {
        let len = slot.data.len();
        let Some(offset) = self.offset_for(lump, slot) else {
            return Ok(());
        };
        if self.out.len() + len > u32::MAX as usize {
            return Err(BspError::Write {
                lump,
                message: "file would exceed 4 GiB".into(),
            });
        }
        self.out.extend_from_slice(&slot.data);
        self.entries[lump] = (offset, len as u32);
        Ok(())
    }

    /// Where `slot` goes, padding or copying the source's bytes up to there; `None` when it
    /// overlaps bytes already written and is placed already.
    fn offset_for(&mut self, lump: usize, slot: &LumpSlot<'_>) -> Option<u32> {
        let len = slot.data.len();
        Some(match slot.origin {
            Some(orig) if self.in_place && len == 0 => orig,
            Some(orig) if self.in_place && (orig as usize) < self.out.len() => {
                self.place_overlapping(lump, orig, &slot.data);
                return None;
            }
            Some(orig) if self.in_place && orig as usize >= self.out.len() => {
                self.copy_source_gap(orig as usize);
                orig
            }
            Some(0) if len == 0 => {
                self.in_place = false;
                0
            }
            _ => {
                // Valve pads every lump to 4 bytes and records the position even for
                // lumps written empty.
                self.in_place = false;
                self.pad();
                self.out.len() as u32
            }
        })
    }

    /// A lump at `orig`, overlapping bytes already written (lumps sharing data): since
    /// everything so far equals the source, only the part past the end is new.
    fn place_overlapping(&mut self, lump: usize, orig: u32, data: &[u8]) {
        let done = self.out.len() - orig as usize;
        self.out.extend_from_slice(data.get(done..).unwrap_or(&[]));
        self.entries[lump] = (orig, data.len() as u32);
    }

    /// Copies the gap up to `end` (padding, or bytes no lump claims) from the source.
    fn copy_source_gap(&mut self, end: usize) {
        let src = self.source.unwrap_or(&[]);
        self.out
            .extend_from_slice(src.get(self.out.len()..end).unwrap_or(&[]));
        self.out.resize(end, 0);
    }

    /// Zeros up to the next 4-byte boundary.
    fn pad(&mut self) {
        while !self.out.len().is_multiple_of(4) {
            self.out.push(0);
        }
    }

    /// Pads the end of a moved file; an in-place one keeps the source's bytes after the last lump.
    fn finish(&mut self) {
        if !self.in_place {
            self.pad();
        } else if let Some(src) = self.source
            && src.len() > self.out.len()
        {
            self.out.extend_from_slice(&src[self.out.len()..]);
        }
    }
}
