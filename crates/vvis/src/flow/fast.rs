//! Our portal flow ([`super::FlowKind::Fast`]). What the walk finds is the set of portals at
//! the ends of the paths that pass every one of Valve's tests; its gains are pruning and order,
//! never a different test:
//! - it stops behind a portal whose might-see set holds nothing new (vvis walks on; exact);
//! - it expands the walk's states (a level after going through a portal) widest first rather
//!   than depth first, and skips a state whose windings and might-see set lie inside those of
//!   one found before through the same portal: smaller windings and a smaller set can only
//!   find less (`Walk::widest_first`). Far fewer states are expanded than Valve's walk takes
//!   steps.
//!
//!   That skipping is exact in exact geometry only: vvis's epsilons can let a state inside
//!   another see a little more (a separator is dropped when the windings come within
//!   `ON_VIS_EPSILON` of it). On the corpus a pass a fraction of a unit wide saw a portal that
//!   the windings holding it did not, and so cluster pairs the reference sees were lost. So a
//!   state whose pass is a sliver, narrower than `THIN_WINDOW`, is never skipped nor dropped
//!   (a few percent more states);
//! - it looks for clusters, not portals. The PVS is per cluster (vvis's `ClusterMerge` ORs the
//!   results of a cluster's portals), so another portal into a cluster that the base portal's
//!   cluster is known to see (one its own portals lead into, or one the walk has found; with
//!   [`super::FlowKind::FastSiblings`] also one in the finished result of another portal out
//!   of the same cluster) is no news, and a state whose might-see set holds nothing but found
//!   portals and such ones is not expanded (`Walk::seen`).
//!
//!   This is exact for the walk's own cluster but not for the walks after it, which reuse its
//!   result (vvis narrows a walk that goes through a finished portal to what that portal saw):
//!   the result it publishes is what it found plus its flood's portals into the clusters known
//!   seen, a superset of what vvis's walk finds there, so later walks can see more than
//!   vvis's, never less. (vvis's own output depends on which results it reuses, that is on its
//!   thread count: see [`super::LOCKSTEP`].)
//!
//! - it stops a walk that has expanded its budget of states (its own, [`WALK_STATES`], or
//!   less, its cap of the whole flow's budget: see [`super::budget`]) and takes as seen every
//!   cluster the states still waiting might see: a superset of what the walk would have found
//!   (conservative, never exact). On the corpus only aim_ag_texture_city, an open map, reaches
//!   either (`docs/vvis-measurements.md`); they bound the time and memory of its walks, which
//!   have no other bound.
//!
//! Per state, it finds the separating planes of its windings once, as far as its targets need
//! them, a source edge at a time with four candidate planes normalised together
//! ([`crate::clip::separator_row`], bit for bit vvis's planes); tests targets against them
//! before clipping, all four points at once ([`crate::clip::Quad`]) or, past four points, by
//! bounding sphere; confines bit-set work to the non-zero words; and builds a
//! state's narrowed might-see set only when its portal passes (the test for anything new stops
//! at the first word that has some).
//!
//! The figures behind these choices (states, steps, pairs gained or lost on corpus maps) are
//! in `docs/vvis-measurements.md`.

use crate::bits::Bits;
use crate::clip::{Chop, Quad, SepCursor, V3, VPlane, chop, cuts, dot, next_separator_row, sub};
use crate::graph::{BaseVis, Graph};

use super::shadow::Shadow;
use super::{Children, Counters, Done, FlowKind, Frame, WalkLimits, clip_pass_and_source, frame_pair};

struct Walk<'a> {
    graph: &'a Graph,
    children: &'a Children,
    base: &'a [BaseVis],
    done: Done<'a>,
    base_portal: usize,
    head_plane: VPlane,
    /// The portals found.
    vis: Bits,
    /// The portals whose finding adds nothing: those found, and in the fast flow all those
    /// into the clusters the base portal's cluster is known to see (`known`). What is "new"
    /// to the walk is what is not in here.
    seen: Bits,
    /// Fast flow: the clusters the base portal's cluster is known to see.
    known: Bits,
    counters: Counters,
    /// Whether the last [`Walk::step`] had anything new (not in `seen`) in its might-see set.
    found_new: bool,
    /// Separators of a target whose source was cut for it alone.
    seps_tmp: Vec<VPlane>,
    /// The thread's buffers: the walk's levels and states.
    buf: Scratch,
    /// At most this many bytes in `buf.arena` (see [`ARENA_BYTES`]) and states expanded (see
    /// [`WALK_STATES`]).
    limits: WalkLimits,
    /// The depth-first walk reached the state budget and stopped.
    out_of_states: bool,
    /// [`super::FlowKind::FastSiblings`]: the clusters in the finished results of the base
    /// cluster's other portals are known seen too.
    know_siblings: bool,
    /// [`super::FlowKind::FastShadow`]: new states whose unseen portals all lie in the shadow
    /// of their parent's separators are not expanded ([`Walk::drop_hopeless`]).
    use_shadow: bool,
}

/// The states of the widest-first walk, packed: each one's might-see words (`lo..hi`) and
/// windings, one after another in two buffers (kept from one base portal to the next).
#[derive(Default)]
struct Arena {
    words: Vec<u64>,
    points: Vec<V3>,
    meta: Vec<StateMeta>,
    /// Edge planes of each state's windings, found when first needed.
    edges: Vec<StateEdges>,
}

#[derive(Clone, Copy, Default)]
struct StateMeta {
    /// The cluster the state enters.
    leaf: u32,
    /// Its might-see words `lo..hi` are at `words_at` in [`Arena::words`]; its pass then
    /// source windings at `points_at` in [`Arena::points`].
    words_at: u32,
    lo: u32,
    hi: u32,
    points_at: u32,
    pass_len: u16,
    source_len: u16,
    /// A state holding this one took its place before it was expanded.
    dropped: bool,
    expanded: bool,
}

impl Arena {
    fn clear(&mut self) {
        self.words.clear();
        self.points.clear();
        self.meta.clear();
    }

