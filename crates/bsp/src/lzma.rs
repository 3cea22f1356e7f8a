//! Valve's LZMA lump wrapper (`public/tier1/lzmaDecoder.h`): `"LZMA"`, actualSize u32,
//! lzmaSize u32, 5 property bytes, then a raw LZMA1 stream. Both sizes are little-endian even in
//! big-endian console files.

use std::io::{Read, Write};

/// Size of Valve's header in front of the LZMA stream.
pub const HEADER_LEN: usize = 17;
/// The largest uncompressed size accepted, so a hostile header cannot ask for unbounded memory.
pub const MAX_UNCOMPRESSED: u32 = 256 << 20;
/// The most one file's compressed lumps may claim together. A v20 map's lumps are bounded by
/// Valve's limits (16 MiB of lighting per range, 16 MiB of visibility, a few MiB of records;
/// the pakfile is never LZMA-compressed as a lump), far below this; a small file whose lumps
/// each claim the per-lump cap is a decompression bomb.
pub const MAX_FILE_UNCOMPRESSED: u64 = 2 * MAX_UNCOMPRESSED as u64;
/// The most one compressed game lump entry may hold: static and detail prop lumps count their
/// dictionaries and records in `u16`/`i32` fields of small records, tens of MiB at most.
pub const MAX_GAME_LUMP_UNCOMPRESSED: u32 = 64 << 20;

fn le32(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// Whether `data` starts with a plausible Valve LZMA header.
pub fn is_compressed(data: &[u8]) -> bool {
    data.len() >= HEADER_LEN
        && &data[..4] == b"LZMA"
        && le32(&data[8..12]) as usize <= data.len() - HEADER_LEN
}

/// The uncompressed size recorded in the header, if `data` is compressed.
pub fn uncompressed_size(data: &[u8]) -> Option<u32> {
    is_compressed(data).then(|| le32(&data[4..8]))
}

/// What is wrong with an LZMA block, or why the encoder failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LzmaError {
    #[error("not a valid LZMA block (bad magic or lzmaSize past the end)")]
    NotABlock,
    #[error("LZMA block claims {actual} uncompressed bytes, over the {max}-byte limit")]
    TooLarge { actual: u32, max: u32 },
    #[error("LZMA properties byte {0} is invalid")]
    Properties(u8),
    /// The decoder refused the stream's parameters.
    #[error("LZMA: {0}")]
    Decoder(String),
    #[error("LZMA stream is damaged: {0}")]
    Damaged(String),
    #[error("LZMA stream gave {got} bytes, header says {expected}")]
    Short { got: usize, expected: u32 },
    #[error("LZMA encoder: {0}")]
    Encoder(String),
}

/// Decompresses one Valve LZMA block of at most [`MAX_UNCOMPRESSED`] bytes. Callers add the
/// lump and offset.
pub fn decode(data: &[u8]) -> Result<Vec<u8>, LzmaError> {
    decode_at_most(data, MAX_UNCOMPRESSED)
}

/// [`decode`], refusing (before decoding) a block that claims more than `max` bytes.
pub fn decode_at_most(data: &[u8], max: u32) -> Result<Vec<u8>, LzmaError> {
    let BlockHeader {
        actual,
        lzma_size,
        props,
        dict,
    } = BlockHeader::read(data, max)?;
    let stream = &data[HEADER_LEN..HEADER_LEN + lzma_size];
    let mut reader =
        lzma_rust2::LzmaReader::new_with_props(stream, actual as u64, props, dict.max(4096), None)
            .map_err(|e| LzmaError::Decoder(e.to_string()))?;
    // Grow with the data actually produced rather than trusting `actual` for the allocation.
    let mut out = Vec::with_capacity((actual as usize).min(16 << 20));
    reader
        .read_to_end(&mut out)
        .map_err(|e| LzmaError::Damaged(e.to_string()))?;
    if out.len() != actual as usize {
        return Err(LzmaError::Short {
            got: out.len(),
            expected: actual,
        });
    }
    Ok(out)
}

/// The header of a Valve LZMA block: its uncompressed and compressed sizes and the LZMA
/// properties.
struct BlockHeader {
    actual: u32,
    lzma_size: usize,
    props: u8,
    dict: u32,
}

