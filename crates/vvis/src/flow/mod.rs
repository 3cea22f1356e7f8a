//! Full portal flow (vvis `PortalFlow` / `RecursiveLeafFlow`): from each one-way portal, a
//! walk through the clusters behind it, narrowing the "might see" set and clipping the portals
//! on the way by separating planes, until nothing new can be seen.
//!
//! Two implementations of the walk, over the pieces shared here (the schedule, the cluster
//! table, a walk level, the clipping of a portal to the base portal's front):
//! * [`fast`] ([`FlowKind::Fast`]), ours: the same tests as Valve's, pruned and reordered
//!   (widest first, by clusters rather than portals); what it prunes and why that is exact,
//!   or where it is not, is in its module docs.
//! * [`reference`](mod@reference) ([`FlowKind::Reference`]): a straight reimplementation of
//!   Valve's loop, kept to measure the speed-up in the same run and to compare the results.
//!
//! Scheduling is deterministic: portals go in vvis's sorted order, and the portal at position
//! `i` reuses the finished results of those at positions up to `i - lockstep` (vvis reuses those
//! of portals another thread already finished; this is vvis with `lockstep` threads in
//! lockstep, [`LOCKSTEP`] by default), so the output does not depend on thread count or timing.
//! Lockstep 1 is vvis `-threads 1` (every earlier result reused). A walk does not wait for the
//! results it may reuse before it starts, only for one it reads that is not in yet, so a small
//! lockstep does not keep walks from running side by side: up to [`WINDOW`] run at once.
//!
//! Measurements on corpus maps (states, steps, pairs) are in `docs/vvis-measurements.md`.

pub mod budget;
pub mod fast;
pub mod reference;
mod shadow;
pub mod shard;

pub use budget::{Book, FlowBudget, Meter};

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::Progress;
use crate::bits::Bits;
use crate::clip::{Chop, SepCursor, V3, VPlane, chop};
use crate::graph::{BaseVis, Graph, VisPortal};

/// How far back a portal's flow may reuse finished results by default: 3, which gives Valve's
/// `vvis -threads 2` lump byte for byte on the six maps measured side by side (with 8,
/// testchmb_a_13_advanced differs by three pairs), and agrees with the corpus maps' own lumps as
/// well as 8 or better (see `docs/vvis-measurements.md`).
pub const LOCKSTEP: usize = 3;

/// How many walks may be under way at once (at least the lockstep): a walk's share of the
/// flow's budget depends on the states spent by the walks more than this many places back, so
/// it starts once they are finished (see [`budget`]).
pub const WINDOW: usize = 8;

/// Which flow to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FlowKind {
    #[default]
    Fast,
    /// The fast flow, also taking as known what the finished results of the base portal's
    /// cluster's other portals see: far fewer states, but the results later walks reuse grow,
    /// so the PVS gains pairs (a few hundredths of a percent on the corpus, judged further from
    /// Valve's: see `docs/vvis-measurements.md`). Not the default for that reason.
    FastSiblings,
    /// The fast flow, not expanding a new state whose unseen portals all lie wholly behind one
    /// of its parent's separating planes (by a margin for vvis's epsilons): about a fifth to a
    /// quarter fewer states. Not exact: vvis keeps a winding unclipped when clipping would give
    /// it more than `MAX_POINTS_ON_FIXED_WINDING` points, so a walk can see past a plane that
    /// this takes as final (see `shadow` and `docs/vvis-measurements.md`). Opt-in for that
    /// reason.
    FastShadow,
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
    /// Fast flow: states not expanded because one found before through the same portal holds
    /// them.
    pub held: u64,
    /// Fast flow: states kept to be expanded (and to hold later ones).
    pub kept: u64,
    /// Fast flow: walks stopped at their state budget ([`WalkLimits::states`]), their results
    /// widened to what the states still waiting might see.
    pub cut: u64,
    /// Fast flow: clusters that cut walks took as seen without reaching them, summed over the
    /// walks (a measure of what cutting added: later walks that reuse a widened result may
    /// find more too, so not a bound on the pairs the PVS gains).
    pub widened: u64,
    /// Fast flow: the most bytes of states one walk held (the widest-first walk's states, or
    /// the depth-first walk's levels). A maximum over the walks, not a sum: what bounds the
    /// flow's memory, a thread holding one walk's states at a time.
    pub state_bytes: u64,
}