    fn push(&mut self, f: &Frame, leaf: u32) {
        let meta = StateMeta {
            leaf,
            words_at: self.words.len() as u32,
            lo: f.lo as u32,
            hi: f.hi as u32,
            points_at: self.points.len() as u32,
            pass_len: f.pass.len() as u16,
            source_len: f.source.len() as u16,
            dropped: false,
            expanded: false,
        };
        self.words.extend_from_slice(&f.might[f.lo..f.hi]);
        self.points.extend_from_slice(&f.pass);
        self.points.extend_from_slice(&f.source);
        self.meta.push(meta);
        if self.edges.len() < self.meta.len() {
            self.edges.push(StateEdges::default());
        }
        self.edges[self.meta.len() - 1].clear();
    }

    /// State `e` need not be expanded, if it is still waiting: a state holding it took its
    /// place.
    fn drop_waiting(&mut self, e: usize) {
        if !self.meta[e].expanded {
            self.meta[e].dropped = true;
        }
    }

    fn might(&self, i: usize) -> &[u64] {
        let m = self.meta[i];
        &self.words[m.words_at as usize..(m.words_at + m.hi - m.lo) as usize]
    }

    /// Roughly what the arena holds: its buffers, and per state its record and edge planes.
    fn bytes(&self) -> usize {
        const PER_STATE: usize = std::mem::size_of::<StateMeta>() + 64;
        self.words.len() * 8 + self.points.len() * 12 + self.meta.len() * PER_STATE
    }

    /// A state's (pass, source) windings.
    fn windings(&self, i: usize) -> (&[V3], &[V3]) {
        let m = self.meta[i];
        let at = m.points_at as usize;
        let p = m.pass_len as usize;
        (
            &self.points[at..at + p],
            &self.points[at + p..at + p + m.source_len as usize],
        )
    }

    /// State `i`'s might-see set keeps only portals in `seen`: it has nothing new to find.
    fn forget_unseen(&mut self, i: usize, seen: &[u64]) {
        let m = self.meta[i];
        let words = &mut self.words[m.words_at as usize..(m.words_at + m.hi - m.lo) as usize];
        for (w, s) in words.iter_mut().zip(&seen[m.lo as usize..]) {
            *w &= s;
        }
    }

    fn something_new(&self, i: usize, seen: &[u64]) -> bool {
        let lo = self.meta[i].lo as usize;
        self.might(i).iter().zip(&seen[lo..]).any(|(m, v)| m & !v != 0)
    }

    /// State `i` as a walk level in `f` (its separators not yet found).
    fn load(&self, i: usize, f: &mut Frame) {
        let m = self.meta[i];
        f.might[m.lo as usize..m.hi as usize].copy_from_slice(self.might(i));
        (f.lo, f.hi) = (m.lo as usize, m.hi as usize);
        let (pass, source) = self.windings(i);
        f.pass.clear();
        f.pass.extend_from_slice(pass);
        f.source.clear();
        f.source.extend_from_slice(source);
        f.seps.clear();
        f.cursor = SepCursor::default();
    }
}

/// Buffers a thread reuses from one base portal to the next (no allocation in the walk).
#[derive(Default)]
struct Scratch {
    frames: Vec<Frame>,
    tmp: Vec<V3>,
    /// Fast flow: the states found through each portal (see [`Walk::admit`]).
    through: Vec<PortalStates>,
    /// Portals whose slot in `through` is in use, to reset them for the next base portal.
    touched: Vec<u32>,
    /// Edge planes of a new state's windings.
    edges: StateEdges,
    /// The separators of the state being expanded, for [`Walk::drop_hopeless`].
    shadow: Shadow,
    /// The fast walk's states, the level being expanded, and the states waiting, widest first.
    arena: Arena,
    expand: Frame,
    waiting: WidestFirst,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// The states found through one portal that later ones are tested against: up to
/// [`STATES_PER_PORTAL`] states of the [`Arena`], then a ring (the oldest forgotten first).
#[derive(Clone, Default)]
struct PortalStates {
    /// 0 while the slot is unused in this walk, else one more than the ring position to
    /// overwrite next.
    oldest: usize,
    entries: Vec<u32>,
    /// The entries' bounding boxes side by side: most of a slot's scan touches only these.
    bounds: Vec<Bounds>,
}

impl PortalStates {
    fn insert(&mut self, state: u32, bounds: Bounds) {
        if self.entries.len() < STATES_PER_PORTAL {
            self.entries.push(state);
            self.bounds.push(bounds);
            self.oldest = self.oldest.max(1);
        } else {
            let k = (self.oldest - 1) % self.entries.len();
            self.oldest = k + 2;
            self.entries[k] = state;
            self.bounds[k] = bounds;
        }
    }

    /// Forgets entry `j` (the last takes its place).
    fn remove(&mut self, j: usize) {
        self.entries.swap_remove(j);
        self.bounds.swap_remove(j);
    }

