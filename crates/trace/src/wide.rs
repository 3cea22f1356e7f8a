//! Our own traversal backend: a BVH of [`WIDTH`] children per node with float child boxes
//! stored axis by axis (so one ray meets all of a node's boxes in a few vector operations),
//! and leaves of [`LANES`]-triangle packets whose edges are precomputed and tested together.
//! The tree's shape comes from a binary tree over the same padded boxes as the CWBVH backend's
//! (obvhs's PLOC build by default, or our SBVH build, `sbvh.rs`, whose leaves may share a
//! triangle), collapsed here by always opening the child with the largest surface.
//!
//! The triangle test is [`crate::intersect`]'s arithmetic lane by lane (same operations in the
//! same order), so both backends report bit-identical distances; only which of two triangles
//! at exactly the same distance is reported may differ.

#[cfg(target_arch = "x86_64")]
mod avx2;

use std::cell::Cell;
use std::thread::LocalKey;

use obvhs::BvhBuildParams;
use obvhs::aabb::Aabb;
use obvhs::bvh2::Bvh2;
use obvhs::bvh2::leaf_collapser::collapse;
use obvhs::bvh2::reinsertion::ReinsertionOptimizer;
use obvhs::ploc::PlocBuilder;
use obvhs::triangle::Triangle;

use crate::{EDGE_TOLERANCE, MIN_DET};

/// Children per node.
const WIDTH: usize = 8;
/// Most triangles in a leaf of the binary tree the wide one is collapsed from.
pub(crate) const LEAF_TRIANGLES: u32 = 4;
/// Triangles per leaf packet.
const LANES: usize = 4;
/// Marks a child entry as a leaf: packet index in the low bits, packet count less one above
/// [`COUNT_SHIFT`].
const LEAF: u32 = 1 << 31;
const COUNT_SHIFT: u32 = 28;
/// Packets a leaf may hold.
const MAX_PACKETS: usize = 1 << (31 - COUNT_SHIFT);
/// Entries of the traversal stack kept on the machine stack; deeper trees use a heap stack.
const STACK: usize = 64;

/// One node: per axis the children's lower bounds, then their upper bounds (`bounds[a][0]`,
/// `bounds[a][1]`); an unused child has an empty box (lower +inf, upper -inf).
#[derive(Clone, Copy)]
#[repr(C, align(32))]
struct Node {
    bounds: [[[f32; WIDTH]; 2]; 3],
    child: [u32; WIDTH],
}

impl Node {
    const EMPTY: Node = Node {
        bounds: [[[f32::INFINITY; WIDTH], [f32::NEG_INFINITY; WIDTH]]; 3],
        child: [0; WIDTH],
    };
}

/// Up to [`LANES`] triangles as `v0`, `e1 = v1 - v0`, `e2 = v2 - v0`, per axis; an unused lane
/// has zero edges (its determinant is zero, so it never hits) and slot `u32::MAX`.
#[derive(Clone, Copy, Default)]
#[repr(C, align(16))]
struct Packet {
    v0: [[f32; LANES]; 3],
    e1: [[f32; LANES]; 3],
    e2: [[f32; LANES]; 3],
    /// The lanes' slots in the scene's triangle table.
    slot: [u32; LANES],
}

impl Packet {
    fn new(tris: &[Triangle], slots: impl Iterator<Item = u32>) -> Packet {
        let mut p = Packet {
            slot: [u32::MAX; LANES],
            ..Packet::default()
        };
        for (lane, slot) in slots.enumerate() {
            let t = &tris[slot as usize];
            let (e1, e2) = (t.v1 - t.v0, t.v2 - t.v0);
            for a in 0..3 {
                p.v0[a][lane] = t.v0[a];
                p.e1[a][lane] = e1[a];
                p.e2[a][lane] = e2[a];
            }
            p.slot[lane] = slot;
        }
        p
    }

