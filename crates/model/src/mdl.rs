//! The `.mdl` studio header (`studiohdr_t`, versions 44–49) and the parts of it the map
//! tools use: flags and bounds, textures and their search folders, skins, body parts →
//! models → meshes with their per-LOD vertex counts, include models and the key-value text.

use srcmap_bytes::{Endian, Reader};

use crate::{Context, MAX_LODS, ModelError, index};

const FORMAT: &str = "MDL";

/// `STUDIOHDR_FLAGS_STATIC_PROP`: compiled with `$staticprop`.
pub const FLAG_STATIC_PROP: u32 = 0x10;

/// Versions whose header and mesh records share the layout read here.
pub const VERSIONS: std::ops::RangeInclusive<i32> = 44..=49;

/// Size of `mstudiotexture_t`.
const TEXTURE_SIZE: usize = 64;
/// Size of `mstudiobodyparts_t`.
const BODY_PART_SIZE: usize = 16;
/// Size of `mstudiomodel_t`.
const MODEL_SIZE: usize = 148;
/// Size of `mstudiomesh_t`.
const MESH_SIZE: usize = 116;
/// Size of `mstudiomodelgroup_t`.
const INCLUDE_SIZE: usize = 8;
/// Size of one VVD vertex (`mstudiovertex_t`): a model's `vertexindex` is a byte offset.
pub const VERTEX_SIZE: usize = 48;

