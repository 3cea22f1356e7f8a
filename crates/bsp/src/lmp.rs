//! Valve's lump file (`.lmp`, `lumpfileheader_t`): one lump of a BSP as it is stored there
//! (LZMA-compressed lumps stay compressed) behind a 20-byte header of lumpOffset, lumpID,
//! lumpVersion, lumpLength and mapRevision, in the BSP's byte order.

use srcmap_bytes::{Endian, ReadError, Reader, Writer};

use crate::document::BspDocument;
use crate::gamelump::{GameLumpError, patch_offsets};
use crate::lump::{GAME_LUMP, HEADER_LUMPS};

/// Size of `lumpfileheader_t`; the lump's bytes follow it.
pub const LMP_HEADER_SIZE: usize = 20;

/// What is wrong with a lump file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LmpError {
    /// The file is shorter than its header.
    #[error("lump file header: {0}")]
    Header(ReadError),
    #[error("byte 4: lump id {0} is not 0-63")]
    LumpId(i32),
    #[error("byte 0: lump data at {offset} (+{len}) lies outside the {file_len}-byte file")]
    DataOutside {
        offset: i32,
        len: usize,
        file_len: usize,
    },
    /// The game lump directory cannot be read to move its offsets.
    #[error("{0}")]
    GameLumpDirectory(ReadError),
    /// The game lump's offsets cannot be moved to where it goes.
    #[error("game lump: {0}")]
    GameLumpOffsets(GameLumpError),
    /// Bytes follow the lump: the header's length is shorter than the data it came with.
    #[error("byte 12: the header says {len} bytes of lump data, but {extra} more follow them")]
    TrailingData { len: usize, extra: usize },
}

