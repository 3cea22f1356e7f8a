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

#[test]
fn info_counts_overlays_occluders_and_water() {
    let Some(map) = testmap() else { return };
    let bsp = srcmap_bsp::Bsp::parse(&std::fs::read(&map).unwrap()).unwrap();
    let out = srcmap().args(["info", "--json"]).arg(&map).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // The counts are the lumps' own.
    let listed: usize = bsp.overlays.iter().map(|o| o.face_count()).sum();
    let ov = &v["overlays"];
    assert_eq!(ov["overlays"], bsp.overlays.len(), "{ov}");
    assert_eq!(ov["faces"], listed, "{ov}");
    assert_eq!(ov["water_overlays"], bsp.water_overlays.len(), "{ov}");
    let oc = &v["occluders"];
    let occlusion = bsp.occlusion.clone().unwrap_or_default();
    assert_eq!(oc["occluders"], occlusion.occluders.len(), "{oc}");
    assert_eq!(oc["polygons"], occlusion.polys.len(), "{oc}");
    assert_eq!(oc["vertex_indices"], occlusion.vertex_indices.len(), "{oc}");
    let w = &v["water"];
    assert_eq!(w["volumes"], bsp.leaf_water_data.len(), "{w}");
    let wet = bsp.leafs.iter().filter(|l| l.leaf_water_data != -1).count();
    assert_eq!(w["leaves"], wet, "{w}");
    // The map has water (its water materials take cubemap patches).
    assert!(wet > 0 && !bsp.leaf_water_data.is_empty(), "{w}");
    let text = srcmap().arg("info").arg(&map).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    for line in [
        format!("overlays: {} listing {listed} faces", bsp.overlays.len()),
        format!(
            "occluders: {}, {} polygons",
            occlusion.occluders.len(),
            occlusion.polys.len()
        ),
        format!(
            "water volumes: {} leaf water data entries, {wet} leaves in water",
            bsp.leaf_water_data.len()
        ),
    ] {
        assert!(text.contains(&line), "{line} in {text}");
    }
}
