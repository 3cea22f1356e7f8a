//! The `.vtx` optimised mesh file (`OptimizedModel::FileHeader_t`, version 7): body parts →
//! models → LODs → meshes → strip groups → strips, whose indices make the render triangles.
//!
//! Later engine branches (Left 4 Dead 2 on) add a topology index pair to each strip group and
//! strip header; a file is read with the 2013 layout first and, when that does not fit, with
//! the longer one.

use srcmap_bytes::{Endian, Reader};

use crate::{Context, ModelError, index, mdl::Mdl};

const FORMAT: &str = "VTX";
const HEADER_SIZE: usize = 36;
const BODY_PART_SIZE: usize = 8;
const MODEL_SIZE: usize = 8;
const LOD_SIZE: usize = 12;
const MESH_SIZE: usize = 9;
const VERTEX_SIZE: usize = 9;
/// `STRIP_IS_TRILIST`.
pub const STRIP_TRILIST: u8 = 1;
/// `STRIP_IS_TRISTRIP`.
pub const STRIP_TRISTRIP: u8 = 2;

#[derive(Debug, Clone, PartialEq)]
pub struct Vtx {
    pub version: i32,
    pub vertex_cache_size: i32,
    pub max_bones_per_strip: u16,
    pub max_bones_per_triangle: u16,
    pub max_bones_per_vertex: i32,
    pub checksum: u32,
    pub lod_count: u32,
    /// Whether strip groups and strips carry the later branches' topology fields.
    pub topology: bool,
    /// Per LOD: material replacements (skin reference, replacement material name).
    pub material_replacements: Vec<Vec<(i16, String)>>,
    /// Per body part, per model, per LOD: the meshes.
    pub body_parts: Vec<Vec<Vec<Lod>>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Lod {
    pub switch_point: f32,
    /// Per mesh: its flags and strip groups.
    pub meshes: Vec<(u8, Vec<StripGroup>)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct StripGroup {
    pub flags: u8,
    /// Each vertex's index in its mesh (`origMeshVertID`).
    pub vertices: Vec<u16>,
    /// Indices into `vertices`.
    pub indices: Vec<u16>,
    pub strips: Vec<Strip>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Strip {
    pub first_index: u32,
    pub index_count: u32,
    pub first_vertex: u32,
    pub vertex_count: u32,
    pub bone_count: i16,
    pub flags: u8,
}

impl Strip {
    /// Whether the strip's indices and vertices lie within its group's `inn` and `vn`.
    fn fits(&self, inn: usize, vn: usize) -> bool {
        self.first_index as u64 + self.index_count as u64 <= inn as u64
            && self.first_vertex as u64 + self.vertex_count as u64 <= vn as u64
    }
}

impl StripGroup {
    /// The triangles of every strip, as indices into `vertices`.
    pub fn triangles(&self) -> impl Iterator<Item = [u16; 3]> + '_ {
        self.strips.iter().flat_map(move |s| {
            let idx = &self.indices[s.first_index as usize..(s.first_index + s.index_count) as usize];
            let strip = s.flags & STRIP_TRISTRIP != 0 && s.flags & STRIP_TRILIST == 0;
            let n = if strip {
                idx.len().saturating_sub(2)
            } else {
                idx.len() / 3
            };
            (0..n).map(move |i| {
                if !strip {
                    [idx[3 * i], idx[3 * i + 1], idx[3 * i + 2]]
                } else if i % 2 == 0 {
                    [idx[i], idx[i + 1], idx[i + 2]]
                } else {
                    [idx[i + 1], idx[i], idx[i + 2]]
                }
            })
        })
    }
}

/// Whether `data` starts like a VTX v7 file whose body parts fit in it.
pub fn looks_like_vtx(data: &[u8]) -> bool {
    let mut r = Reader::new(data, Endian::Little);
    let Ok(version) = r.i32() else { return false };
    if version != 7 || data.len() < HEADER_SIZE {
        return false;
    }
    let word = |at: usize| i32::from_le_bytes(data[at..at + 4].try_into().unwrap_or([0; 4]));
    let (lods, parts, parts_at) = (word(20), word(28), word(32));
    (1..=8).contains(&lods)
        && parts >= 0
        && parts_at >= HEADER_SIZE as i32
        && (parts_at as u64 + parts as u64 * BODY_PART_SIZE as u64) <= data.len() as u64
}

/// A reader at `base + rel`, holding `count` records of `size` bytes.
fn at<'a>(
    data: &'a [u8],
    base: usize,
    rel: i32,
    count: i32,
    size: usize,
    s: &'static str,
) -> Result<(Reader<'a>, usize, usize), ModelError> {
    let mut r = Reader::new(data, Endian::Little);
    let count = index(count, FORMAT, s, base as u64)?;
    if count == 0 {
        return Ok((r, 0, 0));
    }
    let start = usize::try_from(base as i64 + rel as i64)
        .map_err(|_| ModelError::format(FORMAT, s, base as u64, "offset before the file"))?;
    r.seek(start).at(FORMAT, s)?;
    r.check_count(count as u64, size as u64).at(FORMAT, s)?;
    Ok((r, count, start))
}

impl Vtx {
    pub fn parse(data: &[u8]) -> Result<Vtx, ModelError> {
        Self::parse_layout(data, false).or_else(|first| Self::parse_layout(data, true).map_err(|_| first))
    }

