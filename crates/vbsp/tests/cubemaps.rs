//! `env_cubemap` on a small purpose-built map: the CUBEMAPS lump, and the patched materials
//! that point each shiny side at its cubemap.

mod common;

use common::*;
use srcmap_bsp::pak::Pak;
use srcmap_materials::{MaterialTable, TableEntry};
use srcmap_vbsp::*;

const SHINY: &str = "metal/Shiny";
/// Cubemap A sits left of pillar A, cubemap B right of pillar B.
const A: [i32; 3] = [128, 256, 128];
const B: [i32; 3] = [896, 256, 128];

/// A resolver that knows `SHINY` has `$envmap env_cubemap` (as a harvested table says).
fn resolver() -> Resolver {
    let mut table = MaterialTable::new();
    let entry = TableEntry {
        contents: None,
        surface_flags: None,
        width: 128,
        height: 128,
        reflectivity: [0.3; 3],
        emit: None,
        maps: vec!["test".into()],
        evidence: 1,
    };
    table.add_env_cubemap(SHINY, entry);
    Resolver::new(None, Some(("test.json".into(), table)))
}

fn cubemap(id: i64, origin: [i32; 3], extra: &[(&str, &str)]) -> MapEntity {
    let mut e = entity(id, "env_cubemap", origin.map(f64::from), vec![]);
    for (k, v) in extra {
        e.keyvalues.push((k.to_string(), v.to_string()));
    }
    e
}

/// A 1024×512×256 room with a shiny pillar near each end; `cubemaps` are added to it.
fn room_with_pillars(cubemaps: Vec<MapEntity>) -> Vec<MapEntity> {
    let mut brushes = room(1, [0.0; 3], [1024.0, 512.0, 256.0], "dev/dev_measurewall01a");
    brushes.push(box_brush(100, [192.0, 224.0, 64.0], [224.0, 288.0, 192.0], SHINY));
    brushes.push(box_brush(101, [800.0, 224.0, 64.0], [832.0, 288.0, 192.0], SHINY));
    let mut map = vec![
        world(brushes),
        entity(2, "info_player_start", [512.0, 256.0, 40.0], vec![]),
    ];
    map.extend(cubemaps);
    map
}

fn compile_named(entities: Vec<MapEntity>, materials: &Resolver) -> Output {
    let opts = Options {
        materials,
        verify: true,
        map_name: "cubes".into(),
        ..Default::default()
    };
    compile(&MapInput { entities }, &opts, &NoProgress).expect("compiles")
}

/// The material of the brush side on the axial plane `normal · p = dist`.
fn side_material(bsp: &Bsp, normal: [f32; 3], dist: f32) -> &str {
    let side = bsp
        .brush_sides
        .iter()
        .find(|s| {
            let p = &bsp.planes[s.plane as usize];
            p.normal == normal && p.dist == dist && s.bevel == 0
        })
        .expect("a side on that plane");
    let texinfo = &bsp.texinfo[side.texinfo as usize];
    bsp.texdata_name(texinfo.texdata as usize).expect("named")
}

fn patched(origin: [i32; 3]) -> String {
    format!("maps/cubes/metal/shiny_{}_{}_{}", origin[0], origin[1], origin[2])
}

