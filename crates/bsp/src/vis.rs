//! The visibility lump (4): per-cluster PVS and PAS bit rows, run-length compressed
//! (a zero byte is followed by a count of zero bytes).

use srcmap_bytes::{Endian, Reader, Writer};

use crate::error::{BspError, Result};
use crate::lump::VISIBILITY;

/// Decoded visibility: for each cluster, a bit row over all clusters (bit `j` of row `i`, at
/// byte `j / 8`, bit `j % 8`: cluster `j` is potentially visible / audible from cluster `i`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Visibility {
    pub num_clusters: u32,
    pub pvs: Vec<Vec<u8>>,
    pub pas: Vec<Vec<u8>>,
}

impl Visibility {
    /// Bytes per decoded row.
    pub fn row_len(&self) -> usize {
        (self.num_clusters as usize).div_ceil(8)
    }
    pub fn can_see(&self, from: usize, to: usize) -> bool {
        self.pvs
            .get(from)
            .and_then(|row| row.get(to / 8))
            .is_some_and(|b| b & (1 << (to % 8)) != 0)
    }
    pub fn can_hear(&self, from: usize, to: usize) -> bool {
        self.pas
            .get(from)
            .and_then(|row| row.get(to / 8))
            .is_some_and(|b| b & (1 << (to % 8)) != 0)
    }

    /// Decodes the lump. `base` is the lump's file offset, for errors.
    pub fn parse(data: &[u8], endian: Endian, base: u64) -> Result<Visibility> {
        VisRows::parse(data, endian, base).map(VisRows::into_visibility)
    }

    /// Encodes the lump the way vvis does: header, all PVS rows, then all PAS rows.
    pub fn to_bytes(&self, endian: Endian) -> Vec<u8> {
        if self.num_clusters == 0 && self.pvs.is_empty() {
            return Vec::new();
        }
        let n = self.num_clusters as usize;
        let mut rows = Vec::new();
        let mut offsets = Vec::with_capacity(n);
        let header = 4 + 8 * n;
        let empty = Vec::new();
        // vvis writes every PVS row, then vvis's PAS pass appends every PAS row.
        for i in 0..n {
            offsets.push(((header + rows.len()) as u32, 0u32));
            compress_row(self.pvs.get(i).unwrap_or(&empty), self.row_len(), &mut rows);
        }
        for (i, ofs) in offsets.iter_mut().enumerate() {
            ofs.1 = (header + rows.len()) as u32;
            compress_row(self.pas.get(i).unwrap_or(&empty), self.row_len(), &mut rows);
        }
        let mut w = Writer::with_capacity(endian, header + rows.len());
        w.u32(self.num_clusters);
        for (a, b) in offsets {
            w.u32(a);
            w.u32(b);
        }
        w.bytes(&rows);
        w.into_inner()
    }
}

/// Decoded visibility in two flat buffers (one row of [`VisRows::row_len`] bytes per cluster):
/// what [`crate::BspView`] holds; [`VisRows::into_visibility`] splits it into rows.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct VisRows {
    pub num_clusters: u32,
    /// Bytes per row.
    pub row_len: usize,
    /// Every cluster's PVS row, back to back.
    pub pvs: Vec<u8>,
    /// Every cluster's PAS row, back to back.
    pub pas: Vec<u8>,
}

impl VisRows {
    /// Decodes the lump. `base` is the lump's file offset, for errors.
    pub fn parse(data: &[u8], endian: Endian, base: u64) -> Result<VisRows> {
        if data.is_empty() {
            return Ok(VisRows::default());
        }
        let err = |e| BspError::from_read(VISIBILITY, e);
        let mut r = Reader::with_base(data, base, endian);
        let n = r.u32().map_err(err)?;
        let count = r.check_count(n as u64, 8).map_err(err)?;
        let row_len = (n as usize).div_ceil(8);
        let offsets = row_offsets(r.bytes(count * 8).map_err(err)?, endian);
        let size = count
            .checked_mul(row_len)
            .ok_or_else(|| BspError::lump(VISIBILITY, base, format!("{n} clusters do not fit in memory")))?;
        let (pvs, pas) = decode_rows(data, offsets, size, row_len, base)?;
        Ok(VisRows {
            num_clusters: n,
            row_len,
            pvs,
            pas,
        })
    }

