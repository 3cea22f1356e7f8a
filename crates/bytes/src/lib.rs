//! Low-level pieces shared by every srcmap format crate: an endian-aware bounds-checked
//! [`Reader`], its mirror [`Writer`], and [`LineIndex`] for turning byte offsets of text
//! formats into `line:column` positions.
//!
//! Nothing here allocates on the read path and nothing panics on hostile input: every read
//! returns a [`ReadError`] naming the absolute byte offset where the data ran out.

use thiserror::Error;

/// Byte order of a binary file. Source files are little-endian except console builds (`PSBV`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Endian {
    #[default]
    Little,
    Big,
}

/// A read went past the end of the data, or a length field could not be satisfied.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ReadError {
    #[error("unexpected end of data at byte {offset}: needed {needed} bytes, {available} available")]
    UnexpectedEnd {
        offset: u64,
        needed: u64,
        available: u64,
    },
    #[error("bad value at byte {offset}: {message}")]
    Invalid { offset: u64, message: String },
}

impl ReadError {
    /// Absolute byte offset at which the error was detected.
    pub fn offset(&self) -> u64 {
        match self {
            ReadError::UnexpectedEnd { offset, .. } | ReadError::Invalid { offset, .. } => *offset,
        }
    }
}

/// A bounds-checked cursor over a byte slice. `base` is the absolute offset of `data[0]` in the
/// file, so errors inside a sub-reader (a lump, a game lump) still name the file offset.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
    endian: Endian,
}

macro_rules! read_num {
    ($($name:ident $ty:ty;)*) => {$(
        #[inline]
        pub fn $name(&mut self) -> Result<$ty, ReadError> {
            let bytes = self.array::<{ std::mem::size_of::<$ty>() }>()?;
            Ok(match self.endian {
                Endian::Little => <$ty>::from_le_bytes(bytes),
                Endian::Big => <$ty>::from_be_bytes(bytes),
            })
        }
    )*};
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8], endian: Endian) -> Self {
        Reader {
            data,
            pos: 0,
            base: 0,
            endian,
        }
    }

    /// A reader over `data` that reports offsets relative to `base`.
    pub fn with_base(data: &'a [u8], base: u64, endian: Endian) -> Self {
        Reader {
            data,
            pos: 0,
            base,
            endian,
        }
    }

    pub fn endian(&self) -> Endian {
        self.endian
    }
    pub fn set_endian(&mut self, endian: Endian) {
        self.endian = endian;
    }
    /// Position relative to the start of this reader's data.
    pub fn position(&self) -> usize {
        self.pos
    }
    /// Absolute position in the file.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }
    pub fn len(&self) -> usize {
        self.data.len()
    }
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }
    pub fn rest(&self) -> &'a [u8] {
        &self.data[self.pos..]
    }
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    pub fn seek(&mut self, pos: usize) -> Result<(), ReadError> {
        if pos > self.data.len() {
            return Err(ReadError::UnexpectedEnd {
                offset: self.base + pos as u64,
                needed: 0,
                available: 0,
            });
        }
        self.pos = pos;
        Ok(())
    }

    fn eof_at(&self, needed: u64) -> ReadError {
        ReadError::UnexpectedEnd {
            offset: self.offset(),
            needed,
            available: self.remaining() as u64,
        }
    }

    /// An error at the current position.
    pub fn invalid(&self, message: impl Into<String>) -> ReadError {
        ReadError::Invalid {
            offset: self.offset(),
            message: message.into(),
        }
    }

    pub fn skip(&mut self, n: usize) -> Result<(), ReadError> {
        self.bytes(n).map(|_| ())
    }

    #[inline]
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], ReadError> {
        if n > self.remaining() {
            return Err(self.eof_at(n as u64));
        }
        let out = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    #[inline]
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], ReadError> {
        let b = self.bytes(N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(b);
        Ok(out)
    }

    /// A sub-reader over the next `n` bytes, keeping absolute offsets.
    pub fn sub(&mut self, n: usize) -> Result<Reader<'a>, ReadError> {
        let base = self.offset();
        let data = self.bytes(n)?;
        Ok(Reader {
            data,
            pos: 0,
            base,
            endian: self.endian,
        })
    }

    /// Checks that `count` records of `size` bytes fit in what is left, before allocating for them,
    /// so a hostile count cannot cause an out-of-memory.
    pub fn check_count(&self, count: u64, size: u64) -> Result<usize, ReadError> {
        let need = count.checked_mul(size.max(1));
        match need {
            Some(n) if n <= self.remaining() as u64 => Ok(count as usize),
            _ => Err(ReadError::UnexpectedEnd {
                offset: self.offset(),
                needed: need.unwrap_or(u64::MAX),
                available: self.remaining() as u64,
            }),
        }
    }

    #[inline]
    pub fn u8(&mut self) -> Result<u8, ReadError> {
        Ok(self.array::<1>()?[0])
    }
    #[inline]
    pub fn i8(&mut self) -> Result<i8, ReadError> {
        Ok(self.array::<1>()?[0] as i8)
    }

    read_num! {
        u16 u16; i16 i16; u32 u32; i32 i32; u64 u64; i64 i64; f32 f32; f64 f64;
    }

    pub fn vec3(&mut self) -> Result<[f32; 3], ReadError> {
        Ok([self.f32()?, self.f32()?, self.f32()?])
    }

    /// A NUL-terminated string (the terminator is consumed, not returned).
    pub fn cstr(&mut self) -> Result<&'a [u8], ReadError> {
        let rest = self.rest();
        match rest.iter().position(|&b| b == 0) {
            Some(n) => {
                let s = &rest[..n];
                self.pos += n + 1;
                Ok(s)
            }
            None => Err(self.invalid("string without a terminating NUL")),
        }
    }
}

