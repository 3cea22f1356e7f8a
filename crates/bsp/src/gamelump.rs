//! The game lump (35): a directory of game-specific lumps (`dgamelumpheader_t`), with static
//! props (`sprp`, versions 4-13), detail props (`dprp`) and detail prop lighting
//! (`dplt`/`dplh`) typed. Entry offsets are absolute file offsets (relative to the lump in some
//! console files). Compressed entries (flag 1) are LZMA blocks whose stored size is the distance
//! to the next entry, which is why compressed directories end with an empty dummy entry; when
//! that dummy's offset is 0 (or not after the entry), the entry runs to the game lump's end.

use srcmap_bytes::{Endian, Reader, Writer};

use crate::codec::{Ctx, Cur, Field, Out, read_counted};
use crate::error::{BspError, Result};
use crate::lump::GAME_LUMP;
use crate::lzma;
use crate::records::{ColorRgbExp32, Vector};
use crate::versions::{DETAIL_PROP_LIGHTING_VERSION, DETAIL_PROPS_VERSION};

/// Game lump ids, as the big-endian reading of their four characters.
pub const SPRP: u32 = u32::from_be_bytes(*b"sprp");
pub const DPRP: u32 = u32::from_be_bytes(*b"dprp");
pub const DPLT: u32 = u32::from_be_bytes(*b"dplt");
pub const DPLH: u32 = u32::from_be_bytes(*b"dplh");

/// Flag on a game lump entry: its data is LZMA-compressed.
pub const GAMELUMPFLAG_COMPRESSED: u16 = 1;

/// A game lump id as text (`"sprp"`).
pub fn id_name(id: u32) -> String {
    id.to_be_bytes()
        .iter()
        .map(|&b| if b.is_ascii_graphic() { b as char } else { '?' })
        .collect()
}

/// One directory entry with its stored bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawGameLump {
    pub id: u32,
    pub flags: u16,
    pub version: u16,
    /// `filelen` from the directory (the uncompressed size for compressed entries).
    pub len: u32,
    /// The stored bytes (an LZMA block when compressed).
    pub data: Vec<u8>,
}

impl RawGameLump {
    pub fn is_compressed(&self) -> bool {
        self.flags & GAMELUMPFLAG_COMPRESSED != 0
    }
    /// Uncompressed bytes.
    pub fn uncompressed(&self, offset: u64) -> Result<Vec<u8>> {
        if self.is_compressed() && !self.data.is_empty() {
            lzma::decode_at_most(&self.data, lzma::MAX_GAME_LUMP_UNCOMPRESSED).map_err(|e| {
                BspError::GameLump {
                    id: id_name(self.id),
                    offset,
                    message: e.to_string(),
                }
            })
        } else {
            Ok(self.data.clone())
        }
    }
}

/// The game lump directory with each entry's stored bytes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RawGameLumps {
    pub entries: Vec<RawGameLump>,
    /// Offsets of each entry's data in the file, for error messages.
    pub offsets: Vec<u64>,
}

