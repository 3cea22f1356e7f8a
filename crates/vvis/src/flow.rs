//! Full portal flow (vvis `PortalFlow` / `RecursiveLeafFlow`): from each one-way portal, a
//! depth-first walk through the clusters behind it, narrowing the "might see" set and clipping
//! the portals on the way by separating planes, until nothing new can be seen.
//!
//! Two implementations give the same cluster PVS (on every corpus map compared; jump_byte_a3,
//! too slow for the reference, equals the flow whose memo skipped only identical windings):
//! * [`FlowKind::Fast`], ours. What the walk finds is the set of portals at the ends of the
//!   paths that pass every test; its gains are pruning and order, never a different test. The
//!   pruning is exact in exact geometry; only vvis's epsilons could tell (a pass thinner than
//!   `ON_VIS_EPSILON` loses separators and may see more than a wider one holding it), which no
//!   corpus map shows:
//!   - it stops behind a portal whose might-see set holds nothing unseen (vvis walks on);
//!   - a sub-walk entered again with windings inside those of one already explored through
//!     the same portal, and a might-see set inside its set, is skipped: smaller windings and a
//!     smaller set can only find less (a memo of explored sub-walks: a ring per portal of up to
//!     128 entries drawn from one pool per thread; a new state takes the place of one it
//!     contains);
//!   - it tries each cluster's portals widest first as seen from the base portal
//!     ([`order_children`]), so most of what is visible is found early and the "nothing new"
//!     test stops more of the walk. On cs_crackhouse the walk takes 10.5 million steps where
//!     Valve's takes 119 million (20.7 million when the memo skipped only identical windings).
//!
//!   Per step, it finds the separating planes of a stack level once, as far as its targets
//!   need them, a source edge at a time with eight candidate planes normalised together
//!   ([`crate::clip::separator_row`], bit for bit vvis's planes); tests targets against them
//!   by bounding sphere before clipping; confines bit-set work to the non-zero words; and
//!   builds a level's narrowed might-see set only when the walk goes through its portal (the
//!   test for anything new stops at the first word that has some).
//! * [`FlowKind::Reference`]: a straight reimplementation of Valve's loop, kept to measure the
//!   speed-up in the same run and to prove the results identical.
//!
//! Scheduling is deterministic: portals go in vvis's sorted order, and the portal at position
//! `i` reuses the finished results of those at positions up to `i - LOCKSTEP` (vvis reuses those
//! of portals another thread already finished; this is vvis with [`LOCKSTEP`] threads in
//! lockstep), so the output does not depend on thread count or timing.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};

use crate::Progress;
use crate::bits::Bits;
use crate::clip::{Chop, SepCursor, V3, VPlane, chop, dot, next_separator_row, separators_each, sub};
use crate::graph::{BaseVis, Graph};

/// How far back a portal's flow may reuse finished results: vvis with this many threads (its default on an 8-thread
/// machine; at most 16). Valve's corpus lumps agree better with 8 than with 16: on
/// cs_crackhouse 8 of 763,876 cluster pairs differ with 8, 14 with 16.
pub const LOCKSTEP: usize = 8;

/// Which flow to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FlowKind {
    #[default]
    Fast,
    Reference,
}

/// Result of the full flow: per one-way portal, the portals it can see.
pub struct FlowResult {
    pub vis: Vec<Bits>,
    pub counters: Counters,
}

/// Where the flow's work went, summed over portals.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Recursive steps into a cluster (vvis `c_chains`).
    pub chains: u64,
    /// Portals tested out of a cluster that the might-see set allowed.
    pub candidates: u64,
    /// Candidates that could still reveal something and went to the geometric tests.
    pub geometric: u64,
    /// Separating planes found. The reference finds them again for every target; the fast
    /// flow finds those of a stack level once, as far as its targets need.
    pub separator_planes: u64,
    /// Candidates that passed every test (the walk went through them).
    pub passed: u64,
    /// Sub-walks skipped because the same state was already explored (fast flow only).
    pub memo_hits: u64,
    /// States remembered for that.
    pub memo_stores: u64,
}

