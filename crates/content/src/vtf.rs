//! VTF texture headers (versions 7.0-7.5): size, flags, frames, reflectivity, formats.

use srcmap_bytes::{Endian, Reader};

use crate::{ContentError, Result};

/// The fields of `VTFFileHeader_t` tools need.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct VtfHeader {
    pub version: [u32; 2],
    pub header_size: u32,
    pub width: u16,
    pub height: u16,
    /// `TEXTUREFLAGS_*`.
    pub flags: u32,
    pub frames: u16,
    pub first_frame: u16,
    /// Average linear colour, what vrad uses for bounced light.
    pub reflectivity: [f32; 3],
    pub bumpmap_scale: f32,
    pub high_res_format: i32,
    pub mipmap_count: u8,
    pub low_res_format: i32,
    pub low_res_width: u8,
    pub low_res_height: u8,
    /// 7.2+: depth of volume textures (1 otherwise).
    pub depth: u16,
    /// 7.3+: number of resource entries.
    pub resource_count: u32,
}

/// Texture flags the compiler cares about.
pub const TEXTUREFLAGS_ONEBITALPHA: u32 = 0x1000;
pub const TEXTUREFLAGS_EIGHTBITALPHA: u32 = 0x2000;
pub const TEXTUREFLAGS_ENVMAP: u32 = 0x4000;

impl VtfHeader {
    pub fn parse(data: &[u8], name: &str) -> Result<VtfHeader> {
        let rd = read_err(name);
        let mut r = Reader::new(data, Endian::Little);
        let version = read_version(&mut r, name)?;
        let mut h = VtfHeader {
            version,
            depth: 1,
            ..Default::default()
        };
        h.header_size = r.u32().map_err(&rd)?;
        h.width = r.u16().map_err(&rd)?;
        h.height = r.u16().map_err(&rd)?;
        h.flags = r.u32().map_err(&rd)?;
        h.frames = r.u16().map_err(&rd)?;
        h.first_frame = r.u16().map_err(&rd)?;
        r.skip(4).map_err(&rd)?;
        h.reflectivity = r.vec3().map_err(&rd)?;
        r.skip(4).map_err(&rd)?;
        h.bumpmap_scale = r.f32().map_err(&rd)?;
        h.high_res_format = r.i32().map_err(&rd)?;
        h.mipmap_count = r.u8().map_err(&rd)?;
        h.low_res_format = r.i32().map_err(&rd)?;
        h.low_res_width = r.u8().map_err(&rd)?;
        h.low_res_height = r.u8().map_err(&rd)?;
        read_later_fields(&mut r, &mut h, name)?;
        Ok(h)
    }

    pub fn has_alpha(&self) -> bool {
        self.flags & (TEXTUREFLAGS_ONEBITALPHA | TEXTUREFLAGS_EIGHTBITALPHA) != 0
    }
}

/// A read error in the file `name`, as a format error.
fn read_err(name: &str) -> impl Fn(srcmap_bytes::ReadError) -> ContentError + '_ {
    move |e| ContentError::Format {
        path: name.to_string(),
        offset: e.offset(),
        message: e.to_string(),
    }
}

/// The fields later versions add: depth (7.2) and the resource count (7.3).
fn read_later_fields(r: &mut Reader<'_>, h: &mut VtfHeader, name: &str) -> Result<()> {
    let rd = read_err(name);
    if h.version[1] >= 2 {
        h.depth = r.u16().map_err(&rd)?;
    }
    if h.version[1] >= 3 {
        r.skip(3).map_err(&rd)?;
        h.resource_count = r.u32().map_err(&rd)?;
    }
    Ok(())
}

/// The signature (`VTF\0`) and a supported version (7.0 to 7.5).
fn read_version(r: &mut Reader<'_>, name: &str) -> Result<[u32; 2]> {
    let rd = read_err(name);
    if r.bytes(4).map_err(&rd)? != b"VTF\0" {
        return Err(ContentError::Format {
            path: name.to_string(),
            offset: 0,
            message: "not a VTF file (bad signature)".into(),
        });
    }
    let version = [r.u32().map_err(&rd)?, r.u32().map_err(&rd)?];
    if version[0] != 7 || version[1] > 5 {
        return Err(ContentError::Format {
            path: name.to_string(),
            offset: 4,
            message: format!("VTF version {}.{} is not supported", version[0], version[1]),
        });
    }
    Ok(version)
}