    /// Each lane's hit distance in `[ray.tmin, tmax)`, or infinity.
    #[inline(always)]
    // Range tests written out with `&`: all lanes' compares run as vector ones, no branches.
    #[allow(clippy::manual_range_contains)]
    fn distances(&self, ray: &WideRay, tmax: f32) -> [f32; LANES] {
        let ([dx, dy, dz], [ox, oy, oz]) = (ray.dir, ray.origin);
        std::array::from_fn(|i| {
            let [e1x, e1y, e1z] = [self.e1[0][i], self.e1[1][i], self.e1[2][i]];
            let [e2x, e2y, e2z] = [self.e2[0][i], self.e2[1][i], self.e2[2][i]];
            let (px, py, pz) = (dy * e2z - dz * e2y, dz * e2x - dx * e2z, dx * e2y - dy * e2x);
            let det = e1x * px + e1y * py + e1z * pz;
            let inv = 1.0 / det;
            let (tx, ty, tz) = (ox - self.v0[0][i], oy - self.v0[1][i], oz - self.v0[2][i]);
            let u = (tx * px + ty * py + tz * pz) * inv;
            let (qx, qy, qz) = (ty * e1z - tz * e1y, tz * e1x - tx * e1z, tx * e1y - ty * e1x);
            let v = (dx * qx + dy * qy + dz * qz) * inv;
            let t = (e2x * qx + e2y * qy + e2z * qz) * inv;
            let inside = (u >= -EDGE_TOLERANCE)
                & (u <= 1.0 + EDGE_TOLERANCE)
                & (v >= -EDGE_TOLERANCE)
                & (u + v <= 1.0 + EDGE_TOLERANCE);
            let hit = (det.abs() >= MIN_DET) & inside & (t >= ray.tmin) & (t < tmax);
            if hit { t } else { f32::INFINITY }
        })
    }
}

/// A ray prepared for the box test: per axis the reciprocal direction (finite: a zero
/// component gives ±1e30, so a box face through the origin yields 0, not NaN) and which of
/// a node's bound rows is met first.
pub(crate) struct WideRay {
    origin: [f32; 3],
    dir: [f32; 3],
    inv: [f32; 3],
    near: [usize; 3],
    tmin: f32,
    tmax: f32,
}

impl WideRay {
    /// `dir` must have no negative zero component (see [`crate::ray`]).
    pub(crate) fn new(origin: [f32; 3], dir: [f32; 3], tmin: f32, tmax: f32) -> WideRay {
        WideRay {
            origin,
            dir,
            inv: dir.map(|d| (1.0 / d).clamp(-1e30, 1e30)),
            near: dir.map(|d| usize::from(d < 0.0)),
            tmin,
            tmax,
        }
    }

    fn is_finite(&self) -> bool {
        self.origin.iter().chain(&self.dir).all(|c| c.is_finite())
    }

    /// Entry distances of `node`'s children and the mask of those the ray meets before `tmax`.
    #[inline(always)]
    fn enter(&self, node: &Node, tmax: f32) -> ([f32; WIDTH], u32) {
        let mut near = [self.tmin; WIDTH];
        let mut far = [tmax; WIDTH];
        for a in 0..3 {
            let (lo, hi) = (
                &node.bounds[a][self.near[a] & 1],
                &node.bounds[a][!self.near[a] & 1],
            );
            let (o, inv) = (self.origin[a], self.inv[a]);
            for i in 0..WIDTH {
                let (n, f) = ((lo[i] - o) * inv, (hi[i] - o) * inv);
                near[i] = if n > near[i] { n } else { near[i] };
                far[i] = if f < far[i] { f } else { far[i] };
            }
        }
        let mut mask = 0;
        for i in 0..WIDTH {
            mask |= u32::from(near[i] <= far[i]) << i;
        }
        (near, mask)
    }
}

thread_local! {
    /// Each thread's traversal stacks for trees too deep for [`STACK`], kept from ray to ray:
    /// one made per ray was a heap allocation for every closest hit on subway01.
    static DEEP_CLOSEST: Cell<Vec<Pending>> = const { Cell::new(Vec::new()) };
    static DEEP_OCCLUDED: Cell<Vec<u32>> = const { Cell::new(Vec::new()) };
}