impl Counters {
    fn add(&mut self, o: &Counters) {
        self.chains += o.chains;
        self.candidates += o.candidates;
        self.geometric += o.geometric;
        self.separator_planes += o.separator_planes;
        self.passed += o.passed;
        self.memo_hits += o.memo_hits;
        self.memo_stores += o.memo_stores;
    }
}

/// How much work a portal's flow is expected to be, for an honest progress estimate: the
/// walk grows roughly with the square of what it might see.
pub fn work_estimate(b: &BaseVis) -> u64 {
    let m = b.might_see as u64;
    m * m + 1
}

/// Runs the flow for every portal in `order`; must be called inside the thread pool to use.
///
/// The portal at position `i` of `order` reuses the finished results of the portals at
/// positions up to `i - LOCKSTEP` and no others: vvis with [`LOCKSTEP`] threads in lockstep. That makes
/// the output independent of the thread count and timing, and no thread waits for a whole
/// group to finish: a thread blocks only when the portal `LOCKSTEP` places back is still running.
pub fn portal_flow(
    graph: &Graph,
    base: &[BaseVis],
    order: &[u32],
    kind: FlowKind,
    progress: &dyn Progress,
) -> FlowResult {
    let n = graph.portals.len();
    let mut position = vec![u32::MAX; n];
    for (i, &p) in order.iter().enumerate() {
        position[p as usize] = i as u32;
    }
    let schedule = Schedule {
        results: (0..n).map(|_| OnceLock::new()).collect(),
        position,
        next: AtomicUsize::new(0),
        finished: Mutex::new(Finished {
            failed: false,
            prefix: 0,
            at: vec![false; order.len()],
        }),
        wake: Condvar::new(),
    };
    let children = Children::new(graph);
    let counters = Mutex::new(Counters::default());
    rayon::scope(|scope| {
        for _ in 0..rayon::current_num_threads() {
            scope.spawn(|_| {
                let mut mine = Counters::default();
                let _wake_on_panic = WakeOnPanic(&schedule);
                loop {
                    let i = schedule.next.fetch_add(1, Ordering::Relaxed);
                    let Some(&p) = order.get(i) else { break };
                    let usable = (i + 1).saturating_sub(LOCKSTEP);
                    if !schedule.wait_for(usable) {
                        break; // another worker panicked; the scope passes the panic on
                    }
                    let done = Done {
                        results: &schedule.results,
                        position: &schedule.position,
                        usable,
                    };
                    let (vis, c) = flow_one(graph, &children, base, done, p as usize, kind);
                    mine.add(&c);
                    progress.advance(work_estimate(&base[p as usize]));
                    schedule.finish(i, p as usize, vis);
                }
                counters.lock().unwrap_or_else(|e| e.into_inner()).add(&mine);
            });
        }
    });
    FlowResult {
        vis: schedule
            .results
            .into_iter()
            .map(|v| v.into_inner().unwrap_or_default())
            .collect(),
        counters: counters.into_inner().unwrap_or_else(|e| e.into_inner()),
    }
}

/// The shared state of [`portal_flow`]'s workers.
struct Schedule {
    /// Each portal's result once its flow is over.
    results: Vec<OnceLock<Bits>>,
    /// Each portal's position in the order.
    position: Vec<u32>,
    /// The next position to hand out.
    next: AtomicUsize,
    finished: Mutex<Finished>,
    wake: Condvar,
}

/// Wakes the waiting workers if its worker panics, so that they stop instead of waiting for a
/// result that will never come.
struct WakeOnPanic<'a>(&'a Schedule);

impl Drop for WakeOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.finished.lock().unwrap_or_else(|e| e.into_inner()).failed = true;
            self.0.wake.notify_all();
        }
    }
}

struct Finished {
    /// A worker panicked.
    failed: bool,
    /// Positions `..prefix` are all finished.
    prefix: usize,
    at: Vec<bool>,
}

