//! Judging a PVS: agreement with another visibility lump (Valve's) cluster pair by cluster
//! pair, and a sampled line-of-sight test that a PVS must never fail.

use srcmap_bsp::{Bsp, Visibility};
use srcmap_geom::DVec3;

use crate::error::VvisError;
use crate::tree::{Cell2, Tree};

/// PVS agreement of two visibility lumps over the same clusters.
#[derive(Debug, Clone, Default)]
pub struct Agreement {
    pub clusters: usize,
    /// Cluster pairs (ordered, including a cluster with itself) on which both agree.
    pub agreeing_pairs: u64,
    pub ours_visible: u64,
    pub theirs_visible: u64,
    /// Every disagreeing pair `(from, to, ours)`: `ours` true when we show it and they hide it.
    pub differences: Vec<(u32, u32, bool)>,
}

impl Agreement {
    pub fn fraction(&self) -> f64 {
        let pairs = (self.clusters * self.clusters).max(1) as f64;
        self.agreeing_pairs as f64 / pairs
    }
    /// Our visible pairs over theirs.
    pub fn ratio(&self) -> f64 {
        self.ours_visible as f64 / self.theirs_visible.max(1) as f64
    }
    /// Pairs we hide that they show.
    pub fn hidden_by_us(&self) -> usize {
        self.differences.iter().filter(|d| !d.2).count()
    }
}

/// Compares the PVS rows of two lumps. `None` when the cluster counts differ.
pub fn compare(ours: &Visibility, theirs: &Visibility) -> Option<Agreement> {
    if ours.num_clusters != theirs.num_clusters {
        return None;
    }
    let n = theirs.num_clusters as usize;
    let mut a = Agreement {
        clusters: n,
        ..Default::default()
    };
    for i in 0..n {
        for j in 0..n {
            let (x, y) = (ours.can_see(i, j), theirs.can_see(i, j));
            a.ours_visible += x as u64;
            a.theirs_visible += y as u64;
            if x == y {
                a.agreeing_pairs += 1;
            } else {
                a.differences.push((i as u32, j as u32, x));
            }
        }
    }
    Some(a)
}

/// A small deterministic generator (xorshift64*), so the test needs no dependency.
pub struct Rng(u64);
impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A line of sight the PVS denies: `from` sees `to` along `a`–`b`.
#[derive(Debug, Clone)]
pub struct SightViolation {
    pub from: u32,
    pub to: u32,
    pub a: [f64; 3],
    pub b: [f64; 3],
}

/// Result of [`line_of_sight`].
#[derive(Debug, Clone, Default)]
pub struct SightCheck {
    /// Segments tried.
    pub segments: usize,
    /// Segments that crossed only visible (non-solid, clustered) leaves.
    pub clear: usize,
    pub violations: Vec<SightViolation>,
}

/// Samples `segments` random segments between points in two random visible leaves; every
/// segment that crosses no solid leaf (nor leaf without a cluster) proves its two clusters
/// see each other, so the PVS must show the pair. Points within `margin` of a splitting plane
/// are avoided where the check is ambiguous (grazing a corner).
pub fn line_of_sight(
    bsp: &Bsp,
    vis: &Visibility,
    segments: usize,
    seed: u64,
) -> Result<SightCheck, VvisError> {
    let tree = Tree::from_bsp(bsp)?;
    let visible_leaves = clustered_leaves(bsp, vis);
    let mut out = SightCheck::default();
    if visible_leaves.is_empty() {
        return Ok(out);
    }
    let mut rng = Rng::new(seed);
    for _ in 0..segments {
        let la = visible_leaves[(rng.next_u64() % visible_leaves.len() as u64) as usize];
        let lb = visible_leaves[(rng.next_u64() % visible_leaves.len() as u64) as usize];
        let (Some(a), Some(b)) = (point_in(bsp, &mut rng, la), point_in(bsp, &mut rng, lb)) else {
            continue;
        };
        out.segments += 1;
        if !segment_clear(&tree, tree.head, a, b) {
            continue;
        }
        out.clear += 1;
        let clusters = [bsp.leafs[la].cluster as usize, bsp.leafs[lb].cluster as usize];
        out.check_pair(vis, clusters, [a, b]);
    }
    Ok(out)
}

impl SightCheck {
    /// A clear segment from `a` to `b` between clusters `ca` and `cb`: a violation unless the
    /// PVS shows the pair both ways.
    fn check_pair(&mut self, vis: &Visibility, [ca, cb]: [usize; 2], [a, b]: [DVec3; 2]) {
        if !vis.can_see(ca, cb) || !vis.can_see(cb, ca) {
            self.violations.push(SightViolation {
                from: ca as u32,
                to: cb as u32,
                a: a.to_array(),
                b: b.to_array(),
            });
        }
    }
}

/// The leaves in a cluster of the PVS.
fn clustered_leaves(bsp: &Bsp, vis: &Visibility) -> Vec<usize> {
    (0..bsp.leafs.len())
        .filter(|&l| bsp.leafs[l].cluster >= 0 && (bsp.leafs[l].cluster as u32) < vis.num_clusters)
        .collect()
}

/// A random point inside `leaf` (its box sampled up to 32 times for a point the tree puts in
/// the leaf).
fn point_in(bsp: &Bsp, rng: &mut Rng, leaf: usize) -> Option<DVec3> {
    let l = &bsp.leafs[leaf];
    for _ in 0..32 {
        let p = DVec3::new(
            l.mins[0] as f64 + rng.unit() * (l.maxs[0] - l.mins[0]) as f64,
            l.mins[1] as f64 + rng.unit() * (l.maxs[1] - l.mins[1]) as f64,
            l.mins[2] as f64 + rng.unit() * (l.maxs[2] - l.mins[2]) as f64,
        );
        if bsp.leaf_index_at(0, p.to_array()) == Some(leaf) {
            return Some(p);
        }
    }
    None
}

/// Distance from a splitting plane within which a segment is treated as grazing: it counts as
/// touching both sides (conservative: such segments are rarely "clear").
const GRAZE: f64 = 0.05;

/// True when the segment crosses only leaves with a cluster.
fn segment_clear(tree: &Tree, cell: Cell2, a: DVec3, b: DVec3) -> bool {
    match cell {
        Cell2::Leaf(l) => tree.leaf_cluster[l] >= 0,
        Cell2::Node(n) => {
            let (plane, [front, back]) = tree.nodes[n];
            let plane = tree.planes[plane];
            let (da, db) = (plane.distance(a), plane.distance(b));
            if da > GRAZE && db > GRAZE {
                return segment_clear(tree, front, a, b);
            }
            if da < -GRAZE && db < -GRAZE {
                return segment_clear(tree, back, a, b);
            }
            if (da - db).abs() < 1e-9 {
                // Lying along the plane: it must be clear on both sides.
                return segment_clear(tree, front, a, b) && segment_clear(tree, back, a, b);
            }
            // Split at the crossing, each part padded over the plane by the grazing margin.
            let t = da / (da - db);
            let pad = GRAZE / (da - db).abs();
            let (t0, t1) = ((t - pad).clamp(0.0, 1.0), (t + pad).clamp(0.0, 1.0));
            let mid0 = a + (b - a) * t1;
            let mid1 = a + (b - a) * t0;
            let (side_a, side_b) = if da >= db { (front, back) } else { (back, front) };
            segment_clear(tree, side_a, a, mid0) && segment_clear(tree, side_b, mid1, b)
        }
    }
}
