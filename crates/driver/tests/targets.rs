//! Each target compiled: the README's box room with a static prop, through vbsp, vvis and vrad
//! for every game srcmap knows, keeps that game's BSP version, `lump_t` order, lump order in the
//! file, world-light version and `sprp` version and layout, reads back cleanly, and writes
//! back byte for byte.

use std::path::{Path, PathBuf};

use srcmap_bsp::gamelump::{DPRP, GameLumpData, SPRP};
use srcmap_bsp::lump::{HEADER_LUMPS, WORLDLIGHTS, WORLDLIGHTS_HDR};
use srcmap_bsp::{Bsp, BspFile, TARGETS, Target};
use srcmap_driver::{CompileJob, CompileProgress, NoMessages, RadSettings, VbspJob, VisSettings};
use srcmap_stage::NoProgress;

const NO_PROGRESS: CompileProgress<'static> = CompileProgress {
    vbsp: &NoProgress,
    vvis: &NoProgress,
    vrad: &NoProgress,
};

/// A prop the box room holds (its model is not there: the prop keeps a box of leaves).
const PROP: &str = "entity\n{\n\t\"id\" \"90\"\n\t\"classname\" \"prop_static\"\n\t\"model\" \"models/props/crate.mdl\"\n\
                    \t\"origin\" \"32 32 16\"\n\t\"angles\" \"0 90 0\"\n\t\"solid\" \"6\"\n}\n";

/// The box room with [`PROP`], in a fresh folder.
fn map_with_prop(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("srcmap-targets-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let room = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/box_room.vmf");
    let text = std::fs::read_to_string(room).unwrap();
    let at = text.find("cameras").unwrap();
    let map = dir.join("room.vmf");
    std::fs::write(&map, format!("{}{PROP}{}", &text[..at], &text[at..])).unwrap();
    map
}

/// Compiles the room for `target` (vis and fast light) and returns the BSP's bytes.
fn compile_for(target: &Target) -> Vec<u8> {
    let map = map_with_prop(target.name);
    let job = CompileJob {
        vbsp: VbspJob {
            map: map.clone(),
            target: Some(target.name.to_string()),
            ..Default::default()
        },
        vis: Some(VisSettings::default()),
        rad: Some(RadSettings {
            fast: true,
            ..Default::default()
        }),
        lights: Vec::new(),
    };
    srcmap_driver::compile(&job, &NO_PROGRESS, &NoMessages).unwrap();
    std::fs::read(map.with_extension("bsp")).unwrap()
}

/// vbsp alone on the room for `target`: the BSP's bytes.
fn vbsp_only(target: &Target) -> Vec<u8> {
    let map = map_with_prop(&format!("{}-vbsp", target.name));
    let job = VbspJob {
        map: map.clone(),
        target: Some(target.name.to_string()),
        ..Default::default()
    };
    srcmap_driver::vbsp(&job, &NoProgress, &NoMessages).unwrap();
    std::fs::read(map.with_extension("bsp")).unwrap()
}

/// The lumps holding data, in the order they sit in the file.
fn lumps_in_file(file: &BspFile<'_>) -> Vec<usize> {
    let mut placed: Vec<usize> = (0..HEADER_LUMPS)
        .filter(|&l| file.header.lumps[l].len > 0)
        .collect();
    placed.sort_by_key(|&l| file.header.lumps[l].offset);
    placed
}

#[test]
fn each_target_writes_its_games_layout_and_reads_back() {
    for target in TARGETS {
        let bytes = compile_for(target);
        let file = BspFile::parse(&bytes).unwrap();
        assert_eq!(file.header.version, target.bsp_version, "{}", target.name);
        assert_eq!(file.header.order, target.lump_order, "{}", target.name);
        // vbsp's file is laid out fresh in the game's order; the later stages keep its places
        // and put the lumps they fill (lighting, leaf ambient) where the game's tools do.
        for (stages, bytes) in [("vbsp", vbsp_only(target)), ("compile", bytes.clone())] {
            let placed = lumps_in_file(&BspFile::parse(&bytes).unwrap());
            let expected: Vec<usize> = target
                .write_order()
                .iter()
                .copied()
                .filter(|l| placed.contains(l))
                .collect();
            assert_eq!(
                placed, expected,
                "{} {stages}: lumps out of the game's order",
                target.name
            );
        }

        let bsp = Bsp::parse(&bytes).unwrap();
        // Games from Left 4 Dead on draw only HDR lightmaps: the compile lights those alone.
        let (lights, lights_lump, ambient) = match target.ldr_lightmaps {
            true => (&bsp.world_lights, WORLDLIGHTS, &bsp.leaf_ambient_lighting),
            false => (
                &bsp.world_lights_hdr,
                WORLDLIGHTS_HDR,
                &bsp.leaf_ambient_lighting_hdr,
            ),
        };
        assert_eq!(
            bsp.lump_versions[lights_lump], target.world_lights_version,
            "{}",
            target.name
        );
        assert_eq!(lights.len(), 1, "{}: the room's light", target.name);
        assert_eq!(
            (bsp.lighting.is_empty(), bsp.lighting_hdr.is_empty()),
            (!target.ldr_lightmaps, target.ldr_lightmaps),
            "{}: the lightmaps its game draws",
            target.name
        );
        // BSP 19's leaves hold their ambient cube; later versions keep it in the ambient lumps.
        let lit_cube =
            |cube: &[srcmap_bsp::ColorRgbExp32]| cube.iter().any(|c| c.r > 0 || c.g > 0 || c.b > 0);
        let inline = bsp.leafs.iter().filter_map(|l| l.ambient.as_ref());
        let (inline_lit, in_lumps) = (
            inline.clone().any(|cube| lit_cube(&cube[..])),
            ambient.iter().any(|s| lit_cube(&s.cube[..])),
        );
        assert_eq!(
            (inline_lit, in_lumps),
            (target.bsp_version < 20, target.bsp_version >= 20),
            "{}: ambient cubes",
            target.name
        );
        let sprp = bsp.game_lumps.get(SPRP).unwrap();
        assert_eq!(sprp.version, target.static_props_version, "{}", target.name);
        let GameLumpData::StaticProps(props) = &sprp.data else {
            panic!("{}: sprp not typed", target.name)
        };
        assert_eq!(
            (props.layout, props.props.len()),
            (target.static_props, 1),
            "{}",
            target.name
        );
        assert_eq!(bsp.game_lumps.get(DPRP).unwrap().version, 4, "{}", target.name);
        let violations = srcmap_bsp::check::check(&bsp);
        assert!(violations.is_empty(), "{}: {violations:?}", target.name);
        assert_eq!(
            bsp.to_bytes_over(&bytes).unwrap(),
            bytes,
            "{}: rewrite",
            target.name
        );
    }
}

/// Without a target or a game folder, the BSP is exactly the default target's.
#[test]
fn no_target_is_the_default_target() {
    let map = map_with_prop("default");
    let job = VbspJob {
        map: map.clone(),
        ..Default::default()
    };
    srcmap_driver::vbsp(&job, &NoProgress, &NoMessages).unwrap();
    let plain = std::fs::read(map.with_extension("bsp")).unwrap();
    let named = VbspJob {
        target: Some(Target::DEFAULT.name.into()),
        ..job
    };
    srcmap_driver::vbsp(&named, &NoProgress, &NoMessages).unwrap();
    assert_eq!(std::fs::read(map.with_extension("bsp")).unwrap(), plain);
}
