//! Texture pixels from VTF files (7.0-7.5): one mip level of the first frame, face and slice,
//! decoded to RGB for the common formats (DXT1/3/5, 8-bit RGB(A) orders, I8, IA88).

use crate::ExportError;
use crate::image::Rgb8;

/// What a material's texture lookup found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextureLookup {
    /// Decoded pixels.
    Found(Rgb8),
    /// Looked for where textures are and not there: drawn as a checkerboard.
    Missing,
    /// Not looked for, or in a format not decoded: a flat colour from the reflectivity.
    Unknown,
}

/// `IMAGE_FORMAT_*` values decoded here: bytes per pixel (block bytes for DXT) and layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    /// Channel order of `n` bytes: indices of R, G, B within the pixel.
    Plain {
        bytes: usize,
        rgb: [usize; 3],
    },
    Dxt {
        block: usize,
    },
}

fn format(id: i32) -> Option<Format> {
    Some(match id {
        0 => Format::Plain {
            bytes: 4,
            rgb: [0, 1, 2],
        }, // RGBA8888
        1 => Format::Plain {
            bytes: 4,
            rgb: [3, 2, 1],
        }, // ABGR8888
        2 | 9 => Format::Plain {
            bytes: 3,
            rgb: [0, 1, 2],
        }, // RGB888
        3 | 10 => Format::Plain {
            bytes: 3,
            rgb: [2, 1, 0],
        }, // BGR888
        5 => Format::Plain {
            bytes: 1,
            rgb: [0, 0, 0],
        }, // I8
        6 => Format::Plain {
            bytes: 2,
            rgb: [0, 0, 0],
        }, // IA88
        11 => Format::Plain {
            bytes: 4,
            rgb: [1, 2, 3],
        }, // ARGB8888
        12 | 16 => Format::Plain {
            bytes: 4,
            rgb: [2, 1, 0],
        }, // BGRA/BGRX8888
        13 | 20 => Format::Dxt { block: 8 },  // DXT1
        14 | 15 => Format::Dxt { block: 16 }, // DXT3, DXT5
        _ => return None,
    })
}

fn level_bytes(f: Format, w: usize, h: usize) -> usize {
    match f {
        Format::Plain { bytes, .. } => w * h * bytes,
        Format::Dxt { block } => w.div_ceil(4) * h.div_ceil(4) * block,
    }
}

