//! Connections between areas (Valve's `ConnectGeneratedAreas`), read off the sample links: a
//! node of area A linked in direction d to a node of area B connects A to B in d. An edge node
//! that no area covers (a ledge) passes the link on to the node beyond it, which gives the
//! one-way connections down to the floor below.

use crate::areas::Area;
use crate::nodes::{Graph, NodeId};

/// Per area, the areas it connects to in each direction (sorted, no duplicates, not itself).
pub fn connect(areas: &[Area], graph: &Graph) -> Vec<[Vec<u32>; 4]> {
    areas
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let mut dirs: [Vec<u32>; 4] = Default::default();
            for &n in &a.nodes {
                for (d, list) in dirs.iter_mut().enumerate() {
                    list.extend(neighbour_area(graph, n, d).filter(|&b| b != i as u32));
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

/// The area reached from node `n` in `dir`: the linked node's, or past an uncovered edge node.
fn neighbour_area(graph: &Graph, n: NodeId, dir: usize) -> Option<u32> {
    let m = graph.next(n, dir)?;
    match graph.node(m).area {
        Some(b) => Some(b),
        None => graph.next(m, dir).and_then(|far| graph.node(far).area),
    }
}
