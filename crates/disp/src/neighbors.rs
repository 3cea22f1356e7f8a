//! Which displacements touch which, along edges and at corners, as VBSP records them in
//! `ddispinfo_t`.
//!
//! Edges are matched on the base quads' corner points (0.01 units per axis): a neighbour
//! covers our whole edge, is twice its length with our edge on one of its halves, or covers
//! one of our halves. Corners are matched on the displaced corner vertices (0.001 units) and
//! only between displacements that share no edge and exactly one corner. Pairs are visited
//! in index order, which fixes the order of the corner lists and which of two claims on the
//! same slot wins. Finally every edge link is walked vertex by vertex and dropped unless
//! each vertex maps into the neighbour and back to itself.

use crate::DispGrid;
use crate::VertIndex;
use crate::edges::{
    self, CORNER_TO_CORNER, CORNER_TO_MIDPOINT, EMPTY_SLOT, MIDPOINT_TO_CORNER, coord, free_axis, is_set,
    set_coord,
};
use glam::Vec3;
use srcmap_bsp::records::{DispCornerNeighbors, DispInfo, DispSubNeighbor};
use std::cmp::Ordering::{Greater, Less};

/// Most displacements one corner can list.
pub const MAX_CORNER_NEIGHBORS: usize = 4;

/// Tolerance per axis when matching base-quad corners along edges.
const EDGE_EPSILON: f32 = 0.01;
/// Tolerance per axis when matching displaced corner vertices.
const CORNER_EPSILON: f32 = 0.001;
/// How far the base quads' boxes are grown before the cheap overlap reject.
const BOX_PUFF: f32 = 0.1;

/// One displacement's neighbours, in the BSP's record types.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DispNeighbors {
    /// Indexed by edge (see [`crate::edges`]), then slot.
    pub edges: [[DispSubNeighbor; 2]; 4],
    /// Indexed by corner (the grid's corner order).
    pub corners: [DispCornerNeighbors; 4],
}

impl Default for DispNeighbors {
    fn default() -> DispNeighbors {
        DispNeighbors {
            edges: [[EMPTY_SLOT; 2]; 4],
            corners: [DispCornerNeighbors::default(); 4],
        }
    }
}

impl DispNeighbors {
    /// The neighbours a BSP stores for a displacement.
    pub fn of(info: &DispInfo) -> DispNeighbors {
        DispNeighbors {
            edges: info.edge_neighbors,
            corners: info.corner_neighbors,
        }
    }

    /// Writes these neighbours into a displacement's record.
    pub fn store(&self, info: &mut DispInfo) {
        info.edge_neighbors = self.edges;
        info.corner_neighbors = self.corners;
    }

    /// The listed neighbours of corner `corner`.
    pub fn corner_list(&self, corner: usize) -> &[u32] {
        let c = &self.corners[corner];
        &c.neighbors[..usize::from(c.count).min(MAX_CORNER_NEIGHBORS)]
    }

    /// Whether `other` is already linked through any edge slot or corner list.
    fn links(&self, other: u32) -> bool {
        (0..4).any(|k| {
            self.corner_list(k).contains(&other) || self.edges[k].iter().any(|s| s.neighbor == other)
        })
    }
}

/// Finds every displacement's edge and corner neighbours; `grids[i]` is dispinfo `i`.
pub fn find_neighbors(grids: &[DispGrid]) -> Vec<DispNeighbors> {
    let mut out = vec![DispNeighbors::default(); grids.len()];
    let boxes: Vec<(Vec3, Vec3)> = grids.iter().map(puffed_box).collect();
    for (main, other) in touching_pairs(&boxes) {
        link_edges(grids, &mut out, main, other);
        // After the edges: a pair that shares an edge is not also linked by a corner.
        link_corners(grids, &mut out, main, other);
    }
    drop_broken_edges(grids, &mut out);
    out
}