    fn parse_layout(data: &[u8], topology: bool) -> Result<Vtx, ModelError> {
        let h = "FileHeader_t";
        let mut r = Reader::new(data, Endian::Little);
        let version = read_version(&mut r)?;
        let vertex_cache_size = r.i32().at(FORMAT, h)?;
        let max_bones_per_strip = r.u16().at(FORMAT, h)?;
        let max_bones_per_triangle = r.u16().at(FORMAT, h)?;
        let max_bones_per_vertex = r.i32().at(FORMAT, h)?;
        let checksum = r.u32().at(FORMAT, h)?;
        let lod_count = r.i32().at(FORMAT, h)?;
        let replacements_at = r.i32().at(FORMAT, h)?;
        let part_count = r.i32().at(FORMAT, h)?;
        let part_at = r.i32().at(FORMAT, h)?;
        let lod_count = index(lod_count, FORMAT, h, 20)? as u32;
        let body_parts = read_body_parts(data, part_at, part_count, topology)?;
        let material_replacements = read_replacements(data, replacements_at, lod_count)?;
        Ok(Vtx {
            material_replacements,
            version,
            vertex_cache_size,
            max_bones_per_strip,
            max_bones_per_triangle,
            max_bones_per_vertex,
            checksum,
            lod_count,
            topology,
            body_parts,
        })
    }

