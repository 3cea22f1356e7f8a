//! Golden tests: each pass's dump of the small maps in `testdata/maps`, compared with the
//! files under `tests/golden/MAP/`. `SRCMAP_BLESS=1` rewrites them.

use std::path::{Path, PathBuf};

use srcmap_corpus::golden;
use srcmap_vbsp::{NoProgress, Options, PassDump};

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/maps")
        .join(name)
}

/// The map's dumps, compiled with verification on and a leak allowed (so that a leaking
/// map's passes are pinned too).
fn dumps(map: &str) -> Vec<PassDump> {
    let text = std::fs::read_to_string(testdata(map)).unwrap();
    let vmf = srcmap_vmf::Vmf::parse(text).unwrap();
    let input = srcmap_vbsp::input_from_vmf(&vmf);
    let opts = Options {
        allow_leak: true,
        verify: true,
        dump: true,
        ..Default::default()
    };
    let out = srcmap_vbsp::compile(&input, &opts, &NoProgress).expect("compiles");
    out.dumps
}

/// `world tree (pass 1)` → `02-world-tree-pass-1.txt`.
fn file_name(index: usize, pass: &str) -> String {
    let slug: String = pass
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect::<String>()
        .split('-')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    format!("{index:02}-{slug}.txt")
}

fn check(map: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(map.trim_end_matches(".vmf"));
    let dumps = dumps(map);
    let names: Vec<String> = dumps
        .iter()
        .enumerate()
        .map(|(i, d)| file_name(i, d.pass))
        .collect();
    if golden::blessing() {
        // A pass that no longer dumps must not leave its old file behind.
        let _ = std::fs::remove_dir_all(&dir);
    } else {
        let mut stored: Vec<String> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e} (SRCMAP_BLESS=1 writes it)", dir.display()))
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        stored.sort();
        assert_eq!(stored, names, "{map}: the passes dumped");
    }
    for (d, name) in dumps.iter().zip(&names) {
        golden::check(&dir.join(name), &d.text);
    }
}

#[test]
fn box_room_passes() {
    check("box_room.vmf");
}

#[test]
fn features_passes() {
    check("features.vmf");
}

#[test]
fn leak_passes() {
    check("leak.vmf");
}

#[test]
fn every_pass_is_dumped_in_order() {
    let passes: Vec<&str> = dumps("box_room.vmf").iter().map(|d| d.pass).collect();
    assert_eq!(
        passes,
        [
            "brushes",
            "light styles",
            "world tree (pass 1)",
            "world tree (pass 2)",
            "areas",
            "faces",
            "detail faces",
            "clusters",
            "brush models",
            "records",
            "water",
            "displacements",
            "physics",
            "overlays",
            "cubemaps",
            "static props",
            "detail props",
            "pakfile",
            "entities",
            "write"
        ]
    );
}