/// Calls `f` with the thread's stack of `key`, at least `len` long. A traversal writes each
/// entry before reading it, so what an earlier ray left there does not matter.
#[inline(always)]
fn with_deep_stack<T: Copy + Default, R>(
    key: &'static LocalKey<Cell<Vec<T>>>,
    len: usize,
    f: impl FnOnce(&mut [T]) -> R,
) -> R {
    let mut stack = key.take();
    if stack.len() < len {
        stack.resize(len, T::default());
    }
    let out = f(&mut stack[..len]);
    key.set(stack);
    out
}

/// A pending subtree on the closest-hit stack and the distance at which the ray enters it.
#[derive(Clone, Copy, Default)]
struct Pending {
    entry: u32,
    near: f32,
}

/// The wide BVH over a scene's triangles (addressed by their slots).
pub(crate) struct WideBvh {
    nodes: Vec<Node>,
    packets: Vec<Packet>,
    root: u32,
    /// The most entries a traversal can have pending.
    stack_need: usize,
    /// Whether this CPU runs AVX2 (checked once, at build; tests clear it to check the
    /// portable tests).
    pub(crate) avx2: bool,
}

impl WideBvh {
    /// Collapses the binary tree `bvh2` over `tris` and gives the order to store the
    /// triangles in: `order[slot]` is the triangle of slot `slot`, slots in packet order. A
    /// triangle in several leaves (spatial splits) keeps the slot of its first packet.
    pub(crate) fn build(tris: &[Triangle], bvh2: &Bvh2) -> (WideBvh, Vec<u32>) {
        let prims = &bvh2.primitive_indices;
        let by_position: Vec<Triangle> = prims.iter().map(|&i| tris[i as usize]).collect();
        let mut wide = WideBvh::new(bvh2, &by_position);
        // Slots numbered in packet order (depth first through the wide tree): runs of slots
        // stay together in space, which `ParallelOrigins`' groups of slots rely on.
        let mut order = Vec::with_capacity(tris.len());
        let mut slot_of = vec![u32::MAX; tris.len()];
        for p in &mut wide.packets {
            for slot in p.slot.iter_mut().filter(|s| **s != u32::MAX) {
                let tri = prims[*slot as usize];
                if slot_of[tri as usize] == u32::MAX {
                    slot_of[tri as usize] = order.len() as u32;
                    order.push(tri);
                }
                *slot = slot_of[tri as usize];
            }
        }
        (wide, order)
    }

    /// Collapses `bvh2` into the wide layout; the triangle at position `i` of its primitive
    /// list is `tris[i]`.
    fn new(bvh2: &Bvh2, tris: &[Triangle]) -> WideBvh {
        let mut wide = WideBvh {
            nodes: Vec::new(),
            packets: Vec::new(),
            root: 0,
            stack_need: 0,
            avx2: has_avx2(),
        };
        let (root, need) = wide.subtree(bvh2, 0, tris);
        wide.root = root;
        wide.stack_need = need + 1;
        wide
    }

