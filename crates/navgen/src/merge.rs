//! Merging neighbouring areas into larger rectangles (Valve's `MergeGeneratedAreas`): two areas
//! that share a whole edge at the same heights, carry the same attributes and lie in one plane
//! become one, until no pair is left.

use std::collections::HashMap;

use crate::areas::{Area, MAX_SIDE};
use crate::attributes::ATTR_NO_MERGE;
use crate::nodes::{EAST, Graph, NORTH, SOUTH, STEP, WEST};

/// Normals of merged areas agree at least this much (`nav_coplanar_slope_limit`).
const COPLANAR: f32 = 0.99;
const SAME_Z: f32 = 0.5;

/// Merges in place; areas merged away are removed. As the game's loop does: the first area in
/// list order that can merge with a neighbour (north, south, west, east) absorbs it, and the
/// scan starts over, here from the first area the merge could have made mergeable.
pub fn merge(areas: &mut Vec<Area>) {
    let mut edges = EdgeIndex::default();
    for (i, a) in areas.iter().enumerate() {
        edges.insert(a, i);
    }
    let mut from = 0;
    while let Some((i, j, dir)) = first_mergeable(areas, &edges, from) {
        edges.remove(&areas[i], i);
        edges.remove(&areas[j], j);
        join(areas, i, j, dir);
        edges.insert(&areas[i], i);
        from = edges.touching(&areas[i]).chain([i]).min().unwrap_or(i);
    }
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

/// An area's sides in `NavDirType` order: north, east, south, west.
fn sides(a: &Area) -> [EdgeKey; 4] {
    [
        key(true, a.min[1], a.min[0], a.max[0]),
        key(false, a.max[0], a.min[1], a.max[1]),
        key(true, a.max[1], a.min[0], a.max[0]),
        key(false, a.min[0], a.min[1], a.max[1]),
    ]
}

/// The live areas by their sides.
#[derive(Default)]
struct EdgeIndex(HashMap<EdgeKey, Vec<usize>>);

impl EdgeIndex {
    fn insert(&mut self, a: &Area, i: usize) {
        for k in sides(a) {
            self.0.entry(k).or_default().push(i);
        }
    }

    fn remove(&mut self, a: &Area, i: usize) {
        for k in sides(a) {
            if let Some(list) = self.0.get_mut(&k) {
                list.retain(|&j| j != i);
            }
        }
    }

    /// The areas with a side on one of `a`'s sides.
    fn touching<'s>(&'s self, a: &Area) -> impl Iterator<Item = usize> + 's {
        sides(a)
            .into_iter()
            .flat_map(|k| self.0.get(&k).into_iter().flatten().copied())
    }
}

/// The first live area from `from` on that can absorb a neighbour: (it, the neighbour, the
/// neighbour's direction).
fn first_mergeable(areas: &[Area], edges: &EdgeIndex, from: usize) -> Option<(usize, usize, usize)> {
    (from..areas.len())
        .filter(|&i| !areas[i].nodes.is_empty())
        .find_map(|i| partner(areas, edges, i).map(|(j, dir)| (i, j, dir)))
}

/// The neighbour area `i` merges with, looking north, south, west, then east.
fn partner(areas: &[Area], edges: &EdgeIndex, i: usize) -> Option<(usize, usize)> {
    let sides = sides(&areas[i]);
    [NORTH, SOUTH, WEST, EAST].into_iter().find_map(|dir| {
        let mut candidates = edges.0.get(&sides[dir]).cloned().unwrap_or_default();
        candidates.sort_unstable();
        candidates
            .into_iter()
            .find(|&j| j != i && mergeable(&areas[i], &areas[j], dir))
            .map(|j| (j, dir))
    })
}

/// Whether `b`, lying `dir` of `a`, merges with it.
fn mergeable(a: &Area, b: &Area, dir: usize) -> bool {
    match dir {
        NORTH => can_merge(b, a, false),
        SOUTH => can_merge(a, b, false),
        WEST => can_merge(b, a, true),
        _ => can_merge(a, b, true),
    }
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

/// Puts `j`, lying `dir` of `i`, into `i`: `i` takes `j`'s far side and its corners.
fn join(areas: &mut [Area], i: usize, j: usize, dir: usize) {
    let b = std::mem::take(&mut areas[j].nodes);
    let other = areas[j].clone();
    let a = &mut areas[i];
    a.nodes.extend(b);
    a.listing = a.listing.survivor(other.listing);
    // Corners NW, NE, SE, SW taken from the neighbour on each side.
    let corners = match dir {
        NORTH => [0, 1],
        EAST => [1, 2],
        SOUTH => [2, 3],
        _ => [3, 0],
    };
    for c in corners {
        a.z[c] = other.z[c];
    }
    match dir {
        NORTH => a.min[1] = other.min[1],
        EAST => a.max[0] = other.max[0],
        SOUTH => a.max[1] = other.max[1],
        _ => a.min[0] = other.min[0],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Listing;

    fn cell(x: f32, order: u32) -> Area {
        let (min, max) = ([x, 0.0], [x + STEP, STEP]);
        Area {
            min,
            max,
            z: [0.0; 4],
            attributes: 0,
            nodes: vec![order],
            listing: Listing { order, min, max },
        }
    }

    #[test]
    fn the_first_listed_area_absorbs_its_neighbours_and_keeps_its_listing() {
        // Listed middle, west, east: the middle one absorbs the west one, then the east one.
        let mut areas = vec![cell(25.0, 0), cell(0.0, 1), cell(50.0, 2)];
        merge(&mut areas);
        assert_eq!(areas.len(), 1);
        assert_eq!((areas[0].min, areas[0].max), ([0.0, 0.0], [75.0, 25.0]));
        assert_eq!(areas[0].listing, cell(25.0, 0).listing);
        assert_eq!(areas[0].nodes, vec![0, 1, 2]);
    }

    #[test]
    fn areas_at_other_heights_or_with_other_attributes_stay_apart() {
        let mut high = cell(25.0, 1);
        high.z = [40.0; 4];
        let mut crouch = cell(50.0, 2);
        crouch.attributes = crate::attributes::ATTR_CROUCH;
        let mut areas = vec![cell(0.0, 0), high, crouch];
        merge(&mut areas);
        assert_eq!(areas.len(), 3);
    }
}