fn puffed_box(grid: &DispGrid) -> (Vec3, Vec3) {
    let mut lo = Vec3::splat(1e24);
    let mut hi = Vec3::splat(-1e24);
    for p in grid.corners {
        lo = lo.min(p);
        hi = hi.max(p);
    }
    (lo - Vec3::splat(BOX_PUFF), hi + Vec3::splat(BOX_PUFF))
}

fn boxes_touch(a: &(Vec3, Vec3), b: &(Vec3, Vec3)) -> bool {
    // Only a clear gap on some axis separates them.
    (0..3).all(|i| a.1[i].partial_cmp(&b.0[i]) != Some(Less) && a.0[i].partial_cmp(&b.1[i]) != Some(Greater))
}

/// Every pair `(i, j)`, `i < j`, whose boxes touch, in the order a double loop over the
/// indices would meet them (a sweep over x finds them without testing every pair).
fn touching_pairs(boxes: &[(Vec3, Vec3)]) -> Vec<(usize, usize)> {
    let mut order: Vec<usize> = (0..boxes.len()).collect();
    order.sort_by(|&a, &b| boxes[a].0.x.total_cmp(&boxes[b].0.x));
    let mut pairs = Vec::new();
    for (k, &a) in order.iter().enumerate() {
        for &b in &order[k + 1..] {
            if boxes[b].0.x > boxes[a].1.x {
                break;
            }
            if boxes_touch(&boxes[a], &boxes[b]) {
                pairs.push((a.min(b), a.max(b)));
            }
        }
    }
    pairs.sort_unstable();
    pairs
}

fn close(a: Vec3, b: Vec3, epsilon: f32) -> bool {
    // "Not farther than", so that a NaN coordinate does not separate points.
    (0..3).all(|i| (a[i] - b[i]).abs().partial_cmp(&epsilon) != Some(Greater))
}

/// The first edge of `grid` running from `from` to `to`.
fn find_edge(grid: &DispGrid, from: Vec3, to: Vec3) -> Option<usize> {
    (0..4).find(|&e| {
        close(from, grid.corners[e], EDGE_EPSILON) && close(to, grid.corners[(e + 1) & 3], EDGE_EPSILON)
    })
}

/// The two halves swap names on edges that run towards smaller coordinates.
fn in_edge_terms(edge: usize, span: u8) -> u8 {
    let descending = edge == edges::RIGHT || edge == edges::BOTTOM;
    match span {
        CORNER_TO_MIDPOINT if descending => MIDPOINT_TO_CORNER,
        MIDPOINT_TO_CORNER if descending => CORNER_TO_MIDPOINT,
        s => s,
    }
}

fn link_edges(grids: &[DispGrid], out: &mut [DispNeighbors], main: usize, other: usize) {
    let g = &grids[main];
    let o = &grids[other];
    for edge in 0..4 {
        let p0 = g.corners[edge];
        let p1 = g.corners[(edge + 1) & 3];
        let mid = (p0 + p1) * 0.5;
        // `span`s below are in the order we walk our edge (p0 to p1); a neighbour's edge
        // runs the other way.
        let mut link = |slot, span, nb_edge, nb_span| {
            add_link(out, (main, edge, slot, span), (other, nb_edge, nb_span));
        };
        if let Some(nb) = find_edge(o, p1, p0) {
            link(0, CORNER_TO_CORNER, nb, CORNER_TO_CORNER);
        } else if let Some(nb) = find_edge(o, p1, p0 * 2.0 - p1) {
            link(0, CORNER_TO_CORNER, nb, CORNER_TO_MIDPOINT);
        } else if let Some(nb) = find_edge(o, p1 * 2.0 - p0, p0) {
            link(0, CORNER_TO_CORNER, nb, MIDPOINT_TO_CORNER);
        } else {
            let descending = usize::from(edge == edges::RIGHT || edge == edges::BOTTOM);
            if let Some(nb) = find_edge(o, mid, p0) {
                link(descending, CORNER_TO_MIDPOINT, nb, CORNER_TO_CORNER);
            }
            if let Some(nb) = find_edge(o, p1, mid) {
                link(1 - descending, MIDPOINT_TO_CORNER, nb, CORNER_TO_CORNER);
            }
        }
    }
}

