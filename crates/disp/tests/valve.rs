//! Neighbours, allowed vertices and snapping against what Valve's VBSP wrote into the
//! corpus maps (`SRCMAP_CORPUS`); skipped with a message when the corpus is absent.

use std::path::Path;

use glam::Vec3;
use srcmap_bsp::Bsp;
use srcmap_bsp::records::DispSubNeighbor;
use srcmap_disp::allowed::allowed_verts;
use srcmap_disp::edges::is_set;
use srcmap_disp::neighbors::{DispNeighbors, find_neighbors};
use srcmap_disp::tesselate::snapped_verts;
use srcmap_disp::{DispGrid, grids_of};

/// Every corpus map with displacements whose grids all rebuild, with its name.
fn disp_maps(what: &str) -> Option<Vec<(String, Bsp, Vec<DispGrid>)>> {
    let root = srcmap_corpus::root(what)?;
    let mut out = Vec::new();
    for path in srcmap_corpus::files(&root, "bsp", |p| srcmap_corpus::has_extension(p, "bsp")) {
        let data = std::fs::read(&path).expect("read corpus map");
        if !(data.starts_with(b"VBSP") || data.starts_with(b"PSBV")) {
            continue;
        }
        let Ok(bsp) = Bsp::parse(&data) else {
            eprintln!("{}: does not parse, skipped", name(&root, &path));
            continue;
        };
        if bsp.disp_info.is_empty() {
            continue;
        }
        let grids: Option<Vec<DispGrid>> = grids_of(&bsp).into_iter().collect();
        let Some(grids) = grids else {
            eprintln!(
                "{}: some displacement does not rebuild, skipped",
                name(&root, &path)
            );
            continue;
        };
        out.push((name(&root, &path), bsp, grids));
    }
    assert!(!out.is_empty(), "no corpus map has displacements");
    Some(out)
}

