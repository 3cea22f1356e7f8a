//! Valve's LZMA lump wrapper (`public/tier1/lzmaDecoder.h`): `"LZMA"`, actualSize u32,
//! lzmaSize u32, 5 property bytes, then a raw LZMA1 stream. Both sizes are little-endian even in
//! big-endian console files.

use std::io::{Read, Write};

/// Size of Valve's header in front of the LZMA stream.
pub const HEADER_LEN: usize = 17;
/// The largest uncompressed size accepted, so a hostile header cannot ask for unbounded memory.
pub const MAX_UNCOMPRESSED: u32 = 256 << 20;

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
    #[error("LZMA block claims {actual} uncompressed bytes, over the {MAX_UNCOMPRESSED}-byte limit")]
    TooLarge { actual: u32 },
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

/// Decompresses one Valve LZMA block. Callers add the lump and offset.
pub fn decode(data: &[u8]) -> Result<Vec<u8>, LzmaError> {
    if !is_compressed(data) {
        return Err(LzmaError::NotABlock);
    }
    let actual = le32(&data[4..8]);
    let lzma_size = le32(&data[8..12]) as usize;
    if actual > MAX_UNCOMPRESSED {
        return Err(LzmaError::TooLarge { actual });
    }
    let props = data[12];
    let dict = le32(&data[13..17]);
    if props >= 9 * 5 * 5 {
        return Err(LzmaError::Properties(props));
    }
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
}