/// Links `(main, edge, slot)` and the neighbour's edge both ways, unless either slot is
/// already taken (overlapping displacements: the first link wins).
fn add_link(
    out: &mut [DispNeighbors],
    (main, edge, slot, span): (usize, usize, usize, u8),
    (other, nb_edge, nb_span): (usize, usize, u8),
) {
    let span = in_edge_terms(edge, span);
    let nb_span = in_edge_terms(nb_edge, nb_span);
    let nb_slot = usize::from(nb_span == MIDPOINT_TO_CORNER);
    if is_set(&out[main].edges[edge][slot]) || is_set(&out[other].edges[nb_edge][nb_slot]) {
        return;
    }
    out[main].edges[edge][slot] = DispSubNeighbor {
        neighbor: other as u32,
        orientation: edges::orientation(edge, nb_edge),
        span,
        neighbor_span: nb_span,
        pad: 0,
    };
    out[other].edges[nb_edge][nb_slot] = DispSubNeighbor {
        neighbor: main as u32,
        orientation: edges::orientation(nb_edge, edge),
        span: nb_span,
        neighbor_span: span,
        pad: 0,
    };
}

/// The corners (ours, theirs) two displacements share, when they share exactly one.
fn one_shared_corner(g: &DispGrid, o: &DispGrid) -> Option<(usize, usize)> {
    let mut shared = 0;
    let mut last = (0, 0);
    for mc in 0..4 {
        let p = g.vert(g.corner_index(mc));
        for oc in 0..4 {
            if close(p, o.vert(o.corner_index(oc)), CORNER_EPSILON) {
                shared += 1;
                last = (mc, oc);
            }
        }
    }
    (shared == 1).then_some(last)
}

fn link_corners(grids: &[DispGrid], out: &mut [DispNeighbors], main: usize, other: usize) {
    if out[main].links(other as u32) {
        return;
    }
    let Some((mc, oc)) = one_shared_corner(&grids[main], &grids[other]) else {
        return;
    };
    let full = |c: &DispCornerNeighbors| usize::from(c.count) >= MAX_CORNER_NEIGHBORS;
    if full(&out[main].corners[mc]) || full(&out[other].corners[oc]) {
        // A fifth displacement at a corner goes unlisted (VBSP only warns).
        return;
    }
    for (at, corner, who) in [(main, mc, other), (other, oc, main)] {
        let c = &mut out[at].corners[corner];
        c.neighbors[usize::from(c.count)] = who as u32;
        c.count += 1;
    }
}

/// Unlinks edges along which some vertex does not map into the neighbour and back, until
/// none is left (unlinking one side breaks the other's way back, so this can take passes).
fn drop_broken_edges(grids: &[DispGrid], out: &mut [DispNeighbors]) {
    loop {
        let mut dropped = false;
        for disp in 0..grids.len() {
            for edge in 0..4 {
                if !edge_maps_back(grids, out, disp, edge) {
                    for slot in &mut out[disp].edges[edge] {
                        slot.neighbor = edges::NO_NEIGHBOR;
                    }
                    dropped = true;
                }
            }
        }
        if !dropped {
            break;
        }
    }
}

fn edge_maps_back(grids: &[DispGrid], out: &[DispNeighbors], disp: usize, edge: usize) -> bool {
    for slot in 0..2 {
        let sub = out[disp].edges[edge][slot];
        if !is_set(&sub) {
            continue;
        }
        let nb = sub.neighbor as usize;
        let mut walk = EdgeWalk::new(grids, disp, edge, slot, &sub);
        while walk.advance() {
            if !maps_back(grids, out, disp, edge, walk.v, nb, walk.nb_v) {
                return false;
            }
        }
    }
    true
}

