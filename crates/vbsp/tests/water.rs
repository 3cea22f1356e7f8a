//! Water volumes on small purpose-built maps: the LEAFWATERDATA records, which leaves point
//! at them, and the default `water_lod_control`.

mod common;

use common::*;
use srcmap_vbsp::*;

const WALL: &str = "dev/dev_measurewall01a";
const WATER: &str = "nature/water_pond";

/// A 512×512×256 room with a player start above the floor.
fn room_with(extra: Vec<input::MapBrush>) -> Vec<input::MapEntity> {
    let mut brushes = room(1, [0.0, 0.0, 0.0], [512.0, 512.0, 256.0], WALL);
    brushes.extend(extra);
    vec![
        world(brushes),
        entity(2, "info_player_start", [400.0, 400.0, 200.0], vec![]),
    ]
}

fn water_index_at(out: &Output, p: [f64; 3]) -> i32 {
    out.bsp.leaf_at(0, p).expect("leaf").leaf_water_data
}

fn lod_controls(out: &Output) -> Vec<&srcmap_bsp::Entity> {
    (out.bsp.entities.iter())
        .filter(|e| e.get("classname") == Some("water_lod_control"))
        .collect()
}

#[test]
fn a_pool_is_one_volume_up_to_its_surface() {
    let pool = box_brush(100, [0.0, 0.0, 0.0], [512.0, 512.0, 96.0], WATER);
    let out = compile_map(room_with(vec![pool])).unwrap();
    let data = &out.bsp.leaf_water_data;
    assert_eq!(data.len(), 1, "{data:?}");
    assert_eq!(data[0].surface_z, 96.0);
    assert_eq!(data[0].min_z, 0.0);
    // The surface texinfo is the water's.
    let ti = &out.bsp.texinfo[data[0].surface_texinfo as usize];
    assert_eq!(
        out.bsp.texdata_name(ti.texdata as usize),
        Some(WATER),
        "surface texinfo"
    );
    for p in [[10.0, 10.0, 10.0], [256.0, 256.0, 90.0], [500.0, 20.0, 50.0]] {
        assert_eq!(water_index_at(&out, p), 0, "leaf at {p:?}");
    }
    assert_eq!(water_index_at(&out, [256.0, 256.0, 200.0]), -1);
    // Only the water's leaves point at it.
    for l in &out.bsp.leafs {
        let wet = l.contents as u32 & contents::CONTENTS_WATER != 0;
        assert_eq!(l.leaf_water_data >= 0, wet, "{l:?}");
    }
    // Valve measures the distance to water in vvis: vbsp writes zeros.
    assert!(out.bsp.leaf_min_dist_to_water.iter().all(|&d| d == 0));
    // The surface material's copy that knows the depth, bottom to surface.
    let pak = srcmap_bsp::pak::Pak::parse(&out.bsp.pakfile, 0).expect("zip");
    assert_eq!(pak.entries.len(), 1);
    let entry = &pak.entries[0];
    assert!(
        entry.name.ends_with("/nature/water_pond_depth_96.vmt"),
        "{}",
        entry.name
    );
    let text = String::from_utf8(pak.read(entry).unwrap()).unwrap();
    assert!(
        text.contains("\"include\"\t\t\"materials/nature/water_pond.vmt\""),
        "{text}"
    );
    assert!(text.contains("\"insert\""), "{text}");
    assert!(text.contains("\"$waterdepth\"\t\t\"96\""), "{text}");
    let lod = lod_controls(&out);
    assert_eq!(lod.len(), 1);
    assert_eq!(lod[0].get("cheapwaterstartdistance"), Some("1000"));
    assert_eq!(lod[0].get("cheapwaterenddistance"), Some("2000"));
}

#[test]
fn pools_at_two_heights_are_two_volumes() {
    let wall = box_brush(100, [240.0, 0.0, 0.0], [272.0, 512.0, 160.0], WALL);
    let low = box_brush(101, [0.0, 0.0, 0.0], [240.0, 512.0, 64.0], WATER);
    let high = box_brush(102, [272.0, 0.0, 0.0], [512.0, 512.0, 128.0], WATER);
    // The room's halves meet over the wall: the pools are separate volumes all the same.
    let out = compile_map(room_with(vec![wall, low, high])).unwrap();
    let mut surfaces: Vec<f32> = out.bsp.leaf_water_data.iter().map(|d| d.surface_z).collect();
    surfaces.sort_by(f32::total_cmp);
    assert_eq!(surfaces, [64.0, 128.0]);
    let (a, b) = (
        water_index_at(&out, [100.0, 100.0, 32.0]),
        water_index_at(&out, [400.0, 100.0, 100.0]),
    );
    assert!(a >= 0 && b >= 0 && a != b, "{a} {b}");
    assert_eq!(out.bsp.leaf_water_data[a as usize].surface_z, 64.0);
    assert_eq!(out.bsp.leaf_water_data[b as usize].surface_z, 128.0);
}

