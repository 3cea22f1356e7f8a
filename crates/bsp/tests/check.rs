//! `check` passes on every real map and catches broken indices.

mod common;

use std::path::PathBuf;

use srcmap_bsp::{Bsp, check::check};

fn corpus_bsps() -> Option<Vec<PathBuf>> {
    let Some(root) = common::corpus_root() else {
        eprintln!("SRCMAP_CORPUS is not set: skipping corpus test");
        return None;
    };
    let mut out = Vec::new();
    for repo in std::fs::read_dir(root.join("bsp")).unwrap() {
        for f in std::fs::read_dir(repo.unwrap().path()).unwrap() {
            let f = f.unwrap().path();
            let data = std::fs::read(&f).unwrap();
            if data.starts_with(b"VBSP") || data.starts_with(b"PSBV") {
                out.push(f);
            }
        }
    }
    out.sort();
    Some(out)
}

#[test]
fn check_passes_on_every_corpus_bsp() {
    let Some(files) = corpus_bsps() else { return };
    let mut failures = Vec::new();
    for path in files {
        let bsp = Bsp::parse(&std::fs::read(&path).unwrap()).unwrap();
        for v in check(&bsp).iter().take(3) {
            failures.push(format!("{}: {v}", path.display()));
        }
    }
    for f in &failures {
        eprintln!("{f}");
    }
    assert!(failures.is_empty());
}

#[test]
fn check_names_a_broken_index() {
    let mut bsp = Bsp::new(20);
    bsp.vertexes = vec![[0.0; 3]; 3];
    bsp.edges = vec![srcmap_bsp::Edge([0, 1]), srcmap_bsp::Edge([1, 7])];
    let v = check(&bsp);
    assert_eq!(v.len(), 1, "{v:?}");
    let text = v[0].to_string();
    assert!(
        text.contains("EDGES") && text.contains("record 1") && text.contains("vertex 7"),
        "{text}"
    );
}

#[test]
fn check_names_broken_physics_collision() {
    let Some(files) = corpus_bsps() else { return };
    let path = files
        .iter()
        .find(|p| p.ends_with("boxinaroom.bsp"))
        .expect("boxinaroom.bsp in the corpus");
    let mut bsp = Bsp::parse(&std::fs::read(path).unwrap()).unwrap();
    assert!(srcmap_bsp::check::physics(&bsp).is_empty());
    let pc = bsp.phys_collide.as_mut().unwrap();
    // The surface's ledge-tree root offset (28 bytes of VPHY headers, then byte 32 of the surface).
    pc.models[0].solids[0][60..64].copy_from_slice(&i32::MAX.to_le_bytes());
    pc.models[1].model_index = 0;
    let v = srcmap_bsp::check::physics(&bsp);
    let text: Vec<String> = v.iter().map(|v| v.to_string()).collect();
    assert!(
        text.iter()
            .any(|t| t.contains("model 0: solid 0: compact surface header at byte 48")),
        "{text:?}"
    );
    assert!(
        text.iter().any(|t| t.contains("model index 0 is out of order")),
        "{text:?}"
    );
}

/// A small map that passes every check: the one the hostile-value tests below break.
fn sound_map() -> Bsp {
    let mut bsp = Bsp::new(20);
    bsp.planes = vec![srcmap_bsp::Plane {
        normal: [0.0, 0.0, 1.0],
        dist: 0.0,
        kind: 2,
    }];
    bsp.vertexes = vec![[1.0, 2.0, 3.0]];
    let mut world = srcmap_bsp::Entity::default();
    world.set("classname", "worldspawn");
    bsp.entities.push(world);
    let mut light = srcmap_bsp::Entity::default();
    light.set("classname", "light");
    light.set("origin", "0 0 64");
    bsp.entities.push(light);
    bsp
}

/// Each hostile value is reported by `check` and refused by the writer, naming its lump.
#[test]
fn non_finite_values_bad_versions_and_entity_counts_are_reported_and_refused() {
    let sound = sound_map();
    assert!(check(&sound).is_empty(), "{:?}", check(&sound));
    sound.to_bytes().unwrap();
    type Spoil = Box<dyn Fn(&mut Bsp)>;
    let cases: Vec<(&str, Spoil)> = vec![
        ("PLANES", Box::new(|b: &mut Bsp| b.planes[0].dist = f32::NAN)),
        (
            "VERTEXES",
            Box::new(|b: &mut Bsp| b.vertexes[0][1] = f32::INFINITY),
        ),
        (
            "ENTITIES",
            Box::new(|b: &mut Bsp| b.entities[1].set("origin", "nan 0 64")),
        ),
        (
            "ENTITIES",
            Box::new(|b: &mut Bsp| b.entities[1].set("angles", "0 inf 0")),
        ),
        (
            "DISP_VERTS",
            Box::new(|b: &mut Bsp| {
                b.disp_verts.push(srcmap_bsp::DispVert {
                    vec: [0.0, 0.0, 1.0],
                    dist: f32::NAN,
                    alpha: 0.0,
                })
            }),
        ),
        ("header", Box::new(|b: &mut Bsp| b.version = 0)),
        ("header", Box::new(|b: &mut Bsp| b.version = 99)),
        ("header", Box::new(|b: &mut Bsp| b.version = i32::MAX)),
    ];
    for (lump, spoil) in cases {
        let mut bsp = sound.clone();
        spoil(&mut bsp);
        let v = check(&bsp);
        assert!(v.iter().any(|v| v.to_string().contains(lump)), "{lump}: {v:?}");
        let err = bsp.to_bytes().unwrap_err().to_string();
        let named = if lump == "header" { "version" } else { lump };
        assert!(err.contains(named), "{lump}: {err}");
    }
    // MAX_MAP_ENTITIES (8192 in Source 2013): only `check` judges limits.
    let mut crowded = sound.clone();
    crowded
        .entities
        .extend(std::iter::repeat_n(sound.entities[1].clone(), 200_000));
    let v = check(&crowded);
    assert!(v.iter().any(|v| v.message.contains("MAX_MAP_ENTITIES")), "{v:?}");
}