/// A walk along one slot's part of a displacement's edge, stepping on the vertices both it and
/// the neighbour have: our vertex `v` and the neighbour's `nb_v`.
struct EdgeWalk {
    v: VertIndex,
    nb_v: VertIndex,
    /// The coordinate that runs along the edge, our step on it and where the slot ends.
    free: usize,
    my_step: i32,
    end: i32,
    /// The neighbour's step per ours.
    nb_inc: VertIndex,
}

/// Our step and the neighbour's along a shared edge, ours of grid power `power` and theirs as
/// fine as `nb_fine`: one on the finer side, the ratio on the coarser.
pub(crate) fn steps(power: i32, nb_fine: i32) -> (i32, i32) {
    if nb_fine > power {
        (1, 1 << (nb_fine - power))
    } else {
        (1 << (power - nb_fine), 1)
    }
}

impl EdgeWalk {
    /// At the start of `slot` of `edge` of displacement `disp`, linked by `sub`.
    fn new(grids: &[DispGrid], disp: usize, edge: usize, slot: usize, sub: &DispSubNeighbor) -> EdgeWalk {
        let power = grids[disp].power;
        let nb_power = grids[sub.neighbor as usize].power;
        let m = 1 << power;
        let free = free_axis(edge);
        let mut v = VertIndex::default();
        let fixed = if edge == edges::TOP || edge == edges::RIGHT {
            m
        } else {
            0
        };
        set_coord(&mut v, edges::fixed_axis(edge), fixed);
        set_coord(&mut v, free, (m / 2) * slot as i32);
        let nb_v = edges::into_neighbor(power, edge, sub, nb_power, v);
        let nb_fine = nb_power as i32 + edges::power_shift(sub.span, sub.neighbor_span);
        let (my_step, nb_step) = steps(power as i32, nb_fine);
        let mut along = VertIndex::default();
        set_coord(&mut along, free, nb_step);
        EdgeWalk {
            v,
            nb_v,
            free,
            my_step,
            end: if sub.span == CORNER_TO_MIDPOINT { m / 2 } else { m },
            nb_inc: edges::rotate_step(sub.orientation, along),
        }
    }

    /// One step on; false once past the slot's last inner vertex.
    fn advance(&mut self) -> bool {
        let next = coord(self.v, self.free) + self.my_step;
        set_coord(&mut self.v, self.free, next);
        self.nb_v = VertIndex::new(self.nb_v.x + self.nb_inc.x, self.nb_v.y + self.nb_inc.y);
        coord(self.v, self.free) < self.end
    }
}

/// Whether our edge vertex `v` maps to `(expect, expect_v)` and from there back to `v`.
fn maps_back(
    grids: &[DispGrid],
    out: &[DispNeighbors],
    disp: usize,
    edge: usize,
    v: VertIndex,
    expect: usize,
    expect_v: VertIndex,
) -> bool {
    let Some((nb, nb_v)) = across(grids, out, disp, edge, v) else {
        return true;
    };
    if nb != expect || nb_v != expect_v {
        return false;
    }
    let Some(nb_edge) = edges::edge_of(nb_v, grids[nb].power) else {
        return false;
    };
    across(grids, out, nb, nb_edge, nb_v) == Some((disp, v))
}

