//! Static props as instances of their models: each model named by the static prop lump read
//! once (LOD 0 through `srcmap_model::ModelFiles`, from the pakfile or the game), each prop
//! a placement of it. Props whose model is not found are kept (placed, without a mesh) and
//! counted.

use std::collections::BTreeMap;

use glam::{Mat3, Vec2, Vec3};
use srcmap_bsp::Bsp;
use srcmap_bsp::gamelump::{StaticProp, StaticPropLayout};
use srcmap_model::ModelFiles;

use crate::geometry::angles_rotation;

/// One vertex of a prop model, in model space (inches, Z up).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PropVertex {
    pub position: Vec3,
    pub normal: Vec3,
    pub uv: Vec2,
}

/// The triangles of one model drawn with one material.
#[derive(Debug, Clone, PartialEq)]
pub struct PropPrimitive {
    /// Index into [`Props::materials`].
    pub material: usize,
    /// Indices into [`PropMesh::vertices`], three per triangle.
    pub indices: Vec<u32>,
}

/// A model as drawn with one skin.
#[derive(Debug, Clone, PartialEq)]
pub struct PropMesh {
    /// The model's path (`models/props/chair.mdl`).
    pub model: String,
    pub skin: usize,
    pub vertices: Vec<PropVertex>,
    pub primitives: Vec<PropPrimitive>,
}

/// One static prop.
#[derive(Debug, Clone, PartialEq)]
pub struct PropInstance {
    /// The model's path as the lump names it.
    pub model: String,
    /// Index into [`Props::meshes`]; `None` when the model was not found or has no triangles.
    pub mesh: Option<usize>,
    pub origin: Vec3,
    /// `pitch yaw roll`, degrees.
    pub angles: [f32; 3],
    /// Per axis (uniform before v13); 1 where the lump has no scale.
    pub scale: Vec3,
    pub record: StaticProp,
}

impl PropInstance {
    /// The prop's rotation (applied after its scale, before its origin).
    pub fn rotation(&self) -> Mat3 {
        angles_rotation(self.angles)
    }
}

/// The static props of a map with the meshes of the models found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Props {
    /// Material paths (`models/props/chair_wood`, no extension), as the models name them
    /// (the first texture folder of the model).
    pub materials: Vec<String>,
    pub meshes: Vec<PropMesh>,
    pub instances: Vec<PropInstance>,
    /// Models not found or unreadable, with why and how many props use them.
    pub missing: Vec<(String, String, usize)>,
}

/// A prop's scale from its record: v11/v12 store one factor, v13 three; earlier layouts none.
fn prop_scale(layout: StaticPropLayout, prop: &StaticProp) -> Vec3 {
    let valid = |s: f32| if s.is_finite() && s > 0.0 { s } else { 1.0 };
    match layout {
        StaticPropLayout::V11 | StaticPropLayout::V12 => Vec3::splat(valid(prop.scale[0])),
        StaticPropLayout::V13 => Vec3::from(prop.scale.map(valid)),
        _ => Vec3::ONE,
    }
}

/// Each mesh's vertex range in the .vvd and its skin reference.
fn mesh_ranges(mdl: &srcmap_model::Mdl) -> Vec<(u32, u32, i32)> {
    mdl.meshes()
        .map(|(model, mesh)| {
            let first = (model.first_vertex as u64 + mesh.vertex_offset as u64).min(u32::MAX as u64) as u32;
            (first, first.saturating_add(mesh.vertex_count), mesh.material)
        })
        .collect()
}

/// The material path of triangle `t`: its mesh's skin reference, through the skin family
/// `family`, to a texture under the model's first texture folder ("" when there is none).
fn triangle_material(
    mdl: &srcmap_model::Mdl,
    ranges: &[(u32, u32, i32)],
    family: Option<&Vec<i16>>,
    t: &[u32; 3],
) -> String {
    let reference = ranges
        .iter()
        .find(|(a, b, _)| (*a..*b).contains(&t[0]))
        .map_or(0, |r| r.2);
    let texture = usize::try_from(reference)
        .ok()
        .and_then(|r| family.and_then(|f| f.get(r)).copied().or(Some(r as i16)))
        .and_then(|t| usize::try_from(t).ok())
        .and_then(|t| mdl.textures.get(t));
    match texture {
        Some(t) => {
            let dir = mdl.texture_dirs.first().map_or("", String::as_str);
            srcmap_model::normalise(&format!("{dir}{t}"))
        }
        None => String::new(),
    }
}

