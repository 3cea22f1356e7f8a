//! `.phy` files: a model's collision (`phyheader_t`, the solids, the key-data text).

use serde::Serialize;

use crate::error::{PhysError, Result};
use crate::keydata::KeyData;
use crate::solid::Solid;

/// The header size Valve writes (`phyheader_t`).
pub const PHY_HEADER_SIZE: i32 = 16;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PhyFile {
    /// `phyheader_t.size`: where the solids start.
    pub header_size: i32,
    pub id: i32,
    pub checksum: i32,
    /// Header bytes beyond the 16 read (when `header_size` says there are more).
    pub header_extra: Vec<u8>,
    pub solids: Vec<Solid>,
    pub key_data: KeyData,
}

/// Solid `i`, its size at `pos`; returns it and where it ends.
fn read_solid(data: &[u8], pos: usize, i: usize) -> Result<(Solid, usize)> {
    let size = data
        .get(pos..pos + 4)
        .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| PhysError::new(pos as u64, "solid size", "the file ends before it").in_solid(i))?;
    // Negative sizes are refused before the sum, which would overflow with them.
    let end = u64::try_from(size)
        .map(|s| pos as u64 + 4 + s)
        .unwrap_or(u64::MAX);
    if end > data.len() as u64 {
        return Err(PhysError::new(
            pos as u64,
            "solid size",
            format!("size {size} runs past the end of the file"),
        )
        .in_solid(i));
    }
    let body = &data[pos + 4..end as usize];
    let solid = Solid::parse(body, pos as u64 + 4).map_err(|e| e.in_solid(i))?;
    Ok((solid, end as usize))
}

/// `phyheader_t`: size, id, solid count and checksum, the size and count in range.
fn read_header(data: &[u8]) -> Result<[i32; 4]> {
    const HDR: &str = "phy header";
    if data.len() < PHY_HEADER_SIZE as usize {
        return Err(PhysError::new(
            0,
            HDR,
            format!("{} bytes, the header needs 16", data.len()),
        ));
    }
    let word = |p: usize| i32::from_le_bytes([data[p], data[p + 1], data[p + 2], data[p + 3]]);
    let (header_size, id, solid_count, checksum) = (word(0), word(4), word(8), word(12));
    if header_size < PHY_HEADER_SIZE || header_size as usize > data.len() {
        return Err(PhysError::new(
            0,
            HDR,
            format!("header size {header_size} out of range"),
        ));
    }
    if solid_count < 0 || solid_count as usize > data.len() / 4 {
        return Err(PhysError::new(
            8,
            HDR,
            format!("solid count {solid_count} out of range"),
        ));
    }
    Ok([header_size, id, solid_count, checksum])
}

impl PhyFile {
    pub fn parse(data: &[u8]) -> Result<PhyFile> {
        let [header_size, id, solid_count, checksum] = read_header(data)?;
        let mut pos = header_size as usize;
        let mut solids = Vec::with_capacity(solid_count as usize);
        for i in 0..solid_count as usize {
            let (solid, end) = read_solid(data, pos, i)?;
            solids.push(solid);
            pos = end;
        }
        Ok(PhyFile {
            header_size,
            id,
            checksum,
            header_extra: data[16..header_size as usize].to_vec(),
            solids,
            key_data: KeyData::parse(&data[pos..], pos as u64)?,
        })
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for v in [self.header_size, self.id, self.solids.len() as i32, self.checksum] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.header_extra);
        for s in &self.solids {
            let b = s.to_bytes();
            out.extend_from_slice(&(b.len() as i32).to_le_bytes());
            out.extend_from_slice(&b);
        }
        out.extend_from_slice(self.key_data.to_bytes());
        out
    }
}