    /// The render triangles of `lod` as indices into the `.vvd`'s vertices (LOD 0 order):
    /// each strip vertex's mesh index plus its mesh's and model's first vertex from the `.mdl`.
    /// Fails when the two files' body parts, models or meshes do not line up, or a vertex
    /// lies outside its mesh.
    pub fn triangles(&self, mdl: &Mdl, lod: usize) -> Result<Vec<[u32; 3]>, ModelError> {
        if self.body_parts.len() != mdl.body_parts.len() {
            return Err(mismatch(format!(
                "{} body parts, the .mdl has {}",
                self.body_parts.len(),
                mdl.body_parts.len()
            )));
        }
        let mut out = Vec::new();
        for (bi, (part, mdl_part)) in self.body_parts.iter().zip(&mdl.body_parts).enumerate() {
            if part.len() != mdl_part.models.len() {
                return Err(mismatch(format!(
                    "body part {bi}: model count differs from the .mdl"
                )));
            }
            for (model, mdl_model) in part.iter().zip(&mdl_part.models) {
                let Some(l) = model.get(lod) else { continue };
                if l.meshes.len() != mdl_model.meshes.len() {
                    return Err(mismatch(format!(
                        "body part {bi}: mesh count differs from the .mdl"
                    )));
                }
                for ((_, groups), mesh) in l.meshes.iter().zip(&mdl_model.meshes) {
                    let first = mdl_model.first_vertex as u64 + mesh.vertex_offset as u64;
                    push_mesh_triangles(groups, first, mesh.vertex_count, &mut out)?;
                }
            }
        }
        Ok(out)
    }
}

/// The error of `.vtx` and `.mdl` that do not line up.
fn mismatch(what: String) -> ModelError {
    ModelError::format(FORMAT, "triangles", 0, what)
}

/// Appends a mesh's triangles, its strip vertices offset by `first`; each must lie within the
/// mesh's `vertex_count`.
fn push_mesh_triangles(
    groups: &[StripGroup],
    first: u64,
    vertex_count: u32,
    out: &mut Vec<[u32; 3]>,
) -> Result<(), ModelError> {
    for g in groups {
        for t in g.triangles() {
            let mut tri = [0u32; 3];
            for (k, &i) in t.iter().enumerate() {
                let v = g.vertices[i as usize] as u64;
                if v >= vertex_count as u64 {
                    return Err(mismatch(format!("vertex {v} outside its mesh of {vertex_count}")));
                }
                tri[k] = (first + v) as u32;
            }
            out.push(tri);
        }
    }
    Ok(())
}

/// `FileHeader_t`'s version, which must be 7.
fn read_version(r: &mut Reader<'_>) -> Result<i32, ModelError> {
    let version = r.i32().at(FORMAT, "FileHeader_t")?;
    if version != 7 {
        return Err(ModelError::format(
            FORMAT,
            "FileHeader_t",
            0,
            format!("version {version}, expected 7"),
        ));
    }
    Ok(version)
}

/// The `BodyPartHeader_t`s with their models.
fn read_body_parts(
    data: &[u8],
    part_at: i32,
    part_count: i32,
    topology: bool,
) -> Result<Vec<Vec<Vec<Lod>>>, ModelError> {
    let s = "BodyPartHeader_t";
    let (mut r, n, start) = at(data, 0, part_at, part_count, BODY_PART_SIZE, s)?;
    let mut body_parts = Vec::with_capacity(n);
    for i in 0..n {
        let rec = start + i * BODY_PART_SIZE;
        let count = r.i32().at(FORMAT, s)?;
        let rel = r.i32().at(FORMAT, s)?;
        body_parts.push(read_models(data, rec, rel, count, topology)?);
    }
    Ok(body_parts)
}

fn read_replacements(data: &[u8], list_at: i32, lods: u32) -> Result<Vec<Vec<(i16, String)>>, ModelError> {
    let s = "MaterialReplacementListHeader_t";
    let lods = i32::try_from(lods).map_err(|_| ModelError::format(FORMAT, s, 20, "too many LODs"))?;
    let (mut r, n, start) = at(data, 0, list_at, lods, 8, s)?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let rec = start + i * 8;
        let count = r.i32().at(FORMAT, s)?;
        let rel = r.i32().at(FORMAT, s)?;
        let rs = "MaterialReplacementHeader_t";
        let (mut rr, rn, rstart) = at(data, rec, rel, count, 6, rs)?;
        let mut list = Vec::with_capacity(rn);
        for k in 0..rn {
            let material = rr.i16().at(FORMAT, rs)?;
            let name_rel = rr.i32().at(FORMAT, rs)?;
            let name_at = usize::try_from((rstart + k * 6) as i64 + name_rel as i64)
                .map_err(|_| ModelError::format(FORMAT, rs, rstart as u64, "name before the file"))?;
            let mut nr = Reader::new(data, Endian::Little);
            nr.seek(name_at).at(FORMAT, rs)?;
            let name = String::from_utf8_lossy(nr.cstr().at(FORMAT, rs)?).into_owned();
            list.push((material, name));
        }
        out.push(list);
    }
    Ok(out)
}

fn read_models(
    data: &[u8],
    base: usize,
    rel: i32,
    count: i32,
    topology: bool,
) -> Result<Vec<Vec<Lod>>, ModelError> {
    let s = "ModelHeader_t";
    let (mut r, n, start) = at(data, base, rel, count, MODEL_SIZE, s)?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let rec = start + i * MODEL_SIZE;
        let count = r.i32().at(FORMAT, s)?;
        let rel = r.i32().at(FORMAT, s)?;
        out.push(read_lods(data, rec, rel, count, topology)?);
    }
    Ok(out)
}

/// A model's `ModelLODHeader_t`s with their meshes.
fn read_lods(data: &[u8], base: usize, rel: i32, count: i32, topology: bool) -> Result<Vec<Lod>, ModelError> {
    let s = "ModelLODHeader_t";
    let (mut lr, ln, lstart) = at(data, base, rel, count, LOD_SIZE, s)?;
    let mut lods = Vec::with_capacity(ln);
    for j in 0..ln {
        let lrec = lstart + j * LOD_SIZE;
        let mesh_count = lr.i32().at(FORMAT, s)?;
        let mesh_rel = lr.i32().at(FORMAT, s)?;
        let switch_point = lr.f32().at(FORMAT, s)?;
        lods.push(Lod {
            switch_point,
            meshes: read_meshes(data, lrec, mesh_rel, mesh_count, topology)?,
        });
    }
    Ok(lods)
}