impl Counters {
    /// The counters' names, in the order [`Counters::named`] gives them (the report's keys).
    pub const NAMES: [&'static str; 10] = [
        "chains",
        "candidates",
        "geometric",
        "separator_planes",
        "passed",
        "held",
        "kept",
        "walks_cut",
        "widened_clusters",
        "state_bytes_peak",
    ];

    /// Each counter with its name.
    pub fn named(&self) -> [(&'static str, u64); 10] {
        let [
            chains,
            candidates,
            geometric,
            separator_planes,
            passed,
            held,
            kept,
            cut,
            widened,
            state_bytes,
        ] = Self::NAMES;
        [
            (chains, self.chains),
            (candidates, self.candidates),
            (geometric, self.geometric),
            (separator_planes, self.separator_planes),
            (passed, self.passed),
            (held, self.held),
            (kept, self.kept),
            (cut, self.cut),
            (widened, self.widened),
            (state_bytes, self.state_bytes),
        ]
    }

    /// A report's flow counters as `name value` pairs, for reading.
    pub fn describe(report: &srcmap_stage::Report) -> String {
        Self::NAMES
            .iter()
            .map(|name| format!("{name} {}", report.count(name)))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn add(&mut self, o: &Counters) {
        self.chains += o.chains;
        self.candidates += o.candidates;
        self.geometric += o.geometric;
        self.separator_planes += o.separator_planes;
        self.passed += o.passed;
        self.held += o.held;
        self.kept += o.kept;
        self.cut += o.cut;
        self.widened += o.widened;
        self.state_bytes = self.state_bytes.max(o.state_bytes);
    }
}

/// How far one portal's fast walk may go (see [`fast`]'s module docs): the bytes of states it
/// may hold before it is walked again depth first, and the states it may expand in all before
/// it stops, its result widened to all the states still waiting might see (conservative: a
/// cut walk shows more than a full one, never less). The flow's budget ([`FlowBudget`]) may
/// give a walk fewer states ([`Book::cap`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalkLimits {
    pub memory: usize,
    pub states: u64,
}

impl WalkLimits {
    /// The given limits, each defaulting to the fast flow's own ([`fast::ARENA_BYTES`],
    /// [`fast::WALK_STATES`]).
    pub fn new(memory: Option<usize>, states: Option<u64>) -> WalkLimits {
        WalkLimits {
            memory: memory.unwrap_or(fast::ARENA_BYTES),
            states: states.unwrap_or(fast::WALK_STATES),
        }
    }
}

impl Default for WalkLimits {
    fn default() -> WalkLimits {
        WalkLimits::new(None, None)
    }
}

/// Runs the flow for every portal in `order`, within `budget` states in all (see [`budget`]);
/// must be called inside the thread pool to use. Progress advances by [`Meter::UNITS`] in all,
/// by the states the walks spend (see [`Meter`]).
///
/// The portal at position `i` of `order` reuses the finished results of the portals at
/// positions up to `i - plan.lockstep` and no others: vvis with `lockstep` threads in lockstep
/// ([`LOCKSTEP`] by default; 0 is read as 1). That makes the output independent of the thread
/// count and timing, and no thread waits for a whole group to finish: a walk starts when the
/// portal [`WINDOW`] places back is finished, and blocks on the way only when it reads the
/// result of a reusable portal still running.
pub fn portal_flow(
    graph: &Graph,
    base: &[BaseVis],
    order: &[u32],
    plan: FlowPlan,
    progress: &dyn Progress,
) -> FlowResult {
    let schedule = Schedule::new(graph.portals.len(), order, plan.lockstep);
    let book = Book::new(plan.budget, plan.limits.states, base, order);
    let meter = Meter::new(book.expected_sum(), plan.budget);
    let flows = Flows::new(graph, base, (plan.kind, plan.limits), book, meter);
    let counters = flows.run(&schedule, order, progress);
    progress.advance(flows.meter.rest());
    FlowResult {
        vis: schedule
            .results
            .into_iter()
            .map(|v| v.into_inner().unwrap_or_default())
            .collect(),
        counters,
    }
}

/// How a flow runs: which walk, each walk's limits, the whole flow's budget of states (`None`:
/// none) and how many places back a walk reuses results (see [`portal_flow`]).
#[derive(Debug, Clone, Copy)]
pub struct FlowPlan {
    pub kind: FlowKind,
    pub limits: WalkLimits,
    pub budget: Option<u64>,
    pub lockstep: usize,
}

impl FlowPlan {
    /// The walk `kind` within the default limits, no budget, the default lockstep.
    pub fn new(kind: FlowKind) -> FlowPlan {
        FlowPlan {
            kind,
            limits: WalkLimits::default(),
            budget: None,
            lockstep: LOCKSTEP,
        }
    }
}

/// What every portal's flow runs over, which flow, and the states it may spend.
struct Flows<'a> {
    graph: &'a Graph,
    children: Children,
    base: &'a [BaseVis],
    kind: FlowKind,
    limits: WalkLimits,
    book: Book,
    meter: Meter,
}

