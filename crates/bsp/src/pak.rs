//! The pakfile lump (40): a zip archive, entries stored or LZMA-compressed (method 14), as
//! Valve's bspzip writes them. Offsets inside are relative to the start of the lump.

use std::io::Read;

use srcmap_bytes::{Endian, Reader, Writer};

use crate::error::{BspError, Result};

const LOCAL_SIG: u32 = 0x0403_4b50;
const CENTRAL_SIG: u32 = 0x0201_4b50;
const EOCD_SIG: u32 = 0x0605_4b50;
/// Zip method numbers.
pub const METHOD_STORED: u16 = 0;
pub const METHOD_LZMA: u16 = 14;
/// The 32-byte end-of-directory comment Valve's tools write.
const VALVE_COMMENT: &[u8; 32] = b"XZP1 0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";

/// The empty pakfile Valve's vbsp writes (an end-of-directory record with Valve's comment).
pub fn empty_zip() -> Vec<u8> {
    let mut w = Writer::new(Endian::Little);
    w.u32(EOCD_SIG);
    for _ in 0..4 {
        w.u16(0);
    }
    w.u32(0);
    w.u32(0);
    w.u16(32);
    w.bytes(VALVE_COMMENT);
    w.into_inner()
}

/// One entry of the central directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PakEntry {
    pub name: String,
    pub method: u16,
    pub crc32: u32,
    pub compressed_size: u32,
    pub size: u32,
    /// Offset of the local header within the zip.
    pub local_offset: u32,
    /// The central directory record's bytes (kept so rewriting keeps Valve's fields).
    central: Vec<u8>,
}

/// A parsed pakfile over the lump's bytes.
#[derive(Debug, Clone)]
pub struct Pak<'a> {
    data: &'a [u8],
    pub entries: Vec<PakEntry>,
    comment: Vec<u8>,
    /// File offset of the lump, for errors.
    base: u64,
}

impl PakEntry {
    /// The entry's compression as `pak list` names it: `stored`, `lzma`, `deflate` or `other`.
    pub fn method_name(&self) -> &'static str {
        match self.method {
            METHOD_STORED => "stored",
            METHOD_LZMA => "lzma",
            8 => "deflate",
            _ => "other",
        }
    }

    /// The entry's name as a relative path without `..`, roots or drive letters; `None` for a
    /// name that would escape the folder it is extracted into.
    pub fn relative_path(&self) -> Option<std::path::PathBuf> {
        safe_relative(&self.name)
    }

    /// Whether `wanted` (a name as a person types it) names this entry: slashes either way,
    /// case ignored.
    pub fn is_named(&self, wanted: &str) -> bool {
        wanted
            .replace('\\', "/")
            .eq_ignore_ascii_case(&self.name.replace('\\', "/"))
    }
}

/// A zip being written: local records, then the central directory and the end record.
struct ZipWriter {
    w: Writer,
    central: Vec<u8>,
    count: u16,
}

impl ZipWriter {
    fn new() -> ZipWriter {
        ZipWriter {
            w: Writer::new(Endian::Little),
            central: Vec::new(),
            count: 0,
        }
    }

    /// An entry kept from another zip: its local record's bytes, and its central record with
    /// the new offset.
    fn copy(&mut self, local: &[u8], central: &[u8]) {
        let new_offset = self.w.len() as u32;
        self.w.bytes(local);
        let mut c = central.to_vec();
        c[42..46].copy_from_slice(&new_offset.to_le_bytes());
        self.central.extend_from_slice(&c);
        self.count += 1;
    }

    /// A new entry, stored or LZMA-compressed.
    fn add(&mut self, name: &str, data: &[u8], lzma: bool) -> Result<()> {
        let (method, version, payload) = if lzma {
            (METHOD_LZMA, 63u16, zip_lzma(data)?)
        } else {
            (METHOD_STORED, 10u16, data.to_vec())
        };
        let offset = self.w.len() as u32;
        let entry = EntryFields {
            method,
            crc: crc32(data),
            compressed_size: payload.len() as u32,
            size: data.len() as u32,
            name_len: name.len() as u16,
        };
        self.w.u32(LOCAL_SIG);
        self.w.u16(version);
        entry.put(&mut self.w);
        self.w.bytes(name.as_bytes());
        self.w.bytes(&payload);
        self.add_central(&entry, version, offset, name);
        Ok(())
    }

