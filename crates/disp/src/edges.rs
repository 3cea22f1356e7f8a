//! The vocabulary of displacement neighbours — edges, spans, orientations — and the mapping
//! of a vertex on a shared edge into the displacement across it.
//!
//! Edges are numbered as in the BSP's `m_EdgeNeighbors`: edge `e` runs from corner `e` to
//! corner `e + 1`, so 0 is the left edge (x = 0), 1 the top (y = max), 2 the right
//! (x = max) and 3 the bottom (y = 0). Each edge has two slots: slot 0 for a neighbour
//! covering the whole edge or its lower half, slot 1 for one covering its upper half, "lower"
//! meaning towards smaller x or y whatever the edge's direction.

use crate::VertIndex;
use srcmap_bsp::records::DispSubNeighbor;

pub const LEFT: usize = 0;
pub const TOP: usize = 1;
pub const RIGHT: usize = 2;
pub const BOTTOM: usize = 3;

/// The neighbour covers the whole edge.
pub const CORNER_TO_CORNER: u8 = 0;
/// The neighbour covers the half of the edge at smaller x or y.
pub const CORNER_TO_MIDPOINT: u8 = 1;
/// The neighbour covers the half of the edge at larger x or y.
pub const MIDPOINT_TO_CORNER: u8 = 2;

/// `DispSubNeighbor::neighbor` of an empty slot.
pub const NO_NEIGHBOR: u32 = 0xFFFF;

/// An empty edge slot.
pub const EMPTY_SLOT: DispSubNeighbor = DispSubNeighbor {
    neighbor: NO_NEIGHBOR,
    orientation: 0,
    span: 0,
    neighbor_span: 0,
    pad: 0,
};

/// Whether a slot names a neighbour (Strata files mark empty slots with 0xFFFFFFFF).
pub fn is_set(sub: &DispSubNeighbor) -> bool {
    sub.neighbor < NO_NEIGHBOR
}

/// The coordinate that is constant along `edge`: 0 (x) for left and right, 1 (y) otherwise.
pub fn fixed_axis(edge: usize) -> usize {
    edge & 1
}

/// The coordinate that varies along `edge`.
pub fn free_axis(edge: usize) -> usize {
    1 - fixed_axis(edge)
}

pub(crate) fn coord(v: VertIndex, axis: usize) -> i32 {
    if axis == 0 { v.x } else { v.y }
}

pub(crate) fn set_coord(v: &mut VertIndex, axis: usize, value: i32) {
    if axis == 0 {
        v.x = value;
    } else {
        v.y = value;
    }
}

/// The counter-clockwise quarter turns that take our frame into the neighbour's, when our
/// edge `edge` lies on its edge `neighbor_edge` (opposite edges meet unrotated).
pub fn orientation(edge: usize, neighbor_edge: usize) -> u8 {
    ((neighbor_edge + 6 - edge) & 3) as u8
}

/// The neighbour's edge that our `edge` lies on, for a neighbour of `orientation`.
pub fn neighbor_edge(edge: usize, orientation: u8) -> usize {
    (edge + 2 + orientation as usize) & 3
}

/// How many powers finer the neighbour's vertices are along our edge than its own power
/// says: a neighbour twice our edge's length spaces its vertices twice as far apart (-1),
/// one covering half of our edge half as far (+1). Impossible pairs count 0.
pub fn power_shift(span: u8, neighbor_span: u8) -> i32 {
    match (span, neighbor_span) {
        (CORNER_TO_CORNER, CORNER_TO_MIDPOINT | MIDPOINT_TO_CORNER) => -1,
        (CORNER_TO_MIDPOINT | MIDPOINT_TO_CORNER, CORNER_TO_CORNER) => 1,
        _ => 0,
    }
}

/// Grid position of corner `corner` of a displacement of `power`.
pub fn corner_vert(power: u32, corner: usize) -> VertIndex {
    let m = 1 << power;
    [
        VertIndex::new(0, 0),
        VertIndex::new(0, m),
        VertIndex::new(m, m),
        VertIndex::new(m, 0),
    ][corner & 3]
}

pub fn is_corner(v: VertIndex, power: u32) -> bool {
    let m = 1 << power;
    (v.x == 0 || v.x == m) && (v.y == 0 || v.y == m)
}

/// The edge a boundary vertex lies on; a corner counts for the first of left, top, right,
/// bottom that holds it.
pub fn edge_of(v: VertIndex, power: u32) -> Option<usize> {
    let m = 1 << power;
    if v.x == 0 {
        Some(LEFT)
    } else if v.y == m {
        Some(TOP)
    } else if v.x == m {
        Some(RIGHT)
    } else if v.y == 0 {
        Some(BOTTOM)
    } else {
        None
    }
}

