//! A top-down binned SAH builder with spatial splits (SBVH: Stich, Friedrich and Dietrich,
//! "Spatial Splits in Bounding Volume Hierarchies", 2009), giving the binary tree the wide
//! BVH is collapsed from.
//!
//! At each node the best object split (references binned by their box centres) is compared
//! by SAH with the best spatial split (the node cut into slabs, each triangle clipped to the
//! slabs it crosses); a spatial split puts a triangle on both sides of its plane, so one
//! triangle may sit in several leaves, each holding it with the box of its own piece. Spatial
//! splits are only tried where the object split's children overlap, and stop once the
//! references have grown by [`DUPLICATE_SHARE`].
//!
//! Boxes: a reference keeps the exact box of its piece (for clipping) and that box grown by
//! its whole triangle's pad (for the tree). Every point of the triangle lies in one piece, so
//! the pieces' padded boxes together cover all the padded triangle box covers near it.

use std::ops::RangeInclusive;

use glam::Vec3A;
use obvhs::aabb::Aabb;
use obvhs::bvh2::Bvh2;
use obvhs::bvh2::node::Bvh2Node;
use obvhs::triangle::Triangle;

/// Bins per axis, for object and spatial splits alike.
const BINS: usize = 32;
/// Triangles per packet: the SAH counts a leaf's cost in packets.
const PACKET: usize = 4;
/// Most references in a leaf.
const MAX_LEAF: usize = 4;
/// Cost of visiting a node, in packet tests.
const NODE_COST: f32 = 0.5;
/// How many references spatial splits may add, as a share of the triangles.
const DUPLICATE_SHARE: f32 = 0.4;
/// Spatial splits are tried where the object split's children overlap by more than this
/// share of the root's surface (the paper's alpha).
const OVERLAP_SHARE: f32 = 1e-3;
/// Below this depth no more spatial splits (the tree's depth stays bounded).
const SPATIAL_DEPTH: usize = 48;

/// A triangle, or the piece of it a node holds.
#[derive(Clone, Copy)]
struct Ref {
    exact: Aabb,
    padded: Aabb,
    tri: u32,
}

/// Where to cut a node's references.
#[derive(Clone, Copy)]
enum Cut {
    /// By box centre: those whose centre's bin along `axis` is below `bin`.
    Object {
        axis: usize,
        origin: f32,
        scale: f32,
        bin: usize,
    },
    /// By the plane `axis = pos`, clipping the references that cross it.
    Spatial { axis: usize, pos: f32 },
    /// The first half of the references' order and the second: for nodes too many for a
    /// leaf that no bin separates (every centre in one place).
    Halves,
}

/// A candidate cut and its SAH cost (children's surfaces times their packets).
#[derive(Clone, Copy)]
struct Split {
    cost: f32,
    cut: Cut,
    left: Aabb,
    right: Aabb,
}

/// Per bin: the box of what it holds, references starting in it and ending in it.
#[derive(Clone, Copy)]
struct Bin {
    bounds: Aabb,
    enter: u32,
    exit: u32,
}

impl Bin {
    const EMPTY: Bin = Bin {
        bounds: Aabb::INVALID,
        enter: 0,
        exit: 0,
    };
}

struct Builder<'t> {
    tris: &'t [Triangle],
    /// Per triangle, how far its padded box reaches beyond its exact box on each axis.
    pads: Vec<Vec3A>,
    nodes: Vec<Bvh2Node>,
    prims: Vec<u32>,
    /// References spatial splits may still add.
    spare: usize,
    /// Overlap (half area) above which spatial splits are tried.
    min_overlap: f32,
}