    /// The central directory record of a new entry.
    fn add_central(&mut self, entry: &EntryFields, version: u16, offset: u32, name: &str) {
        let mut c = Writer::new(Endian::Little);
        c.u32(CENTRAL_SIG);
        c.u16(version);
        c.u16(version);
        entry.put(&mut c);
        c.u16(0);
        c.u16(0);
        c.u16(0);
        c.u32(0);
        c.u32(offset);
        c.bytes(name.as_bytes());
        self.central.extend_from_slice(&c.buf);
        self.count += 1;
    }

    /// The central directory and the end record (with `comment`) after the entries.
    fn finish(mut self, comment: &[u8]) -> Vec<u8> {
        let cd_offset = self.w.len() as u32;
        self.w.bytes(&self.central);
        self.w.u32(EOCD_SIG);
        self.w.u16(0);
        self.w.u16(0);
        self.w.u16(self.count);
        self.w.u16(self.count);
        self.w.u32(self.central.len() as u32);
        self.w.u32(cd_offset);
        self.w.u16(comment.len() as u16);
        self.w.bytes(comment);
        self.w.into_inner()
    }
}

/// `data` as a zip LZMA payload: Valve's LZMA block (`LZMA`, actual size, LZMA size,
/// properties, stream) rewritten as zip's (version, properties size 5, properties, stream).
fn zip_lzma(data: &[u8]) -> Result<Vec<u8>> {
    let block = crate::lzma::encode(data).map_err(|e| BspError::Pak {
        offset: 0,
        message: e.to_string(),
    })?;
    let mut p = vec![9, 20, 5, 0];
    p.extend_from_slice(&block[12..]);
    Ok(p)
}

/// Reads a record's 4-byte signature; another value is an error at the record, `message`
/// saying which record.
fn expect_signature(r: &mut Reader<'_>, sig: u32, base: u64, message: impl FnOnce() -> String) -> Result<()> {
    let at = r.offset();
    if r.u32().map_err(|x| err(base, x))? != sig {
        return Err(BspError::Pak {
            offset: base + at,
            message: message(),
        });
    }
    Ok(())
}

/// An error about one entry's data, naming it.
fn entry_error(offset: u64, entry: &PakEntry, message: String) -> BspError {
    BspError::Pak {
        offset,
        message: format!("'{}': {message}", entry.name),
    }
}

/// An LZMA entry's bytes: zip's LZMA is a version (2 bytes), a properties size (2), the
/// properties (5), then the raw stream of `size` bytes.
fn inflate_lzma(raw: &[u8], size: u32) -> std::result::Result<Vec<u8>, String> {
    if raw.len() < 9 {
        return Err("LZMA entry shorter than its header".into());
    }
    let props = raw[4];
    let dict = u32::from_le_bytes([raw[5], raw[6], raw[7], raw[8]]);
    if size > crate::lzma::MAX_UNCOMPRESSED || props >= 225 {
        return Err("LZMA header out of range".into());
    }
    let mut r = lzma_rust2::LzmaReader::new_with_props(&raw[9..], size as u64, props, dict.max(4096), None)
        .map_err(|e| format!("LZMA: {e}"))?;
    let mut out = Vec::with_capacity((size as usize).min(16 << 20));
    r.read_to_end(&mut out).map_err(|e| format!("LZMA: {e}"))?;
    Ok(out)
}

/// A zip entry name as a relative path without `..` or roots.
fn safe_relative(name: &str) -> Option<std::path::PathBuf> {
    let mut out = std::path::PathBuf::new();
    for part in name.split(['/', '\\']) {
        match part {
            "" | "." => continue,
            ".." => return None,
            p if p.contains(':') => return None,
            p => out.push(p),
        }
    }
    (!out.as_os_str().is_empty()).then_some(out)
}

/// The pakfile lump's bytes of a BSP file (decompressed when stored LZMA).
pub fn pak_lump<'d>(file: &crate::BspFile<'d>) -> Result<std::borrow::Cow<'d, [u8]>> {
    file.lump(crate::lump::PAKFILE)
}