/// What is wrong with one game lump's data. Callers add the game lump's id and offset
/// ([`BspError::GameLump`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GameLumpError {
    #[error(transparent)]
    Read(#[from] srcmap_bytes::ReadError),
    #[error(transparent)]
    Lzma(#[from] crate::lzma::LzmaError),
    #[error("game lump directory of {entries} entries does not fit in {len} bytes")]
    Directory { entries: usize, len: usize },
    #[error("game lump offset {offset} cannot move by {delta}")]
    OffsetMove { offset: u32, delta: i64 },
    #[error("at byte {at}: {count} props in {rest} bytes match no known v{version} record layout")]
    UnknownPropLayout {
        at: u64,
        count: usize,
        rest: usize,
        version: u16,
    },
    #[error("at byte {at}: {count} props of {size} bytes exceed the {rest} bytes left")]
    PropsOverrun {
        at: u64,
        count: usize,
        size: usize,
        rest: usize,
    },
    #[error("{extra} bytes after {count} detail prop light styles")]
    LightStylesTail { extra: usize, count: usize },
    /// A value does not fit its on-disk field while writing.
    #[error("{0}")]
    Field(String),
}

/// Whether the directory's offsets are relative to the lump (Xbox 360 / PS3 builds).
pub fn has_relative_offsets(stored: &[u8], lump_offset: u32, endian: Endian) -> bool {
    let mut r = Reader::new(stored, endian);
    let Ok(n) = r.u32() else { return false };
    if n == 0 || r.check_count(n as u64, 16).is_err() {
        return false;
    }
    let _ = r.skip(8);
    match r.u32() {
        Ok(first) => (first as u64) < lump_offset as u64 && (first as usize) <= stored.len(),
        Err(_) => false,
    }
}

/// Adds `delta` to every entry's `fileofs` in a stored game lump (used when the lump moves).
pub fn patch_offsets(
    stored: &mut [u8],
    endian: Endian,
    delta: i64,
) -> std::result::Result<(), GameLumpError> {
    let n = Reader::new(stored, endian).u32()? as usize;
    if n.checked_mul(16)
        .and_then(|b| b.checked_add(4))
        .is_none_or(|end| end > stored.len())
    {
        return Err(GameLumpError::Directory {
            entries: n,
            len: stored.len(),
        });
    }
    for i in 0..n {
        move_offset(&mut stored[4 + 16 * i + 8..][..4], endian, delta)?;
    }
    Ok(())
}

/// Adds `delta` to one entry's `fileofs`, the four bytes `at`.
fn move_offset(at: &mut [u8], endian: Endian, delta: i64) -> std::result::Result<(), GameLumpError> {
    let old = Reader::new(at, endian).u32()?;
    // Offset 0 is the empty end entry some TF2 maps write (Valve's own points at the end): it
    // points at no data, so it stays 0 wherever the lump moves, as the reader expects it.
    if old == 0 {
        return Ok(());
    }
    let new =
        u32::try_from(old as i64 + delta).map_err(|_| GameLumpError::OffsetMove { offset: old, delta })?;
    let bytes = if endian == Endian::Little {
        new.to_le_bytes()
    } else {
        new.to_be_bytes()
    };
    at.copy_from_slice(&bytes);
    Ok(())
}

/// One directory entry and where its stored bytes lie in the lump.
struct DirEntry {
    id: u32,
    flags: u16,
    version: u16,
    len: u32,
    /// The stored bytes within the lump (empty for a dummy entry pointing anywhere).
    range: std::ops::Range<usize>,
    /// Absolute file offset of the data, for errors.
    abs: u64,
}

/// Reads and checks the directory: `base` is the absolute offset that entry offsets count from
/// (the lump's offset in the file; 0 when `relative`).
fn directory(stored: &[u8], base: u32, relative: bool, endian: Endian) -> Result<Vec<DirEntry>> {
    if stored.is_empty() {
        return Ok(Vec::new());
    }
    let dir = directory_records(stored, base, endian)?;
    let origin = if relative { 0 } else { base as i64 };
    let mut entries = Vec::with_capacity(dir.len());
    for (i, record) in dir.iter().enumerate() {
        let next = dir.get(i + 1).map(|d| d.ofs);
        entries.push(record.locate(i, next, origin, stored, base)?);
    }
    Ok(entries)
}

/// `dgamelump_t` as stored: offsets still absolute (or relative to the lump).
struct DirRecord {
    id: u32,
    flags: u16,
    version: u16,
    ofs: u32,
    len: u32,
}

/// The directory's count and records.
fn directory_records(stored: &[u8], base: u32, endian: Endian) -> Result<Vec<DirRecord>> {
    let err = |e| BspError::from_read(GAME_LUMP, e);
    let mut r = Reader::with_base(stored, base as u64, endian);
    let n = r.u32().map_err(err)?;
    let n = r.check_count(n as u64, 16).map_err(err)?;
    let mut dir = Vec::with_capacity(n);
    for _ in 0..n {
        let id = r.u32().map_err(err)?;
        let flags = r.u16().map_err(err)?;
        let version = r.u16().map_err(err)?;
        let ofs = r.u32().map_err(err)?;
        let len = r.u32().map_err(err)?;
        dir.push(DirRecord {
            id,
            flags,
            version,
            ofs,
            len,
        });
    }
    Ok(dir)
}

impl DirRecord {
    /// How many bytes the entry stores from `start` (`next`: where the next entry starts).
    fn stored_len(&self, start: i64, next: Option<i64>, lump_len: usize) -> i64 {
        if self.flags & GAMELUMPFLAG_COMPRESSED != 0 && self.len > 0 {
            // Compressed size: up to the next entry's offset, or to the lump's end when there is
            // no next entry or its offset is not after this one (the terminating dummy of many
            // compressed directories has offset 0). The engine decodes through the LZMA
            // header's own sizes, so the exact end does not matter to it.
            next.filter(|&next| next > start).unwrap_or(lump_len as i64) - start
        } else {
            self.len as i64
        }
    }

    /// Entry `i`'s bytes `span` as a range of the lump (of `lump_len` bytes): an error when
    /// they lie outside it, except for empty (dummy) entries, which may point anywhere.
    fn range_in(
        &self,
        i: usize,
        span: std::ops::Range<i64>,
        lump_len: usize,
        base: u32,
    ) -> Result<std::ops::Range<usize>> {
        let (start, stored_len) = (span.start, span.end - span.start);
        if start >= 0 && stored_len >= 0 && (start + stored_len) as usize <= lump_len {
            return Ok(start as usize..(start + stored_len) as usize);
        }
        if self.len == 0 {
            return Ok(0..0);
        }
        let ofs = self.ofs;
        Err(BspError::GameLump {
            id: id_name(self.id),
            offset: 4 + 16 * i as u64 + base as u64,
            message: format!(
                "data at file offset {ofs} ({stored_len} bytes) lies outside the game lump ({lump_len} bytes at {base})"
            ),
        })
    }

    /// Where entry `i`'s stored bytes lie in the lump; `next` is the following entry's offset.
    fn locate(&self, i: usize, next: Option<u32>, origin: i64, stored: &[u8], base: u32) -> Result<DirEntry> {
        let &DirRecord {
            id,
            flags,
            version,
            ofs,
            len,
        } = self;
        let start = ofs as i64 - origin;
        let stored_len = self.stored_len(start, next.map(|ofs| ofs as i64 - origin), stored.len());
        let abs = base as u64 + start.max(0) as u64;
        let range = self.range_in(i, start..start + stored_len, stored.len(), base)?;
        Ok(DirEntry {
            id,
            flags,
            version,
            len,
            range,
            abs,
        })
    }
}

impl RawGameLumps {
    /// Parses the directory. `base` is the absolute offset that entry offsets count from (the
    /// lump's offset in the file; 0 when `relative`).
    pub fn parse(stored: &[u8], base: u32, relative: bool, endian: Endian) -> Result<RawGameLumps> {
        let dir = directory(stored, base, relative, endian)?;
        Ok(RawGameLumps {
            offsets: dir.iter().map(|e| e.abs).collect(),
            entries: dir
                .into_iter()
                .map(|e| RawGameLump {
                    id: e.id,
                    flags: e.flags,
                    version: e.version,
                    len: e.len,
                    data: stored[e.range].to_vec(),
                })
                .collect(),
        })
    }

    /// Writes the directory and data with offsets relative to the lump start (base 0; the
    /// document makes them absolute when it places the lump).
    pub fn to_bytes(&self, endian: Endian) -> Vec<u8> {
        let mut w = Writer::new(endian);
        w.u32(self.entries.len() as u32);
        let mut ofs = 4 + 16 * self.entries.len();
        for e in &self.entries {
            w.u32(e.id);
            w.u16(e.flags);
            w.u16(e.version);
            w.u32(ofs as u32);
            w.u32(e.len);
            ofs += e.data.len();
        }
        for e in &self.entries {
            w.bytes(&e.data);
        }
        w.into_inner()
    }

    /// Compresses every non-empty entry; adds the dummy end entry. Returns whether anything changed.
    pub fn compress(&mut self) -> Result<bool> {
        let mut changed = false;
        for (i, e) in self.entries.iter_mut().enumerate() {
            if e.is_compressed() || e.data.is_empty() {
                continue;
            }
            e.data = lzma::encode(&e.data).map_err(|err| BspError::GameLump {
                id: id_name(e.id),
                offset: self.offsets.get(i).copied().unwrap_or(0),
                message: err.to_string(),
            })?;
            e.flags |= GAMELUMPFLAG_COMPRESSED;
            changed = true;
        }
        if changed
            && self
                .entries
                .last()
                .is_none_or(|e| e.id != 0 || !e.data.is_empty())
        {
            self.entries.push(RawGameLump {
                id: 0,
                flags: 0,
                version: 0,
                len: 0,
                data: Vec::new(),
            });
        }
        Ok(changed)
    }

    /// Decompresses every entry and drops the dummy end entry. Returns whether anything changed.
    pub fn decompress(&mut self) -> Result<bool> {
        check_entries_budget(self.entries.iter().enumerate().map(|(i, e)| {
            (
                e.id,
                e.flags,
                &e.data[..],
                self.offsets.get(i).copied().unwrap_or(0),
            )
        }))?;
        let mut changed = false;
        for (i, e) in self.entries.iter_mut().enumerate() {
            if !e.is_compressed() {
                continue;
            }
            e.data = e.uncompressed(self.offsets.get(i).copied().unwrap_or(0))?;
            e.len = e.data.len() as u32;
            e.flags &= !GAMELUMPFLAG_COMPRESSED;
            changed = true;
        }
        if changed {
            while self
                .entries
                .last()
                .is_some_and(|e| e.id == 0 && e.data.is_empty())
            {
                self.entries.pop();
            }
        }
        Ok(changed)
    }
}

/// The typed game lump.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GameLumps {
    pub lumps: Vec<GameLump>,
}

