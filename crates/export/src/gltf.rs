//! glTF 2.0 of a [`MapMesh`]: one mesh per model (a primitive per material), one node per
//! entity with its key/values in `extras`, the lightmap atlas as a texture read through the
//! second UV set. Source's Z-up inches become glTF's Y-up metres.

use glam::{Mat3, Quat, Vec3};
use serde_json::{Map, Value, json};
use srcmap_bsp::Bsp;

use crate::ExportError;
use crate::glb::Glb;
use crate::image::Rgb8;
use crate::mesh::MapMesh;
use crate::props::Props;
use crate::texture::TextureLookup;

/// The opacity of water and `SURF_TRANS` materials.
pub const TRANSLUCENT_ALPHA: f32 = 0.6;

/// Metres per inch (Source units are inches).
pub const METRES_PER_UNIT: f32 = 0.0254;

/// Source (X forward, Y left, Z up) to glTF (Y up, Z towards the viewer): a rotation.
fn to_gltf(p: Vec3) -> Vec3 {
    Vec3::new(p.x, p.z, -p.y)
}

const BASIS: Mat3 = Mat3::from_cols_array(&[1.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 1.0, 0.0]);

/// Entity angles (`pitch yaw roll`, degrees) as a Source-space rotation (`AngleMatrix`).
pub fn angles_rotation(angles: [f32; 3]) -> Mat3 {
    let cols = srcmap_geom::angle_matrix(angles.map(f64::from));
    Mat3::from_cols_array_2d(&cols.map(|c| c.map(|x| x as f32)))
}

/// Parses "x y z" (three numbers), as entity origins and angles are written.
pub fn parse_vec3(s: &str) -> Option<[f32; 3]> {
    let mut it = s.split_whitespace().map(|t| t.parse::<f32>().ok());
    let v = [it.next()??, it.next()??, it.next()??];
    v.iter().all(|c| c.is_finite()).then_some(v)
}

/// What the materials' textures are.
pub struct ExportOptions<'a> {
    /// Per material of the mesh (same index): its texture, or empty when none was looked up
    /// (every material a flat colour from its reflectivity).
    pub textures: &'a [TextureLookup],
}