fn read_meshes(
    data: &[u8],
    base: usize,
    rel: i32,
    count: i32,
    topology: bool,
) -> Result<Vec<(u8, Vec<StripGroup>)>, ModelError> {
    let s = "MeshHeader_t";
    let (mut r, n, start) = at(data, base, rel, count, MESH_SIZE, s)?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let rec = start + i * MESH_SIZE;
        let count = r.i32().at(FORMAT, s)?;
        let rel = r.i32().at(FORMAT, s)?;
        let flags = r.u8().at(FORMAT, s)?;
        out.push((flags, read_strip_groups(data, rec, rel, count, topology)?));
    }
    Ok(out)
}

fn read_strip_groups(
    data: &[u8],
    base: usize,
    rel: i32,
    count: i32,
    topology: bool,
) -> Result<Vec<StripGroup>, ModelError> {
    let s = "StripGroupHeader_t";
    let size = if topology { 33 } else { 25 };
    let (mut r, n, start) = at(data, base, rel, count, size, s)?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        out.push(read_strip_group(data, &mut r, start + i * size, topology)?);
    }
    Ok(out)
}

/// One `StripGroupHeader_t` (at `rec`, `r` at its start) with its vertices, indices and strips.
fn read_strip_group(
    data: &[u8],
    r: &mut Reader<'_>,
    rec: usize,
    topology: bool,
) -> Result<StripGroup, ModelError> {
    let s = "StripGroupHeader_t";
    let vertex_count = r.i32().at(FORMAT, s)?;
    let vertex_rel = r.i32().at(FORMAT, s)?;
    let index_count = r.i32().at(FORMAT, s)?;
    let index_rel = r.i32().at(FORMAT, s)?;
    let strip_count = r.i32().at(FORMAT, s)?;
    let strip_rel = r.i32().at(FORMAT, s)?;
    let flags = r.u8().at(FORMAT, s)?;
    if topology {
        r.skip(8).at(FORMAT, s)?;
    }
    let vertices = read_group_vertices(data, rec, vertex_rel, vertex_count)?;
    let indices = read_group_indices(data, rec, index_rel, index_count, vertices.len())?;
    let bounds = (indices.len(), vertices.len());
    let strips = read_strips(data, rec, strip_rel, strip_count, topology, bounds)?;
    Ok(StripGroup {
        flags,
        vertices,
        indices,
        strips,
    })
}

/// A strip group's `Vertex_t`s: each one's index in its mesh.
fn read_group_vertices(data: &[u8], rec: usize, rel: i32, count: i32) -> Result<Vec<u16>, ModelError> {
    let vs = "Vertex_t";
    let (mut vr, vn, _) = at(data, rec, rel, count, VERTEX_SIZE, vs)?;
    let mut vertices = Vec::with_capacity(vn);
    for _ in 0..vn {
        vr.skip(4).at(FORMAT, vs)?; // bone weight indices, bone count
        vertices.push(vr.u16().at(FORMAT, vs)?);
        vr.skip(3).at(FORMAT, vs)?; // bone ids
    }
    Ok(vertices)
}

/// A strip group's indices, each below its `vn` vertices.
fn read_group_indices(
    data: &[u8],
    rec: usize,
    rel: i32,
    count: i32,
    vn: usize,
) -> Result<Vec<u16>, ModelError> {
    let is = "index";
    let (mut ir, inn, _) = at(data, rec, rel, count, 2, is)?;
    let mut indices = Vec::with_capacity(inn);
    for _ in 0..inn {
        let at = ir.offset();
        let v = ir.u16().at(FORMAT, is)?;
        if v as usize >= vn {
            return Err(ModelError::format(
                FORMAT,
                is,
                at,
                format!("index {v} past the strip group's {vn} vertices"),
            ));
        }
        indices.push(v);
    }
    Ok(indices)
}

/// A strip group's `StripHeader_t`s, each within its group's `(indices, vertices)` counts.
fn read_strips(
    data: &[u8],
    rec: usize,
    rel: i32,
    count: i32,
    topology: bool,
    group: (usize, usize),
) -> Result<Vec<Strip>, ModelError> {
    let ss = "StripHeader_t";
    let ssize = if topology { 35 } else { 27 };
    let (mut sr, sn, sstart) = at(data, rec, rel, count, ssize, ss)?;
    let mut strips = Vec::with_capacity(sn);
    for k in 0..sn {
        strips.push(read_strip(&mut sr, (sstart + k * ssize) as u64, ssize, group)?);
    }
    Ok(strips)
}