fn name(root: &Path, path: &Path) -> String {
    path.strip_prefix(root.join("bsp"))
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Slots agree when both are empty or both name the same neighbour the same way (an empty
/// slot's other fields are whatever memory VBSP left there).
fn same_slot(a: &DispSubNeighbor, b: &DispSubNeighbor) -> bool {
    match (is_set(a), is_set(b)) {
        (false, false) => true,
        (true, true) => {
            (a.neighbor, a.orientation, a.span, a.neighbor_span)
                == (b.neighbor, b.orientation, b.span, b.neighbor_span)
        }
        _ => false,
    }
}

fn same_edges(a: &DispNeighbors, b: &DispNeighbors) -> bool {
    a.edges
        .iter()
        .flatten()
        .zip(b.edges.iter().flatten())
        .all(|(x, y)| same_slot(x, y))
}

fn same_corners(a: &DispNeighbors, b: &DispNeighbors) -> bool {
    (0..4).all(|c| a.corner_list(c) == b.corner_list(c))
}

fn is_axial(v: Vec3) -> bool {
    v.to_array().iter().filter(|c| **c == 0.0).count() == 2
}

/// Whether a base-quad corner is the meeting of three axial planes, so that VBSP's own
/// float winding point there is exact and equals the BSP's (welded) vertex. Elsewhere the
/// winding VBSP matched corners on can be off by more than the 0.001-unit corner tolerance,
/// and the file keeps only the welded point.
fn corner_is_exact(grid: &DispGrid, corner: usize) -> bool {
    let c = &grid.corners;
    let normal = (c[1] - c[0]).cross(c[3] - c[0]);
    is_axial(normal) && is_axial(c[(corner + 1) & 3] - c[corner]) && is_axial(c[(corner + 3) & 3] - c[corner])
}

/// Corner lists that differ from Valve's only by links Valve could not make for want of
/// precision: Valve's list is ours without some links, each at a corner that is not exact
/// on either side. Returns the number of such links, or `None` when the lists disagree
/// otherwise.
fn corners_up_to_precision(
    grids: &[DispGrid],
    i: usize,
    ours: &DispNeighbors,
    theirs: &DispNeighbors,
) -> Option<usize> {
    let mut dropped = 0;
    for c in 0..4 {
        let mine = ours.corner_list(c);
        let kept: Vec<u32> = mine
            .iter()
            .copied()
            .filter(|b| theirs.corner_list(c).contains(b))
            .collect();
        if kept != theirs.corner_list(c) {
            return None;
        }
        for &b in mine.iter().filter(|b| !kept.contains(b)) {
            let g = &grids[i];
            let o = &grids[b as usize];
            let p = g.vert(g.corner_index(c));
            let oc = (0..4).find(|&k| (o.vert(o.corner_index(k)) - p).abs().max_element() <= 0.001)?;
            if corner_is_exact(g, c) && corner_is_exact(o, oc) {
                return None;
            }
            dropped += 1;
        }
    }
    Some(dropped)
}

#[test]
fn neighbors_and_allowed_verts_match_valve() {
    let Some(maps) = disp_maps("displacement neighbour tests") else {
        return;
    };
    println!(
        "{:<58} {:>6} {:>11} {:>11} {:>7} {:>11} {:>11} {:>8}",
        "map", "disps", "edges", "corners", "inexact", "allowed", "allowed*", "ms"
    );
    let mut failures = Vec::new();
    for (map, bsp, grids) in &maps {
        let n = grids.len();
        let start = std::time::Instant::now();
        let ours = find_neighbors(grids);
        let took = start.elapsed().as_secs_f64() * 1e3;
        let theirs: Vec<DispNeighbors> = bsp.disp_info.iter().map(DispNeighbors::of).collect();
        let powers: Vec<u32> = grids.iter().map(|g| g.power).collect();
        let allowed = allowed_verts(&powers, &ours);
        // The same from Valve's own neighbours, to tell the two stages' faults apart.
        let allowed_from_theirs = allowed_verts(&powers, &theirs);

        let mut counts = [0usize; 4];
        let mut inexact = 0;
        for i in 0..n {
            let info = &bsp.disp_info[i];
            let corners = same_corners(&ours[i], &theirs[i]);
            let explained = corners_up_to_precision(grids, i, &ours[i], &theirs[i]);
            inexact += explained.unwrap_or(0);
            let checks = [
                same_edges(&ours[i], &theirs[i]),
                corners,
                allowed[i] == info.allowed_verts,
                allowed_from_theirs[i] == info.allowed_verts,
            ];
            for (k, ok) in checks.iter().enumerate() {
                counts[k] += usize::from(*ok);
            }
            let failed = !checks[0] || explained.is_none() || !checks[2] || !checks[3];
            if failed && failures.len() < 40 {
                failures.push(format!(
                    "{map} disp {i} (power {}): edges {} corners {} allowed {} allowed from Valve's neighbours {}\n  ours   {:?}\n  theirs {:?}\n  our allowed   {:08x?}\n  their allowed {:08x?}",
                    grids[i].power, checks[0], checks[1], checks[2], checks[3], ours[i], theirs[i], allowed[i], info.allowed_verts
                ));
            }
        }
        let frac = |k: usize| format!("{}/{}", counts[k], n);
        println!(
            "{:<58} {:>6} {:>11} {:>11} {:>7} {:>11} {:>11} {:>8.2}",
            map,
            n,
            frac(0),
            frac(1),
            inexact,
            frac(2),
            frac(3),
            took
        );
    }
    println!(
        "(corners: dispinfos whose corner lists equal Valve's; inexact: corner links we make that Valve's \
         file lacks, all at corners off the axial grid, where VBSP matched its unwelded winding points; \
         allowed*: computed from the neighbours stored in the map; ms: find_neighbors)"
    );
    assert!(failures.is_empty(), "mismatches:\n{}", failures.join("\n"));
}

#[test]
fn resnapping_valves_verts_moves_nothing() {
    let Some(maps) = disp_maps("displacement snap tests") else {
        return;
    };
    let mut worst = 0.0f32;
    let mut worst_at = String::new();
    let mut snapped = 0usize;
    for (map, bsp, grids) in &maps {
        for (i, grid) in grids.iter().enumerate() {
            for (index, to) in snapped_verts(grid, &bsp.disp_info[i].allowed_verts) {
                snapped += 1;
                let moved = (to - grid.verts[index]).abs().max_element();
                if moved > worst {
                    worst = moved;
                    worst_at = format!("{map} disp {i} vertex {index}");
                }
            }
        }
    }
    println!("{snapped} snapped vertices re-snapped; largest move {worst} at {worst_at}");
    assert!(worst <= 0.01, "re-snapping moved {worst_at} by {worst}");
}