#[test]
fn a_water_brush_model_has_a_record_and_no_leaf() {
    let pool = box_brush(100, [64.0, 64.0, 0.0], [192.0, 192.0, 48.0], WATER);
    let mut ents = room_with(vec![]);
    ents.push(entity(3, "func_water_analog", [0.0; 3], vec![pool]));
    let out = compile_map(ents).unwrap();
    let data = &out.bsp.leaf_water_data;
    assert_eq!(data.len(), 1, "{data:?}");
    assert_eq!((data[0].surface_z, data[0].min_z), (48.0, 0.0));
    assert!(out.bsp.leafs.iter().all(|l| l.leaf_water_data == -1));
    assert_eq!(lod_controls(&out).len(), 1);
}

#[test]
fn the_map_own_lod_control_is_kept() {
    let pool = box_brush(100, [0.0, 0.0, 0.0], [512.0, 512.0, 96.0], WATER);
    let mut ents = room_with(vec![pool]);
    let mut lod = entity(3, "water_lod_control", [0.0; 3], vec![]);
    lod.keyvalues
        .push(("cheapwaterstartdistance".into(), "500".into()));
    ents.push(lod);
    let out = compile_map(ents).unwrap();
    let lod = lod_controls(&out);
    assert_eq!(lod.len(), 1);
    assert_eq!(lod[0].get("cheapwaterstartdistance"), Some("500"));
}

#[test]
fn a_dry_map_has_no_water_data() {
    let out = compile_map(room_with(vec![])).unwrap();
    assert!(out.bsp.leaf_water_data.is_empty());
    assert!(out.bsp.leafs.iter().all(|l| l.leaf_water_data == -1));
    assert!(lod_controls(&out).is_empty());
    assert_eq!(out.bsp.pakfile, srcmap_bsp::pak::empty_zip());
}

/// Faces showing `material` and facing `normal_z` (±1).
fn faces_of(out: &Output, material: &str, normal_z: f32) -> usize {
    (out.bsp.faces.iter())
        .filter(|f| face_material(&out.bsp, f) == material)
        .filter(|f| {
            let z = out.bsp.planes[f.plane as usize].normal[2];
            (if f.side != 0 { -z } else { z }) == normal_z
        })
        .count()
}

#[test]
fn from_below_the_surface_shows_the_bottom_material_or_nothing() {
    let pool = || vec![box_brush(100, [0.0, 0.0, 0.0], [512.0, 512.0, 96.0], WATER)];
    // Without a $bottommaterial the underside is not drawn, and the compile says so.
    let out = compile_map(room_with(pool())).unwrap();
    assert!(faces_of(&out, WATER, 1.0) > 0);
    assert_eq!(faces_of(&out, WATER, -1.0), 0);
    assert!(
        out.diagnostics
            .iter()
            .any(|d| d.message.contains("no $bottommaterial")),
        "{:?}",
        out.diagnostics
    );
    // With the game's VMT, the underside shows its bottom material, over the whole pool.
    let root = std::env::temp_dir().join(format!("srcmap-water-bottom-{}", std::process::id()));
    std::fs::create_dir_all(root.join("materials/nature")).expect("temp dir");
    std::fs::write(
        root.join("materials/nature/water_pond.vmt"),
        "Water { %compilewater 1 $bottommaterial nature/water_pond_beneath }",
    )
    .expect("vmt");
    let game = srcmap_content::GameDir::open(&root).expect("game dir");
    let materials = Resolver::new(Some(game), None);
    let opts = Options {
        materials: &materials,
        verify: true,
        ..Default::default()
    };
    let out = compile(
        &MapInput {
            entities: room_with(pool()),
        },
        &opts,
        &NoProgress,
    )
    .expect("compiles");
    std::fs::remove_dir_all(&root).ok();
    assert_eq!(area_of(&out, "nature/water_pond_beneath"), 512.0 * 512.0);
    assert_eq!(area_of(&out, WATER), 512.0 * 512.0);
    assert!(
        !out.diagnostics
            .iter()
            .any(|d| d.message.contains("bottommaterial"))
    );
}
