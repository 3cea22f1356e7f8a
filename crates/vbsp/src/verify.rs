//! Checks of the invariants each pass leaves for the next, run between passes in debug
//! builds, tests and with `--verify` ([`srcmap_stage::verify_enabled`]). Each returns the
//! first violation found, in words.

use srcmap_geom::PlaneSet;

use crate::brush::Brush;
use crate::faces::Face;
use crate::portals::Portals;
use crate::texinfo::Texinfos;
use crate::tree::{NodeId, Tree};
use crate::types::Clusters;

/// How far a face's points may lie off its plane, or outside its own edges, in units.
const FACE_EPSILON: f64 = 0.1;

/// Brushes: sides with planes and texinfos in range, bounds not empty.
pub fn brushes(brushes: &[Brush], planes: &PlaneSet, tex: &Texinfos) -> Result<(), String> {
    for (bi, b) in brushes.iter().enumerate() {
        if b.sides.is_empty() {
            return Err(format!("brush {bi} has no sides"));
        }
        if b.bounds.is_empty() {
            return Err(format!("brush {bi} has empty bounds"));
        }
        for (si, s) in b.sides.iter().enumerate() {
            if s.plane.0 as usize >= planes.len() {
                return Err(format!("brush {bi} side {si}: plane {} out of range", s.plane.0));
            }
            if s.texinfo.idx() >= tex.list.len() {
                return Err(format!(
                    "brush {bi} side {si}: texinfo {} out of range",
                    s.texinfo
                ));
            }
        }
    }
    Ok(())
}

/// A tree: [`Tree::verify`]'s links, children and planes in range, and every leaf of the
/// arena (but the outside) reachable from the head.
pub fn tree(tree: &Tree, planes: &PlaneSet, brush_count: usize) -> Result<(), String> {
    let n = tree.nodes.len();
    if tree.head.idx() >= n || tree.outside.idx() >= n {
        return Err(format!(
            "head {} or outside {} out of {n} nodes",
            tree.head.0, tree.outside.0
        ));
    }
    for (i, node) in tree.nodes.iter().enumerate() {
        node_indices(i, node, n, planes.len(), brush_count)?;
    }
    tree.verify().map_err(|e| e.0)?;
    let reached = reached_from_head(tree);
    match tree.leaves().find(|l| !reached[l.idx()]) {
        Some(l) => Err(format!("leaf {} is not reachable from the head", l.0)),
        None => Ok(()),
    }
}

/// A node's plane and children, or a leaf's brushes, are in range (of `nodes` nodes,
/// `planes` planes, `brushes` brushes).
fn node_indices(
    i: usize,
    node: &crate::tree::Node,
    nodes: usize,
    planes: usize,
    brushes: usize,
) -> Result<(), String> {
    match node.plane {
        Some(p) => {
            if p.0 as usize >= planes {
                return Err(format!("node {i}: plane {} out of range", p.0));
            }
            if let Some(c) = node.children.iter().find(|c| c.idx() >= nodes) {
                return Err(format!("node {i}: child {} out of range", c.0));
            }
        }
        None => {
            if let Some(b) = node.brushes.iter().find(|b| b.idx() >= brushes) {
                return Err(format!("leaf {i}: brush {b} out of range"));
            }
        }
    }
    Ok(())
}

/// Which nodes the head reaches.
fn reached_from_head(tree: &Tree) -> Vec<bool> {
    let mut reached = vec![false; tree.nodes.len()];
    let mut stack = vec![tree.head];
    while let Some(id) = stack.pop() {
        reached[id.idx()] = true;
        let node = tree.node(id);
        if !node.is_leaf() {
            stack.extend(node.children);
        }
    }
    reached
}

/// Portals: each live one joins two different leaves, is on both leaves' lists, and has a
/// polygon; each leaf's list names live portals that touch it.
pub fn portals(tree: &Tree, portals: &Portals) -> Result<(), String> {
    let n = tree.nodes.len();
    for (pi, p) in portals.iter() {
        let [a, b] = p.nodes;
        if a.idx() >= n || b.idx() >= n {
            return Err(format!("portal {pi}: node out of range"));
        }
        if a == b {
            return Err(format!("portal {pi} has node {} on both sides", a.0));
        }
        for side in [a, b] {
            let node = tree.node(side);
            if !node.is_leaf() {
                return Err(format!("portal {pi}: node {} is not a leaf", side.0));
            }
            if !node.portals.contains(&pi) {
                return Err(format!("portal {pi} is missing from leaf {}'s list", side.0));
            }
        }
        if p.winding.len() < 3 {
            return Err(format!("portal {pi} has {} points", p.winding.len()));
        }
    }
    leaf_portal_lists(tree, portals)
}