/// The LOD 0 mesh of `files` with skin `skin`, materials named through `material`.
fn prop_mesh(
    path: &str,
    files: &ModelFiles,
    skin: usize,
    mut material: impl FnMut(String) -> usize,
) -> Option<PropMesh> {
    let vtx = files.vtx.as_ref()?;
    let mdl = &files.mdl;
    let triangles = vtx.triangles(mdl, 0).ok()?;
    let n = files.vvd.vertices.len() as u32;
    let ranges = mesh_ranges(mdl);
    let family = mdl.skins.get(skin).or(mdl.skins.first());
    let mut by_material: BTreeMap<usize, Vec<u32>> = BTreeMap::new();
    for t in triangles.iter().filter(|t| t.iter().all(|&i| i < n)) {
        let name = triangle_material(mdl, &ranges, family, t);
        by_material.entry(material(name)).or_default().extend(t);
    }
    if by_material.is_empty() {
        return None;
    }
    let (vertices, primitives) = used_vertices(files, by_material);
    Some(PropMesh {
        model: path.to_string(),
        skin,
        vertices,
        primitives,
    })
}

/// Only the vertices the triangles use, renumbered in order of first use; the primitives
/// with their indices renumbered.
fn used_vertices(
    files: &ModelFiles,
    by_material: BTreeMap<usize, Vec<u32>>,
) -> (Vec<PropVertex>, Vec<PropPrimitive>) {
    let mut remap = vec![u32::MAX; files.vvd.vertices.len()];
    let mut vertices = Vec::new();
    let primitives = by_material
        .into_iter()
        .map(|(material, indices)| PropPrimitive {
            material,
            indices: indices
                .into_iter()
                .map(|i| {
                    if remap[i as usize] == u32::MAX {
                        remap[i as usize] = vertices.len() as u32;
                        let v = &files.vvd.vertices[i as usize];
                        vertices.push(PropVertex {
                            position: Vec3::from(v.position),
                            normal: Vec3::from(v.normal).normalize_or(Vec3::Z),
                            uv: Vec2::from(v.uv),
                        });
                    }
                    remap[i as usize]
                })
                .collect(),
        })
        .collect();
    (vertices, primitives)
}

/// A prop model's files, or why they could not be read.
fn load_model(name: &str, read: &mut impl FnMut(&str) -> Option<Vec<u8>>) -> Result<ModelFiles, String> {
    if name.is_empty() {
        return Err("the prop names no model".to_string());
    }
    let files = ModelFiles::load(name, &mut *read).map_err(|e| e.to_string())?;
    // A NaN or 1e37 vertex would reach the GLB as a NaN position and null bounds.
    match files.vvd.first_unusable_vertex() {
        Some(i) => Err(format!(
            "{name}: vertex {i} is not finite or lies beyond ±{}; not drawn",
            srcmap_model::vvd::MAX_VERTEX_COORD
        )),
        None => Ok(files),
    }
}

/// What loading the props remembers from one prop to the next: each model's files, each
/// (model, skin)'s mesh, the models missing (why, how many props), each material's index.
#[derive(Default)]
struct Loaded {
    models: BTreeMap<u16, Result<ModelFiles, String>>,
    meshes: BTreeMap<(u16, usize), Option<usize>>,
    missing: BTreeMap<String, (String, usize)>,
    material_index: BTreeMap<String, usize>,
}

impl Props {
    /// The static props of `bsp`, models read through `read` (a game path such as
    /// `models/x.mdl` to its bytes, `None` when absent).
    pub fn load(bsp: &Bsp, mut read: impl FnMut(&str) -> Option<Vec<u8>>) -> Props {
        let mut out = Props::default();
        let Some(sp) = bsp.game_lumps.static_props() else {
            return out;
        };
        let mut loaded = Loaded::default();
        for prop in &sp.props {
            let name = sp.model_of(prop).unwrap_or("").to_string();
            let mesh = out.mesh_of(&mut loaded, prop, &name, &mut read);
            out.instances.push(PropInstance {
                model: name,
                mesh,
                origin: Vec3::from(prop.origin),
                angles: prop.angles,
                scale: prop_scale(sp.layout, prop),
                record: *prop,
            });
        }
        out.missing = loaded
            .missing
            .into_iter()
            .map(|(name, (why, count))| (name, why, count))
            .collect();
        out
    }

