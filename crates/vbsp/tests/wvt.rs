//! WorldVertexTransition (blend) materials on a small purpose-built map: a brush side of one
//! moves to its `_wvt_patch` copy, whose VMT (the text the material table holds) goes in the
//! pakfile; a displaced side keeps the blend material.

mod common;

use common::*;
use srcmap_bsp::pak::Pak;
use srcmap_geom::DVec3;
use srcmap_materials::{MaterialTable, TableEntry};
use srcmap_vbsp::input::MapDisp;
use srcmap_vbsp::*;

const BLEND: &str = "Nature/BlendRockGrass";
const DISP_BLEND: &str = "nature/blenddirtmud";
const PATCH_TEXT: &str = "\"LightmappedGeneric\"\n{\n\t\"$basetexture\"\t\t\"nature/rock01\"\n}\n";
const SHINY_TEXT: &str = "\"LightmappedGeneric\"\n{\n\t\"$basetexture\"\t\t\"nature/rock01\"\n\t\"$envmap\"\t\t\"env_cubemap\"\n}\n";
/// Index of `box_brush`'s top side (+Z).
const TOP: usize = 4;

/// A resolver whose table knows both blend materials' patch texts (as a harvested one does).
fn resolver(text: &str) -> Resolver {
    let mut table = MaterialTable::new();
    let entry = TableEntry {
        contents: None,
        surface_flags: None,
        width: 256,
        height: 256,
        reflectivity: [0.2; 3],
        emit: None,
        maps: vec!["test".into()],
        evidence: 1,
    };
    table.add_wvt_patch(BLEND, text.into(), entry.clone());
    table.add_wvt_patch(DISP_BLEND, text.into(), entry);
    Resolver::new(None, Some(("test.json".into(), table)))
}

/// A flat power-2 displacement on a 128-unit square starting at `start`.
fn flat(start: [f64; 3]) -> Box<MapDisp> {
    let mut d = MapDisp {
        power: 2,
        start_position: DVec3::from(start),
        ..Default::default()
    };
    for _ in 0..25 {
        d.normals.push([0.0, 0.0, 1.0]);
        d.distances.push(0.0);
        d.offsets.push([0.0; 3]);
        d.alphas.push(0.0);
    }
    d.triangle_tags = vec![9; 32];
    Box::new(d)
}

/// A room with a blend pillar, and a floor patch whose displaced top has the other blend
/// material (its other sides are nodraw).
fn map(extra: Vec<MapEntity>) -> Vec<MapEntity> {
    let mut brushes = room(1, [0.0; 3], [512.0, 512.0, 256.0], "dev/dev_measurewall01a");
    brushes.push(box_brush(100, [64.0, 224.0, 0.0], [96.0, 288.0, 192.0], BLEND));
    let mut patch = box_brush(
        101,
        [192.0, 192.0, 0.0],
        [320.0, 320.0, 16.0],
        "tools/toolsnodraw",
    );
    patch.sides[TOP].material = DISP_BLEND.into();
    patch.sides[TOP].displacement = Some(flat([192.0, 192.0, 16.0]));
    brushes.push(patch);
    let mut entities = vec![
        world(brushes),
        entity(2, "info_player_start", [400.0, 400.0, 40.0], vec![]),
    ];
    entities.extend(extra);
    entities
}

fn compile_named(entities: Vec<MapEntity>, materials: &Resolver) -> Output {
    let opts = Options {
        materials,
        verify: true,
        map_name: "blends".into(),
        ..Default::default()
    };
    compile(&MapInput { entities }, &opts, &NoProgress).expect("compiles")
}

fn texdata_names(bsp: &Bsp) -> Vec<&str> {
    (0..bsp.texdata.len())
        .filter_map(|i| bsp.texdata_name(i))
        .collect()
}

fn pak_text(bsp: &Bsp, path: &str) -> Option<String> {
    let pak = Pak::parse(&bsp.pakfile, 0).expect("zip");
    let entry = pak.find(path)?;
    Some(String::from_utf8(pak.read(entry).expect("readable")).expect("text"))
}

#[test]
fn blend_brush_sides_take_the_patched_copy_and_displacements_do_not() {
    let materials = resolver(PATCH_TEXT);
    let out = compile_named(map(vec![]), &materials);
    let bsp = &out.bsp;
    let patched = "maps/blends/nature/blendrockgrass_wvt_patch";
    let names = texdata_names(bsp);
    assert!(names.contains(&patched), "{names:?}");
    // The displaced side keeps its material, and nothing else uses that one.
    assert!(
        !names.iter().any(|n| n.contains("blenddirtmud_wvt_patch")),
        "{names:?}"
    );
    let info = &bsp.disp_info[0];
    assert_eq!(face_material(bsp, &bsp.faces[info.map_face as usize]), DISP_BLEND);
    // Every face of the pillar shows the patched copy, none the original.
    assert!(area_of(&out, patched) > 0.0);
    assert_eq!(area_of(&out, BLEND), 0.0);
    // Its brush sides (bevels too) point at the copy, a clone of the original's texdata.
    let original = names
        .iter()
        .position(|n| *n == BLEND)
        .expect("original texdata kept");
    let copy = names.iter().position(|n| *n == patched).unwrap();
    let (a, b) = (&bsp.texdata[original], &bsp.texdata[copy]);
    assert_eq!(
        (a.width, a.height, a.reflectivity),
        (b.width, b.height, b.reflectivity)
    );
    // The VMT is the table's text, once.
    let pak = Pak::parse(&bsp.pakfile, 0).expect("zip");
    assert_eq!(pak.entries.len(), 1);
    assert_eq!(
        pak_text(bsp, &format!("materials/{patched}.vmt")).as_deref(),
        Some(PATCH_TEXT)
    );
}

