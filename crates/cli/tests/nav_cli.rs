//! `srcmap nav generate`: with `--analyze` the written mesh carries hiding spots and encounter
//! paths and says so in its report; without it, none (corpus map; skipped without
//! `SRCMAP_CORPUS`).

mod common;

use common::{fresh_dir, srcmap};

fn counts(args: &[&dyn AsRef<std::ffi::OsStr>]) -> serde_json::Value {
    let out = srcmap(args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["counts"].clone()
}

#[test]
fn analyze_adds_hiding_spots_and_encounter_paths() {
    let Some(root) = srcmap_corpus::root("the nav generate CLI test") else {
        return;
    };
    let map = root.join("bsp/lanofdoom+counterstrikesource-maps/aim_ag_texture_city.bsp");
    let dir = fresh_dir("nav", "analyze");
    let (plain, analysed) = (dir.join("plain.nav"), dir.join("analysed.nav"));
    let c = counts(&[&"nav", &"generate", &"--json", &map, &"-o", &plain]);
    assert_eq!(
        (c["hiding_spots"].as_f64(), c["encounter_paths"].as_f64()),
        (Some(0.0), Some(0.0)),
        "{c}"
    );
    let c = counts(&[
        &"nav",
        &"generate",
        &"--json",
        &"--analyze",
        &map,
        &"-o",
        &analysed,
    ]);
    assert!(c["hiding_spots"].as_f64() > Some(0.0), "{c}");
    assert!(c["encounter_paths"].as_f64() > Some(0.0), "{c}");
    // The same areas either way: the analysis only adds to them.
    let plain_areas = counts(&[
        &"nav",
        &"generate",
        &"--json",
        &map,
        &"-o",
        &dir.join("again.nav"),
    ])["areas"]
        .clone();
    assert_eq!(c["areas"], plain_areas);
    let info = srcmap(&[&"nav", &"info", &analysed]);
    assert!(info.status.success(), "{}", String::from_utf8_lossy(&info.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A map nothing can spawn in: the example room with its player start made an `info_target`.
/// Generation is refused with exit 1, a message naming the BSP, and no `.nav` left behind.
#[test]
fn a_map_without_a_spawn_point_is_refused_and_nothing_is_written() {
    let dir = fresh_dir("nav", "no_spawn");
    let source = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/box_room.vmf"
    ))
    .unwrap();
    let vmf = dir.join("no_spawn.vmf");
    std::fs::write(&vmf, source.replace("info_player_start", "info_target")).unwrap();
    let bsp = dir.join("no_spawn.bsp");
    let out = srcmap(&[&"vbsp", &"-q", &vmf, &"-o", &bsp]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let nav = dir.join("no_spawn.nav");
    let out = srcmap(&[&"nav", &"generate", &bsp, &"-o", &nav]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(&*bsp.to_string_lossy()), "{stderr}");
    assert!(stderr.contains("spawn"), "{stderr}");
    assert!(!nav.exists());
    let _ = std::fs::remove_dir_all(&dir);
}
