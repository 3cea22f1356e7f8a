//! glTF 2.0 of a [`MapMesh`]: one mesh per model (a primitive per material), one node per
//! entity with its key/values in `extras`, the lightmap atlas as a texture read through the
//! second UV set. Source's Z-up inches become glTF's Y-up metres.

use glam::{Mat3, Quat, Vec3};
use serde_json::{Map, Value, json};
use srcmap_bsp::Bsp;

use crate::ExportError;
pub use crate::geometry::{angles_rotation, parse_vec3};
use crate::glb::Glb;
use crate::image::Rgb8;
use crate::mesh::MapMesh;
pub use crate::mesh::TRANSLUCENT_ALPHA;
use crate::props::Props;
use crate::texture::TextureLookup;

/// Metres per inch (Source units are inches).
pub const METRES_PER_UNIT: f32 = 0.0254;

/// Source (X forward, Y left, Z up) to glTF (Y up, Z towards the viewer): a rotation.
fn to_gltf(p: Vec3) -> Vec3 {
    Vec3::new(p.x, p.z, -p.y)
}

const BASIS: Mat3 = Mat3::from_cols_array(&[1.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 1.0, 0.0]);

/// What the materials' textures are.
pub struct ExportOptions<'a> {
    /// Per material of the mesh (same index): its texture, or empty when none was looked up
    /// (every material a flat colour from its reflectivity).
    pub textures: &'a [TextureLookup],
}

/// The binary buffer and the arrays that index into it, filled in the order things are added.
#[derive(Default)]
struct Buffers {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
    images: Vec<Value>,
    textures: Vec<Value>,
}

impl Buffers {
    /// Appends `bytes` to the buffer as a buffer view (4-byte aligned) and returns its index.
    fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        self.bin.resize(self.bin.len().next_multiple_of(4), 0);
        let mut view = json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()});
        if let Some(t) = target {
            view["target"] = json!(t);
        }
        self.bin.extend_from_slice(bytes);
        self.views.push(view);
        self.views.len() - 1
    }

    /// A vertex attribute accessor (floats) over `items`, with bounds when asked.
    fn attribute<const N: usize>(&mut self, items: &[[f32; N]], bounds: bool) -> usize {
        let view = self.view(&f32_bytes(items.iter().copied()), Some(34962));
        let kind = if N == 3 { "VEC3" } else { "VEC2" };
        let mut acc = json!({"bufferView": view, "componentType": 5126, "count": items.len(), "type": kind});
        if bounds {
            let (lo, hi) = min_max(items);
            acc["min"] = json!(lo);
            acc["max"] = json!(hi);
        }
        self.accessors.push(acc);
        self.accessors.len() - 1
    }

    /// POSITION (metres), NORMAL (glTF axes) and one TEXCOORD_k per UV set.
    fn vertex_attributes(
        &mut self,
        positions: impl Iterator<Item = Vec3>,
        normals: impl Iterator<Item = Vec3>,
        uv_sets: &[Vec<[f32; 2]>],
    ) -> Map<String, Value> {
        let positions: Vec<[f32; 3]> = positions
            .map(|p| (to_gltf(p) * METRES_PER_UNIT).to_array())
            .collect();
        let normals: Vec<[f32; 3]> = normals.map(|n| to_gltf(n).to_array()).collect();
        let mut attributes = Map::new();
        attributes.insert("POSITION".into(), json!(self.attribute(&positions, true)));
        attributes.insert("NORMAL".into(), json!(self.attribute(&normals, false)));
        for (k, uvs) in uv_sets.iter().enumerate() {
            attributes.insert(format!("TEXCOORD_{k}"), json!(self.attribute(uvs, false)));
        }
        attributes
    }

    /// A triangle index accessor over `indices`.
    fn indices(&mut self, indices: &[u32]) -> usize {
        let bytes: Vec<u8> = indices.iter().flat_map(|i| i.to_le_bytes()).collect();
        let view = self.view(&bytes, Some(34963));
        self.accessors.push(
            json!({"bufferView": view, "componentType": 5125, "count": indices.len(), "type": "SCALAR"}),
        );
        self.accessors.len() - 1
    }

    /// A PNG image and a texture sampling it with `sampler`; returns the texture's index.
    fn texture(&mut self, png: &[u8], name: &str, sampler: usize) -> usize {
        let view = self.view(png, None);
        self.images
            .push(json!({"bufferView": view, "mimeType": "image/png", "name": name}));
        self.textures
            .push(json!({"source": self.images.len() - 1, "sampler": sampler, "name": name}));
        self.textures.len() - 1
    }

    /// A material's base colour: the checkerboard when its texture is missing, its decoded
    /// texture when found, `flat` otherwise.
    fn base_colour(
        &mut self,
        name: &str,
        missing: bool,
        lookup: Option<&TextureLookup>,
        checker_texture: usize,
        flat: [f32; 4],
    ) -> Result<Value, ExportError> {
        let mut pbr = json!({"metallicFactor": 0.0, "roughnessFactor": 1.0});
        if missing {
            pbr["baseColorTexture"] = json!({"index": checker_texture});
        } else if let Some(TextureLookup::Found(image)) = lookup {
            pbr["baseColorTexture"] = json!({"index": self.texture(&image.to_png()?, name, 2)});
        } else {
            pbr["baseColorFactor"] = json!(flat);
        }
        Ok(pbr)
    }
}

