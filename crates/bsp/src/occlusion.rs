//! The occlusion lump (9): occluders, their polygons and the polygons' vertex indices.

use srcmap_bytes::Reader;

use crate::codec::{Ctx, Cur, Field, Out, Record, read_counted};
use crate::error::{BspError, Result};
use crate::lump::OCCLUSION;
use crate::records::{OccluderPolyData, Vector};
use crate::versions::OCCLUSION_VERSION;

/// `doccluderdata_t`: 40 bytes in lump version 2, 36 (no `area`) before.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct OccluderData {
    pub flags: i32,
    pub first_poly: i32,
    pub poly_count: i32,
    pub mins: Vector,
    pub maxs: Vector,
    /// Lump version 2 only.
    pub area: i32,
}

/// The occlusion lump (9): occluders, their polygons and the polygons' vertex indices.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Occlusion {
    pub occluders: Vec<OccluderData>,
    pub polys: Vec<OccluderPolyData>,
    /// Indices into the vertex lump.
    pub vertex_indices: Vec<i32>,
}

impl OccluderData {
    /// `with_area`: the v2 layout, with the occluder's area.
    fn read(c: &mut Cur<'_>, with_area: bool) -> OccluderData {
        OccluderData {
            flags: c.i32(),
            first_poly: c.i32(),
            poly_count: c.i32(),
            mins: c.vec3(),
            maxs: c.vec3(),
            area: if with_area { c.i32() } else { 0 },
        }
    }
}

/// The counted list of vertex indices.
fn read_vertex_indices(r: &mut Reader<'_>) -> std::result::Result<Vec<i32>, srcmap_bytes::ReadError> {
    let n = r.u32()?;
    let n = r.check_count(n as u64, 4)?;
    let mut vertex_indices = Vec::with_capacity(n);
    for _ in 0..n {
        vertex_indices.push(r.i32()?);
    }
    Ok(vertex_indices)
}

impl Occlusion {
    pub fn parse(data: &[u8], ctx: &Ctx, base: u64) -> Result<Occlusion> {
        let err = |e| BspError::from_read(OCCLUSION, e);
        let mut r = Reader::with_base(data, base, ctx.endian);
        let with_area = ctx.lump_version >= OCCLUSION_VERSION;
        let size = if with_area { 40 } else { 36 };
        let occluders = read_counted(&mut r, size, |b| {
            OccluderData::read(&mut Cur::new(b, ctx.endian), with_area)
        })
        .map_err(err)?;
        let polys = read_counted(&mut r, 12, |b| {
            OccluderPolyData::read(&mut Cur::new(b, ctx.endian), ctx)
        })
        .map_err(err)?;
        let vertex_indices = read_vertex_indices(&mut r).map_err(err)?;
        if r.remaining() != 0 {
            return Err(BspError::lump(
                OCCLUSION,
                r.offset(),
                format!("{} unexpected bytes after the occlusion data", r.remaining()),
            ));
        }
        Ok(Occlusion {
            occluders,
            polys,
            vertex_indices,
        })
    }

    pub fn to_bytes(&self, ctx: &Ctx) -> Vec<u8> {
        let mut w = Out::new(
            ctx.endian,
            12 + self.occluders.len() * 40 + self.polys.len() * 12 + self.vertex_indices.len() * 4,
        );
        w.w.u32(self.occluders.len() as u32);
        for o in &self.occluders {
            w.w.i32(o.flags);
            w.w.i32(o.first_poly);
            w.w.i32(o.poly_count);
            o.mins.put(&mut w);
            o.maxs.put(&mut w);
            if ctx.lump_version >= OCCLUSION_VERSION {
                w.w.i32(o.area);
            }
        }
        w.w.u32(self.polys.len() as u32);
        for p in &self.polys {
            p.write(&mut w, ctx);
        }
        w.w.u32(self.vertex_indices.len() as u32);
        for &i in &self.vertex_indices {
            w.w.i32(i);
        }
        w.w.into_inner()
    }
}
