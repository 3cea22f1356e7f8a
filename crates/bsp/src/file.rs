//! The read side's entry point: header, lump directory and zero-copy lump slices over the file bytes.

use std::borrow::Cow;

use srcmap_bytes::Endian;

use crate::error::{BspError, Result};
use crate::lump::{HEADER_LUMPS, HEADER_SIZE, lump_name};
use crate::lzma;

/// Field order of `lump_t` in the directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LumpOrder {
    /// `{fileofs, filelen, version, fourCC}`: every branch but Left 4 Dead 2.
    #[default]
    Standard,
    /// `{version, fileofs, filelen, fourCC}`: Left 4 Dead 2 and its branch (v21).
    L4d2,
}

/// One `lump_t` directory entry, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LumpEntry {
    pub offset: u32,
    pub len: u32,
    pub version: u32,
    /// Zero, or the uncompressed size of an LZMA-compressed lump.
    pub fourcc: u32,
}

/// The BSP header: `dheader_t`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// `Little` for `VBSP` (PC), `Big` for `PSBV` (Xbox 360, PS3).
    pub endian: Endian,
    pub version: i32,
    pub order: LumpOrder,
    pub lumps: [LumpEntry; HEADER_LUMPS],
    pub revision: i32,
}

/// What a file that is not a Source BSP is, for the error message.
pub fn identify_foreign(data: &[u8]) -> Option<String> {
    let magic = data.get(..4)?;
    let version = data
        .get(4..8)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .unwrap_or(0);
    let first = u32::from_le_bytes([magic[0], magic[1], magic[2], magic[3]]);
    Some(match magic {
        b"VBSP" | b"PSBV" => return None,
        b"IBSP" => id_tech_bsp(version),
        b"rBSP" => respawn_bsp(version),
        b"BSP2" | b"2PSB" => "a Quake BSP2 map (extended Quake 1 format)".into(),
        b"RBSP" => "a Raven BSP (Soldier of Fortune 2 / Jedi Knight)".into(),
        b"FBSP" => "a Quake 3 FBSP (Raven/Wolfenstein) map".into(),
        b"FAKK" | b"EF2!" => "a Ritual (FAKK2/Elite Force 2) BSP".into(),
        b"VPK\x34" | [0x34, 0x12, 0xaa, 0x55] => "a VPK archive".into(),
        b"PK\x03\x04" => "a zip archive".into(),
        _ if first == 29 => "a Quake 1 BSP (version 29)".into(),
        _ if first == 30 => "a GoldSrc (Half-Life 1) BSP (version 30)".into(),
        _ => format!("unrecognised file (first bytes {:02x?})", magic),
    })
}

/// An `IBSP` file of `version`.
fn id_tech_bsp(version: u32) -> String {
    match version {
        38 => "a Quake 2 BSP (IBSP version 38)".into(),
        46 => "a Quake 3 BSP (IBSP version 46)".into(),
        47 => "a Quake Live / RTCW BSP (IBSP version 47)".into(),
        v => format!("an id Tech BSP (IBSP version {v})"),
    }
}

/// An `rBSP` file of `version`.
fn respawn_bsp(version: u32) -> String {
    match version {
        29 => "a Titanfall BSP (Respawn rBSP version 29)".into(),
        36 | 37 => format!("a Titanfall 2 BSP (Respawn rBSP version {version})"),
        v => format!("a Respawn BSP (rBSP version {v}, Titanfall/Apex Legends)"),
    }
}

impl Header {
    /// Parses `dheader_t` from the start of `data`, detecting byte order and lump_t field order.
    pub fn parse(data: &[u8]) -> Result<Header> {
        if let Some(what) = identify_foreign(data) {
            return Err(BspError::NotSource { what });
        }
        if data.len() < HEADER_SIZE {
            return Err(BspError::Header {
                offset: data.len() as u64,
                message: format!(
                    "file is {} bytes, shorter than the {HEADER_SIZE}-byte header",
                    data.len()
                ),
            });
        }
        let endian = if &data[..4] == b"VBSP" {
            Endian::Little
        } else {
            Endian::Big
        };
        let (version, raw, revision) = header_words(data, endian);
        let file_len = data.len() as u64;
        let (order, lumps) = lump_order(version, &raw, file_len);
        check_lumps_in_file(&lumps, file_len)?;
        Ok(Header {
            endian,
            version,
            order,
            lumps,
            revision,
        })
    }
}

/// Every lump ends inside the file.
fn check_lumps_in_file(lumps: &[LumpEntry; HEADER_LUMPS], file_len: u64) -> Result<()> {
    for (i, l) in lumps.iter().enumerate() {
        if l.len > 0 && l.offset as u64 + l.len as u64 > file_len {
            return Err(BspError::Header {
                offset: 8 + 16 * i as u64,
                message: format!(
                    "lump {i} ({}) spans bytes {}..{}, past the end of the {file_len}-byte file",
                    lump_name(i),
                    l.offset,
                    l.offset as u64 + l.len as u64
                ),
            });
        }
    }
    Ok(())
}

