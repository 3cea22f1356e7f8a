//! Connections between areas (Valve's `ConnectGeneratedAreas`): a node of area A linked both
//! ways in direction d to a node of area B connects A to B in d (an edge node no area covers
//! passes the link on to the node beyond it). Where no such link leaves an area's edge, a
//! one-way connection goes to the area a bot can jump down to (`findJumpDownArea`).

use glam::Vec3;

use crate::areas::Area;
use crate::nodes::{Graph, NodeId, STEP};
use crate::sample::{HALF_HUMAN_HEIGHT, NAV_HULL, Space};
use crate::search::{facing, first_area_in_direction};

/// An area's connections: the areas it leads to, per direction (N, E, S, W).
pub type Links = [Vec<u32>; 4];

/// How far out a jump-down area is searched for.
const JUMP_DOWN_RANGE: f32 = 4.0 * STEP;

/// Per area, the areas it connects to in each direction (sorted, no duplicates, not itself).
pub fn connect(space: &Space<'_>, areas: &[Area], graph: &Graph) -> Vec<[Vec<u32>; 4]> {
    (0..areas.len())
        .map(|i| {
            let mut dirs: [Vec<u32>; 4] = Default::default();
            for &n in &areas[i].nodes {
                for (d, list) in dirs.iter_mut().enumerate() {
                    let found = match linked_area(graph, n, d) {
                        Some(b) => Some(b),
                        None => jump_down_area(space, areas, graph.node(n).pos, d),
                    };
                    list.extend(found.filter(|&b| b != i as u32));
                }
            }
            for list in &mut dirs {
                list.sort_unstable();
                list.dedup();
            }
            dirs
        })
        .collect()
}

/// The area reached from node `n` in `dir` over links both ways: the next node's, or the one
/// past an uncovered edge node.
fn linked_area(graph: &Graph, n: NodeId, dir: usize) -> Option<u32> {
    let m = graph.bi_linked(n, dir)?;
    match graph.node(m).area {
        Some(b) => Some(b),
        None => graph.bi_linked(m, dir).and_then(|far| graph.node(far).area),
    }
}

/// The area below the ledge at `from` in `dir` that a bot can drop to: more than a crouch-jump
/// and less than a fatal fall below, with a way out over the edge. (The game searches before
/// merging, when its grid lists every area fully: no grid here.)
fn jump_down_area(space: &Space<'_>, areas: &[Area], from: Vec3, dir: usize) -> Option<u32> {
    let start = from + Vec3::Z * HALF_HUMAN_HEIGHT + facing(dir) * (STEP / 2.0);
    let h = space.heights;
    let (area, to) = first_area_in_direction(
        space,
        (areas, None),
        &NAV_HULL,
        (start, dir),
        JUMP_DOWN_RANGE,
        h.death_drop,
    )?;
    let drop = from.z - to.z;
    (drop > h.jump_crouch && drop < h.death_drop && way_out(space, from, to)).then_some(area)
}

/// Some height up to the climb height from which the column reaches over `to` (`testJumpDown`).
fn way_out(space: &Space<'_>, from: Vec3, to: Vec3) -> bool {
    let mut up = 1.0;
    while up <= space.heights.climb_up {
        let rise = space.column(from, from + Vec3::Z * up);
        if rise.fraction > 0.0 && !rise.start_solid {
            let z = rise.end.z - 0.5;
            let across = space.column(from.with_z(z), to.with_z(z));
            if across.fraction == 1.0 && !across.start_solid {
                return true;
            }
        }
        up += 1.0;
    }
    false
}
