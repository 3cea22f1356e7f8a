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

impl Vvd {
    pub fn parse(data: &[u8]) -> Result<Vvd, ModelError> {
        let h = "vertexFileHeader_t";
        let mut r = Reader::new(data, Endian::Little);
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
        let fixup_count = field(&mut r)?;
        let fixup_at = field(&mut r)?;
        let vertex_at = field(&mut r)?;
        let tangent_at = field(&mut r)?;
        debug_assert_eq!(r.position(), HEADER_SIZE);

        let s = "vertexFileFixup_t";
        let mut fixups = Vec::new();
        if fixup_count > 0 {
            r.seek(fixup_at).at(FORMAT, s)?;
            r.check_count(fixup_count as u64, FIXUP_SIZE as u64)
                .at(FORMAT, s)?;
            for _ in 0..fixup_count {
                let at = r.offset();
                let lod = index(r.i32().at(FORMAT, s)?, FORMAT, s, at)? as u32;
                let first = index(r.i32().at(FORMAT, s)?, FORMAT, s, at)? as u32;
                let count = index(r.i32().at(FORMAT, s)?, FORMAT, s, at)? as u32;
                if first as u64 + count as u64 > lod_vertex_counts[0] as u64 {
                    return Err(ModelError::format(
                        FORMAT,
                        s,
                        at,
                        format!(
                            "vertices {first}+{count} past the {} of LOD 0",
                            lod_vertex_counts[0]
                        ),
                    ));
                }
                fixups.push(Fixup { lod, first, count });
            }
        }

        let s = "mstudiovertex_t";
        let n = lod_vertex_counts[0] as usize;
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
        Ok(Vvd {
            version,
            checksum,
            lod_count: lod_count as u32,
            lod_vertex_counts,
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