fn f32_bytes<const N: usize>(items: impl Iterator<Item = [f32; N]>) -> Vec<u8> {
    items
        .flat_map(|a| a.into_iter().flat_map(f32::to_le_bytes))
        .collect()
}

fn min_max<const N: usize>(items: &[[f32; N]]) -> (Vec<f32>, Vec<f32>) {
    let mut lo = vec![f32::MAX; N];
    let mut hi = vec![f32::MIN; N];
    for it in items {
        for k in 0..N {
            lo[k] = lo[k].min(it[k]);
            hi[k] = hi[k].max(it[k]);
        }
    }
    (lo, hi)
}

/// The key/values of an entity as a JSON object; repeated keys (outputs) become arrays.
fn entity_extras<'e>(pairs: impl Iterator<Item = (&'e str, &'e str)>) -> Value {
    let mut map = Map::new();
    for (k, v) in pairs {
        match map.get_mut(k) {
            None => {
                map.insert(k.to_string(), Value::String(v.to_string()));
            }
            Some(Value::Array(a)) => a.push(Value::String(v.to_string())),
            Some(prev) => {
                let first = prev.take();
                *prev = Value::Array(vec![first, Value::String(v.to_string())]);
            }
        }
    }
    Value::Object(map)
}

/// The glTF document and buffer of `mesh` (built from `bsp`).
pub fn to_glb(bsp: &Bsp, mesh: &MapMesh, options: &ExportOptions<'_>) -> Result<Glb, ExportError> {
    to_glb_with_props(bsp, mesh, options, &Props::default(), &[])
}

/// The light styles of the drawn faces beyond the first (switchable and animated lights, not
/// in the atlas): each style number with the faces that carry it.
fn light_styles(mesh: &MapMesh) -> Value {
    let mut by_style: std::collections::BTreeMap<u8, Vec<usize>> = Default::default();
    for (face, styles) in &mesh.face_styles {
        for &s in styles.iter().skip(1).take_while(|&&s| s != 255) {
            by_style.entry(s).or_default().push(*face);
        }
    }
    Value::Object(
        by_style
            .into_iter()
            .map(|(s, faces)| (s.to_string(), json!(faces)))
            .collect(),
    )
}