    fn clear(&mut self) {
        self.oldest = 0;
        self.entries.clear();
        self.bounds.clear();
    }
}

/// Axis-aligned bounds of a state's pass and source windings, as `-min` then `max` of each, so
/// that one box inside another is twelve comparisons the same way round.
type Bounds = [f32; 12];

fn state_bounds(pass: &[V3], source: &[V3]) -> Bounds {
    // `f32::max` as one comparison (a vector max): the bound is never NaN, so a NaN
    // coordinate is skipped as `max` skips it, without `max`'s NaN handling per coordinate.
    let raise = |b: &mut f32, x: f32| *b = if x > *b { x } else { *b };
    let mut b = [f32::NEG_INFINITY; 12];
    for (w, at) in [(pass, 0), (source, 6)] {
        for p in w {
            for k in 0..3 {
                raise(&mut b[at + k], -p[k]);
                raise(&mut b[at + 3 + k], p[k]);
            }
        }
    }
    b
}

fn bounds_inside(inner: &Bounds, outer: &Bounds) -> bool {
    inner
        .iter()
        .zip(outer)
        .fold(true, |ok, (i, o)| ok & (*i <= o + CONTAIN_EPSILON))
}

/// Whether might-see set `inner` (its words from `inner_lo`) is inside `outer` (from `outer_lo`).
fn might_inside(inner: &[u64], inner_lo: usize, outer: &[u64], outer_lo: usize) -> bool {
    // The words both cover; `inner`'s words outside them must be empty.
    let lo = inner_lo.max(outer_lo);
    let hi = (inner_lo + inner.len()).min(outer_lo + outer.len());
    if lo >= hi {
        return inner.iter().all(|&w| w == 0);
    }
    let (head, rest) = inner.split_at(lo - inner_lo);
    let (both, tail) = rest.split_at(hi - lo);
    head.iter().chain(tail).all(|&w| w == 0)
        && both
            .chunks(8)
            .zip(outer[lo - outer_lo..hi - outer_lo].chunks(8))
            .all(|(i, o)| i.iter().zip(o).fold(0, |acc, (i, o)| acc | i & !o) == 0)
}

/// The inward planes through the edges of convex winding `w`, which lies in a plane of normal `n`.
fn edge_planes(w: &[V3], n: V3, out: &mut Vec<VPlane>) {
    out.clear();
    // The winding's turn about `n` (Newell's normal), so that "inward" needs no assumption.
    let mut turn = [0f32; 3];
    for (i, &a) in w.iter().enumerate() {
        let b = w[next_index(i, w.len())];
        turn[0] += (a[1] - b[1]) * (a[2] + b[2]);
        turn[1] += (a[2] - b[2]) * (a[0] + b[0]);
        turn[2] += (a[0] - b[0]) * (a[1] + b[1]);
    }
    let s = if dot(turn, n) >= 0.0 { 1.0 } else { -1.0 };
    for (i, &a) in w.iter().enumerate() {
        let e = sub(w[next_index(i, w.len())], a);
        let inward = [
            s * (n[1] * e[2] - n[2] * e[1]),
            s * (n[2] * e[0] - n[0] * e[2]),
            s * (n[0] * e[1] - n[1] * e[0]),
        ];
        let len = dot(inward, inward).sqrt();
        if len > 0.0 {
            let normal = inward.map(|c| c / len);
            out.push(VPlane {
                normal,
                dist: dot(normal, a),
            });
        }
    }
}

/// The index after `i` in a winding of `n` points, wrapping (without a division).
#[inline(always)]
fn next_index(i: usize, n: usize) -> usize {
    if i + 1 == n { 0 } else { i + 1 }
}

/// Whether every point of `inner` lies inside the edge planes of a convex winding.
fn inside_edges(inner: &[V3], edges: &[VPlane]) -> bool {
    edges
        .iter()
        .all(|e| inner.iter().all(|&v| e.distance(v) >= -CONTAIN_EPSILON))
}

/// Edge planes of a state's windings: the pass lies in its portal's plane, the source in the
/// base portal's.
#[derive(Clone, Default)]
struct StateEdges {
    pass: Vec<VPlane>,
    source: Vec<VPlane>,
}

impl StateEdges {
    fn find(&mut self, pass: &[V3], source: &[V3], pass_normal: V3, source_normal: V3) {
        edge_planes(pass, pass_normal, &mut self.pass);
        edge_planes(source, source_normal, &mut self.source);
    }

    fn is_empty(&self) -> bool {
        self.pass.is_empty()
    }

    fn clear(&mut self) {
        self.pass.clear();
        self.source.clear();
    }

    /// Whether windings `pass` and `source` lie inside these.
    fn hold(&self, pass: &[V3], source: &[V3]) -> bool {
        inside_edges(pass, &self.pass) && inside_edges(source, &self.source)
    }
}

/// How far (units) a point may lie outside a winding and still count as inside it for
/// [`Walk::admit`]: vertices shared by two windings (on the portal's own edges) come out a few
/// ulps apart. A tenth of vvis's `ON_VIS_EPSILON`.
const CONTAIN_EPSILON: f32 = 0.001;

/// States kept per portal to test new ones against (forgetting one only costs time).
const STATES_PER_PORTAL: usize = 128;

/// States one portal's walk may expand unless told otherwise (see [`WalkLimits`]). The largest
/// walks measured expand 7–9 thousand states (subway01, a3c8p1_forest_day) and up to 70
/// thousand (jump_byte_a3 from Valve's tree); 13 of aim_ag_texture_city's reach it. At about
/// 1.3 KB a state on the largest maps a walk holds at most ~130 MB. Without a budget an open
/// map's walks grew until they outgrew [`ARENA_BYTES`] and went depth first, which has no bound.
pub const WALK_STATES: u64 = 100_000;

/// Bytes of states the widest-first walk of one base portal may hold unless told otherwise
/// (the largest corpus map needs well under half of it, see `docs/vvis-measurements.md`); past
/// this the portal's flow starts again depth first, which needs no more than its stack.
pub const ARENA_BYTES: usize = 512 << 20;

/// The flow of one-way portal `p`: the portals it can see, and those standing in for what it
/// did not look for (see the module docs).
pub(super) fn flow_one(
    graph: &Graph,
    children: &Children,
    base: &[BaseVis],
    done: Done<'_>,
    p: usize,
    limits: WalkLimits,
    kind: FlowKind,
) -> (Bits, Counters) {
    let portal = &graph.portals[p];
    let scratch = Scratch::take(graph, &base[p].flood.words, &portal.winding);
    let mut walk = Walk::new(graph, children, base, done, p, scratch, (limits, kind));
    walk.start();
    // Depth first only when the states outgrow the memory budget.
    if walk.widest_first(portal.leaf as usize) == WalkEnd::OutOfMemory {
        walk.start();
        walk.leaf_flow(portal.leaf as usize, 1);
        walk.held_bytes(walk.buf.frames.iter().map(Frame::bytes).sum());
        if walk.out_of_states {
            walk.widen_to(&base[p].flood);
        }
    }
    walk.add_stand_ins(&base[p].flood);
    walk.finish()
}

/// How a widest-first walk ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WalkEnd {
    Finished,
    /// Its states outgrew the memory budget: walked again depth first.
    OutOfMemory,
    /// It expanded its budget of states: its result is widened to what the waiting states
    /// might see.
    OutOfStates,
}