/// The binary tree over `tris`, whose boxes are grown by `pad`; leaves list triangle indices
/// (a triangle may appear in several leaves).
pub(crate) fn build(tris: &[Triangle], pad: impl Fn(Aabb) -> Aabb) -> Bvh2 {
    let refs: Vec<Ref> = (tris.iter().enumerate())
        .map(|(i, t)| Ref {
            exact: t.aabb(),
            padded: pad(t.aabb()),
            tri: i as u32,
        })
        .collect();
    let root = union(refs.iter().map(|r| r.padded));
    let mut b = Builder {
        tris,
        pads: refs.iter().map(|r| r.padded.max - r.exact.max).collect(),
        nodes: vec![Bvh2Node::default()],
        prims: Vec::with_capacity(tris.len() * 3 / 2),
        spare: (tris.len() as f32 * DUPLICATE_SHARE) as usize,
        min_overlap: root.half_area() * OVERLAP_SHARE,
    };
    b.node(0, refs, 0);
    Bvh2 {
        nodes: b.nodes,
        primitive_indices: b.prims,
        uses_spatial_splits: true,
        ..Bvh2::default()
    }
}

impl Builder<'_> {
    /// Fills node `at` with `refs`: a leaf, or two children cut by SAH.
    fn node(&mut self, at: usize, refs: Vec<Ref>, depth: usize) {
        let bounds = union(refs.iter().map(|r| r.padded));
        let Some(split) = self.choose(&refs, &bounds, depth) else {
            self.nodes[at] = Bvh2Node::new(bounds, refs.len() as u32, self.prims.len() as u32);
            self.prims.extend(refs.iter().map(|r| r.tri));
            return;
        };
        let (left, right) = self.partition(refs, split.cut);
        let first = self.nodes.len();
        self.nodes[at] = Bvh2Node::new(bounds, 0, first as u32);
        self.nodes.extend([Bvh2Node::default(); 2]);
        self.node(first, left, depth + 1);
        self.node(first + 1, right, depth + 1);
    }

    /// The cut for a node, or `None` where a leaf costs less.
    fn choose(&self, refs: &[Ref], bounds: &Aabb, depth: usize) -> Option<Split> {
        if refs.len() <= 1 {
            return None;
        }
        let object = object_split(refs);
        let spatial = match object {
            Some(o) if depth < SPATIAL_DEPTH && self.overlaps(&o) => self.spatial_split(refs),
            None if depth < SPATIAL_DEPTH => self.spatial_split(refs),
            _ => None,
        };
        let best = [object, spatial]
            .into_iter()
            .flatten()
            .min_by(|a, b| a.cost.total_cmp(&b.cost));
        let area = bounds.half_area();
        let leaf = area * packets(refs.len());
        match best {
            Some(s) if refs.len() > MAX_LEAF || NODE_COST * area + s.cost < leaf => Some(s),
            None if refs.len() > MAX_LEAF => Some(HALVES),
            _ => None,
        }
    }

    /// Whether an object split's children overlap enough for spatial splits to be worth
    /// trying, and references may still be added.
    fn overlaps(&self, s: &Split) -> bool {
        let overlap = s.left.intersection(&s.right);
        self.spare > 0 && overlap.valid() && overlap.half_area() > self.min_overlap
    }

    /// The best spatial split over all three axes.
    fn spatial_split(&self, refs: &[Ref]) -> Option<Split> {
        let exact = union(refs.iter().map(|r| r.exact));
        (0..3)
            .filter_map(|axis| self.spatial_on(refs, &exact, axis))
            .min_by(|a, b| a.cost.total_cmp(&b.cost))
    }

    /// The best spatial split along `axis` of the node whose exact box is `exact`.
    fn spatial_on(&self, refs: &[Ref], exact: &Aabb, axis: usize) -> Option<Split> {
        let slabs = Slabs::new(exact, axis)?;
        let mut bins = [Bin::EMPTY; BINS];
        for r in refs {
            let (first, last) = (slabs.bin_of(r.exact.min[axis]), slabs.bin_of(r.exact.max[axis]));
            if first == last {
                bins[first].bounds = bins[first].bounds.union(&r.padded);
            } else {
                self.bin_pieces(r, &slabs, first..=last, &mut bins);
            }
            bins[first].enter += 1;
            bins[last].exit += 1;
        }
        let (bin, cost, left, right) = sweep(&bins)?;
        let cut = Cut::Spatial {
            axis,
            pos: slabs.plane(bin),
        };
        Some(Split {
            cost,
            cut,
            left,
            right,
        })
    }

    /// Adds to each bin of `span` the padded box of `r`'s piece in that slab: the triangle's
    /// corners in the slab and its edges' crossings of the slab's planes, within `r`'s box.
    /// (A corner outside `r`'s box is binned at the span's end; the estimate only grows.)
    fn bin_pieces(&self, r: &Ref, slabs: &Slabs, span: RangeInclusive<usize>, bins: &mut [Bin; BINS]) {
        let (first, last, axis) = (*span.start(), *span.end(), slabs.axis);
        let t = &self.tris[r.tri as usize];
        let corners = [t.v0, t.v1, t.v2].map(|v| (slabs.bin_of(v[axis]).clamp(first, last), v));
        // The crossings of the slab's lower plane, carried over from the slab below.
        let mut lower = Aabb::INVALID;
        for bin in span {
            let mut piece = lower;
            for &(_, v) in corners.iter().filter(|c| c.0 == bin) {
                piece.extend(v);
            }
            lower = Aabb::INVALID;
            if bin < last {
                crossings(t, axis, slabs.plane(bin + 1)).for_each(|x| _ = lower.extend(x));
            }
            let exact = piece.union(&lower).intersection(&r.exact);
            if exact.valid() {
                bins[bin].bounds = bins[bin].bounds.union(&self.padded(r, exact));
            }
        }
    }

    /// `exact`, a box within `r`'s, grown by the pad of `r`'s triangle.
    fn padded(&self, r: &Ref, exact: Aabb) -> Aabb {
        let pad = self.pads[r.tri as usize];
        Aabb::new(exact.min - pad, exact.max + pad).intersection(&r.padded)
    }

    /// `refs` cut in two. A cut that would leave a side empty (the bins' estimate and the
    /// exact test can disagree at the ends) falls back to halves, as [`Cut::Halves`] asks.
    fn partition(&mut self, mut refs: Vec<Ref>, cut: Cut) -> (Vec<Ref>, Vec<Ref>) {
        let (left, right): (Vec<Ref>, Vec<Ref>) = match cut {
            Cut::Object {
                axis,
                origin,
                scale,
                bin,
            } => refs
                .iter()
                .partition(|r| centre_bin(r, axis, origin, scale) < bin),
            Cut::Spatial { axis, pos } => self.cut_spatial(&refs, axis, pos),
            Cut::Halves => (Vec::new(), Vec::new()),
        };
        if left.is_empty() || right.is_empty() {
            let right = refs.split_off(refs.len() / 2);
            return (refs, right);
        }
        (left, right)
    }

    /// References wholly on either side of the plane go there; those across it are clipped
    /// into a piece for each side.
    fn cut_spatial(&mut self, refs: &[Ref], axis: usize, pos: f32) -> (Vec<Ref>, Vec<Ref>) {
        let (mut left, mut right) = (Vec::new(), Vec::new());
        for r in refs {
            if r.exact.max[axis] <= pos {
                left.push(*r);
            } else if r.exact.min[axis] >= pos {
                right.push(*r);
            } else {
                let (l, rt) = self.clip(r, axis, pos);
                left.push(l);
                right.push(rt);
            }
        }
        let added = (left.len() + right.len()).saturating_sub(refs.len());
        self.spare = self.spare.saturating_sub(added);
        (left, right)
    }

    /// The pieces of `r` below and above the plane `axis = pos`: the boxes of the triangle's
    /// two sides, within `r`'s own box.
    fn clip(&self, r: &Ref, axis: usize, pos: f32) -> (Ref, Ref) {
        let t = &self.tris[r.tri as usize];
        let (mut below, mut above) = (Aabb::INVALID, Aabb::INVALID);
        for v in [t.v0, t.v1, t.v2] {
            if v[axis] <= pos {
                below.extend(v);
            }
            if v[axis] >= pos {
                above.extend(v);
            }
        }
        for x in crossings(t, axis, pos) {
            below.extend(x);
            above.extend(x);
        }
        let mut within_below = r.exact;
        within_below.max[axis] = within_below.max[axis].min(pos);
        let mut within_above = r.exact;
        within_above.min[axis] = within_above.min[axis].max(pos);
        (
            self.piece(r, below, within_below),
            self.piece(r, above, within_above),
        )
    }

    /// A piece of `r` whose clipped triangle's box is `clipped`, kept within `within`.
    fn piece(&self, r: &Ref, clipped: Aabb, within: Aabb) -> Ref {
        let exact = clipped.intersection(&within);
        // Rounding can leave a sliver's box empty; the slab of `r` is then a safe box.
        let exact = if exact.valid() { exact } else { within };
        Ref {
            exact,
            padded: self.padded(r, exact),
            tri: r.tri,
        }
    }
}