impl Schedule {
    /// Blocks until positions `..usable` are all finished; false if a worker panicked.
    fn wait_for(&self, usable: usize) -> bool {
        let mut f = self.finished.lock().unwrap_or_else(|e| e.into_inner());
        while f.prefix < usable && !f.failed {
            f = self.wake.wait(f).unwrap_or_else(|e| e.into_inner());
        }
        !f.failed
    }

    fn finish(&self, i: usize, p: usize, vis: Bits) {
        // Set once: each position is handed out once.
        let _ = self.results[p].set(vis);
        let mut f = self.finished.lock().unwrap_or_else(|e| e.into_inner());
        f.at[i] = true;
        let before = f.prefix;
        while f.prefix < f.at.len() && f.at[f.prefix] {
            f.prefix += 1;
        }
        if f.prefix != before {
            self.wake.notify_all();
        }
    }
}

/// The finished results a portal's flow may reuse: those at positions `..usable`.
#[derive(Clone, Copy)]
struct Done<'a> {
    results: &'a [OnceLock<Bits>],
    position: &'a [u32],
    usable: usize,
}

impl<'a> Done<'a> {
    #[inline(always)]
    fn get(&self, p: usize) -> Option<&'a Bits> {
        if (self.position[p] as usize) < self.usable {
            self.results[p].get()
        } else {
            None
        }
    }
}

/// Each cluster's outgoing portals in one flat list (vvis's order), and each portal's area: what
/// the fast walk needs to order them for each base portal (see [`order_children`]).
struct Children {
    /// Cluster `c`'s portals are `flat[offsets[c]..offsets[c + 1]]`.
    offsets: Vec<usize>,
    flat: Vec<u32>,
    area: Vec<f32>,
}

impl Children {
    fn new(graph: &Graph) -> Children {
        let mut offsets = vec![0];
        let mut flat = Vec::with_capacity(graph.portals.len());
        for list in &graph.cluster_portals {
            flat.extend_from_slice(list);
            offsets.push(flat.len());
        }
        let area = graph
            .portals
            .iter()
            .map(|p| {
                let w = &p.winding;
                let mut t = [0f64; 3];
                for i in 1..w.len().saturating_sub(1) {
                    let a = [0, 1, 2].map(|k| (w[i][k] - w[0][k]) as f64);
                    let b = [0, 1, 2].map(|k| (w[i + 1][k] - w[0][k]) as f64);
                    t[0] += a[1] * b[2] - a[2] * b[1];
                    t[1] += a[2] * b[0] - a[0] * b[2];
                    t[2] += a[0] * b[1] - a[1] * b[0];
                }
                ((t[0] * t[0] + t[1] * t[1] + t[2] * t[2]).sqrt() / 2.0) as f32
            })
            .collect();
        Children { offsets, flat, area }
    }
}

/// The fast walk's order of each cluster's portals for base portal `p`: the widest as seen from
/// it first (area over squared distance, a rough solid angle), ties in vvis's order.
///
/// What the walk finds is the set of portals at the ends of the paths that pass every test, so
/// the order in which a cluster's portals are tried cannot change it. It changes how soon the
/// walk finds things, and with that how often the "nothing new behind this portal" test stops
/// it: wide openings first find most of what is visible early. Against vvis's order, on the
/// corpus: cs_crackhouse 29.0 → 21.0 million steps, jump_edgebugtest 1.57 → 0.72 million.
fn order_children(graph: &Graph, children: &Children, p: usize, keys: &mut Vec<f32>, out: &mut Vec<u32>) {
    let origin = graph.portals[p].origin;
    keys.clear();
    keys.extend(graph.portals.iter().zip(&children.area).map(|(q, &area)| {
        let d = sub(q.origin, origin);
        area / dot(d, d).max(1.0)
    }));
    out.clear();
    out.extend_from_slice(&children.flat);
    for w in children.offsets.windows(2) {
        out[w[0]..w[1]].sort_by(|&a, &b| keys[b as usize].total_cmp(&keys[a as usize]));
    }
}

