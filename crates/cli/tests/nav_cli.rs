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