/// Each node's portal list names portals that exist and, when live, touch it.
fn leaf_portal_lists(tree: &Tree, portals: &Portals) -> Result<(), String> {
    for (i, node) in tree.nodes.iter().enumerate() {
        for &pi in &node.portals {
            let Some(p) = portals.portals.get(pi as usize) else {
                return Err(format!("node {i}: portal {pi} out of range"));
            };
            if portals.alive[pi as usize] && !p.nodes.contains(&NodeId(i as u32)) {
                return Err(format!("node {i} lists portal {pi}, which does not touch it"));
            }
        }
    }
    Ok(())
}

/// Faces: at least three points, convex, on their plane; plane, texinfo, node and leaves
/// in range.
pub fn faces(faces: &[Face], planes: &PlaneSet, tex: &Texinfos, tree: &Tree) -> Result<(), String> {
    for (fi, f) in faces.iter().enumerate() {
        face_indices(fi, f, planes, tex, tree)?;
        face_shape(fi, f, planes, tree)?;
    }
    Ok(())
}

/// A face's plane, texinfo, node and leaves are in range.
fn face_indices(fi: usize, f: &Face, planes: &PlaneSet, tex: &Texinfos, tree: &Tree) -> Result<(), String> {
    if f.plane.0 as usize >= planes.len() {
        return Err(format!("face {fi}: plane {} out of range", f.plane.0));
    }
    if f.texinfo.idx() >= tex.list.len() {
        return Err(format!("face {fi}: texinfo {} out of range", f.texinfo));
    }
    if let Some(node) = f.node
        && node.idx() >= tree.nodes.len()
    {
        return Err(format!("face {fi}: node {} out of range", node.0));
    }
    if let Some(l) = f.leaves.iter().find(|l| l.idx() >= tree.nodes.len()) {
        return Err(format!("face {fi}: leaf {} out of range", l.0));
    }
    Ok(())
}

/// A face has three points or more, lies on its plane and is convex.
fn face_shape(fi: usize, f: &Face, planes: &PlaneSet, tree: &Tree) -> Result<(), String> {
    let w = &f.winding;
    if w.len() < 3 {
        return Err(format!("face {fi} has {} points", w.len()));
    }
    // A face lies on its node's plane (a brush model's face is written on the plane of
    // the side it shows, which may differ a little); a detail face on its own.
    let on = match f.node {
        Some(node) => tree.node(node).plane.unwrap_or(f.plane),
        None => f.plane,
    };
    let plane = planes.get(on);
    if let Some(p) = w.points.iter().find(|&&p| plane.distance(p).abs() > FACE_EPSILON) {
        return Err(format!(
            "face {fi}: point {p} is {:.3} off its plane {}",
            plane.distance(*p),
            on.0
        ));
    }
    // Convex on the plane its points span, either way round. Points that span no plane
    // (a sliver the merge left) are a degenerate but convex polygon.
    if let Some(own) = w.plane()
        && !w.is_valid_on(&own, FACE_EPSILON)
    {
        return Err(format!("face {fi} is not convex: {:?}", w.points));
    }
    Ok(())
}