impl Scratch {
    /// This thread's buffers, the head level set to the base portal (might-see set `flood`,
    /// source `winding`) and a `through` slot per portal.
    fn take(graph: &Graph, flood: &[u64], winding: &[V3]) -> Scratch {
        let mut scratch = SCRATCH.with(|s| std::mem::take(&mut *s.borrow_mut()));
        if scratch.frames.is_empty() {
            scratch.frames.push(Frame::default());
        }
        scratch.frames[0].reset_head(flood, graph.words, winding);
        if scratch.through.len() != graph.portals.len() {
            scratch.through = vec![PortalStates::default(); graph.portals.len()];
            scratch.touched.clear();
        }
        scratch
    }
}

impl<'a> Walk<'a> {
    /// The walk of base portal `p`, on this thread's buffers, within `limits`; `kind` tells
    /// whether it knows its siblings' results and uses the shadow of separators.
    fn new(
        graph: &'a Graph,
        children: &'a Children,
        base: &'a [BaseVis],
        done: Done<'a>,
        p: usize,
        scratch: Scratch,
        (limits, kind): (WalkLimits, FlowKind),
    ) -> Walk<'a> {
        let words = graph.words;
        Walk {
            graph,
            children,
            base,
            done,
            base_portal: p,
            head_plane: graph.portals[p].plane,
            vis: Bits::new(words),
            seen: Bits::new(words),
            known: Bits::new(graph.num_clusters.div_ceil(64)),
            counters: Counters::default(),
            found_new: false,
            seps_tmp: Vec::new(),
            buf: scratch,
            limits,
            out_of_states: false,
            know_siblings: kind == FlowKind::FastSiblings,
            use_shadow: kind == FlowKind::FastShadow,
        }
    }

    /// The portals the walk did not look for stand in for what it would have found beyond
    /// them: those of the flood into the clusters known seen (see the module docs).
    fn add_stand_ins(&mut self, flood: &Bits) {
        for ((v, s), f) in self.vis.words.iter_mut().zip(&self.seen.words).zip(&flood.words) {
            *v |= s & f;
        }
    }

    /// A walk stopped short: every cluster a portal of `might` (what the walk's unexpanded
    /// states might see) leads into counts as seen, a superset of what the walk would have
    /// found beyond them (every portal a walk finds lies in the might-see set of the state it
    /// goes through, which narrows from its parent's).
    fn widen_to(&mut self, might: &Bits) {
        self.counters.cut += 1;
        for q in might.ones() {
            let c = self.graph.portals[q].leaf as usize;
            self.counters.widened += u64::from(!self.known.get(c));
            self.know(c);
        }
    }

    /// The portals found and the counters; the buffers go back to the thread, `through`
    /// emptied for the next base portal.
    fn finish(mut self) -> (Bits, Counters) {
        for &t in &self.buf.touched {
            self.buf.through[t as usize].clear();
        }
        self.buf.touched.clear();
        SCRATCH.with(|s| *s.borrow_mut() = self.buf);
        (self.vis, self.counters)
    }
}