/// The BSP file with `files` added to its pakfile (same-named entries replaced; new entries
/// stored, or LZMA-compressed with `lzma`), every other lump as it was.
pub fn add_files(file: &crate::BspFile<'_>, files: &[(String, Vec<u8>)], lzma: bool) -> Result<Vec<u8>> {
    let lump = pak_lump(file)?;
    let pak = Pak::of_lump(file, &lump)?;
    let zip = pak.with_files(files, lzma)?;
    let mut doc = crate::BspDocument::from_file(file);
    let version = doc.lumps[crate::lump::PAKFILE].version;
    doc.set_lump(crate::lump::PAKFILE, zip, version);
    doc.to_bytes()
}

fn err(base: u64, e: srcmap_bytes::ReadError) -> BspError {
    let offset = base + e.offset();
    let message = match e {
        srcmap_bytes::ReadError::UnexpectedEnd {
            needed, available, ..
        } => {
            format!("truncated zip structure: needed {needed} bytes, {available} available")
        }
        srcmap_bytes::ReadError::Invalid { message, .. } => message,
    };
    BspError::Pak { offset, message }
}

/// The zip's end-of-central-directory record: where the directory is, how many entries it
/// holds, and the archive comment.
struct EndRecord {
    count: usize,
    cd_size: usize,
    cd_offset: usize,
    comment: Vec<u8>,
}

impl EndRecord {
    /// Where the record starts: the last signature in the last 22 + 65535 bytes.
    fn find(data: &[u8]) -> Option<usize> {
        let lo = data.len().saturating_sub(22 + 0xffff);
        (lo..=data.len().saturating_sub(22))
            .rev()
            .find(|&i| data.get(i..i + 4) == Some(&EOCD_SIG.to_le_bytes()[..]))
    }

    /// Finds the record (in the last 22 + 65535 bytes) and reads it; the directory must lie
    /// before it.
    fn read(data: &[u8], base: u64) -> Result<EndRecord> {
        let eocd = EndRecord::find(data).ok_or_else(|| BspError::Pak {
            offset: base,
            message: "no zip end-of-central-directory record".into(),
        })?;
        let mut r = Reader::with_base(&data[eocd..], eocd as u64, Endian::Little);
        let e = |x| err(base, x);
        r.skip(10).map_err(e)?;
        let count = r.u16().map_err(e)? as usize;
        let cd_size = r.u32().map_err(e)? as usize;
        let cd_offset = r.u32().map_err(e)? as usize;
        let comment_len = r.u16().map_err(e)? as usize;
        let comment = r.bytes(comment_len.min(r.remaining())).map_err(e)?.to_vec();
        if cd_offset.checked_add(cd_size).is_none_or(|end| end > eocd) {
            return Err(BspError::Pak {
                offset: base + eocd as u64,
                message: format!(
                    "central directory at {cd_offset} (+{cd_size}) overlaps the end record at {eocd}"
                ),
            });
        }
        Ok(EndRecord {
            count,
            cd_size,
            cd_offset,
            comment,
        })
    }
}

impl PakEntry {
    /// One central directory record, its bytes kept.
    fn read_central(r: &mut Reader<'_>, base: u64) -> Result<PakEntry> {
        let e = |x| err(base, x);
        let start = r.position();
        expect_signature(r, CENTRAL_SIG, base, || "bad central directory signature".into())?;
        r.skip(6).map_err(e)?;
        let method = r.u16().map_err(e)?;
        r.skip(4).map_err(e)?;
        let crc32 = r.u32().map_err(e)?;
        let compressed_size = r.u32().map_err(e)?;
        let size = r.u32().map_err(e)?;
        let name_len = r.u16().map_err(e)? as usize;
        let extra_len = r.u16().map_err(e)? as usize;
        let comment_len = r.u16().map_err(e)? as usize;
        r.skip(8).map_err(e)?;
        let local_offset = r.u32().map_err(e)?;
        let name = String::from_utf8_lossy(r.bytes(name_len).map_err(e)?).into_owned();
        skip_extra_and_comment(r, extra_len + comment_len).map_err(e)?;
        let central = r.data()[start..r.position()].to_vec();
        Ok(PakEntry {
            name,
            method,
            crc32,
            compressed_size,
            size,
            local_offset,
            central,
        })
    }
}