    /// Bytes held by the nodes and packets.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.nodes.capacity() * size_of::<Node>() + self.packets.capacity() * size_of::<Packet>()
    }

    /// The entry for `bvh2`'s node `index` and the stack depth its traversal may need.
    fn subtree(&mut self, bvh2: &Bvh2, index: usize, tris: &[Triangle]) -> (u32, usize) {
        let node = &bvh2.nodes[index];
        if node.is_leaf() {
            let first = node.first_index;
            let slots: Vec<u32> = (first..first + node.prim_count).collect();
            return (self.leaf(&slots, tris), 0);
        }
        let kids = open_largest(bvh2, index);
        let at = self.nodes.len();
        self.nodes.push(Node::EMPTY);
        let mut need = 0;
        for (lane, &kid) in kids.iter().enumerate() {
            let (entry, kid_need) = self.subtree(bvh2, kid, tris);
            need = need.max(kid_need);
            let b = bvh2.nodes[kid].aabb();
            let n = &mut self.nodes[at];
            for a in 0..3 {
                n.bounds[a][0][lane] = b.min[a];
                n.bounds[a][1][lane] = b.max[a];
            }
            n.child[lane] = entry;
        }
        (at as u32, need + kids.len() - 1)
    }

    /// A leaf entry for `slots`, split into packets.
    fn leaf(&mut self, slots: &[u32], tris: &[Triangle]) -> u32 {
        let start = self.packets.len();
        for chunk in slots.chunks(LANES) {
            self.packets.push(Packet::new(tris, chunk.iter().copied()));
        }
        let packets = self.packets.len() - start;
        assert!(
            (1..=MAX_PACKETS).contains(&packets),
            "leaf of {} triangles",
            slots.len()
        );
        LEAF | ((packets as u32 - 1) << COUNT_SHIFT) | start as u32
    }

    fn packets_of(&self, entry: u32) -> &[Packet] {
        let start = (entry & ((1 << COUNT_SHIFT) - 1)) as usize;
        let count = ((entry & !LEAF) >> COUNT_SHIFT) as usize + 1;
        &self.packets[start..start + count]
    }

    /// The nearest hit's distance and slot.
    pub(crate) fn closest(&self, ray: &WideRay) -> Option<(f32, u32)> {
        if !ray.is_finite() {
            return None;
        }
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            #[allow(unsafe_code)]
            // SAFETY: `avx2` is set only where `is_x86_feature_detected!("avx2")` said so.
            return unsafe { avx2::closest(self, ray) };
        }
        let enter = |node: &Node, tmax| ray.enter(node, tmax);
        self.closest_by(ray, enter, |p: &Packet, tmax| p.distances(ray, tmax))
    }

    /// [`WideBvh::closest`] with the node and packet tests given.
    #[inline(always)]
    fn closest_by(&self, ray: &WideRay, enter: impl Enter, packet: impl PacketTest) -> Option<(f32, u32)> {
        if self.stack_need + WIDTH <= STACK {
            self.closest_with(ray.tmax, &mut [Pending::default(); STACK], enter, packet)
        } else {
            let need = self.stack_need + WIDTH;
            with_deep_stack(&DEEP_CLOSEST, need, |stack| {
                self.closest_with(ray.tmax, stack, enter, packet)
            })
        }
    }

    #[inline(always)]
    fn closest_with(
        &self,
        tmax: f32,
        stack: &mut [Pending],
        enter: impl Enter,
        packet: impl PacketTest,
    ) -> Option<(f32, u32)> {
        let (mut best, mut slot) = (tmax, u32::MAX);
        let (mut entry, mut top) = (self.root, 0);
        loop {
            if entry & LEAF != 0 {
                for p in self.packets_of(entry) {
                    let t = packet(p, best);
                    for (i, &t) in t.iter().enumerate() {
                        if t < best {
                            (best, slot) = (t, p.slot[i]);
                        }
                    }
                }
            } else {
                let node = &self.nodes[entry as usize];
                let (near, mask) = enter(node, best);
                if let Some(next) = descend(node, near, mask, stack, &mut top) {
                    entry = next;
                    continue;
                }
            }
            // The next pending subtree the ray enters before the best hit so far.
            loop {
                if top == 0 {
                    return (slot != u32::MAX).then_some((best, slot));
                }
                top -= 1;
                if stack[top].near < best {
                    entry = stack[top].entry;
                    break;
                }
            }
        }
    }

    /// Whether a triangle whose slot `counts` accepts lies in `[tmin, tmax)`.
    pub(crate) fn occluded(&self, ray: &WideRay, counts: impl Fn(u32) -> bool) -> bool {
        if !ray.is_finite() {
            return false;
        }
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            #[allow(unsafe_code)]
            // SAFETY: `avx2` is set only where `is_x86_feature_detected!("avx2")` said so.
            return unsafe { avx2::occluded(self, ray, counts) };
        }
        let enter = |node: &Node, tmax| ray.enter(node, tmax);
        (self.occluded_by(ray, counts, enter, |p: &Packet, tmax| p.distances(ray, tmax))).is_some()
    }

    /// [`WideBvh::occluded`], asking the leaf in `cache` first (see [`LeafCache`]).
    pub(crate) fn occluded_cached(
        &self,
        ray: &WideRay,
        counts: impl Fn(u32) -> bool,
        cache: &mut LeafCache,
    ) -> bool {
        if !ray.is_finite() {
            return false;
        }
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            #[allow(unsafe_code)]
            // SAFETY: `avx2` is set only where `is_x86_feature_detected!("avx2")` said so.
            return unsafe { avx2::occluded_cached(self, (ray, counts), cache) };
        }
        let enter = |node: &Node, tmax| ray.enter(node, tmax);
        self.occluded_cached_by((ray, counts), cache, enter, |p: &Packet, tmax| {
            p.distances(ray, tmax)
        })
    }

    /// [`WideBvh::occluded`]'s answer, and the work it took: nodes entered plus leaf packets
    /// tested (the portable tests, counted: a measure of a ray's cost that does not depend on
    /// the machine or its load).
    pub(crate) fn occluded_work(&self, ray: &WideRay, counts: impl Fn(u32) -> bool) -> (bool, u32) {
        if !ray.is_finite() {
            return (false, 0);
        }
        let work = std::cell::Cell::new(0u32);
        let enter = |node: &Node, tmax| {
            work.set(work.get() + 1);
            ray.enter(node, tmax)
        };
        let packet = |p: &Packet, tmax| {
            work.set(work.get() + 1);
            p.distances(ray, tmax)
        };
        let hit = self.occluded_by(ray, counts, enter, packet);
        (hit.is_some(), work.get())
    }

    /// [`WideBvh::occluded`] with the node and packet tests given.
    #[inline(always)]
    fn occluded_by(
        &self,
        ray: &WideRay,
        counts: impl Fn(u32) -> bool,
        enter: impl Enter,
        packet: impl PacketTest,
    ) -> Option<u32> {
        if self.stack_need <= STACK {
            self.occluded_with(ray.tmax, &mut [0; STACK], counts, enter, packet)
        } else {
            with_deep_stack(&DEEP_OCCLUDED, self.stack_need, |stack| {
                self.occluded_with(ray.tmax, stack, counts, enter, packet)
            })
        }
    }

    #[inline(always)]
    fn occluded_with(
        &self,
        tmax: f32,
        stack: &mut [u32],
        counts: impl Fn(u32) -> bool,
        enter: impl Enter,
        packet: impl PacketTest,
    ) -> Option<u32> {
        let (mut entry, mut top) = (self.root, 0);
        loop {
            if entry & LEAF != 0 {
                if self.leaf_stops(entry, tmax, &counts, &packet) {
                    return Some(entry);
                }
            } else {
                let node = &self.nodes[entry as usize];
                let (_, mut mask) = enter(node, tmax);
                if mask != 0 {
                    entry = node.child[mask.trailing_zeros() as usize];
                    mask &= mask - 1;
                    while mask != 0 {
                        stack[top] = node.child[mask.trailing_zeros() as usize];
                        top += 1;
                        mask &= mask - 1;
                    }
                    continue;
                }
            }
            if top == 0 {
                return None;
            }
            top -= 1;
            entry = stack[top];
        }
    }

    /// Whether a triangle of leaf `entry` whose slot `counts` accepts meets the ray before
    /// `tmax` (the traversal's own leaf test).
    #[inline(always)]
    fn leaf_stops(
        &self,
        entry: u32,
        tmax: f32,
        counts: &impl Fn(u32) -> bool,
        packet: &impl PacketTest,
    ) -> bool {
        self.packets_of(entry).iter().any(|p| {
            let t = packet(p, tmax);
            (0..LANES).any(|i| t[i] < tmax && counts(p.slot[i]))
        })
    }

    /// [`WideBvh::occluded`] asking first the leaf that stopped the ray before (`cache`),
    /// and remembering the one that stops this one. A leaf found that way holds a triangle
    /// on the segment, which the traversal finds too: the answer is the same.
    #[inline(always)]
    fn occluded_cached_by(
        &self,
        (ray, counts): (&WideRay, impl Fn(u32) -> bool),
        cache: &mut LeafCache,
        enter: impl Enter,
        packet: impl PacketTest,
    ) -> bool {
        if (cache.leaf).is_some_and(|l| self.leaf_stops(l, ray.tmax, &counts, &packet)) {
            return true;
        }
        let found = self.occluded_by(ray, counts, enter, packet);
        if found.is_some() {
            cache.leaf = found;
        }
        found.is_some()
    }
}