/// A prop's record as JSON: the fields a mapper sets in Hammer and those the compile adds.
fn prop_extras(props: &Props, index: usize) -> Value {
    let p = &props.instances[index];
    let r = &p.record;
    json!({
        "classname": "prop_static",
        "model": p.model,
        "index": index,
        "origin": r.origin,
        "angles": r.angles,
        "skin": r.skin,
        "solid": r.solid,
        "flags": r.flags,
        "fademindist": r.fade_min_dist,
        "fademaxdist": r.fade_max_dist,
        "lightingorigin": r.lighting_origin,
        "fadescale": r.forced_fade_scale,
        "scale": p.scale.to_array(),
        "first_leaf": r.first_leaf,
        "leaf_count": r.leaf_count,
        "model_found": p.mesh.is_some(),
    })
}

/// [`to_glb`] with static props: one mesh per model (and skin), a node per prop with its
/// placement and record in `extras`; `prop_textures` per [`Props::materials`] (empty: flat).
pub fn to_glb_with_props(
    bsp: &Bsp,
    mesh: &MapMesh,
    options: &ExportOptions<'_>,
    props: &Props,
    prop_textures: &[TextureLookup],
) -> Result<Glb, ExportError> {
    let mut buffers = Buffers::default();
    let attributes = map_vertex_attributes(&mut buffers, mesh);
    let missing = missing_textures(mesh.materials.iter().map(|m| m.name.as_str()), options.textures);
    let prop_missing = missing_textures(props.materials.iter().map(String::as_str), prop_textures);
    let checker_texture = atlas_and_checker(
        &mut buffers,
        mesh,
        missing.contains(&true) || prop_missing.contains(&true),
    )?;
    let mut materials = map_materials(&mut buffers, mesh, options, &missing, checker_texture)?;
    let prop_material_base = materials.len();
    materials.extend(prop_materials(
        &mut buffers,
        props,
        prop_textures,
        &prop_missing,
        checker_texture,
    )?);
    let (mut meshes, model_mesh) = model_meshes(&mut buffers, mesh, &attributes, bsp.models.len());
    let prop_meshes = prop_meshes(&mut buffers, props, prop_material_base, &mut meshes);
    let nodes = scene_nodes(bsp, props, &model_mesh, &prop_meshes);
    document(mesh, props, buffers, nodes, materials, meshes)
}

/// The map's vertex attributes (position, normal, texture and lightmap UVs), none when the
/// mesh has no vertices.
fn map_vertex_attributes(buffers: &mut Buffers, mesh: &MapMesh) -> Map<String, Value> {
    if mesh.vertices.is_empty() {
        return Map::new();
    }
    let uv_sets = [
        mesh.vertices.iter().map(|v| v.uv.to_array()).collect(),
        mesh.vertices.iter().map(|v| v.light_uv.to_array()).collect(),
    ];
    buffers.vertex_attributes(
        mesh.vertices.iter().map(|v| v.position),
        mesh.vertices.iter().map(|v| v.normal),
        &uv_sets,
    )
}

/// Per material (by name, with its looked-up texture), whether it is drawn with the
/// checkerboard: it names no texture or its texture was not found.
fn missing_textures<'n>(names: impl Iterator<Item = &'n str>, textures: &[TextureLookup]) -> Vec<bool> {
    names
        .enumerate()
        .map(|(i, name)| name.is_empty() || textures.get(i) == Some(&TextureLookup::Missing))
        .collect()
}

/// The scene's nodes: the root ("map"), then a node per entity (and unnamed model) and per
/// static prop, all children of the root.
fn scene_nodes(bsp: &Bsp, props: &Props, model_mesh: &[Option<usize>], prop_meshes: &[usize]) -> Vec<Value> {
    let mut nodes: Vec<Value> = vec![json!({"name": "map"})];
    let mut children = Vec::new();
    entity_nodes(bsp, model_mesh, &mut nodes, &mut children);
    prop_nodes(props, prop_meshes, &mut nodes, &mut children);
    if !children.is_empty() {
        nodes[0]["children"] = json!(children);
    }
    nodes
}