/// Skips a central record's extra field and comment. Xbox 360 zips (XZP2) repeat the local
/// header's alignment padding length in the central record without storing the padding: the
/// next record follows the name.
fn skip_extra_and_comment(
    r: &mut Reader<'_>,
    len: usize,
) -> std::result::Result<(), srcmap_bytes::ReadError> {
    let next = r.rest();
    let quirk = next.len() < len || next.starts_with(b"PK\x01\x02") || next.starts_with(b"PK\x05\x06");
    if !quirk {
        r.skip(len)?;
    }
    Ok(())
}

impl<'a> Pak<'a> {
    /// The pakfile of a BSP file over [`pak_lump`]'s bytes (errors name file offsets).
    pub fn of_lump(file: &crate::BspFile<'_>, lump: &'a [u8]) -> Result<Pak<'a>> {
        Pak::parse(lump, file.entry(crate::lump::PAKFILE).offset as u64)
    }

    /// The entries `names` ask for (all of them when `names` is empty), in directory order.
    pub fn selected<'s>(&'s self, names: &'s [String]) -> impl Iterator<Item = &'s PakEntry> + 's {
        self.entries
            .iter()
            .filter(move |e| names.is_empty() || names.iter().any(|w| e.is_named(w)))
    }

    /// Parses the central directory. `base` is the lump's file offset (for error messages).
    pub fn parse(data: &'a [u8], base: u64) -> Result<Pak<'a>> {
        if data.is_empty() {
            return Ok(Pak {
                data,
                entries: Vec::new(),
                comment: VALVE_COMMENT.to_vec(),
                base,
            });
        }
        let end = EndRecord::read(data, base)?;
        let mut r = Reader::with_base(
            &data[end.cd_offset..end.cd_offset + end.cd_size],
            end.cd_offset as u64,
            Endian::Little,
        );
        let mut entries = Vec::with_capacity(end.count.min(end.cd_size / 46));
        for _ in 0..end.count {
            entries.push(PakEntry::read_central(&mut r, base)?);
        }
        Ok(Pak {
            data,
            entries,
            comment: end.comment,
            base,
        })
    }

    /// Range of the local header plus data of an entry.
    fn local_range(&self, entry: &PakEntry) -> Result<(usize, usize, usize)> {
        let at = entry.local_offset as usize;
        let e = |x| err(self.base, x);
        let mut r = Reader::with_base(self.data.get(at..).unwrap_or(&[]), at as u64, Endian::Little);
        expect_signature(&mut r, LOCAL_SIG, self.base, || {
            format!("'{}': bad local header signature", entry.name)
        })?;
        r.skip(22).map_err(e)?;
        let name_len = r.u16().map_err(e)? as usize;
        let extra_len = r.u16().map_err(e)? as usize;
        r.skip(name_len + extra_len).map_err(e)?;
        let data_start = at + r.position();
        let end = data_start + entry.compressed_size as usize;
        if end > self.data.len() {
            return Err(BspError::Pak {
                offset: self.base + data_start as u64,
                message: format!(
                    "'{}': {} bytes of data run past the end of the pakfile",
                    entry.name, entry.compressed_size
                ),
            });
        }
        Ok((at, data_start, end))
    }

    /// The stored (possibly compressed) bytes of an entry.
    pub fn raw_data(&self, entry: &PakEntry) -> Result<&'a [u8]> {
        let (_, start, end) = self.local_range(entry)?;
        Ok(&self.data[start..end])
    }

    /// The uncompressed bytes of an entry (stored or LZMA).
    pub fn read(&self, entry: &PakEntry) -> Result<Vec<u8>> {
        let raw = self.raw_data(entry)?;
        let (_, start, _) = self.local_range(entry)?;
        let fail = |m: String| entry_error(self.base + start as u64, entry, m);
        match entry.method {
            METHOD_STORED => Ok(raw.to_vec()),
            METHOD_LZMA => inflate_lzma(raw, entry.size).map_err(fail),
            m => Err(fail(format!(
                "compression method {m} is not supported (stored and LZMA are)"
            ))),
        }
    }

    pub fn find(&self, name: &str) -> Option<&PakEntry> {
        let norm = |s: &str| s.replace('\\', "/").to_ascii_lowercase();
        let want = norm(name);
        self.entries.iter().find(|e| norm(&e.name) == want)
    }

    /// Rebuilds the zip with `files` added (replacing same-named entries). Existing entries keep
    /// their bytes; new ones are stored, or LZMA-compressed when `lzma` is set.
    pub fn with_files(&self, files: &[(String, Vec<u8>)], lzma: bool) -> Result<Vec<u8>> {
        let mut zip = ZipWriter::new();
        let replaced = |n: &str| {
            files
                .iter()
                .any(|(f, _)| f.replace('\\', "/").eq_ignore_ascii_case(&n.replace('\\', "/")))
        };
        for e in &self.entries {
            if replaced(&e.name) {
                continue;
            }
            let (at, _, end) = self.local_range(e)?;
            zip.copy(&self.data[at..end], &e.central);
        }
        for (name, data) in files {
            zip.add(&name.replace('\\', "/"), data, lzma)?;
        }
        Ok(zip.finish(&self.comment))
    }
}

