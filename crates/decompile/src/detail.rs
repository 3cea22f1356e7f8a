//! `func_detail` back from the world's detail brushes. The compiler moves each func_detail's
//! brushes behind the world's, entity after entity, so one entity's brushes are consecutive in
//! the brush lump; a mapper ties one connected structure into one entity, and Hammer numbers
//! the sides of brushes made together one after another. The brushes, in lump order, are cut
//! where their side ids (the BSP's face ids) jump, then into the fewest runs whose brushes all
//! hang together by touching boxes: neighbouring entities that do not touch stay apart even
//! where a later one touches both.

use std::ops::Range;

use crate::types::OutSolid;

/// How many brushes' worth of side ids may lie between brushes numbered together.
const ID_SLACK: u32 = 3;

/// Boxes closer than this touch.
const TOUCH: f64 = 0.01;

/// `solids` (in brush-lump order) cut where their side ids jump, then into the fewest
/// consecutive runs of touching boxes.
pub(crate) fn touching_groups(solids: Vec<OutSolid>) -> Vec<Vec<OutSolid>> {
    let mut starts = Vec::new();
    for stretch in numbered_stretches(&solids) {
        let first = stretch.start;
        starts.extend(run_starts(&solids[stretch]).into_iter().map(|s| first + s));
    }
    let mut starts = starts.into_iter().peekable();
    let mut groups: Vec<Vec<OutSolid>> = Vec::new();
    for (i, s) in solids.into_iter().enumerate() {
        if starts.next_if_eq(&i).is_some() {
            groups.push(Vec::new());
        }
        if let Some(g) = groups.last_mut() {
            g.push(s);
        }
    }
    groups
}

/// Stretches of brushes numbered together: each next brush's side ids lie within a few
/// brushes' worth of ids (`ID_SLACK` times its sides) of the ids the stretch holds so far
/// (Hammer numbers the brushes of one structure in a block, not always in list order).
/// Brushes whose sides show no id join either neighbour.
fn numbered_stretches(solids: &[OutSolid]) -> Vec<Range<usize>> {
    let mut stretches: Vec<Range<usize>> = Vec::new();
    let mut block: Option<(u32, u32)> = None;
    for (i, s) in solids.iter().enumerate() {
        let ids = s.hammer_ids();
        let slack = ID_SLACK * s.sides.len() as u32;
        let near = match (block, ids) {
            (Some((lo, hi)), Some((a, b))) => a <= hi.saturating_add(slack) && b + slack >= lo,
            _ => true,
        };
        match stretches.last_mut() {
            Some(run) if near => run.end = i + 1,
            _ => {
                stretches.push(i..i + 1);
                block = None;
            }
        }
        block = match (block, ids) {
            (Some((lo, hi)), Some((a, b))) => Some((lo.min(a), hi.max(b))),
            (block, ids) => block.or(ids),
        };
    }
    stretches
}

/// Where each run begins: fewest runs, each connected (a shortest path over the cuts).
fn run_starts(solids: &[OutSolid]) -> Vec<usize> {
    let n = solids.len();
    let links = touching_pairs(solids);
    // best[j]: fewest runs covering the first j solids, and where the last run starts.
    let mut best: Vec<(usize, usize)> = vec![(usize::MAX, 0); n + 1];
    best[0] = (0, 0);
    for end in 1..=n {
        for (start, connected) in connected_suffixes(&links, end) {
            let runs = best[start].0.saturating_add(1);
            if connected && runs < best[end].0 {
                best[end] = (runs, start);
            }
        }
    }
    let mut starts = Vec::new();
    let mut end = n;
    while end > 0 {
        end = best[end].1;
        starts.push(end);
    }
    starts.reverse();
    starts
}

/// For each `start` below `end`, from `end - 1` down: whether solids `start..end` hang
/// together (union-find grown one solid at a time).
fn connected_suffixes(links: &[Vec<usize>], end: usize) -> Vec<(usize, bool)> {
    let mut parent: Vec<usize> = (0..end).collect();
    let mut parts = 0usize;
    let mut out = Vec::with_capacity(end);
    for start in (0..end).rev() {
        parts += 1;
        for &other in links[start].iter().filter(|&&o| o > start && o < end) {
            if union(&mut parent, start, other) {
                parts -= 1;
            }
        }
        out.push((start, parts == 1));
    }
    out
}

/// Each solid's touching neighbours (boxes swept along x).
fn touching_pairs(solids: &[OutSolid]) -> Vec<Vec<usize>> {
    let mut links = vec![Vec::new(); solids.len()];
    let mut order: Vec<usize> = (0..solids.len()).collect();
    order.sort_by(|&a, &b| solids[a].mins.x.total_cmp(&solids[b].mins.x));
    for (k, &a) in order.iter().enumerate() {
        for &b in &order[k + 1..] {
            if solids[b].mins.x > solids[a].maxs.x + TOUCH {
                break;
            }
            if solids[a].touches(&solids[b], TOUCH) {
                links[a].push(b);
                links[b].push(a);
            }
        }
    }
    links
}

fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// Joins the sets of `a` and `b`; whether they were apart.
fn union(parent: &mut [usize], a: usize, b: usize) -> bool {
    let (ra, rb) = (find(parent, a), find(parent, b));
    if ra != rb {
        parent[ra.max(rb)] = ra.min(rb);
    }
    ra != rb
}

#[cfg(test)]
mod tests {
    use super::*;
    use srcmap_geom::DVec3;

    fn cube(x: f64) -> OutSolid {
        OutSolid {
            id: 0,
            sides: Vec::new(),
            mins: DVec3::new(x, 0.0, 0.0),
            maxs: DVec3::new(x + 1.0, 1.0, 1.0),
        }
    }

    /// A cube whose one side has Hammer id `id`.
    fn numbered(x: f64, id: u32) -> OutSolid {
        let mut side = crate::types::OutSide::new(0, [[0.0; 3]; 3]);
        side.hammer_id = Some(id);
        OutSolid {
            sides: vec![side],
            ..cube(x)
        }
    }

    fn sizes(groups: &[Vec<OutSolid>]) -> Vec<usize> {
        groups.iter().map(Vec::len).collect()
    }

    #[test]
    fn consecutive_touching_brushes_are_one_entity() {
        // Two rows of touching cubes, apart: two entities.
        let solids = [0.0, 1.0, 2.0, 10.0, 11.0].map(cube).to_vec();
        assert_eq!(sizes(&touching_groups(solids)), vec![3, 2]);
    }

    #[test]
    fn an_entity_listed_in_any_order_still_hangs_together() {
        // 0 and 2 touch only through 1, listed last: still one run.
        let solids = [0.0, 2.0, 1.0].map(cube).to_vec();
        assert_eq!(sizes(&touching_groups(solids)), vec![3]);
    }

    #[test]
    fn a_later_brush_touching_an_earlier_run_does_not_join_it_across_another() {
        // 0..1 touch, then a cube far away, then one touching the first run: the far cube
        // cuts the lump, so three runs (touching alone would give two groups).
        let solids = [0.0, 1.0, 20.0, 2.0].map(cube).to_vec();
        assert_eq!(sizes(&touching_groups(solids)), vec![2, 1, 1]);
    }

    #[test]
    fn touching_entities_numbered_apart_stay_apart() {
        // Four touching cubes, the third's side id far from the second's: two entities.
        let solids = vec![
            numbered(0.0, 10),
            numbered(1.0, 11),
            numbered(2.0, 500),
            numbered(3.0, 501),
        ];
        assert_eq!(sizes(&touching_groups(solids)), vec![2, 2]);
    }
}