impl<'a> Flows<'a> {
    /// The flow `kind` over `graph`, the fast flow's walks within `limits` and the states
    /// `book` gives them, progress measured by `meter`.
    fn new(
        graph: &'a Graph,
        base: &'a [BaseVis],
        (kind, limits): (FlowKind, WalkLimits),
        book: Book,
        meter: Meter,
    ) -> Self {
        Flows {
            graph,
            children: Children::new(graph),
            base,
            kind,
            limits,
            book,
            meter,
        }
    }

    /// One worker per thread of the pool until the order is done; their counters summed.
    fn run(&self, schedule: &Schedule, order: &[u32], progress: &dyn Progress) -> Counters {
        let counters = Mutex::new(Counters::default());
        rayon::scope(|scope| {
            for _ in 0..rayon::current_num_threads() {
                scope.spawn(|_| {
                    let mine = self.work(schedule, order, progress);
                    counters.lock().unwrap_or_else(|e| e.into_inner()).add(&mine);
                });
            }
        });
        counters.into_inner().unwrap_or_else(|e| e.into_inner())
    }

    /// One worker: takes the next position of `order`, waits for the results it may reuse,
    /// runs that portal's flow and publishes it, until the order is done; its counters.
    fn work(&self, schedule: &Schedule, order: &[u32], progress: &dyn Progress) -> Counters {
        let mut mine = Counters::default();
        let _wake_on_panic = WakeOnPanic(schedule);
        loop {
            let i = schedule.next.fetch_add(1, Ordering::Relaxed);
            let Some(&p) = order.get(i) else { break };
            if !schedule.wait_for(schedule.window_usable(i)) {
                break; // another worker panicked; the scope passes the panic on
            }
            let Some((vis, c)) = self.flow_at(schedule, schedule, i, p as usize, progress) else {
                break; // as above
            };
            mine.add(&c);
            schedule.finish(i, p as usize, vis, c.chains);
        }
        mine
    }

    /// The flow of portal `p` at position `i` (positions `..window_usable(i)` finished),
    /// within its cap of states, waiting through `waiter` for a reusable result not in yet;
    /// progress advanced by the states it spent. `None` when the waiter gave up on one (the
    /// walk's result would be wrong: see [`Waiter`]).
    fn flow_at(
        &self,
        schedule: &Schedule,
        waiter: &dyn Waiter,
        i: usize,
        p: usize,
        progress: &dyn Progress,
    ) -> Option<(Bits, Counters)> {
        let gave_up = Cell::new(false);
        let done = Done {
            schedule,
            usable: schedule.usable(i),
            waiter,
            gave_up: &gave_up,
        };
        let cap = schedule.cap(&self.book, i);
        let (vis, c) = self.flow_one(done, p, cap);
        if gave_up.get() {
            return None;
        }
        progress.advance(self.meter.walk_done(self.book.expected_at(i), c.chains));
        Some((vis, c))
    }

    /// Portal `p`'s flow within `cap` states, reusing the results in `done`.
    fn flow_one(&self, done: Done<'_>, p: usize, cap: u64) -> (Bits, Counters) {
        let (graph, children, base) = (self.graph, &self.children, self.base);
        let limits = WalkLimits {
            states: cap,
            ..self.limits
        };
        match self.kind {
            FlowKind::Fast | FlowKind::FastSiblings | FlowKind::FastShadow => {
                fast::flow_one(graph, children, base, done, p, limits, self.kind)
            }
            FlowKind::Reference => reference::flow_one(graph, children, base, done, p),
        }
    }
}

/// The shared state of [`portal_flow`]'s workers.
struct Schedule {
    /// Each portal's result once its flow is over.
    results: Vec<OnceLock<Bits>>,
    /// Each portal's position in the order.
    position: Vec<u32>,
    /// How many places back a walk may reuse results (at least 1).
    lockstep: usize,
    /// How many walks may be under way at once (at least `lockstep`).
    window: usize,
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
    /// The states each finished position spent.
    spent: Vec<u64>,
}

