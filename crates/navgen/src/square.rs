//! Squaring up (Valve's `SquareUpAreas`): an area more than 3.01 times as long as it is wide is
//! halved across its long side on a grid line, again and again, until every piece is roughly
//! square or one cell across.

use crate::areas::Area;
use crate::nodes::{Graph, STEP};

const MAX_ASPECT: f32 = 3.01;

/// Splits the long thin areas; the pieces take the nodes on their side of each cut.
pub fn square_up(areas: &mut Vec<Area>, graph: &Graph) {
    let mut i = 0;
    while i < areas.len() {
        let size = [
            areas[i].max[0] - areas[i].min[0],
            areas[i].max[1] - areas[i].min[1],
        ];
        let axis = if size[0] > size[1] { 0 } else { 1 };
        match split(&areas[i], axis, graph) {
            Some((alpha, beta)) => {
                areas[i] = alpha;
                areas.push(beta);
            }
            None => i += 1,
        }
    }
}

fn roughly_square(a: &Area) -> bool {
    let aspect = (a.max[0] - a.min[0]) / (a.max[1] - a.min[1]).max(1e-6);
    aspect > 1.0 / MAX_ASPECT && aspect < MAX_ASPECT
}

/// The two halves of `a` cut across `axis` at the grid line nearest its middle, or `None`
/// when it is square enough or too small to cut.
fn split(a: &Area, axis: usize, graph: &Graph) -> Option<(Area, Area)> {
    if roughly_square(a) {
        return None;
    }
    split_at(
        a,
        axis,
        (((a.min[axis] + a.max[axis]) / 2.0) / STEP).round() * STEP,
        graph,
    )
}

/// The two pieces of `a` on either side of `cut` across `axis` (x 0, y 1), lower first, as
/// the game's `SplitEdit` makes them; `None` when the cut is not inside it.
pub fn split_at(a: &Area, axis: usize, cut: f32, graph: &Graph) -> Option<(Area, Area)> {
    if cut <= a.min[axis] + 0.1 || cut >= a.max[axis] - 0.1 {
        return None;
    }
    let (first, second): (Vec<u32>, Vec<u32>) = a
        .nodes
        .iter()
        .partition(|&&n| graph.node(n).pos[axis] < cut - 0.1);
    let (mut alpha, mut beta) = (a.clone(), a.clone());
    (alpha.nodes, beta.nodes) = (first, second);
    alpha.max[axis] = cut;
    beta.min[axis] = cut;
    // The pieces are listed anew (`SplitEdit` adds them to the grid), after every other area.
    for piece in [&mut alpha, &mut beta] {
        piece.listing.min = piece.min;
        piece.listing.max = piece.max;
        piece.listing.order = u32::MAX;
    }
    // Corner order NW, NE, SE, SW: the cut edge's corners take the heights along the cut.
    let (near, far) = if axis == 0 {
        ([1, 2], [0, 3])
    } else {
        ([3, 2], [0, 1])
    };
    for (n, f) in near.into_iter().zip(far) {
        let (x, y) = corner_xy(&alpha, n);
        alpha.z[n] = a.z_at(x, y);
        beta.z[f] = alpha.z[n];
    }
    Some((alpha, beta))
}

fn corner_xy(a: &Area, corner: usize) -> (f32, f32) {
    match corner {
        0 => (a.min[0], a.min[1]),
        1 => (a.max[0], a.min[1]),
        2 => (a.max[0], a.max[1]),
        _ => (a.min[0], a.max[1]),
    }
}