/// The lightmap atlas (texture 0), then the checkerboard when a material needs it; returns
/// the checkerboard's texture index (0 when none was added: nothing refers to it).
fn atlas_and_checker(
    buffers: &mut Buffers,
    mesh: &MapMesh,
    checker_needed: bool,
) -> Result<usize, ExportError> {
    let atlas_png = Rgb8 {
        width: mesh.atlas.width,
        height: mesh.atlas.height,
        pixels: mesh.atlas.pixels.clone(),
    }
    .to_png()?;
    buffers.texture(&atlas_png, "lightmap atlas", 0);
    Ok(if checker_needed {
        buffers.texture(&Rgb8::checkerboard(64, 8).to_png()?, "missing texture", 1)
    } else {
        0
    })
}

/// The map's materials, in the mesh's order: base colour, the lightmap atlas in `extras`,
/// translucency for water and SURF_TRANS.
fn map_materials(
    buffers: &mut Buffers,
    mesh: &MapMesh,
    options: &ExportOptions<'_>,
    missing: &[bool],
    checker_texture: usize,
) -> Result<Vec<Value>, ExportError> {
    let mut materials = Vec::with_capacity(mesh.materials.len());
    for (i, (m, &missing)) in mesh.materials.iter().zip(missing).enumerate() {
        let texture = options.textures.get(i);
        materials.push(map_material(buffers, m, missing, texture, checker_texture)?);
    }
    Ok(materials)
}

/// One map material: its base colour (texture, checkerboard or reflectivity), the lightmap
/// atlas in `extras`, see-through when translucent.
fn map_material(
    buffers: &mut Buffers,
    m: &crate::mesh::Material,
    missing: bool,
    texture: Option<&TextureLookup>,
    checker_texture: usize,
) -> Result<Value, ExportError> {
    let [r, g, b] = m.reflectivity.map(|c| c.clamp(0.0, 1.0));
    let pbr = buffers.base_colour(&m.name, missing, texture, checker_texture, [r, g, b, 1.0])?;
    let mut material = json!({
        "name": if m.name.is_empty() { "(no texture)" } else { m.name.as_str() },
        "pbrMetallicRoughness": pbr,
        "extras": {
            "texture_missing": missing,
            // glTF has no lightmap slot: the atlas and the UV set that reads it.
            "lightmap": {"index": 0, "texCoord": 1},
        },
    });
    if m.translucent {
        see_through(&mut material);
    }
    Ok(material)
}

/// Water and SURF_TRANS faces: see-through (the factor's alpha; textures are RGB).
fn see_through(material: &mut Value) {
    material["alphaMode"] = json!("BLEND");
    material["doubleSided"] = json!(true);
    let factor = &mut material["pbrMetallicRoughness"]["baseColorFactor"];
    *factor = match factor.take() {
        Value::Array(mut c) => {
            c[3] = json!(TRANSLUCENT_ALPHA);
            Value::Array(c)
        }
        _ => json!([1.0, 1.0, 1.0, TRANSLUCENT_ALPHA]),
    };
}

/// The props' materials, after the map's: no lightmap (the engine lights props per vertex).
fn prop_materials(
    buffers: &mut Buffers,
    props: &Props,
    prop_textures: &[TextureLookup],
    prop_missing: &[bool],
    checker_texture: usize,
) -> Result<Vec<Value>, ExportError> {
    let mut materials = Vec::with_capacity(props.materials.len());
    for (i, name) in props.materials.iter().enumerate() {
        let pbr = buffers.base_colour(
            name,
            prop_missing[i],
            prop_textures.get(i),
            checker_texture,
            [0.5, 0.5, 0.5, 1.0],
        )?;
        materials.push(json!({
            "name": if name.is_empty() { "(no texture)" } else { name.as_str() },
            "pbrMetallicRoughness": pbr,
            "extras": {"texture_missing": prop_missing[i], "prop_material": true},
        }));
    }
    Ok(materials)
}

