//! VPK archives, versions 1 and 2 (read). A `name_dir.vpk` holds the directory tree (and
//! sometimes data, archive index 0x7fff); `name_NNN.vpk` hold the rest of the data.

use std::path::{Path, PathBuf};

use srcmap_bytes::{Endian, Reader};

use crate::{ContentError, Result, io_err};

const SIGNATURE: u32 = 0x55aa_1234;
/// Archive index meaning "in the directory file, after the tree".
const DIR_ARCHIVE: u16 = 0x7fff;

/// One file in the archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VpkEntry {
    /// Full path, lowercase, `/`-separated: `materials/brick/a.vmt`.
    pub path: String,
    pub crc32: u32,
    /// Bytes stored in the directory tree itself, before the archive part.
    pub preload: Vec<u8>,
    pub archive_index: u16,
    pub offset: u32,
    pub length: u32,
}

/// A parsed VPK directory.
#[derive(Debug, Clone)]
pub struct Vpk {
    pub version: u32,
    pub entries: Vec<VpkEntry>,
    /// The `_dir.vpk` path (archives are found beside it), if opened from disk.
    dir_path: Option<PathBuf>,
    /// Offset of the data that follows the tree in the directory file.
    data_start: u64,
    /// The directory file's bytes, kept for entries stored in it.
    dir_bytes: Vec<u8>,
}

impl Vpk {
    /// Reads `path`, the directory file (`pak01_dir.vpk`); a path without `_dir` is tried with it.
    pub fn open(path: &Path) -> Result<Vpk> {
        let dir_path = if path.exists() {
            path.to_path_buf()
        } else {
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            path.with_file_name(format!("{stem}_dir.vpk"))
        };
        let bytes = std::fs::read(&dir_path).map_err(|e| io_err(&dir_path, e))?;
        let mut vpk = Vpk::parse(bytes, &dir_path.display().to_string())?;
        vpk.dir_path = Some(dir_path);
        Ok(vpk)
    }

    /// Parses a directory file's bytes. `name` is used in errors.
    pub fn parse(bytes: Vec<u8>, name: &str) -> Result<Vpk> {
        let (version, header_len, tree_end) = read_header(&bytes, name)?;
        let mut t = Reader::with_base(
            &bytes[header_len as usize..tree_end as usize],
            header_len,
            Endian::Little,
        );
        let entries = read_tree(&mut t, name)?;
        Ok(Vpk {
            version,
            entries,
            dir_path: None,
            data_start: tree_end,
            dir_bytes: bytes,
        })
    }

    pub fn find(&self, path: &str) -> Option<&VpkEntry> {
        let want = path.replace('\\', "/").to_ascii_lowercase();
        self.entries.iter().find(|e| e.path == want)
    }

    /// The file's bytes: preload plus archive part.
    pub fn read(&self, entry: &VpkEntry) -> Result<Vec<u8>> {
        let mut out = entry.preload.clone();
        if entry.length == 0 {
            return Ok(out);
        }
        let (start, end) = (entry.offset as u64, entry.offset as u64 + entry.length as u64);
        if entry.archive_index == DIR_ARCHIVE {
            out.extend_from_slice(self.dir_data(entry, start, end)?);
            return Ok(out);
        }
        out.extend_from_slice(&self.archive_data(entry, start, end)?);
        Ok(out)
    }

    /// An entry's bytes `start..end` of the data after the directory file's tree.
    fn dir_data(&self, entry: &VpkEntry, start: u64, end: u64) -> Result<&[u8]> {
        let (s, e) = (self.data_start + start, self.data_start + end);
        let name = self
            .dir_path
            .as_ref()
            .map_or("<vpk>".into(), |p| p.display().to_string());
        self.dir_bytes
            .get(s as usize..e as usize)
            .ok_or_else(|| ContentError::Format {
                path: name,
                offset: s,
                message: format!("'{}': data runs past the end of the directory file", entry.path),
            })
    }

