//! One collision solid: `collideheader_t` + `compactsurfaceheader_t` (the `VPHY` form) or,
//! in the legacy form, the compact surface alone.

use serde::Serialize;

use crate::error::{PhysError, Result};
use crate::surface::{CompactSurface, IVPS};

/// Size of the `VPHY` headers before an IVP compact surface.
pub const COLLIDE_HEADER_SIZE: usize = 28;
/// Size of the `VPHY` header before a MOPP surface (no drag areas).
pub const MOPP_HEADER_SIZE: usize = 12;
/// The only collide version whose surfaces are read.
pub const COLLIDE_VERSION: i16 = 0x100;
/// IVP compact surface: convex ledges in a tree of bounding spheres.
pub const MODEL_TYPE_COMPACT_SURFACE: i16 = 0;
/// Polysoup with a Havok MOPP tree (older vbsps' power-4 terrain).
pub const MODEL_TYPE_MOPP: i16 = 1;

/// `collideheader_t` and, for a compact surface, the rest of `compactsurfaceheader_t`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CollideHeader {
    /// `0x100`; Strata writes `0x101`.
    pub version: i16,
    /// [`MODEL_TYPE_COMPACT_SURFACE`] or [`MODEL_TYPE_MOPP`].
    pub model_type: i16,
    /// Bytes of the surface.
    pub surface_size: i32,
    /// `None` for a MOPP surface, whose header ends at `surface_size`.
    pub drag: Option<DragAxes>,
}

/// The drag fields of `compactsurfaceheader_t`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DragAxes {
    pub drag_axis_areas: [f32; 3],
    pub axis_map_size: i32,
}

/// What follows the headers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum SolidBody {
    Surface(CompactSurface),
    /// A version or model type this crate does not read (kept as bytes, reported as such).
    Unread(Vec<u8>),
}

/// One solid of a model or `.phy` file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Solid {
    /// `None` for the legacy form (the surface straight away).
    pub header: Option<CollideHeader>,
    pub body: SolidBody,
}

impl CollideHeader {
    /// `collideheader_t` of the `VPHY` headers in `data`, which must hold them whole (the
    /// drag fields too, which are not read here).
    fn read(data: &[u8], base: u64) -> Result<CollideHeader> {
        if data.len() < COLLIDE_HEADER_SIZE {
            return Err(PhysError::new(
                base,
                "collide header",
                format!(
                    "{} bytes, the VPHY headers need {COLLIDE_HEADER_SIZE}",
                    data.len()
                ),
            ));
        }
        let i16_at = |p: usize| i16::from_le_bytes([data[p], data[p + 1]]);
        Ok(CollideHeader {
            version: i16_at(4),
            model_type: i16_at(6),
            surface_size: i32::from_le_bytes([data[8], data[9], data[10], data[11]]),
            drag: None,
        })
    }
}

impl DragAxes {
    /// The drag fields after `collideheader_t` in `data` (the whole `VPHY` headers).
    fn read(data: &[u8]) -> DragAxes {
        let word = |p: usize| [data[p], data[p + 1], data[p + 2], data[p + 3]];
        DragAxes {
            drag_axis_areas: [12, 16, 20].map(|p| f32::from_le_bytes(word(p))),
            axis_map_size: i32::from_le_bytes(word(24)),
        }
    }
}

/// A MOPP surface: read when its records account for every byte as written back; a layout
/// not seen in Valve's data is kept as bytes.
fn mopp_body(rest: &[u8], base: u64) -> SolidBody {
    match CompactSurface::parse(rest, base) {
        Ok(s) if s.to_bytes() == rest => SolidBody::Surface(s),
        _ => SolidBody::Unread(rest.to_vec()),
    }
}

impl Solid {
    /// Reads one solid's bytes; `base` is the absolute offset of `data[0]`.
    pub fn parse(data: &[u8], base: u64) -> Result<Solid> {
        if data.len() >= 4 && &data[..4] == b"VPHY" {
            return Solid::parse_vphy(data, base);
        }
        if data.len() < 48 || i32::from_le_bytes([data[44], data[45], data[46], data[47]]) != IVPS {
            return Err(PhysError::new(
                base,
                "collide header",
                "neither a VPHY header nor a legacy compact surface (IVPS tag)",
            ));
        }
        Ok(Solid {
            header: None,
            body: SolidBody::Surface(CompactSurface::parse(data, base)?),
        })
    }

    /// A solid behind its `VPHY` headers.
    fn parse_vphy(data: &[u8], base: u64) -> Result<Solid> {
        let mut header = CollideHeader::read(data, base)?;
        let (version, model_type) = (header.version, header.model_type);
        if version == COLLIDE_VERSION && model_type == MODEL_TYPE_MOPP {
            return Ok(Solid {
                header: Some(header),
                body: mopp_body(&data[MOPP_HEADER_SIZE..], base + MOPP_HEADER_SIZE as u64),
            });
        }
        header.drag = Some(DragAxes::read(data));
        let rest = &data[COLLIDE_HEADER_SIZE..];
        let body = if version == COLLIDE_VERSION && model_type == MODEL_TYPE_COMPACT_SURFACE {
            SolidBody::Surface(CompactSurface::parse(rest, base + COLLIDE_HEADER_SIZE as u64)?)
        } else {
            SolidBody::Unread(rest.to_vec())
        };
        Ok(Solid {
            header: Some(header),
            body,
        })
    }

    /// The solid's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        if let Some(h) = &self.header {
            out.extend_from_slice(b"VPHY");
            out.extend_from_slice(&h.version.to_le_bytes());
            out.extend_from_slice(&h.model_type.to_le_bytes());
            out.extend_from_slice(&h.surface_size.to_le_bytes());
            if let Some(d) = &h.drag {
                for v in d.drag_axis_areas {
                    out.extend_from_slice(&v.to_le_bytes());
                }
                out.extend_from_slice(&d.axis_map_size.to_le_bytes());
            }
        }
        match &self.body {
            SolidBody::Surface(s) => s.write(&mut out),
            SolidBody::Unread(b) => out.extend_from_slice(b),
        }
        out
    }

    /// The compact surface, when this solid has one that was read.
    pub fn surface(&self) -> Option<&CompactSurface> {
        match &self.body {
            SolidBody::Surface(s) => Some(s),
            SolidBody::Unread(_) => None,
        }
    }
}
