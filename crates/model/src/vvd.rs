//! The `.vvd` vertex file (`vertexFileHeader_t`, version 4): every vertex of LOD 0 with its
//! bone weights, position, normal and texture coordinate, the tangents, and the fixup table
//! that rebuilds each LOD's vertex list.

use srcmap_bytes::{Endian, Reader};

use crate::{Context, MAX_LODS, ModelError, index, mdl::VERTEX_SIZE};

const FORMAT: &str = "VVD";
const HEADER_SIZE: usize = 64;
const FIXUP_SIZE: usize = 12;

#[derive(Debug, Clone, PartialEq)]
pub struct Vvd {
    pub version: i32,
    pub checksum: u32,
    pub lod_count: u32,
    pub lod_vertex_counts: [u32; MAX_LODS],
    pub fixups: Vec<Fixup>,
    /// The vertices of LOD 0 (`lod_vertex_counts[0]` of them), in file order.
    pub vertices: Vec<Vertex>,
    /// One tangent (xyz, handedness) per vertex; empty when the file has none.
    pub tangents: Vec<[f32; 4]>,
}

/// A run of vertices that belongs to LODs up to `lod`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fixup {
    pub lod: u32,
    pub first: u32,
    pub count: u32,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Vertex {
    pub weights: [f32; 3],
    pub bones: [u8; 3],
    pub bone_count: u8,
    pub position: [f32; 3],
    pub normal: [f32; 3],
    pub uv: [f32; 2],
}

/// The header's fields after the magic: where the fixups, vertices and tangents lie.
struct Header {
    version: i32,
    checksum: u32,
    lod_count: i32,
    lod_vertex_counts: [u32; MAX_LODS],
    fixup_count: usize,
    fixup_at: usize,
    vertex_at: usize,
    tangent_at: usize,
}

/// The farthest a model's vertex may lie from its origin: no prop spans more than a map.
pub const MAX_VERTEX_COORD: f32 = 65_536.0;

impl Vvd {
    /// The first vertex whose position, normal or UV is not finite or whose position lies beyond
    /// [`MAX_VERTEX_COORD`]: a model no tool can place or draw (a NaN position, a 1e37 one).
    pub fn first_unusable_vertex(&self) -> Option<usize> {
        self.vertices.iter().position(|v| {
            let finite = v
                .position
                .iter()
                .chain(&v.normal)
                .chain(&v.uv)
                .all(|x| x.is_finite());
            !finite || v.position.iter().any(|x| x.abs() > MAX_VERTEX_COORD)
        })
    }

    pub fn parse(data: &[u8]) -> Result<Vvd, ModelError> {
        let mut r = Reader::new(data, Endian::Little);
        let head = read_header(&mut r)?;
        let fixups = read_fixups(&mut r, &head)?;
        let n = head.lod_vertex_counts[0] as usize;
        let vertices = read_vertices(&mut r, head.vertex_at, n)?;
        let tangents = read_tangents(&mut r, head.tangent_at, n)?;
        Ok(Vvd {
            version: head.version,
            checksum: head.checksum,
            lod_count: head.lod_count as u32,
            lod_vertex_counts: head.lod_vertex_counts,
            fixups,
            vertices,
            tangents,
        })
    }

    /// Indices into [`Vvd::vertices`] of the vertex list of `lod`: the file's order when there
    /// are no fixups, else the runs of every fixup whose LOD is `lod` or coarser.
    pub fn lod_vertex_indices(&self, lod: usize) -> Vec<u32> {
        if self.fixups.is_empty() {
            return (0..self.lod_vertex_counts[0]).collect();
        }
        self.fixups
            .iter()
            .filter(|f| f.lod as usize >= lod)
            .flat_map(|f| f.first..f.first + f.count)
            .collect()
    }
}

/// `vertexFileHeader_t`: the magic and version checked, the LOD count in range.
fn read_header(r: &mut Reader<'_>) -> Result<Header, ModelError> {
    let h = "vertexFileHeader_t";
    let version = read_version(r)?;
    let checksum = r.u32().at(FORMAT, h)?;
    let lod_count = r.i32().at(FORMAT, h)?;
    if !(0..=MAX_LODS as i32).contains(&lod_count) {
        return Err(ModelError::format(FORMAT, h, 12, format!("{lod_count} LODs")));
    }
    let mut lod_vertex_counts = [0u32; MAX_LODS];
    for c in &mut lod_vertex_counts {
        *c = index(r.i32().at(FORMAT, h)?, FORMAT, h, r.offset())? as u32;
    }
    let field = |r: &mut Reader<'_>| -> Result<usize, ModelError> {
        let at = r.offset();
        index(r.i32().at(FORMAT, h)?, FORMAT, h, at)
    };
    let head = Header {
        version,
        checksum,
        lod_count,
        lod_vertex_counts,
        fixup_count: field(r)?,
        fixup_at: field(r)?,
        vertex_at: field(r)?,
        tangent_at: field(r)?,
    };
    debug_assert_eq!(r.position(), HEADER_SIZE);
    Ok(head)
}

