//! A bounding-volume tree over the solids' boxes, so that a trace tests only the solids near
//! its path (the BSP's own tree would do the same; a box tree also holds displacement and prop
//! solids, which the BSP tree does not).

use glam::Vec3;

const LEAF_SIZE: usize = 4;

#[derive(Debug, Clone, Copy)]
struct Node {
    mins: Vec3,
    maxs: Vec3,
    /// A leaf: items `start..start + count` of `order`; an inner node: children `start`, `start + 1`.
    start: u32,
    count: u32,
}

/// The tree; `order` lists item indices so that each leaf's items are contiguous.
#[derive(Debug, Clone, Default)]
pub struct Bvh {
    nodes: Vec<Node>,
    order: Vec<u32>,
}

/// A segment whose points are boxes grown by `extent`, tested against node boxes.
#[derive(Debug, Clone, Copy)]
pub struct Ray {
    pub start: Vec3,
    pub delta: Vec3,
    /// Half size of the moving box plus a margin.
    pub extent: Vec3,
    pub centre_offset: Vec3,
}

impl Bvh {
    /// Builds the tree over item boxes `(mins, maxs)`.
    pub fn build(boxes: &[(Vec3, Vec3)]) -> Bvh {
        let mut bvh = Bvh {
            nodes: Vec::with_capacity(boxes.len() / 2 + 1),
            order: (0..boxes.len() as u32).collect(),
        };
        if !boxes.is_empty() {
            bvh.nodes.push(Node {
                mins: Vec3::ZERO,
                maxs: Vec3::ZERO,
                start: 0,
                count: 0,
            });
            bvh.split(0, 0, boxes.len(), boxes);
        }
        bvh
    }

    fn split(&mut self, node: usize, lo: usize, hi: usize, boxes: &[(Vec3, Vec3)]) {
        let (mins, maxs) = self.order[lo..hi]
            .iter()
            .fold((Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)), |(a, b), &i| {
                (a.min(boxes[i as usize].0), b.max(boxes[i as usize].1))
            });
        self.nodes[node] = Node {
            mins,
            maxs,
            start: lo as u32,
            count: (hi - lo) as u32,
        };
        if hi - lo <= LEAF_SIZE {
            return;
        }
        let axis = (maxs - mins).max_position();
        let centre = |i: &u32| boxes[*i as usize].0[axis] + boxes[*i as usize].1[axis];
        let mid = (lo + hi) / 2;
        self.order[lo..hi].select_nth_unstable_by(mid - lo, |a, b| centre(a).total_cmp(&centre(b)));
        let first = self.nodes.len();
        self.nodes[node].start = first as u32;
        self.nodes[node].count = 0;
        self.nodes.extend([self.nodes[node]; 2]);
        self.split(first, lo, mid, boxes);
        self.split(first + 1, mid, hi, boxes);
    }

    /// Calls `visit` with each item whose node box the ray's swept box may touch before
    /// `limit()` (the caller's current fraction, so that found hits prune the rest).
    pub fn walk(&self, ray: &Ray, limit: &mut dyn FnMut(Option<u32>) -> f32) {
        if self.nodes.is_empty() {
            return;
        }
        let inv = ray.delta.recip();
        let mut stack = vec![0u32];
        while let Some(n) = stack.pop() {
            let node = self.nodes[n as usize];
            if !ray.touches(node.mins, node.maxs, inv, limit(None)) {
                continue;
            }
            if node.count == 0 {
                stack.extend([node.start, node.start + 1]);
                continue;
            }
            for &item in &self.order[node.start as usize..(node.start + node.count) as usize] {
                limit(Some(item));
            }
        }
    }
}

impl Ray {
    /// Slab test of the segment's centre against the node box grown by the moving box.
    fn touches(&self, mins: Vec3, maxs: Vec3, inv: Vec3, limit: f32) -> bool {
        let origin = self.start + self.centre_offset;
        let lo = mins - self.extent;
        let hi = maxs + self.extent;
        let (mut t0, mut t1) = (0.0f32, limit);
        for a in 0..3 {
            if self.delta[a] == 0.0 {
                if origin[a] < lo[a] || origin[a] > hi[a] {
                    return false;
                }
                continue;
            }
            let (ta, tb) = ((lo[a] - origin[a]) * inv[a], (hi[a] - origin[a]) * inv[a]);
            t0 = t0.max(ta.min(tb));
            t1 = t1.min(ta.max(tb));
        }
        t0 <= t1
    }
}