    /// PVS row of cluster `i`.
    pub fn pvs_row(&self, i: usize) -> Option<&[u8]> {
        self.pvs.get(i * self.row_len..(i + 1) * self.row_len)
    }
    /// PAS row of cluster `i`.
    pub fn pas_row(&self, i: usize) -> Option<&[u8]> {
        self.pas.get(i * self.row_len..(i + 1) * self.row_len)
    }
    pub fn can_see(&self, from: usize, to: usize) -> bool {
        bit(self.pvs_row(from), to)
    }
    pub fn can_hear(&self, from: usize, to: usize) -> bool {
        bit(self.pas_row(from), to)
    }

    /// One `Vec` per row.
    pub fn into_visibility(self) -> Visibility {
        let split = |flat: &[u8]| -> Vec<Vec<u8>> {
            if self.row_len == 0 {
                // Zero clusters: no rows.
                return Vec::new();
            }
            flat.chunks_exact(self.row_len).map(<[u8]>::to_vec).collect()
        };
        Visibility {
            num_clusters: self.num_clusters,
            pvs: split(&self.pvs),
            pas: split(&self.pas),
        }
    }
}

/// Each cluster's (PVS, PAS) row offsets, from the table of `bytes`.
fn row_offsets(bytes: &[u8], endian: Endian) -> impl Iterator<Item = (usize, usize)> + '_ {
    let word = move |b: &[u8; 4]| match endian {
        Endian::Little => u32::from_le_bytes(*b),
        Endian::Big => u32::from_be_bytes(*b),
    };
    bytes.as_chunks::<8>().0.iter().map(move |ofs| {
        let (w, _) = ofs.as_chunks::<4>();
        (word(&w[0]) as usize, word(&w[1]) as usize)
    })
}

/// Decodes every cluster's PVS and PAS rows (`size` bytes each, all rows together).
fn decode_rows(
    data: &[u8],
    offsets: impl Iterator<Item = (usize, usize)>,
    size: usize,
    row_len: usize,
    base: u64,
) -> Result<(Vec<u8>, Vec<u8>)> {
    // Real lumps decode to about their own size. Up to a generous multiple of it, zeroed
    // buffers are allocated at once; past that (rows sharing offsets, or a hostile count),
    // they grow row by row, so a damaged lump fails before claiming memory it cannot fill.
    if size > data.len().saturating_mul(64).saturating_add(1 << 16) {
        return decode_rows_growing(data, offsets, row_len, base);
    }
    let (mut pvs, mut pas) = (vec![0u8; size], vec![0u8; size]);
    if row_len > 0 {
        let rows = pvs.chunks_exact_mut(row_len).zip(pas.chunks_exact_mut(row_len));
        for ((pvs_row, pas_row), (a, b)) in rows.zip(offsets) {
            decompress_row(data, a, pvs_row, base)?;
            decompress_row(data, b, pas_row, base)?;
        }
    }
    Ok((pvs, pas))
}

/// [`decode_rows`] growing the buffers row by row.
fn decode_rows_growing(
    data: &[u8],
    offsets: impl Iterator<Item = (usize, usize)>,
    row_len: usize,
    base: u64,
) -> Result<(Vec<u8>, Vec<u8>)> {
    let (mut pvs, mut pas) = (Vec::new(), Vec::new());
    for (a, b) in offsets {
        for (flat, start) in [(&mut pvs, a), (&mut pas, b)] {
            let at = flat.len();
            flat.resize(at + row_len, 0);
            decompress_row(data, start, &mut flat[at..], base)?;
        }
    }
    Ok((pvs, pas))
}

fn bit(row: Option<&[u8]>, to: usize) -> bool {
    row.and_then(|row| row.get(to / 8))
        .is_some_and(|b| b & (1 << (to % 8)) != 0)
}

