//! Which model owns each brush. The BSP keeps no brush list per model: a model's brushes are
//! those its tree's leaves list, so each model's tree is walked.

use srcmap_bsp::Bsp;

/// For each brush, the first model whose tree reaches it (`None`: no model, as occluders).
pub(crate) fn brush_owners(bsp: &Bsp) -> Vec<Option<usize>> {
    let mut owners = vec![None; bsp.brushes.len()];
    let mut seen_nodes = vec![false; bsp.nodes.len()];
    for (model, m) in bsp.models.iter().enumerate() {
        for leaf in model_leaves(bsp, m.head_node, &mut seen_nodes) {
            claim_leaf_brushes(bsp, leaf, model, &mut owners);
        }
    }
    owners
}

/// The leaves under `head` (a node index, or `-1 - leaf`); nodes already walked (a hostile
/// tree shared or looping) are not walked again.
fn model_leaves(bsp: &Bsp, head: i32, seen: &mut [bool]) -> Vec<usize> {
    let mut leaves = Vec::new();
    let mut stack = vec![head];
    while let Some(child) = stack.pop() {
        if child < 0 {
            leaves.push((-1 - child) as usize);
            continue;
        }
        let n = child as usize;
        if n >= seen.len() || std::mem::replace(&mut seen[n], true) {
            continue;
        }
        stack.extend(bsp.nodes[n].children);
    }
    leaves
}

/// Gives the unowned brushes `leaf` lists to `model`.
fn claim_leaf_brushes(bsp: &Bsp, leaf: usize, model: usize, owners: &mut [Option<usize>]) {
    let Some(l) = bsp.leafs.get(leaf) else {
        return;
    };
    let first = l.first_leaf_brush as usize;
    let range = first..first.saturating_add(l.num_leaf_brushes as usize);
    for &b in bsp.leaf_brushes.get(range).unwrap_or(&[]) {
        if let Some(slot @ None) = owners.get_mut(b as usize) {
            *slot = Some(model);
        }
    }
}