#[derive(Debug, Clone, PartialEq)]
pub struct Mdl {
    pub version: i32,
    /// Shared with the `.vvd`, `.vtx` and `.phy` of the same compile.
    pub checksum: u32,
    /// The name the model was compiled as (`props/chair.mdl`, relative to `models/`).
    pub name: String,
    /// Total file size the header claims.
    pub length: u32,
    pub eye_position: [f32; 3],
    pub illum_position: [f32; 3],
    pub hull_min: [f32; 3],
    pub hull_max: [f32; 3],
    pub view_min: [f32; 3],
    pub view_max: [f32; 3],
    pub flags: u32,
    pub bone_count: u32,
    pub sequence_count: u32,
    /// Material names (`mstudiotexture_t`), without folder.
    pub textures: Vec<String>,
    /// Folders under `materials/` searched for each texture (`$cdmaterials`).
    pub texture_dirs: Vec<String>,
    /// Texture index per skin family and skin reference.
    pub skins: Vec<Vec<i16>>,
    pub body_parts: Vec<BodyPart>,
    pub surface_prop: String,
    /// The `$keyvalues` text (`mdlkeyvalue { prop_data { … } }`), empty when none.
    pub key_values: String,
    pub mass: f32,
    pub contents: u32,
    pub include_models: Vec<IncludeModel>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct BodyPart {
    pub name: String,
    pub base: i32,
    pub models: Vec<SubModel>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SubModel {
    pub name: String,
    pub bounding_radius: f32,
    pub vertex_count: u32,
    /// Index of the model's first vertex in the `.vvd` (its byte offset over the vertex size).
    pub first_vertex: usize,
    pub meshes: Vec<Mesh>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Mesh {
    /// Skin reference (index into a skin family).
    pub material: i32,
    pub vertex_count: u32,
    /// First vertex, relative to the model's first.
    pub vertex_offset: u32,
    pub center: [f32; 3],
    /// Vertices of this mesh in each LOD.
    pub lod_vertex_counts: [u32; MAX_LODS],
}

/// `$includemodel`: animations shared from another model.
#[derive(Debug, Clone, PartialEq)]
pub struct IncludeModel {
    pub label: String,
    pub name: String,
}

/// Whether a model may be a `prop_static`, by Valve's VBSP rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StaticUse {
    Allowed,
    /// Not compiled with `$staticprop`.
    NotStaticProp,
    /// Has `prop_data` without `allowstatic`: meant for a dynamic entity.
    Dynamic,
}

/// The header fields at fixed offsets, read in file order.
struct Header {
    bones: (i32, i32),
    sequences: i32,
    textures: (i32, i32),
    cd_textures: (i32, i32),
    skins: (i32, i32, i32),
    body_parts: (i32, i32),
    surface_prop: i32,
    key_values: (i32, i32),
    mass: f32,
    contents: u32,
    includes: (i32, i32),
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn fixed_str(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    text(&bytes[..end])
}

/// The NUL-terminated string at absolute offset `at`; offset 0 is Valve's "no string".
fn string_at(data: &[u8], at: usize, structure: &'static str) -> Result<String, ModelError> {
    if at == 0 {
        return Ok(String::new());
    }
    let mut r = Reader::new(data, Endian::Little);
    r.seek(at).at(FORMAT, structure)?;
    r.cstr().map(text).at(FORMAT, structure)
}

/// A reader at `offset` that holds `count` records of `size` bytes.
fn records<'a>(
    data: &'a [u8],
    offset: usize,
    count: i32,
    size: usize,
    structure: &'static str,
) -> Result<(Reader<'a>, usize), ModelError> {
    let mut r = Reader::new(data, Endian::Little);
    let count = index(count, FORMAT, structure, offset as u64)?;
    if count == 0 {
        return Ok((r, 0));
    }
    r.seek(offset).at(FORMAT, structure)?;
    r.check_count(count as u64, size as u64).at(FORMAT, structure)?;
    Ok((r, count))
}

fn pair(r: &mut Reader<'_>) -> Result<(i32, i32), ModelError> {
    Ok((
        r.i32().at(FORMAT, "studiohdr_t")?,
        r.i32().at(FORMAT, "studiohdr_t")?,
    ))
}

impl Mdl {
    pub fn parse(data: &[u8]) -> Result<Mdl, ModelError> {
        let mut r = Reader::new(data, Endian::Little);
        let p = read_prologue(&mut r, data.len())?;
        let hdr = read_header(&mut r)?;
        let at = |v: i32| index(v, FORMAT, "studiohdr_t", 0);
        Ok(Mdl {
            version: p.version,
            checksum: p.checksum,
            name: p.name,
            length: p.length,
            eye_position: p.eye_position,
            illum_position: p.illum_position,
            hull_min: p.hull_min,
            hull_max: p.hull_max,
            view_min: p.view_min,
            view_max: p.view_max,
            flags: p.flags,
            bone_count: at(hdr.bones.0)? as u32,
            sequence_count: at(hdr.sequences)? as u32,
            textures: read_textures(data, &hdr)?,
            texture_dirs: read_texture_dirs(data, &hdr)?,
            skins: read_skins(data, &hdr)?,
            body_parts: read_body_parts(data, &hdr)?,
            surface_prop: string_at(data, at(hdr.surface_prop)?, "surface prop")?,
            key_values: read_key_values(data, &hdr)?,
            mass: hdr.mass,
            contents: hdr.contents,
            include_models: read_includes(data, &hdr)?,
        })
    }

    pub fn is_static_prop(&self) -> bool {
        self.flags & FLAG_STATIC_PROP != 0
    }

    /// The `prop_data` block of the key values, as (key, value) pairs, when there is one.
    pub fn prop_data(&self) -> Option<Vec<(String, String)>> {
        let doc = srcmap_kv::Document::parse(self.key_values.as_str()).ok()?;
        // As Valve's KeyValues::LoadFromBuffer: the text's first block is the root.
        let root = doc.children(srcmap_kv::NodeId::ROOT).find(|&c| doc.is_block(c))?;
        let block = doc.find_child(root, "prop_data")?;
        Some(
            doc.children(block)
                .filter(|&c| !doc.is_block(c))
                .map(|c| (doc.key(c).to_string(), doc.value(c).unwrap_or("").to_string()))
                .collect(),
        )
    }

    /// Valve's `IsStaticProp`: `$staticprop`, and a `prop_data` only with `allowstatic`.
    pub fn static_use(&self) -> StaticUse {
        if !self.is_static_prop() {
            return StaticUse::NotStaticProp;
        }
        match self.prop_data() {
            Some(kv) => {
                let allow = kv.iter().find(|(k, _)| k.eq_ignore_ascii_case("allowstatic"));
                // KeyValues::GetInt: a leading integer, 0 when there is none.
                let value = allow.map_or(0, |(_, v)| leading_int(v));
                if value != 0 {
                    StaticUse::Allowed
                } else {
                    StaticUse::Dynamic
                }
            }
            None => StaticUse::Allowed,
        }
    }

    /// Sum over every mesh of its vertices in `lod`.
    pub fn lod_vertex_count(&self, lod: usize) -> u64 {
        self.meshes()
            .map(|(_, m)| m.lod_vertex_counts.get(lod).copied().unwrap_or(0) as u64)
            .sum()
    }

    /// Every mesh with its model, in body part → model → mesh order.
    pub fn meshes(&self) -> impl Iterator<Item = (&SubModel, &Mesh)> {
        self.body_parts
            .iter()
            .flat_map(|p| &p.models)
            .flat_map(|m| m.meshes.iter().map(move |mesh| (m, mesh)))
    }
}

/// The header's values up to its flags: identity, length and the model's boxes.
struct Prologue {
    version: i32,
    checksum: u32,
    name: String,
    length: u32,
    eye_position: [f32; 3],
    illum_position: [f32; 3],
    hull_min: [f32; 3],
    hull_max: [f32; 3],
    view_min: [f32; 3],
    view_max: [f32; 3],
    flags: u32,
}

/// `studiohdr_t` up to its flags: magic and version checked, the length within the file.
fn read_prologue(r: &mut Reader<'_>, file_len: usize) -> Result<Prologue, ModelError> {
    let h = "studiohdr_t";
    let version = read_version(r)?;
    let checksum = r.u32().at(FORMAT, h)?;
    let name = fixed_str(r.bytes(64).at(FORMAT, h)?);
    let length = read_length(r, file_len)?;
    let mut vec = || r.vec3().at(FORMAT, h);
    let (eye_position, illum_position) = (vec()?, vec()?);
    let (hull_min, hull_max, view_min, view_max) = (vec()?, vec()?, vec()?, vec()?);
    Ok(Prologue {
        version,
        checksum,
        name,
        length,
        eye_position,
        illum_position,
        hull_min,
        hull_max,
        view_min,
        view_max,
        flags: r.u32().at(FORMAT, h)?,
    })
}

/// The file's length as its header gives it, which must not pass the file's end.
fn read_length(r: &mut Reader<'_>, file_len: usize) -> Result<u32, ModelError> {
    let length = r.u32().at(FORMAT, "studiohdr_t")?;
    if length as usize > file_len {
        return Err(ModelError::format(
            FORMAT,
            "studiohdr_t",
            76,
            format!("length {length} past the end of the {file_len}-byte file"),
        ));
    }
    Ok(length)
}

/// The magic (`IDST`) and a version of [`VERSIONS`].
fn read_version(r: &mut Reader<'_>) -> Result<i32, ModelError> {
    let h = "studiohdr_t";
    let id = r.array::<4>().at(FORMAT, h)?;
    if &id != b"IDST" {
        return Err(ModelError::format(FORMAT, h, 0, "not an MDL (no IDST)"));
    }
    let version = r.i32().at(FORMAT, h)?;
    if !VERSIONS.contains(&version) {
        return Err(ModelError::format(
            FORMAT,
            h,
            4,
            format!("version {version}, expected 44 to 49"),
        ));
    }
    Ok(version)
}

/// `studiohdr_t` after the flags: the counts and offsets of what follows, mass and contents.
fn read_header(r: &mut Reader<'_>) -> Result<Header, ModelError> {
    let h = "studiohdr_t";
    let bones = pair(r)?;
    r.skip(8 * 3).at(FORMAT, h)?; // bone controllers, hitbox sets, local animations
    let sequences = pair(r)?.0;
    r.skip(8).at(FORMAT, h)?; // activity list version, events indexed
    let textures = pair(r)?;
    let cd_textures = pair(r)?;
    let skins = read_skin_header(r)?;
    let body_parts = pair(r)?;
    // attachments (2), nodes (3), flex descs, controllers, rules, IK chains, mouths,
    // pose parameters (2 each)
    r.skip(4 * (2 + 3 + 2 * 6)).at(FORMAT, h)?;
    let surface_prop = r.i32().at(FORMAT, h)?;
    let key_values = pair(r)?;
    r.skip(8).at(FORMAT, h)?; // IK autoplay locks
    Ok(Header {
        bones,
        sequences,
        textures,
        cd_textures,
        skins,
        body_parts,
        surface_prop,
        key_values,
        mass: r.f32().at(FORMAT, h)?,
        contents: r.u32().at(FORMAT, h)?,
        includes: pair(r)?,
    })
}

/// The skin table's reference count, family count and offset.
fn read_skin_header(r: &mut Reader<'_>) -> Result<(i32, i32, i32), ModelError> {
    let (refs, families) = pair(r)?;
    Ok((refs, families, r.i32().at(FORMAT, "studiohdr_t")?))
}

fn leading_int(v: &str) -> i64 {
    let v = v.trim_start();
    let end = v
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && (c == '-' || c == '+'))))
        .map_or(v.len(), |(i, _)| i);
    v[..end].parse().unwrap_or(0)
}

