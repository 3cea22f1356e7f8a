//! Merging neighbouring areas into larger rectangles (Valve's `MergeGeneratedAreas`): two areas
//! that share a whole edge at the same heights, carry the same attributes and lie in one plane
//! become one, until no pair is left.

use std::collections::HashMap;

use crate::areas::{ATTR_NO_MERGE, Area, MAX_SIDE};
use crate::nodes::{Graph, STEP};

/// Normals of merged areas agree at least this much (`nav_coplanar_slope_limit`).
const COPLANAR: f32 = 0.99;
const SAME_Z: f32 = 0.5;

/// Merges in place; areas merged away are removed.
pub fn merge(areas: &mut Vec<Area>) {
    while merge_pass(areas) > 0 {}
    areas.retain(|a| !a.nodes.is_empty());
}

/// Marks each node with the index of the area now covering it.
pub fn renumber(areas: &[Area], graph: &mut Graph) {
    for (i, a) in areas.iter().enumerate() {
        for &n in &a.nodes {
            graph.nodes[n as usize].area = Some(i as u32);
        }
    }
}

/// An edge's key: its fixed coordinate and span, in cells.
type EdgeKey = (bool, i32, i32, i32);

fn key(horizontal: bool, at: f32, from: f32, to: f32) -> EdgeKey {
    let c = |v: f32| (v / STEP).round() as i32;
    (horizontal, c(at), c(from), c(to))
}

/// One pass: each area is merged with at most one neighbour to the south or east.
fn merge_pass(areas: &mut [Area]) -> usize {
    let mut by_north_or_west: HashMap<EdgeKey, Vec<usize>> = HashMap::new();
    for (i, a) in areas.iter().enumerate().filter(|(_, a)| !a.nodes.is_empty()) {
        by_north_or_west
            .entry(key(true, a.min[1], a.min[0], a.max[0]))
            .or_default()
            .push(i);
        by_north_or_west
            .entry(key(false, a.min[0], a.min[1], a.max[1]))
            .or_default()
            .push(i);
    }
    let mut merged = 0;
    for i in 0..areas.len() {
        if areas[i].nodes.is_empty() {
            continue;
        }
        let a = &areas[i];
        let south = key(true, a.max[1], a.min[0], a.max[0]);
        let east = key(false, a.max[0], a.min[1], a.max[1]);
        for (edge, along_x) in [(south, false), (east, true)] {
            let Some(j) = by_north_or_west
                .get(&edge)
                .and_then(|c| pick(areas, i, c, along_x))
            else {
                continue;
            };
            join(areas, i, j, along_x);
            merged += 1;
            break;
        }
    }
    merged
}

/// The candidate that can merge with area `i` (`along_x`: `j` lies east of `i`).
fn pick(areas: &[Area], i: usize, candidates: &[usize], along_x: bool) -> Option<usize> {
    candidates
        .iter()
        .copied()
        .find(|&j| j != i && can_merge(&areas[i], &areas[j], along_x))
}

fn can_merge(a: &Area, b: &Area, along_x: bool) -> bool {
    if b.nodes.is_empty() || a.attributes != b.attributes || a.attributes & ATTR_NO_MERGE != 0 {
        return false;
    }
    // a's east edge (NE, SE) meets b's west edge (NW, SW); a's south edge (SW, SE) b's north (NW, NE).
    let (pairs, span) = if along_x {
        ([(1, 0), (2, 3)], b.max[0] - a.min[0])
    } else {
        ([(3, 0), (2, 1)], b.max[1] - a.min[1])
    };
    let joined = pairs.iter().all(|&(p, q)| (a.z[p] - b.z[q]).abs() < SAME_Z);
    joined
        && shares_edge(a, b, along_x)
        && span <= MAX_SIDE as f32 * STEP
        && a.normal().dot(b.normal()) > COPLANAR
        && flat(a)
        && flat(b)
}

/// `b` touches `a`'s whole east (`along_x`) or south edge, no more and no less.
fn shares_edge(a: &Area, b: &Area, along_x: bool) -> bool {
    let (k, o) = if along_x { (0, 1) } else { (1, 0) };
    a.max[k] == b.min[k] && a.min[o] == b.min[o] && a.max[o] == b.max[o]
}

/// The four corners lie in one plane.
fn flat(a: &Area) -> bool {
    (a.z[0] + a.z[2] - a.z[1] - a.z[3]).abs() < 1.0
}

/// Puts `j` into `i` (`j` lies east of `i` when `along_x`, else south).
fn join(areas: &mut [Area], i: usize, j: usize, along_x: bool) {
    let b = std::mem::take(&mut areas[j].nodes);
    let (bz, bmax, listing) = (areas[j].z, areas[j].max, areas[j].listing);
    let a = &mut areas[i];
    a.listing = a.listing.survivor(listing);
    a.nodes.extend(b);
    if along_x {
        a.z[1] = bz[1];
        a.z[2] = bz[2];
    } else {
        a.z[3] = bz[3];
        a.z[2] = bz[2];
    }
    a.max = bmax;
}