/// The fields a zip local header and its central directory entry share, from the flags to the
/// extra field length (always 0 here; no timestamps).
struct EntryFields {
    method: u16,
    crc: u32,
    compressed_size: u32,
    size: u32,
    name_len: u16,
}

impl EntryFields {
    fn put(&self, w: &mut Writer) {
        // Flag bit 1 on LZMA entries: the stream has an end marker (as bspzip writes them).
        w.u16(if self.method == METHOD_LZMA { 2 } else { 0 });
        w.u16(self.method);
        w.u16(0);
        w.u16(0);
        w.u32(self.crc);
        w.u32(self.compressed_size);
        w.u32(self.size);
        w.u16(self.name_len);
        w.u16(0);
    }
}

/// CRC-32 (IEEE), as zip uses.
pub fn crc32(data: &[u8]) -> u32 {
    const TABLE: [u32; 256] = {
        let mut t = [0u32; 256];
        let mut i = 0;
        while i < 256 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
                k += 1;
            }
            t[i] = c;
            i += 1;
        }
        t
    };
    let mut c = !0u32;
    for &b in data {
        c = TABLE[((c ^ b as u32) & 0xff) as usize] ^ (c >> 8);
    }
    !c
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn add_list_read() {
        let empty = empty_zip();
        let pak = Pak::parse(&empty, 0).unwrap();
        assert!(pak.entries.is_empty());
        let files = vec![
            ("materials/a.vmt".to_string(), b"LightmappedGeneric {}".to_vec()),
            ("b.txt".to_string(), vec![7u8; 5000]),
        ];
        let z1 = pak.with_files(&files[..1], false).unwrap();
        let p1 = Pak::parse(&z1, 0).unwrap();
        let z2 = p1.with_files(&files[1..], true).unwrap();
        let p2 = Pak::parse(&z2, 0).unwrap();
        assert_eq!(p2.entries.len(), 2);
        for (name, data) in &files {
            let e = p2.find(name).unwrap();
            assert_eq!(&p2.read(e).unwrap(), data);
            assert_eq!(e.crc32, crc32(data));
        }
        assert_eq!(p2.find("b.txt").unwrap().method, METHOD_LZMA);
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        // Fuzz regression: a pakfile shorter than an end record.
        for n in 0..30 {
            assert!(Pak::parse(&vec![0x50; n], 0).is_err() || n == 0);
        }
    }

    #[test]
    fn entries_are_chosen_by_name_and_extracted_only_inside_the_folder() {
        let files: Vec<(String, Vec<u8>)> = ["materials/a.vmt", "../../x", "Materials\\C.vmt"]
            .iter()
            .map(|n| (n.to_string(), n.as_bytes().to_vec()))
            .collect();
        let zip = Pak::parse(&[], 0).unwrap().with_files(&files, false).unwrap();
        let pak = Pak::parse(&zip, 0).unwrap();
        assert_eq!(pak.selected(&[]).count(), 3);
        let wanted = ["materials/c.vmt".to_string()];
        let chosen: Vec<&str> = pak.selected(&wanted).map(|e| e.name.as_str()).collect();
        assert_eq!(chosen, ["Materials/C.vmt"]);
        let paths: Vec<_> = pak.entries.iter().map(PakEntry::relative_path).collect();
        assert_eq!(paths[0], Some(std::path::PathBuf::from("materials/a.vmt")));
        assert_eq!(paths[1], None);
        assert!(safe_relative("c:/windows").is_none());
        assert!(safe_relative("./").is_none());
        assert_eq!(pak.entries[0].method_name(), "stored");
    }
}
