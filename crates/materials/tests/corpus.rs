//! The material table against the corpus (`SRCMAP_CORPUS`): harvested from every Source BSP,
//! it round-trips through its JSON form, and for each VMF/BSP pair it gives the water,
//! translucent and tool materials of the map the contents and surface flags Valve's BSP has —
//! or names the conflict between maps that made it choose otherwise.

use std::path::{Path, PathBuf};

use srcmap_materials::flags::*;
use srcmap_materials::{MaterialTable, Origin, Resolver, harvest_bsp, normalise_name};

fn corpus() -> Option<PathBuf> {
    let root = std::env::var_os("SRCMAP_CORPUS").map(PathBuf::from);
    if root.is_none() {
        eprintln!("SRCMAP_CORPUS is not set: skipping the material table corpus tests");
    }
    root
}

/// Every Source BSP of the corpus, parsed, with its file name.
fn source_bsps(root: &Path) -> Vec<(String, PathBuf, srcmap_bsp::Bsp)> {
    let mut out = Vec::new();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join("bsp"))
        .unwrap()
        .flatten()
        .flat_map(|d| std::fs::read_dir(d.path()).unwrap().flatten().map(|f| f.path()))
        .collect();
    paths.sort();
    for p in paths {
        let data = std::fs::read(&p).unwrap();
        if !(data.starts_with(b"VBSP") || data.starts_with(b"PSBV")) {
            continue;
        }
        let bsp = srcmap_bsp::Bsp::parse(&data).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        out.push((p.file_name().unwrap().to_string_lossy().into_owned(), p, bsp));
    }
    assert!(out.len() > 10, "expected the corpus's Source BSPs");
    out
}

/// `(vmf, bsp)` pairs from the manifest's `pair:` notes on BSP rows.
fn pairs(root: &Path) -> Vec<(PathBuf, PathBuf)> {
    let manifest = std::fs::read_to_string(root.join("MANIFEST.tsv")).unwrap();
    manifest
        .lines()
        .filter(|l| l.starts_with("bsp/"))
        .filter_map(|l| {
            let bsp = l.split('\t').next()?;
            let vmf = l.split("pair: ").nth(1)?.split([' ', ';', '\t']).next()?;
            Some((root.join(vmf), root.join(bsp)))
        })
        .filter(|(v, b)| v.exists() && b.exists())
        .collect()
}

#[test]
fn harvested_table_round_trips_through_json() {
    let Some(root) = corpus() else { return };
    let bsps = source_bsps(&root);
    let table = MaterialTable::harvest(bsps.iter().map(|(n, _, b)| (n.clone(), b)));
    assert!(table.len() > 100, "{} materials", table.len());
    let back = MaterialTable::from_json(&table.to_json()).unwrap();
    assert_eq!(back, table);
    // Sizes agree with the texdata they came from.
    let (name, _, bsp) = &bsps[0];
    for (i, td) in bsp.texdata.iter().enumerate() {
        let m = normalise_name(bsp.texdata_name(i).unwrap());
        let e = table.get(&m).unwrap();
        assert!(e.maps.contains(name) || table.conflicts.iter().any(|c| c.material == m));
        if !table.conflicts.iter().any(|c| c.material == m) {
            assert_eq!((e.width, e.height), (td.width as u32, td.height as u32), "{m}");
        }
    }
}

#[test]
fn env_cubemap_use_is_learned_from_patched_materials() {
    let Some(root) = corpus() else { return };
    let bsps = source_bsps(&root);
    let table = MaterialTable::harvest(bsps.iter().map(|(n, _, b)| (n.clone(), b)));
    let resolver = Resolver::new(None, Some(("corpus-table.json".into(), table.clone())));
    // Every material some Valve BSP patched for a cubemap is known to use env_cubemap, under
    // the name its patch includes; its other facts come along.
    let mut learned = 0;
    for (map, _, bsp) in &bsps {
        for (original, patched, _) in srcmap_materials::env_cubemap_materials(map, bsp) {
            assert!(patched.to_ascii_lowercase().starts_with("maps/"), "{patched}");
            assert!(resolver.uses_env_cubemap(&original), "{original} from {map}");
            assert!(table.get(&original).is_some(), "{original} has an entry");
            learned += 1;
        }
    }
    assert!(learned > 40, "{learned} patched materials in the corpus");
    assert!(!resolver.uses_env_cubemap("TOOLS/TOOLSNODRAW"));
    let back = MaterialTable::from_json(&table.to_json()).unwrap();
    assert!(back.uses_env_cubemap("metal/metalwall048b_med"));
    // A table written before the key existed still reads, knowing of no such material.
    let old = r#"{"format": "srcmap-materials", "version": 1, "materials": {"A/B": {"width": 4, "height": 4, "reflectivity": [0.5, 0.5, 0.5]}}}"#;
    let old = MaterialTable::from_json(old).unwrap();
    assert!(old.get("a/b").is_some() && !old.uses_env_cubemap("a/b"));
}