impl Walk<'_> {
    /// Nothing found yet. The base portal's cluster is known to see the clusters its own
    /// portals lead into, whatever the flow finds (`ClusterMerge` sets those portals' bits);
    /// with `know_siblings`, also those in the finished results of its other portals that this
    /// walk may reuse (`ClusterMerge` ORs them into the same row).
    fn start(&mut self) {
        self.vis.words.fill(0);
        self.seen.words.fill(0);
        self.known.words.fill(0);
        let from = self.graph.portals[self.base_portal ^ 1].leaf as usize;
        for &q in self.children.of(from) {
            self.know(self.graph.portals[q as usize].leaf as usize);
        }
        if self.know_siblings {
            for &q in self.children.of(from) {
                if let Some(v) = self.done.get(q as usize) {
                    for r in v.ones() {
                        self.know(self.graph.portals[r].leaf as usize);
                    }
                }
            }
        }
    }

    /// The walk held `bytes` of states (see [`Counters::state_bytes`]).
    fn held_bytes(&mut self, bytes: usize) {
        self.counters.state_bytes = self.counters.state_bytes.max(bytes as u64);
    }

    /// Cluster `c` is seen from the base portal's cluster: no portal into it is news.
    fn know(&mut self, c: usize) {
        if !self.known.get(c) {
            self.known.set(c);
            self.seen.or_with(&self.children.into[c]);
        }
    }

    /// vvis `RecursiveLeafFlow`, pruned as the widest-first walk is: `frames[depth - 1]` is the
    /// level that led into `leaf`. The walk when a portal's states outgrow [`ARENA_BYTES`].
    fn leaf_flow(&mut self, leaf: usize, depth: usize) {
        // A walk can never be longer than the portals it could pass; this only guards bad input.
        if depth > self.graph.portals.len() + 1 {
            return;
        }
        if self.counters.chains >= self.limits.states {
            self.out_of_states = true;
            return;
        }
        self.counters.chains += 1;
        let graph = self.graph;
        for &pn in self.children.of(leaf) {
            // Beyond a portal whose might-see set holds nothing unseen the walk can find nothing
            // (vvis walks on anyway; this walk stops after marking the portal).
            let mut frames = std::mem::take(&mut self.buf.frames);
            let (prev, cur) = frame_pair(&mut frames, depth, graph.words);
            let passed = self.step(pn as usize, prev, cur);
            self.buf.frames = frames;
            if !passed || !self.found_new {
                continue;
            }
            self.leaf_flow(graph.portals[pn as usize].leaf as usize, depth + 1);
        }
    }

    /// The fast walk: vvis's states, expanded widest first instead of depth first.
    ///
    /// A state (the level after going through a portal: its source and pass windings and
    /// might-see set) is expanded by testing the portals out of the cluster it enters; each
    /// one that passes and could show something unseen is a new state. What the walk finds
    /// does not depend on the order of expansion, only on which states are expanded, so they
    /// wait in a queue ordered by the area of their pass winding. Widest first, a portal is
    /// mostly gone through first with its widest states, and a later state whose windings and
    /// might-see set lie inside those of one found before through the same portal is never
    /// expanded: smaller windings and a smaller set can only find less (every separating plane
    /// of the larger windings separates the smaller ones too, and every path through the
    /// smaller set is a path through the larger; exact in exact geometry, see the module
    /// docs). A new state that holds waiting ones takes their place.
    ///
    /// Stops when its states outgrow the memory budget (the walk then abandoned) or when it
    /// has expanded its budget of states (its result widened, see [`Walk::widen_to`]).
    fn widest_first(&mut self, leaf: usize) -> WalkEnd {
        let words = self.graph.words;
        self.buf.arena.clear();
        let mut frames = std::mem::take(&mut self.buf.frames);
        while frames.len() < 2 {
            frames.push(Frame::default());
        }
        frames[1].might.resize(words, 0);
        let (head, rest) = frames.split_at_mut(1);
        let (head, cur) = (&mut head[0], &mut rest[0]);
        // State 0 is the head level itself.
        self.buf.arena.push(head, leaf as u32);
        let mut expand = std::mem::take(&mut self.buf.expand);
        expand.might.resize(words, 0);
        let mut waiting = std::mem::take(&mut self.buf.waiting);
        waiting.clear();
        waiting.push(f32::INFINITY, 0);
        let end = self.expand_waiting(head, cur, &mut expand, &mut waiting);
        self.counters.kept += self.buf.arena.meta.len() as u64 - 1;
        self.held_bytes(self.buf.arena.bytes());
        if end == WalkEnd::OutOfStates {
            self.widen_to_waiting(&mut waiting);
        }
        self.buf.expand = expand;
        self.buf.frames = frames;
        self.buf.waiting = waiting;
        end
    }

    /// The walk stopped at its state budget: widened to what the states still waiting might
    /// see.
    fn widen_to_waiting(&mut self, waiting: &mut WidestFirst) {
        let mut might = Bits::new(self.graph.words);
        while let Some(i) = waiting.pop() {
            let m = self.buf.arena.meta[i as usize];
            if !m.dropped {
                let words = &mut might.words[m.lo as usize..m.hi as usize];
                for (w, s) in words.iter_mut().zip(self.buf.arena.might(i as usize)) {
                    *w |= s;
                }
            }
        }
        self.widen_to(&might);
    }

    /// Expands the waiting states, widest first, until none is left, the states outgrow the
    /// memory budget, or the budget of states is spent (a state that would be expanded then
    /// waits again). `head` is state 0; `expand` holds the others in turn; `cur` is the level
    /// being built.
    #[inline(always)]
    fn expand_waiting(
        &mut self,
        head: &mut Frame,
        cur: &mut Frame,
        expand: &mut Frame,
        waiting: &mut WidestFirst,
    ) -> WalkEnd {
        while let Some(i) = waiting.pop() {
            let i = i as usize;
            let state = self.buf.arena.meta[i];
            // Nothing unseen left in its might-see set: nothing to find beyond (as in `step`).
            if state.dropped || (i > 0 && !self.buf.arena.something_new(i, &self.seen.words)) {
                self.buf.arena.meta[i].expanded = true;
                continue;
            }
            if self.counters.chains >= self.limits.states {
                waiting.push(0.0, i as u32);
                return WalkEnd::OutOfStates;
            }
            self.buf.arena.meta[i].expanded = true;
            if self.buf.arena.bytes() > self.limits.memory {
                return WalkEnd::OutOfMemory;
            }
            self.counters.chains += 1;
            let prev: &mut Frame = if i == 0 {
                &mut *head
            } else {
                self.buf.arena.load(i, expand);
                &mut *expand
            };
            self.expand_state(state.leaf as usize, prev, cur, waiting);
        }
        WalkEnd::Finished
    }

    /// Tests the portals out of `leaf`, which state `prev` entered; each new state that must
    /// be expanded is kept and waits.
    #[inline(always)]
    fn expand_state(&mut self, leaf: usize, prev: &mut Frame, cur: &mut Frame, waiting: &mut WidestFirst) {
        let first = self.buf.arena.meta.len();
        for &pn in self.children.of(leaf) {
            let pn = pn as usize;
            if !self.step(pn, prev, cur) || !self.found_new {
                continue;
            }
            let Some(bounds) = self.admit(pn, cur) else {
                continue;
            };
            let n = self.keep_state(pn, cur, bounds);
            waiting.push(area_squared(&cur.pass), n);
        }
        if self.use_shadow && first < self.buf.arena.meta.len() {
            self.drop_hopeless(prev, first);
        }
    }

    /// Of the states just kept (from `first` on, all found through the state `parent`), those
    /// whose unseen portals all lie in the shadow of `parent`'s separators forget them, and so
    /// are not expanded (see [`super::shadow`] for why, and why this is not exact).
    fn drop_hopeless(&mut self, parent: &Frame, first: usize) {
        let kept = &self.buf.arena.meta[first..];
        let lo = kept.iter().map(|m| m.lo).min().unwrap_or(0) as usize;
        let hi = kept.iter().map(|m| m.hi).max().unwrap_or(0) as usize;
        if !self
            .buf
            .shadow
            .reset(&parent.pass, self.head_plane, (lo, hi), self.graph.words)
        {
            return;
        }
        for n in first..self.buf.arena.meta.len() {
            if self.hopeless(n, &parent.seps) {
                self.buf.arena.forget_unseen(n, &self.seen.words);
            }
        }
    }

    /// Whether every unseen portal of state `n`'s might-see set lies in the shadow of `seps`.
    fn hopeless(&mut self, n: usize, seps: &[VPlane]) -> bool {
        let (arena, shadow) = (&self.buf.arena, &mut self.buf.shadow);
        let lo = arena.meta[n].lo as usize;
        for (k, &word) in (lo..).zip(arena.might(n)) {
            let mut unseen = word & !self.seen.words[k];
            while unseen != 0 {
                let q = k * 64 + unseen.trailing_zeros() as usize;
                unseen &= unseen - 1;
                if !shadow.holds(seps, q, &self.graph.portals[q]) {
                    return false;
                }
            }
        }
        true
    }

    /// Keeps the state in `cur`, found through portal `pn`, in the arena and in `pn`'s slot;
    /// its number.
    #[inline(always)]
    fn keep_state(&mut self, pn: usize, cur: &Frame, bounds: Bounds) -> u32 {
        let n = self.buf.arena.meta.len() as u32;
        self.buf.arena.push(cur, self.graph.portals[pn].leaf);
        let slot = &mut self.buf.through[pn];
        if slot.oldest == 0 {
            self.buf.touched.push(pn as u32);
        }
        slot.insert(n, bounds);
        n
    }

    /// Whether the state in `cur` (just found through portal `pn`) must be expanded: not when
    /// a state found before through `pn` holds its windings and might-see set (see
    /// [`Walk::widest_first`]). Otherwise the states it holds leave `pn`'s slot (those still
    /// waiting are dropped: it finds all they would), and its bounds, for the slot. One pass
    /// over the slot does both: a state dropped before one that turns out to hold `cur` is
    /// held by that one too.
    fn admit(&mut self, pn: usize, cur: &Frame) -> Option<Bounds> {
        let mut new = NewState {
            frame: cur,
            might: &cur.might[cur.lo..cur.hi],
            lo: cur.lo,
            bounds: state_bounds(&cur.pass, &cur.source),
            thin: None,
            normals: (self.graph.portals[pn].plane.normal, self.head_plane.normal),
        };
        let arena = &mut self.buf.arena;
        let slot = &mut self.buf.through[pn];
        let edges = &mut self.buf.edges;
        edges.clear();
        let mut j = 0;
        while j < slot.entries.len() {
            let e = slot.entries[j] as usize;
            match new.against(arena, edges, &slot.bounds[j], e) {
                Verdict::Held => {
                    self.counters.held += 1;
                    return None;
                }
                Verdict::Holds => {
                    arena.drop_waiting(e);
                    slot.remove(j);
                }
                Verdict::Neither => j += 1,
            }
        }
        Some(new.bounds)
    }

    /// Tests portal `pn` out of the cluster that level `prev` entered; true when the walk
    /// should go through it (its bit is then set and `cur` holds the new level).
    #[inline(always)]
    fn step(&mut self, pn: usize, prev: &mut Frame, cur: &mut Frame) -> bool {
        // Most portals out of a cluster are not in the might-see set: that test is made in the
        // caller, without a call.
        let (word, bit) = (pn / 64, 1u64 << (pn % 64));
        if word < prev.lo || word >= prev.hi || prev.might[word] & bit == 0 {
            return false; // can't possibly see it
        }
        self.candidate(pn, prev, cur)
    }

    /// [`Walk::step`] for a portal in `prev`'s might-see set.
    #[inline(never)]
    fn candidate(&mut self, pn: usize, prev: &mut Frame, cur: &mut Frame) -> bool {
        let (done, base_vis) = (self.done, self.base);
        let test: &[u64] = match done.get(pn) {
            Some(v) => &v.words,
            None => &base_vis[pn].flood.words,
        };
        let (word, bit) = (pn / 64, 1u64 << (pn % 64));
        let seen_p = self.seen.words[word] & bit != 0;
        self.counters.candidates += 1;
        let more = news(prev, test, &self.seen.words);
        if more == 0 && seen_p {
            return false; // can't see anything new
        }
        self.found_new = more != 0;
        self.counters.geometric += 1;
        if !self.clip_through(pn, prev, cur) {
            return false;
        }
        if more != 0 {
            narrow(cur, prev, test);
        }
        self.vis.words[word] |= bit;
        self.seen.words[word] |= bit;
        self.know(self.graph.portals[pn].leaf as usize);
        self.counters.passed += 1;
        true
    }

    /// The geometric tests of portal `pn` from level `prev`: its winding clipped by the pass
    /// and source, then by their separators, into `cur`; false when nothing is left.
    #[inline(always)]
    fn clip_through(&mut self, pn: usize, prev: &mut Frame, cur: &mut Frame) -> bool {
        let graph = self.graph;
        let p = &graph.portals[pn];
        let base = &graph.portals[self.base_portal];
        let Some(source_clipped) = clip_pass_and_source(p, &self.head_plane, base, prev, cur) else {
            return false;
        };
        if prev.pass.is_empty() {
            return true;
        }
        let target = Target::new(p, &mut cur.pass);
        // With the source cut for this target alone, its own separators; else those of the
        // level above, shared by all its targets.
        let mut fresh = SepCursor::default();
        let (source, seps, cursor) = if source_clipped {
            self.seps_tmp.clear();
            (&cur.source[..], &mut self.seps_tmp, &mut fresh)
        } else {
            (&prev.source[..], &mut prev.seps, &mut prev.cursor)
        };
        clip_lazy(
            source,
            &prev.pass,
            seps,
            cursor,
            target,
            &mut self.buf.tmp,
            &mut self.counters,
        )
    }
}