    /// The mesh of `prop`'s model (`name`) with its skin, built the first time that model and
    /// skin are met; `None` (and the model counted missing) when its files cannot be read.
    fn mesh_of(
        &mut self,
        loaded: &mut Loaded,
        prop: &StaticProp,
        name: &str,
        read: &mut impl FnMut(&str) -> Option<Vec<u8>>,
    ) -> Option<usize> {
        let files = loaded
            .models
            .entry(prop.prop_type)
            .or_insert_with(|| load_model(name, read));
        let skin = usize::try_from(prop.skin).unwrap_or(0);
        let files = match files {
            Ok(files) => files,
            Err(why) => {
                loaded
                    .missing
                    .entry(name.to_string())
                    .or_insert_with(|| (why.clone(), 0))
                    .1 += 1;
                return None;
            }
        };
        let material_index = &mut loaded.material_index;
        *loaded
            .meshes
            .entry((prop.prop_type, skin))
            .or_insert_with(|| self.add_mesh(name, files, skin, material_index))
    }

    /// The mesh of `files` with `skin`, added with its new materials; its index, `None` when
    /// it has no triangles.
    fn add_mesh(
        &mut self,
        name: &str,
        files: &ModelFiles,
        skin: usize,
        material_index: &mut BTreeMap<String, usize>,
    ) -> Option<usize> {
        let materials = &mut self.materials;
        let mesh = prop_mesh(name, files, skin, |m| {
            *material_index.entry(m.clone()).or_insert_with(|| {
                materials.push(m);
                materials.len() - 1
            })
        })?;
        self.meshes.push(mesh);
        Some(self.meshes.len() - 1)
    }

    /// Props placed without a mesh (model missing or unreadable).
    pub fn without_mesh(&self) -> usize {
        self.instances.iter().filter(|i| i.mesh.is_none()).count()
    }

    /// A one-line note on the props whose models were not found, `None` when all were.
    pub fn note(&self) -> Option<String> {
        let n = self.without_mesh();
        (n > 0).then(|| {
            let first = self
                .missing
                .first()
                .map(|(_, why, _)| format!("; first: {why}"))
                .unwrap_or_default();
            format!(
                "{n} of {} static props have no model ({} models not found or unreadable{first}): placed as empty nodes",
                self.instances.len(),
                self.missing.len()
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A corpus chair's files under `models/chair.*`, its first vertex's x set to `x`.
    fn chair_with_first_x(x: f32) -> Option<BTreeMap<String, Vec<u8>>> {
        let root = srcmap_corpus::root("a prop model with a non-finite vertex")?;
        let dir = root.join("model/kane8kki+whohl2mod/models/bluechaire");
        let mut files = BTreeMap::new();
        for suffix in [".mdl", ".vvd", ".dx90.vtx"] {
            let bytes = std::fs::read(dir.join(format!("bluewoodnchair{suffix}"))).unwrap();
            files.insert(format!("models/bluechaire/bluewoodnchair{suffix}"), bytes);
        }
        let vvd = files.get_mut("models/bluechaire/bluewoodnchair.vvd").unwrap();
        // The header's vertexDataStart (byte 56); a vertex's position follows 16 bytes of weights.
        let start = u32::from_le_bytes(vvd[56..60].try_into().unwrap()) as usize + 16;
        vvd[start..start + 4].copy_from_slice(&x.to_le_bytes());
        Some(files)
    }

    #[test]
    fn a_model_with_a_vertex_not_finite_or_absurd_is_not_drawn_and_named() {
        let name = "models/bluechaire/bluewoodnchair.mdl";
        for x in [f32::NAN, f32::INFINITY, 1e37] {
            let Some(files) = chair_with_first_x(x) else {
                return;
            };
            let err = load_model(name, &mut |p| files.get(p).cloned()).unwrap_err();
            assert!(
                err.starts_with(name) && err.contains("vertex 0 is not finite"),
                "{x}: {err}"
            );
        }
        let files = chair_with_first_x(1.5).unwrap();
        load_model(name, &mut |p| files.get(p).cloned()).unwrap();
    }
}