/// One game lump, uncompressed.
#[derive(Debug, Clone, PartialEq)]
pub struct GameLump {
    pub id: u32,
    /// Flags other than compression.
    pub flags: u16,
    pub version: u16,
    pub data: GameLumpData,
}

#[derive(Debug, Clone, PartialEq)]
pub enum GameLumpData {
    StaticProps(StaticProps),
    DetailProps(DetailProps),
    /// `dplt` (LDR) or `dplh` (HDR).
    DetailPropLighting(Vec<DetailPropLight>),
    /// Unknown id or version: the uncompressed bytes.
    Raw(Vec<u8>),
}

impl GameLump {
    /// One directory entry from its stored bytes (decompressed here when flagged); `None` for
    /// the dummy that ends a compressed directory. `offset` is the data's file offset.
    fn parse(
        id: u32,
        flags: u16,
        version: u16,
        stored: std::borrow::Cow<'_, [u8]>,
        offset: u64,
        ctx: &Ctx,
    ) -> Result<Option<GameLump>> {
        if id == 0 && stored.is_empty() {
            return Ok(None); // The dummy that ends a compressed directory.
        }
        let err = |e: GameLumpError| BspError::GameLump {
            id: id_name(id),
            offset,
            message: e.to_string(),
        };
        let bytes = decompressed(stored, flags).map_err(err)?;
        let data = GameLumpData::parse(id, version, bytes, offset, ctx).map_err(err)?;
        Ok(Some(GameLump {
            id,
            flags: flags & !GAMELUMPFLAG_COMPRESSED,
            version,
            data,
        }))
    }
}

/// A game lump's stored bytes, decompressed when flagged.
fn decompressed(
    stored: std::borrow::Cow<'_, [u8]>,
    flags: u16,
) -> std::result::Result<std::borrow::Cow<'_, [u8]>, GameLumpError> {
    if flags & GAMELUMPFLAG_COMPRESSED != 0 && !stored.is_empty() {
        Ok(std::borrow::Cow::Owned(lzma::decode_at_most(
            &stored,
            lzma::MAX_GAME_LUMP_UNCOMPRESSED,
        )?))
    } else {
        Ok(stored)
    }
}

impl GameLumpData {
    /// The uncompressed `bytes` of game lump `id` typed, when its version has a layout.
    fn parse(
        id: u32,
        version: u16,
        bytes: std::borrow::Cow<'_, [u8]>,
        offset: u64,
        ctx: &Ctx,
    ) -> std::result::Result<GameLumpData, GameLumpError> {
        Ok(match (id, version) {
            (SPRP, 4..=13) => GameLumpData::StaticProps(StaticProps::parse(&bytes, version, ctx, offset)?),
            (DPRP, DETAIL_PROPS_VERSION) => {
                GameLumpData::DetailProps(DetailProps::parse(&bytes, ctx, offset)?)
            }
            (DPLT | DPLH, DETAIL_PROP_LIGHTING_VERSION) => {
                GameLumpData::DetailPropLighting(parse_detail_lighting(&bytes, ctx, offset)?)
            }
            _ => GameLumpData::Raw(bytes.into_owned()),
        })
    }
}

/// Refuses a game lump whose compressed entries (id, flags, stored bytes, file offset) claim
/// more than [`lzma::MAX_FILE_UNCOMPRESSED`] together: each is capped, but a directory may hold
/// thousands of them.
fn check_entries_budget<'a>(entries: impl Iterator<Item = (u32, u16, &'a [u8], u64)> + Clone) -> Result<()> {
    let compressed = entries.filter(|&(_, flags, _, _)| flags & GAMELUMPFLAG_COMPRESSED != 0);
    lzma::check_budget(compressed.clone().map(|(_, _, data, _)| data)).map_err(|message| {
        let (id, _, _, offset) = compressed.clone().next().unwrap_or_default();
        BspError::GameLump {
            id: id_name(id),
            offset,
            message,
        }
    })
}