/// A node's extent along `axis` cut into [`BINS`] equal slabs.
struct Slabs {
    axis: usize,
    lo: f32,
    extent: f32,
    scale: f32,
}

impl Slabs {
    /// `None` where the box is flat along `axis`.
    fn new(exact: &Aabb, axis: usize) -> Option<Slabs> {
        let (lo, extent) = (exact.min[axis], exact.max[axis] - exact.min[axis]);
        (extent > 0.0).then(|| Slabs {
            axis,
            lo,
            extent,
            scale: BINS as f32 / extent,
        })
    }

    /// The slab holding coordinate `x` (clamped to the ends).
    fn bin_of(&self, x: f32) -> usize {
        (((x - self.lo) * self.scale).max(0.0) as usize).min(BINS - 1)
    }

    /// The plane between slabs `bin - 1` and `bin`.
    fn plane(&self, bin: usize) -> f32 {
        self.lo + self.extent * (bin as f32 / BINS as f32)
    }
}

/// Where `t`'s edges cross the plane `axis = pos` strictly between their ends (at most two
/// points; the rest are `None`).
fn crossings(t: &Triangle, axis: usize, pos: f32) -> impl Iterator<Item = Vec3A> {
    [(t.v0, t.v1), (t.v1, t.v2), (t.v2, t.v0)]
        .into_iter()
        .filter(move |(a, b)| (a[axis] < pos && b[axis] > pos) || (a[axis] > pos && b[axis] < pos))
        .map(move |(a, b)| {
            let mut x = a + (b - a) * ((pos - a[axis]) / (b[axis] - a[axis]));
            x[axis] = pos;
            x
        })
}