impl Schedule {
    /// The schedule of `n` one-way portals' flows in `order`, none finished, each reusing the
    /// results up to `lockstep` places back.
    fn new(n: usize, order: &[u32], lockstep: usize) -> Schedule {
        let mut position = vec![u32::MAX; n];
        for (i, &p) in order.iter().enumerate() {
            position[p as usize] = i as u32;
        }
        Schedule {
            results: (0..n).map(|_| OnceLock::new()).collect(),
            position,
            lockstep: lockstep.max(1),
            window: lockstep.max(WINDOW),
            next: AtomicUsize::new(0),
            finished: Mutex::new(Finished {
                failed: false,
                prefix: 0,
                at: vec![false; order.len()],
                spent: vec![0; order.len()],
            }),
            wake: Condvar::new(),
        }
    }

    /// The positions of the order whose results the walk at position `i` may reuse:
    /// `..usable(i)`.
    fn usable(&self, i: usize) -> usize {
        (i + 1).saturating_sub(self.lockstep)
    }

    /// The positions that must be finished before the walk at position `i` starts (those its
    /// share of the budget depends on): `..window_usable(i)`.
    fn window_usable(&self, i: usize) -> usize {
        (i + 1).saturating_sub(self.window)
    }

    /// Blocks until positions `..usable` are all finished; false if a worker panicked.
    fn wait_for(&self, usable: usize) -> bool {
        self.wait_until(|f| f.prefix >= usable, None) == Waited::Ready
    }

    /// Blocks until `ready` holds of the finished positions, a worker panicked, or `timeout`
    /// (if any) passed.
    fn wait_until(&self, ready: impl Fn(&Finished) -> bool, timeout: Option<Duration>) -> Waited {
        let mut f = self.finished.lock().unwrap_or_else(|e| e.into_inner());
        let until = timeout.map(|t| Instant::now() + t);
        loop {
            if f.failed {
                return Waited::Failed;
            }
            if ready(&f) {
                return Waited::Ready;
            }
            f = match until.map(|u| u.saturating_duration_since(Instant::now())) {
                None => self.wake.wait(f).unwrap_or_else(|e| e.into_inner()),
                Some(left) if left.is_zero() => return Waited::TimedOut,
                Some(left) => (self.wake.wait_timeout(f, left).unwrap_or_else(|e| e.into_inner())).0,
            };
        }
    }

    /// The states the walk at position `i` may spend, of `book`'s budget (positions
    /// `..window_usable(i)` finished).
    fn cap(&self, book: &Book, i: usize) -> u64 {
        let f = self.finished.lock().unwrap_or_else(|e| e.into_inner());
        book.cap(i, |j| self.window_usable(j), |m| f.spent[m])
    }

    /// The states position `i` spent (0 until it finished).
    fn spent(&self, i: usize) -> u64 {
        self.finished.lock().unwrap_or_else(|e| e.into_inner()).spent[i]
    }

    /// Position `i` (portal `p`) finished, its result `vis` found with `states` states.
    fn finish(&self, i: usize, p: usize, vis: Bits, states: u64) {
        // Set once: each position is handed out once.
        let _ = self.results[p].set(vis);
        let mut f = self.finished.lock().unwrap_or_else(|e| e.into_inner());
        f.at[i] = true;
        f.spent[i] = states;
        while f.prefix < f.at.len() && f.at[f.prefix] {
            f.prefix += 1;
        }
        // Walks may wait for this one position, not only for the prefix.
        self.wake.notify_all();
    }
}

/// How a walk waits for a reusable result that is not in yet.
trait Waiter {
    /// Blocks until position `i` of the order is finished; false to give the walk up (a worker
    /// panicked, or the shard that owns `i` stopped: the position must be taken over between
    /// walks, and the walk run again).
    fn wait_until_finished(&self, i: usize) -> bool;
}

/// How a wait on [`Schedule`]'s finished positions ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Waited {
    Ready,
    Failed,
    TimedOut,
}

/// One run's walks wait for its own workers.
impl Waiter for Schedule {
    fn wait_until_finished(&self, i: usize) -> bool {
        self.wait_until(|f| f.at[i], None) == Waited::Ready
    }
}

/// The results a portal's flow may reuse: those at positions `..usable`, waited for when one
/// is still running.
#[derive(Clone, Copy)]
struct Done<'a> {
    schedule: &'a Schedule,
    usable: usize,
    waiter: &'a dyn Waiter,
    /// Set when the waiter gave up: the walk goes on with the flood in the result's place, and
    /// its result is thrown away.
    gave_up: &'a Cell<bool>,
}

