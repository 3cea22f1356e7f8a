//! `func_detail` back from the world's detail brushes: one entity per group of brushes that
//! touch (Hammer users tie a detail structure into one entity; brushes apart are rarely one).

use crate::types::OutSolid;

/// Boxes closer than this touch.
const TOUCH: f64 = 0.01;

/// `solids` split into groups of touching boxes (each group in input order).
pub(crate) fn touching_groups(solids: Vec<OutSolid>) -> Vec<Vec<OutSolid>> {
    let mut parent: Vec<usize> = (0..solids.len()).collect();
    // Sweep along x: only boxes whose x ranges overlap are compared.
    let mut order: Vec<usize> = (0..solids.len()).collect();
    order.sort_by(|&a, &b| solids[a].mins.x.total_cmp(&solids[b].mins.x));
    for (k, &a) in order.iter().enumerate() {
        for &b in &order[k + 1..] {
            if solids[b].mins.x > solids[a].maxs.x + TOUCH {
                break;
            }
            if solids[a].touches(&solids[b], TOUCH) {
                union(&mut parent, a, b);
            }
        }
    }
    let mut groups: Vec<Vec<OutSolid>> = Vec::new();
    let mut group_of = vec![usize::MAX; solids.len()];
    for (i, s) in solids.into_iter().enumerate() {
        let root = find(&mut parent, i);
        if group_of[root] == usize::MAX {
            group_of[root] = groups.len();
            groups.push(Vec::new());
        }
        groups[group_of[root]].push(s);
    }
    groups
}

fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

fn union(parent: &mut [usize], a: usize, b: usize) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    if ra != rb {
        parent[ra.max(rb)] = ra.min(rb);
    }
}
