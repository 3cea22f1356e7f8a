//! What the map itself names: its brush materials (TEXDATA), the sky and detail materials of
//! worldspawn, every entity key that names a file, the static props' models and skins, and
//! the files the engine looks for by the map's name.

use std::collections::{BTreeSet, HashMap};

use srcmap_bsp::{Bsp, Entity};

use crate::model::Skins;
use crate::path;
use crate::refs::{Ref, by_extension, plausible_name};

/// Entity keys that name a material (or a texture) without an extension.
const MATERIAL_KEYS: &[&str] = &[
    "texture",
    "material",
    "ropematerial",
    "overlaymaterial",
    "detailmaterial",
    "spritename",
    "texturename",
    "smokematerial",
    "decalname",
];

/// The sky's six faces.
const SKY_SIDES: &[&str] = &["rt", "lf", "bk", "ft", "up", "dn"];

/// The map's own references and the skins its models are used with.
#[derive(Debug, Default)]
pub struct MapRefs {
    pub roots: Vec<Ref>,
    pub model_skins: HashMap<String, Skins>,
}

/// Whether a game path is one vbsp or vrad writes into the pakfile itself: cubemap-patched,
/// water and WorldVertexTransition materials under `materials/maps/<map>/`, cubemap textures,
/// static prop lighting.
pub fn is_generated(path: &str, map: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    let stem = file.split('.').next().unwrap_or(file);
    let cubemap = stem.strip_prefix('c').is_some_and(|rest| {
        let parts: Vec<&str> = rest.split('_').collect();
        parts.len() == 3
            && parts
                .iter()
                .all(|p| p.trim_start_matches('-').parse::<i64>().is_ok())
    });
    path.starts_with(&format!("materials/maps/{map}/"))
        || cubemap && path.ends_with(".vtf")
        || stem.starts_with("cubemapdefault")
        || file.starts_with("sp_") && file.ends_with(".vhv")
        || file.starts_with("texelslighting_") && file.ends_with(".ppl")
}

/// Everything the map names.
pub fn map_refs(bsp: &Bsp, map: &str, rename_nav: bool) -> MapRefs {
    let mut out = MapRefs::default();
    for i in 0..bsp.texdata.len() {
        if let Some(name) = bsp.texdata_name(i) {
            let p = path::material(name);
            let generated = is_generated(&p, map);
            let r = Ref::to(p, "brush material (TEXDATA)");
            out.roots.push(if generated { r.optional() } else { r });
        }
    }
    for (i, ent) in bsp.entities.iter().enumerate() {
        entity_refs(ent, &describe(i, ent), &mut out);
    }
    static_prop_refs(bsp, &mut out);
    out.roots.extend(by_map_name(map, rename_nav));
    out
}

/// How an entity is named in explanations: its index, class and name.
fn describe(index: usize, ent: &Entity) -> String {
    let class = ent.classname().unwrap_or("?");
    match ent.get("targetname") {
        Some(name) => format!("entity {index} ({class} '{name}')"),
        None => format!("entity {index} ({class})"),
    }
}

/// The files one entity's keys name; its models are used with every skin.
fn entity_refs(ent: &Entity, who: &str, out: &mut MapRefs) {
    for (key, value) in &ent.pairs {
        let via = format!("{who} key '{key}'");
        let refs = key_refs(&key.to_ascii_lowercase(), value, &via);
        for r in &refs {
            if r.candidates[0].ends_with(".mdl") {
                out.model_skins.insert(r.candidates[0].clone(), None);
            }
        }
        out.roots.extend(refs);
    }
}

/// The files one key names.
fn key_refs(key: &str, value: &str, via: &str) -> Vec<Ref> {
    match key {
        "model" if value.starts_with('*') => Vec::new(),
        "skyname" => sky_refs(value, via),
        "vscripts" => value
            .split_whitespace()
            .map(|s| Ref::to(path::script(s), via))
            .collect(),
        k if MATERIAL_KEYS.contains(&k) && plausible_name(value) && path::extension(value).is_empty() => {
            vec![Ref::first_of(
                vec![path::material(value), path::texture(value)],
                via,
            )]
        }
        _ if value.contains([',', '\x1b']) => output_refs(value, via),
        _ => by_extension(value, via).into_iter().collect(),
    }
}

/// The sky's materials: LDR faces needed, HDR faces when there.
fn sky_refs(sky: &str, via: &str) -> Vec<Ref> {
    let mut out = Vec::new();
    for side in SKY_SIDES {
        out.push(Ref::to(path::material(&format!("skybox/{sky}{side}")), via));
        out.push(Ref::to(path::material(&format!("skybox/{sky}_hdr{side}")), via).optional());
    }
    out
}

/// An output's fields (`target,input,parameter,delay,times`): scripts run by `RunScriptFile`,
/// overlays set by `r_screenoverlay`, files named by extension.
fn output_refs(value: &str, via: &str) -> Vec<Ref> {
    let fields: Vec<&str> = value.split([',', '\x1b']).collect();
    let mut out = Vec::new();
    for (i, f) in fields.iter().enumerate() {
        if f.eq_ignore_ascii_case("RunScriptFile") {
            out.extend(
                fields
                    .get(i + 1)
                    .filter(|s| plausible_name(s))
                    .map(|s| Ref::to(path::script(s), via)),
            );
        } else if let Some(overlay) = f.trim().strip_prefix("r_screenoverlay ") {
            out.push(Ref::to(path::material(overlay.trim()), via));
        } else if !fields
            .get(i.wrapping_sub(1))
            .is_some_and(|p| p.eq_ignore_ascii_case("RunScriptFile"))
        {
            out.extend(f.split_whitespace().last().and_then(|w| by_extension(w, via)));
        }
    }
    out
}

