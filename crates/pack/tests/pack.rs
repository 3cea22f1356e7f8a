//! A purpose-built map and content folder: every reference kind the walk follows, decoys it
//! must leave, a game VPK whose files are never packed, and the inputs it must refuse.

use std::path::{Path, PathBuf};

use srcmap_bsp::pak::{METHOD_LZMA, Pak};
use srcmap_bsp::{Bsp, BspFile, Entity, TexData};
use srcmap_pack::{Change, Compression, Limits, Options, PackError, Plan, pack, plan};

/// A fresh folder for one test.
fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("srcmap-pack-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn put(root: &Path, path: &str, bytes: &[u8]) {
    let p = root.join(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
}

/// A map "m": two brush materials (one the game's), a cubemap patch of a custom material in
/// the pakfile, entities naming a sprite, a sound, a script and a particle effect.
fn map_bytes(extra: &[(&str, &str)]) -> Vec<u8> {
    let mut bsp = Bsp::new(20);
    for name in ["CUSTOM/Wall", "game/floor", "maps/m/custom/shiny_1_2_3"] {
        let name_id = bsp.add_texdata_name(name);
        bsp.texdata.push(TexData {
            name_id,
            ..TexData::default()
        });
    }
    let mut world = vec![
        ("classname", "worldspawn"),
        ("detailmaterial", "detail/custom_sprites"),
    ];
    world.extend_from_slice(extra);
    bsp.entities = vec![
        Entity::from_pairs(&world),
        Entity::from_pairs(&[("classname", "env_sprite"), ("model", "sprites/custom_glow.vmt")]),
        Entity::from_pairs(&[("classname", "ambient_generic"), ("message", ")custom/hum.wav")]),
        Entity::from_pairs(&[("classname", "logic_script"), ("vscripts", "custom/logic")]),
    ];
    let patch = b"patch { include materials/custom/shiny.vmt insert { $envmap maps/m/c1_2_3 } }".to_vec();
    let generated = vec![("materials/maps/m/custom/shiny_1_2_3.vmt".to_string(), patch)];
    bsp.pakfile = Pak::parse(&[], 0).unwrap().with_files(&generated, false).unwrap();
    bsp.to_bytes().unwrap()
}

/// The content folder: what the map needs, and decoys it does not.
fn content(root: &Path) {
    let files: &[(&str, &str)] = &[
        (
            "materials/custom/wall.vmt",
            "LightmappedGeneric { $basetexture custom/wall $bumpmap custom/wall_n $fallbackmaterial custom/wall_dx8 }",
        ),
        ("materials/custom/wall.vtf", "VTF wall"),
        ("materials/custom/wall_n.vtf", "VTF wall normal"),
        (
            "materials/custom/wall_dx8.vmt",
            "LightmappedGeneric { $basetexture custom/wall }",
        ),
        (
            "materials/custom/shiny.vmt",
            "LightmappedGeneric { $basetexture custom/shiny $envmap env_cubemap }",
        ),
        ("materials/custom/shiny.vtf", "VTF shiny"),
        (
            "materials/detail/custom_sprites.vmt",
            "UnlitGeneric { $basetexture detail/custom_sprites }",
        ),
        ("materials/detail/custom_sprites.vtf", "VTF sprites"),
        (
            "materials/sprites/custom_glow.vmt",
            "Sprite { $basetexture sprites/custom_glow }",
        ),
        ("materials/sprites/custom_glow.vtf", "VTF glow"),
        (
            "materials/effects/custom_spark.vmt",
            "Sprite { $basetexture effects/custom_spark }",
        ),
        ("materials/effects/custom_spark.vtf", "VTF spark"),
        ("sound/custom/hum.wav", "RIFF hum"),
        ("sound/custom/wind.wav", "RIFF wind"),
        ("sound/custom/level.mp3", "ID3 level"),
        (
            "scripts/vscripts/custom/logic.nut",
            "IncludeScript(\"custom/lib\")\nPrecacheSound(\"custom/wind.wav\")",
        ),
        ("scripts/vscripts/custom/lib.nut", "function f() {}"),
        (
            "scripts/soundscapes_m.txt",
            "m.outside { playlooping { wave custom/wind.wav } }",
        ),
        (
            "maps/m_level_sounds.txt",
            "M.Level { wave \"#custom/level.mp3\" }",
        ),
        (
            "maps/m_particles.txt",
            "particles_manifest { file \"!particles/custom.pcf\" }",
        ),
        ("maps/m.nav", "NAV"),
        (
            "materials/vgui/maps/menu_photos_m.vmt",
            "UnlitGeneric { $basetexture vgui/maps/menu_photos_m }",
        ),
        ("materials/vgui/maps/menu_photos_m.vtf", "VTF photo"),
        (
            "materials/decoy/unused.vmt",
            "LightmappedGeneric { $basetexture decoy/unused }",
        ),
        ("materials/decoy/unused.vtf", "VTF decoy"),
        ("maps/other.nav", "NAV other"),
        ("maps/embed.nav", "NAV embed"),
        (
            "materials/game/floor.vmt",
            "LightmappedGeneric { $basetexture game/floor }",
        ),
    ];
    for (path, text) in files {
        put(root, path, text.as_bytes());
    }
    put(root, "particles/custom.pcf", &pcf());
}

/// A particle file with one effect drawing with a custom material.
fn pcf() -> Vec<u8> {
    use srcmap_dmx::{Dmx, Element, Guid, Header, Value};
    let mut root = Element::new("DmElement", "untitled", Guid([1; 16]));
    root.set("material", Value::String("effects\\custom_spark.vmt".into()));
    Dmx::new(Header::new("binary", 2, "pcf", 1), root)
        .write()
        .unwrap()
}

/// The names of the files packed.
const EXPECTED: &[&str] = &[
    "maps/m.nav",
    "maps/m_level_sounds.txt",
    "maps/m_particles.txt",
    "materials/custom/shiny.vmt",
    "materials/custom/shiny.vtf",
    "materials/custom/wall.vmt",
    "materials/custom/wall.vtf",
    "materials/custom/wall_dx8.vmt",
    "materials/custom/wall_n.vtf",
    "materials/detail/custom_sprites.vmt",
    "materials/detail/custom_sprites.vtf",
    "materials/effects/custom_spark.vmt",
    "materials/effects/custom_spark.vtf",
    "materials/sprites/custom_glow.vmt",
    "materials/sprites/custom_glow.vtf",
    "materials/vgui/maps/menu_photos_m.vmt",
    "materials/vgui/maps/menu_photos_m.vtf",
    "particles/custom.pcf",
    "scripts/soundscapes_m.txt",
    "scripts/vscripts/custom/lib.nut",
    "scripts/vscripts/custom/logic.nut",
    "sound/custom/hum.wav",
    "sound/custom/level.mp3",
    "sound/custom/wind.wav",
];

/// A game folder whose VPK holds `files`.
fn game(root: &Path, files: &[(&str, &[u8])]) -> srcmap_content::GameDir {
    put(root, "pak01_dir.vpk", &srcmap_content::vpk::build_dir(1, files));
    put(
        root,
        "gameinfo.txt",
        b"GameInfo { game G FileSystem { SearchPaths { game |gameinfo_path|pak01.vpk } } }",
    );
    srcmap_content::GameDir::open(root).unwrap()
}

fn options() -> Options {
    Options {
        map: "m".into(),
        ..Options::default()
    }
}

fn names(plan: &Plan) -> Vec<&str> {
    plan.files.iter().map(|f| f.name.as_str()).collect()
}

/// The packed map's pakfile entries: name and bytes.
fn entries(bsp: &[u8]) -> Vec<(String, Vec<u8>, u16)> {
    let file = BspFile::parse(bsp).unwrap();
    let lump = srcmap_bsp::pak::pak_lump(&file).unwrap();
    let zip = Pak::of_lump(&file, &lump).unwrap();
    zip.entries
        .iter()
        .map(|e| (e.name.clone(), zip.read(e).unwrap(), e.method))
        .collect()
}

#[test]
fn every_reference_kind_is_followed_and_decoys_and_game_files_are_left() {
    let dir = temp("walk");
    content(&dir.join("content"));
    let game = game(&dir.join("game"), &[("materials/game/floor.vmt", b"x")]);
    let map = map_bytes(&[]);
    let plan = plan(&map, &[dir.join("content")], Some(&game), &options()).unwrap();
    assert_eq!(names(&plan), EXPECTED);
    assert_eq!(plan.from_game, ["materials/game/floor.vmt"]);
    assert!(plan.problems.is_empty(), "{:?}", plan.problems);
    // The cubemap's texture is vbsp's to write; the HDR envmap is optional: neither is missing.
    assert!(plan.unresolved.is_empty(), "{:?}", plan.unresolved);
    let shiny = plan
        .files
        .iter()
        .find(|f| f.name == "materials/custom/shiny.vtf")
        .unwrap();
    assert_eq!(
        shiny.chain,
        [
            "$basetexture in materials/custom/shiny.vmt",
            "include in materials/maps/m/custom/shiny_1_2_3.vmt",
            "brush material (TEXDATA)"
        ]
    );
    let packed = pack(&map, &plan, &Limits::default()).unwrap();
    let got = entries(&packed);
    // The generated entry first, as it was; then the new ones in name order, byte for byte.
    assert_eq!(got[0].0, "materials/maps/m/custom/shiny_1_2_3.vmt");
    let new: Vec<&str> = got[1..].iter().map(|e| e.0.as_str()).collect();
    assert_eq!(new, EXPECTED);
    for (name, bytes, _) in &got[1..] {
        assert_eq!(
            bytes,
            &std::fs::read(dir.join("content").join(name)).unwrap(),
            "{name}"
        );
    }
    // Packing again changes nothing: the same bytes.
    let again = plan_of(&packed, &dir, Some(&game));
    assert!(again.files.iter().all(|f| f.change == Change::Unchanged));
    assert_eq!(pack(&packed, &again, &Limits::default()).unwrap(), packed);
    let _ = std::fs::remove_dir_all(&dir);
}

fn plan_of(map: &[u8], dir: &Path, game: Option<&srcmap_content::GameDir>) -> Plan {
    plan(map, &[dir.join("content")], game, &options()).unwrap()
}

#[test]
fn the_nav_renamed_lzma_chosen_and_exclusions_kept_out() {
    let dir = temp("options");
    content(&dir.join("content"));
    let map = map_bytes(&[]);
    let opts = Options {
        rename_nav: true,
        exclude: vec!["sound/**".into()],
        compression: Compression::Lzma,
        ..options()
    };
    let plan = plan(&map, &[dir.join("content")], None, &opts).unwrap();
    let names = names(&plan);
    assert!(names.contains(&"maps/embed.nav") && !names.contains(&"maps/m.nav"));
    assert!(!names.iter().any(|n| n.starts_with("sound/")));
    assert_eq!(plan.excluded.len(), 3, "{:?}", plan.excluded);
    let packed = pack(&map, &plan, &Limits::default()).unwrap();
    let got = entries(&packed);
    let nav = got.iter().find(|e| e.0 == "maps/embed.nav").unwrap();
    assert_eq!(nav.1, b"NAV", "the map's own nav, renamed");
    assert!(got[1..].iter().all(|e| e.2 == METHOD_LZMA));
    // Without the flag, embed.nav (another map's) is not the map's.
    let plain = plan_of(&map, &dir, None);
    assert!(!names_of(&plain).contains(&"maps/embed.nav".to_string()));
    let _ = std::fs::remove_dir_all(&dir);
}

fn names_of(plan: &Plan) -> Vec<String> {
    plan.files.iter().map(|f| f.name.clone()).collect()
}

#[test]
fn escapes_loops_and_oversized_files_are_refused_naming_them() {
    let dir = temp("bad");
    content(&dir.join("content"));
    let escape = map_bytes(&[("model", "models/../../../etc/passwd.mdl")]);
    let err = plan(&escape, &[dir.join("content")], None, &options()).unwrap_err();
    assert!(matches!(err, PackError::Escape { .. }), "{err}");
    assert!(
        err.to_string().contains("passwd") && err.to_string().contains("entity 0"),
        "{err}"
    );

    put(
        &dir.join("content"),
        "materials/custom/wall.vmt",
        b"patch { include materials/custom/wall_dx8.vmt }",
    );
    put(
        &dir.join("content"),
        "materials/custom/wall_dx8.vmt",
        b"patch { include materials/custom/wall.vmt }",
    );
    let err = plan(&map_bytes(&[]), &[dir.join("content")], None, &options()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "reference loop: materials/custom/wall.vmt -> materials/custom/wall_dx8.vmt -> materials/custom/wall.vmt"
    );

    content(&dir.join("content"));
    let small = Options {
        limits: Limits {
            file: 12,
            ..Limits::default()
        },
        ..options()
    };
    let err = plan(&map_bytes(&[]), &[dir.join("content")], None, &small).unwrap_err();
    assert!(
        matches!(err, PackError::TooLarge { .. }) && err.to_string().contains("too large"),
        "{err}"
    );
    let few = Limits {
        entries: 3,
        ..Limits::default()
    };
    let plan = plan_of(&map_bytes(&[]), &dir, None);
    let err = pack(&map_bytes(&[]), &plan, &few).unwrap_err();
    assert!(
        matches!(err, PackError::TooManyEntries { count: 26, limit: 3 }),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn population_files_name_hud_icons_and_are_not_packed() {
    let dir = temp("pop");
    let root = dir.join("content");
    content(&root);
    put(
        &root,
        "scripts/population/m_adv.pop",
        b"WaveSchedule { Wave { WaveSpawn { TFBot { ClassIcon custom_bot } } } }",
    );
    put(
        &root,
        "materials/hud/leaderboard_class_custom_bot.vmt",
        b"UnlitGeneric { $basetexture hud/leaderboard_class_custom_bot }",
    );
    put(
        &root,
        "materials/hud/leaderboard_class_custom_bot.vtf",
        b"VTF icon",
    );
    put(
        &root,
        "materials/hud/leaderboard_class_other.vmt",
        b"UnlitGeneric { }",
    );
    let plan = plan_of(&map_bytes(&[]), &dir, None);
    let names = names_of(&plan);
    assert!(names.contains(&"materials/hud/leaderboard_class_custom_bot.vtf".to_string()));
    assert!(
        !names
            .iter()
            .any(|n| n.ends_with(".pop") || n.contains("class_other"))
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_pakfile_past_its_limit_is_refused_naming_the_largest_file() {
    let dir = temp("pakfile");
    content(&dir.join("content"));
    let map = map_bytes(&[]);
    let plan = plan_of(&map, &dir, None);
    let tight = Limits {
        pakfile: 600,
        ..Limits::default()
    };
    let err = pack(&map, &plan, &tight).unwrap_err().to_string();
    assert!(err.starts_with("'the pakfile (largest new file "), "{err}");
    assert!(pack(&map, &plan, &Limits::default()).is_ok());
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn a_link_out_of_the_content_folder_is_refused() {
    let dir = temp("link");
    content(&dir.join("content"));
    put(&dir, "outside/secret.vtf", b"secret");
    let inside = dir.join("content/materials/custom/wall.vtf");
    std::fs::remove_file(&inside).unwrap();
    std::os::unix::fs::symlink(dir.join("outside/secret.vtf"), &inside).unwrap();
    let err = plan(&map_bytes(&[]), &[dir.join("content")], None, &options()).unwrap_err();
    assert!(matches!(err, PackError::Escape { .. }), "{err}");
    assert!(err.to_string().contains("materials/custom/wall.vtf"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