fn read_textures(data: &[u8], h: &Header) -> Result<Vec<String>, ModelError> {
    let s = "mstudiotexture_t";
    let base = index(h.textures.1, FORMAT, s, 0)?;
    let (mut r, count) = records(data, base, h.textures.0, TEXTURE_SIZE, s)?;
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let rec = base + i * TEXTURE_SIZE;
        let name_at = r.i32().at(FORMAT, s)?;
        r.skip(TEXTURE_SIZE - 4).at(FORMAT, s)?;
        let at = rec as i64 + name_at as i64;
        let at = usize::try_from(at)
            .map_err(|_| ModelError::format(FORMAT, s, rec as u64, "name before the file"))?;
        out.push(string_at(data, at, s)?);
    }
    Ok(out)
}

fn read_texture_dirs(data: &[u8], h: &Header) -> Result<Vec<String>, ModelError> {
    let s = "cdtexture";
    let base = index(h.cd_textures.1, FORMAT, s, 0)?;
    let (mut r, count) = records(data, base, h.cd_textures.0, 4, s)?;
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let at = r.i32().at(FORMAT, s)?;
        out.push(string_at(data, index(at, FORMAT, s, r.offset())?, s)?);
    }
    Ok(out)
}

fn read_skins(data: &[u8], h: &Header) -> Result<Vec<Vec<i16>>, ModelError> {
    let s = "skin table";
    let (refs, families, at) = h.skins;
    let refs = index(refs, FORMAT, s, 0)?;
    let families = index(families, FORMAT, s, 0)?;
    let base = index(at, FORMAT, s, 0)?;
    let total = i32::try_from(refs.saturating_mul(families))
        .map_err(|_| ModelError::format(FORMAT, s, base as u64, "skin table too large"))?;
    let (mut r, _) = records(data, base, total, 2, s)?;
    // Families of no textures take no bytes, so the file's size does not bound their count:
    // bound it by hand (a real model has a few dozen at most).
    if refs == 0 && families > data.len() {
        return Err(ModelError::format(
            FORMAT,
            s,
            base as u64,
            format!(
                "{families} skin families of no textures in a {}-byte file",
                data.len()
            ),
        ));
    }
    read_skin_families(&mut r, refs, families)
}