/// Clusters: one for every open leaf reachable from the head, all below the count.
pub fn clusters(tree: &Tree, clusters: &Clusters) -> Result<(), String> {
    if clusters.of_node.len() != tree.nodes.len() {
        return Err(format!(
            "{} cluster numbers for {} nodes",
            clusters.of_node.len(),
            tree.nodes.len()
        ));
    }
    let count = clusters.count as i32;
    match clusters
        .of_node
        .iter()
        .enumerate()
        .find(|(_, c)| **c >= count || **c < -1)
    {
        Some((n, c)) => Err(format!("node {n}: cluster {c} of {count}")),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use srcmap_geom::{Bounds, DVec3, Plane, Winding};

    use super::*;
    use crate::portals::Portal;
    use crate::tree::Node;

    fn node(plane: Option<srcmap_geom::PlaneId>, children: [u32; 2], parent: Option<u32>) -> Node {
        Node {
            plane,
            children: children.map(NodeId),
            parent: parent.map(NodeId),
            bounds: Bounds::EMPTY,
            contents: 0,
            brushes: Vec::new(),
            portals: Vec::new(),
            occupied: 0,
            occupant: None,
        }
    }

    /// A node on x = 0 with two leaves, and the outside leaf.
    fn two_leaves() -> (Tree, PlaneSet) {
        let mut planes = PlaneSet::new();
        let x = planes.find_or_insert(Plane::new(DVec3::X, 0.0)).unwrap();
        let tree = Tree {
            nodes: vec![
                node(Some(x), [1, 2], None),
                node(None, [0, 0], Some(0)),
                node(None, [0, 0], Some(0)),
                node(None, [0, 0], None),
            ],
            head: NodeId(0),
            outside: NodeId(3),
            bounds: Bounds::EMPTY,
        };
        (tree, planes)
    }

    fn square(z: f64) -> Winding {
        Winding::new(vec![
            DVec3::new(0.0, -1.0, z - 1.0),
            DVec3::new(0.0, 1.0, z - 1.0),
            DVec3::new(0.0, 1.0, z + 1.0),
            DVec3::new(0.0, -1.0, z + 1.0),
        ])
    }

    #[test]
    fn tree_links_and_reachability() {
        let (mut tree, planes) = two_leaves();
        assert_eq!(super::tree(&tree, &planes, 0), Ok(()));
        tree.nodes[2].parent = None;
        assert!(
            super::tree(&tree, &planes, 0)
                .unwrap_err()
                .contains("wrong parent")
        );
        tree.nodes[2].parent = Some(NodeId(0));
        tree.nodes.push(node(None, [0, 0], None));
        assert!(
            super::tree(&tree, &planes, 0)
                .unwrap_err()
                .contains("not reachable")
        );
        tree.nodes.pop();
        tree.nodes[1].brushes.push(crate::ids::BrushId(3));
        assert!(
            super::tree(&tree, &planes, 3)
                .unwrap_err()
                .contains("out of range")
        );
    }

    #[test]
    fn portals_are_two_sided() {
        let (mut tree, planes) = two_leaves();
        let mut list = Portals::default();
        list.portals.push(Portal {
            plane: *planes.get(srcmap_geom::PlaneId(0)),
            on_node: Some(NodeId(0)),
            nodes: [NodeId(1), NodeId(2)],
            winding: square(0.0),
            side: None,
        });
        list.alive.push(true);
        tree.nodes[1].portals.push(0);
        assert!(portals(&tree, &list).unwrap_err().contains("missing from leaf 2"));
        tree.nodes[2].portals.push(0);
        assert_eq!(portals(&tree, &list), Ok(()));
        list.portals[0].nodes[1] = NodeId(1);
        assert!(portals(&tree, &list).unwrap_err().contains("on both sides"));
    }

    #[test]
    fn faces_are_convex_polygons_on_their_plane() {
        let (tree, planes) = two_leaves();
        let mut tex = Texinfos::new();
        let texinfo = tex.add(srcmap_bsp::TexInfo::default());
        let face = |winding: Winding| Face {
            plane: srcmap_geom::PlaneId(0),
            texinfo,
            winding,
            node: Some(NodeId(0)),
            contents: 0,
            side: None,
            hammer_id: 0,
            leaves: vec![NodeId(1)],
            water_underside: false,
        };
        assert_eq!(faces(&[face(square(0.0))], &planes, &tex, &tree), Ok(()));
        let mut dented = square(0.0);
        dented.points.insert(2, DVec3::new(0.0, 0.0, 0.0));
        assert!(
            faces(&[face(dented)], &planes, &tex, &tree)
                .unwrap_err()
                .contains("not convex")
        );
        let mut off = square(0.0);
        off.points[0].x = 1.0;
        assert!(
            faces(&[face(off)], &planes, &tex, &tree)
                .unwrap_err()
                .contains("off its plane")
        );
        let two = Winding::new(square(0.0).points[..2].to_vec());
        assert!(
            faces(&[face(two)], &planes, &tex, &tree)
                .unwrap_err()
                .contains("2 points")
        );
    }
}