impl GameLumps {
    /// Parses and decompresses every entry.
    pub fn parse(raw: &RawGameLumps, ctx: &Ctx) -> Result<GameLumps> {
        check_entries_budget(raw.entries.iter().enumerate().map(|(i, e)| {
            (
                e.id,
                e.flags,
                &e.data[..],
                raw.offsets.get(i).copied().unwrap_or(0),
            )
        }))?;
        let mut lumps = Vec::with_capacity(raw.entries.len());
        for (i, e) in raw.entries.iter().enumerate() {
            let offset = raw.offsets.get(i).copied().unwrap_or(0);
            let stored = std::borrow::Cow::Borrowed(&e.data[..]);
            lumps.extend(GameLump::parse(e.id, e.flags, e.version, stored, offset, ctx)?);
        }
        Ok(GameLumps { lumps })
    }

    /// Parses the game lump straight from its stored bytes (see [`RawGameLumps::parse`] for
    /// `base` and `relative`), copying only what is decompressed or kept as bytes.
    pub fn parse_stored(stored: &[u8], base: u32, relative: bool, ctx: &Ctx) -> Result<GameLumps> {
        let dir = directory(stored, base, relative, ctx.endian)?;
        check_entries_budget(
            dir.iter()
                .map(|e| (e.id, e.flags, &stored[e.range.clone()], e.abs)),
        )?;
        let mut lumps = Vec::with_capacity(dir.len());
        for e in dir {
            let bytes = std::borrow::Cow::Borrowed(&stored[e.range]);
            lumps.extend(GameLump::parse(e.id, e.flags, e.version, bytes, e.abs, ctx)?);
        }
        Ok(GameLumps { lumps })
    }

    pub fn get(&self, id: u32) -> Option<&GameLump> {
        self.lumps.iter().find(|l| l.id == id)
    }
    pub fn static_props(&self) -> Option<&StaticProps> {
        self.lumps.iter().find_map(|l| match &l.data {
            GameLumpData::StaticProps(s) => Some(s),
            _ => None,
        })
    }
    pub fn static_props_mut(&mut self) -> Option<&mut StaticProps> {
        self.lumps.iter_mut().find_map(|l| match &mut l.data {
            GameLumpData::StaticProps(s) => Some(s),
            _ => None,
        })
    }

    /// The game lump Valve's vbsp writes for a map without props: empty `sprp` (v`version`),
    /// empty `dprp` v4.
    pub fn empty(static_prop_version: u16) -> GameLumps {
        let layout = StaticPropLayout::for_version(static_prop_version);
        GameLumps {
            lumps: vec![
                GameLump {
                    id: SPRP,
                    flags: 0,
                    version: static_prop_version,
                    data: GameLumpData::StaticProps(StaticProps {
                        layout,
                        ..Default::default()
                    }),
                },
                GameLump {
                    id: DPRP,
                    flags: 0,
                    version: DETAIL_PROPS_VERSION,
                    data: GameLumpData::DetailProps(DetailProps::default()),
                },
            ],
        }
    }

    /// Serialises uncompressed, with offsets relative to the lump start (see
    /// [`crate::BspDocument::set_lump`]).
    pub fn to_bytes(&self, ctx: &Ctx) -> Result<Vec<u8>> {
        let mut raw = RawGameLumps::default();
        for l in &self.lumps {
            let err = |e: GameLumpError| BspError::GameLump {
                id: id_name(l.id),
                offset: 0,
                message: e.to_string(),
            };
            let data = match &l.data {
                GameLumpData::StaticProps(s) => s.to_bytes(ctx).map_err(err)?,
                GameLumpData::DetailProps(d) => d.to_bytes(ctx).map_err(err)?,
                GameLumpData::DetailPropLighting(v) => write_detail_lighting(v, ctx),
                GameLumpData::Raw(b) => b.clone(),
            };
            raw.entries.push(RawGameLump {
                id: l.id,
                flags: l.flags,
                version: l.version,
                len: data.len() as u32,
                data,
            });
        }
        Ok(raw.to_bytes(ctx.endian))
    }
}

/// Which `StaticPropLump_t` layout a `sprp` lump uses: the version number alone is ambiguous
/// (Source 2013 writes v7 and v10 records of 72 bytes that differ from L4D's v7 and CS:GO's v10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StaticPropLayout {
    V4,
    #[default]
    V5,
    V6,
    /// Left 4 Dead's v7: v6 plus diffuse modulation (68 bytes).
    V7,
    V8,
    V9,
    /// CS:GO-style v10 (76 bytes).
    V10,
    /// v11: uniform scale (80 bytes).
    V11,
    /// Strata v12: v11 records, 32-bit leaf list.
    V12,
    /// Strata v13: non-uniform scale (88 bytes).
    V13,
    /// Source 2013's lightmapped props: v6 plus int flags and lightmap resolution (72 bytes),
    /// labelled v7 or v10 in the file.
    Lightmapped,
}

impl StaticPropLayout {
    pub fn record_size(self) -> usize {
        match self {
            Self::V4 => 56,
            Self::V5 => 60,
            Self::V6 => 64,
            Self::V7 | Self::V8 => 68,
            Self::V9 | Self::Lightmapped => 72,
            Self::V10 => 76,
            Self::V11 | Self::V12 => 80,
            Self::V13 => 88,
        }
    }
    /// The usual layout for a version number.
    pub fn for_version(version: u16) -> Self {
        match version {
            4 => Self::V4,
            5 => Self::V5,
            6 => Self::V6,
            7 => Self::V7,
            8 => Self::V8,
            9 => Self::V9,
            10 => Self::V10,
            11 => Self::V11,
            12 => Self::V12,
            13 => Self::V13,
            _ => Self::V5,
        }
    }
    /// Layout from the version and the measured record size.
    pub fn detect(version: u16, size: usize) -> Option<Self> {
        let layout = match (version, size) {
            (7 | 10, 72) => Self::Lightmapped,
            _ => Self::for_version(version),
        };
        (layout.record_size() == size && (4..=13).contains(&version)).then_some(layout)
    }
    fn num(self) -> u32 {
        match self {
            Self::V4 => 4,
            Self::V5 => 5,
            Self::V6 => 6,
            Self::V7 => 7,
            Self::V8 => 8,
            Self::V9 => 9,
            Self::V10 => 10,
            Self::V11 => 11,
            Self::V12 => 12,
            Self::V13 => 13,
            Self::Lightmapped => 7,
        }
    }
}

