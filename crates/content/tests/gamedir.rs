//! A game directory built in a temp folder: gameinfo.txt search paths, loose files over VPKs,
//! patch materials across them, texture headers.

use srcmap_content::{GameDir, vpk::build_dir, vtf::build_header};

fn temp_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("srcmap-content-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn resolves_search_paths_in_order() {
    let base = temp_dir("game");
    let mod_dir = base.join("mymod");
    let hl2 = base.join("hl2");
    std::fs::create_dir_all(mod_dir.join("materials/brick")).unwrap();
    std::fs::create_dir_all(&hl2).unwrap();
    std::fs::write(
        mod_dir.join("gameinfo.txt"),
        "\"GameInfo\"\n{\n game \"My Mod\"\n FileSystem\n {\n  SearchPaths\n  {\n   game+mod |gameinfo_path|.\n   game hl2/hl2_misc.vpk\n   platform |all_source_engine_paths|platform\n   game |all_source_engine_paths|hl2\n  }\n }\n}\n",
    )
    .unwrap();
    // Loose in the mod: a patch material over a base material that lives in the VPK.
    std::fs::write(
        mod_dir.join("materials/brick/wall_patched.vmt"),
        "patch { include \"materials/brick/wall.vmt\" replace { $surfaceprop concrete } }",
    )
    .unwrap();
    let vtf = build_header(4, 256, 128, 0, [0.3, 0.2, 0.1]);
    let files: [(&str, &[u8]); 3] = [
        (
            "materials/brick/wall.vmt",
            b"LightmappedGeneric { $basetexture brick/wall $surfaceprop brick }",
        ),
        ("materials/brick/wall.vtf", &vtf),
        (
            "materials/tools/toolsnodraw.vmt",
            b"LightmappedGeneric { %compilenodraw 1 %compilenonsolid 0 }",
        ),
    ];
    std::fs::write(hl2.join("hl2_misc_dir.vpk"), build_dir(2, &files)).unwrap();
    // A loose file in hl2 that the VPK search path shadows.
    std::fs::create_dir_all(hl2.join("materials/brick")).unwrap();
    std::fs::write(hl2.join("materials/brick/wall.vmt"), "UnlitGeneric { }").unwrap();

    let game = GameDir::open(&mod_dir).unwrap();
    assert_eq!(game.name.as_deref(), Some("My Mod"));
    assert_eq!(
        game.search_paths.len(),
        3,
        "{:?} skipped {:?}",
        game.search_paths,
        game.skipped
    );
    let wall = game.material("brick/wall").unwrap().unwrap();
    assert_eq!(
        wall.shader, "LightmappedGeneric",
        "the VPK comes before loose hl2 files"
    );
    let patched = game
        .material("materials/brick/wall_patched.vmt")
        .unwrap()
        .unwrap();
    assert_eq!(patched.base_texture(), Some("brick/wall"));
    assert_eq!(patched.surface_prop(), Some("concrete"));
    assert!(
        game.material("TOOLS/TOOLSNODRAW")
            .unwrap()
            .unwrap()
            .compile_flags()
            .nodraw
    );
    let h = game.texture_header("brick/wall").unwrap().unwrap();
    assert_eq!((h.width, h.height), (256, 128));
    assert_eq!(h.reflectivity, [0.3, 0.2, 0.1]);
    assert!(game.material("does/not/exist").unwrap().is_none());
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn damaged_inputs_name_the_file() {
    let base = temp_dir("bad");
    std::fs::write(
        base.join("gameinfo.txt"),
        "GameInfo { game x FileSystem { SearchPaths { game ",
    )
    .unwrap();
    let err = GameDir::open(&base).unwrap_err().to_string();
    assert!(err.contains("gameinfo.txt"), "{err}");
    let mut vpk = build_dir(1, &[("a.txt", b"hello")]);
    let n = vpk.len();
    vpk.truncate(n - 20);
    let err = srcmap_content::Vpk::parse(vpk, "pak01_dir.vpk")
        .unwrap_err()
        .to_string();
    assert!(err.contains("pak01_dir.vpk") && err.contains("byte"), "{err}");
    let _ = std::fs::remove_dir_all(&base);
}