/// Appends `bytes` to the buffer as a buffer view (4-byte aligned) and returns its index.
fn push_view(bin: &mut Vec<u8>, views: &mut Vec<Value>, bytes: &[u8], target: Option<u32>) -> usize {
    bin.resize(bin.len().next_multiple_of(4), 0);
    let mut view = json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": bytes.len()});
    if let Some(t) = target {
        view["target"] = json!(t);
    }
    bin.extend_from_slice(bytes);
    views.push(view);
    views.len() - 1
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

/// A vertex attribute accessor (floats) over `items`, with bounds when asked.
fn push_attribute<const N: usize>(
    bin: &mut Vec<u8>,
    views: &mut Vec<Value>,
    accessors: &mut Vec<Value>,
    items: &[[f32; N]],
    bounds: bool,
) -> usize {
    let view = push_view(bin, views, &f32_bytes(items.iter().copied()), Some(34962));
    let kind = if N == 3 { "VEC3" } else { "VEC2" };
    let mut acc = json!({"bufferView": view, "componentType": 5126, "count": items.len(), "type": kind});
    if bounds {
        let (lo, hi) = min_max(items);
        acc["min"] = json!(lo);
        acc["max"] = json!(hi);
    }
    accessors.push(acc);
    accessors.len() - 1
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
    let mut bin = Vec::new();
    let mut views = Vec::new();
    let mut accessors = Vec::new();

    let positions: Vec<[f32; 3]> = mesh
        .vertices
        .iter()
        .map(|v| (to_gltf(v.position) * METRES_PER_UNIT).to_array())
        .collect();
    let normals: Vec<[f32; 3]> = mesh
        .vertices
        .iter()
        .map(|v| to_gltf(v.normal).to_array())
        .collect();
    let uv0: Vec<[f32; 2]> = mesh.vertices.iter().map(|v| v.uv.to_array()).collect();
    let uv1: Vec<[f32; 2]> = mesh.vertices.iter().map(|v| v.light_uv.to_array()).collect();
    let mut attributes = Map::new();
    if !mesh.vertices.is_empty() {
        let (bin, views, acc) = (&mut bin, &mut views, &mut accessors);
        attributes.insert(
            "POSITION".into(),
            json!(push_attribute(bin, views, acc, &positions, true)),
        );
        attributes.insert(
            "NORMAL".into(),
            json!(push_attribute(bin, views, acc, &normals, false)),
        );
        attributes.insert(
            "TEXCOORD_0".into(),
            json!(push_attribute(bin, views, acc, &uv0, false)),
        );
        attributes.insert(
            "TEXCOORD_1".into(),
            json!(push_attribute(bin, views, acc, &uv1, false)),
        );
    }

    // Images: the atlas, then the checkerboard when a material needs it.
    let mut images = Vec::new();
    let mut textures = Vec::new();
    let samplers = json!([
        {"magFilter": 9729, "minFilter": 9729, "wrapS": 33071, "wrapT": 33071},
        {"magFilter": 9728, "minFilter": 9728, "wrapS": 10497, "wrapT": 10497},
        {"magFilter": 9729, "minFilter": 9729, "wrapS": 10497, "wrapT": 10497}
    ]);
    let atlas_png = Rgb8 {
        width: mesh.atlas.width,
        height: mesh.atlas.height,
        pixels: mesh.atlas.pixels.clone(),
    }
    .to_png()?;
    let view = push_view(&mut bin, &mut views, &atlas_png, None);
    images.push(json!({"bufferView": view, "mimeType": "image/png", "name": "lightmap atlas"}));
    textures.push(json!({"source": 0, "sampler": 0, "name": "lightmap atlas"}));
    let missing: Vec<bool> = mesh
        .materials
        .iter()
        .enumerate()
        .map(|(i, m)| m.name.is_empty() || options.textures.get(i) == Some(&TextureLookup::Missing))
        .collect();
    let prop_missing: Vec<bool> = (0..props.materials.len())
        .map(|i| props.materials[i].is_empty() || prop_textures.get(i) == Some(&TextureLookup::Missing))
        .collect();
    let checker_texture = if missing.contains(&true) || prop_missing.contains(&true) {
        let view = push_view(&mut bin, &mut views, &Rgb8::checkerboard(64, 8).to_png()?, None);
        images.push(json!({"bufferView": view, "mimeType": "image/png", "name": "missing texture"}));
        textures.push(json!({"source": images.len() - 1, "sampler": 1, "name": "missing texture"}));
        textures.len() - 1
    } else {
        0
    };

    let mut materials = Vec::new();
    for (m, &missing) in mesh.materials.iter().zip(&missing) {
        let [r, g, b] = m.reflectivity.map(|c| c.clamp(0.0, 1.0));
        let mut pbr = json!({"metallicFactor": 0.0, "roughnessFactor": 1.0});
        if missing {
            pbr["baseColorTexture"] = json!({"index": checker_texture});
        } else if let Some(TextureLookup::Found(image)) = options.textures.get(materials.len()) {
            let view = push_view(&mut bin, &mut views, &image.to_png()?, None);
            images.push(json!({"bufferView": view, "mimeType": "image/png", "name": m.name}));
            textures.push(json!({"source": images.len() - 1, "sampler": 2, "name": m.name}));
            pbr["baseColorTexture"] = json!({"index": textures.len() - 1});
        } else {
            pbr["baseColorFactor"] = json!([r, g, b, 1.0]);
        }
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
            // Water and SURF_TRANS faces: see-through (the factor's alpha; textures are RGB).
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
        materials.push(material);
    }

    // Prop materials after the map's: no lightmap (the engine lights props per vertex).
    let prop_material_base = materials.len();
    for (i, name) in props.materials.iter().enumerate() {
        let mut pbr = json!({"metallicFactor": 0.0, "roughnessFactor": 1.0});
        if prop_missing[i] {
            pbr["baseColorTexture"] = json!({"index": checker_texture});
        } else if let Some(TextureLookup::Found(image)) = prop_textures.get(i) {
            let view = push_view(&mut bin, &mut views, &image.to_png()?, None);
            images.push(json!({"bufferView": view, "mimeType": "image/png", "name": name}));
            textures.push(json!({"source": images.len() - 1, "sampler": 2, "name": name}));
            pbr["baseColorTexture"] = json!({"index": textures.len() - 1});
        } else {
            pbr["baseColorFactor"] = json!([0.5, 0.5, 0.5, 1.0]);
        }
        materials.push(json!({
            "name": if name.is_empty() { "(no texture)" } else { name.as_str() },
            "pbrMetallicRoughness": pbr,
            "extras": {"texture_missing": prop_missing[i], "prop_material": true},
        }));
    }

    // One mesh per model with drawn faces.
    let mut meshes = Vec::new();
    let mut model_mesh = vec![None; bsp.models.len()];
    let mut at = 0;
    while at < mesh.primitives.len() {
        let model = mesh.primitives[at].model;
        let mut prims = Vec::new();
        while at < mesh.primitives.len() && mesh.primitives[at].model == model {
            let p = &mesh.primitives[at];
            let bytes: Vec<u8> = p.indices.iter().flat_map(|i| i.to_le_bytes()).collect();
            let view = push_view(&mut bin, &mut views, &bytes, Some(34963));
            accessors.push(json!({"bufferView": view, "componentType": 5125, "count": p.indices.len(), "type": "SCALAR"}));
            prims.push(json!({"attributes": attributes, "indices": accessors.len() - 1, "material": p.material, "mode": 4}));
            at += 1;
        }
        meshes.push(json!({"name": format!("*{model}"), "primitives": prims}));
        model_mesh[model] = Some(meshes.len() - 1);
    }

    // Nodes: a root holding one node per entity; brush entities hold their model's mesh.
    let mut nodes: Vec<Value> = vec![json!({"name": "map"})];
    let mut children = Vec::new();
    let mut model_used = vec![false; bsp.models.len()];
    for (i, e) in bsp.entities.iter().enumerate() {
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
    // Static props: a mesh per model and skin, a node per prop.
    let mut prop_meshes = Vec::with_capacity(props.meshes.len());
    for pm in &props.meshes {
        let positions: Vec<[f32; 3]> = pm
            .vertices
            .iter()
            .map(|v| (to_gltf(v.position) * METRES_PER_UNIT).to_array())
            .collect();
        let normals: Vec<[f32; 3]> = pm.vertices.iter().map(|v| to_gltf(v.normal).to_array()).collect();
        let uvs: Vec<[f32; 2]> = pm.vertices.iter().map(|v| v.uv.to_array()).collect();
        let position = push_attribute(&mut bin, &mut views, &mut accessors, &positions, true);
        let normal = push_attribute(&mut bin, &mut views, &mut accessors, &normals, false);
        let uv = push_attribute(&mut bin, &mut views, &mut accessors, &uvs, false);
        let attributes = json!({"POSITION": position, "NORMAL": normal, "TEXCOORD_0": uv});
        let mut prims = Vec::new();
        for p in &pm.primitives {
            let bytes: Vec<u8> = p.indices.iter().flat_map(|i| i.to_le_bytes()).collect();
            let view = push_view(&mut bin, &mut views, &bytes, Some(34963));
            accessors.push(json!({"bufferView": view, "componentType": 5125, "count": p.indices.len(), "type": "SCALAR"}));
            prims.push(json!({"attributes": attributes, "indices": accessors.len() - 1, "material": prop_material_base + p.material, "mode": 4}));
        }
        meshes.push(json!({"name": format!("{} skin {}", pm.model, pm.skin), "primitives": prims}));
        prop_meshes.push(meshes.len() - 1);
    }
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
    if !children.is_empty() {
        nodes[0]["children"] = json!(children);
    }

    let mut doc = json!({
        "asset": {"version": "2.0", "generator": concat!("srcmap-export ", env!("CARGO_PKG_VERSION"))},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": nodes,
        "textures": textures,
        "images": images,
        "samplers": samplers,
        "extras": {
            "notes": mesh.notes.iter().cloned().chain(props.note()).collect::<Vec<_>>(),
            "lightmap_source": format!("{:?}", mesh.atlas.source),
            "light_styles": light_styles(mesh),
            "static_props": props.instances.len(),
            "static_props_without_model": props.without_mesh(),
        },
    });
    if !materials.is_empty() {
        doc["materials"] = json!(materials);
    }
    if !meshes.is_empty() {
        doc["meshes"] = json!(meshes);
    }
    if !accessors.is_empty() {
        doc["accessors"] = json!(accessors);
    }
    bin.resize(bin.len().next_multiple_of(4), 0);
    doc["bufferViews"] = json!(views);
    doc["buffers"] = json!([{"byteLength": bin.len()}]);
    Ok(Glb {
        json: serde_json::to_string(&doc).map_err(|e| ExportError::Json(e.to_string()))?,
        bin,
    })
}
