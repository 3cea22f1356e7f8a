//! Partial files of a sharded compile stage (`srcmap vvis --shard I/N -o PART`, the vrad
//! passes): a self-describing header around the stage's own payload, so that a merge can refuse
//! a part that belongs to another map, another stage, other options or another split.
//!
//! Layout (little-endian):
//!
//! ```text
//! magic "SRCMSHRD"  version u32
//! stage   (u16 length + UTF-8)       "vvis", "vrad direct", ...
//! input   u64                        hash of the inputs the stage read (see `hash`)
//! options (u32 length + UTF-8)       the options that change the result, as text
//! shard   index u32, count u32       this part is shard `index` of `count` (0-based)
//! payload (u64 length + bytes)       the stage's results
//! check   u64                        `hash` of every byte before it
//! ```
//!
//! The trailing check makes a truncated or damaged file an error, not a wrong merge. The
//! payload's meaning belongs to the stage that wrote it.

use std::fmt;

use srcmap_bytes::{Endian, ReadError, Reader, Writer};
use thiserror::Error;

/// The first bytes of every partial file.
pub const MAGIC: &[u8; 8] = b"SRCMSHRD";
/// The layout's version; a reader refuses any other.
pub const VERSION: u32 = 2;

/// Which share of the work a part holds: shard `index` of `count` (0-based, as Slurm's
/// `SLURM_ARRAY_TASK_ID` over `--array=0-(N-1)` and Kubernetes' `JOB_COMPLETION_INDEX` count).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// The whole work as one shard.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// `I/N` with `I < N` and `N ≥ 1`.
    pub fn parse(text: &str) -> Result<Shard, ShardError> {
        let bad = || ShardError::BadShard(text.to_string());
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let index: u32 = i.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// Whether item `i` of a round-robin split belongs to this shard.
    pub fn owns(&self, i: usize) -> bool {
        i % self.count as usize == self.index as usize
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// What a part says it is: everything a merge compares before it trusts the payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub stage: String,
    pub input: u64,
    pub options: String,
    pub shard: Shard,
}

/// One partial file: its header and the stage's payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub header: Header,
    pub payload: Vec<u8>,
}

/// What is wrong with a part or a set of parts.
#[derive(Debug, Error)]
pub enum ShardError {
    #[error("not a srcmap partial file (no SRCMSHRD magic)")]
    NotAPart,
    #[error("partial file version {0}, this srcmap reads version {VERSION}")]
    Version(u32),
    #[error("damaged partial file: check {found:016x} where the content gives {expected:016x}")]
    Damaged { expected: u64, found: u64 },
    #[error("truncated or malformed partial file: {0}")]
    Read(#[from] ReadError),
    #[error("bad shard '{0}': expected I/N with 0 <= I < N")]
    BadShard(String),
    #[error("part is for {field} {found}, the merge is for {expected}")]
    Mismatch {
        field: &'static str,
        expected: String,
        found: String,
    },
    #[error("shard {index}/{count} is given twice")]
    Duplicate { index: u32, count: u32 },
    #[error("shard {index}/{count} is missing")]
    Missing { index: u32, count: u32 },
    #[error("bad payload: {0}")]
    Payload(String),
}

/// FNV-1a's constants, 64 bits, over `chunks` each preceded by its length (so `["ab", "c"]`
/// and `["a", "bc"]` differ): the input hash of a part, and its trailing check. Eaten eight
/// bytes at a time (then the last few one by one), each step rotated so high bits reach the
/// low ones: a merge hashes its map and every part, tens of megabytes, and byte by byte that
/// was a twentieth of a lighting merge. Each step is a bijection of the state, so parts that
/// differ in one word always hash apart.
pub fn hash(chunks: &[&[u8]]) -> u64 {
    const PRIME: u64 = 0x0100_0000_01b3;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        let words = bytes.chunks_exact(8);
        let tail = words.remainder();
        for w in words {
            let w = u64::from_le_bytes(w.try_into().unwrap_or_default());
            h = (h ^ w).wrapping_mul(PRIME).rotate_left(29);
        }
        for &b in tail {
            h = (h ^ u64::from(b)).wrapping_mul(PRIME);
        }
    };
    for chunk in chunks {
        eat(&(chunk.len() as u64).to_le_bytes());
        eat(chunk);
    }
    h
}

