//! The alpha channel of a VTF's largest mip level (first frame, face and slice): what a light
//! compiler needs to let light through alpha-tested and translucent textures.
//!
//! Image data is stored smallest mip first; within a mip, frames, then faces, then slices.
//! Formats decoded: RGBA8888, ABGR8888, ARGB8888, BGRA8888, BGRX8888 (opaque), DXT1 (and
//! DXT1 with one-bit alpha), DXT3, DXT5, A8, I8/IA88 (intensity: opaque / its alpha byte).

use crate::vtf::{TEXTUREFLAGS_ENVMAP, VtfHeader};
use crate::{ContentError, Result};

/// One alpha byte per texel, row by row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlphaImage {
    pub width: u32,
    pub height: u32,
    pub alpha: Vec<u8>,
}

impl AlphaImage {
    /// The alpha at texture coordinates `uv`, nearest texel, wrapping (as VRAD samples).
    pub fn sample(&self, uv: [f32; 2]) -> u8 {
        let wrap = |x: f32, n: u32| ((x * n as f32).round() as i64).rem_euclid(n as i64) as usize;
        let (u, v) = (wrap(uv[0], self.width), wrap(uv[1], self.height));
        self.alpha[v * self.width as usize + u]
    }
}

/// How a format stores texels: bytes per 4×4 block (compressed) or per texel.
#[derive(Clone, Copy)]
enum Layout {
    Block(usize),
    Texel(usize),
}

/// Image format numbers (`IMAGE_FORMAT_*`) with their layout and the alpha byte's place.
fn layout(format: i32) -> Option<Layout> {
    Some(match format {
        0..=1 | 11..=12 => Layout::Texel(4),
        5 => Layout::Texel(1),  // I8
        6 => Layout::Texel(2),  // IA88
        8 => Layout::Texel(1),  // A8
        16 => Layout::Texel(4), // BGRX8888
        13 | 20 => Layout::Block(8),
        14 | 15 => Layout::Block(16),
        _ => return None,
    })
}

fn bytes_for(layout: Layout, w: usize, h: usize) -> usize {
    match layout {
        Layout::Block(b) => w.div_ceil(4) * h.div_ceil(4) * b,
        Layout::Texel(b) => w * h * b,
    }
}

/// Decodes the alpha of `data`'s largest mip; `name` names the file in errors.
pub fn decode_alpha(data: &[u8], name: &str) -> Result<AlphaImage> {
    let err = |offset: usize, message: String| ContentError::Format {
        path: name.to_string(),
        offset: offset as u64,
        message,
    };
    let h = VtfHeader::parse(data, name)?;
    if h.flags & TEXTUREFLAGS_ENVMAP != 0 {
        return Err(err(20, "a cube map has no alpha for shadows".into()));
    }
    let format = layout(h.high_res_format)
        .ok_or_else(|| err(52, format!("image format {} not decoded", h.high_res_format)))?;
    let (w, hgt) = (h.width as usize, h.height as usize);
    if w == 0 || hgt == 0 {
        return Err(err(16, "zero-sized texture".into()));
    }
    let start = image_start(data, &h, name)?;
    // Saturating: a hostile header's counts must fail the bounds check, not overflow.
    let per_image = |mip: u32| {
        let shrink = |n: usize| n.checked_shr(mip).unwrap_or(0).max(1);
        bytes_for(format, shrink(w), shrink(hgt))
            .saturating_mul(h.frames.max(1) as usize)
            .saturating_mul(h.depth.max(1) as usize)
    };
    let smaller =
        (1..u32::from(h.mipmap_count.max(1))).fold(0usize, |sum, mip| sum.saturating_add(per_image(mip)));
    let at = start.saturating_add(smaller);
    let size = bytes_for(format, w, hgt);
    let texels = data
        .get(at..at.saturating_add(size))
        .ok_or_else(|| err(at, format!("image data ({size} bytes) past the end of the file")))?;
    let mut alpha = vec![255u8; w * hgt];
    match (h.high_res_format, format) {
        (_, Layout::Texel(bpp)) => {
            let place = match h.high_res_format {
                0 | 12 => Some(3),
                1 | 11 => Some(0),
                6 => Some(1),
                8 => Some(0),
                _ => None,
            };
            if let Some(p) = place {
                for (a, t) in alpha.iter_mut().zip(texels.chunks_exact(bpp)) {
                    *a = t[p];
                }
            }
        }
        (f, Layout::Block(bsize)) => {
            let bw = w.div_ceil(4);
            for (bi, block) in texels.chunks_exact(bsize).enumerate() {
                let (bx, by) = (bi % bw * 4, bi / bw * 4);
                let values = match f {
                    14 => dxt3_alpha(block),
                    15 => dxt5_alpha(block),
                    _ => dxt1_alpha(block),
                };
                for (k, a) in values.iter().enumerate() {
                    let (x, y) = (bx + k % 4, by + k / 4);
                    if x < w && y < hgt {
                        alpha[y * w + x] = *a;
                    }
                }
            }
        }
    }
    Ok(AlphaImage {
        width: w as u32,
        height: hgt as u32,
        alpha,
    })
}

