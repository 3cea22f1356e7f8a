//! VTF pixels (7.0-7.5): one mip level of the first frame, face and slice, decoded to RGBA8.
//!
//! Image data is stored smallest mip first; within a mip, frames, then faces, then slices.
//! Formats decoded: RGBA8888, ABGR8888, ARGB8888, BGRA8888, BGRX8888, RGB888, BGR888 (and
//! their bluescreen forms, opaque), I8, IA88, A8, DXT1 (and DXT1 with one-bit alpha), DXT3,
//! DXT5. Other formats and Strata's 7.6 are [`ContentError::Unsupported`].

use crate::vtf::{Layout, TEXTUREFLAGS_ENVMAP, VtfHeader, format_layout};
use crate::{ContentError, Result};

/// Decoded pixels: `width`×`height`, four bytes (R, G, B, A) per texel, row by row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RgbaImage {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<u8>,
}

/// Where a decoded channel comes from in an uncompressed texel.
#[derive(Clone, Copy)]
enum Channel {
    Byte(usize),
    Fill(u8),
}

/// How a decoded format's texels become RGBA.
#[derive(Clone, Copy)]
enum Decode {
    Plain([Channel; 4]),
    Dxt1,
    Dxt3,
    Dxt5,
}

/// The decoded formats (`IMAGE_FORMAT_*`); their byte sizes come from [`format_layout`].
fn decode_of(format: i32) -> Option<Decode> {
    use Channel::{Byte, Fill};
    Some(match format {
        0 => Decode::Plain([Byte(0), Byte(1), Byte(2), Byte(3)]), // RGBA8888
        1 => Decode::Plain([Byte(3), Byte(2), Byte(1), Byte(0)]), // ABGR8888
        2 | 9 => Decode::Plain([Byte(0), Byte(1), Byte(2), Fill(255)]), // RGB888
        3 | 10 => Decode::Plain([Byte(2), Byte(1), Byte(0), Fill(255)]), // BGR888
        5 => Decode::Plain([Byte(0), Byte(0), Byte(0), Fill(255)]), // I8
        6 => Decode::Plain([Byte(0), Byte(0), Byte(0), Byte(1)]), // IA88
        8 => Decode::Plain([Fill(0), Fill(0), Fill(0), Byte(0)]), // A8
        11 => Decode::Plain([Byte(1), Byte(2), Byte(3), Byte(0)]), // ARGB8888
        12 => Decode::Plain([Byte(2), Byte(1), Byte(0), Byte(3)]), // BGRA8888
        16 => Decode::Plain([Byte(2), Byte(1), Byte(0), Fill(255)]), // BGRX8888
        13 | 20 => Decode::Dxt1,
        14 => Decode::Dxt3,
        15 => Decode::Dxt5,
        _ => return None,
    })
}

/// Decodes the largest mip level no wider or taller than `max_side` (the smallest one if none
/// is); `u32::MAX` gives the largest. `name` names the file in errors.
pub fn decode_rgba(data: &[u8], name: &str, max_side: u32) -> Result<RgbaImage> {
    reject_strata(data, name)?;
    let h = VtfHeader::parse(data, name)?;
    let format = h.high_res_format;
    let (Some(decode), Some((layout, _))) = (decode_of(format), format_layout(format)) else {
        return Err(unsupported(name, 52, format!("image format {format}")));
    };
    let chain = MipChain::of(&h, name)?;
    let level = chain.level_fitting(max_side);
    let offset = image_start(data, &h, name)?.saturating_add(chain.bytes_after(level, layout));
    let (w, hgt) = chain.dims(level);
    let len = layout.bytes(w, hgt);
    let texels = data.get(offset..).and_then(|d| d.get(..len)).ok_or_else(|| {
        format_err(
            name,
            offset,
            format!("mip level {level} ({w}x{hgt}) runs past the end"),
        )
    })?;
    let pixels = decode_texels(decode, layout, texels, w, hgt);
    Ok(RgbaImage {
        width: w as u32,
        height: hgt as u32,
        pixels,
    })
}

