//! Which vertices of each displacement may ever be active (`ddispinfo_t::m_AllowedVerts`).
//!
//! A displacement is a quadtree of nodes: the root sits at the grid's centre, and a node
//! of half-size `h` has four *side vertices* `h` away along the axes and, when `h > 1`,
//! four children `h/2` away along the diagonals. A vertex on an edge may only be active if
//! the displacement across that edge has it too; otherwise the two would tesselate
//! differently and open a crack. Disabling a vertex disables what depends on it — the
//! child nodes next to a side vertex, the side vertices of a node — and as neighbours read
//! each other's sets, the passes repeat until nothing changes.

use crate::VertIndex;
use crate::edges::{self, is_set};
use crate::neighbors::DispNeighbors;

/// 32-bit words of an allowed-vertex set (289 vertices of a power-4 grid, rounded up).
pub const ALLOWED_WORDS: usize = 10;

/// Every bit set, as sets start (bits past a grid's vertices stay set).
pub const ALL_ALLOWED: [u32; ALLOWED_WORDS] = [u32::MAX; ALLOWED_WORDS];

pub fn is_allowed(bits: &[u32; ALLOWED_WORDS], index: usize) -> bool {
    bits.get(index / 32).is_some_and(|w| w & (1 << (index % 32)) != 0)
}

fn disallow(bits: &mut [u32; ALLOWED_WORDS], index: usize) {
    if let Some(w) = bits.get_mut(index / 32) {
        *w &= !(1 << (index % 32));
    }
}

/// The allowed-vertex sets of displacements of `powers` linked by `neighbors` (both
/// indexed by dispinfo).
pub fn allowed_verts(powers: &[u32], neighbors: &[DispNeighbors]) -> Vec<[u32; ALLOWED_WORDS]> {
    let mut sets = vec![ALL_ALLOWED; powers.len()];
    loop {
        let mut changed = false;
        for disp in 0..powers.len() {
            changed |= disable_pass(powers, neighbors, &mut sets, disp);
        }
        if !changed {
            break;
        }
    }
    sets
}

/// Visits `disp`'s nodes root first and disables each side vertex its neighbour lacks.
/// Returns whether anything was disabled.
fn disable_pass(
    powers: &[u32],
    neighbors: &[DispNeighbors],
    sets: &mut [[u32; ALLOWED_WORDS]],
    disp: usize,
) -> bool {
    let power = powers[disp];
    if power == 0 {
        // A single quad has no side vertices.
        return false;
    }
    let mid = 1 << (power - 1);
    let mut changed = false;
    let mut stack = vec![(VertIndex::new(mid, mid), 0u32)];
    while let Some((node, level)) = stack.pop() {
        let half = 1 << (power - 1 - level);
        for side in side_verts(node, half) {
            if !neighbor_has(powers, neighbors, sets, disp, side, level) {
                changed |= disallow_with_dependents(sets, disp, power, side);
            }
        }
        if level + 1 < power {
            // Pushed in reverse so that they are visited in child order.
            for child in children(node, half).into_iter().rev() {
                stack.push((child, level + 1));
            }
        }
    }
    changed
}

/// East, north, west, south of a node of half-size `half`.
fn side_verts(node: VertIndex, half: i32) -> [VertIndex; 4] {
    [(half, 0), (0, half), (-half, 0), (0, -half)].map(|(dx, dy)| VertIndex::new(node.x + dx, node.y + dy))
}

/// Upper right, upper left, lower left, lower right children of a node of half-size `half`.
pub(crate) fn children(node: VertIndex, half: i32) -> [VertIndex; 4] {
    let q = half / 2;
    [(q, q), (-q, q), (-q, -q), (q, -q)].map(|(dx, dy)| VertIndex::new(node.x + dx, node.y + dy))
}

/// The edge side vertex `v` lies on and the neighbour slot that covers it; `None` for a
/// corner, a vertex off the boundary or one no neighbour covers.
fn covering_neighbor(
    power: u32,
    neighbors: &DispNeighbors,
    v: VertIndex,
) -> Option<(usize, &srcmap_bsp::records::DispSubNeighbor)> {
    if edges::is_corner(v, power) {
        return None;
    }
    let edge = edges::edge_of(v, power)?;
    let slots = &neighbors.edges[edge];
    let slot = edges::slot_for(power, edge, slots, v)?;
    let sub = &slots[slot];
    debug_assert!(is_set(sub));
    Some((edge, sub))
}