/// Where the high-resolution image data begins: after the low-resolution thumbnail (7.0-7.2)
/// or where the resource directory's high-res entry (tag `0x30`) points (7.3+).
fn image_start(data: &[u8], h: &VtfHeader, name: &str) -> Result<usize> {
    if h.version[1] >= 3 {
        let dir = 80usize;
        for i in 0..h.resource_count.min(32) as usize {
            let at = dir + i * 8;
            let entry = data.get(at..at + 8).ok_or_else(|| ContentError::Format {
                path: name.to_string(),
                offset: at as u64,
                message: "resource entry past the end of the file".into(),
            })?;
            if entry[..3] == [0x30, 0, 0] {
                return Ok(u32::from_le_bytes([entry[4], entry[5], entry[6], entry[7]]) as usize);
            }
        }
        return Err(ContentError::Format {
            path: name.to_string(),
            offset: dir as u64,
            message: "no high-resolution image resource".into(),
        });
    }
    let thumb = if h.low_res_format < 0 || h.low_res_width == 0 {
        0
    } else {
        let l = layout(h.low_res_format).unwrap_or(Layout::Block(8));
        bytes_for(l, h.low_res_width as usize, h.low_res_height as usize)
    };
    Ok(h.header_size as usize + thumb)
}

/// DXT1: transparent where the block is in three-colour mode and the index is 3.
fn dxt1_alpha(b: &[u8]) -> [u8; 16] {
    let c0 = u16::from_le_bytes([b[0], b[1]]);
    let c1 = u16::from_le_bytes([b[2], b[3]]);
    let bits = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
    std::array::from_fn(|k| {
        if c0 <= c1 && (bits >> (2 * k)) & 3 == 3 {
            0
        } else {
            255
        }
    })
}

/// DXT3: explicit 4-bit alpha per texel.
fn dxt3_alpha(b: &[u8]) -> [u8; 16] {
    std::array::from_fn(|k| {
        let nibble = (b[k / 2] >> (4 * (k % 2))) & 0xf;
        nibble * 17
    })
}

/// DXT5: two endpoints and 3-bit indices into 8 (or 6 plus 0 and 255) interpolated values.
fn dxt5_alpha(b: &[u8]) -> [u8; 16] {
    let (a0, a1) = (u32::from(b[0]), u32::from(b[1]));
    let mut bits = 0u64;
    for (i, byte) in b[2..8].iter().enumerate() {
        bits |= u64::from(*byte) << (8 * i);
    }
    std::array::from_fn(|k| {
        let i = ((bits >> (3 * k)) & 7) as u32;
        let v = match i {
            0 => a0,
            1 => a1,
            _ if a0 > a1 => ((8 - i) * a0 + (i - 1) * a1) / 7,
            6 => 0,
            7 => 255,
            _ => ((6 - i) * a0 + (i - 1) * a1) / 5,
        };
        v as u8
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dxt5_alpha_endpoints_and_interpolation() {
        // a0 = 255, a1 = 0, indices: texel 0 -> 0 (255), texel 1 -> 1 (0), texel 2 -> 4 (≈146).
        let mut block = [0u8; 16];
        block[0] = 255;
        block[1] = 0;
        let bits: u64 = 1 << 3 | 4 << 6;
        block[2..8].copy_from_slice(&bits.to_le_bytes()[..6]);
        let a = dxt5_alpha(&block);
        assert_eq!((a[0], a[1], a[2]), (255, 0, (4 * 255 / 7) as u8));
        // Six-value mode: indices 6 and 7 are 0 and 255.
        block[0] = 10;
        block[1] = 200;
        let bits: u64 = 6 | 7 << 3;
        block[2..8].copy_from_slice(&bits.to_le_bytes()[..6]);
        let a = dxt5_alpha(&block);
        assert_eq!((a[0], a[1]), (0, 255));
    }

    #[test]
    fn dxt1_is_transparent_only_in_three_colour_mode() {
        let mut block = [0u8; 8];
        block[4] = 0b11; // texel 0 index 3
        // c0 = c1 = 0: three-colour mode.
        assert_eq!(dxt1_alpha(&block)[0], 0);
        block[0] = 1; // c0 > c1: four colours, opaque
        assert_eq!(dxt1_alpha(&block)[0], 255);
    }

    #[test]
    fn truncated_and_unknown_formats_are_errors() {
        let mut v = crate::vtf::build_header(2, 64, 64, 0, [0.5; 3]);
        assert!(decode_alpha(&v, "t.vtf").is_err(), "no image data");
        v[52..56].copy_from_slice(&999i32.to_le_bytes());
        assert!(decode_alpha(&v, "t.vtf").is_err());
        assert!(decode_alpha(b"VTF\0", "t.vtf").is_err());
        // Huge mip, frame and depth counts: an error, not an overflow.
        let mut v = crate::vtf::build_header(2, 65535, 65535, 0, [0.5; 3]);
        v[24..26].copy_from_slice(&u16::MAX.to_le_bytes());
        v[56] = 255;
        v[63..65].copy_from_slice(&u16::MAX.to_le_bytes());
        assert!(decode_alpha(&v, "t.vtf").is_err());
    }

    #[test]
    fn bgra8888_alpha_is_read_from_the_largest_mip() {
        // 2×2, two mips: the 1×1 mip first (alpha 7), then the 2×2 one.
        let mut v = crate::vtf::build_header(2, 2, 2, 0, [0.5; 3]);
        let header_size = v.len() as u32;
        v[12..16].copy_from_slice(&header_size.to_le_bytes());
        v[52..56].copy_from_slice(&12i32.to_le_bytes());
        v[56] = 2;
        v.extend_from_slice(&[0, 0, 0, 7]);
        for a in [0u8, 85, 170, 255] {
            v.extend_from_slice(&[1, 2, 3, a]);
        }
        let img = decode_alpha(&v, "t.vtf").unwrap();
        assert_eq!(
            (img.width, img.height, &img.alpha[..]),
            (2, 2, &[0u8, 85, 170, 255][..])
        );
        // Nearest texel, wrapping.
        assert_eq!(img.sample([0.6, 0.0]), 85);
        assert_eq!(img.sample([1.0, 1.0]), 0);
        assert_eq!(img.sample([-0.5, 0.5]), 255);
    }
}