/// The static props' models, each with the skins its props use.
fn static_prop_refs(bsp: &Bsp, out: &mut MapRefs) {
    let Some(props) = bsp.game_lumps.static_props() else {
        return;
    };
    let mut skins: HashMap<String, BTreeSet<i32>> = HashMap::new();
    for prop in &props.props {
        if let Some(model) = props.model_of(prop) {
            skins
                .entry(path::under("models", model, ""))
                .or_default()
                .insert(prop.skin);
        }
    }
    for model in &props.models {
        let p = path::under("models", model, "");
        out.roots.push(Ref::to(p.clone(), "static prop model (sprp)"));
        let used = skins.remove(&p).unwrap_or_default();
        // An entity's use of the model (every skin) wins over the props' skins.
        out.model_skins.entry(p).or_insert(Some(used));
    }
}

/// Files the engine (or a server, or the map's own loading) looks for by the map's name.
const BY_NAME: &[&str] = &[
    "maps/{map}_particles.txt",
    "maps/{map}_level_sounds.txt",
    "maps/{map}_commentary.txt",
    "maps/{map}.res",
    "maps/{map}.kv",
    "maps/{map}_cameras.txt",
    "maps/{map}.txt",
    "scripts/soundscapes_{map}.txt",
    "resource/overviews/{map}.txt",
    "resource/overviews/{map}_radar.dds",
    "resource/overviews/{map}_radar_spectate.dds",
    "materials/overviews/{map}.vmt",
    "materials/vgui/maps/menu_photos_{map}.vmt",
    "materials/vgui/maps/menu_thumb_{map}.vmt",
];

/// The files named after the map, the nav last (as `maps/embed.nav` with `rename_nav`).
fn by_map_name(map: &str, rename_nav: bool) -> Vec<Ref> {
    let named = BY_NAME.iter().map(|p| p.replace("{map}", map));
    let mut out: Vec<Ref> = named.map(|p| Ref::to(p, "the map's name").optional()).collect();
    let nav = format!("maps/{map}.nav");
    out.push(if rename_nav {
        let mut r = Ref::first_of(
            vec![nav, "maps/embed.nav".into()],
            "the map's name (--rename-nav)",
        )
        .optional();
        r.rename = Some("maps/embed.nav".into());
        r
    } else {
        Ref::to(nav, "the map's name").optional()
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(refs: &[Ref]) -> Vec<&str> {
        refs.iter().map(|r| r.candidates[0].as_str()).collect()
    }

    #[test]
    fn generated_names_are_recognised() {
        assert!(is_generated("materials/maps/m/glass/a_0_-3488_128.vmt", "m"));
        assert!(is_generated("materials/maps/other/c0_0_0.vtf", "m"));
        assert!(is_generated("materials/maps/other/c-1_2_-3.hdr.vtf", "m"));
        assert!(is_generated("materials/maps/m/cubemapdefault.vtf", "m"));
        assert!(is_generated("sp_hdr_12.vhv", "m"));
        assert!(!is_generated("materials/maps/other/a.vmt", "m"));
        assert!(!is_generated("materials/concrete/c1_2.vtf", "m"));
    }

    #[test]
    fn entity_keys_name_files() {
        let ent = Entity::from_pairs(&[
            ("classname", "prop_dynamic"),
            ("model", "models/a.mdl"),
            ("texture", "decals/x"),
            ("material", "0"),
            ("vscripts", "a.nut b"),
            ("OnTrigger", "s,RunScriptFile,c,0,-1"),
            ("OnUser1", "!player\x1bAddOutput\x1bmodel models/b.mdl\x1b0\x1b-1"),
            ("OnUser2", "cl,Command,r_screenoverlay effects/ov,0,-1"),
            ("message", "#ambient/x.wav"),
        ]);
        let mut out = MapRefs::default();
        entity_refs(&ent, "e", &mut out);
        assert_eq!(
            names(&out.roots),
            [
                "models/a.mdl",
                "materials/decals/x.vmt",
                "scripts/vscripts/a.nut",
                "scripts/vscripts/b.nut",
                "scripts/vscripts/c.nut",
                "models/b.mdl",
                "materials/effects/ov.vmt",
                "sound/ambient/x.wav",
            ]
        );
        assert_eq!(out.model_skins.get("models/a.mdl"), Some(&None));
        let sky = sky_refs("sky_x", "w");
        assert_eq!(
            names(&sky)[..2],
            ["materials/skybox/sky_xrt.vmt", "materials/skybox/sky_x_hdrrt.vmt"]
        );
        let nav = by_map_name("m", true).pop().unwrap();
        assert_eq!(nav.candidates, ["maps/m.nav", "maps/embed.nav"]);
        assert_eq!(nav.rename.as_deref(), Some("maps/embed.nav"));
    }
}