    /// An entry's bytes `start..end` of its archive file (`<name>_NNN.vpk` beside the
    /// directory file).
    fn archive_data(&self, entry: &VpkEntry, start: u64, end: u64) -> Result<Vec<u8>> {
        let Some(dir_path) = &self.dir_path else {
            return Err(ContentError::Format {
                path: "<vpk>".into(),
                offset: 0,
                message: format!(
                    "'{}' lives in an archive file, but the VPK was not opened from disk",
                    entry.path
                ),
            });
        };
        let archive = archive_path(dir_path, entry.archive_index);
        let bytes = std::fs::read(&archive).map_err(|e| io_err(&archive, e))?;
        let data = bytes
            .get(start as usize..end as usize)
            .ok_or_else(|| ContentError::Format {
                path: archive.display().to_string(),
                offset: start,
                message: format!(
                    "'{}': {} bytes at {start} run past the end of the archive",
                    entry.path, entry.length
                ),
            })?;
        Ok(data.to_vec())
    }
}

/// The archive file `index` of the directory file `dir_path`.
fn archive_path(dir_path: &Path, index: u16) -> PathBuf {
    let name = dir_path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let base = name
        .strip_suffix("_dir.vpk")
        .unwrap_or(name.trim_end_matches(".vpk"));
    dir_path.with_file_name(format!("{base}_{index:03}.vpk"))
}

/// A format error in the directory file `name`.
fn format_err(name: &str, offset: u64, message: String) -> ContentError {
    ContentError::Format {
        path: name.to_string(),
        offset,
        message,
    }
}

/// A read error in the directory file `name`, as a format error.
fn read_err(name: &str) -> impl Fn(srcmap_bytes::ReadError) -> ContentError + '_ {
    move |e| format_err(name, e.offset(), e.to_string())
}

/// The header: (version, header length, end of the tree), the tree within the file.
fn read_header(bytes: &[u8], name: &str) -> Result<(u32, u64, u64)> {
    let rd = read_err(name);
    let mut r = Reader::new(bytes, Endian::Little);
    if r.u32().map_err(&rd)? != SIGNATURE {
        return Err(format_err(name, 0, "not a VPK directory (bad signature)".into()));
    }
    let version = r.u32().map_err(&rd)?;
    let tree_size = r.u32().map_err(&rd)? as u64;
    let header_len = match version {
        1 => 12,
        2 => {
            r.skip(16).map_err(&rd)?;
            28
        }
        v => {
            return Err(format_err(
                name,
                4,
                format!("VPK version {v} is not supported (1 and 2 are)"),
            ));
        }
    };
    let tree_end = header_len + tree_size;
    if tree_end > bytes.len() as u64 {
        let len = bytes.len();
        let why = format!("tree of {tree_size} bytes runs past the end of the {len}-byte file");
        return Err(format_err(name, 8, why));
    }
    Ok((version, header_len, tree_end))
}

/// A NUL-terminated string of the tree.
fn tree_str(t: &mut Reader<'_>, name: &str) -> Result<String> {
    Ok(String::from_utf8_lossy(t.cstr().map_err(read_err(name))?).into_owned())
}

/// The tree's entries: extensions, each with directories, each with files, each list ended by
/// an empty string.
fn read_tree(t: &mut Reader<'_>, name: &str) -> Result<Vec<VpkEntry>> {
    let mut entries = Vec::new();
    loop {
        let ext = tree_str(t, name)?;
        if ext.is_empty() {
            break;
        }
        loop {
            let dir = tree_str(t, name)?;
            if dir.is_empty() {
                break;
            }
            loop {
                let file = tree_str(t, name)?;
                if file.is_empty() {
                    break;
                }
                entries.push(read_entry(t, name, (&dir, &file, &ext))?);
            }
        }
    }
    Ok(entries)
}

/// One file's entry, after its name in the tree.
fn read_entry(t: &mut Reader<'_>, name: &str, (dir, file, ext): (&str, &str, &str)) -> Result<VpkEntry> {
    let rd = read_err(name);
    let at = t.offset();
    let crc32 = t.u32().map_err(&rd)?;
    let preload_len = t.u16().map_err(&rd)? as usize;
    let archive_index = t.u16().map_err(&rd)?;
    let offset = t.u32().map_err(&rd)?;
    let length = t.u32().map_err(&rd)?;
    if t.u16().map_err(&rd)? != 0xffff {
        let why = format!("entry '{dir}/{file}.{ext}' lacks its 0xFFFF terminator");
        return Err(format_err(name, at + 16, why));
    }
    let preload = t.bytes(preload_len).map_err(&rd)?.to_vec();
    Ok(VpkEntry {
        path: entry_path(dir, file, ext).to_ascii_lowercase(),
        crc32,
        preload,
        archive_index,
        offset,
        length,
    })
}

