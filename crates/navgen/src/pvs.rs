//! The map's potentially visible sets, as the analysis asks them: a sight line between
//! clusters that cannot see each other is blocked without tracing it (the sets are a superset
//! of what is seen), and a box is "in the PVS" of a set of clusters when a leaf it touches is
//! (the engine's `CheckBoxInPVS`).

use glam::Vec3;
use srcmap_bsp::Bsp;

pub struct Pvs<'a> {
    bsp: &'a Bsp,
}

impl<'a> Pvs<'a> {
    pub fn new(bsp: &'a Bsp) -> Pvs<'a> {
        Pvs { bsp }
    }

    /// Whether the map has vis data (without, everything may see everything).
    pub fn has_data(&self) -> bool {
        self.bsp.visibility.is_some()
    }

    /// The cluster of the leaf holding `p` (`None` in solid or without vis data).
    pub fn cluster(&self, p: Vec3) -> Option<usize> {
        self.bsp.visibility.as_ref()?;
        let leaf = self.bsp.leaf_at(0, p.as_dvec3().to_array())?;
        usize::try_from(leaf.cluster).ok()
    }

    pub fn may_see(&self, from: Option<usize>, to: Option<usize>) -> bool {
        match (from, to, &self.bsp.visibility) {
            (Some(a), Some(b), Some(vis)) => vis.can_see(a, b),
            _ => true,
        }
    }

    /// Whether a cluster of `from` may see one of `to`; true without vis data (`None`).
    pub fn any_sees(&self, from: Option<&[usize]>, to: Option<&[usize]>) -> bool {
        match (from, to, &self.bsp.visibility) {
            (Some(a), Some(b), Some(vis)) => a.iter().any(|&f| b.iter().any(|&t| vis.can_see(f, t))),
            _ => true,
        }
    }

    /// The clusters of the world's leaves touching the box `lo..hi`, each once, in tree order;
    /// `None` without vis data.
    pub fn clusters_in_box(&self, lo: Vec3, hi: Vec3) -> Option<Vec<usize>> {
        self.bsp.visibility.as_ref()?;
        let mut found = Vec::new();
        let mut stack = vec![self.bsp.models.first()?.head_node];
        // A cyclic tree must not loop: no walk visits more entries than the tree has.
        let mut budget = self.bsp.nodes.len() + self.bsp.leafs.len();
        while let Some(n) = stack.pop() {
            budget = budget.checked_sub(1)?;
            if n < 0 {
                self.add_leaf_cluster((-1 - n) as usize, &mut found);
                continue;
            }
            let node = self.bsp.nodes.get(n as usize)?;
            let plane = self.bsp.planes.get(usize::try_from(node.plane).ok()?)?;
            let (near, far) = box_plane_extent(lo, hi, Vec3::from(plane.normal));
            if far >= plane.dist {
                stack.push(node.children[0]);
            }
            if near < plane.dist {
                stack.push(node.children[1]);
            }
        }
        Some(found)
    }

    fn add_leaf_cluster(&self, leaf: usize, found: &mut Vec<usize>) {
        let cluster = self
            .bsp
            .leafs
            .get(leaf)
            .and_then(|l| usize::try_from(l.cluster).ok());
        if let Some(c) = cluster.filter(|c| !found.contains(c)) {
            found.push(c);
        }
    }
}

/// The least and greatest distance along `normal` over the corners of the box `lo..hi`.
fn box_plane_extent(lo: Vec3, hi: Vec3, normal: Vec3) -> (f32, f32) {
    let near = Vec3::select(normal.cmpge(Vec3::ZERO), lo, hi);
    let far = Vec3::select(normal.cmpge(Vec3::ZERO), hi, lo);
    (near.dot(normal), far.dot(normal))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_box_reaches_the_planes_side_it_overlaps() {
        let (lo, hi) = (Vec3::new(-1.0, -2.0, 0.0), Vec3::new(3.0, 4.0, 5.0));
        assert_eq!(box_plane_extent(lo, hi, Vec3::X), (-1.0, 3.0));
        assert_eq!(box_plane_extent(lo, hi, -Vec3::Y), (-4.0, 2.0));
    }
}