/// Whether anything new is visible through a portal whose finished (or base) result is `test`:
/// a portal in `prev`'s might-see set and `test` but not in `seen` (non-zero: some). Only
/// whether: the narrowed set itself is built once the geometric tests pass and the walk goes
/// on through the portal. Eight words at a time (vector instructions), stopping at the first
/// block with news.
#[inline(always)]
fn news(prev: &Frame, test: &[u64], seen: &[u64]) -> u64 {
    let mut more = 0u64;
    let (lo, hi) = (prev.lo, prev.hi);
    let blocks = prev.might[lo..hi]
        .chunks(8)
        .zip(test[lo..hi].chunks(8))
        .zip(seen[lo..hi].chunks(8));
    for ((m, t), v) in blocks {
        more = m
            .iter()
            .zip(t)
            .zip(v)
            .fold(0, |acc, ((m, t), v)| acc | m & t & !v);
        if more != 0 {
            break;
        }
    }
    more
}

/// `cur`'s might-see set: `prev`'s narrowed to `test`, its non-zero words `lo..hi`.
#[inline(always)]
fn narrow(cur: &mut Frame, prev: &Frame, test: &[u64]) {
    let (lo, hi) = (prev.lo, prev.hi);
    let narrowed = &mut cur.might[lo..hi];
    for ((n, m), t) in narrowed.iter_mut().zip(&prev.might[lo..hi]).zip(&test[lo..hi]) {
        *n = m & t;
    }
    let first = narrowed.iter().position(|&w| w != 0).unwrap_or(0);
    let last = narrowed.iter().rposition(|&w| w != 0).map_or(0, |k| k + 1);
    (cur.lo, cur.hi) = if last == 0 {
        (0, 0)
    } else {
        (lo + first, lo + last)
    };
}