/// One mesh per model with drawn faces (the primitives come grouped by model); returns the
/// meshes and each model's mesh index.
fn model_meshes(
    buffers: &mut Buffers,
    mesh: &MapMesh,
    attributes: &Map<String, Value>,
    models: usize,
) -> (Vec<Value>, Vec<Option<usize>>) {
    let mut meshes = Vec::new();
    let mut model_mesh = vec![None; models];
    for group in mesh.primitives.chunk_by(|a, b| a.model == b.model) {
        let model = group[0].model;
        let prims: Vec<Value> = group
            .iter()
            .map(|p| {
                let indices = buffers.indices(&p.indices);
                json!({"attributes": attributes, "indices": indices, "material": p.material, "mode": 4})
            })
            .collect();
        meshes.push(json!({"name": format!("*{model}"), "primitives": prims}));
        model_mesh[model] = Some(meshes.len() - 1);
    }
    (meshes, model_mesh)
}

/// A node per entity (key/values in `extras`, placed by origin and angles; brush entities
/// hold their model's mesh), then a node for each model no entity names.
fn entity_nodes(bsp: &Bsp, model_mesh: &[Option<usize>], nodes: &mut Vec<Value>, children: &mut Vec<usize>) {
    let mut model_used = vec![false; bsp.models.len()];
    for (i, e) in bsp.entities.iter().enumerate() {
        let class = e.classname().unwrap_or("");
        let mut node = entity_node(i, e);
        let model = if class == "worldspawn" {
            Some(0)
        } else {
            e.brush_model()
        };
        if let Some(m) = model.filter(|&m| m < bsp.models.len())
            && let Some(mesh_index) = model_mesh[m]
        {
            node["mesh"] = json!(mesh_index);
            model_used[m] = true;
        }
        nodes.push(node);
        children.push(nodes.len() - 1);
    }
    for (m, used) in model_used.iter().enumerate() {
        if let (false, Some(mesh_index)) = (used, model_mesh[m]) {
            nodes.push(json!({"name": format!("model *{m}"), "mesh": mesh_index}));
            children.push(nodes.len() - 1);
        }
    }
}

/// Entity `i`'s node without a mesh: its name, key/values, and its origin and angles (when
/// not zero) as glTF translation and rotation.
fn entity_node(i: usize, e: &srcmap_bsp::Entity) -> Value {
    let class = e.classname().unwrap_or("");
    let mut node = json!({
        "name": format!("{i} {class}{}", e.get("targetname").map(|n| format!(" '{n}'")).unwrap_or_default()),
        "extras": entity_extras(e.pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))),
    });
    let origin = e.get("origin").and_then(parse_vec3).map(Vec3::from);
    if let Some(o) = origin {
        node["translation"] = json!((to_gltf(o) * METRES_PER_UNIT).to_array());
    }
    if let Some(a) = e
        .get("angles")
        .and_then(parse_vec3)
        .filter(|a| a.iter().any(|c| *c != 0.0))
    {
        let q = Quat::from_mat3(&(BASIS * angles_rotation(a) * BASIS.transpose())).normalize();
        node["rotation"] = json!(q.to_array());
    }
    node
}

/// A mesh per prop model and skin, appended to `meshes`; returns their mesh indices.
fn prop_meshes(
    buffers: &mut Buffers,
    props: &Props,
    prop_material_base: usize,
    meshes: &mut Vec<Value>,
) -> Vec<usize> {
    let mut prop_meshes = Vec::with_capacity(props.meshes.len());
    for pm in &props.meshes {
        let uvs = [pm.vertices.iter().map(|v| v.uv.to_array()).collect()];
        let attributes = buffers.vertex_attributes(
            pm.vertices.iter().map(|v| v.position),
            pm.vertices.iter().map(|v| v.normal),
            &uvs,
        );
        let prims: Vec<Value> = pm
            .primitives
            .iter()
            .map(|p| {
                let indices = buffers.indices(&p.indices);
                json!({"attributes": attributes, "indices": indices, "material": prop_material_base + p.material, "mode": 4})
            })
            .collect();
        meshes.push(json!({"name": format!("{} skin {}", pm.model, pm.skin), "primitives": prims}));
        prop_meshes.push(meshes.len() - 1);
    }
    prop_meshes
}