#[test]
fn wvt_patches_are_learned_from_patched_materials() {
    let Some(root) = corpus() else { return };
    let bsps = source_bsps(&root);
    let table = MaterialTable::harvest(bsps.iter().map(|(n, _, b)| (n.clone(), b)));
    let resolver = Resolver::new(None, Some(("corpus-table.json".into(), table.clone())));
    // Every blend material some Valve BSP patched is known, with the patch text as Valve wrote
    // it (a single-texture LightmappedGeneric), and round-trips through JSON.
    let back = MaterialTable::from_json(&table.to_json()).unwrap();
    let mut learned = 0;
    for (map, _, bsp) in &bsps {
        for (original, patched, text, _) in srcmap_materials::wvt_patch_materials(map, bsp) {
            assert!(patched.to_ascii_lowercase().ends_with("_wvt_patch"), "{patched}");
            let known = resolver
                .wvt_patch(&original)
                .unwrap_or_else(|| panic!("{original} from {map}"));
            assert!(
                known.trim_start().starts_with("\"LightmappedGeneric\""),
                "{original}: {known}"
            );
            assert!(!text.to_ascii_lowercase().contains("$basetexture2"), "{original}");
            assert!(table.get(&original).is_some(), "{original} has an entry");
            assert_eq!(back.wvt_patch(&original), table.wvt_patch(&original));
            learned += 1;
        }
    }
    assert!(learned >= 8, "{learned} patched blend materials in the corpus");
    assert!(resolver.wvt_patch("TOOLS/TOOLSNODRAW").is_none());
    let old = r#"{"format": "srcmap-materials", "version": 1, "materials": {"A/B": {"width": 4, "height": 4, "reflectivity": [0.5, 0.5, 0.5]}}}"#;
    assert!(MaterialTable::from_json(old).unwrap().wvt_patch("a/b").is_none());
}