fn le_u32(d: &[u8], o: usize) -> Option<u32> {
    d.get(o..o + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Decodes the largest mip level no wider or taller than `max_side` (the smallest one if none
/// is). `Ok(None)` for formats not decoded here (HDR, 16-bit, bump formats).
pub fn decode_vtf(data: &[u8], name: &str, max_side: u32) -> Result<Option<Rgb8>, ExportError> {
    let err = |offset: usize, message: String| ExportError::Vtf {
        path: name.to_string(),
        offset,
        message,
    };
    // Strata's 7.6 changed the layout: not decoded (a flat colour), not an error.
    if data.get(..4) == Some(b"VTF\0") && le_u32(data, 4) == Some(7) && le_u32(data, 8).is_some_and(|m| m > 5)
    {
        return Ok(None);
    }
    let h = srcmap_content::vtf::VtfHeader::parse(data, name)?;
    let Some(fmt) = format(h.high_res_format) else {
        return Ok(None);
    };
    let (w0, h0) = (usize::from(h.width), usize::from(h.height));
    if w0 == 0 || h0 == 0 {
        return Err(err(16, "zero width or height".into()));
    }
    let mips = usize::from(h.mipmap_count.max(1)).min(16);
    let faces = if h.flags & srcmap_content::vtf::TEXTUREFLAGS_ENVMAP != 0 {
        6
    } else {
        1
    };
    let per_level = usize::from(h.frames.max(1)) * faces * usize::from(h.depth.max(1));
    // Where the high-resolution data starts: a resource entry (7.3+), or after the header
    // and the low-resolution thumbnail (DXT1).
    let start = if h.version[1] >= 3 {
        let mut found = None;
        for k in 0..h.resource_count.min(32) as usize {
            let o = 80 + k * 8;
            let tag = data
                .get(o..o + 3)
                .ok_or_else(|| err(o, "resource table runs past the end".into()))?;
            if tag == [0x30, 0, 0] {
                found = Some(
                    le_u32(data, o + 4).ok_or_else(|| err(o + 4, "truncated resource entry".into()))?
                        as usize,
                );
            }
        }
        found.ok_or_else(|| err(80, "no high-resolution image resource".into()))?
    } else {
        let low = if h.low_res_format == 13 {
            level_bytes(
                Format::Dxt { block: 8 },
                h.low_res_width.into(),
                h.low_res_height.into(),
            )
        } else {
            0
        };
        h.header_size as usize + low
    };
    let dims = |m: usize| ((w0 >> m).max(1), (h0 >> m).max(1));
    let level = (0..mips)
        .find(|&m| dims(m).0 <= max_side as usize && dims(m).1 <= max_side as usize)
        .unwrap_or(mips - 1);
    // Levels are stored smallest first.
    let offset = start
        + (level + 1..mips)
            .map(|m| level_bytes(fmt, dims(m).0, dims(m).1) * per_level)
            .sum::<usize>();
    let (w, hgt) = dims(level);
    let len = level_bytes(fmt, w, hgt);
    let pixels = data
        .get(offset..)
        .and_then(|d| d.get(..len))
        .ok_or_else(|| err(offset, format!("mip level {level} ({w}x{hgt}) runs past the end")))?;
    let mut out = vec![0u8; w * hgt * 3];
    match fmt {
        Format::Plain { bytes, rgb } => {
            for (px, dst) in pixels.chunks_exact(bytes).zip(out.chunks_exact_mut(3)) {
                dst.copy_from_slice(&rgb.map(|c| px[c]));
            }
        }
        Format::Dxt { block } => {
            for (b, chunk) in pixels.chunks_exact(block).enumerate() {
                let (bx, by) = (b % w.div_ceil(4) * 4, b / w.div_ceil(4) * 4);
                // The colour half is the last 8 bytes in DXT3/5 and the whole block in DXT1.
                let colours = dxt_colours(&chunk[block - 8..], block == 8);
                let bits = u32::from_le_bytes([
                    chunk[block - 4],
                    chunk[block - 3],
                    chunk[block - 2],
                    chunk[block - 1],
                ]);
                for k in 0..16 {
                    let (x, y) = (bx + k % 4, by + k / 4);
                    if x < w && y < hgt {
                        let c = colours[((bits >> (2 * k)) & 3) as usize];
                        out[(y * w + x) * 3..(y * w + x) * 3 + 3].copy_from_slice(&c);
                    }
                }
            }
        }
    }
    Ok(Some(Rgb8 {
        width: w as u32,
        height: hgt as u32,
        pixels: out,
    }))
}

/// The four colours of a DXT colour block (two RGB565 end points and two blends; DXT1 with
/// `c0 <= c1` has one blend and black).
fn dxt_colours(b: &[u8], dxt1: bool) -> [[u8; 3]; 4] {
    let c0 = u16::from_le_bytes([b[0], b[1]]);
    let c1 = u16::from_le_bytes([b[2], b[3]]);
    let rgb = |c: u16| {
        let (r, g, bl) = ((c >> 11) & 31, (c >> 5) & 63, c & 31);
        [(r * 255 / 31) as u8, (g * 255 / 63) as u8, (bl * 255 / 31) as u8]
    };
    let (a, b) = (rgb(c0), rgb(c1));
    let mix = |wa: u16, wb: u16| [0, 1, 2].map(|k| ((a[k] as u16 * wa + b[k] as u16 * wb) / (wa + wb)) as u8);
    if c0 > c1 || !dxt1 {
        [a, b, mix(2, 1), mix(1, 2)]
    } else {
        [a, b, mix(1, 1), [0, 0, 0]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 7.2 VTF of one 4×4 level in `format` with `pixels`.
    fn vtf(format: i32, w: u16, h: u16, pixels: &[u8]) -> Vec<u8> {
        let mut d = srcmap_content::vtf::build_header(2, w, h, 0, [0.5; 3]);
        d[52..56].copy_from_slice(&format.to_le_bytes());
        d[56] = 1; // one mip level
        d[57..61].copy_from_slice(&(-1i32).to_le_bytes()); // no thumbnail
        let header_size = d.len() as u32;
        d[12..16].copy_from_slice(&header_size.to_le_bytes());
        d.extend_from_slice(pixels);
        d
    }

    #[test]
    fn bgr888_and_dxt1_decode() {
        let px: Vec<u8> = (0..16).flat_map(|i| [i as u8, 100, 200]).collect();
        let img = decode_vtf(&vtf(3, 4, 4, &px), "t", 64).unwrap().unwrap();
        assert_eq!(&img.pixels[..6], &[200, 100, 0, 200, 100, 1]);
        // DXT1: end points pure red and pure blue, every texel index 0 then the last index 1.
        let mut block = Vec::new();
        block.extend_from_slice(&0xF800u16.to_le_bytes());
        block.extend_from_slice(&0x001Fu16.to_le_bytes());
        block.extend_from_slice(&(1u32 << 30).to_le_bytes());
        let img = decode_vtf(&vtf(13, 4, 4, &block), "t", 64).unwrap().unwrap();
        assert_eq!(&img.pixels[..3], &[255, 0, 0]);
        assert_eq!(&img.pixels[45..48], &[0, 0, 255]);
        // Truncated pixel data is an error naming the offset, not a panic.
        assert!(decode_vtf(&vtf(13, 8, 8, &block), "t", 64).is_err());
    }
}
