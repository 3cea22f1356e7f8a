//! `srcmap decompile` and `convert X.bsp X.vmf`: the same VMF, which compiles to a BSP with the
//! source's brushes; a file that is no Source BSP is an error naming it, with nothing written.

use std::path::{Path, PathBuf};
use std::process::Output;

mod common;
use common::srcmap;

fn ok(out: Output) -> Output {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    out
}

fn temp_dir(name: &str) -> PathBuf {
    common::fresh_dir("decompile-cli", name)
}

#[test]
fn decompile_and_convert_write_the_same_map_which_recompiles() {
    let dir = temp_dir("room");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/box_room.vmf");
    let bsp = dir.join("room.bsp");
    ok(srcmap(&[&"vbsp", &source, &"-o", &bsp, &"-q"]));
    let (a, b) = (dir.join("a.vmf"), dir.join("b.vmf"));
    let report = ok(srcmap(&[&"decompile", &bsp, &"-o", &a, &"--json"]));
    let json: serde_json::Value = serde_json::from_slice(&report.stdout).unwrap();
    assert!(json["solids"].as_u64().unwrap() > 0, "{json}");
    ok(srcmap(&[&"convert", &bsp, &b]));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let again = dir.join("again.bsp");
    ok(srcmap(&[&"vbsp", &a, &"-o", &again, &"-q"]));
    let brushes = |p: &Path| {
        srcmap_bsp::Bsp::parse(&std::fs::read(p).unwrap())
            .unwrap()
            .brushes
            .len()
    };
    assert_eq!(brushes(&again), brushes(&bsp));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_file_that_is_no_source_bsp_is_refused() {
    let dir = temp_dir("bad");
    let bad = dir.join("bad.bsp");
    std::fs::write(&bad, b"IBSP\x26\0\0\0 not a source map").unwrap();
    let out = srcmap(&[&"decompile", &bad, &"-o", &dir.join("bad.vmf")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.bsp"));
    assert!(!dir.join("bad.vmf").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