#[test]
fn pairs_get_valves_contents_and_flags_for_water_translucent_and_tools() {
    let Some(root) = corpus() else { return };
    let bsps = source_bsps(&root);
    let table = MaterialTable::harvest(bsps.iter().map(|(n, _, b)| (n.clone(), b)));
    let resolver = Resolver::new(None, Some(("corpus-table.json".into(), table.clone())));
    let mut checked = 0;
    for (vmf_path, bsp_path) in pairs(&root) {
        let Some((map, _, bsp)) = bsps.iter().find(|(_, p, _)| *p == bsp_path) else {
            continue;
        };
        let valve = harvest_bsp(map, bsp);
        let vmf = srcmap_vmf::Vmf::parse_lenient(&std::fs::read(&vmf_path).unwrap()).unwrap();
        let mut materials: Vec<String> = vmf
            .all_entities()
            .flat_map(|e| e.solids.iter())
            .flat_map(|s| s.sides.iter())
            .map(|s| normalise_name(&s.material))
            .collect();
        materials.sort();
        materials.dedup();
        for name in materials {
            let Some(v) = valve.get(&name) else { continue };
            let special = v.contents.is_some_and(|c| {
                c & (CONTENTS_WATER | CONTENTS_WINDOW | CONTENTS_TRANSLUCENT | CONTENTS_SLIME) != 0
            }) || name.starts_with("TOOLS/");
            if !special {
                continue;
            }
            let r = resolver.resolve(&name);
            assert!(
                matches!(r.size_from, Origin::Table { .. }),
                "{name}: from the table"
            );
            let conflict_names_map = |field: &str| {
                table.conflicts.iter().any(|c| {
                    c.material == name
                        && c.field == field
                        && c.values.iter().any(|cv| cv.map.split(", ").any(|m| m == map))
                })
            };
            if let Some(c) = v.contents {
                assert!(
                    r.facts.contents == c || conflict_names_map("contents"),
                    "{map}: {name}: contents {:?}, Valve's {:?}",
                    Contents(r.facts.contents).names(),
                    Contents(c).names()
                );
            }
            if let Some(s) = v.surface_flags {
                assert!(
                    r.facts.surface_flags == s || conflict_names_map("surface"),
                    "{map}: {name}: surface {:?}, Valve's {:?}",
                    SurfaceFlags(r.facts.surface_flags).names(),
                    SurfaceFlags(s).names()
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 20, "only {checked} special materials checked");
    eprintln!("{checked} water/translucent/tool materials of the corpus pairs checked");
}

#[test]
fn precedence_table_over_builtin_over_default() {
    let mut table = MaterialTable::new();
    let mut one = std::collections::BTreeMap::new();
    one.insert(
        "TOOLS/TOOLSNODRAW".to_owned(),
        srcmap_materials::TableEntry {
            contents: Some(CONTENTS_SOLID),
            surface_flags: Some(SURF_NODRAW | SURF_NOLIGHT | SURF_NOPORTAL),
            width: 64,
            height: 64,
            reflectivity: [0.1, 0.2, 0.3],
            emit: None,
            maps: vec!["a.bsp".into()],
            evidence: 3,
        },
    );
    table.merge(one);
    let with_table = Resolver::new(None, Some(("t.json".into(), table)));
    let r = with_table.resolve("tools\\ToolsNodraw");
    assert_eq!(r.facts.surface_flags & SURF_NOPORTAL, SURF_NOPORTAL);
    assert_eq!((r.facts.width, r.facts.height), (64, 64));
    let builtin_only = Resolver::default();
    let r = builtin_only.resolve("TOOLS/TOOLSNODRAW");
    assert_eq!(r.surface_from, Origin::Builtin);
    assert_eq!(r.facts.surface_flags, SURF_NODRAW | SURF_NOLIGHT);
    let r = builtin_only.resolve("brick/brickwall001a");
    assert_eq!(r.contents_from, Origin::Default);
    builtin_only.resolve("BRICK/BRICKWALL001A");
    assert_eq!(
        builtin_only.warnings().len(),
        1,
        "one warning per unknown material"
    );
}

#[test]
fn emit_facts_round_trip_and_conflicts_are_recorded() {
    let entry = |emit: Option<[f32; 3]>, map: &str| srcmap_materials::TableEntry {
        contents: Some(CONTENTS_SOLID),
        surface_flags: Some(0),
        width: 128,
        height: 128,
        reflectivity: [0.5; 3],
        emit,
        maps: vec![map.into()],
        evidence: 1,
    };
    let mut table = MaterialTable::new();
    table.merge(
        [(
            "LIGHTS/PANEL".to_owned(),
            entry(Some([200.0, 180.0, 150.0]), "a.bsp"),
        )]
        .into(),
    );
    table.merge(
        [(
            "LIGHTS/PANEL".to_owned(),
            entry(Some([100.0, 100.0, 100.0]), "b.bsp"),
        )]
        .into(),
    );
    table.merge([("DEV/FLOOR".to_owned(), entry(None, "a.bsp"))].into());
    assert!(table.conflicts.iter().any(|c| c.field == "emit"));
    assert_eq!(
        table.get("lights/panel").unwrap().emit,
        Some([200.0, 180.0, 150.0])
    );
    assert!(table.set_emit("dev\\floor", Some([1.0, 2.0, 3.0])));
    assert!(!table.set_emit("not/there", Some([1.0; 3])));
    let back = MaterialTable::from_json(&table.to_json()).unwrap();
    assert_eq!(
        back.get("LIGHTS/PANEL").unwrap().emit,
        Some([200.0, 180.0, 150.0])
    );
    assert_eq!(back.get("DEV/FLOOR").unwrap().emit, Some([1.0, 2.0, 3.0]));
    // A table without emit facts (older files) still reads.
    let json = table.to_json().replace("\"emit\"", "\"unused_emit\"");
    assert!(MaterialTable::from_json(&json).is_ok());
}

#[test]
fn detail_types_round_trip_through_json_and_resolve() {
    let mut table = MaterialTable::new();
    let mut one = std::collections::BTreeMap::new();
    one.insert(
        "NATURE/BLENDGRASSGRAVEL001A".to_owned(),
        srcmap_materials::TableEntry {
            contents: Some(CONTENTS_SOLID),
            surface_flags: Some(0),
            width: 512,
            height: 512,
            reflectivity: [0.2; 3],
            emit: None,
            maps: vec!["a.bsp".into()],
            evidence: 1,
        },
    );
    table.merge(one);
    assert!(table.set_detail_type("nature\\blendgrassgravel001a", "grassland1"));
    assert!(
        !table.set_detail_type("NOT/IN_TABLE", "grassland1"),
        "only known materials"
    );
    let back = MaterialTable::from_json(&table.to_json()).unwrap();
    assert_eq!(back, table);
    let resolver = Resolver::new(None, Some(("t.json".into(), back)));
    assert_eq!(
        resolver.detail_type("Nature/BlendGrassGravel001a").as_deref(),
        Some("grassland1")
    );
    assert_eq!(resolver.detail_type("NOT/IN_TABLE"), None);
}

#[test]
fn colours_out_of_range_are_an_error_naming_the_material() {
    // JSON numbers beyond f32 read as infinity, which the table could not write back; finite
    // but absurd values would reach TEXDATA and the bounce light.
    for (field, entry) in [
        ("reflectivity", r#""reflectivity": [0.5, 1e60, 0.5]"#),
        ("reflectivity", r#""reflectivity": [-100, 0.5, 0.5]"#),
        ("reflectivity", r#""reflectivity": [0.5, 0.5, 1e30]"#),
        (
            "emit",
            r#""reflectivity": [0.5, 0.5, 0.5], "emit": [-1e39, 0, 0]"#,
        ),
        ("emit", r#""reflectivity": [0.5, 0.5, 0.5], "emit": [-1, 0, 0]"#),
    ] {
        let text = format!(
            r#"{{"format": "srcmap-materials", "version": 1, "materials": {{"BRICK/WALL": {{"width": 4, "height": 4, {entry}}}}}}}"#
        );
        let err = MaterialTable::from_json(&text).unwrap_err().to_string();
        assert!(
            err.contains("BRICK/WALL") && err.contains(field) && err.contains("out of range"),
            "{err}"
        );
    }
}

/// A material's surface property is its game's VMT's: the table harvested from every corpus
/// map keeps each BSP version's where they disagree (tools/toolsnodraw: `default` in the
/// Source 2013 maps, `default_silent` in Desolation's BSP 42 rot_main), answers each version
/// with its own, round-trips that through JSON, and warns once for a version none showed.
#[test]
fn surface_properties_are_learned_per_bsp_version() {
    let Some(root) = corpus() else { return };
    let bsps = source_bsps(&root);
    let table = MaterialTable::harvest(bsps.iter().map(|(n, _, b)| (n.clone(), b)));
    let nodraw = "tools/toolsnodraw";
    assert_eq!(table.surfaceprop_for(nodraw, 20), Some("default"));
    assert_eq!(table.surfaceprop_for(nodraw, 42), Some("default_silent"));
    let versions = table.surfaceprop_versions(nodraw);
    assert!(versions.contains(&(42, "default_silent")), "{versions:?}");
    let back = MaterialTable::from_json(&table.to_json()).unwrap();
    assert_eq!(back.surfaceprop_for(nodraw, 42), Some("default_silent"));
    assert_eq!(back, table);
    let resolver = Resolver::new(None, Some(("t.json".into(), back)));
    for _ in 0..2 {
        assert_eq!(resolver.surfaceprop_for(nodraw, 21).as_deref(), Some("default"));
    }
    let warned = resolver.warnings();
    assert_eq!(warned.len(), 1, "{warned:?}");
    assert!(
        warned[0].contains("TOOLS/TOOLSNODRAW") && warned[0].contains("v42"),
        "{warned:?}"
    );
    assert_eq!(resolver.surfaceprop_for(nodraw, 20).as_deref(), Some("default"));
    assert_eq!(
        resolver.warnings().len(),
        1,
        "a version the maps showed is not warned about"
    );
}