/// A minimal VTF 7.x header for tests and tools (no image data).
pub fn build_header(minor: u32, width: u16, height: u16, flags: u32, reflectivity: [f32; 3]) -> Vec<u8> {
    let mut w = srcmap_bytes::Writer::new(Endian::Little);
    w.bytes(b"VTF\0");
    w.u32(7);
    w.u32(minor);
    w.u32(if minor >= 3 { 80 } else { 64 });
    w.u16(width);
    w.u16(height);
    w.u32(flags);
    w.u16(1);
    w.u16(0);
    w.bytes(&[0; 4]);
    w.vec3(reflectivity);
    w.bytes(&[0; 4]);
    w.f32(1.0);
    w.i32(13);
    w.u8(1);
    w.i32(-1);
    w.u8(0);
    w.u8(0);
    if minor >= 2 {
        w.u16(1);
    }
    if minor >= 3 {
        w.bytes(&[0; 3]);
        w.u32(0);
    }
    w.align(16);
    w.into_inner()
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn header_round_trip() {
        for minor in 0..=5 {
            let b = build_header(minor, 512, 256, TEXTUREFLAGS_EIGHTBITALPHA, [0.25, 0.5, 0.75]);
            let h = VtfHeader::parse(&b, "t.vtf").unwrap();
            assert_eq!((h.width, h.height, h.version), (512, 256, [7, minor]));
            assert_eq!(h.reflectivity, [0.25, 0.5, 0.75]);
            assert!(h.has_alpha());
            assert!(VtfHeader::parse(&b[..20], "t.vtf").is_err());
        }
    }
}

/// Valve's image formats (`IMAGE_FORMAT_*`): bytes per pixel or per 4×4 block (DXT), and the
/// alpha flag a texture of the format carries.
pub(crate) fn format_layout(format: i32) -> Option<(Layout, u32)> {
    use Layout::{Block, Pixel};
    const NONE: u32 = 0;
    const ONE: u32 = TEXTUREFLAGS_ONEBITALPHA;
    const EIGHT: u32 = TEXTUREFLAGS_EIGHTBITALPHA;
    Some(match format {
        0 | 1 | 11 | 12 => (Pixel(4), EIGHT), // RGBA8888, ABGR8888, ARGB8888, BGRA8888
        2 | 3 | 9 | 10 => (Pixel(3), NONE),   // RGB888, BGR888 and their bluescreen forms
        4 | 17 | 22 => (Pixel(2), NONE),      // RGB565, BGR565, UV88
        5 | 7 => (Pixel(1), NONE),            // I8, P8
        6 => (Pixel(2), EIGHT),               // IA88
        8 => (Pixel(1), EIGHT),               // A8
        16 | 23 | 26 => (Pixel(4), NONE),     // BGRX8888, UVWQ8888, UVLX8888
        18 => (Pixel(2), NONE),               // BGRX5551
        19 => (Pixel(2), EIGHT),              // BGRA4444
        21 => (Pixel(2), ONE),                // BGRA5551
        24 | 25 => (Pixel(8), EIGHT),         // RGBA16161616F, RGBA16161616
        13 => (Block(8), NONE),               // DXT1
        20 => (Block(8), ONE),                // DXT1 with one-bit alpha
        14 | 15 => (Block(16), EIGHT),        // DXT3, DXT5
        _ => return None,
    })
}

#[derive(Clone, Copy)]
pub(crate) enum Layout {
    Pixel(usize),
    Block(usize),
}

impl Layout {
    /// Bytes of one `width`×`height` image (saturating: hostile sizes fail bounds checks).
    pub(crate) fn bytes(self, width: usize, height: usize) -> usize {
        match self {
            Layout::Pixel(bytes) => width.saturating_mul(height).saturating_mul(bytes),
            Layout::Block(bytes) => width
                .div_ceil(4)
                .saturating_mul(height.div_ceil(4))
                .saturating_mul(bytes),
        }
    }
}

/// One 4×4 block of black as Valve's DXT compressor writes it (seen in its default cubemaps:
/// the DXT5 alpha half has both end points 0 and every index 1; the colour half both end
/// points black and every index 2).
fn black_block(format: i32) -> &'static [u8] {
    const COLOUR: [u8; 8] = [0, 0, 0, 0, 0xaa, 0xaa, 0xaa, 0xaa];
    const DXT5: [u8; 16] = [
        0, 0, 0x49, 0x92, 0x24, 0x49, 0x92, 0x24, 0, 0, 0, 0, 0xaa, 0xaa, 0xaa, 0xaa,
    ];
    const DXT3: [u8; 16] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xaa, 0xaa, 0xaa, 0xaa];
    match format {
        15 => &DXT5,
        14 => &DXT3,
        _ => &COLOUR,
    }
}

/// Side of Valve's default cube map (`DEFAULT_CUBEMAP_SIZE`).
pub const DEFAULT_CUBEMAP_SIZE: u16 = 32;