/// Decodes one row starting at byte `start` of the lump into `out` (zeroed).
fn decompress_row(data: &[u8], start: usize, out: &mut [u8], base: u64) -> Result<()> {
    // Literal bytes are stored, zero runs only move the position in the zeroed row.
    let row_len = out.len();
    let mut p = 0;
    let mut i = start;
    while p < row_len {
        // Copy the run of literal (non-zero) bytes in one go.
        let avail = data
            .get(i..data.len().min(i.saturating_add(row_len - p)))
            .unwrap_or(&[]);
        let literal = crate::entities::find_byte(avail, 0).unwrap_or(avail.len());
        out[p..p + literal].copy_from_slice(&avail[..literal]);
        p += literal;
        i += literal;
        if p >= row_len {
            break;
        }
        let run = zero_run(data, i, base)?;
        i += 2;
        // A run may overshoot the row in files written by some tools; clamp it.
        p += (run as usize).min(row_len - p);
    }
    Ok(())
}

/// The count of the zero run at byte `i` (a zero byte, then the count of zero bytes it stands
/// for).
#[inline]
fn zero_run(data: &[u8], i: usize, base: u64) -> Result<u8> {
    if data.get(i).is_none() {
        return Err(BspError::lump(
            VISIBILITY,
            base + i as u64,
            "compressed visibility row runs past the end of the lump",
        ));
    }
    let Some(&run) = data.get(i + 1) else {
        return Err(BspError::lump(
            VISIBILITY,
            base + i as u64 + 1,
            "zero-run count past the end of the lump",
        ));
    };
    Ok(run)
}

/// Valve's `CompressVis`: non-zero bytes verbatim, runs of zero bytes as `0, count` (≤ 255).
pub fn compress_row(row: &[u8], row_len: usize, out: &mut Vec<u8>) {
    let mut j = 0;
    while j < row_len {
        let b = row.get(j).copied().unwrap_or(0);
        out.push(b);
        j += 1;
        if b != 0 {
            continue;
        }
        let mut rep = 1u8;
        while j < row_len && row.get(j).copied().unwrap_or(0) == 0 && rep < 255 {
            rep += 1;
            j += 1;
        }
        out.push(rep);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn round_trip() {
        let vis = Visibility {
            num_clusters: 20,
            pvs: (0..20)
                .map(|i| vec![1 << (i % 8), 0, if i > 10 { 0xff } else { 0 }])
                .collect(),
            pas: (0..20).map(|_| vec![0xff, 0xff, 0x0f]).collect(),
        };
        let bytes = vis.to_bytes(Endian::Little);
        assert_eq!(Visibility::parse(&bytes, Endian::Little, 0).unwrap(), vis);
        assert!(vis.can_see(3, 3) && !vis.can_see(3, 4));
        assert!(Visibility::parse(&bytes[..bytes.len() - 2], Endian::Little, 0).is_err());
    }

    #[test]
    fn rows_sharing_offsets_and_hostile_counts() {
        // 4096 clusters whose rows all share one compressed row (a zero run per 255 bytes):
        // decodes to far more than the lump's size, through the row-by-row path.
        let n = 4096u32;
        let row_len = (n as usize).div_ceil(8);
        let mut lump = Vec::new();
        lump.extend_from_slice(&n.to_le_bytes());
        let row_at = 4 + 8 * n;
        for _ in 0..n {
            lump.extend_from_slice(&row_at.to_le_bytes());
            lump.extend_from_slice(&row_at.to_le_bytes());
        }
        let mut left = row_len;
        while left > 0 {
            let run = left.min(255);
            lump.extend_from_slice(&[0, run as u8]);
            left -= run;
        }
        let rows = VisRows::parse(&lump, Endian::Little, 0).unwrap();
        assert_eq!(rows.pvs.len(), n as usize * row_len);
        assert!(rows.pvs.iter().chain(&rows.pas).all(|&b| b == 0));
        // The same count with offsets past the end: an error, found on the first row.
        for b in &mut lump[4..4 + 8 * n as usize] {
            *b = 0xff;
        }
        assert!(VisRows::parse(&lump, Endian::Little, 0).is_err());
    }
}