/// `StaticPropLump_t`, the union of every version's fields; a version writes the ones it has.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StaticProp {
    pub origin: Vector,
    pub angles: Vector,
    /// Index into the model name dictionary.
    pub prop_type: u16,
    pub first_leaf: u16,
    pub leaf_count: u16,
    pub solid: u8,
    /// `STATIC_PROP_*` flags (unused byte in the lightmapped layout).
    pub flags: u8,
    pub skin: i32,
    pub fade_min_dist: f32,
    pub fade_max_dist: f32,
    pub lighting_origin: Vector,
    /// v5+.
    pub forced_fade_scale: f32,
    /// v6, v7 and lightmapped.
    pub min_dx_level: u16,
    pub max_dx_level: u16,
    /// Lightmapped: the full 32-bit flags.
    pub flags_int: u32,
    /// Lightmapped: lightmap resolution.
    pub lightmap_res: [u16; 2],
    /// v8+.
    pub min_cpu_level: u8,
    pub max_cpu_level: u8,
    pub min_gpu_level: u8,
    pub max_gpu_level: u8,
    /// v7+ (not lightmapped): per-instance colour and alpha.
    pub diffuse_modulation: [u8; 4],
    /// v9+ (not lightmapped): a 4-byte bool.
    pub disable_x360: u32,
    /// v10+: more flags.
    pub flags_ex: u32,
    /// v11/v12: uniform scale in `scale[0]`; v13: per-axis.
    pub scale: [f32; 3],
}

/// `STATIC_PROP_*` flags (`gamebspfile.h`): the fade flag and those Hammer's keys set.
pub mod static_prop_flags {
    pub const FADES: u32 = 0x1;
    pub const USE_LIGHTING_ORIGIN: u32 = 0x2;
    pub const IGNORE_NORMALS: u32 = 0x8;
    pub const NO_SHADOW: u32 = 0x10;
    pub const SCREEN_SPACE_FADE: u32 = 0x20;
    pub const NO_PER_VERTEX_LIGHTING: u32 = 0x40;
    pub const NO_SELF_SHADOWING: u32 = 0x80;
    pub const NO_PER_TEXEL_LIGHTING: u32 = 0x100;
}

impl StaticProp {
    /// The flags from the field the layout has: 32 bits in Source 2013's v10, a byte before.
    pub fn flags_in(&self, layout: StaticPropLayout) -> u32 {
        if layout == StaticPropLayout::Lightmapped {
            self.flags_int
        } else {
            self.flags as u32
        }
    }

    /// Sets the flags in the field the layout has (a byte before v10: the high bits drop).
    pub fn set_flags_in(&mut self, layout: StaticPropLayout, flags: u32) {
        if layout == StaticPropLayout::Lightmapped {
            self.flags_int = flags;
        } else {
            self.flags = flags as u8;
        }
    }
}

fn read_prop(c: &mut Cur<'_>, l: StaticPropLayout) -> StaticProp {
    use StaticPropLayout as L;
    let v = l.num();
    let mut p = read_prop_v4(c);
    if v >= 5 {
        p.forced_fade_scale = c.f32();
    }
    if matches!(l, L::V6 | L::V7 | L::Lightmapped) {
        p.min_dx_level = c.u16();
        p.max_dx_level = c.u16();
    }
    if l == L::Lightmapped {
        p.flags_int = c.u32();
        p.lightmap_res = [c.u16(), c.u16()];
        return p;
    }
    read_prop_v7_on(c, l, &mut p);
    p
}

/// The fields every layout has (all of version 4's).
fn read_prop_v4(c: &mut Cur<'_>) -> StaticProp {
    StaticProp {
        origin: c.vec3(),
        angles: c.vec3(),
        prop_type: c.u16(),
        first_leaf: c.u16(),
        leaf_count: c.u16(),
        solid: c.u8(),
        flags: c.u8(),
        skin: c.i32(),
        fade_min_dist: c.f32(),
        fade_max_dist: c.f32(),
        lighting_origin: c.vec3(),
        ..Default::default()
    }
}

/// The fields of version 7 and later layouts (not the lightmapped v10 one): CPU and GPU
/// levels, diffuse modulation, X360 flag, extra flags, scale.
fn read_prop_v7_on(c: &mut Cur<'_>, l: StaticPropLayout, p: &mut StaticProp) {
    let v = l.num();
    if v >= 8 {
        p.min_cpu_level = c.u8();
        p.max_cpu_level = c.u8();
        p.min_gpu_level = c.u8();
        p.max_gpu_level = c.u8();
    }
    if v >= 7 {
        p.diffuse_modulation = c.bytes();
    }
    if v >= 9 {
        p.disable_x360 = c.u32();
    }
    if v >= 10 {
        p.flags_ex = c.u32();
    }
    if l == StaticPropLayout::V13 {
        p.scale = c.vec3();
    } else if v >= 11 {
        let s = c.f32();
        p.scale = [s, s, s];
    }
}

fn write_prop(p: &StaticProp, w: &mut Out, l: StaticPropLayout) {
    use StaticPropLayout as L;
    let v = l.num();
    p.origin.put(w);
    p.angles.put(w);
    for x in [p.prop_type, p.first_leaf, p.leaf_count] {
        w.w.u16(x);
    }
    w.w.u8(p.solid);
    w.w.u8(p.flags);
    w.w.i32(p.skin);
    w.w.f32(p.fade_min_dist);
    w.w.f32(p.fade_max_dist);
    p.lighting_origin.put(w);
    if v >= 5 {
        w.w.f32(p.forced_fade_scale);
    }
    if matches!(l, L::V6 | L::V7 | L::Lightmapped) {
        w.w.u16(p.min_dx_level);
        w.w.u16(p.max_dx_level);
    }
    if l == L::Lightmapped {
        w.w.u32(p.flags_int);
        w.w.u16(p.lightmap_res[0]);
        w.w.u16(p.lightmap_res[1]);
        return;
    }
    write_prop_v7_on(p, w, l);
}

