//! `srcmap info` for game model files: `.mdl`, `.vvd` and `.vtx`.

use std::path::Path;

use serde_json::json;
use srcmap_model::{Mdl, ModelKind, Vtx, Vvd};

pub fn info(path: &Path, data: &[u8], kind: ModelKind, json: bool) -> anyhow::Result<()> {
    let fail = |e: srcmap_model::ModelError| anyhow::anyhow!("{}: {e}", path.display());
    let report = match kind {
        ModelKind::Mdl => mdl_json(&Mdl::parse(data).map_err(fail)?),
        ModelKind::Vvd => vvd_json(&Vvd::parse(data).map_err(fail)?),
        ModelKind::Vtx => vtx_json(&Vtx::parse(data).map_err(fail)?),
    };
    if json {
        return crate::output::print_json(&report);
    }
    println!("{}", path.display());
    if let Some(map) = report.as_object() {
        for (key, value) in map {
            let text = match value {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            println!("  {key:<16} {text}");
        }
    }
    Ok(())
}

fn mdl_json(m: &Mdl) -> serde_json::Value {
    let meshes = m.meshes().count();
    let models: usize = m.body_parts.iter().map(|p| p.models.len()).sum();
    json!({
        "format": format!("MDL v{}", m.version),
        "name": m.name,
        "checksum": format!("{:#010x}", m.checksum),
        "flags": format!("{:#x}", m.flags),
        "static_prop": m.is_static_prop(),
        "static_use": format!("{:?}", m.static_use()),
        "hull": [m.hull_min, m.hull_max],
        "view_bounds": [m.view_min, m.view_max],
        "body_parts": m.body_parts.len(),
        "models": models,
        "meshes": meshes,
        "bones": m.bone_count,
        "sequences": m.sequence_count,
        "materials": m.textures,
        "material_dirs": m.texture_dirs,
        "skin_families": m.skins.len(),
        "surface_prop": m.surface_prop,
        "include_models": m.include_models.iter().map(|i| &i.name).collect::<Vec<_>>(),
        "prop_data": m.prop_data().map(|kv| kv.into_iter().map(|(k, v)| (k, json!(v))).collect::<serde_json::Map<_, _>>()),
        "mass": m.mass,
    })
}

fn vvd_json(v: &Vvd) -> serde_json::Value {
    json!({
        "format": format!("VVD v{}", v.version),
        "checksum": format!("{:#010x}", v.checksum),
        "lods": v.lod_count,
        "lod_vertices": &v.lod_vertex_counts[..v.lod_count as usize],
        "fixups": v.fixups.len(),
        "tangents": !v.tangents.is_empty(),
    })
}

fn vtx_json(v: &Vtx) -> serde_json::Value {
    let lods: Vec<usize> = (0..v.lod_count as usize)
        .map(|lod| {
            let groups = v.body_parts.iter().flatten().filter_map(|m| m.get(lod));
            groups
                .flat_map(|l| &l.meshes)
                .flat_map(|(_, g)| g)
                .map(|g| g.triangles().count())
                .sum()
        })
        .collect();
    json!({
        "format": format!("VTX v{}", v.version),
        "checksum": format!("{:#010x}", v.checksum),
        "lods": v.lod_count,
        "body_parts": v.body_parts.len(),
        "lod_triangles": lods,
        "topology_fields": v.topology,
    })
}