/// The flags of a default cube map in `format` made from sky textures whose flags, OR-ed
/// together, are `sky_flags`: an environment map whose alpha flag is its format's.
pub fn default_cubemap_flags(format: i32, sky_flags: u32) -> Option<u32> {
    let (_, alpha) = format_layout(format)?;
    Some((sky_flags | TEXTUREFLAGS_ENVMAP) & !(TEXTUREFLAGS_ONEBITALPHA | TEXTUREFLAGS_EIGHTBITALPHA) | alpha)
}

/// The default cube map Valve's vbsp writes into the pakfile (`cubemapdefault.vtf` and a copy
/// per cubemap a patched material names), as the SDK 2013 tools make it: a VTF 7.4 of
/// 32×32 faces, six of them and the sphere map, every mip level, all black (Valve's code
/// fills it with black until the engine's `buildcubemaps` replaces it). `None` for a format
/// it cannot lay out.
pub fn default_cubemap(format: i32, flags: u32, frames: u16) -> Option<Vec<u8>> {
    let (layout, _) = format_layout(format)?;
    let mips = (DEFAULT_CUBEMAP_SIZE.trailing_zeros() + 1) as u8;
    let mut out = Vec::with_capacity(32 * 1024);
    push_default_cubemap_header(&mut out, format, flags, frames, mips);
    // Smallest mip first; each mip holds every frame's seven faces.
    for mip in (0..mips).rev() {
        let side = (DEFAULT_CUBEMAP_SIZE >> mip).max(1) as usize;
        let face = match layout {
            Layout::Pixel(bytes) => vec![0u8; side * side * bytes],
            Layout::Block(_) => black_block(format).repeat(side.div_ceil(4).pow(2)),
        };
        for _ in 0..frames as usize * 7 {
            out.extend_from_slice(&face);
        }
    }
    Some(out)
}

/// The default cube map's 7.4 header, its one resource the image right after it.
fn push_default_cubemap_header(out: &mut Vec<u8>, format: i32, flags: u32, frames: u16, mips: u8) {
    const HEADER: u32 = 88;
    out.extend_from_slice(b"VTF\0");
    for v in [7u32, 4, HEADER] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&DEFAULT_CUBEMAP_SIZE.to_le_bytes());
    out.extend_from_slice(&DEFAULT_CUBEMAP_SIZE.to_le_bytes());
    out.extend_from_slice(&flags.to_le_bytes());
    out.extend_from_slice(&frames.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes()); // first frame
    out.extend_from_slice(&[0; 4]);
    for _ in 0..3 {
        out.extend_from_slice(&1.0f32.to_le_bytes()); // reflectivity
    }
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&1.0f32.to_le_bytes()); // bumpmap scale
    out.extend_from_slice(&format.to_le_bytes());
    out.push(mips);
    out.extend_from_slice(&(-1i32).to_le_bytes()); // no low-resolution image
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&1u16.to_le_bytes()); // depth
    out.extend_from_slice(&[0; 3]);
    out.extend_from_slice(&1u32.to_le_bytes()); // one resource: the image
    out.extend_from_slice(&[0; 8]);
    out.extend_from_slice(&[0x30, 0, 0, 0]);
    out.extend_from_slice(&HEADER.to_le_bytes());
    debug_assert_eq!(out.len(), HEADER as usize);
}

#[cfg(test)]
mod default_cubemap_tests {
    use super::*;

    #[test]
    fn sizes_and_header_read_back() {
        // Valve's BGR888 and DXT5 default cube maps are 28753 and 9832 bytes.
        let bgr = default_cubemap(3, 0x434c, 1).unwrap();
        assert_eq!(bgr.len(), 28753);
        assert!(bgr[88..].iter().all(|&b| b == 0));
        let dxt5 = default_cubemap(15, 0x634c, 1).unwrap();
        assert_eq!(dxt5.len(), 9832);
        let h = VtfHeader::parse(&dxt5, "d.vtf").unwrap();
        assert_eq!(
            (h.width, h.height, h.flags, h.frames, h.mipmap_count),
            (32, 32, 0x634c, 1, 6)
        );
        assert_eq!((h.high_res_format, h.resource_count, h.header_size), (15, 1, 88));
        assert_eq!(default_cubemap(24, 0x434c, 1).unwrap().len(), 76528);
        assert!(default_cubemap(99, 0, 1).is_none());
        assert_eq!(default_cubemap_flags(15, 0x034c), Some(0x634c));
        assert_eq!(default_cubemap_flags(3, 0x234c), Some(0x434c));
    }
}