/// A state just found, as [`Walk::admit`] tests it against those found before through the
/// same portal.
struct NewState<'f> {
    frame: &'f Frame,
    /// Its might-see words, from word `lo`.
    might: &'f [u64],
    lo: usize,
    bounds: Bounds,
    /// Whether its pass is a sliver ([`thin`]), found when first needed.
    thin: Option<bool>,
    /// The normals of its pass's plane (the portal's) and source's (the base portal's).
    normals: (V3, V3),
}

/// How a new state and one found before relate.
enum Verdict {
    /// The one before holds the new one: the new one need not be expanded.
    Held,
    /// The new one holds the one before, which leaves the slot.
    Holds,
    Neither,
}

impl NewState<'_> {
    /// The new state against state `e` of the arena (bounds `e_bounds`); `edges` are the new
    /// state's edge planes, found when first needed.
    #[inline(always)]
    fn against(&mut self, arena: &mut Arena, edges: &mut StateEdges, e_bounds: &Bounds, e: usize) -> Verdict {
        let (might, lo) = (self.might, self.lo);
        // The bounds decide most entries: the entry's state itself is read only past them.
        let (inside, holds) = (
            bounds_inside(&self.bounds, e_bounds),
            bounds_inside(e_bounds, &self.bounds),
        );
        if !inside && !holds {
            return Verdict::Neither;
        }
        let e_lo = arena.meta[e].lo as usize;
        if inside && might_inside(might, lo, arena.might(e), e_lo) {
            if self.held_by(arena, e) {
                return Verdict::Held;
            }
        } else if holds && might_inside(arena.might(e), e_lo, might, lo) && self.holds(arena, edges, e) {
            return Verdict::Holds;
        }
        Verdict::Neither
    }

    /// Whether state `e`'s edge planes (found first if need be) hold the new state's windings;
    /// never for a sliver.
    #[inline(always)]
    fn held_by(&mut self, arena: &mut Arena, e: usize) -> bool {
        if arena.edges[e].is_empty() {
            let mut found = std::mem::take(&mut arena.edges[e]);
            let (pass, source) = arena.windings(e);
            found.find(pass, source, self.normals.0, self.normals.1);
            arena.edges[e] = found;
        }
        let cur = self.frame;
        !*self.thin.get_or_insert_with(|| thin(&cur.pass)) && arena.edges[e].hold(&cur.pass, &cur.source)
    }

    /// Whether the new state's edge planes (`edges`, found first if need be) hold state `e`'s
    /// windings; never a sliver's.
    #[inline(always)]
    fn holds(&self, arena: &Arena, edges: &mut StateEdges, e: usize) -> bool {
        let cur = self.frame;
        if edges.is_empty() {
            edges.find(&cur.pass, &cur.source, self.normals.0, self.normals.1);
        }
        let (pass, source) = arena.windings(e);
        !thin(pass) && edges.hold(pass, source)
    }
}

/// The portal being tested, as [`clip_lazy`] clips it.
struct Target<'a> {
    winding: &'a mut Vec<V3>,
    /// Bounding sphere of the portal's whole winding, which holds every clipped part of it.
    origin: V3,
    margin: f32,
}

/// Clips the target by the separators of (`source`, `pass`) in vvis's order, finding them a
/// source edge at a time only as far as needed (`seps`/`cursor` keep what was found for the
/// next target). False when the target is clipped away.
fn clip_lazy(
    source: &[V3],
    pass: &[V3],
    seps: &mut Vec<VPlane>,
    cursor: &mut SepCursor,
    mut target: Target<'_>,
    tmp: &mut Vec<V3>,
    counters: &mut Counters,
) -> bool {
    let mut k = 0;
    // A small target's distances to a plane, all at once, decide most planes without clipping
    // (most planes that reach a target pass near it without cutting it).
    let mut quad = Quad::new(target.winding);
    loop {
        while let Some(plane) = seps.get(k) {
            k += 1;
            if !target.cut_by(plane, tmp, &mut quad) {
                return false;
            }
        }
        let before = seps.len();
        if !next_separator_row(source, pass, cursor, seps) {
            return true;
        }
        counters.separator_planes += (seps.len() - before) as u64;
    }
}

/// Where a target lies against a separator, as far as it can be told without clipping.
enum Side {
    /// Wholly in front: unchanged.
    Front,
    /// Wholly behind: clipped away.
    Behind,
    /// Possibly cut: clip it.
    Cut,
}

