//! What a model needs: its sibling files (`.vvd`, `.vtx` per hardware level, `.phy`, `.ani`),
//! its materials through `$cdmaterials` and the skin families used, `$includemodel`s, models
//! named in its `$keyvalues`, and the gibs and ragdolls its `.phy` names.

use std::collections::BTreeSet;

use srcmap_model::{Mdl, ModelError};

use crate::refs::{Ref, by_extension};

/// Which skin families of a model the map uses: `None` for all of them (an entity can switch
/// skins), else the static props' skins.
pub type Skins = Option<BTreeSet<i32>>;

/// The references of a `.mdl` at game path `path`.
pub fn mdl_refs(bytes: &[u8], path: &str, skins: &Skins) -> Result<Vec<Ref>, ModelError> {
    let mdl = Mdl::parse(bytes)?;
    let stem = path.strip_suffix(".mdl").unwrap_or(path);
    let mut out = siblings(stem);
    out.extend(material_refs(&mdl, skins));
    for inc in &mdl.include_models {
        out.push(Ref::to(crate::path::under("models", &inc.name, ""), "$includemodel").including());
    }
    out.extend(key_value_refs(&mdl.key_values));
    Ok(out)
}

/// The files beside a model: the vertex file and a mesh file are needed, the rest only used
/// when there.
fn siblings(stem: &str) -> Vec<Ref> {
    let mut out = vec![
        Ref::to(format!("{stem}.vvd"), "vertex file"),
        Ref::first_of(
            vec![format!("{stem}.dx90.vtx"), format!("{stem}.vtx")],
            "mesh file",
        ),
    ];
    for ext in [".dx80.vtx", ".sw.vtx", ".vtx", ".xbox.vtx", ".phy", ".ani"] {
        out.push(Ref::to(format!("{stem}{ext}"), "model file").optional());
    }
    out
}

/// The texture indices the skins use (every texture when all skins count or there is no table).
fn used_textures(mdl: &Mdl, skins: &Skins) -> BTreeSet<usize> {
    let all = || (0..mdl.textures.len()).collect();
    let Some(skins) = skins else { return all() };
    if mdl.skins.is_empty() {
        return all();
    }
    let rows = skins
        .iter()
        .map(|&s| mdl.skins.get(s.max(0) as usize).unwrap_or(&mdl.skins[0]));
    rows.flatten()
        .filter_map(|&t| usize::try_from(t).ok())
        .filter(|&t| t < mdl.textures.len())
        .collect()
}

/// Each used texture as a material in the first `$cdmaterials` folder that has it.
fn material_refs(mdl: &Mdl, skins: &Skins) -> Vec<Ref> {
    let dirs: Vec<&str> = if mdl.texture_dirs.is_empty() {
        vec![""]
    } else {
        mdl.texture_dirs.iter().map(String::as_str).collect()
    };
    used_textures(mdl, skins)
        .into_iter()
        .map(|t| {
            let name = &mdl.textures[t];
            let candidates = dirs
                .iter()
                .map(|d| crate::path::material(&format!("{}/{name}", d.trim_matches(['/', '\\']))))
                .collect();
            Ref::first_of(candidates, format!("texture '{name}'"))
        })
        .collect()
}

/// Files the model's `$keyvalues` name (door damage models, break models, particles).
fn key_value_refs(text: &str) -> Vec<Ref> {
    let Ok(nodes) = srcmap_content::kv::parse(text.as_bytes(), "$keyvalues") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    crate::kvfiles::each_text(&nodes, &mut |key, value| {
        let damage = key.starts_with("damage") && !value.contains('.');
        let r = if damage {
            Some(Ref::to(
                crate::path::under("models", value, ".mdl"),
                "$keyvalues damage model",
            ))
        } else {
            by_extension(value, "$keyvalues")
        };
        out.extend(r);
    });
    out
}

/// The gibs and ragdolls a `.phy`'s `break` blocks name.
pub fn phy_refs(bytes: &[u8]) -> Result<Vec<Ref>, srcmap_phys::PhysError> {
    let phy = srcmap_phys::phy::PhyFile::parse(bytes)?;
    let mut out = Vec::new();
    for block in phy
        .key_data
        .blocks
        .iter()
        .filter(|b| b.name.eq_ignore_ascii_case("break"))
    {
        for (k, v) in &block.pairs {
            if k.eq_ignore_ascii_case("model") || k.eq_ignore_ascii_case("ragdoll") {
                out.push(Ref::to(crate::path::under("models", v, ".mdl"), "break model"));
            }
        }
    }
    Ok(out)
}