/// `families` rows of `refs` texture indices.
fn read_skin_families(r: &mut Reader<'_>, refs: usize, families: usize) -> Result<Vec<Vec<i16>>, ModelError> {
    let mut out = Vec::with_capacity(families);
    for _ in 0..families {
        let mut family = Vec::with_capacity(refs);
        for _ in 0..refs {
            family.push(r.i16().at(FORMAT, "skin table")?);
        }
        out.push(family);
    }
    Ok(out)
}

/// `base + relative`, checked to be inside the file's address space.
fn relative(base: usize, rel: i32, structure: &'static str) -> Result<usize, ModelError> {
    usize::try_from(base as i64 + rel as i64)
        .map_err(|_| ModelError::format(FORMAT, structure, base as u64, "offset before the file"))
}

fn read_body_parts(data: &[u8], h: &Header) -> Result<Vec<BodyPart>, ModelError> {
    let s = "mstudiobodyparts_t";
    let base = index(h.body_parts.1, FORMAT, s, 0)?;
    let (mut r, count) = records(data, base, h.body_parts.0, BODY_PART_SIZE, s)?;
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let rec = base + i * BODY_PART_SIZE;
        let name_at = r.i32().at(FORMAT, s)?;
        let model_count = r.i32().at(FORMAT, s)?;
        let part_base = r.i32().at(FORMAT, s)?;
        let model_at = r.i32().at(FORMAT, s)?;
        let name = string_at(data, relative(rec, name_at, s)?, s)?;
        let models = read_models(data, relative(rec, model_at, s)?, model_count)?;
        out.push(BodyPart {
            name,
            base: part_base,
            models,
        });
    }
    Ok(out)
}

fn read_models(data: &[u8], base: usize, count: i32) -> Result<Vec<SubModel>, ModelError> {
    let s = "mstudiomodel_t";
    let (mut r, count) = records(data, base, count, MODEL_SIZE, s)?;
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        out.push(read_model(data, &mut r, base + i * MODEL_SIZE)?);
    }
    Ok(out)
}