/// The end points of the part of `edge` that `span` covers, in the edge's direction
/// (corner `edge` towards corner `edge + 1`).
pub fn span_ends(power: u32, edge: usize, span: u8) -> (VertIndex, VertIndex) {
    let m = 1 << power;
    let mid = m / 2;
    let (low, high) = match span {
        CORNER_TO_MIDPOINT => (0, mid),
        MIDPOINT_TO_CORNER => (mid, m),
        _ => (0, m),
    };
    let mut start = corner_vert(power, edge);
    let mut end = corner_vert(power, edge + 1);
    let free = free_axis(edge);
    // The right and bottom edges run towards smaller coordinates.
    let descending = edge == RIGHT || edge == BOTTOM;
    set_coord(&mut start, free, if descending { high } else { low });
    set_coord(&mut end, free, if descending { low } else { high });
    (start, end)
}

/// Which slot of `edge` (holding `slots`) serves the boundary vertex `v`: `None` where no
/// neighbour does, or where `v` is the midpoint shared by two half-edge neighbours (it is a
/// corner of both, so always present).
pub fn slot_for(power: u32, edge: usize, slots: &[DispSubNeighbor; 2], v: VertIndex) -> Option<usize> {
    let mid = (1 << power) / 2;
    let along = coord(v, free_axis(edge));
    let slot = if along == mid {
        if slots[0].span != CORNER_TO_CORNER {
            return None;
        }
        0
    } else {
        usize::from(along > mid)
    };
    if is_set(&slots[slot]) {
        Some(slot)
    } else if slot == 1 && is_set(&slots[0]) && slots[0].span == CORNER_TO_CORNER {
        Some(0)
    } else {
        None
    }
}

/// The neighbour's grid position of our boundary vertex `v` on `edge`, through `sub`
/// (a neighbour of `neighbor_power`). Proportional along the two spans in 16.16 fixed point,
/// truncating, as the engine does.
pub fn into_neighbor(
    power: u32,
    edge: usize,
    sub: &DispSubNeighbor,
    neighbor_power: u32,
    v: VertIndex,
) -> VertIndex {
    let free = free_axis(edge);
    let (src_start, src_end) = span_ends(power, edge, sub.span);
    let nb_edge = neighbor_edge(edge, sub.orientation);
    // The shared edge runs the other way round the neighbour.
    let (dst_end, dst_start) = span_ends(neighbor_power, nb_edge, sub.neighbor_span);
    let run = coord(src_end, free) - coord(src_start, free);
    let fraction = (coord(v, free) - coord(src_start, free)) * 65536 / run;
    let nb_fixed = fixed_axis(nb_edge);
    let nb_free = 1 - nb_fixed;
    let mut out = VertIndex::default();
    set_coord(&mut out, nb_fixed, coord(dst_start, nb_fixed));
    let dst_run = coord(dst_end, nb_free) - coord(dst_start, nb_free);
    set_coord(
        &mut out,
        nb_free,
        coord(dst_start, nb_free) + dst_run * fraction / 65536,
    );
    out
}

/// A grid step turned by `orientation` counter-clockwise quarter turns.
pub fn rotate_step(orientation: u8, step: VertIndex) -> VertIndex {
    match orientation & 3 {
        0 => step,
        1 => VertIndex::new(step.y, -step.x),
        2 => VertIndex::new(-step.x, -step.y),
        _ => VertIndex::new(-step.y, step.x),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orientation_round_trips_through_the_neighbor_edge() {
        for edge in 0..4 {
            for nb in 0..4 {
                assert_eq!(neighbor_edge(edge, orientation(edge, nb)), nb);
            }
        }
        // Facing edges need no turn.
        assert_eq!(orientation(RIGHT, LEFT), 0);
        assert_eq!(orientation(LEFT, LEFT), 2);
    }

    #[test]
    fn spans_follow_the_edge_direction() {
        // Left edge runs up: its lower half starts at the corner.
        assert_eq!(
            span_ends(2, LEFT, CORNER_TO_MIDPOINT),
            (VertIndex::new(0, 0), VertIndex::new(0, 2))
        );
        // Right edge runs down: its lower half ends at the corner.
        assert_eq!(
            span_ends(2, RIGHT, CORNER_TO_MIDPOINT),
            (VertIndex::new(4, 2), VertIndex::new(4, 0))
        );
    }

    #[test]
    fn a_facing_neighbor_of_half_the_size_maps_every_other_vertex() {
        // Our right edge (power 3) holds the neighbour's whole left edge (power 2) on its
        // upper half.
        let sub = DispSubNeighbor {
            neighbor: 1,
            orientation: 0,
            span: MIDPOINT_TO_CORNER,
            neighbor_span: CORNER_TO_CORNER,
            pad: 0,
        };
        assert_eq!(
            into_neighbor(3, RIGHT, &sub, 2, VertIndex::new(8, 4)),
            VertIndex::new(0, 0)
        );
        assert_eq!(
            into_neighbor(3, RIGHT, &sub, 2, VertIndex::new(8, 6)),
            VertIndex::new(0, 2)
        );
        assert_eq!(
            into_neighbor(3, RIGHT, &sub, 2, VertIndex::new(8, 8)),
            VertIndex::new(0, 4)
        );
    }
}
