//! Where a point lies: the leaf and visibility cluster of a world position, for every lookup
//! lighting makes (each luxel's cluster, ambient sample points, world-light clusters, sky
//! cameras and sky rays entering the 3D skybox).
//!
//! The walk is over lighting's own copy of the world tree, in the `f32` arithmetic of the
//! points it is given, rather than `Bsp::leaf_index_at` (which works in `f64`): on points that
//! lie on a sloped node plane the two disagree (378 of 711,524 leaf-centre and entity-origin
//! lookups on the corpus maps, 2026-11-24), and the leaf decides where ambient samples go, so
//! the `f64` walk would change the lighting written.

use glam::Vec3;
use srcmap_bsp::Bsp;
use srcmap_bsp::flags::Contents;

/// The world's BSP tree, copied out so lighting can find clusters without the whole BSP.
#[derive(Debug, Clone, Default)]
pub struct Tree {
    head: i32,
    /// Per node: its plane's normal and distance, and its children.
    nodes: Vec<(Vec3, f32, [i32; 2])>,
    leaf_clusters: Vec<i32>,
    leaf_solid: Vec<bool>,
}

impl Tree {
    pub fn new(bsp: &Bsp) -> Tree {
        let nodes = bsp
            .nodes
            .iter()
            .map(|n| {
                let p = usize::try_from(n.plane).ok().and_then(|i| bsp.planes.get(i));
                (
                    p.map_or(Vec3::Z, |p| Vec3::from(p.normal)),
                    p.map_or(0.0, |p| p.dist),
                    n.children,
                )
            })
            .collect();
        Tree {
            head: bsp.models.first().map_or(-1, |m| m.head_node),
            nodes,
            leaf_clusters: bsp.leafs.iter().map(|l| l.cluster).collect(),
            leaf_solid: bsp
                .leafs
                .iter()
                .map(|l| Contents::from_record(l.contents).intersects(Contents::SOLID))
                .collect(),
        }
    }

    /// The leaf containing `p` (front child when on a plane, as the engine walks).
    pub fn leaf_at(&self, p: Vec3) -> Option<usize> {
        let mut node = self.head;
        let mut guard = 0;
        while node >= 0 {
            guard += 1;
            if guard > 100_000 {
                return None;
            }
            let (n, d, children) = self.nodes.get(node as usize)?;
            node = if n.dot(p) - d >= 0.0 {
                children[0]
            } else {
                children[1]
            };
        }
        let leaf = (-1 - node) as usize;
        (leaf < self.leaf_clusters.len()).then_some(leaf)
    }

    /// The cluster of the leaf containing `p`, solid or not (-1 outside the tree).
    pub fn leaf_cluster_at(&self, p: Vec3) -> i32 {
        self.leaf_at(p).map_or(-1, |l| self.leaf_clusters[l])
    }

    /// Whether `p` lies in a solid leaf (VRAD's `PositionInSolid`; outside the tree counts).
    pub fn in_solid(&self, p: Vec3) -> bool {
        self.leaf_at(p).is_none_or(|l| self.leaf_solid[l])
    }

    /// The cluster containing `p`; -1 in solid or outside the tree.
    pub fn cluster_at(&self, p: Vec3) -> i32 {
        self.leaf_cluster(self.leaf_at(p))
    }

    /// The cluster of every point in the convex hull of `corners`, when they all lie in one
    /// leaf (a leaf is convex, so the points between them do too, but for a point within
    /// rounding of one of the leaf's planes); `None` when they do not.
    pub fn cluster_over(&self, corners: &[Vec3]) -> Option<i32> {
        let leaf = self.leaf_at(*corners.first()?)?;
        let one_leaf = corners[1..].iter().all(|&p| self.leaf_at(p) == Some(leaf));
        one_leaf.then(|| self.leaf_cluster(Some(leaf)))
    }

    fn leaf_cluster(&self, leaf: Option<usize>) -> i32 {
        match leaf {
            Some(l) if !self.leaf_solid[l] => self.leaf_clusters[l],
            _ => -1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// x ≥ 0 splits off leaf 1 and 2 (cut by y ≥ 0), x < 0 is leaf 0; leaf 2 is solid.
    fn three_leaves() -> Tree {
        Tree {
            head: 0,
            nodes: vec![(Vec3::X, 0.0, [1, -1]), (Vec3::Y, 0.0, [-2, -3])],
            leaf_clusters: vec![5, 6, 7],
            leaf_solid: vec![false, false, true],
        }
    }

    #[test]
    fn points_between_corners_in_one_leaf_share_its_cluster() {
        let tree = three_leaves();
        let mut next = crate::sampling::stream(7);
        let (mut shared, mut split) = (0, 0);
        for _ in 0..2000 {
            let centre = Vec3::new(next(), next(), next()) * 64.0;
            let corners: [Vec3; 4] =
                std::array::from_fn(|_| centre + Vec3::new(next(), next(), next()) * 16.0);
            let Some(cluster) = tree.cluster_over(&corners) else {
                split += 1;
                let leaves: Vec<_> = corners.iter().map(|&p| tree.leaf_at(p)).collect();
                assert!(
                    leaves.iter().any(|l| *l != leaves[0]),
                    "{corners:?} lie in one leaf"
                );
                continue;
            };
            shared += 1;
            for _ in 0..20 {
                let w: [f32; 4] = std::array::from_fn(|_| next() + 1.0);
                let sum: f32 = w.iter().sum();
                let p = (0..4).map(|i| corners[i] * (w[i] / sum)).sum::<Vec3>();
                assert_eq!(tree.cluster_at(p), cluster, "{p} between {corners:?}");
            }
        }
        // Both ways round happen, and the solid leaf answers -1 as `cluster_at` does.
        assert!(shared > 200 && split > 200, "{shared} shared, {split} split");
        assert_eq!(tree.cluster_over(&[Vec3::new(1.0, -1.0, 0.0); 4]), Some(-1));
    }
}