/// A node per static prop: origin, angles, scale, its record in `extras`, and its model's
/// mesh when the model was found.
fn prop_nodes(props: &Props, prop_meshes: &[usize], nodes: &mut Vec<Value>, children: &mut Vec<usize>) {
    for (i, p) in props.instances.iter().enumerate() {
        let mut node = json!({
            "name": format!("prop_static {i} {}", p.model),
            "translation": (to_gltf(p.origin) * METRES_PER_UNIT).to_array(),
            "extras": prop_extras(props, i),
        });
        if p.angles.iter().any(|c| *c != 0.0) {
            let q = Quat::from_mat3(&(BASIS * p.rotation() * BASIS.transpose())).normalize();
            node["rotation"] = json!(q.to_array());
        }
        if p.scale != Vec3::ONE {
            // Source's x, y, z scale along glTF's x, z, y.
            node["scale"] = json!([p.scale.x, p.scale.z, p.scale.y]);
        }
        if let Some(m) = p.mesh {
            node["mesh"] = json!(prop_meshes[m]);
        }
        nodes.push(node);
        children.push(nodes.len() - 1);
    }
}

/// Sets `doc[key]` to `items` unless there are none (glTF forbids empty arrays).
fn set_unless_empty(doc: &mut Value, key: &str, items: Vec<Value>) {
    if !items.is_empty() {
        doc[key] = json!(items);
    }
}

/// The texture samplers: the atlas (linear, clamped), the checkerboard (nearest, repeated),
/// textures (linear, repeated).
fn samplers() -> Value {
    json!([
        {"magFilter": 9729, "minFilter": 9729, "wrapS": 33071, "wrapT": 33071},
        {"magFilter": 9728, "minFilter": 9728, "wrapS": 10497, "wrapT": 10497},
        {"magFilter": 9729, "minFilter": 9729, "wrapS": 10497, "wrapT": 10497}
    ])
}

/// The document's `extras`: notes, the lightmap source, light styles, static prop counts.
fn document_extras(mesh: &MapMesh, props: &Props) -> Value {
    json!({
        "notes": mesh.notes.iter().cloned().chain(props.note()).collect::<Vec<_>>(),
        "lightmap_source": format!("{:?}", mesh.atlas.source),
        "light_styles": light_styles(mesh),
        "static_props": props.instances.len(),
        "static_props_without_model": props.without_mesh(),
    })
}

/// The glTF document around everything added, and the padded binary buffer.
fn document(
    mesh: &MapMesh,
    props: &Props,
    buffers: Buffers,
    nodes: Vec<Value>,
    materials: Vec<Value>,
    meshes: Vec<Value>,
) -> Result<Glb, ExportError> {
    let mut doc = json!({
        "asset": {"version": "2.0", "generator": concat!("srcmap-export ", env!("CARGO_PKG_VERSION"))},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": nodes,
        "textures": buffers.textures,
        "images": buffers.images,
        "samplers": samplers(),
        "extras": document_extras(mesh, props),
    });
    set_unless_empty(&mut doc, "materials", materials);
    set_unless_empty(&mut doc, "meshes", meshes);
    set_unless_empty(&mut doc, "accessors", buffers.accessors);
    let mut bin = buffers.bin;
    bin.resize(bin.len().next_multiple_of(4), 0);
    doc["bufferViews"] = json!(buffers.views);
    doc["buffers"] = json!([{"byteLength": bin.len()}]);
    Ok(Glb {
        json: serde_json::to_string(&doc).map_err(|e| ExportError::Json(e.to_string()))?,
        bin,
    })
}