#[test]
fn shiny_sides_take_the_nearest_cubemap_in_front() {
    let materials = resolver();
    let out = compile_named(
        room_with_pillars(vec![cubemap(10, A, &[("cubemapsize", "6")]), cubemap(11, B, &[])]),
        &materials,
    );
    let bsp = &out.bsp;
    let samples: Vec<_> = bsp.cubemaps.iter().map(|c| (c.origin, c.size)).collect();
    assert_eq!(samples, vec![(A, 6), (B, 0)]);
    // Pillar A's -X side faces cubemap A; its +X side has A behind it, so it takes B, the
    // nearest in front. Its other sides have both behind them: the nearest of all, A.
    assert_eq!(side_material(bsp, [-1.0, 0.0, 0.0], -192.0), patched(A));
    assert_eq!(side_material(bsp, [1.0, 0.0, 0.0], 224.0), patched(B));
    assert_eq!(side_material(bsp, [0.0, 1.0, 0.0], 288.0), patched(A));
    // Pillar B mirrors it.
    assert_eq!(side_material(bsp, [1.0, 0.0, 0.0], 832.0), patched(B));
    assert_eq!(side_material(bsp, [-1.0, 0.0, 0.0], -800.0), patched(A));
    // The walls are not shiny.
    assert_eq!(side_material(bsp, [0.0, 0.0, 1.0], 0.0), "dev/dev_measurewall01a");
    // Each patched material is a patch VMT in the pakfile that includes the original.
    let pak = Pak::parse(&bsp.pakfile, 0).expect("zip");
    assert_eq!(pak.entries.len(), 2);
    for (origin, cubemap) in [(A, "maps/cubes/c128_256_128"), (B, "maps/cubes/c896_256_128")] {
        let entry = pak
            .find(&format!("materials/{}.vmt", patched(origin)))
            .expect("patch in the pakfile");
        let text = String::from_utf8(pak.read(entry).expect("readable")).expect("text");
        assert!(text.starts_with("\"patch\""), "{text}");
        assert!(
            text.contains("\"include\"\t\t\"materials/metal/Shiny.vmt\""),
            "{text}"
        );
        assert!(text.contains(&format!("\"$envmap\"\t\t\"{cubemap}\"")), "{text}");
    }
}

#[test]
fn sides_listed_by_a_cubemap_take_it() {
    let materials = resolver();
    // Pillar A's -X side is box_brush(100)'s second side, id 1001; cubemap B claims it.
    let out = compile_named(
        room_with_pillars(vec![cubemap(10, A, &[]), cubemap(11, B, &[("sides", "1001 55")])]),
        &materials,
    );
    assert_eq!(side_material(&out.bsp, [-1.0, 0.0, 0.0], -192.0), patched(B));
    assert_eq!(side_material(&out.bsp, [0.0, 1.0, 0.0], 288.0), patched(A));
}

#[test]
fn without_cubemaps_nothing_is_patched() {
    let materials = resolver();
    let out = compile_named(room_with_pillars(vec![]), &materials);
    assert!(out.bsp.cubemaps.is_empty());
    assert_eq!(out.bsp.pakfile, srcmap_bsp::pak::empty_zip());
    assert_eq!(side_material(&out.bsp, [-1.0, 0.0, 0.0], -192.0), SHINY);
}

#[test]
fn cubemaps_in_solid_or_the_void_are_warned_about() {
    let materials = resolver();
    let inside_pillar = [208, 256, 128];
    let in_the_void = [5000, 256, 128];
    let out = compile_named(
        room_with_pillars(vec![
            cubemap(10, A, &[]),
            cubemap(11, inside_pillar, &[]),
            cubemap(12, in_the_void, &[]),
        ]),
        &materials,
    );
    let warned: Vec<_> = (out.diagnostics.iter())
        .filter(|d| d.message.contains("outside the world"))
        .collect();
    let ids: Vec<_> = warned.iter().map(|d| d.at.entity_id).collect();
    assert_eq!(ids, [Some(11), Some(12)], "{:?}", out.diagnostics);
    assert!(warned[0].message.contains("entity 11") && warned[0].message.contains("(208 256 128)"));
    assert_eq!(warned[0].severity, Severity::Warning);
    // The one in the void is found by the world's bounds as well as by its leaf.
    // They are still written, as Valve writes them.
    let origins: Vec<_> = out.bsp.cubemaps.iter().map(|c| c.origin).collect();
    assert_eq!(origins, [A, inside_pillar, in_the_void]);
}

