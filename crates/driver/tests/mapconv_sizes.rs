//! VMF → VMAP with a game directory: texture coordinates use each texture's own size (its VTF
//! header), and a material the game does not have keeps 512 × 512 with a warning naming it.

use std::path::{Path, PathBuf};

mod common;

use srcmap_content::vtf::build_header;
use srcmap_dmx::Value;
use srcmap_driver::{MapconvJob, MapconvReport};
use srcmap_vmap::Vmap;

/// A game whose `dev/half` is a 256 × 128 texture.
fn game(root: &Path) -> PathBuf {
    let game = root.join("game");
    std::fs::create_dir_all(game.join("materials/dev")).unwrap();
    std::fs::write(
        game.join("gameinfo.txt"),
        "\"GameInfo\"\n{\n game \"t\"\n FileSystem\n {\n  SearchPaths\n  {\n   game+mod |gameinfo_path|.\n  }\n }\n}\n",
    )
    .unwrap();
    std::fs::write(
        game.join("materials/dev/half.vmt"),
        "LightmappedGeneric { $basetexture dev/half }",
    )
    .unwrap();
    std::fs::write(
        game.join("materials/dev/half.vtf"),
        build_header(4, 256, 128, 0, [0.5; 3]),
    )
    .unwrap();
    game
}

/// A 64-unit box: its top `DEV/HALF`, every other side `DEV/UNKNOWN`.
fn vmf() -> String {
    let side = |id: u32, plane: &str, material: &str, u: &str, v: &str| {
        format!(
            "side\n{{\n\"id\" \"{id}\"\n\"plane\" \"{plane}\"\n\"material\" \"{material}\"\n\"uaxis\" \"{u} 0.25\"\n\"vaxis\" \"{v} 0.25\"\n\"rotation\" \"0\"\n\"lightmapscale\" \"16\"\n\"smoothing_groups\" \"0\"\n}}\n"
        )
    };
    let (x, y, z) = ("[1 0 0 16]", "[0 -1 0 8]", "[0 0 -1 0]");
    let sides = [
        side(1, "(0 64 64) (64 64 64) (64 0 64)", "DEV/HALF", x, y),
        side(2, "(0 0 0) (64 0 0) (64 64 0)", "DEV/UNKNOWN", x, y),
        side(3, "(0 64 64) (0 0 64) (0 0 0)", "DEV/UNKNOWN", "[0 1 0 0]", z),
        side(4, "(64 64 0) (64 0 0) (64 0 64)", "DEV/UNKNOWN", "[0 1 0 0]", z),
        side(5, "(64 64 64) (0 64 64) (0 64 0)", "DEV/UNKNOWN", x, z),
        side(6, "(64 0 0) (0 0 0) (0 0 64)", "DEV/UNKNOWN", x, z),
    ];
    format!(
        "world\n{{\n\"id\" \"1\"\n\"classname\" \"worldspawn\"\nsolid\n{{\n\"id\" \"2\"\n{}}}\n}}\n",
        sides.concat()
    )
}

/// Every corner's texture coordinate, per material, in mesh order.
fn texcoords(path: &Path) -> Vec<(String, [f32; 2])> {
    let vmap = Vmap::read(&std::fs::read(path).unwrap()).unwrap();
    let mut out = Vec::new();
    for (_, data) in vmap.meshes() {
        let m = vmap.polygon_mesh(data).unwrap();
        for f in 0..m.face_count() {
            for c in m.face_corners(f) {
                let Some(Value::Vector2(uv)) = m.corner_value("texcoord:0", &c) else {
                    panic!("no texcoord")
                };
                out.push((m.face_material(f).unwrap().to_string(), uv));
            }
        }
    }
    out
}

fn convert(root: &Path, name: &str, game: Option<PathBuf>) -> (Vec<(String, [f32; 2])>, MapconvReport) {
    let job = MapconvJob {
        input: root.join("box.vmf"),
        output: root.join(name),
        binary: true,
        renames: Default::default(),
        game,
        materials: None,
        cull: false,
    };
    let report = srcmap_driver::mapconv::vmf_to_vmap(&job).unwrap();
    (texcoords(&job.output), report)
}

#[test]
fn texture_coordinates_follow_the_game_texture_size() {
    let root = common::fresh_dir("mapconv", "sizes");
    std::fs::write(root.join("box.vmf"), vmf()).unwrap();
    let (assumed, plain) = convert(&root, "plain.vmap", None);
    let (sized, report) = convert(&root, "sized.vmap", Some(game(&root)));
    assert!(plain.warnings().is_empty(), "{:?}", plain.warnings());
    assert_eq!(assumed.len(), 24);
    let mut half = 0;
    for ((material, a), (_, b)) in assumed.iter().zip(&sized) {
        let size = if material.contains("dev/half") {
            [256.0, 128.0]
        } else {
            [512.0, 512.0]
        };
        half += usize::from(size[0] == 256.0);
        for k in 0..2 {
            assert!(
                (a[k] * 512.0 - b[k] * size[k]).abs() < 1e-3,
                "{material}: {a:?} vs {b:?}"
            );
        }
    }
    assert_eq!(half, 4, "the top's four corners");
    let warnings: Vec<String> = report.warnings().iter().map(|w| w.to_string()).collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("dev/unknown") && !warnings[0].contains("dev/half"),
        "{warnings:?}"
    );
    let _ = std::fs::remove_dir_all(&root);
}