/// The displacement and grid position that our boundary vertex `v` on `edge` maps to.
fn across(
    grids: &[DispGrid],
    out: &[DispNeighbors],
    disp: usize,
    edge: usize,
    v: VertIndex,
) -> Option<(usize, VertIndex)> {
    let power = grids[disp].power;
    let slots = &out[disp].edges[edge];
    let sub = slots[edges::slot_for(power, edge, slots, v)?];
    let nb = sub.neighbor as usize;
    Some((nb, edges::into_neighbor(power, edge, &sub, grids[nb].power, v)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vert_count;

    fn flat_grid(power: u32, corners: [Vec3; 4]) -> DispGrid {
        DispGrid::new(power, corners, &vec![(Vec3::Z, 0.0); vert_count(power)])
    }

    /// An axis-aligned quad on z = 0, corner 0 at `(x, y)`, turned so that corner 0 is the
    /// `start`-th of its lower-left, upper-left, upper-right, lower-right corners.
    fn square(power: u32, x: f32, y: f32, size: f32, start: usize) -> DispGrid {
        let ring = [
            Vec3::new(x, y, 0.0),
            Vec3::new(x, y + size, 0.0),
            Vec3::new(x + size, y + size, 0.0),
            Vec3::new(x + size, y, 0.0),
        ];
        flat_grid(power, [0, 1, 2, 3].map(|k| ring[(k + start) % 4]))
    }

    fn sub(neighbor: u32, orientation: u8, span: u8, neighbor_span: u8) -> DispSubNeighbor {
        DispSubNeighbor {
            neighbor,
            orientation,
            span,
            neighbor_span,
            pad: 0,
        }
    }

    #[test]
    fn two_equal_quads_side_by_side() {
        let grids = [square(2, 0.0, 0.0, 64.0, 0), square(2, 64.0, 0.0, 64.0, 0)];
        let n = find_neighbors(&grids);
        assert_eq!(
            n[0].edges[edges::RIGHT][0],
            sub(1, 0, CORNER_TO_CORNER, CORNER_TO_CORNER)
        );
        assert_eq!(
            n[1].edges[edges::LEFT][0],
            sub(0, 0, CORNER_TO_CORNER, CORNER_TO_CORNER)
        );
        for (d, e) in [
            (0, edges::LEFT),
            (0, edges::TOP),
            (1, edges::RIGHT),
            (0, edges::BOTTOM),
        ] {
            assert!(!is_set(&n[d].edges[e][0]) && !is_set(&n[d].edges[e][1]));
        }
        // Edge neighbours are not corner neighbours too.
        assert!((0..4).all(|c| n[0].corner_list(c).is_empty()));
    }

    #[test]
    fn rotated_neighbor() {
        // The second quad starts at its upper-left corner: its frame is turned a quarter.
        let grids = [square(2, 0.0, 0.0, 64.0, 0), square(2, 64.0, 0.0, 64.0, 1)];
        let n = find_neighbors(&grids);
        // Its corners are (64,64) (64+64,64) (128,0) (64,0): our right edge is its edge 3.
        let ours = n[0].edges[edges::RIGHT][0];
        assert_eq!(
            ours,
            sub(1, edges::orientation(edges::RIGHT, edges::BOTTOM), 0, 0)
        );
        assert_eq!(ours.orientation, 3);
        assert_eq!(n[1].edges[edges::BOTTOM][0], sub(0, 1, 0, 0));
    }

    #[test]
    fn two_half_size_neighbors_fill_one_edge() {
        // A 128 power-3 quad; on its right, two 64 power-2 quads.
        let grids = [
            square(3, 0.0, 0.0, 128.0, 0),
            square(2, 128.0, 0.0, 64.0, 0),
            square(2, 128.0, 64.0, 64.0, 0),
        ];
        let n = find_neighbors(&grids);
        let right = n[0].edges[edges::RIGHT];
        assert_eq!(right[0], sub(1, 0, CORNER_TO_MIDPOINT, CORNER_TO_CORNER));
        assert_eq!(right[1], sub(2, 0, MIDPOINT_TO_CORNER, CORNER_TO_CORNER));
        assert_eq!(
            n[1].edges[edges::LEFT][0],
            sub(0, 0, CORNER_TO_CORNER, CORNER_TO_MIDPOINT)
        );
        assert_eq!(
            n[2].edges[edges::LEFT][0],
            sub(0, 0, CORNER_TO_CORNER, MIDPOINT_TO_CORNER)
        );
        // The two small ones share an edge with each other.
        assert_eq!(n[1].edges[edges::TOP][0], sub(2, 0, 0, 0));
    }

    #[test]
    fn the_larger_one_found_from_the_smaller_side() {
        // Same layout with the indices reversed: the small quads come first.
        let grids = [
            square(2, 128.0, 64.0, 64.0, 0),
            square(2, 128.0, 0.0, 64.0, 0),
            square(3, 0.0, 0.0, 128.0, 0),
        ];
        let n = find_neighbors(&grids);
        assert_eq!(
            n[2].edges[edges::RIGHT][0],
            sub(1, 0, CORNER_TO_MIDPOINT, CORNER_TO_CORNER)
        );
        assert_eq!(
            n[2].edges[edges::RIGHT][1],
            sub(0, 0, MIDPOINT_TO_CORNER, CORNER_TO_CORNER)
        );
        assert_eq!(
            n[0].edges[edges::LEFT][0],
            sub(2, 0, CORNER_TO_CORNER, MIDPOINT_TO_CORNER)
        );
    }

    #[test]
    fn overlapping_neighbors_break_the_edge_for_everyone() {
        // B covers A's whole right edge; C, overlapping B, claims its upper half as well.
        let grids = [
            square(2, 0.0, 0.0, 64.0, 0),
            square(2, 64.0, 0.0, 64.0, 0),
            square(2, 64.0, 32.0, 32.0, 0),
        ];
        let n = find_neighbors(&grids);
        // Vertices on A's upper half map to C but come back from B's side wrongly, so the
        // edge is unlinked, and then B's and C's edges no longer map back either.
        assert!(n[0].edges[edges::RIGHT].iter().all(|s| !is_set(s)));
        assert!(n[1].edges[edges::LEFT].iter().all(|s| !is_set(s)));
        assert!(n[2].edges[edges::LEFT].iter().all(|s| !is_set(s)));
    }

    #[test]
    fn corner_only_neighbors_in_index_order() {
        // Four quads around (64, 64); 0 and 2, 1 and 3 touch only there.
        let grids = [
            square(2, 0.0, 0.0, 64.0, 0),
            square(2, 64.0, 0.0, 64.0, 0),
            square(2, 64.0, 64.0, 64.0, 0),
            square(2, 0.0, 64.0, 64.0, 0),
            // A fifth that touches quad 2 only at (128, 128).
            square(2, 128.0, 128.0, 64.0, 0),
        ];
        let n = find_neighbors(&grids);
        assert_eq!(n[0].corner_list(2), &[2]);
        assert_eq!(n[2].corner_list(0), &[0]);
        assert_eq!(n[1].corner_list(1), &[3]);
        assert_eq!(n[3].corner_list(3), &[1]);
        assert_eq!(n[2].corner_list(2), &[4]);
        assert_eq!(n[4].corner_list(0), &[2]);
        assert!(n[0].corner_list(0).is_empty());
    }

    #[test]
    fn corners_compare_displaced_vertices() {
        // Same base corner, but one displacement lifts it: no corner neighbour.
        let a = square(2, 0.0, 0.0, 64.0, 0);
        let mut field = vec![(Vec3::Z, 0.0); vert_count(2)];
        field[0] = (Vec3::Z, 1.0);
        let b = DispGrid::new(2, square(2, 64.0, 64.0, 64.0, 0).corners, &field);
        let n = find_neighbors(&[a, b]);
        assert!(n[0].corner_list(2).is_empty());
    }

    #[test]
    fn many_displacements_are_quick() {
        let grids: Vec<DispGrid> = (0..900)
            .map(|i| square(3, (i % 30) as f32 * 64.0, (i / 30) as f32 * 64.0, 64.0, i % 4))
            .collect();
        let start = std::time::Instant::now();
        let n = find_neighbors(&grids);
        let took = start.elapsed();
        // An inner quad has four edge neighbours and four corner neighbours.
        let inner = &n[31];
        assert!(inner.edges.iter().all(|e| is_set(&e[0])));
        assert_eq!((0..4).map(|c| inner.corner_list(c).len()).sum::<usize>(), 4);
        assert!(took.as_millis() < 100, "{took:?}");
    }
}
