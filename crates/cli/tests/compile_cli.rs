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

#[test]
fn terrain_example_compiles_its_displacement_and_lights_it() {
    let dir = temp_dir("terrain");
    let out = dir.join("terrain.bsp");
    let run = srcmap()
        .arg("compile")
        .arg(repo("examples/terrain.vmf"))
        .arg("-o")
        .arg(&out)
        .arg("-q")
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let bsp = srcmap_bsp::Bsp::parse(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(bsp.disp_info.len(), 1);
    let info = &bsp.disp_info[0];
    assert_eq!(info.power, 3);
    let face = &bsp.faces[info.map_face as usize];
    assert_eq!(face.dispinfo, 0);
    assert!(face.light_offset >= 0, "the displacement is lit");
    // The hill's top (grid centre) stands 48 units over the 16-unit floor patch.
    let grid = srcmap_disp::grids_of(&bsp)[0].clone().expect("grid");
    assert!(
        (grid.verts[4 * 9 + 4].z - 64.0).abs() < 1e-3,
        "{}",
        grid.verts[40]
    );
    let info = srcmap().arg("info").arg(&out).output().unwrap();
    let text = String::from_utf8_lossy(&info.stdout);
    assert!(text.contains("displacements: 1 (power 3: 1)"), "{text}");
}

/// `vvis --siblings` runs the quicker flow: fewer walk states than the default on a corpus
/// map, and a PVS that holds every pair the default's does (it may only gain pairs).
#[test]
fn vvis_siblings_walks_less_and_loses_no_pair() {
    let Some(corpus) = srcmap_corpus::root("vvis --siblings on a corpus map") else {
        return;
    };
    let map = corpus.join("bsp/tbjmaps+dishonourable-discharge-ez2/subway01.bsp");
    let dir = temp_dir("siblings");
    let run = |name: &str, extra: &[&str]| {
        let out = dir.join(name);
        let run = srcmap()
            .args(["vvis", "--no-prt", "--threads", "2", "--json", "-o"])
            .arg(&out)
            .arg(&map)
            .args(extra)
            .output()
            .unwrap();
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        let report: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
        let chains = report["counts"]["chains"].as_u64().unwrap();
        let bsp = srcmap_bsp::Bsp::parse(&std::fs::read(&out).unwrap()).unwrap();
        (chains, bsp.visibility.expect("a visibility lump"))
    };
    let (default_states, default_vis) = run("default.bsp", &[]);
    let (sibling_states, sibling_vis) = run("siblings.bsp", &["--siblings"]);
    assert!(
        sibling_states < default_states,
        "{sibling_states} states with --siblings, {default_states} without"
    );
    let n = default_vis.num_clusters as usize;
    assert_eq!(sibling_vis.num_clusters as usize, n);
    for a in 0..n {
        for b in 0..n {
            assert!(
                !default_vis.can_see(a, b) || sibling_vis.can_see(a, b),
                "cluster {a} sees {b} only without --siblings"
            );
        }
    }
}