/// The leaf that last stopped a shadow ray, for the next one of a run of rays that are mostly
/// stopped by the same triangles: from neighbouring points toward one point or along one
/// direction ([`crate::Tracer::occluded_cached`]). One per run of such rays; empty to start.
#[derive(Debug, Clone, Copy, Default)]
pub struct LeafCache {
    leaf: Option<u32>,
}

/// A node test: the children's entry distances and the mask of those met before a bound.
trait Enter: Fn(&Node, f32) -> ([f32; WIDTH], u32) {}
impl<F: Fn(&Node, f32) -> ([f32; WIDTH], u32)> Enter for F {}

/// A packet test: each lane's hit distance below a bound, or infinity.
trait PacketTest: Fn(&Packet, f32) -> [f32; LANES] {}
impl<F: Fn(&Packet, f32) -> [f32; LANES]> PacketTest for F {}

/// After a node test: pushes all but the nearest child met, farthest first, and returns the
/// nearest. The children are sorted straight into the free top of `stack` (room for a whole
/// node's worth is kept past [`WideBvh::stack_need`]).
#[inline(always)]
fn descend(
    node: &Node,
    near: [f32; WIDTH],
    mut mask: u32,
    stack: &mut [Pending],
    top: &mut usize,
) -> Option<u32> {
    if mask == 0 {
        return None;
    }
    let first = mask.trailing_zeros() as usize;
    mask &= mask - 1;
    if mask == 0 {
        return Some(node.child[first]);
    }
    let base = *top;
    stack[base] = Pending {
        entry: node.child[first],
        near: near[first],
    };
    let mut end = base + 1;
    while mask != 0 {
        let i = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        let mut k = end;
        while k > base && stack[k - 1].near < near[i] {
            stack[k] = stack[k - 1];
            k -= 1;
        }
        stack[k] = Pending {
            entry: node.child[i],
            near: near[i],
        };
        end += 1;
    }
    *top = end - 1;
    Some(stack[end - 1].entry)
}