/// The header's version, the four words of every lump entry, and the revision. `data` holds
/// the whole header: decoded straight from fixed slices.
fn header_words(data: &[u8], endian: Endian) -> (i32, [[u32; 4]; HEADER_LUMPS], i32) {
    let word = |b: &[u8; 4]| match endian {
        Endian::Little => u32::from_le_bytes(*b),
        Endian::Big => u32::from_be_bytes(*b),
    };
    let (words, _) = data[4..HEADER_SIZE].as_chunks::<4>();
    let version = word(&words[0]) as i32;
    let mut raw = [[0u32; 4]; HEADER_LUMPS];
    for (entry, w) in raw.iter_mut().zip(words[1..].as_chunks::<4>().0) {
        *entry = [word(&w[0]), word(&w[1]), word(&w[2]), word(&w[3])];
    }
    let revision = word(&words[1 + 4 * HEADER_LUMPS]) as i32;
    (version, raw, revision)
}

/// The lump entries of `raw` in the field order they were written in. Left 4 Dead 2 moved
/// `version` first. Only v21 files can have it; pick the order under which every lump lies
/// inside the file after the header.
fn lump_order(
    version: i32,
    raw: &[[u32; 4]; HEADER_LUMPS],
    file_len: u64,
) -> (LumpOrder, [LumpEntry; HEADER_LUMPS]) {
    let standard = raw.map(|[a, b, c, d]| LumpEntry {
        offset: a,
        len: b,
        version: c,
        fourcc: d,
    });
    let l4d2 = raw.map(|[a, b, c, d]| LumpEntry {
        offset: b,
        len: c,
        version: a,
        fourcc: d,
    });
    let fits = |lumps: &[LumpEntry; HEADER_LUMPS]| {
        lumps
            .iter()
            .filter(|l| l.len > 0)
            .all(|l| l.offset as u64 >= HEADER_SIZE as u64 && l.offset as u64 + l.len as u64 <= file_len)
    };
    if version == 21 && !fits(&standard) && fits(&l4d2) {
        (LumpOrder::L4d2, l4d2)
    } else {
        (LumpOrder::Standard, standard)
    }
}

/// A parsed BSP header over borrowed file bytes. Lump data is handed out as slices of the file;
/// only compressed lumps are copied (decompressed) on request.
#[derive(Debug, Clone)]
pub struct BspFile<'data> {
    data: &'data [u8],
    pub header: Header,
}

impl<'data> BspFile<'data> {
    /// Reads the header and directory. Does not touch lump data.
    pub fn parse(data: &'data [u8]) -> Result<Self> {
        Ok(BspFile {
            header: Header::parse(data)?,
            data,
        })
    }
    pub fn data(&self) -> &'data [u8] {
        self.data
    }
    pub fn endian(&self) -> Endian {
        self.header.endian
    }
    pub fn version(&self) -> i32 {
        self.header.version
    }
    pub fn entry(&self, lump: usize) -> LumpEntry {
        self.header.lumps.get(lump).copied().unwrap_or_default()
    }
    /// The lump's bytes exactly as stored (compressed or not).
    pub fn stored(&self, lump: usize) -> &'data [u8] {
        let e = self.entry(lump);
        if e.len == 0 {
            return &[];
        }
        // Header::parse checked every range.
        &self.data[e.offset as usize..e.offset as usize + e.len as usize]
    }
    /// Whether the lump is stored LZMA-compressed (Valve's 17-byte `LZMA` header). The game lump
    /// is never compressed as a whole; its entries are, one by one.
    pub fn is_compressed(&self, lump: usize) -> bool {
        lump != crate::lump::GAME_LUMP && lzma::is_compressed(self.stored(lump))
    }
    /// The lump's uncompressed bytes: borrowed from the file unless compressed.
    pub fn lump(&self, lump: usize) -> Result<Cow<'data, [u8]>> {
        let stored = self.stored(lump);
        if self.is_compressed(lump) {
            let offset = self.entry(lump).offset as u64;
            let lumps = (0..self.header.lumps.len()).filter(|&l| self.is_compressed(l));
            lzma::check_budget(lumps.map(|l| self.stored(l))).map_err(|m| BspError::lump(lump, offset, m))?;
            lzma::decode(stored)
                .map(Cow::Owned)
                .map_err(|e| BspError::lump(lump, offset, e.to_string()))
        } else {
            Ok(Cow::Borrowed(stored))
        }
    }
}