/// A growable little- or big-endian byte writer, the mirror of [`Reader`].
#[derive(Debug, Clone, Default)]
pub struct Writer {
    pub buf: Vec<u8>,
    endian: Endian,
}

macro_rules! write_num {
    ($($name:ident $ty:ty;)*) => {$(
        #[inline]
        pub fn $name(&mut self, v: $ty) {
            match self.endian {
                Endian::Little => self.buf.extend_from_slice(&v.to_le_bytes()),
                Endian::Big => self.buf.extend_from_slice(&v.to_be_bytes()),
            }
        }
    )*};
}

impl Writer {
    pub fn new(endian: Endian) -> Self {
        Writer {
            buf: Vec::new(),
            endian,
        }
    }
    pub fn with_capacity(endian: Endian, cap: usize) -> Self {
        Writer {
            buf: Vec::with_capacity(cap),
            endian,
        }
    }
    pub fn endian(&self) -> Endian {
        self.endian
    }
    pub fn len(&self) -> usize {
        self.buf.len()
    }
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }
    pub fn into_inner(self) -> Vec<u8> {
        self.buf
    }
    pub fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    pub fn i8(&mut self, v: i8) {
        self.buf.push(v as u8);
    }
    write_num! {
        u16 u16; i16 i16; u32 u32; i32 i32; u64 u64; i64 i64; f32 f32; f64 f64;
    }
    pub fn vec3(&mut self, v: [f32; 3]) {
        for c in v {
            self.f32(c);
        }
    }
    pub fn cstr(&mut self, s: &[u8]) {
        self.buf.extend_from_slice(s);
        self.buf.push(0);
    }
    /// Pads with zero bytes up to a multiple of `align`.
    pub fn align(&mut self, align: usize) {
        while !self.buf.len().is_multiple_of(align) {
            self.buf.push(0);
        }
    }
    /// Overwrites a u32 at `at` (for offsets patched after layout).
    pub fn patch_u32(&mut self, at: usize, v: u32) {
        let b = match self.endian {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        };
        self.buf[at..at + 4].copy_from_slice(&b);
    }
}

/// Maps byte offsets of a text to 1-based `line:column` (column counted in characters).
#[derive(Debug, Clone)]
pub struct LineIndex {
    line_starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &[u8]) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(
            text.iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { line_starts }
    }

    /// 1-based line and column of `offset` in `text` (the text this index was built from).
    pub fn line_col(&self, text: &[u8], offset: usize) -> (usize, usize) {
        let line = self.line_starts.partition_point(|&s| s <= offset).max(1);
        let start = self.line_starts[line - 1];
        let end = offset.min(text.len());
        let col = match std::str::from_utf8(&text[start..end]) {
            Ok(s) => s.chars().count(),
            Err(_) => end - start,
        };
        (line, col + 1)
    }
}

