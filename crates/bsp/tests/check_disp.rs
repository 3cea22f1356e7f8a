//! The displacement record checks: every corpus map passes them, and broken records are
//! reported by dispinfo and byte offset without panicking.

mod common;

use srcmap_bsp::check::{check, displacements};
use srcmap_bsp::{Bsp, DispInfo, DispSubNeighbor, DispVert, Face};

#[test]
fn every_corpus_map_passes_the_displacement_checks() {
    let Some(root) = common::corpus_root() else {
        eprintln!("SRCMAP_CORPUS is not set: skipping corpus test");
        return;
    };
    let mut failures = Vec::new();
    let mut maps = 0;
    println!(
        "{:<62} {:>6} {:>10} {:>12} {:>6}",
        "map", "disps", "edge links", "corner links", "errors"
    );
    let mut paths: Vec<_> = std::fs::read_dir(root.join("bsp"))
        .unwrap()
        .flat_map(|repo| std::fs::read_dir(repo.unwrap().path()).unwrap())
        .map(|f| f.unwrap().path())
        .collect();
    paths.sort();
    for path in paths {
        let data = std::fs::read(&path).unwrap();
        if !(data.starts_with(b"VBSP") || data.starts_with(b"PSBV")) {
            continue;
        }
        let bsp = Bsp::parse(&data).unwrap();
        if bsp.disp_info.is_empty() {
            continue;
        }
        let none = if bsp.version == 25 { u32::MAX } else { 0xFFFF };
        let edge_links: usize = bsp
            .disp_info
            .iter()
            .map(|d| {
                d.edge_neighbors
                    .iter()
                    .flatten()
                    .filter(|s| s.neighbor != none)
                    .count()
            })
            .sum();
        let corner_links: usize = bsp
            .disp_info
            .iter()
            .map(|d| d.corner_neighbors.iter().map(|c| c.count as usize).sum::<usize>())
            .sum();
        let errors = displacements(&bsp);
        println!(
            "{:<62} {:>6} {:>10} {:>12} {:>6}",
            path.strip_prefix(&root).unwrap().display(),
            bsp.disp_info.len(),
            edge_links,
            corner_links,
            errors.len()
        );
        for e in errors.iter().take(3) {
            failures.push(format!("{}: {e}", path.display()));
        }
        maps += 1;
    }
    for f in &failures {
        eprintln!("{f}");
    }
    assert!(maps > 0, "no corpus map has displacements");
    assert!(failures.is_empty());
}

const NONE: u32 = 0xFFFF;

/// Two power-2 displacements side by side, each on its own four-edged face, neighbours along
/// one edge both ways.
fn two_displacements() -> Bsp {
    let mut bsp = Bsp::new(20);
    let none = DispSubNeighbor {
        neighbor: NONE,
        ..Default::default()
    };
    for i in 0..2 {
        bsp.faces.push(Face {
            num_edges: 4,
            dispinfo: i,
            ..Default::default()
        });
        let mut d = DispInfo {
            power: 2,
            disp_vert_start: i * 25,
            disp_tri_start: i * 32,
            map_face: i as u32,
            lightmap_sample_position_start: i * 16,
            ..Default::default()
        };
        for edge in &mut d.edge_neighbors {
            *edge = [none; 2];
        }
        bsp.disp_info.push(d);
    }
    bsp.disp_info[0].edge_neighbors[2][0].neighbor = 1;
    bsp.disp_info[1].edge_neighbors[0][0].neighbor = 0;
    bsp.disp_verts = vec![DispVert::default(); 50];
    bsp.disp_tris = vec![0; 64];
    bsp.disp_lightmap_sample_positions = vec![0; 32];
    bsp
}

fn messages(bsp: &Bsp) -> Vec<String> {
    displacements(bsp).iter().map(|v| v.to_string()).collect()
}

#[test]
fn consistent_displacements_pass() {
    let bsp = two_displacements();
    assert_eq!(messages(&bsp), Vec::<String>::new());
    assert!(check(&bsp).iter().all(|v| v.lump != srcmap_bsp::lump::DISPINFO));
}

#[test]
fn power_seven_is_reported() {
    let mut bsp = two_displacements();
    bsp.disp_info[1].power = 7;
    let m = messages(&bsp);
    assert_eq!(m.len(), 1, "{m:?}");
    assert!(
        m[0].contains("dispinfo 1 (byte 176)") && m[0].contains("power 7"),
        "{m:?}"
    );
}

#[test]
fn vertex_start_past_the_end_is_reported() {
    let mut bsp = two_displacements();
    bsp.disp_info[0].disp_vert_start = 40;
    bsp.disp_info[1].disp_tri_start = i32::MAX;
    let m = messages(&bsp);
    assert_eq!(m.len(), 2, "{m:?}");
    assert!(
        m[0].contains("dispinfo 0 (byte 0)") && m[0].contains("DISP_VERTS (50 vertices)"),
        "{m:?}"
    );
    assert!(m[1].contains("dispinfo 1") && m[1].contains("DISP_TRIS"), "{m:?}");
}

#[test]
fn asymmetric_neighbours_are_reported() {
    let mut bsp = two_displacements();
    bsp.disp_info[1].edge_neighbors[0][0].neighbor = NONE;
    bsp.disp_info[0].corner_neighbors[1].neighbors[0] = 1;
    bsp.disp_info[0].corner_neighbors[1].count = 1;
    let m = messages(&bsp);
    assert_eq!(m.len(), 2, "{m:?}");
    assert!(
        m[0].contains("dispinfo 0") && m[0].contains("no edge of 1 lists 0"),
        "{m:?}"
    );
    assert!(m[1].contains("no corner of 1 lists 0"), "{m:?}");
}

#[test]
fn broken_links_and_ranges_are_reported_without_panicking() {
    let mut bsp = two_displacements();
    bsp.disp_info[0].edge_neighbors[1][1].neighbor = 9;
    bsp.disp_info[0].corner_neighbors[0].count = 200;
    bsp.disp_info[1].map_face = 5;
    bsp.disp_info[1].lightmap_sample_position_start = 32;
    bsp.faces[0].num_edges = 3;
    bsp.faces[0].dispinfo = 1;
    let m = messages(&bsp).join("\n");
    for want in [
        "edge 1 neighbour 1 is dispinfo 9, out of range",
        "corner 0 claims 200 neighbours",
        "map face 0 points at dispinfo 1",
        "map face 0 has 3 edges",
        "map face 5 is out of range",
        "start at byte 32, past DISP_LIGHTMAP_SAMPLE_POSITIONS (32 bytes)",
    ] {
        assert!(m.contains(want), "missing {want:?} in\n{m}");
    }
    // The whole check runs too.
    assert!(!check(&bsp).is_empty());
}