impl Part {
    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let h = &self.header;
        let mut w = Writer::new(Endian::Little);
        w.bytes(MAGIC);
        w.u32(VERSION);
        w.u16(h.stage.len().min(u16::MAX as usize) as u16);
        w.bytes(&h.stage.as_bytes()[..h.stage.len().min(u16::MAX as usize)]);
        w.u64(h.input);
        w.u32(h.options.len() as u32);
        w.bytes(h.options.as_bytes());
        w.u32(h.shard.index);
        w.u32(h.shard.count);
        w.u64(self.payload.len() as u64);
        w.bytes(&self.payload);
        let mut bytes = w.into_inner();
        let check = hash(&[&bytes]);
        bytes.extend_from_slice(&check.to_le_bytes());
        bytes
    }

    /// A part from its file's bytes; any damage is an error (never a panic, never a huge
    /// allocation from a hostile length).
    pub fn parse(bytes: &[u8]) -> Result<Part, ShardError> {
        if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
            return Err(ShardError::NotAPart);
        }
        let body_len = bytes.len().checked_sub(8).ok_or(ShardError::NotAPart)?;
        let mut r = Reader::new(bytes, Endian::Little);
        r.skip(MAGIC.len())?;
        let version = r.u32()?;
        if version != VERSION {
            return Err(ShardError::Version(version));
        }
        let expected = hash(&[&bytes[..body_len]]);
        let found = u64::from_le_bytes(bytes[body_len..].try_into().unwrap_or_default());
        if expected != found {
            return Err(ShardError::Damaged { expected, found });
        }
        let mut body = Reader::new(&bytes[..body_len], Endian::Little);
        body.skip(MAGIC.len() + 4)?;
        read_body(&mut body)
    }
}

/// The header and payload after the magic and version.
fn read_body(r: &mut Reader<'_>) -> Result<Part, ShardError> {
    let stage_len = r.u16()? as usize;
    let stage = text(r, stage_len)?;
    let input = r.u64()?;
    let options_len = r.u32()? as usize;
    let options = text(r, options_len)?;
    let index = r.u32()?;
    let count = r.u32()?;
    if count == 0 || index >= count {
        return Err(ShardError::BadShard(format!("{index}/{count}")));
    }
    let payload_len = r.u64()?;
    let payload = r.bytes(r.check_count(payload_len, 1)?)?.to_vec();
    if r.remaining() != 0 {
        return Err(r.invalid("bytes after the payload").into());
    }
    let header = Header {
        stage,
        input,
        options,
        shard: Shard { index, count },
    };
    Ok(Part { header, payload })
}

/// `len` bytes of UTF-8.
fn text(r: &mut Reader<'_>, len: usize) -> Result<String, ShardError> {
    let at = r.offset();
    let bytes = r.bytes(len)?;
    String::from_utf8(bytes.to_vec()).map_err(|_| {
        ShardError::Read(ReadError::Invalid {
            offset: at,
            message: "text is not UTF-8".into(),
        })
    })
}

impl Header {
    /// `Ok` when `self` is a part of the run `expected` describes (its shard aside).
    pub fn matches(&self, expected: &Header) -> Result<(), ShardError> {
        let mismatch = |field, e: String, f: String| {
            Err(ShardError::Mismatch {
                field,
                expected: e,
                found: f,
            })
        };
        if self.stage != expected.stage {
            return mismatch("stage", expected.stage.clone(), self.stage.clone());
        }
        if self.input != expected.input {
            let show = |h: u64| format!("input {h:016x}");
            return mismatch("another input:", show(expected.input), show(self.input));
        }
        if self.options != expected.options {
            return mismatch("options", expected.options.clone(), self.options.clone());
        }
        if self.shard.count != expected.shard.count {
            let show = |n: u32| format!("{n} shards");
            return mismatch("a split in", show(expected.shard.count), show(self.shard.count));
        }
        Ok(())
    }
}