/// One `mstudiomodel_t` (at `rec`, `r` at its start) with its meshes.
fn read_model(data: &[u8], r: &mut Reader<'_>, rec: usize) -> Result<SubModel, ModelError> {
    let s = "mstudiomodel_t";
    let name = fixed_str(r.bytes(64).at(FORMAT, s)?);
    let _kind = r.i32().at(FORMAT, s)?;
    let bounding_radius = r.f32().at(FORMAT, s)?;
    let mesh_count = r.i32().at(FORMAT, s)?;
    let mesh_at = r.i32().at(FORMAT, s)?;
    let vertex_count = r.i32().at(FORMAT, s)?;
    let vertex_at = r.i32().at(FORMAT, s)?;
    r.skip(MODEL_SIZE - 64 - 6 * 4).at(FORMAT, s)?;
    let vertex_at = index(vertex_at, FORMAT, s, rec as u64)?;
    if vertex_at % VERTEX_SIZE != 0 {
        return Err(ModelError::format(
            FORMAT,
            s,
            rec as u64,
            format!("vertex offset {vertex_at} is not a whole vertex"),
        ));
    }
    Ok(SubModel {
        name,
        bounding_radius,
        vertex_count: index(vertex_count, FORMAT, s, rec as u64)? as u32,
        first_vertex: vertex_at / VERTEX_SIZE,
        meshes: read_meshes(data, relative(rec, mesh_at, s)?, mesh_count)?,
    })
}

fn read_meshes(data: &[u8], base: usize, count: i32) -> Result<Vec<Mesh>, ModelError> {
    let s = "mstudiomesh_t";
    let (mut r, count) = records(data, base, count, MESH_SIZE, s)?;
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let rec = (base + i * MESH_SIZE) as u64;
        let material = r.i32().at(FORMAT, s)?;
        let _model_at = r.i32().at(FORMAT, s)?;
        let vertex_count = index(r.i32().at(FORMAT, s)?, FORMAT, s, rec)? as u32;
        let vertex_offset = index(r.i32().at(FORMAT, s)?, FORMAT, s, rec)? as u32;
        r.skip(5 * 4).at(FORMAT, s)?; // flexes, material type/param, mesh id
        let center = r.vec3().at(FORMAT, s)?;
        r.skip(4).at(FORMAT, s)?; // vertex data pointer, filled in at run time
        let mut lod_vertex_counts = [0u32; MAX_LODS];
        for c in &mut lod_vertex_counts {
            *c = index(r.i32().at(FORMAT, s)?, FORMAT, s, rec)? as u32;
        }
        r.skip(8 * 4).at(FORMAT, s)?;
        out.push(Mesh {
            material,
            vertex_count,
            vertex_offset,
            center,
            lod_vertex_counts,
        });
    }
    Ok(out)
}

fn read_key_values(data: &[u8], h: &Header) -> Result<String, ModelError> {
    let s = "key values";
    let (at, size) = h.key_values;
    if size <= 0 || at <= 0 {
        return Ok(String::new());
    }
    let mut r = Reader::new(data, Endian::Little);
    r.seek(at as usize).at(FORMAT, s)?;
    let bytes = r.bytes(size as usize).at(FORMAT, s)?;
    Ok(fixed_str(bytes))
}

fn read_includes(data: &[u8], h: &Header) -> Result<Vec<IncludeModel>, ModelError> {
    let s = "mstudiomodelgroup_t";
    let base = index(h.includes.1, FORMAT, s, 0)?;
    let (mut r, count) = records(data, base, h.includes.0, INCLUDE_SIZE, s)?;
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let rec = base + i * INCLUDE_SIZE;
        let label_at = r.i32().at(FORMAT, s)?;
        let name_at = r.i32().at(FORMAT, s)?;
        let str_rel = |rel: i32| -> Result<String, ModelError> {
            if rel == 0 {
                Ok(String::new())
            } else {
                string_at(data, relative(rec, rel, s)?, s)
            }
        };
        out.push(IncludeModel {
            label: str_rel(label_at)?,
            name: str_rel(name_at)?,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the fuzzer in CI: a header claiming 2^31-1 skin families of zero textures
    /// asked for 51 GB before anything was read.
    #[test]
    fn skin_families_without_textures_are_bounded() {
        let mut mdl = vec![0u8; 408];
        mdl[..4].copy_from_slice(b"IDST");
        mdl[4..8].copy_from_slice(&48i32.to_le_bytes());
        mdl[76..80].copy_from_slice(&408u32.to_le_bytes());
        mdl[224..228].copy_from_slice(&i32::MAX.to_le_bytes()); // skin families; 0 references
        let err = Mdl::parse(&mdl).expect_err("refused");
        assert!(err.to_string().contains("skin families"), "{err}");
        mdl[224..228].copy_from_slice(&3i32.to_le_bytes());
        assert_eq!(Mdl::parse(&mdl).map(|m| m.skins.len()).ok(), Some(3));
    }

    #[test]
    fn leading_int_reads_like_keyvalues_getint() {
        assert_eq!(leading_int("1"), 1);
        assert_eq!(leading_int(" 12abc"), 12);
        assert_eq!(leading_int("abc"), 0);
        assert_eq!(leading_int(""), 0);
        assert_eq!(leading_int("-3"), -3);
    }
}