/// `dir/file.ext`, a directory or extension of `" "` (none) left out.
fn entry_path(dir: &str, file: &str, ext: &str) -> String {
    let mut path = String::new();
    if dir != " " {
        path.push_str(dir);
        path.push('/');
    }
    path.push_str(file);
    if ext != " " {
        path.push('.');
        path.push_str(ext);
    }
    path
}

/// Per extension, per directory: each file's stem and bytes.
type Tree<'a> =
    std::collections::BTreeMap<String, std::collections::BTreeMap<String, Vec<(String, &'a [u8])>>>;

/// Builds a VPK directory in memory (used by tests and tools): files stored in the directory
/// file itself (archive index 0x7fff).
pub fn build_dir(version: u32, files: &[(&str, &[u8])]) -> Vec<u8> {
    let (t, data) = write_tree(&tree_of(files));
    let mut out = Vec::new();
    out.extend_from_slice(&SIGNATURE.to_le_bytes());
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(t.len() as u32).to_le_bytes());
    if version == 2 {
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(&[0u8; 12]);
    }
    out.extend_from_slice(&t);
    out.extend_from_slice(&data);
    out
}

/// The files by extension and directory, as the tree lists them.
fn tree_of<'a>(files: &[(&str, &'a [u8])]) -> Tree<'a> {
    let mut tree = Tree::new();
    for (path, data) in files {
        let (dir, name) = path.rsplit_once('/').unwrap_or((" ", path));
        let (stem, ext) = name.rsplit_once('.').unwrap_or((name, " "));
        tree.entry(ext.to_string())
            .or_default()
            .entry(dir.to_string())
            .or_default()
            .push((stem.to_string(), data));
    }
    tree
}

/// The tree's bytes and the data after it, each file's bytes at the offset its entry names.
fn write_tree(tree: &Tree<'_>) -> (Vec<u8>, Vec<u8>) {
    let mut t = Vec::new();
    let mut data = Vec::new();
    for (ext, dirs) in tree {
        t.extend_from_slice(ext.as_bytes());
        t.push(0);
        for (dir, files) in dirs {
            t.extend_from_slice(dir.as_bytes());
            t.push(0);
            for (stem, bytes) in files {
                write_entry(&mut t, stem, bytes, data.len());
                data.extend_from_slice(bytes);
            }
            t.push(0);
        }
        t.push(0);
    }
    t.push(0);
    (t, data)
}

/// One file's tree entry: its stem, then its bytes' CRC, place (`at` in the directory file's
/// data) and length.
fn write_entry(t: &mut Vec<u8>, stem: &str, bytes: &[u8], at: usize) {
    t.extend_from_slice(stem.as_bytes());
    t.push(0);
    t.extend_from_slice(&crc32(bytes).to_le_bytes());
    t.extend_from_slice(&0u16.to_le_bytes());
    t.extend_from_slice(&DIR_ARCHIVE.to_le_bytes());
    t.extend_from_slice(&(at as u32).to_le_bytes());
    t.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    t.extend_from_slice(&0xffffu16.to_le_bytes());
}

fn crc32(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c ^= b as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    !c
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn builds_and_reads_v1_and_v2() {
        for version in [1, 2] {
            let files: [(&str, &[u8]); 3] = [
                ("materials/a/b.vmt", b"x { }"),
                ("readme", b"hi"),
                ("materials/a/c.vtf", b"VTF\0"),
            ];
            let bytes = build_dir(version, &files);
            let vpk = Vpk::parse(bytes, "t.vpk").unwrap();
            assert_eq!(vpk.version, version);
            assert_eq!(vpk.entries.len(), 3);
            for (p, d) in files {
                let e = vpk.find(&p.to_ascii_uppercase()).unwrap();
                assert_eq!(vpk.read(e).unwrap(), d);
                assert_eq!(e.crc32, crc32(d));
            }
        }
        assert!(Vpk::parse(b"\x34\x12\xaa\x55\x01\0\0\0\xff\0\0\0".to_vec(), "bad").is_err());
    }
}
