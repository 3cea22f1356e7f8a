//! Every kept crash input runs through its fuzz target's body on stable, and every target has
//! its libFuzzer wrapper in `fuzz/`.

use std::path::PathBuf;

fn fuzz_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

#[test]
fn kept_crash_inputs_run_clean() {
    let root = fuzz_dir().join("regressions");
    let mut ran = 0;
    for entry in std::fs::read_dir(&root).unwrap() {
        let dir = entry.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        let name = dir.file_name().unwrap().to_str().unwrap().to_string();
        let (_, body) = srcmap_fuzzing::TARGETS
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("{}: no fuzz target named {name}", dir.display()));
        for input in std::fs::read_dir(&dir).unwrap() {
            let path = input.unwrap().path();
            eprintln!("{}", path.display());
            body(&std::fs::read(&path).unwrap());
            ran += 1;
        }
    }
    assert!(ran >= 2, "only {ran} kept inputs under {}", root.display());
}

#[test]
fn every_target_has_its_libfuzzer_wrapper() {
    let manifest = std::fs::read_to_string(fuzz_dir().join("Cargo.toml")).unwrap();
    for (name, _) in srcmap_fuzzing::TARGETS {
        assert!(
            manifest.contains(&format!("name = \"{name}\"")),
            "fuzz/Cargo.toml has no [[bin]] {name}"
        );
        let wrapper = std::fs::read_to_string(fuzz_dir().join(format!("fuzz_targets/{name}.rs")))
            .unwrap_or_else(|e| panic!("fuzz_targets/{name}.rs: {e}"));
        assert!(
            wrapper.contains(&format!("srcmap_fuzzing::{name}(")),
            "fuzz_targets/{name}.rs"
        );
    }
}

/// The hostile maps the compile target builds: 1e30 and non-finite corners, collinear side
/// points, a pile of overlapping copies. Each compile ends (a BSP or an error).
#[test]
fn hostile_maps_compile_or_fail_cleanly() {
    let inputs: [&[u8]; 6] = [
        b"",
        &[0xff; 64],
        // One box at scale 1e30 (index 2).
        &[0, 0, 0, 2, 1, 0, 10, 0, 1, 0, 10, 0, 1, 0, 10, 0, 0],
        // Three boxes, one with a NaN scale, one with a collinear side (flag 0x80).
        &[
            2, 3, 0, 5, 1, 0, 9, 0, 1, 0, 9, 0, 1, 0, 9, 0, 0x81, 0, 200, 0, 100, 0, 200, 0, 100, 0, 200, 0,
            100, 0x80,
        ],
        // Two boxes, 65 copies of the pair.
        &[1, 128, 0, 0, 0, 0xff, 0, 1, 0, 0xff, 0, 1, 0xf0, 0xff, 0, 1, 0],
        b"world\n{\n\"classname\" \"worldspawn\"\n}\n",
    ];
    for input in inputs {
        let text = srcmap_fuzzing::hostile_vmf(input);
        assert!(srcmap_vmf::Vmf::parse_bytes(text.as_bytes()).is_ok(), "{text}");
        srcmap_fuzzing::vmf_compile(input);
    }
}

/// Regression (found by `.ci/fuzz`): a BSP with a NaN in a record made the view's owned copy
/// compare unequal to the owned parse (NaN != NaN), a false failure of the target.
#[test]
fn bsp_view_agrees_on_a_bsp_with_nan_records() {
    let mut bsp = srcmap_bsp::Bsp::new(20);
    bsp.planes = vec![srcmap_bsp::Plane {
        normal: [f32::NAN, 0.0, 1.0],
        dist: f32::NAN,
        kind: 2,
    }];
    bsp.vertexes = vec![[f32::NAN, 1.0, 2.0]];
    // `Bsp::to_bytes` refuses NaN; the document writer lays the records out as they are, as a
    // hostile file would have them.
    let file = bsp.to_document().unwrap().to_bytes().unwrap();
    srcmap_fuzzing::bsp_view(&file);
    srcmap_fuzzing::bsp(&file);
}