impl<'a> Done<'a> {
    #[inline(always)]
    fn get(&self, p: usize) -> Option<&'a Bits> {
        let position = self.schedule.position[p] as usize;
        if position >= self.usable {
            return None;
        }
        let result = &self.schedule.results[p];
        result.get().or_else(|| self.wait(position, result))
    }

    #[cold]
    fn wait(&self, position: usize, result: &'a OnceLock<Bits>) -> Option<&'a Bits> {
        if self.waiter.wait_until_finished(position) {
            result.get()
        } else {
            self.gave_up.set(true);
            None
        }
    }
}

/// Each cluster's outgoing portals in one flat list, in vvis's order, and its incoming ones.
struct Children {
    /// Cluster `c`'s portals are `flat[offsets[c]..offsets[c + 1]]`.
    offsets: Vec<usize>,
    flat: Vec<u32>,
    /// The portals into each cluster.
    into: Vec<Bits>,
}

impl Children {
    fn new(graph: &Graph) -> Children {
        let mut offsets = vec![0];
        let mut flat = Vec::with_capacity(graph.portals.len());
        for list in &graph.cluster_portals {
            flat.extend_from_slice(list);
            offsets.push(flat.len());
        }
        let mut into = vec![Bits::new(graph.words); graph.num_clusters];
        for (q, portal) in graph.portals.iter().enumerate() {
            into[portal.leaf as usize].set(q);
        }
        Children { offsets, flat, into }
    }

    /// The portals out of cluster `c`.
    fn of(&self, c: usize) -> &[u32] {
        &self.flat[self.offsets[c]..self.offsets[c + 1]]
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
    /// Separators of (`source`, `pass`) found so far, and where their search stands.
    seps: Vec<VPlane>,
    cursor: SepCursor,
}

impl Frame {
    /// Bytes the level holds (its buffers' capacity).
    fn bytes(&self) -> usize {
        self.might.capacity() * 8
            + (self.source.capacity() + self.pass.capacity()) * std::mem::size_of::<V3>()
            + self.seps.capacity() * std::mem::size_of::<VPlane>()
    }

    /// The walk's first level: the base portal's might-see set (`flood`, all `words`) and
    /// winding as the source, no pass yet.
    fn reset_head(&mut self, flood: &[u64], words: usize, winding: &[V3]) {
        self.might.clear();
        self.might.extend_from_slice(flood);
        (self.lo, self.hi) = (0, words);
        self.source.clear();
        self.source.extend_from_slice(winding);
        self.pass.clear();
        self.seps.clear();
        self.cursor = SepCursor::default();
    }
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

/// The geometric start of a step through portal `p` (both flows): the pass, `p`'s winding
/// clipped to the front of the base portal (`head_plane`), into `cur.pass`; the source,
/// `prev.source` clipped to the back of `p`, into `cur.source`. `None` when either is gone;
/// else whether the source was cut (its separators are then this target's alone).
fn clip_pass_and_source(
    p: &VisPortal,
    head_plane: &VPlane,
    base: &VisPortal,
    prev: &Frame,
    cur: &mut Frame,
) -> Option<bool> {
    // The pass portal, clipped to the front of the base portal.
    let d = head_plane.distance(p.origin);
    clip_to_front(&p.winding, head_plane, d, p.radius, &mut cur.pass)?;
    // The source, clipped to the back of this portal.
    let d = p.plane.distance(base.origin);
    let source_clipped = clip_to_front(&prev.source, &p.plane.flipped(), -d, base.radius, &mut cur.source)?;
    cur.seps.clear();
    cur.cursor = SepCursor::default();
    Some(source_clipped)
}

/// Winding `w` clipped to the front of `plane` into `out`, its bounding sphere (of `radius`,
/// its centre `d` in front of the plane) deciding when it lies clearly on one side: `None`
/// when nothing is left, else whether it was cut.
#[inline(always)]
fn clip_to_front(w: &[V3], plane: &VPlane, d: f32, radius: f32, out: &mut Vec<V3>) -> Option<bool> {
    if d < -radius {
        return None;
    } else if d > radius {
        out.clear();
        out.extend_from_slice(w);
        return Some(false);
    }
    match chop(w, plane, out) {
        Chop::Gone => None,
        Chop::Unchanged => {
            out.clear();
            out.extend_from_slice(w);
            Some(false)
        }
        Chop::Clipped => Some(true),
    }
}