/// The magic (`IDSV`) and version (4).
fn read_version(r: &mut Reader<'_>) -> Result<i32, ModelError> {
    let h = "vertexFileHeader_t";
    if r.array::<4>().at(FORMAT, h)? != *b"IDSV" {
        return Err(ModelError::format(FORMAT, h, 0, "not a VVD (no IDSV)"));
    }
    let version = r.i32().at(FORMAT, h)?;
    if version != 4 {
        return Err(ModelError::format(
            FORMAT,
            h,
            4,
            format!("version {version}, expected 4"),
        ));
    }
    Ok(version)
}

/// The fixup table, each run within LOD 0's vertices.
fn read_fixups(r: &mut Reader<'_>, head: &Header) -> Result<Vec<Fixup>, ModelError> {
    let s = "vertexFileFixup_t";
    let mut fixups = Vec::new();
    if head.fixup_count > 0 {
        r.seek(head.fixup_at).at(FORMAT, s)?;
        r.check_count(head.fixup_count as u64, FIXUP_SIZE as u64)
            .at(FORMAT, s)?;
        for _ in 0..head.fixup_count {
            fixups.push(read_fixup(r, head.lod_vertex_counts[0])?);
        }
    }
    Ok(fixups)
}

/// One `vertexFileFixup_t`; its run must lie within LOD 0's `lod0` vertices.
fn read_fixup(r: &mut Reader<'_>, lod0: u32) -> Result<Fixup, ModelError> {
    let s = "vertexFileFixup_t";
    let at = r.offset();
    let lod = index(r.i32().at(FORMAT, s)?, FORMAT, s, at)? as u32;
    let first = index(r.i32().at(FORMAT, s)?, FORMAT, s, at)? as u32;
    let count = index(r.i32().at(FORMAT, s)?, FORMAT, s, at)? as u32;
    if first as u64 + count as u64 > lod0 as u64 {
        return Err(ModelError::format(
            FORMAT,
            s,
            at,
            format!("vertices {first}+{count} past the {lod0} of LOD 0"),
        ));
    }
    Ok(Fixup { lod, first, count })
}

/// LOD 0's `n` vertices (`mstudiovertex_t`) at `vertex_at`.
fn read_vertices(r: &mut Reader<'_>, vertex_at: usize, n: usize) -> Result<Vec<Vertex>, ModelError> {
    let s = "mstudiovertex_t";
    r.seek(vertex_at).at(FORMAT, s)?;
    r.check_count(n as u64, VERTEX_SIZE as u64).at(FORMAT, s)?;
    let mut vertices = Vec::with_capacity(n);
    for _ in 0..n {
        let weights = r.vec3().at(FORMAT, s)?;
        let bones = r.array::<3>().at(FORMAT, s)?;
        let bone_count = r.u8().at(FORMAT, s)?;
        let position = r.vec3().at(FORMAT, s)?;
        let normal = r.vec3().at(FORMAT, s)?;
        let uv = [r.f32().at(FORMAT, s)?, r.f32().at(FORMAT, s)?];
        vertices.push(Vertex {
            weights,
            bones,
            bone_count,
            position,
            normal,
            uv,
        });
    }
    Ok(vertices)
}

/// The `n` tangents at `tangent_at` (none when it is 0).
fn read_tangents(r: &mut Reader<'_>, tangent_at: usize, n: usize) -> Result<Vec<[f32; 4]>, ModelError> {
    let s = "tangent";
    let mut tangents = Vec::new();
    if tangent_at != 0 && n > 0 {
        r.seek(tangent_at).at(FORMAT, s)?;
        r.check_count(n as u64, 16).at(FORMAT, s)?;
        tangents.reserve(n);
        for _ in 0..n {
            let v = r.vec3().at(FORMAT, s)?;
            tangents.push([v[0], v[1], v[2], r.f32().at(FORMAT, s)?]);
        }
    }
    Ok(tangents)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vertices_not_finite_or_absurd_are_found() {
        let vertex = |position: [f32; 3], normal: [f32; 3]| Vertex {
            weights: [1.0, 0.0, 0.0],
            bones: [0; 3],
            bone_count: 1,
            position,
            normal,
            uv: [0.5, 0.5],
        };
        let mut vvd = Vvd {
            version: 4,
            checksum: 0,
            lod_count: 1,
            lod_vertex_counts: [2, 0, 0, 0, 0, 0, 0, 0],
            fixups: Vec::new(),
            vertices: vec![vertex([1.0, 2.0, 3.0], [0.0, 0.0, 1.0]); 2],
            tangents: Vec::new(),
        };
        assert_eq!(vvd.first_unusable_vertex(), None);
        vvd.vertices[1] = vertex([MAX_VERTEX_COORD, 0.0, 0.0], [0.0, 0.0, 1.0]);
        assert_eq!(vvd.first_unusable_vertex(), None, "the bound itself is allowed");
        for (position, normal) in [
            ([f32::NAN, 0.0, 0.0], [0.0, 0.0, 1.0]),
            ([0.0, f32::NEG_INFINITY, 0.0], [0.0, 0.0, 1.0]),
            ([0.0, 0.0, 1e37], [0.0, 0.0, 1.0]),
            ([0.0, 0.0, 0.0], [f32::NAN, 0.0, 1.0]),
        ] {
            vvd.vertices[1] = vertex(position, normal);
            assert_eq!(vvd.first_unusable_vertex(), Some(1), "{position:?} {normal:?}");
        }
    }
}