/// One level of the walk (vvis `pstack_t`).
#[derive(Default)]
struct Frame {
    might: Vec<u64>,
    /// Words of `might` that may be non-zero (`lo..hi`); outside it the set is empty.
    lo: usize,
    hi: usize,
    source: Vec<V3>,
    /// Empty at the first level (no pass portal yet).
    pass: Vec<V3>,
    /// `source` is the base portal's own winding, `pass` the portal's own (unclipped).
    source_whole: bool,
    pass_whole: bool,
    /// Separators of (`source`, `pass`) found so far, and where their search stands.
    seps: Vec<VPlane>,
    cursor: SepCursor,
}

struct Walk<'a> {
    graph: &'a Graph,
    /// The portals out of each cluster `c`, `order[offsets[c]..offsets[c + 1]]`, in the order
    /// the walk tries them.
    offsets: &'a [usize],
    order: Vec<u32>,
    base: &'a [BaseVis],
    done: Done<'a>,
    kind: FlowKind,
    base_portal: usize,
    head_plane: VPlane,
    vis: Bits,
    frames: Vec<Frame>,
    tmp: Vec<V3>,
    counters: Counters,
    /// Fast flow: the states with which the walk already went through each portal (see
    /// [`Walk::seen_before`]).
    memo: Vec<MemoSlot>,
    /// Portals whose memo slot is in use, to reset them for the next base portal.
    touched: Vec<u32>,
    pool: MemoPool,
    /// Whether the last [`Walk::step`] had anything unseen in its might-see set.
    found_new: bool,
    /// Separators of a target whose source was cut for it alone.
    seps_tmp: Vec<VPlane>,
    /// Edge planes of the windings being remembered.
    edges: StateEdges,
}