/// obvhs's PLOC build (as its `build_bvh2`) over the triangles' padded boxes, leaves of up to
/// [`LEAF_TRIANGLES`].
pub(crate) fn ploc_tree(tris: &[Triangle], params: BvhBuildParams, pad: impl Fn(Aabb) -> Aabb) -> Bvh2 {
    let boxes: Vec<Aabb> = tris.iter().map(|t| pad(t.aabb())).collect();
    let indices: Vec<u32> = (0..tris.len() as u32).collect();
    let mut ploc = PlocBuilder::with_capacity(boxes.len());
    let (distance, depth) = (params.ploc_search_distance, params.search_depth_threshold);
    let mut bvh2 = ploc.build(distance, &boxes, indices, params.sort_precision, depth);
    let mut reinsertion = ReinsertionOptimizer::default();
    reinsertion.run(&mut bvh2, params.reinsertion_batch_ratio, None);
    collapse(&mut bvh2, LEAF_TRIANGLES, params.collapse_traversal_cost);
    let again = params.reinsertion_batch_ratio * params.post_collapse_reinsertion_batch_ratio_multiplier;
    reinsertion.run(&mut bvh2, again, None);
    bvh2
}

/// The children of `bvh2`'s inner node `index` after opening, up to [`WIDTH`], always the
/// inner child with the largest surface.
fn open_largest(bvh2: &Bvh2, index: usize) -> Vec<usize> {
    let first = bvh2.nodes[index].first_index as usize;
    let mut kids = vec![first, first + 1];
    while kids.len() < WIDTH {
        let largest = (kids.iter().enumerate())
            .filter(|&(_, &k)| !bvh2.nodes[k].is_leaf())
            .max_by(|a, b| {
                let area = |k: usize| bvh2.nodes[k].aabb().half_area();
                area(*a.1).total_cmp(&area(*b.1))
            });
        let Some((at, &kid)) = largest else { break };
        let first = bvh2.nodes[kid].first_index as usize;
        kids[at] = first;
        kids.push(first + 1);
    }
    kids
}

#[cfg(target_arch = "x86_64")]
fn has_avx2() -> bool {
    is_x86_feature_detected!("avx2")
}

#[cfg(not(target_arch = "x86_64"))]
fn has_avx2() -> bool {
    false
}
