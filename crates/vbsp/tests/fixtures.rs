//! The hand-made VMF fixtures in `testdata/maps`, through the VMF adapter.

use std::path::PathBuf;

use srcmap_vbsp::{NoProgress, Options, VbspError, contents};

fn fixture(name: &str) -> srcmap_vbsp::MapInput {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/maps")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let vmf = srcmap_vmf::Vmf::parse(text).unwrap();
    srcmap_vbsp::input_from_vmf(&vmf)
}

/// Options that check every pass's invariants.
fn verified() -> Options<'static> {
    Options {
        verify: true,
        ..Default::default()
    }
}

fn contents_at(out: &srcmap_vbsp::Output, p: [f64; 3]) -> u32 {
    out.bsp.leaf_at(0, p).unwrap().contents as u32
}

#[test]
fn box_room_fixture() {
    let out = srcmap_vbsp::compile(&fixture("box_room.vmf"), &verified(), &NoProgress).unwrap();
    assert_eq!(contents_at(&out, [0.0, 0.0, 128.0]), 0);
    assert_eq!(contents_at(&out, [0.0, 0.0, 300.0]), contents::CONTENTS_SOLID);
    assert!(out.leak.is_none());
    // PRT1: header counts agree with the portal lines, clusters in range.
    let mut lines = out.prt.lines();
    assert_eq!(lines.next(), Some("PRT1"));
    let clusters: usize = lines.next().unwrap().parse().unwrap();
    let portals: usize = lines.next().unwrap().parse().unwrap();
    let rest: Vec<&str> = lines.collect();
    assert_eq!(rest.len(), portals);
    assert_eq!(clusters as u64, out.report.count("clusters"));
    for l in rest {
        let nums: Vec<i64> = l.split_whitespace().take(3).map(|t| t.parse().unwrap()).collect();
        assert!(
            nums[0] >= 3 && (nums[1] as usize) < clusters && (nums[2] as usize) < clusters,
            "{l}"
        );
        assert_eq!(l.matches('(').count() as i64, nums[0]);
    }
    // Every face's edges close into a loop through shared vertices.
    let b = &out.bsp;
    for f in &b.faces {
        let verts: Vec<u32> = (0..f.num_edges)
            .map(|i| {
                let se = b.surfedges[(f.first_edge + i) as usize];
                let e = b.edges[se.unsigned_abs() as usize].0;
                if se >= 0 { e[0] } else { e[1] }
            })
            .collect();
        for i in 0..verts.len() {
            let se = b.surfedges[(f.first_edge + i as i32) as usize];
            let e = b.edges[se.unsigned_abs() as usize].0;
            let end = if se >= 0 { e[1] } else { e[0] };
            assert_eq!(end, verts[(i + 1) % verts.len()], "face edges form a loop");
        }
    }
}

#[test]
fn leak_fixture_names_the_entity_and_the_path() {
    match srcmap_vbsp::compile(&fixture("leak.vmf"), &verified(), &NoProgress) {
        Err(VbspError::Leak {
            entity_id,
            classname,
            pointfile,
            ..
        }) => {
            assert_eq!((entity_id, classname.as_str()), (900, "info_player_start"));
            let last = pointfile.lines().last().unwrap();
            assert_eq!(last, "0.000000 0.000000 16.000000");
            // Consecutive points step through the gap in the +X wall (x = 256..272).
            assert!(
                pointfile
                    .lines()
                    .any(|l| l.starts_with("272.") || l.starts_with("256.")),
                "{pointfile}"
            );
        }
        other => panic!("expected a leak, got {:?}", other.map(|o| o.report)),
    }
}

#[test]
fn features_fixture() {
    let out = srcmap_vbsp::compile(&fixture("features.vmf"), &verified(), &NoProgress).unwrap();
    // Water fills the bottom 48 units.
    assert_ne!(
        contents_at(&out, [-200.0, -200.0, 24.0]) & contents::CONTENTS_WATER,
        0
    );
    assert_eq!(contents_at(&out, [-200.0, -200.0, 100.0]), 0);
    // The hint divides the room into clusters on either side of x = 0.
    let c = |p| out.bsp.leaf_at(0, p).unwrap().cluster;
    assert_ne!(c([-100.0, 100.0, 150.0]), c([100.0, 100.0, 150.0]));
    // The door is model 1 with its I/O; func_detail is gone from the entity lump.
    assert_eq!(out.bsp.models.len(), 2);
    let has = |key, value| out.bsp.entities.iter().any(|e| e.get(key) == Some(value));
    assert!(has("model", "*1"));
    assert!(has("OnFullyOpen", "door1,Close,,5,-1"));
    assert!(!has("classname", "func_detail"));
    // Brushes: 6 walls, water, hint, pillar (world), door.
    assert_eq!(out.bsp.brushes.len(), 10);
    assert!(srcmap_bsp::check::check(&out.bsp).is_empty());
}