impl BlockHeader {
    /// Refuses what is no block, claims more than `max` bytes, or has impossible properties.
    fn read(data: &[u8], max: u32) -> Result<BlockHeader, LzmaError> {
        if !is_compressed(data) {
            return Err(LzmaError::NotABlock);
        }
        let actual = le32(&data[4..8]);
        let lzma_size = le32(&data[8..12]) as usize;
        if actual > max {
            return Err(LzmaError::TooLarge { actual, max });
        }
        let props = data[12];
        let dict = le32(&data[13..17]);
        if props >= 9 * 5 * 5 {
            return Err(LzmaError::Properties(props));
        }
        Ok(BlockHeader {
            actual,
            lzma_size,
            props,
            dict,
        })
    }
}

/// Compresses `data` into a Valve LZMA block (deterministic output).
pub fn encode(data: &[u8]) -> Result<Vec<u8>, LzmaError> {
    let encoder = |e: std::io::Error| LzmaError::Encoder(e.to_string());
    let mut options = lzma_rust2::LzmaOptions::with_preset(6);
    // A dictionary larger than the input buys nothing and costs memory at load time.
    options.dict_size = (data.len() as u32).next_power_of_two().clamp(1 << 16, 1 << 24);
    let mut stream = Vec::with_capacity(data.len() / 2 + 64);
    let props = {
        let mut w = lzma_rust2::LzmaWriter::new_no_header(&mut stream, &options, false).map_err(encoder)?;
        let props = w.props();
        w.write_all(data).map_err(encoder)?;
        w.finish().map_err(encoder)?;
        props
    };
    let mut out = Vec::with_capacity(HEADER_LEN + stream.len());
    out.extend_from_slice(b"LZMA");
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out.extend_from_slice(&(stream.len() as u32).to_le_bytes());
    out.push(props);
    out.extend_from_slice(&options.dict_size.to_le_bytes());
    out.extend_from_slice(&stream);
    Ok(out)
}

/// The uncompressed bytes `blocks` claim together (0 for those not compressed): what decoding
/// them all would allocate, known from their headers without decoding any.
pub fn claimed_total<'a>(blocks: impl IntoIterator<Item = &'a [u8]>) -> u64 {
    blocks
        .into_iter()
        .filter_map(uncompressed_size)
        .map(u64::from)
        .sum()
}

/// Refuses a set of blocks (one file's lumps) that would decode to more than
/// [`MAX_FILE_UNCOMPRESSED`] bytes together.
pub fn check_budget<'a>(blocks: impl IntoIterator<Item = &'a [u8]>) -> Result<(), String> {
    let total = claimed_total(blocks);
    if total > MAX_FILE_UNCOMPRESSED {
        return Err(format!(
            "the file's LZMA lumps claim {total} uncompressed bytes together, over the \
             {MAX_FILE_UNCOMPRESSED}-byte limit (a decompression bomb?)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_trip() {
        let data: Vec<u8> = (0..100_000u32)
            .map(|i| (i % 251) as u8 ^ (i / 1000) as u8)
            .collect();
        let packed = super::encode(&data).unwrap();
        assert!(super::is_compressed(&packed));
        assert!(packed.len() < data.len());
        assert_eq!(super::decode(&packed).unwrap(), data);
        assert_eq!(super::encode(&data).unwrap(), packed, "deterministic");
    }
    #[test]
    fn hostile_sizes_are_errors() {
        let mut block = super::encode(b"hello hello hello").unwrap();
        block[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(super::decode(&block).is_err());
        let mut block = super::encode(b"hello hello hello").unwrap();
        let n = block.len();
        block.truncate(n - 3);
        assert!(super::decode(&block).is_err());
    }
    #[test]
    fn a_set_of_blocks_is_refused_over_the_file_budget_before_decoding() {
        let mut block = super::encode(&[0u8; 1000]).unwrap();
        assert!(super::check_budget([block.as_slice(), &[1, 2, 3]]).is_ok());
        block[4..8].copy_from_slice(&super::MAX_UNCOMPRESSED.to_le_bytes());
        let blocks = [block.as_slice(); 3];
        assert_eq!(super::claimed_total(blocks), 3 * super::MAX_UNCOMPRESSED as u64);
        assert!(super::check_budget(blocks).is_err());
        assert!(super::check_budget(blocks[..2].iter().copied()).is_ok());
        assert!(matches!(
            super::decode_at_most(&block, 1000),
            Err(super::LzmaError::TooLarge { max: 1000, .. })
        ));
    }
}
