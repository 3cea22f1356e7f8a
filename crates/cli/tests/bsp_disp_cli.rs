//! `srcmap info` counts a map's displacements and cubemaps, and `srcmap check` passes its
//! displacement records (corpus map; skipped without `SRCMAP_CORPUS`).

use std::path::PathBuf;
use std::process::Command;

fn srcmap() -> Command {
    Command::new(env!("CARGO_BIN_EXE_srcmap"))
}

/// A small map with four displacements.
fn testmap() -> Option<PathBuf> {
    let root = srcmap_corpus::root("the displacement CLI test")?;
    Some(root.join("bsp/pySourceSDK+ValveBSP/testmap.bsp"))
}

#[test]
fn info_counts_displacements_and_check_passes() {
    let Some(map) = testmap() else { return };
    let out = srcmap().args(["info", "--json"]).arg(&map).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = &v["displacements"];
    assert_eq!(d["dispinfos"], 4, "{d}");
    let by_power = d["by_power"].as_object().unwrap();
    let total: u64 = by_power.values().map(|n| n.as_u64().unwrap()).sum();
    assert_eq!(total, 4);
    // Vertices and triangles follow from the powers.
    let (mut verts, mut tris) = (0, 0);
    for (p, n) in by_power {
        let p: u32 = p.parse().unwrap();
        let n = n.as_u64().unwrap();
        verts += n * ((1u64 << p) + 1).pow(2);
        tris += n * 2 * (1u64 << (2 * p));
    }
    assert_eq!(d["verts"], verts);
    assert_eq!(d["tris"], tris);

    let text = srcmap().arg("info").arg(&map).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("displacements: 4 (power"), "{text}");

    let check = srcmap().arg("check").arg(&map).output().unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    assert!(String::from_utf8_lossy(&check.stdout).contains("displacement records consistent"));
}

#[test]
fn info_counts_cubemaps_and_patched_materials() {
    let Some(map) = testmap() else { return };
    let out = srcmap().args(["info", "--json"]).arg(&map).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let c = &v["cubemaps"];
    // Four env_cubemaps; Valve patched two water materials for the one nearest them.
    assert_eq!(c["samples"], 4, "{c}");
    assert_eq!(c["patched_materials"], 2, "{c}");
    assert_eq!(c["patched_in_pakfile"], 2, "{c}");
    let text = srcmap().arg("info").arg(&map).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains("cubemaps: 4, 2 cubemap-patched materials"),
        "{text}"
    );
}