fn format_err(name: &str, offset: usize, message: String) -> ContentError {
    ContentError::Format {
        path: name.to_string(),
        offset: offset as u64,
        message,
    }
}

fn unsupported(name: &str, offset: u64, message: String) -> ContentError {
    ContentError::Unsupported {
        path: name.to_string(),
        offset,
        message,
    }
}

/// Fails on Strata's 7.6, which changed the layout.
fn reject_strata(data: &[u8], name: &str) -> Result<()> {
    let le_u32 = |o: usize| {
        data.get(o..o + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    if data.get(..4) == Some(b"VTF\0") && le_u32(4) == Some(7) && le_u32(8).is_some_and(|m| m > 5) {
        return Err(unsupported(
            name,
            8,
            format!("VTF version 7.{}", le_u32(8).unwrap_or(0)),
        ));
    }
    Ok(())
}

/// The high-resolution image's mip levels: the largest's size, the images each level holds
/// (frames × faces × slices) and the level count.
struct MipChain {
    width: usize,
    height: usize,
    images_per_mip: usize,
    mips: u32,
}

impl MipChain {
    fn of(h: &VtfHeader, name: &str) -> Result<MipChain> {
        let (width, height) = (usize::from(h.width), usize::from(h.height));
        if width == 0 || height == 0 {
            return Err(format_err(name, 16, "zero width or height".into()));
        }
        // Cube maps before 7.5 carry a seventh face, the sphere map.
        let faces = match (h.flags & TEXTUREFLAGS_ENVMAP != 0, h.version[1] < 5) {
            (false, _) => 1,
            (true, true) => 7,
            (true, false) => 6,
        };
        Ok(MipChain {
            width,
            height,
            images_per_mip: usize::from(h.frames.max(1)) * faces * usize::from(h.depth.max(1)),
            mips: u32::from(h.mipmap_count.max(1)),
        })
    }

    /// Level `mip`'s size.
    fn dims(&self, mip: u32) -> (usize, usize) {
        let shrink = |n: usize| n.checked_shr(mip).unwrap_or(0).max(1);
        (shrink(self.width), shrink(self.height))
    }

    /// The largest level no wider or taller than `max_side`, else the smallest.
    fn level_fitting(&self, max_side: u32) -> u32 {
        let fits = |mip: u32| {
            let (w, h) = self.dims(mip);
            w <= max_side as usize && h <= max_side as usize
        };
        (0..self.mips).find(|&m| fits(m)).unwrap_or(self.mips - 1)
    }

    /// The bytes of the levels smaller than `level`, stored before it. Saturating: a hostile
    /// header's counts must fail the bounds check, not overflow.
    fn bytes_after(&self, level: u32, layout: Layout) -> usize {
        (level + 1..self.mips).fold(0usize, |sum, m| {
            let (w, h) = self.dims(m);
            sum.saturating_add(layout.bytes(w, h).saturating_mul(self.images_per_mip))
        })
    }
}

/// A `w`×`hgt` level's texels as RGBA.
fn decode_texels(decode: Decode, layout: Layout, texels: &[u8], w: usize, hgt: usize) -> Vec<u8> {
    let mut pixels = vec![0u8; w * hgt * 4];
    match (decode, layout) {
        (Decode::Plain(channels), Layout::Pixel(bytes)) => decode_plain(channels, bytes, texels, &mut pixels),
        (Decode::Plain(_), Layout::Block(_))
        | (Decode::Dxt1 | Decode::Dxt3 | Decode::Dxt5, Layout::Pixel(_)) => {
            unreachable!("decode_of and format_layout agree on which formats are blocks")
        }
        (_, Layout::Block(block)) => decode_blocks(decode, block, texels, (w, hgt), &mut pixels),
    }
    pixels
}

/// Uncompressed texels of `bytes` each, their channels picked or filled.
fn decode_plain(channels: [Channel; 4], bytes: usize, texels: &[u8], pixels: &mut [u8]) {
    for (texel, out) in texels.chunks_exact(bytes).zip(pixels.chunks_exact_mut(4)) {
        for (o, c) in out.iter_mut().zip(channels) {
            *o = match c {
                Channel::Byte(i) => texel[i],
                Channel::Fill(v) => v,
            };
        }
    }
}

/// DXT blocks of `block` bytes, each 4×4 texels, those past the image's `(w, hgt)` dropped.
fn decode_blocks(decode: Decode, block: usize, texels: &[u8], (w, hgt): (usize, usize), pixels: &mut [u8]) {
    let blocks_wide = w.div_ceil(4);
    for (b, chunk) in texels.chunks_exact(block).enumerate() {
        let (bx, by) = (b % blocks_wide * 4, b / blocks_wide * 4);
        let texels = dxt_block(decode, chunk);
        for (k, rgba) in texels.iter().enumerate() {
            let (x, y) = (bx + k % 4, by + k / 4);
            if x < w && y < hgt {
                pixels[(y * w + x) * 4..][..4].copy_from_slice(rgba);
            }
        }
    }
}

/// Where the high-resolution image data begins: after the low-resolution thumbnail (7.0-7.2)
/// or where the resource directory's high-res entry (tag `0x30`) points (7.3+).
fn image_start(data: &[u8], h: &VtfHeader, name: &str) -> Result<usize> {
    let err = |offset: usize, message: &str| ContentError::Format {
        path: name.to_string(),
        offset: offset as u64,
        message: message.into(),
    };
    if h.version[1] >= 3 {
        const DIRECTORY: usize = 80;
        for i in 0..h.resource_count.min(32) as usize {
            let at = DIRECTORY + i * 8;
            let entry = data
                .get(at..at + 8)
                .ok_or_else(|| err(at, "resource entry past the end of the file"))?;
            if entry[..3] == [0x30, 0, 0] {
                return Ok(u32::from_le_bytes([entry[4], entry[5], entry[6], entry[7]]) as usize);
            }
        }
        return Err(err(DIRECTORY, "no high-resolution image resource"));
    }
    let thumbnail = if h.low_res_format < 0 || h.low_res_width == 0 {
        0
    } else {
        // Valve's thumbnails are DXT1; an unknown format is taken as one too.
        let (layout, _) = format_layout(h.low_res_format).unwrap_or((Layout::Block(8), 0));
        layout.bytes(h.low_res_width.into(), h.low_res_height.into())
    };
    Ok(h.header_size as usize + thumbnail)
}

/// The 16 RGBA texels of one DXT block (`block` is 8 bytes for DXT1, 16 for DXT3/5).
fn dxt_block(decode: Decode, block: &[u8]) -> [[u8; 4]; 16] {
    // The colour half is the last 8 bytes in DXT3/5 and the whole block in DXT1.
    let colour = &block[block.len() - 8..];
    let dxt1 = matches!(decode, Decode::Dxt1);
    let colours = dxt_colours(colour, dxt1);
    let bits = u32::from_le_bytes([colour[4], colour[5], colour[6], colour[7]]);
    let alpha = match decode {
        Decode::Dxt3 => dxt3_alpha(block),
        Decode::Dxt5 => dxt5_alpha(block),
        _ => [255; 16],
    };
    std::array::from_fn(|k| {
        let [r, g, b, a] = colours[((bits >> (2 * k)) & 3) as usize];
        [r, g, b, a.min(alpha[k])]
    })
}

/// The four colours of a DXT colour block: two RGB565 end points and two blends; with
/// `c0 <= c1` DXT1 has one blend and transparent black.
fn dxt_colours(b: &[u8], dxt1: bool) -> [[u8; 4]; 4] {
    let c0 = u16::from_le_bytes([b[0], b[1]]);
    let c1 = u16::from_le_bytes([b[2], b[3]]);
    let rgb = |c: u16| {
        let (r, g, bl) = ((c >> 11) & 31, (c >> 5) & 63, c & 31);
        [(r * 255 / 31) as u8, (g * 255 / 63) as u8, (bl * 255 / 31) as u8]
    };
    let (a, b) = (rgb(c0), rgb(c1));
    let mix = |wa: u16, wb: u16| {
        let [r, g, b] = [0, 1, 2].map(|k| ((a[k] as u16 * wa + b[k] as u16 * wb) / (wa + wb)) as u8);
        [r, g, b, 255]
    };
    let opaque = |[r, g, b]: [u8; 3]| [r, g, b, 255];
    if c0 > c1 || !dxt1 {
        [opaque(a), opaque(b), mix(2, 1), mix(1, 2)]
    } else {
        [opaque(a), opaque(b), mix(1, 1), [0, 0, 0, 0]]
    }
}

/// DXT3: explicit 4-bit alpha per texel.
fn dxt3_alpha(b: &[u8]) -> [u8; 16] {
    std::array::from_fn(|k| ((b[k / 2] >> (4 * (k % 2))) & 0xf) * 17)
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

/// One alpha byte per texel, row by row: what a light compiler needs to let light through
/// alpha-tested and translucent textures.
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

/// The alpha channel of `data`'s largest mip level; cube maps are refused (no surface casts
/// shadows through one).
pub fn decode_alpha(data: &[u8], name: &str) -> Result<AlphaImage> {
    let h = VtfHeader::parse(data, name)?;
    if h.flags & TEXTUREFLAGS_ENVMAP != 0 {
        return Err(ContentError::Unsupported {
            path: name.to_string(),
            offset: 20,
            message: "a cube map has no alpha for shadows".into(),
        });
    }
    let image = decode_rgba(data, name, u32::MAX)?;
    Ok(AlphaImage {
        width: image.width,
        height: image.height,
        alpha: image.pixels.chunks_exact(4).map(|p| p[3]).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 7.2 VTF of one mip level in `format` with `texels`.
    fn vtf(format: i32, w: u16, h: u16, texels: &[u8]) -> Vec<u8> {
        let mut d = crate::vtf::build_header(2, w, h, 0, [0.5; 3]);
        d[52..56].copy_from_slice(&format.to_le_bytes());
        d[56] = 1; // one mip level
        d[57..61].copy_from_slice(&(-1i32).to_le_bytes()); // no thumbnail
        let header_size = d.len() as u32;
        d[12..16].copy_from_slice(&header_size.to_le_bytes());
        d.extend_from_slice(texels);
        d
    }

    #[test]
    fn bgr888_and_dxt1_colours() {
        let px: Vec<u8> = (0..16).flat_map(|i| [i as u8, 100, 200]).collect();
        let img = decode_rgba(&vtf(3, 4, 4, &px), "t", 64).unwrap();
        assert_eq!(&img.pixels[..8], &[200, 100, 0, 255, 200, 100, 1, 255]);
        // DXT1: end points pure red and pure blue, every texel index 0 then the last index 1.
        let mut block = Vec::new();
        block.extend_from_slice(&0xF800u16.to_le_bytes());
        block.extend_from_slice(&0x001Fu16.to_le_bytes());
        block.extend_from_slice(&(1u32 << 30).to_le_bytes());
        let img = decode_rgba(&vtf(13, 4, 4, &block), "t", 64).unwrap();
        assert_eq!(&img.pixels[..4], &[255, 0, 0, 255]);
        assert_eq!(&img.pixels[60..64], &[0, 0, 255, 255]);
    }

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
        // Through the whole decoder: the alpha lands in the fourth byte of each texel.
        let img = decode_rgba(&vtf(15, 4, 4, &block), "t", 64).unwrap();
        assert_eq!(
            (img.pixels[3], img.pixels[7], img.pixels[11]),
            (255, 0, (4 * 255 / 7) as u8)
        );
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
        // c0 = c1 = 0: three-colour mode, index 3 is transparent black.
        let img = decode_alpha(&vtf(13, 4, 4, &block), "t").unwrap();
        assert_eq!((img.alpha[0], img.alpha[1]), (0, 255));
        block[0] = 1; // c0 > c1: four colours, opaque
        let img = decode_alpha(&vtf(13, 4, 4, &block), "t").unwrap();
        assert_eq!(img.alpha[0], 255);
        // DXT3/5 colour halves never use three-colour mode.
        assert_eq!(dxt_block(Decode::Dxt3, &[[0u8; 8], block].concat())[0][3], 0);
        assert_eq!(
            dxt_block(Decode::Dxt3, &[[0xffu8; 8], [0, 0, 0, 0, 3, 0, 0, 0]].concat())[0][3],
            255
        );
    }

    /// The byte offset an error names.
    fn offset_of(e: ContentError) -> u64 {
        match e {
            ContentError::Format { offset, .. } | ContentError::Unsupported { offset, .. } => offset,
            other => panic!("unexpected error {other}"),
        }
    }

    #[test]
    fn truncated_and_unknown_formats_are_errors_naming_the_offset() {
        let block = [0u8; 8];
        let v = vtf(13, 8, 8, &block);
        // Four blocks needed, one present: the error names where the level starts.
        assert_eq!(
            offset_of(decode_rgba(&v, "t", 64).unwrap_err()),
            v.len() as u64 - 8
        );
        let mut v = crate::vtf::build_header(2, 64, 64, 0, [0.5; 3]);
        assert!(decode_alpha(&v, "t.vtf").is_err(), "no image data");
        v[52..56].copy_from_slice(&999i32.to_le_bytes());
        let e = decode_rgba(&v, "t.vtf", 64).unwrap_err();
        assert!(matches!(e, ContentError::Unsupported { offset: 52, .. }), "{e}");
        assert!(decode_alpha(b"VTF\0", "t.vtf").is_err());
        // 7.6 is not decoded, and says so.
        let mut v = crate::vtf::build_header(5, 4, 4, 0, [0.5; 3]);
        v[8] = 6;
        assert!(matches!(
            decode_rgba(&v, "t", 64),
            Err(ContentError::Unsupported { offset: 8, .. })
        ));
        // Huge mip, frame and depth counts: an error, not an overflow.
        let mut v = crate::vtf::build_header(2, 65535, 65535, 0, [0.5; 3]);
        v[24..26].copy_from_slice(&u16::MAX.to_le_bytes());
        v[56] = 255;
        v[63..65].copy_from_slice(&u16::MAX.to_le_bytes());
        assert!(decode_alpha(&v, "t.vtf").is_err());
        assert!(decode_rgba(&v, "t.vtf", 1).is_err());
    }

    #[test]
    fn mip_choice_and_bgra8888_alpha_of_the_largest() {
        // 2×2, two mips: the 1×1 mip first (alpha 7), then the 2×2 one.
        let mut v = vtf(12, 2, 2, &[9, 8, 6, 7]);
        v[56] = 2;
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
        // A side limit of 1 picks the 1×1 mip; of 0, the smallest there is.
        for limit in [1, 0] {
            let small = decode_rgba(&v, "t.vtf", limit).unwrap();
            assert_eq!(
                (small.width, small.height, &small.pixels[..]),
                (1, 1, &[6u8, 8, 9, 7][..])
            );
        }
        // A cube map has no alpha for shadows.
        v[20..24].copy_from_slice(&TEXTUREFLAGS_ENVMAP.to_le_bytes());
        assert!(decode_alpha(&v, "t.vtf").is_err());
    }

    #[test]
    fn default_cube_map_decodes_black_from_its_own_offsets() {
        // A 7.4 cube map: seven faces per mip, so the largest mip ends exactly at the file end.
        let cube = crate::vtf::default_cubemap(3, 0x434c, 1).unwrap();
        let img = decode_rgba(&cube, "c.vtf", 64).unwrap();
        assert_eq!((img.width, img.height), (32, 32));
        assert!(img.pixels.chunks_exact(4).all(|p| p == [0, 0, 0, 255]));
        let mut short = cube.clone();
        short.truncate(cube.len() - 32 * 32 * 3 * 6 - 1);
        assert!(decode_rgba(&short, "c.vtf", 64).is_err());
    }
}
