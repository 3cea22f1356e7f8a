//! The GLB container (glTF 2.0 binary): a 12-byte header, a JSON chunk and an optional BIN
//! chunk, each 4-byte aligned.

use crate::ExportError;

const MAGIC: &[u8; 4] = b"glTF";
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;

/// A GLB's two chunks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glb {
    /// The JSON document (UTF-8, without padding).
    pub json: String,
    /// The binary buffer, without padding.
    pub bin: Vec<u8>,
}

impl Glb {
    /// The container bytes: JSON padded with spaces, BIN with zeros.
    pub fn to_bytes(&self) -> Vec<u8> {
        let pad = |n: usize| (4 - n % 4) % 4;
        let json_len = self.json.len() + pad(self.json.len());
        let bin_len = self.bin.len() + pad(self.bin.len());
        let total = 12 + 8 + json_len + if self.bin.is_empty() { 0 } else { 8 + bin_len };
        let mut out = Vec::with_capacity(total);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&(total as u32).to_le_bytes());
        out.extend_from_slice(&(json_len as u32).to_le_bytes());
        out.extend_from_slice(&CHUNK_JSON.to_le_bytes());
        out.extend_from_slice(self.json.as_bytes());
        out.resize(out.len() + pad(self.json.len()), b' ');
        if !self.bin.is_empty() {
            out.extend_from_slice(&(bin_len as u32).to_le_bytes());
            out.extend_from_slice(&CHUNK_BIN.to_le_bytes());
            out.extend_from_slice(&self.bin);
            out.resize(out.len() + pad(self.bin.len()), 0);
        }
        out
    }

    /// Reads a GLB. The chunks come back with their padding (the container does not record
    /// the unpadded lengths); trailing spaces of the JSON are trimmed.
    pub fn parse(data: &[u8]) -> Result<Glb, ExportError> {
        check_header(data)?;
        let mut json = None;
        let mut bin = Vec::new();
        let mut at = 12;
        while at < data.len() {
            let (kind, body) = chunk_at(data, at)?;
            match (kind, json.is_none()) {
                (CHUNK_JSON, true) => {
                    let text = std::str::from_utf8(body)
                        .map_err(|e| glb_err(at + 8 + e.valid_up_to(), "JSON chunk is not UTF-8".into()))?;
                    json = Some(text.trim_end_matches(' ').to_string());
                }
                (_, true) => return Err(glb_err(at, "the first chunk is not JSON".into())),
                (CHUNK_BIN, false) if bin.is_empty() => bin = body.to_vec(),
                _ => {} // Unknown chunks are skipped, as the specification asks.
            }
            at += 8 + body.len();
        }
        let json = json.ok_or_else(|| glb_err(12, "no JSON chunk".into()))?;
        Ok(Glb { json, bin })
    }
}

fn glb_err(offset: usize, message: String) -> ExportError {
    ExportError::Glb { offset, message }
}

/// The little-endian u32 at byte `o`.
fn u32_at(data: &[u8], o: usize) -> Result<u32, ExportError> {
    data.get(o..o + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| glb_err(o, "file ends inside a 4-byte field".into()))
}

/// The 12-byte header: the magic, version 2, and the file's own length.
fn check_header(data: &[u8]) -> Result<(), ExportError> {
    if data.get(0..4) != Some(MAGIC) {
        return Err(glb_err(0, "not a GLB file (magic is not 'glTF')".into()));
    }
    let version = u32_at(data, 4)?;
    if version != 2 {
        return Err(glb_err(4, format!("GLB version {version} is not 2")));
    }
    let total = u32_at(data, 8)? as usize;
    if total != data.len() {
        return Err(glb_err(
            8,
            format!("header length {total} but the file has {} bytes", data.len()),
        ));
    }
    Ok(())
}

/// The chunk at byte `at`: its type and its body (a length that is a multiple of 4).
fn chunk_at(data: &[u8], at: usize) -> Result<(u32, &[u8]), ExportError> {
    let len = u32_at(data, at)? as usize;
    let kind = u32_at(data, at + 4)?;
    let body = data
        .get(at + 8..)
        .and_then(|b| b.get(..len))
        .ok_or_else(|| glb_err(at, format!("chunk of {len} bytes runs past the end")))?;
    if !len.is_multiple_of(4) {
        return Err(glb_err(at, format!("chunk length {len} is not a multiple of 4")));
    }
    Ok((kind, body))
}