/// The best object split over all three axes: references binned by their padded box's
/// centre.
fn object_split(refs: &[Ref]) -> Option<Split> {
    let centres = union(
        refs.iter()
            .map(|r| Aabb::new(r.padded.center(), r.padded.center())),
    );
    (0..3)
        .filter_map(|axis| object_on(refs, &centres, axis))
        .min_by(|a, b| a.cost.total_cmp(&b.cost))
}

/// The best object split along `axis`, given the box of the references' centres.
fn object_on(refs: &[Ref], centres: &Aabb, axis: usize) -> Option<Split> {
    let (origin, extent) = (centres.min[axis], centres.max[axis] - centres.min[axis]);
    if extent <= 0.0 {
        return None;
    }
    let scale = BINS as f32 / extent;
    let mut bins = [Bin::EMPTY; BINS];
    for r in refs {
        let b = &mut bins[centre_bin(r, axis, origin, scale)];
        b.bounds = b.bounds.union(&r.padded);
        b.enter += 1;
        b.exit += 1;
    }
    let (bin, cost, left, right) = sweep(&bins)?;
    let cut = Cut::Object {
        axis,
        origin,
        scale,
        bin,
    };
    Some(Split {
        cost,
        cut,
        left,
        right,
    })
}

/// The bin of `r`'s centre along `axis`.
fn centre_bin(r: &Ref, axis: usize, origin: f32, scale: f32) -> usize {
    (((r.padded.center_axis(axis) - origin) * scale) as usize).min(BINS - 1)
}

/// The cheapest plane between bins: its index (bins below it go left), SAH cost and the two
/// sides' boxes. `None` where every plane leaves a side empty.
fn sweep(bins: &[Bin; BINS]) -> Option<(usize, f32, Aabb, Aabb)> {
    let mut above = [(Aabb::INVALID, 0u32); BINS];
    let mut acc = (Aabb::INVALID, 0u32);
    for i in (1..BINS).rev() {
        acc = (acc.0.union(&bins[i].bounds), acc.1 + bins[i].exit);
        above[i] = acc;
    }
    let mut below = (Aabb::INVALID, 0u32);
    let mut best: Option<(usize, f32, Aabb, Aabb)> = None;
    for i in 1..BINS {
        below = (below.0.union(&bins[i - 1].bounds), below.1 + bins[i - 1].enter);
        let (right, n_right) = above[i];
        if below.1 == 0 || n_right == 0 {
            continue;
        }
        let cost =
            below.0.half_area() * packets(below.1 as usize) + right.half_area() * packets(n_right as usize);
        if best.is_none_or(|b| cost < b.1) {
            best = Some((i, cost, below.0, right));
        }
    }
    best
}