/// Checks that `headers` are each a part of the run `expected` describes and together hold
/// every shard `0..N` exactly once (N is `expected.shard.count`); on failure, the position in
/// `headers` of the part at fault (`None`: a shard no part holds) and the error.
pub fn check_set(expected: &Header, headers: &[Header]) -> Result<(), (Option<usize>, ShardError)> {
    let count = expected.shard.count;
    let mut seen = vec![false; count as usize];
    for (at, h) in headers.iter().enumerate() {
        h.matches(expected).map_err(|e| (Some(at), e))?;
        let slot = &mut seen[h.shard.index as usize];
        if *slot {
            let index = h.shard.index;
            return Err((Some(at), ShardError::Duplicate { index, count }));
        }
        *slot = true;
    }
    match seen.iter().position(|s| !s) {
        Some(index) => Err((
            None,
            ShardError::Missing {
                index: index as u32,
                count,
            },
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(index: u32, count: u32) -> Part {
        Part {
            header: Header {
                stage: "vvis".into(),
                input: hash(&[b"map"]),
                options: "fast=0".into(),
                shard: Shard { index, count },
            },
            payload: vec![1, 2, 3, index as u8],
        }
    }

    #[test]
    fn a_part_reads_back_as_written() {
        let p = part(2, 4);
        assert_eq!(Part::parse(&p.to_bytes()).unwrap(), p);
    }

    #[test]
    fn every_truncation_and_every_flipped_byte_is_an_error() {
        let bytes = part(1, 3).to_bytes();
        for n in 0..bytes.len() {
            assert!(Part::parse(&bytes[..n]).is_err(), "truncated to {n}");
        }
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x10;
            assert!(Part::parse(&b).is_err(), "byte {i} flipped");
        }
    }

    #[test]
    fn shards_parse_as_i_of_n() {
        assert_eq!(Shard::parse("3/7").unwrap(), Shard { index: 3, count: 7 });
        for bad in ["7/7", "1/0", "x/2", "2", "-1/3"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
        let s = Shard { index: 1, count: 3 };
        assert_eq!((0..9).filter(|&i| s.owns(i)).collect::<Vec<_>>(), [1, 4, 7]);
    }

    #[test]
    fn a_set_must_hold_each_shard_once_of_the_same_run() {
        let expected = part(0, 3).header;
        let all: Vec<Header> = (0..3).map(|i| part(i, 3).header).collect();
        assert!(check_set(&expected, &all).is_ok());
        let missing = check_set(&expected, &all[..2]).unwrap_err();
        assert!(matches!(missing, (None, ShardError::Missing { index: 2, .. })));
        let twice = [all[0].clone(), all[1].clone(), all[1].clone()];
        assert!(matches!(
            check_set(&expected, &twice),
            Err((Some(2), ShardError::Duplicate { .. }))
        ));
        let mut other = all.clone();
        other[1].input ^= 1;
        assert!(matches!(
            check_set(&expected, &other),
            Err((Some(1), ShardError::Mismatch { .. }))
        ));
        other[1] = part(1, 4).header;
        assert!(matches!(
            check_set(&expected, &other),
            Err((Some(1), ShardError::Mismatch { .. }))
        ));
    }

    #[test]
    fn the_hash_separates_chunk_boundaries() {
        assert_ne!(hash(&[b"ab", b"c"]), hash(&[b"a", b"bc"]));
        assert_eq!(hash(&[b"ab"]), hash(&[b"ab"]));
    }
}