/// `line:column` of a byte offset without building an index (for one-off error messages).
pub fn line_col(text: &[u8], offset: usize) -> (usize, usize) {
    LineIndex::new(&text[..offset.min(text.len())]).line_col(text, offset)
}

/// Writes `contents` to `path` atomically: into a temporary file beside it, then renamed over it,
/// so a failure never leaves a half-written output.
pub fn write_atomic(path: &std::path::Path, contents: &[u8]) -> std::io::Result<()> {
    stage(path, contents)?.commit()
}

/// An output written in full beside its target under a temporary name (`.NAME.PID.tmp`), not
/// yet in place: [`Staged::commit`] renames it over the target; dropped uncommitted (a later
/// output of the same run failed), the temporary is removed.
#[derive(Debug)]
pub struct Staged {
    tmp: std::path::PathBuf,
    target: std::path::PathBuf,
}

/// Writes `contents` beside `path` under a temporary name, synced to disk, ready to be renamed
/// into place; on failure (a full disk) the temporary is removed. Temporaries of the same target
/// left by killed runs are removed first.
pub fn stage(path: &std::path::Path, contents: &[u8]) -> std::io::Result<Staged> {
    stage_with(path, contents, true)
}

/// [`stage`] without waiting for the disk: for many small outputs at once (`pak extract`),
/// where a failure must leave nothing but a power cut need not find every file written (one
/// sync each made 20,000 entries take two minutes).
pub fn stage_unsynced(path: &std::path::Path, contents: &[u8]) -> std::io::Result<Staged> {
    stage_with(path, contents, false)
}

fn stage_with(path: &std::path::Path, contents: &[u8], sync: bool) -> std::io::Result<Staged> {
    use std::io::Write;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    remove_stale_temporaries(&dir, &name);
    // Made before the file exists, so that any failure from here on removes it.
    let staged = Staged {
        tmp: dir.join(format!(".{name}.{}.tmp", std::process::id())),
        target: path.to_path_buf(),
    };
    let mut f = std::fs::File::create(&staged.tmp)?;
    f.write_all(contents)?;
    if sync {
        f.sync_all()?;
    }
    Ok(staged)
}

impl Staged {
    /// The file's final name.
    pub fn target(&self) -> &std::path::Path {
        &self.target
    }

    /// Puts the file in place (a rename, which replaces any file of that name at once).
    pub fn commit(self) -> std::io::Result<()> {
        std::fs::rename(&self.tmp, &self.target)
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        // After a commit the temporary name is gone and this does nothing.
        let _ = std::fs::remove_file(&self.tmp);
    }
}

/// Removes `.NAME.PID.tmp` files that [`write_atomic`] left beside `NAME` in a run that was
/// killed: those whose process is gone. Where liveness cannot be told (no `/proc`), nothing
/// is removed; a temporary of a running process (another write of the same file) is kept.
fn remove_stale_temporaries(dir: &std::path::Path, name: &str) {
    let mut found = STALE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let in_dir = found
        .entry(dir.to_path_buf())
        .or_insert_with(|| stale_temporaries(dir));
    for path in in_dir.remove(name).unwrap_or_default() {
        let _ = std::fs::remove_file(path);
    }
}

/// The dead runs' temporaries found in each folder this process wrote to, by target name: each
/// folder is read once (`pak extract` of 20,000 entries into one folder would read it 20,000
/// times); one killed while this process runs is left for the next run.
type StaleByName = std::collections::BTreeMap<String, Vec<std::path::PathBuf>>;
static STALE: std::sync::Mutex<std::collections::BTreeMap<std::path::PathBuf, StaleByName>> =
    std::sync::Mutex::new(std::collections::BTreeMap::new());

/// The `.NAME.PID.tmp` files in `dir` whose process is gone, by `NAME`.
fn stale_temporaries(dir: &std::path::Path) -> StaleByName {
    let mut out = StaleByName::new();
    let proc_root = std::path::Path::new("/proc");
    if !proc_root.join("self").exists() {
        return out;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    let own = std::process::id().to_string();
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some((name, pid)) = file_name.to_str().and_then(temporary_of) else {
            continue;
        };
        if pid != own && !proc_root.join(pid).exists() {
            out.entry(name.to_owned()).or_default().push(entry.path());
        }
    }
    out
}