/// The cut into halves (its cost is never compared).
const HALVES: Split = Split {
    cost: f32::INFINITY,
    cut: Cut::Halves,
    left: Aabb::INVALID,
    right: Aabb::INVALID,
};

/// Packets needed for `n` triangles.
fn packets(n: usize) -> f32 {
    n.div_ceil(PACKET) as f32
}

/// The box around `boxes`.
fn union(boxes: impl Iterator<Item = Aabb>) -> Aabb {
    boxes.fold(Aabb::INVALID, |acc, b| acc.union(&b))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A floor of 32 × 32 unit quads crossed by long slivers just above it, the case spatial
    /// splits are for.
    pub(crate) fn slivers() -> Vec<Triangle> {
        let v = |x: f32, y: f32, z: f32| Vec3A::new(x, y, z);
        let tri = |v0, v1, v2| Triangle { v0, v1, v2 };
        let mut out = Vec::new();
        for (x, y) in (0..32).flat_map(|x| (0..32).map(move |y| (x as f32, y as f32))) {
            out.push(tri(v(x, y, 0.0), v(x + 1.0, y, 0.0), v(x + 1.0, y + 1.0, 0.0)));
            out.push(tri(v(x, y, 0.0), v(x + 1.0, y + 1.0, 0.0), v(x, y + 1.0, 0.0)));
        }
        for i in 0..40 {
            let (a, b, h) = (i as f32 * 0.8, 31.0 - i as f32 * 0.7, 0.25 + (i % 5) as f32 * 0.5);
            out.push(tri(v(a, 0.0, h), v(b, 32.0, h + 0.3), v(b + 0.05, 32.0, h)));
        }
        out
    }

    /// Each leaf's box, per triangle it lists.
    fn leaf_boxes(tree: &Bvh2, triangles: usize) -> Vec<Vec<Aabb>> {
        let mut out = vec![Vec::new(); triangles];
        for leaf in tree.nodes.iter().filter(|n| n.is_leaf()) {
            let first = leaf.first_index as usize;
            for &t in &tree.primitive_indices[first..first + leaf.prim_count as usize] {
                out[t as usize].push(*leaf.aabb());
            }
        }
        out
    }

    #[test]
    fn long_triangles_are_split_within_the_budget_and_every_triangle_is_kept() {
        let tris = slivers();
        let tree = build(&tris, crate::padded_box);
        let refs = tree.primitive_indices.len();
        assert!(refs > tris.len() + 40, "{refs} references: slivers were split");
        assert!(refs <= tris.len() + (tris.len() as f32 * DUPLICATE_SHARE) as usize + 1);
        assert!(leaf_boxes(&tree, tris.len()).iter().all(|b| !b.is_empty()));
        assert!(
            tree.nodes
                .iter()
                .all(|n| !n.is_leaf() || n.prim_count as usize <= MAX_LEAF)
        );
    }

    #[test]
    fn every_point_of_a_triangle_lies_in_a_leaf_box_that_lists_it() {
        let tris = slivers();
        let boxes = leaf_boxes(&build(&tris, crate::padded_box), tris.len());
        for (t, boxes) in tris.iter().zip(&boxes) {
            for (i, j) in (0..=16).flat_map(|i| (0..=16 - i).map(move |j| (i, j))) {
                let (u, v) = (i as f32 / 16.0, j as f32 / 16.0);
                let p = t.v0 + (t.v1 - t.v0) * u + (t.v2 - t.v0) * v;
                assert!(boxes.iter().any(|b| b.contains_point(p)), "{p:?} of {t:?}");
            }
        }
    }
}