/// A pakfile material nested past KeyValues' depth cap (a VMT 40,000 deep crashed every reader
/// that recursed) fails `check`, naming the entry; one within the cap passes.
#[test]
fn a_pakfile_material_nested_too_deep_fails_check() {
    let vmt = |depth: usize| {
        let (open, close) = ("{ \"a\"\n".repeat(depth), "}\n".repeat(depth));
        format!("\"LightmappedGeneric\"\n{open}{{ }}{close}").into_bytes()
    };
    let pak = |depth: usize| {
        let empty = srcmap_bsp::pak::empty_zip();
        let files = [("materials/deep.vmt".to_string(), vmt(depth))];
        srcmap_bsp::pak::Pak::parse(&empty, 0)
            .unwrap()
            .with_files(&files, false)
            .unwrap()
    };
    let mut bsp = sound_map();
    bsp.pakfile = pak(srcmap_kv::MAX_DEPTH / 2);
    assert!(check(&bsp).is_empty(), "{:?}", check(&bsp));
    bsp.pakfile = pak(40_000);
    let v = check(&bsp);
    assert!(
        v.iter()
            .any(|v| v.to_string().contains("PAKFILE") && v.message.contains("'materials/deep.vmt'")),
        "{v:?}"
    );
}

/// `info` reads the pakfile's directory; `check` must fail where it does (a directory claiming
/// 65,535 entries that are not there).
#[test]
fn a_pakfile_directory_info_cannot_read_fails_check() {
    let mut bsp = sound_map();
    let empty = srcmap_bsp::pak::Pak::parse(&[], 0).unwrap();
    let zip = empty
        .with_files(&[("materials/a.vmt".to_string(), b"x".to_vec())], false)
        .unwrap();
    bsp.pakfile = zip.clone();
    assert!(check(&bsp).is_empty(), "{:?}", check(&bsp));
    // The end-of-central-directory record's two entry counts.
    let eocd = zip.windows(4).rposition(|w| w == b"PK\x05\x06").unwrap();
    bsp.pakfile[eocd + 8..eocd + 12].copy_from_slice(&[0xff; 4]);
    assert!(srcmap_bsp::pak::Pak::parse(&bsp.pakfile, 0).is_err());
    let v = check(&bsp);
    assert!(v.iter().any(|v| v.to_string().contains("PAKFILE")), "{v:?}");
}

/// Damage `check` once passed: a cyclic tree, a lightmap far past its lump, NaN model bounds,
/// a vertex at 1e37. Each is reported naming its lump.
#[test]
fn cycles_runaway_lightmaps_nan_bounds_and_absurd_coordinates_are_reported() {
    let mut sound = sound_map();
    sound.nodes = vec![
        srcmap_bsp::Node {
            children: [1, -1],
            ..Default::default()
        },
        srcmap_bsp::Node {
            children: [-1, -1],
            ..Default::default()
        },
    ];
    sound.leafs = vec![srcmap_bsp::Leaf {
        leaf_water_data: -1,
        ..Default::default()
    }];
    sound.models = vec![srcmap_bsp::Model {
        head_node: 0,
        ..Default::default()
    }];
    sound.texinfo = vec![srcmap_bsp::TexInfo {
        texdata: -1,
        ..Default::default()
    }];
    sound.lighting = vec![Default::default(); 4];
    sound.faces = vec![srcmap_bsp::Face {
        styles: [0, 255, 255, 255],
        light_offset: 0,
        lightmap_size: [1, 1],
        dispinfo: -1,
        ..Default::default()
    }];
    assert!(check(&sound).is_empty(), "{:?}", check(&sound));
    type Spoil = Box<dyn Fn(&mut Bsp)>;
    let cases: Vec<(&str, &str, Spoil)> = vec![
        (
            "NODES",
            "cycle",
            Box::new(|b: &mut Bsp| b.nodes[1].children = [0, -1]),
        ),
        (
            "FACES",
            "runs past the lighting lump",
            Box::new(|b: &mut Bsp| b.faces[0].lightmap_size = [i32::MAX, i32::MAX]),
        ),
        (
            "FACES",
            "runs past the lighting lump",
            Box::new(|b: &mut Bsp| b.faces[0].lightmap_size = [2, 1]),
        ),
        (
            "MODELS",
            "not finite",
            Box::new(|b: &mut Bsp| b.models[0].mins[2] = f32::NAN),
        ),
        (
            "VERTEXES",
            "beyond",
            Box::new(|b: &mut Bsp| b.vertexes[0][0] = 1e37),
        ),
    ];
    for (lump, what, spoil) in cases {
        let mut bsp = sound.clone();
        spoil(&mut bsp);
        let v = check(&bsp);
        assert!(
            v.iter()
                .any(|v| v.to_string().contains(lump) && v.message.contains(what)),
            "{lump} {what}: {v:?}"
        );
    }
}
