//! `func_viscluster` back where the tree proves one. vbsp gives every empty portal leaf its
//! own cluster (detail only splits a portal leaf below it, into leaves of the same cluster),
//! except the leaves a `func_viscluster` covers, which share one, and the 3D skybox's
//! (`NumberLeafs`). So a cluster is a viscluster's when the smallest subtree holding its
//! leaves also holds a leaf of another cluster: no portal leaf's subtree does. Water and
//! other non-empty leaves are left out, and so is the skybox's cluster (the `sky_camera`'s
//! leaf). Each merged leaf comes back as one brush of the entity: its own volume, bounded
//! by the planes on its path from the root and its box.

use srcmap_geom::{DVec3, Plane, polyhedron_faces};

use crate::brushes::{bounds, untextured};
use crate::context::Ctx;
use crate::points::plane_points;
use crate::types::{OutEntity, OutSide, OutSolid, dvec};

/// The world tree as parents: `parent[node]` and `leaf_parent[leaf]`, with which child.
struct Tree {
    node_parent: Vec<Option<(usize, usize)>>,
    leaf_parent: Vec<Option<(usize, usize)>>,
}

impl Ctx<'_> {
    /// One `func_viscluster` per cluster the tree proves merged; `sky_camera` is where the 3D
    /// skybox's camera stands.
    pub fn visclusters(&mut self, sky_camera: Option<DVec3>) -> Vec<OutEntity> {
        let Some(tree) = self.world_tree() else {
            return Vec::new();
        };
        let sky_leaf = sky_camera.and_then(|p| self.leaf_at(p));
        let skip = sky_leaf.map(|l| self.bsp.leafs[l].cluster);
        let mut out = Vec::new();
        for (cluster, leaves) in self.empty_clusters(&tree) {
            if Some(cluster) != skip && self.merged(&tree, cluster, &leaves) {
                let mut e = OutEntity::new(self.ids.next(), "func_viscluster");
                e.solids = leaves.iter().filter_map(|&l| self.leaf_solid(&tree, l)).collect();
                out.push(e);
            }
        }
        out
    }

    /// Parents of the world model's nodes and leaves (`None` when the tree is damaged).
    fn world_tree(&self) -> Option<Tree> {
        let bsp = self.bsp;
        let head = usize::try_from(bsp.models.first()?.head_node).ok()?;
        let mut tree = Tree {
            node_parent: vec![None; bsp.nodes.len()],
            leaf_parent: vec![None; bsp.leafs.len()],
        };
        let mut stack = vec![head];
        let mut seen = vec![false; bsp.nodes.len()];
        while let Some(n) = stack.pop() {
            *seen.get_mut(n)? = true;
            for (side, &child) in bsp.nodes[n].children.iter().enumerate() {
                match usize::try_from(child) {
                    Ok(c) if !*seen.get(c)? => {
                        tree.node_parent[c] = Some((n, side));
                        stack.push(c);
                    }
                    Ok(_) => return None,
                    Err(_) => *tree.leaf_parent.get_mut((-1 - child) as usize)? = Some((n, side)),
                }
            }
        }
        Some(tree)
    }

    /// The clusters of two leaves or more, all of them in the world tree and empty, each
    /// with its leaves.
    fn empty_clusters(&self, tree: &Tree) -> Vec<(i32, Vec<usize>)> {
        let mut by_cluster: std::collections::BTreeMap<i32, Vec<usize>> = Default::default();
        for (l, leaf) in self.bsp.leafs.iter().enumerate() {
            if leaf.cluster >= 0 && tree.leaf_parent[l].is_some() {
                by_cluster.entry(leaf.cluster).or_default().push(l);
            }
        }
        let empty = |ls: &Vec<usize>| ls.iter().all(|&l| self.bsp.leafs[l].contents == 0);
        by_cluster
            .into_iter()
            .filter(|(_, ls)| ls.len() >= 2 && empty(ls))
            .collect()
    }

    /// The smallest subtree holding every leaf of `cluster` holds one of another cluster.
    fn merged(&self, tree: &Tree, cluster: i32, leaves: &[usize]) -> bool {
        let Some(top) = common_ancestor(tree, leaves) else {
            return false;
        };
        let mut stack = vec![top];
        while let Some(n) = stack.pop() {
            for &child in &self.bsp.nodes[n].children {
                match usize::try_from(child) {
                    Ok(c) => stack.push(c),
                    Err(_) => {
                        let other = self.bsp.leafs[(-1 - child) as usize].cluster;
                        if other >= 0 && other != cluster {
                            return true;
                        }
                    }
                }
            }
        }
        false
    }

    /// Leaf `l`'s bounding planes, facing out of it: its box's and those on its path.
    fn leaf_planes(&self, tree: &Tree, l: usize) -> Option<Vec<Plane>> {
        let leaf = &self.bsp.leafs[l];
        let mut planes = box_planes(dvec(leaf.mins), dvec(leaf.maxs));
        let mut at = tree.leaf_parent[l];
        while let Some((n, side)) = at {
            let p = self.bsp.planes.get(self.bsp.nodes[n].plane as usize)?;
            let plane = Plane::new(dvec(p.normal), p.dist as f64);
            // The front child lies in front of the plane: its outward side is the back.
            planes.push(if side == 0 { plane.flipped() } else { plane });
            at = tree.node_parent[n];
        }
        Some(planes)
    }

    /// Leaf `l`'s volume as a tool brush.
    fn leaf_solid(&mut self, tree: &Tree, l: usize) -> Option<OutSolid> {
        let planes = self.leaf_planes(tree, l)?;
        let faces: Vec<_> = planes.iter().zip(polyhedron_faces(&planes)).collect();
        let sides: Vec<OutSide> = (faces.iter())
            .filter_map(|(plane, w)| Some((*plane, w.as_ref()?)))
            .map(|(plane, w)| {
                let mut side = OutSide::new(self.ids.next(), plane_points(plane, w));
                untextured(&mut side, plane.normal, "tools/toolstrigger");
                side
            })
            .collect();
        let points = faces
            .iter()
            .filter_map(|(_, w)| w.as_ref())
            .flat_map(|w| w.points.iter());
        let (mins, maxs) = bounds(points, DVec3::ZERO);
        (sides.len() >= 4).then(|| OutSolid {
            id: self.ids.next(),
            sides,
            mins,
            maxs,
        })
    }

    /// The leaf of the world tree holding `point`.
    fn leaf_at(&self, point: DVec3) -> Option<usize> {
        let mut n = usize::try_from(self.bsp.models.first()?.head_node).ok()?;
        for _ in 0..self.bsp.nodes.len() {
            let node = self.bsp.nodes.get(n)?;
            let p = self.bsp.planes.get(node.plane as usize)?;
            let front = dvec(p.normal).dot(point) >= p.dist as f64;
            let child = node.children[usize::from(!front)];
            match usize::try_from(child) {
                Ok(c) => n = c,
                Err(_) => return Some((-1 - child) as usize),
            }
        }
        None
    }
}

/// The node every leaf of `leaves` lies below, the lowest such.
fn common_ancestor(tree: &Tree, leaves: &[usize]) -> Option<usize> {
    let path = |l: usize| {
        let mut out = Vec::new();
        let mut at = tree.leaf_parent[l];
        while let Some((n, _)) = at {
            out.push(n);
            at = tree.node_parent[n];
        }
        out.reverse();
        out
    };
    let paths: Vec<Vec<usize>> = leaves.iter().map(|&l| path(l)).collect();
    let first = paths.first()?;
    let shared = (0..first.len())
        .take_while(|&d| paths.iter().all(|p| p.get(d) == Some(&first[d])))
        .last()?;
    Some(first[shared])
}

/// The six planes of the box `lo`–`hi`, facing out.
fn box_planes(lo: DVec3, hi: DVec3) -> Vec<Plane> {
    let mut out = Vec::with_capacity(6);
    for axis in [DVec3::X, DVec3::Y, DVec3::Z] {
        out.push(Plane::new(axis, axis.dot(hi)));
        out.push(Plane::new(-axis, -axis.dot(lo)));
    }
    out
}