/// `.NAME.PID.tmp` split into `NAME` and `PID`.
fn temporary_of(file_name: &str) -> Option<(&str, &str)> {
    let (name, pid) = file_name
        .strip_prefix('.')?
        .strip_suffix(".tmp")?
        .rsplit_once('.')?;
    (!name.is_empty() && !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit())).then_some((name, pid))
}

/// The most characters of an input quoted in a message.
pub const EXCERPT_CHARS: usize = 48;

/// `text` quoted for an error message, cut to [`EXCERPT_CHARS`] characters with its full length
/// said: a hostile 100 MB line must not be copied whole into stderr or a report.
pub fn excerpt(text: &str) -> String {
    match text.char_indices().nth(EXCERPT_CHARS) {
        None => format!("{text:?}"),
        Some((cut, _)) => format!("{:?}… ({} bytes)", &text[..cut], text.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_staged_output_is_in_place_only_when_committed() {
        let dir = std::env::temp_dir().join(format!("srcmap-bytes-staged-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("a.vmt");
        std::fs::write(&out, b"old").unwrap();
        let dropped = stage(&out, b"new").unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"old", "staging touched the target");
        drop(dropped);
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(left, ["a.vmt"], "a dropped stage left its temporary");
        stage(&out, b"new").unwrap().commit().unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"new");
        let left = std::fs::read_dir(&dir).unwrap().count();
        assert_eq!(left, 1, "a committed stage left its temporary");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn write_atomic_removes_temporaries_of_dead_runs_only() {
        if !std::path::Path::new("/proc/self").exists() {
            eprintln!("skipping: no /proc to tell whether a process is alive");
            return;
        }
        let dir = std::env::temp_dir().join(format!("srcmap-bytes-stale-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("map.bsp");
        // Above any pid_max Linux allows (2^22): that process cannot be running.
        let dead = dir.join(".map.bsp.99999999.tmp");
        // PID 1 always runs; its temporary is another write in progress and stays.
        let live = dir.join(".map.bsp.1.tmp");
        let other = dir.join(".other.bsp.99999999.tmp");
        for p in [&dead, &live, &other] {
            std::fs::write(p, b"partial").unwrap();
        }
        write_atomic(&out, b"whole").unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"whole");
        assert!(!dead.exists(), "the dead run's temporary was left");
        assert!(live.exists(), "a running process's temporary was removed");
        assert!(other.exists(), "another output's temporary was removed");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn reads_both_endians_and_reports_offsets() {
        let data = [1u8, 0, 0, 0, 0, 0, 0, 2];
        let mut le = Reader::new(&data, Endian::Little);
        assert_eq!(le.u32().unwrap(), 1);
        let mut be = Reader::with_base(&data[4..], 4, Endian::Big);
        assert_eq!(be.u32().unwrap(), 2);
        let err = be.u8().unwrap_err();
        assert_eq!(err.offset(), 8);
    }

    #[test]
    fn check_count_rejects_hostile_lengths() {
        let data = [0u8; 16];
        let r = Reader::new(&data, Endian::Little);
        assert_eq!(r.check_count(4, 4).unwrap(), 4);
        assert!(r.check_count(5, 4).is_err());
        assert!(r.check_count(u64::MAX, 8).is_err());
    }

    #[test]
    fn line_col_counts_from_one() {
        let text = b"ab\ncd\n\xc3\xa9x";
        assert_eq!(line_col(text, 0), (1, 1));
        assert_eq!(line_col(text, 4), (2, 2));
        assert_eq!(line_col(text, 8), (3, 2));
    }

    #[test]
    fn writer_mirrors_reader() {
        let mut w = Writer::new(Endian::Big);
        w.u32(0xdead_beef);
        w.f32(1.5);
        w.cstr(b"hi");
        w.align(4);
        let mut r = Reader::new(&w.buf, Endian::Big);
        assert_eq!(r.u32().unwrap(), 0xdead_beef);
        assert_eq!(r.f32().unwrap(), 1.5);
        assert_eq!(r.cstr().unwrap(), b"hi");
        assert_eq!(w.len(), 12);
    }

    #[test]
    fn excerpts_are_bounded_and_say_the_length() {
        assert_eq!(super::excerpt("1 2"), "\"1 2\"");
        let long = "é".repeat(1_000_000);
        let e = super::excerpt(&long);
        assert!(e.chars().count() < 80 && e.ends_with("… (2000000 bytes)"), "{e}");
    }
}
