//! Areas under overhangs (SDK 2013's `SplitAreasUnderOverhangs`, read for behaviour): where an
//! area connects to one overlapping it in the plane at least a crouching player's height
//! above or below, the lower one is split along the upper one's edge, so the part in its
//! shadow becomes an area of its own (at least one sample wide: a thinner shadow is widened
//! to one sample when the area is more than two samples across, else left alone). Rounds of
//! splits, each followed by connecting the areas afresh, until no such pair is left.

use crate::areas::Area;
use crate::connect::Links;
use crate::nodes::{Graph, STEP, opposite};
use crate::sample::HUMAN_CROUCH_HEIGHT;
use crate::square::split_at;

/// No more rounds than this (each round splits at least one area).
const MAX_ROUNDS: usize = 16;

/// Splits the areas under overhangs; `connect` makes the links of the areas it is given.
pub fn split_under_overhangs(
    areas: &mut Vec<Area>,
    links: &mut Vec<Links>,
    graph: &mut Graph,
    connect: impl Fn(&[Area], &Graph) -> Vec<Links>,
) -> usize {
    let mut splits = 0;
    for _ in 0..MAX_ROUNDS {
        let cuts = cuts(areas, links);
        let mut done = vec![false; areas.len()];
        let mut split_now = 0;
        for (below, axis, at) in cuts {
            if std::mem::replace(&mut done[below], true) {
                continue;
            }
            if let Some((alpha, beta)) = split_at(&areas[below], axis, at, graph) {
                areas[below] = alpha;
                areas.push(beta);
                split_now += 1;
            }
        }
        if split_now == 0 {
            break;
        }
        splits += split_now;
        crate::merge::renumber(areas, graph);
        *links = connect(areas, graph);
    }
    splits
}

/// (area below, axis, coordinate) of each cut the connected overlapping pairs ask for.
fn cuts(areas: &[Area], links: &[Links]) -> Vec<(usize, usize, f32)> {
    let mut out = Vec::new();
    for (i, dirs) in links.iter().enumerate() {
        for (dir, list) in dirs.iter().enumerate() {
            for &j in list {
                out.extend(cut(areas, i, j as usize, dir));
            }
        }
    }
    out
}

/// The cut of the lower of `i` and `j` (connected from `i` in `dir`) along the upper's edge.
fn cut(areas: &[Area], i: usize, j: usize, dir: usize) -> Option<(usize, usize, f32)> {
    let (a, b) = (&areas[i], &areas[j]);
    if !overlapping(a, b) {
        return None;
    }
    let (alo, ahi, blo, bhi) = (low(a), high(a), low(b), high(b));
    let apart = alo > bhi + HUMAN_CROUCH_HEIGHT || blo > ahi + HUMAN_CROUCH_HEIGHT;
    if !apart {
        return None;
    }
    let (below, above, down) = if blo < alo {
        (j, i, dir)
    } else {
        (i, j, opposite(dir))
    };
    let (lo, up) = (&areas[below], &areas[above]);
    // Heading east or west from above to below the cut is an x coordinate, else a y one.
    let axis = if down == 1 || down == 3 { 0 } else { 1 };
    let edge = lo.max[axis] - lo.min[axis];
    let (mut at, len) = if up.max[axis] < lo.max[axis] {
        (up.max[axis], up.max[axis] - lo.min[axis])
    } else {
        (up.min[axis], lo.max[axis] - up.min[axis])
    };
    if len < STEP {
        if len < STEP * 0.3 || edge <= STEP * 2.0 {
            return None;
        }
        let away = if down == 0 || down == 3 { -1.0 } else { 1.0 };
        at += (STEP - len) * away;
    }
    Some((below, axis, at))
}

/// Whether two areas overlap in the plane (more than along an edge).
fn overlapping(a: &Area, b: &Area) -> bool {
    b.min[0] < a.max[0] && b.max[0] > a.min[0] && b.min[1] < a.max[1] && b.max[1] > a.min[1]
}

fn low(a: &Area) -> f32 {
    a.z.iter().copied().fold(f32::INFINITY, f32::min)
}

fn high(a: &Area) -> f32 {
    a.z.iter().copied().fold(f32::NEG_INFINITY, f32::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area(min: [f32; 2], max: [f32; 2], z: f32) -> Area {
        Area {
            z: [z; 4],
            ..Area::flat(min, max, 0)
        }
    }

    #[test]
    fn a_floor_under_a_ledge_is_cut_along_the_ledges_edge() {
        // A ledge 100 up over the west half of a floor, dropping east onto it.
        let areas = [
            area([0.0, 0.0], [50.0, 100.0], 100.0),
            area([0.0, 0.0], [100.0, 100.0], 0.0),
        ];
        assert_eq!(cut(&areas, 0, 1, 1), Some((1, 0, 50.0)));
        assert_eq!(
            cut(&areas, 1, 0, 3),
            Some((1, 0, 50.0)),
            "the same cut seen from below"
        );
        // Under a crouching player's height apart: no overhang.
        let low = [area([0.0, 0.0], [50.0, 100.0], 50.0), areas[1].clone()];
        assert_eq!(cut(&low, 0, 1, 1), None);
        // Side by side: nothing overlaps.
        let apart = [
            area([0.0, 0.0], [50.0, 100.0], 100.0),
            area([50.0, 0.0], [100.0, 100.0], 0.0),
        ];
        assert_eq!(cut(&apart, 0, 1, 1), None);
    }
}