/// One `StripHeader_t` of `ssize` bytes at `srec`.
fn read_strip(
    sr: &mut Reader<'_>,
    srec: u64,
    ssize: usize,
    (inn, vn): (usize, usize),
) -> Result<Strip, ModelError> {
    let ss = "StripHeader_t";
    // Fields in file order (a struct expression evaluates them as written).
    let strip = Strip {
        index_count: index(sr.i32().at(FORMAT, ss)?, FORMAT, ss, srec)? as u32,
        first_index: index(sr.i32().at(FORMAT, ss)?, FORMAT, ss, srec)? as u32,
        vertex_count: index(sr.i32().at(FORMAT, ss)?, FORMAT, ss, srec)? as u32,
        first_vertex: index(sr.i32().at(FORMAT, ss)?, FORMAT, ss, srec)? as u32,
        bone_count: sr.i16().at(FORMAT, ss)?,
        flags: sr.u8().at(FORMAT, ss)?,
    };
    sr.skip(ssize - 19).at(FORMAT, ss)?; // bone state changes (+ topology)
    if !strip.fits(inn, vn) {
        return Err(ModelError::format(
            FORMAT,
            ss,
            srec,
            "strip past its strip group's indices or vertices",
        ));
    }
    Ok(strip)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A VTX with one mesh of two strip groups (so the group stride matters), each a triangle
    /// list over three vertices, in the 2013 layout or the later one with topology fields.
    fn build(topology: bool) -> Vec<u8> {
        let extra = if topology { 8 } else { 0 };
        let (group_size, strip_size) = (25 + extra, 27 + extra);
        let mut w = Vec::new();
        let i32s = |w: &mut Vec<u8>, vals: &[i32]| vals.iter().for_each(|v| w.extend(v.to_le_bytes()));
        // Header: version, cache size, bones per strip/triangle, bones per vertex, checksum,
        // LODs, material replacement list (patched below), body parts.
        i32s(&mut w, &[7, 24]);
        w.extend(53u16.to_le_bytes());
        w.extend(9u16.to_le_bytes());
        i32s(&mut w, &[3, 0x1234, 1, 0, 1, 36]);
        i32s(&mut w, &[1, 8]); // body part at 36 → model at 44
        i32s(&mut w, &[1, 8]); // model → LOD at 52
        i32s(&mut w, &[1, 12, 0]); // LOD → mesh at 64
        i32s(&mut w, &[2, 9]); // mesh → strip groups at 73
        w.push(0);
        let groups_at = w.len();
        let data_at = groups_at + 2 * group_size;
        // Per group: 3 vertices (27 bytes), 3 indices (6), 1 strip.
        let block = 27 + 6 + strip_size;
        for g in 0..2 {
            let base = groups_at + g * group_size;
            let own = data_at + g * block;
            let rel = |at: usize| (at - base) as i32;
            i32s(&mut w, &[3, rel(own), 3, rel(own + 27), 1, rel(own + 33)]);
            w.push(0);
            w.extend(vec![0; extra]);
        }
        for g in 0..2u16 {
            for v in 0..3u16 {
                w.extend([0, 0, 0, 1]);
                w.extend((10 * g + v).to_le_bytes());
                w.extend([0, 0, 0]);
            }
            for i in [0u16, 2, 1] {
                w.extend(i.to_le_bytes());
            }
            i32s(&mut w, &[3, 0, 3, 0]);
            w.extend(0i16.to_le_bytes());
            w.push(STRIP_TRILIST);
            i32s(&mut w, &[0, 0]);
            w.extend(vec![0; extra]);
        }
        let list_at = w.len() as i32;
        w[24..28].copy_from_slice(&list_at.to_le_bytes());
        i32s(&mut w, &[0, 0]);
        w
    }

    #[test]
    fn both_strip_group_layouts_read_the_same_mesh() {
        for topology in [false, true] {
            let data = build(topology);
            assert!(looks_like_vtx(&data));
            let vtx = Vtx::parse(&data).unwrap();
            assert_eq!(vtx.topology, topology);
            assert_eq!(vtx.checksum, 0x1234);
            let groups = &vtx.body_parts[0][0][0].meshes[0].1;
            assert_eq!(groups.len(), 2);
            assert_eq!(groups[0].vertices, [0, 1, 2]);
            assert_eq!(groups[1].vertices, [10, 11, 12]);
            for g in groups {
                assert_eq!(g.triangles().collect::<Vec<_>>(), [[0, 2, 1]]);
            }
        }
    }
}