/// A game folder (no gameinfo.txt) with a shiny material and the sky `testsky`, whose six
/// textures are `sky_format` VTFs (the rt face `rt_size` pixels square, the others 32).
fn game_with_sky(tag: &str, sky_format: i32, rt_size: u16) -> std::path::PathBuf {
    let root = std::env::temp_dir().join(format!("srcmap-sky-{tag}-{}", std::process::id()));
    let materials = root.join("materials");
    std::fs::create_dir_all(materials.join("skybox")).expect("temp dir");
    std::fs::create_dir_all(materials.join("metal")).expect("temp dir");
    std::fs::write(
        materials.join("metal/shiny.vmt"),
        "LightmappedGeneric { $basetexture metal/plate $envmap env_cubemap }",
    )
    .expect("vmt");
    for face in ["rt", "lf", "bk", "ft", "up", "dn"] {
        std::fs::write(
            materials.join(format!("skybox/testsky{face}.vmt")),
            format!("Sky {{ $basetexture skybox/testsky{face} }}"),
        )
        .expect("vmt");
        // A default cube map is a well-formed VTF: use one, resized, as the sky texture.
        let mut vtf = srcmap_content::vtf::default_cubemap(sky_format, 0x030c, 1).expect("format");
        let size = if face == "rt" { rt_size } else { 32 };
        vtf[16..18].copy_from_slice(&size.to_le_bytes());
        vtf[18..20].copy_from_slice(&size.to_le_bytes());
        vtf[20..24].copy_from_slice(&0x030cu32.to_le_bytes());
        std::fs::write(materials.join(format!("skybox/testsky{face}.vtf")), vtf).expect("vtf");
    }
    root
}

fn with_sky(mut map: Vec<MapEntity>) -> Vec<MapEntity> {
    map[0].keyvalues.push(("skyname".into(), "testsky".into()));
    map
}

#[test]
fn the_default_cubemap_comes_from_the_sky_and_backs_every_patched_cubemap() {
    let root = game_with_sky("ok", 15, 32);
    let game = srcmap_content::GameDir::open(&root).expect("game dir");
    let materials = Resolver::new(Some(game), None);
    let out = compile_named(with_sky(room_with_pillars(vec![cubemap(10, A, &[])])), &materials);
    std::fs::remove_dir_all(&root).ok();
    let pak = Pak::parse(&out.bsp.pakfile, 0).expect("zip");
    let names: Vec<&str> = pak.entries.iter().map(|e| e.name.as_str()).collect();
    // The patch VMT, then the LDR default cube map and its copy, then the HDR pair.
    assert_eq!(
        names,
        [
            "materials/maps/cubes/metal/shiny_128_256_128.vmt",
            "materials/maps/cubes/cubemapdefault.vtf",
            "materials/maps/cubes/c128_256_128.vtf",
            "materials/maps/cubes/cubemapdefault.hdr.vtf",
            "materials/maps/cubes/c128_256_128.hdr.vtf",
        ]
    );
    let read = |name: &str| {
        pak.read(pak.find(name).expect("in the pakfile"))
            .expect("readable")
    };
    // The sky is DXT5: so is the cube map, an environment map with eight-bit alpha.
    let ldr = read("materials/maps/cubes/cubemapdefault.vtf");
    assert_eq!(
        Some(ldr.clone()),
        srcmap_content::vtf::default_cubemap(15, 0x630c, 1)
    );
    assert_eq!(read("materials/maps/cubes/c128_256_128.vtf"), ldr);
    let hdr = srcmap_content::VtfHeader::parse(&read("materials/maps/cubes/cubemapdefault.hdr.vtf"), "hdr")
        .expect("a VTF");
    assert_eq!((hdr.high_res_format, hdr.flags), (24, 0x430c));
}

#[test]
fn a_sky_of_mismatched_faces_makes_no_default_cubemap() {
    let root = game_with_sky("odd", 3, 64);
    let game = srcmap_content::GameDir::open(&root).expect("game dir");
    let materials = Resolver::new(Some(game), None);
    let out = compile_named(with_sky(room_with_pillars(vec![cubemap(10, A, &[])])), &materials);
    std::fs::remove_dir_all(&root).ok();
    let pak = Pak::parse(&out.bsp.pakfile, 0).expect("zip");
    assert!(pak.entries.iter().all(|e| e.name.ends_with(".vmt")));
    assert!(
        materials
            .warnings()
            .iter()
            .any(|w| w.contains("testsky") && w.contains("differ")),
        "{:?}",
        materials.warnings()
    );
    assert!(
        out.diagnostics
            .iter()
            .any(|d| d.message.contains("no default cubemap"))
    );
}