impl<'w> Target<'w> {
    /// Portal `p` as a target, its clipped winding in `winding`; its bounding sphere with a
    /// little margin.
    #[inline(always)]
    fn new(p: &crate::graph::VisPortal, winding: &'w mut Vec<V3>) -> Target<'w> {
        Target {
            winding,
            origin: p.origin,
            margin: p.radius + 0.1,
        }
    }

    /// Clips the target by `plane` where it may cut it ([`Target::side`]); false when the
    /// target is gone.
    #[inline(always)]
    fn cut_by(&mut self, plane: &VPlane, tmp: &mut Vec<V3>, quad: &mut Option<Quad>) -> bool {
        match self.side(quad, plane) {
            Side::Front => true,
            Side::Behind => false,
            Side::Cut => self.clip(plane, tmp, quad),
        }
    }

    /// Clips the target by `plane` (`tmp` the spare buffer, `quad` its four points, kept up to
    /// date); false when it is clipped away.
    #[inline(always)]
    fn clip(&mut self, plane: &VPlane, tmp: &mut Vec<V3>, quad: &mut Option<Quad>) -> bool {
        match chop(self.winding, plane, tmp) {
            Chop::Unchanged => {}
            Chop::Gone => return false,
            Chop::Clipped => {
                std::mem::swap(self.winding, tmp);
                *quad = Quad::new(self.winding);
            }
        }
        true
    }

    /// The target against `plane`: by its four points at once (`quad`, when it has four or
    /// fewer), else by its bounding sphere (clearly in front leaves it unchanged, clearly
    /// behind removes it, as clipping would) and then its points.
    #[inline(always)]
    fn side(&self, quad: &Option<Quad>, plane: &VPlane) -> Side {
        if let Some(q) = quad {
            return match q.sides(plane) {
                (false, _) => Side::Front,
                (true, false) => Side::Behind,
                (true, true) => Side::Cut,
            };
        }
        let d = plane.distance(self.origin);
        if d > self.margin {
            return Side::Front;
        }
        if d < -self.margin {
            return Side::Behind;
        }
        if !cuts(self.winding, plane) {
            return Side::Front;
        }
        Side::Cut
    }
}

/// The states waiting in the widest-first walk, by the squared area of their pass winding:
/// a bucket per sixteenth of an octave of area (the float's exponent and top three mantissa
/// bits), last in first out within a bucket. Cheaper than a heap, and the order need not be
/// exact.
#[derive(Default)]
struct WidestFirst {
    buckets: Vec<Vec<u32>>,
    /// No bucket above this one holds a state.
    top: usize,
}

impl WidestFirst {
    fn bucket(key: f32) -> usize {
        // Non-negative floats order as their bits do.
        (key.max(0.0).to_bits() >> 20) as usize
    }

    fn clear(&mut self) {
        if self.buckets.is_empty() {
            self.buckets = vec![Vec::new(); Self::bucket(f32::INFINITY) + 1];
        }
        for b in &mut self.buckets[..=self.top] {
            b.clear();
        }
        self.top = 0;
    }

    fn push(&mut self, key: f32, state: u32) {
        let b = Self::bucket(key).min(self.buckets.len() - 1);
        self.buckets[b].push(state);
        self.top = self.top.max(b);
    }

    fn pop(&mut self) -> Option<u32> {
        loop {
            if let Some(state) = self.buckets[self.top].pop() {
                return Some(state);
            }
            if self.top == 0 {
                return None;
            }
            self.top -= 1;
        }
    }
}

/// Whether a pass winding is a sliver: narrower (twice its area over its perimeter) than
/// [`THIN_WINDOW`]. Through vvis's epsilons such a window can see what a wider one holding it
/// does not (see the module docs), so [`Walk::admit`] never skips or drops one.
fn thin(w: &[V3]) -> bool {
    let perimeter: f32 = (0..w.len())
        .map(|i| {
            let d = sub(w[next_index(i, w.len())], w[i]);
            dot(d, d).sqrt()
        })
        .sum();
    // Twice the area is the square root of `area_squared`, itself four times its square.
    area_squared(w).sqrt() < THIN_WINDOW * perimeter
}

/// Units: see [`thin`].
const THIN_WINDOW: f32 = 1.0;

/// Four times the squared area of a convex winding.
fn area_squared(w: &[V3]) -> f32 {
    let mut t = [0f32; 3];
    for i in 1..w.len().saturating_sub(1) {
        let a = sub(w[i], w[0]);
        let b = sub(w[i + 1], w[0]);
        t[0] += a[1] * b[2] - a[2] * b[1];
        t[1] += a[2] * b[0] - a[0] * b[2];
        t[2] += a[0] * b[1] - a[1] * b[0];
    }
    dot(t, t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(lo: f32, hi: f32, clockwise: bool) -> Vec<V3> {
        let mut w = vec![[lo, lo, 0.0], [hi, lo, 0.0], [hi, hi, 0.0], [lo, hi, 0.0]];
        if clockwise {
            w.reverse();
        }
        w
    }

    #[test]
    fn containment_is_by_geometry_whatever_the_winding_order() {
        let n = [0.0, 0.0, 1.0];
        for outer_cw in [false, true] {
            let mut edges = Vec::new();
            edge_planes(&square(0.0, 64.0, outer_cw), n, &mut edges);
            assert_eq!(edges.len(), 4);
            for inner_cw in [false, true] {
                assert!(inside_edges(&square(0.0, 64.0, inner_cw), &edges), "itself");
                assert!(
                    inside_edges(&square(8.0, 32.0, inner_cw), &edges),
                    "a smaller one"
                );
                assert!(
                    !inside_edges(&square(8.0, 64.1, inner_cw), &edges),
                    "one sticking out"
                );
            }
            // A triangle inside the square's lower half, and one poking past its diagonal.
            assert!(inside_edges(
                &[[1.0, 1.0, 0.0], [63.0, 1.0, 0.0], [63.0, 63.0, 0.0]],
                &edges
            ));
            assert!(!inside_edges(
                &[[1.0, 1.0, 0.0], [70.0, 1.0, 0.0], [63.0, 63.0, 0.0]],
                &edges
            ));
        }
        let inner = state_bounds(&square(8.0, 32.0, false), &square(0.0, 1.0, true));
        let outer = state_bounds(&square(0.0, 64.0, true), &square(0.0, 1.0, false));
        assert!(bounds_inside(&inner, &outer));
        assert!(!bounds_inside(&outer, &inner));
    }

    #[test]
    fn might_inside_aligns_words_by_their_offsets() {
        // Words 3..5 of one set against words 2..6 of another.
        assert!(might_inside(&[0b01, 0b10], 3, &[0, 0b11, 0b10, 0], 2));
        assert!(!might_inside(&[0b01, 0b11], 3, &[0, 0b11, 0b10, 0], 2));
        // A word outside the other's range must be empty.
        assert!(!might_inside(&[1], 7, &[u64::MAX], 2));
        assert!(might_inside(&[0], 7, &[u64::MAX], 2));
    }
}
