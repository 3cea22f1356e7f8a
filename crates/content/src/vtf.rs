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
        let rd = |e: srcmap_bytes::ReadError| ContentError::Format {
            path: name.to_string(),
            offset: e.offset(),
            message: e.to_string(),
        };
        let mut r = Reader::new(data, Endian::Little);
        if r.bytes(4).map_err(rd)? != b"VTF\0" {
            return Err(ContentError::Format {
                path: name.to_string(),
                offset: 0,
                message: "not a VTF file (bad signature)".into(),
            });
        }
        let version = [r.u32().map_err(rd)?, r.u32().map_err(rd)?];
        if version[0] != 7 || version[1] > 5 {
            return Err(ContentError::Format {
                path: name.to_string(),
                offset: 4,
                message: format!("VTF version {}.{} is not supported", version[0], version[1]),
            });
        }
        let mut h = VtfHeader {
            version,
            depth: 1,
            ..Default::default()
        };
        h.header_size = r.u32().map_err(rd)?;
        h.width = r.u16().map_err(rd)?;
        h.height = r.u16().map_err(rd)?;
        h.flags = r.u32().map_err(rd)?;
        h.frames = r.u16().map_err(rd)?;
        h.first_frame = r.u16().map_err(rd)?;
        r.skip(4).map_err(rd)?;
        h.reflectivity = r.vec3().map_err(rd)?;
        r.skip(4).map_err(rd)?;
        h.bumpmap_scale = r.f32().map_err(rd)?;
        h.high_res_format = r.i32().map_err(rd)?;
        h.mipmap_count = r.u8().map_err(rd)?;
        h.low_res_format = r.i32().map_err(rd)?;
        h.low_res_width = r.u8().map_err(rd)?;
        h.low_res_height = r.u8().map_err(rd)?;
        if version[1] >= 2 {
            h.depth = r.u16().map_err(rd)?;
        }
        if version[1] >= 3 {
            r.skip(3).map_err(rd)?;
            h.resource_count = r.u32().map_err(rd)?;
        }
        Ok(h)
    }

    pub fn has_alpha(&self) -> bool {
        self.flags & (TEXTUREFLAGS_ONEBITALPHA | TEXTUREFLAGS_EIGHTBITALPHA) != 0
    }
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