/// The fields [`read_prop_v7_on`] reads.
fn write_prop_v7_on(p: &StaticProp, w: &mut Out, l: StaticPropLayout) {
    let v = l.num();
    if v >= 8 {
        for x in [p.min_cpu_level, p.max_cpu_level, p.min_gpu_level, p.max_gpu_level] {
            w.w.u8(x);
        }
    }
    if v >= 7 {
        w.w.bytes(&p.diffuse_modulation);
    }
    if v >= 9 {
        w.w.u32(p.disable_x360);
    }
    if v >= 10 {
        w.w.u32(p.flags_ex);
    }
    if l == StaticPropLayout::V13 {
        p.scale.put(w);
    } else if v >= 11 {
        w.w.f32(p.scale[0]);
    }
}

/// The `sprp` game lump: model dictionary, leaf list, props.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StaticProps {
    pub layout: StaticPropLayout,
    /// Model paths (`models/props/crate.mdl`), 128 bytes each on disk.
    pub models: Vec<String>,
    /// Leaves the props touch; props index ranges of it.
    pub leaves: Vec<u32>,
    pub props: Vec<StaticProp>,
    /// Bytes after the last prop (none in well-formed lumps).
    pub tail: Vec<u8>,
}

/// A model path in its 128-byte NUL-padded field.
fn name128(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

/// The model dictionary of the prop lumps: a `u32` count, then each path in 128 bytes (cut to
/// 127 and NUL-padded).
fn write_names128(w: &mut Out, names: &[String]) {
    w.w.u32(names.len() as u32);
    for m in names {
        let mut name = [0u8; 128];
        let n = m.len().min(127);
        name[..n].copy_from_slice(&m.as_bytes()[..n]);
        w.w.bytes(&name);
    }
}

/// The leaf list: `u16` leaves before version 12, `u32` from it.
fn read_prop_leaves(r: &mut Reader<'_>, version: u16) -> std::result::Result<Vec<u32>, GameLumpError> {
    let wide_leaves = version >= 12;
    let leaf_size = if wide_leaves { 4 } else { 2 };
    let n = r.u32()?;
    let n = r.check_count(n as u64, leaf_size)?;
    let mut leaves = Vec::with_capacity(n);
    for _ in 0..n {
        leaves.push(if wide_leaves { r.u32()? } else { r.u16()? as u32 });
    }
    Ok(leaves)
}

/// The layout of `count` props in the rest of `r` (told apart by record size where a version
/// has two), which must hold them all.
fn prop_layout(
    r: &Reader<'_>,
    count: usize,
    version: u16,
) -> std::result::Result<StaticPropLayout, GameLumpError> {
    let rest = r.remaining();
    let layout = match rest.checked_div(count) {
        None => StaticPropLayout::for_version(version),
        Some(size) => StaticPropLayout::detect(version, size).ok_or(GameLumpError::UnknownPropLayout {
            at: r.offset(),
            count,
            rest,
            version,
        })?,
    };
    let size = layout.record_size();
    if count.checked_mul(size).is_none_or(|t| t > rest) {
        return Err(GameLumpError::PropsOverrun {
            at: r.offset(),
            count,
            size,
            rest,
        });
    }
    Ok(layout)
}

impl StaticProps {
    pub fn parse(
        data: &[u8],
        version: u16,
        ctx: &Ctx,
        base: u64,
    ) -> std::result::Result<Self, GameLumpError> {
        let mut r = Reader::with_base(data, base, ctx.endian);
        let models = read_counted(&mut r, 128, name128)?;
        let leaves = read_prop_leaves(&mut r, version)?;
        let count = r.u32()? as usize;
        let layout = prop_layout(&r, count, version)?;
        let size = layout.record_size();
        let body = r.bytes(count * size)?;
        let props = body
            .chunks_exact(size)
            .map(|c| read_prop(&mut Cur::new(c, ctx.endian), layout))
            .collect();
        Ok(StaticProps {
            layout,
            models,
            leaves,
            props,
            tail: r.rest().to_vec(),
        })
    }

    pub fn to_bytes(&self, ctx: &Ctx) -> std::result::Result<Vec<u8>, GameLumpError> {
        let size = self.layout.record_size();
        let mut w = Out::new(ctx.endian, 12 + self.models.len() * 128 + self.props.len() * size);
        if let Some(m) = self.models.iter().find(|m| m.len() >= 128) {
            w.fail(format!("model name '{m}' is longer than 127 bytes"));
        }
        write_names128(&mut w, &self.models);
        w.w.u32(self.leaves.len() as u32);
        let wide = matches!(self.layout, StaticPropLayout::V12 | StaticPropLayout::V13);
        for &l in &self.leaves {
            if wide {
                w.w.u32(l)
            } else {
                w.u16_from(l, "static prop leaf")
            }
        }
        w.w.u32(self.props.len() as u32);
        for p in &self.props {
            write_prop(p, &mut w, self.layout);
        }
        w.w.bytes(&self.tail);
        match w.overflow {
            Some(m) => Err(GameLumpError::Field(m)),
            None => Ok(w.w.into_inner()),
        }
    }

    /// The model path of a prop.
    pub fn model_of(&self, prop: &StaticProp) -> Option<&str> {
        self.models.get(prop.prop_type as usize).map(String::as_str)
    }
}

/// `DetailSpriteDictLump_t`: 32 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DetailSprite {
    pub ul: [f32; 2],
    pub lr: [f32; 2],
    pub tex_ul: [f32; 2],
    pub tex_lr: [f32; 2],
}