#[test]
fn without_the_patch_text_nothing_is_patched() {
    let out = compile_named(map(vec![]), Resolver::builtin_only());
    assert!(!texdata_names(&out.bsp).iter().any(|n| n.starts_with("maps/")));
    assert_eq!(out.bsp.pakfile, srcmap_bsp::pak::empty_zip());
}

#[test]
fn a_shiny_blend_gets_a_cubemap_patch_of_its_patched_copy() {
    // Valve patches blends before cubemaps, so the cubemap patch includes the blend patch.
    let materials = resolver(SHINY_TEXT);
    let mut cubemap = entity(10, "env_cubemap", [256.0, 256.0, 128.0], vec![]);
    cubemap.keyvalues.push(("cubemapsize".into(), "0".into()));
    let out = compile_named(map(vec![cubemap]), &materials);
    let bsp = &out.bsp;
    let wvt = "maps/blends/nature/blendrockgrass_wvt_patch";
    let cubed = format!("maps/blends/{wvt}_256_256_128");
    assert!(area_of(&out, &cubed) > 0.0, "{:?}", texdata_names(bsp));
    let text = pak_text(bsp, &format!("materials/{cubed}.vmt")).expect("cubemap patch");
    assert!(
        text.contains(&format!("\"include\"\t\t\"materials/{wvt}.vmt\"")),
        "{text}"
    );
    assert_eq!(
        pak_text(bsp, &format!("materials/{wvt}.vmt")).as_deref(),
        Some(SHINY_TEXT)
    );
}

/// A game folder (no gameinfo.txt: the folder alone is searched) holding the two blend VMTs.
fn game_with_blends(tag: &str) -> std::path::PathBuf {
    let root = std::env::temp_dir().join(format!("srcmap-wvt-{tag}-{}", std::process::id()));
    let nature = root.join("materials/nature");
    std::fs::create_dir_all(&nature).expect("temp dir");
    let blend = "\"WorldVertexTransition\"\n{\n\t\"$basetexture\" \"nature/rock01\"\n\t\"$basetexture2\" \"nature/grass01\"\n\
                 \t\"$bumpmap2\" \"nature/grass01_normal\"\n\t\"$envmap\" \"env_cubemap\"\n\t\"$seamless_scale\" \".005\"\n\
                 \t\"$alpha\" \"0.5\" [$X360]\n}\n";
    std::fs::write(nature.join("blendrockgrass.vmt"), blend).expect("vmt");
    std::fs::write(nature.join("blenddirtmud.vmt"), blend).expect("vmt");
    root
}

#[test]
fn with_the_game_the_patch_is_built_from_its_vmt() {
    let root = game_with_blends("game");
    let game = srcmap_content::GameDir::open(&root).expect("game dir");
    let materials = Resolver::new(Some(game), None);
    let mut cubemap = entity(10, "env_cubemap", [256.0, 256.0, 128.0], vec![]);
    cubemap.keyvalues.push(("cubemapsize".into(), "0".into()));
    let out = compile_named(map(vec![cubemap]), &materials);
    std::fs::remove_dir_all(&root).ok();
    let bsp = &out.bsp;
    let wvt = "maps/blends/nature/blendrockgrass_wvt_patch";
    // Valve's copy: renamed shader, no second texture, the X360 key gone, values re-typed.
    assert_eq!(
        pak_text(bsp, &format!("materials/{wvt}.vmt")).as_deref(),
        Some(
            "\"LightmappedGeneric\"\r\n{\r\n\t\"$basetexture\"\t\t\"nature/rock01\"\r\n\
             \t\"$envmap\"\t\t\"env_cubemap\"\r\n\t\"$seamless_scale\"\t\t\"0.005000\"\r\n}\r\n"
        )
    );
    // The copy keeps the original's env_cubemap, so it gets a cubemap patch of its own.
    let cubed = format!("maps/blends/{wvt}_256_256_128");
    assert!(area_of(&out, &cubed) > 0.0, "{:?}", texdata_names(bsp));
    assert!(
        !texdata_names(bsp)
            .iter()
            .any(|n| n.contains("blenddirtmud_wvt_patch"))
    );
}
