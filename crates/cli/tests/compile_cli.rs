//! `srcmap compile` end to end on the project's own maps: the example box room compiles through
//! vbsp, vvis and vrad into a BSP that `srcmap check` accepts; a leaking map exits 1 with a
//! pointfile and no BSP.

use std::path::{Path, PathBuf};
use std::process::Command;

fn srcmap() -> Command {
    Command::new(env!("CARGO_BIN_EXE_srcmap"))
}

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(rel)
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("srcmap-compile-test-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn example_map_compiles_with_vis_and_light() {
    let dir = temp_dir("example");
    let out = dir.join("box_room.bsp");
    let run = srcmap()
        .arg("compile")
        .arg(repo("examples/box_room.vmf"))
        .arg("-o")
        .arg(&out)
        .arg("-q")
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let check = srcmap().arg("check").arg(&out).output().unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    let bsp = srcmap_bsp::Bsp::parse(&std::fs::read(&out).unwrap()).unwrap();
    // Vis ran: the room's clusters see each other, and the PVS was computed, not left all-visible
    // by construction only (every row is present).
    let vis = bsp.visibility.as_ref().expect("a visibility lump");
    assert!(vis.num_clusters >= 1);
    assert_eq!(vis.pvs.len(), vis.num_clusters as usize);
    // Light ran: the floor under the light is lit.
    assert!(!bsp.lighting.is_empty(), "no lighting");
    assert!(bsp.faces.iter().any(|f| f.light_offset >= 0), "no lit face");
}

#[test]
fn leaking_map_fails_with_a_pointfile_and_no_bsp() {
    let dir = temp_dir("leak");
    let map = dir.join("leak.vmf");
    std::fs::copy(repo("testdata/maps/leak.vmf"), &map).unwrap();
    let run = srcmap().arg("compile").arg(&map).arg("-q").output().unwrap();
    assert_eq!(run.status.code(), Some(1));
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("leak"), "{err}");
    assert!(dir.join("leak.lin").exists(), "pointfile written");
    assert!(!dir.join("leak.bsp").exists(), "no BSP on a leak");
}