/// `DetailObjectLump_t` (v4): 52 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DetailObject {
    pub origin: Vector,
    pub angles: Vector,
    pub detail_model: u16,
    pub leaf: u16,
    pub lighting: ColorRgbExp32,
    pub light_styles: u32,
    pub light_style_count: u8,
    pub sway_amount: u8,
    pub shape_angle: u8,
    pub shape_size: u8,
    pub orientation: u8,
    pub pad: [u8; 3],
    pub kind: u8,
    pub pad2: [u8; 3],
    pub scale: f32,
}

/// The `dprp` game lump (v4).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DetailProps {
    pub models: Vec<String>,
    pub sprites: Vec<DetailSprite>,
    pub objects: Vec<DetailObject>,
    pub tail: Vec<u8>,
}

impl DetailSprite {
    fn read(c: &mut Cur<'_>) -> DetailSprite {
        DetailSprite {
            ul: [c.f32(), c.f32()],
            lr: [c.f32(), c.f32()],
            tex_ul: [c.f32(), c.f32()],
            tex_lr: [c.f32(), c.f32()],
        }
    }
}

impl DetailObject {
    fn read(c: &mut Cur<'_>) -> DetailObject {
        DetailObject {
            origin: c.vec3(),
            angles: c.vec3(),
            detail_model: c.u16(),
            leaf: c.u16(),
            lighting: ColorRgbExp32::get(c),
            light_styles: c.u32(),
            light_style_count: c.u8(),
            sway_amount: c.u8(),
            shape_angle: c.u8(),
            shape_size: c.u8(),
            orientation: c.u8(),
            pad: c.bytes(),
            kind: c.u8(),
            pad2: c.bytes(),
            scale: c.f32(),
        }
    }

    fn write(&self, w: &mut Out) {
        let o = self;
        o.origin.put(w);
        o.angles.put(w);
        w.w.u16(o.detail_model);
        w.w.u16(o.leaf);
        o.lighting.put(w);
        w.w.u32(o.light_styles);
        for b in [
            o.light_style_count,
            o.sway_amount,
            o.shape_angle,
            o.shape_size,
            o.orientation,
        ] {
            w.w.u8(b);
        }
        w.w.bytes(&o.pad);
        w.w.u8(o.kind);
        w.w.bytes(&o.pad2);
        w.w.f32(o.scale);
    }
}

impl DetailProps {
    pub fn parse(data: &[u8], ctx: &Ctx, base: u64) -> std::result::Result<Self, GameLumpError> {
        let mut r = Reader::with_base(data, base, ctx.endian);
        let models = read_counted(&mut r, 128, name128)?;
        let sprites = read_counted(&mut r, 32, |b| DetailSprite::read(&mut Cur::new(b, ctx.endian)))?;
        let objects = read_counted(&mut r, 52, |b| DetailObject::read(&mut Cur::new(b, ctx.endian)))?;
        Ok(DetailProps {
            models,
            sprites,
            objects,
            tail: r.rest().to_vec(),
        })
    }

    pub fn to_bytes(&self, ctx: &Ctx) -> std::result::Result<Vec<u8>, GameLumpError> {
        let mut w = Out::new(ctx.endian, 12 + self.models.len() * 128 + self.objects.len() * 52);
        write_names128(&mut w, &self.models);
        w.w.u32(self.sprites.len() as u32);
        for s in &self.sprites {
            for v in [s.ul, s.lr, s.tex_ul, s.tex_lr] {
                v.put(&mut w);
            }
        }
        w.w.u32(self.objects.len() as u32);
        for o in &self.objects {
            o.write(&mut w);
        }
        w.w.bytes(&self.tail);
        Ok(w.w.into_inner())
    }
}

/// `DetailPropLightstylesLump_t`: 5 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DetailPropLight {
    pub lighting: ColorRgbExp32,
    pub style: u8,
}

fn parse_detail_lighting(
    data: &[u8],
    ctx: &Ctx,
    base: u64,
) -> std::result::Result<Vec<DetailPropLight>, GameLumpError> {
    let mut r = Reader::with_base(data, base, ctx.endian);
    let n = r.u32()?;
    let n = r.check_count(n as u64, 5)?;
    let body = r.bytes(n * 5)?;
    if r.remaining() != 0 {
        return Err(GameLumpError::LightStylesTail {
            extra: r.remaining(),
            count: n,
        });
    }
    Ok(body
        .chunks_exact(5)
        .map(|b| {
            let mut c = Cur::new(b, ctx.endian);
            DetailPropLight {
                lighting: ColorRgbExp32::get(&mut c),
                style: c.u8(),
            }
        })
        .collect())
}

fn write_detail_lighting(v: &[DetailPropLight], ctx: &Ctx) -> Vec<u8> {
    let mut w = Out::new(ctx.endian, 4 + v.len() * 5);
    w.w.u32(v.len() as u32);
    for l in v {
        l.lighting.put(&mut w);
        w.w.u8(l.style);
    }
    w.w.into_inner()
}

#[cfg(test)]
mod tests {
    use super::*;
    use srcmap_bytes::Endian;

    fn prop(i: u16) -> StaticProp {
        StaticProp {
            origin: [1.0 + i as f32, 2.0, 3.0],
            angles: [0.0, 90.0, 0.0],
            prop_type: i % 2,
            first_leaf: i,
            leaf_count: 1,
            solid: 6,
            flags: 1,
            skin: 2,
            fade_min_dist: 100.0,
            fade_max_dist: 200.0,
            lighting_origin: [4.0, 5.0, 6.0],
            forced_fade_scale: 1.0,
            min_dx_level: 80,
            max_dx_level: 95,
            flags_int: 0x104,
            lightmap_res: [32, 64],
            min_cpu_level: 1,
            max_cpu_level: 2,
            min_gpu_level: 3,
            max_gpu_level: 4,
            diffuse_modulation: [255, 128, 64, 255],
            disable_x360: 1,
            flags_ex: 7,
            scale: [1.5, 1.5, 1.5],
        }
    }