/// Whether side vertex `v` (of a node at `level`, the root being 0) may stay: it is off
/// the boundary, no neighbour covers it, or the neighbour has vertices this fine and has
/// not disabled its copy.
fn neighbor_has(
    powers: &[u32],
    neighbors: &[DispNeighbors],
    sets: &[[u32; ALLOWED_WORDS]],
    disp: usize,
    v: VertIndex,
    level: u32,
) -> bool {
    let power = powers[disp];
    let Some((edge, sub)) = covering_neighbor(power, &neighbors[disp], v) else {
        return true;
    };
    let nb = sub.neighbor as usize;
    let Some(&nb_power) = powers.get(nb) else {
        return true;
    };
    if (nb_power as i32 + edges::power_shift(sub.span, sub.neighbor_span)) < level as i32 + 1 {
        return false;
    }
    let at = edges::into_neighbor(power, edge, sub, nb_power, v);
    let side = crate::side_len(nb_power) as i32;
    if !(0..side).contains(&at.x) || !(0..side).contains(&at.y) {
        return true;
    }
    is_allowed(&sets[nb], at.index(side as usize))
}

/// Disables `v` and, transitively, what depends on it; whether `v` was still allowed.
fn disallow_with_dependents(
    sets: &mut [[u32; ALLOWED_WORDS]],
    disp: usize,
    power: u32,
    v: VertIndex,
) -> bool {
    let side = crate::side_len(power);
    if !is_allowed(&sets[disp], v.index(side)) {
        return false;
    }
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        let index = v.index(side);
        if !is_allowed(&sets[disp], index) {
            continue;
        }
        disallow(&mut sets[disp], index);
        stack.extend(dependents(v, power));
    }
    true
}

/// The vertices that cannot exist without `v`: a node's side vertices, or the child nodes
/// on either side of a side vertex. Corners have none that matter (they are never disabled).
pub(crate) fn dependents(v: VertIndex, power: u32) -> Vec<VertIndex> {
    let m = 1 << power;
    // The largest power of two dividing a coordinate (0 counts as the whole side).
    let step = |c: i32| if c == 0 { m } else { c & -c };
    let (sx, sy) = (step(v.x), step(v.y));
    if sx == sy {
        if sx >= m {
            return Vec::new();
        }
        return side_verts(v, sx).to_vec();
    }
    let half = sx.min(sy);
    if half < 2 {
        return Vec::new();
    }
    let q = half / 2;
    [(q, q), (-q, q), (-q, -q), (q, -q)]
        .map(|(dx, dy)| VertIndex::new(v.x + dx, v.y + dy))
        .into_iter()
        .filter(|c| (0..=m).contains(&c.x) && (0..=m).contains(&c.y))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The dependency relation built the long way: walk the quadtree and record, for each
    /// node, that its side vertices depend on it and that each child depends on the two
    /// side vertices of its parent that flank it.
    fn dependents_by_walk(power: u32) -> Vec<BTreeSet<(i32, i32)>> {
        let side = crate::side_len(power);
        let mut deps = vec![BTreeSet::new(); side * side];
        let mid = 1 << (power - 1);
        let mut stack = vec![(VertIndex::new(mid, mid), mid)];
        while let Some((node, half)) = stack.pop() {
            let sides = side_verts(node, half);
            for s in sides {
                deps[node.index(side)].insert((s.x, s.y));
            }
            if half > 1 {
                // Child k sits between side vertices k and k + 1 (east/north for upper right...).
                for (k, child) in children(node, half).into_iter().enumerate() {
                    for s in [sides[k], sides[(k + 1) % 4]] {
                        deps[s.index(side)].insert((child.x, child.y));
                    }
                    stack.push((child, half / 2));
                }
            }
        }
        deps
    }

    #[test]
    fn closed_form_dependents_match_the_quadtree() {
        for power in 2..=4 {
            let side = crate::side_len(power);
            let walked = dependents_by_walk(power);
            for (index, want) in walked.iter().enumerate() {
                let v = VertIndex::of(index, side);
                if edges::is_corner(v, power) {
                    continue;
                }
                let got: BTreeSet<(i32, i32)> =
                    dependents(v, power).into_iter().map(|d| (d.x, d.y)).collect();
                assert_eq!(&got, want, "power {power} vertex {v:?}");
            }
        }
    }

    #[test]
    fn lone_displacement_allows_everything() {
        let sets = allowed_verts(&[3], &[DispNeighbors::default()]);
        assert_eq!(sets[0], ALL_ALLOWED);
    }
}