/// Buffers a thread reuses from one base portal to the next (no allocation in the walk).
#[derive(Default)]
struct Scratch {
    frames: Vec<Frame>,
    tmp: Vec<V3>,
    memo: Vec<MemoSlot>,
    touched: Vec<u32>,
    pool: MemoPool,
    order: Vec<u32>,
    keys: Vec<f32>,
    edges: StateEdges,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// The remembered states of one portal: a ring of entries of the [`MemoPool`] (oldest
/// overwritten first once full, unless the new state contains one of them).
#[derive(Clone, Default)]
struct MemoSlot {
    oldest: usize,
    entries: Vec<u32>,
    /// The entries' bounding boxes side by side: most of a slot's scan touches only these.
    bounds: Vec<Bounds>,
}

/// The memo's entries, shared by all portals of one walk and handed back when it ends; their
/// buffers are reused from one walk to the next.
#[derive(Default)]
struct MemoPool {
    entries: Vec<MemoEntry>,
    /// Entries `..used` belong to slots in this walk.
    used: usize,
    /// At most this many entries (a bound on the thread's memory).
    max: usize,
}

/// A state the walk went through a portal with: its windings and might-see set.
#[derive(Clone, Default)]
struct MemoEntry {
    source: Vec<V3>,
    pass: Vec<V3>,
    /// The windings' edge planes, found when first needed (empty until then).
    edges: StateEdges,
    lo: usize,
    might: Vec<u64>,
}

/// Axis-aligned bounds of a state's pass and source windings, as `-min` then `max` of each, so
/// that one box inside another is twelve comparisons the same way round.
type Bounds = [f32; 12];

fn state_bounds(pass: &[V3], source: &[V3]) -> Bounds {
    let mut b = [f32::NEG_INFINITY; 12];
    for (w, at) in [(pass, 0), (source, 6)] {
        for p in w {
            for k in 0..3 {
                b[at + k] = b[at + k].max(-p[k]);
                b[at + 3 + k] = b[at + 3 + k].max(p[k]);
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
        let b = w[(i + 1) % w.len()];
        turn[0] += (a[1] - b[1]) * (a[2] + b[2]);
        turn[1] += (a[2] - b[2]) * (a[0] + b[0]);
        turn[2] += (a[0] - b[0]) * (a[1] + b[1]);
    }
    let s = if dot(turn, n) >= 0.0 { 1.0 } else { -1.0 };
    for (i, &a) in w.iter().enumerate() {
        let e = sub(w[(i + 1) % w.len()], a);
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

    /// Whether windings `pass` and `source` lie inside these.
    fn hold(&self, pass: &[V3], source: &[V3]) -> bool {
        inside_edges(pass, &self.pass) && inside_edges(source, &self.source)
    }
}

/// How far (units) a point may lie outside a winding and still count as inside it for the memo:
/// vertices shared by two windings (on the portal's own edges) come out a few ulps apart. A
/// tenth of vvis's `ON_VIS_EPSILON`.
const CONTAIN_EPSILON: f32 = 0.001;

/// Sub-walks the memo remembers: at least this many steps. Remembering copies the might-see
/// set; single-step sub-walks are the most common and the least worth it.
const MEMO_MIN_CHAINS: u64 = 2;

/// Entries kept per portal in the memo (a cache: forgetting only costs time).
const MEMO_PER_PORTAL: usize = 128;

/// Bytes of memo entries a thread may hold, each a copy of a might-see set and two windings
/// with their edge planes.
const MEMO_BYTES: usize = 256 << 20;

fn flow_one(
    graph: &Graph,
    children: &Children,
    base: &[BaseVis],
    done: Done<'_>,
    p: usize,
    kind: FlowKind,
) -> (Bits, Counters) {
    let portal = &graph.portals[p];
    let words = graph.words;
    let mut scratch = SCRATCH.with(|s| std::mem::take(&mut *s.borrow_mut()));
    if scratch.frames.is_empty() {
        scratch.frames.push(Frame::default());
    }
    let head = &mut scratch.frames[0];
    head.might.clear();
    head.might.extend_from_slice(&base[p].flood.words);
    (head.lo, head.hi) = (0, words);
    head.source.clear();
    head.source.extend_from_slice(&portal.winding);
    head.source_whole = true;
    head.pass.clear();
    head.pass_whole = false;
    head.seps.clear();
    head.cursor = SepCursor::default();
    if kind == FlowKind::Fast && scratch.memo.len() != graph.portals.len() {
        scratch.memo = vec![MemoSlot::default(); graph.portals.len()];
        scratch.touched.clear();
        scratch.pool.max = MEMO_BYTES / (words * 8 + 256);
    }
    match kind {
        FlowKind::Fast => order_children(graph, children, p, &mut scratch.keys, &mut scratch.order),
        FlowKind::Reference => {
            scratch.order.clear();
            scratch.order.extend_from_slice(&children.flat);
        }
    }
    let scratch_keys = std::mem::take(&mut scratch.keys);
    let mut walk = Walk {
        graph,
        offsets: &children.offsets,
        order: scratch.order,
        base,
        done,
        kind,
        base_portal: p,
        head_plane: portal.plane,
        vis: Bits::new(words),
        frames: scratch.frames,
        tmp: scratch.tmp,
        counters: Counters::default(),
        memo: scratch.memo,
        touched: scratch.touched,
        pool: scratch.pool,
        found_new: false,
        seps_tmp: Vec::new(),
        edges: scratch.edges,
    };
    walk.leaf_flow(portal.leaf as usize, 1);
    for &t in &walk.touched {
        let slot = &mut walk.memo[t as usize];
        slot.oldest = 0;
        slot.entries.clear();
        slot.bounds.clear();
    }
    walk.touched.clear();
    walk.pool.used = 0;
    let scratch = Scratch {
        frames: walk.frames,
        tmp: walk.tmp,
        memo: walk.memo,
        touched: walk.touched,
        pool: walk.pool,
        order: walk.order,
        keys: scratch_keys,
        edges: walk.edges,
    };
    SCRATCH.with(|s| *s.borrow_mut() = scratch);
    (walk.vis, walk.counters)
}

/// The level that led here and the level being built, growing the stack as needed.
fn frame_pair(frames: &mut Vec<Frame>, depth: usize, words: usize) -> (&mut Frame, &mut Frame) {
    while frames.len() <= depth {
        frames.push(Frame::default());
    }
    if frames[depth].might.len() != words {
        frames[depth].might.resize(words, 0);
    }
    let (a, b) = frames.split_at_mut(depth);
    (&mut a[depth - 1], &mut b[0])
}

impl Walk<'_> {
    /// vvis `RecursiveLeafFlow`: `frames[depth - 1]` is the level that led into `leaf`.
    fn leaf_flow(&mut self, leaf: usize, depth: usize) {
        // A walk can never be longer than the portals it could pass; this only guards bad input.
        if depth > self.graph.portals.len() + 1 {
            return;
        }
        self.counters.chains += 1;
        let graph = self.graph;
        for i in self.offsets[leaf]..self.offsets[leaf + 1] {
            let pn = self.order[i];
            // Beyond a portal whose might-see set holds nothing unseen the walk can find nothing
            // (vvis walks on anyway; the fast flow stops after marking the portal).
            if !self.step(pn as usize, depth) || !(self.kind == FlowKind::Reference || self.found_new) {
                continue;
            }
            let next = graph.portals[pn as usize].leaf as usize;
            if self.kind == FlowKind::Reference {
                self.leaf_flow(next, depth + 1);
                continue;
            }
            let Some(bounds) = self.seen_before(pn as usize, depth) else {
                continue;
            };
            let chains = self.counters.chains;
            self.leaf_flow(next, depth + 1);
            // Remembered once explored, and only sub-walks that were worth it: storing costs a
            // copy of the might-see set, more than a few steps of walking.
            if self.counters.chains - chains >= MEMO_MIN_CHAINS {
                self.remember(pn as usize, depth, bounds);
            }
        }
    }

    /// Pruning the reference does not do: what the walk finds beyond portal `pn` depends only
    /// on the new level's windings and might-see set (the base portal is fixed), and smaller
    /// windings or a smaller might-see set can only find less (every separating plane of the
    /// larger windings separates the smaller ones too, and every path through the smaller set
    /// is a path through the larger). So when the walk already went all the way through `pn`
    /// with windings containing these and a might-see set containing this one, everything
    /// beyond is already found (`None`). Otherwise the state's bounds, for [`Walk::remember`].
    fn seen_before(&mut self, pn: usize, depth: usize) -> Option<Bounds> {
        let cur = &self.frames[depth];
        let (lo, hi) = (cur.lo, cur.hi);
        let might = &cur.might[lo..hi];
        let slot = &self.memo[pn];
        let bounds = state_bounds(&cur.pass, &cur.source);
        let pool = &mut self.pool.entries;
        for (&i, b) in slot.entries.iter().zip(&slot.bounds) {
            if !bounds_inside(&bounds, b) {
                continue;
            }
            let e = &mut pool[i as usize];
            if !might_inside(might, lo, &e.might, e.lo) {
                continue;
            }
            if e.edges.is_empty() {
                let normals = (self.graph.portals[pn].plane.normal, self.head_plane.normal);
                e.edges.find(&e.pass, &e.source, normals.0, normals.1);
            }
            if e.edges.hold(&cur.pass, &cur.source) {
                self.counters.memo_hits += 1;
                return None;
            }
        }
        Some(bounds)
    }

    /// Remembers the state of `frames[depth]` as explored through `pn` (see
    /// [`Walk::seen_before`]): in place of a state it contains if there is one (that one can
    /// no longer prune anything this one does not), else in a free entry or the oldest.
    fn remember(&mut self, pn: usize, depth: usize, bounds: Bounds) {
        let cur = &self.frames[depth];
        let (lo, hi) = (cur.lo, cur.hi);
        let might = &cur.might[lo..hi];
        let slot = &mut self.memo[pn];
        let pool = &mut self.pool;
        let edges = &mut self.edges;
        edges.pass.clear();
        edges.source.clear();
        let mut contained = None;
        for (j, (&i, b)) in slot.entries.iter().zip(&slot.bounds).enumerate() {
            let e = &pool.entries[i as usize];
            if !bounds_inside(b, &bounds) || !might_inside(&e.might, e.lo, might, lo) {
                continue;
            }
            if edges.is_empty() {
                edges.find(
                    &cur.pass,
                    &cur.source,
                    self.graph.portals[pn].plane.normal,
                    self.head_plane.normal,
                );
            }
            if edges.hold(&e.pass, &e.source) {
                contained = Some(j);
                break;
            }
        }
        let j = if let Some(j) = contained {
            j
        } else if slot.entries.len() < MEMO_PER_PORTAL && pool.used < pool.max {
            if slot.entries.is_empty() {
                self.touched.push(pn as u32);
            }
            if pool.entries.len() == pool.used {
                pool.entries.push(MemoEntry::default());
            }
            pool.used += 1;
            slot.entries.push((pool.used - 1) as u32);
            slot.bounds.push(bounds);
            slot.entries.len() - 1
        } else if !slot.entries.is_empty() {
            let oldest = slot.oldest;
            slot.oldest = (oldest + 1) % slot.entries.len();
            oldest
        } else {
            return; // the thread's budget is spent
        };
        slot.bounds[j] = bounds;
        self.counters.memo_stores += 1;
        let e = &mut pool.entries[slot.entries[j] as usize];
        e.source.clear();
        e.source.extend_from_slice(&cur.source);
        e.pass.clear();
        e.pass.extend_from_slice(&cur.pass);
        // The edges found for the scan serve the entry too (empty: found when first needed).
        e.edges.pass.clone_from(&edges.pass);
        e.edges.source.clone_from(&edges.source);
        e.lo = lo;
        e.might.clear();
        e.might.extend_from_slice(might);
    }

    /// Tests portal `pn` out of the current leaf; true when the walk should go through it (its
    /// bit is then set and `frames[depth]` holds the new level).
    fn step(&mut self, pn: usize, depth: usize) -> bool {
        let graph = self.graph;
        let p = &graph.portals[pn];
        let (done, base_vis) = (self.done, self.base);
        let test: &[u64] = match done.get(pn) {
            Some(v) => &v.words,
            None => &base_vis[pn].flood.words,
        };
        let kind = self.kind;
        let (word, bit) = (pn / 64, 1u64 << (pn % 64));
        let vis_has_p = self.vis.words[word] & bit != 0;
        let vis = &self.vis.words[..];
        let head_plane = self.head_plane;
        let base = &graph.portals[self.base_portal];
        let (base_origin, base_radius) = (base.origin, base.radius);
        let (prev, cur) = frame_pair(&mut self.frames, depth, graph.words);
        if word < prev.lo || word >= prev.hi || prev.might[word] & bit == 0 {
            return false; // can't possibly see it
        }
        self.counters.candidates += 1;
        // might = prev.might & test; is anything new visible through it?
        let mut more = 0u64;
        match kind {
            FlowKind::Fast => {
                // Only whether anything is new: the narrowed set itself is built once the
                // geometric tests pass and the walk goes on through the portal. Eight words at
                // a time (vector instructions), stopping at the first block with news.
                let (lo, hi) = (prev.lo, prev.hi);
                let blocks = prev.might[lo..hi]
                    .chunks(8)
                    .zip(test[lo..hi].chunks(8))
                    .zip(vis[lo..hi].chunks(8));
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
            }
            FlowKind::Reference => {
                for k in 0..prev.might.len() {
                    let m = prev.might[k] & test[k];
                    cur.might[k] = m;
                    more |= m & !vis[k];
                }
                (cur.lo, cur.hi) = (0, prev.might.len());
            }
        }
        if more == 0 && vis_has_p {
            return false; // can't see anything new
        }
        self.found_new = more != 0;
        self.counters.geometric += 1;
        // The pass portal, clipped to the front of the base portal.
        let d = head_plane.distance(p.origin);
        cur.pass_whole = true;
        if d < -p.radius {
            return false;
        } else if d > p.radius {
            cur.pass.clear();
            cur.pass.extend_from_slice(&p.winding);
        } else {
            match chop(&p.winding, &head_plane, &mut cur.pass) {
                Chop::Gone => return false,
                Chop::Unchanged => {
                    cur.pass.clear();
                    cur.pass.extend_from_slice(&p.winding);
                }
                Chop::Clipped => cur.pass_whole = false,
            }
        }
        // The source, clipped to the back of this portal.
        let d = p.plane.distance(base_origin);
        let mut source_clipped = false;
        if d > base_radius {
            return false;
        } else if d < -base_radius {
            cur.source.clear();
            cur.source.extend_from_slice(&prev.source);
        } else {
            match chop(&prev.source, &p.plane.flipped(), &mut cur.source) {
                Chop::Gone => return false,
                Chop::Unchanged => {
                    cur.source.clear();
                    cur.source.extend_from_slice(&prev.source);
                }
                Chop::Clipped => source_clipped = true,
            }
        }
        cur.source_whole = prev.source_whole && !source_clipped;
        cur.seps.clear();
        cur.cursor = SepCursor::default();
        if !prev.pass.is_empty() {
            let tmp = &mut self.tmp;
            let counters = &mut self.counters;
            let visible = if kind == FlowKind::Reference {
                clip_interleaved(&cur.source, &prev.pass, &mut cur.pass, tmp, counters)
            } else {
                let margin = p.radius + 0.1;
                let target = Target {
                    winding: &mut cur.pass,
                    whole: &mut cur.pass_whole,
                    origin: p.origin,
                    margin,
                };
                if source_clipped {
                    // This target's own separators (the source was cut for it alone).
                    let seps = &mut self.seps_tmp;
                    seps.clear();
                    let mut cursor = SepCursor::default();
                    clip_lazy(&cur.source, &prev.pass, seps, &mut cursor, target, tmp, counters)
                } else {
                    // The separators of the level above, shared by all its targets.
                    clip_lazy(
                        &prev.source,
                        &prev.pass,
                        &mut prev.seps,
                        &mut prev.cursor,
                        target,
                        tmp,
                        counters,
                    )
                }
            };
            if !visible {
                return false;
            }
        }
        if kind == FlowKind::Fast && more != 0 {
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
        self.vis.words[word] |= bit;
        self.counters.passed += 1;
        true
    }
}

/// The portal being tested, as [`clip_lazy`] clips it.
struct Target<'a> {
    winding: &'a mut Vec<V3>,
    whole: &'a mut bool,
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
    target: Target<'_>,
    tmp: &mut Vec<V3>,
    counters: &mut Counters,
) -> bool {
    let mut k = 0;
    loop {
        while let Some(plane) = seps.get(k) {
            k += 1;
            // The target's bounding sphere decides most planes without clipping: clearly in
            // front leaves it unchanged, clearly behind removes it, as clipping would.
            let d = plane.distance(target.origin);
            if d > target.margin {
                continue;
            }
            if d < -target.margin {
                return false;
            }
            match chop(target.winding, plane, tmp) {
                Chop::Unchanged => {}
                Chop::Gone => return false,
                Chop::Clipped => {
                    std::mem::swap(target.winding, tmp);
                    *target.whole = false;
                }
            }
        }
        let before = seps.len();
        if !next_separator_row(source, pass, cursor, seps) {
            return true;
        }
        counters.separator_planes += (seps.len() - before) as u64;
    }
}

/// Valve's order of work: find each separator and clip the target by it at once (two
/// `ClipToSeperators` calls). False when the target is clipped away.
fn clip_interleaved(
    source: &[V3],
    pass: &[V3],
    target: &mut Vec<V3>,
    tmp: &mut Vec<V3>,
    counters: &mut Counters,
) -> bool {
    let mut alive = true;
    for (a, b, flip) in [(source, pass, false), (pass, source, true)] {
        separators_each(a, b, flip, |plane| {
            counters.separator_planes += 1;
            match chop(target, &plane, tmp) {
                Chop::Unchanged => {}
                Chop::Gone => alive = false,
                Chop::Clipped => std::mem::swap(target, tmp),
            }
            alive
        });
        if !alive {
            return false;
        }
    }
    true
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