    /// A compressed directory whose terminating dummy has file offset 0 (as some TF2 maps
    /// have): the compressed entry before it runs to the end of the game lump, and its LZMA
    /// block decodes through its own header sizes.
    #[test]
    fn moving_the_lump_keeps_a_zero_offset_end_entry_at_zero() {
        // Two entries: one with data at absolute offset 1000, then the empty end entry at 0.
        let mut stored = Vec::new();
        stored.extend_from_slice(&2u32.to_le_bytes());
        for (id, ofs, len) in [(*b"prps", 1000u32, 8u32), ([0; 4], 0, 0)] {
            stored.extend_from_slice(&id);
            stored.extend_from_slice(&[0; 4]);
            stored.extend_from_slice(&ofs.to_le_bytes());
            stored.extend_from_slice(&len.to_le_bytes());
        }
        for delta in [-76i64, 300] {
            let mut moved = stored.clone();
            patch_offsets(&mut moved, Endian::Little, delta).unwrap();
            let ofs = |i: usize| u32::from_le_bytes(moved[4 + 16 * i + 8..][..4].try_into().unwrap());
            assert_eq!(ofs(0) as i64, 1000 + delta);
            assert_eq!(ofs(1), 0, "the end entry stays at 0");
        }
        // A real offset that would move below zero is still an error.
        assert!(patch_offsets(&mut stored.clone(), Endian::Little, -2000).is_err());
    }

    #[test]
    fn compressed_entry_before_zero_offset_dummy_runs_to_lump_end() {
        let payload: Vec<u8> = (0..300u32).map(|i| (i % 7) as u8).collect();
        let block = lzma::encode(&payload).unwrap();
        let base = 5000u32; // the game lump's file offset: entry offsets are absolute
        let dir_len = 4 + 16 * 2;
        let mut w = Writer::new(Endian::Little);
        w.u32(2);
        // dprp v4 (unknown to nothing here: a raw id keeps the check on the directory alone)
        w.u32(u32::from_be_bytes(*b"test"));
        w.u16(GAMELUMPFLAG_COMPRESSED);
        w.u16(1);
        w.u32(base + dir_len as u32);
        w.u32(payload.len() as u32);
        // The dummy: id 0, offset 0 (not the end of the data).
        w.u32(0);
        w.u16(0);
        w.u16(0);
        w.u32(0);
        w.u32(0);
        w.bytes(&block);
        let stored = w.into_inner();
        assert!(!has_relative_offsets(&stored, base, Endian::Little));

        let raw = RawGameLumps::parse(&stored, base, false, Endian::Little).unwrap();
        assert_eq!(raw.entries.len(), 2);
        assert_eq!(raw.entries[0].data, block);
        assert!(raw.entries[1].data.is_empty());
        assert_eq!(raw.entries[0].uncompressed(0).unwrap(), payload);

        let ctx = Ctx::new(Endian::Little, 20, 0);
        let typed = GameLumps::parse_stored(&stored, base, false, &ctx).unwrap();
        assert_eq!(typed.lumps.len(), 1, "the dummy is dropped");
        assert_eq!(typed.lumps[0].data, GameLumpData::Raw(payload.clone()));
        assert_eq!(GameLumps::parse(&raw, &ctx).unwrap(), typed);

        // A dummy whose offset lies before the entry (not after it) reads the same way.
        let mut before = stored.clone();
        before[4 + 16 + 8..4 + 16 + 12].copy_from_slice(&(base + 4).to_le_bytes());
        let raw = RawGameLumps::parse(&before, base, false, Endian::Little).unwrap();
        assert_eq!(raw.entries[0].data, block);

        // A next offset past the lump's end is still an error.
        let mut past = stored.clone();
        let end = base + stored.len() as u32 + 10;
        past[4 + 16 + 8..4 + 16 + 12].copy_from_slice(&end.to_le_bytes());
        assert!(RawGameLumps::parse(&past, base, false, Endian::Little).is_err());
    }

    /// Every layout writes and reads back, and the version plus record size picks it again
    /// (both 72- and 76-byte v10, both 68- and 72-byte v7).
    #[test]
    fn every_static_prop_layout_round_trips() {
        use StaticPropLayout as L;
        let layouts = [
            (L::V4, 4),
            (L::V5, 5),
            (L::V6, 6),
            (L::V7, 7),
            (L::Lightmapped, 7),
            (L::V8, 8),
            (L::V9, 9),
            (L::V10, 10),
            (L::Lightmapped, 10),
            (L::V11, 11),
            (L::V12, 12),
            (L::V13, 13),
        ];
        for endian in [Endian::Little, Endian::Big] {
            let ctx = Ctx::new(endian, 20, 0);
            for (layout, version) in layouts {
                let mut sp = StaticProps {
                    layout,
                    models: vec!["models/a.mdl".into(), "models/b.mdl".into()],
                    leaves: vec![3, 4, 5],
                    props: vec![prop(0), prop(1), prop(2)],
                    tail: Vec::new(),
                };
                // Normalise the fields this layout does not store, as a read would.
                let bytes = sp.to_bytes(&ctx).unwrap();
                let back = StaticProps::parse(&bytes, version, &ctx, 0).unwrap();
                assert_eq!(back.layout, layout, "v{version}");
                assert_eq!(back.props.len(), 3);
                assert_eq!(back.to_bytes(&ctx).unwrap(), bytes, "{layout:?}");
                assert_eq!(
                    bytes.len(),
                    4 + 2 * 128 + 4 + 3 * if version >= 12 { 4 } else { 2 } + 4 + 3 * layout.record_size()
                );
                sp.props = back.props.clone();
                assert_eq!(back, sp);
                assert_eq!(back.props[1].origin, [2.0, 2.0, 3.0]);
                if layout == L::Lightmapped {
                    assert_eq!(back.props[0].lightmap_res, [32, 64]);
                }
                if version >= 11 {
                    assert_eq!(back.props[0].scale[0], 1.5);
                }
            }
        }
    }
}