/// Why a lump replacement was refused.
#[derive(Debug, thiserror::Error)]
pub enum ReplaceError {
    #[error("{0}")]
    Lmp(#[from] LmpError),
    #[error("{0}")]
    Bsp(#[from] crate::BspError),
    /// The map with the new lump fails checks the original passed.
    #[error("the new lump {lump} breaks the map ({count} problems), first: {first}")]
    Breaks {
        lump: usize,
        count: usize,
        first: String,
    },
}

/// One lump with its id and version, borrowing its stored bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LumpFile<'a> {
    /// The lump's number (0-63).
    pub id: usize,
    pub version: u32,
    /// The map revision of the BSP the lump came from.
    pub revision: i32,
    /// The lump's bytes as stored in the BSP.
    pub data: &'a [u8],
}

impl<'a> LumpFile<'a> {
    /// Lump `id` of a BSP file as a lump file: as stored (a compressed lump stays compressed),
    /// with the lump's version and the map's revision.
    pub fn of(file: &crate::BspFile<'a>, id: usize) -> LumpFile<'a> {
        LumpFile {
            id,
            version: file.entry(id).version,
            revision: file.header.revision,
            data: file.stored(id),
        }
    }

    /// Reads a lump file written in `endian` (that of the BSP it belongs to).
    pub fn parse(file: &'a [u8], endian: Endian) -> Result<LumpFile<'a>, LmpError> {
        let mut r = Reader::new(file, endian);
        let offset = r.i32().map_err(LmpError::Header)?;
        let id = r.i32().map_err(LmpError::Header)?;
        let version = r.u32().map_err(LmpError::Header)?;
        let len = r.u32().map_err(LmpError::Header)? as usize;
        let revision = r.i32().map_err(LmpError::Header)?;
        if !(0..HEADER_LUMPS as i32).contains(&id) {
            return Err(LmpError::LumpId(id));
        }
        if offset < LMP_HEADER_SIZE as i32
            || (offset as usize)
                .checked_add(len)
                .is_none_or(|end| end > file.len())
        {
            return Err(LmpError::DataOutside {
                offset,
                len,
                file_len: file.len(),
            });
        }
        let end = offset as usize + len;
        if end < file.len() {
            return Err(LmpError::TrailingData {
                len,
                extra: file.len() - end,
            });
        }
        Ok(LumpFile {
            id: id as usize,
            version,
            revision,
            data: &file[offset as usize..end],
        })
    }

    /// The lump file: header, then the lump's bytes right after it.
    pub fn to_bytes(&self, endian: Endian) -> Vec<u8> {
        let mut w = Writer::new(endian);
        w.i32(LMP_HEADER_SIZE as i32);
        w.i32(self.id as i32);
        w.u32(self.version);
        w.u32(self.data.len() as u32);
        w.i32(self.revision);
        w.bytes(self.data);
        w.into_inner()
    }
}

impl BspDocument<'_> {
    /// Replaces the lump a lump file holds with its bytes and version, stored as they come (an
    /// LZMA lump stays compressed). A game lump's offsets are made relative to the lump start,
    /// as [`BspDocument::set_lump`] expects: in the file they point wherever it sat in its BSP.
    pub fn set_lump_file(&mut self, lmp: &LumpFile<'_>) -> Result<(), LmpError> {
        if lmp.id == GAME_LUMP {
            let endian = self.endian;
            self.set_lump(lmp.id, rebase_game_lump(lmp.data, endian)?, lmp.version);
        } else {
            let fourcc = crate::lzma::uncompressed_size(lmp.data).unwrap_or(0);
            self.set_lump_stored(lmp.id, lmp.data.to_vec(), lmp.version, fourcc);
        }
        Ok(())
    }
}

/// The BSP `original` (read as `file`) with lump file `lmp` in place, refused when the result
/// fails a check the original passed (a record size that does not divide the lump, NaN
/// planes, references out of range): `lump replace` must not write a map `check` refuses.
pub fn replaced(
    original: &[u8],
    file: &crate::BspFile<'_>,
    lmp: &LumpFile<'_>,
) -> Result<Vec<u8>, ReplaceError> {
    let mut doc = BspDocument::from_file(file);
    doc.set_lump_file(lmp)?;
    let bytes = doc.to_bytes()?;
    let before = problems(original);
    let new: Vec<String> = problems(&bytes)
        .into_iter()
        .filter(|p| !before.contains(p))
        .collect();
    match new.first() {
        None => Ok(bytes),
        Some(first) => Err(ReplaceError::Breaks {
            lump: lmp.id,
            count: new.len(),
            first: first.clone(),
        }),
    }
}

/// What [`crate::check`] finds wrong with a BSP file, or why it cannot be read at all.
fn problems(bytes: &[u8]) -> Vec<String> {
    match crate::Bsp::parse(bytes) {
        Ok(bsp) => crate::check::check(&bsp)
            .iter()
            .map(ToString::to_string)
            .collect(),
        Err(e) => vec![e.to_string()],
    }
}

/// A game lump with the first entry's data right after the directory.
fn rebase_game_lump(body: &[u8], endian: Endian) -> Result<Vec<u8>, LmpError> {
    let mut r = Reader::new(body, endian);
    let n = r.u32().map_err(LmpError::GameLumpDirectory)? as usize;
    if n == 0 {
        return Ok(body.to_vec());
    }
    r.skip(8).map_err(LmpError::GameLumpDirectory)?;
    let first = r.u32().map_err(LmpError::GameLumpDirectory)? as i64;
    let dir_end = 4 + 16 * n as i64;
    let mut out = body.to_vec();
    patch_offsets(&mut out, endian, dir_end - first).map_err(LmpError::GameLumpOffsets)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lump_of_a_file_keeps_its_version_and_the_map_revision() {
        let mut bsp = crate::Bsp::new(20);
        bsp.revision = 7;
        bsp.vertexes = vec![[1.0, 2.0, 3.0]; 2];
        let data = bsp.to_bytes().unwrap();
        let file = crate::BspFile::parse(&data).unwrap();
        let lmp = LumpFile::of(&file, crate::lump::VERTEXES);
        assert_eq!(
            (lmp.id, lmp.revision, lmp.data.len()),
            (crate::lump::VERTEXES, 7, 24)
        );
        assert_eq!(lmp.version, file.entry(crate::lump::VERTEXES).version);
    }

    #[test]
    fn round_trip_in_both_byte_orders() {
        for endian in [Endian::Little, Endian::Big] {
            let lump = LumpFile {
                id: 1,
                version: 2,
                revision: 37,
                data: b"plane bytes",
            };
            let bytes = lump.to_bytes(endian);
            assert_eq!(bytes.len(), LMP_HEADER_SIZE + lump.data.len());
            assert_eq!(LumpFile::parse(&bytes, endian), Ok(lump));
        }
    }

    /// Every stored lump of a BSP, the game lump included (its offsets are absolute in the
    /// file), goes out to a lump file and back in without changing a byte. (An absent lump put
    /// back is placed like any other, so its directory offset moves.)
    #[test]
    fn every_lump_goes_out_and_back_in_unchanged() {
        let mut bsp = crate::Bsp::new(crate::versions::COMPILE_BSP_VERSION);
        bsp.planes.push(crate::Plane {
            normal: [0.0, 0.0, 1.0],
            dist: 64.0,
            kind: 2,
        });
        bsp.vertexes = vec![[1.0, 2.0, 3.0]; 5];
        let original = bsp.to_bytes().unwrap();
        let file = crate::BspFile::parse(&original).unwrap();
        let stored = (0..HEADER_LUMPS).filter(|&id| !file.stored(id).is_empty());
        assert!(stored.clone().any(|id| id == GAME_LUMP));
        for id in stored {
            let lmp = LumpFile {
                id,
                version: file.entry(id).version,
                revision: file.header.revision,
                data: file.stored(id),
            };
            let bytes = lmp.to_bytes(file.endian());
            let back = LumpFile::parse(&bytes, file.endian()).unwrap();
            let mut doc = BspDocument::from_file(&file);
            doc.set_lump_file(&back).unwrap();
            assert_eq!(doc.to_bytes().unwrap(), original, "lump {id}");
        }
    }

    #[test]
    fn data_past_the_stated_length_is_refused() {
        let lump = LumpFile {
            id: 3,
            version: 0,
            revision: 1,
            data: &[1; 12],
        };
        let mut bytes = lump.to_bytes(Endian::Little);
        bytes.extend_from_slice(&[9; 5]);
        assert_eq!(
            LumpFile::parse(&bytes, Endian::Little),
            Err(LmpError::TrailingData { len: 12, extra: 5 })
        );
    }

    #[test]
    fn a_replacement_that_breaks_the_map_is_refused() {
        let mut bsp = crate::Bsp::new(crate::versions::COMPILE_BSP_VERSION);
        bsp.planes.push(crate::Plane {
            normal: [0.0, 0.0, 1.0],
            dist: 64.0,
            kind: 2,
        });
        let original = bsp.to_bytes().unwrap();
        let file = crate::BspFile::parse(&original).unwrap();
        let planes = |data: &'static [u8]| LumpFile {
            id: crate::lump::PLANES,
            version: 0,
            revision: 0,
            data,
        };
        // The same plane again: accepted.
        let same = LumpFile::of(&file, crate::lump::PLANES);
        assert!(replaced(&original, &file, &same).is_ok());
        // 19 bytes: not a whole number of 20-byte planes.
        assert!(matches!(
            replaced(&original, &file, &planes(&[0; 19])),
            Err(ReplaceError::Breaks { .. })
        ));
        // A NaN normal.
        let nan: Vec<u8> = [f32::NAN, 0.0, 1.0, 64.0]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .chain(2i32.to_le_bytes())
            .collect();
        let nan: &'static [u8] = nan.leak();
        let e = replaced(&original, &file, &planes(nan)).unwrap_err().to_string();
        assert!(e.contains("breaks the map"), "{e}");
    }

    #[test]
    fn truncated_or_inconsistent_files_are_errors() {
        let lump = LumpFile {
            id: 40,
            version: 0,
            revision: 1,
            data: &[7; 32],
        };
        let bytes = lump.to_bytes(Endian::Little);
        for cut in 0..LMP_HEADER_SIZE {
            assert!(matches!(
                LumpFile::parse(&bytes[..cut], Endian::Little),
                Err(LmpError::Header(_))
            ));
        }
        for cut in LMP_HEADER_SIZE..bytes.len() {
            assert!(matches!(
                LumpFile::parse(&bytes[..cut], Endian::Little),
                Err(LmpError::DataOutside { .. })
            ));
        }
        let mut bad_id = bytes.clone();
        bad_id[4..8].copy_from_slice(&64i32.to_le_bytes());
        assert_eq!(
            LumpFile::parse(&bad_id, Endian::Little),
            Err(LmpError::LumpId(64))
        );
        let mut bad_offset = bytes;
        bad_offset[0..4].copy_from_slice(&19i32.to_le_bytes());
        assert!(matches!(
            LumpFile::parse(&bad_offset, Endian::Little),
            Err(LmpError::DataOutside { offset: 19, .. })
        ));
    }
}
