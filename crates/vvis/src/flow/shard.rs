//! The flow of one shard of the portals, for a compile spread over machines, with the same
//! results as [`super::portal_flow`] on one.
//!
//! The flow is not a set of independent jobs: the portal at position `i` of the order reuses
//! the finished results of those at positions up to `i - lockstep` (see [`super::portal_flow`]),
//! and what it finds depends on them. So shards cooperate as one run's threads do: shard `k`
//! of `N` computes the positions `i` with `i % N == k` (round robin over an order sorted by
//! expected work, so each gets a like share of small and large portals) and publishes each
//! result through an [`Exchange`], from which it takes the results of the positions up to
//! `i - lockstep` that position `i` reuses. When the shard owning a position it
//! needs has stopped answering ([`Exchange::owner_alive`]: never started, or died), it computes
//! that position itself (the same result: a position's flow depends only on the positions
//! before it) and publishes it too, so shards that run one after another, or a shard that died
//! and was requeued, still give the one-machine result, only with work done twice.
//!
//! As in one run, a walk starts once the positions [`super::WINDOW`] places back are finished,
//! and waits for a reusable result only when it reads one not in yet. When that result's shard
//! has stopped, the walk gives up (its result thrown away), the position is taken over between
//! walks, and the walk runs again.

use std::sync::Mutex;
use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::Progress;
use crate::bits::Bits;
use crate::graph::{BaseVis, Graph};

use super::{Book, Counters, FlowPlan, Flows, Meter, Schedule, Waited, Waiter, WakeOnPanic};

/// How the shards of one flow see each other's results.
pub trait Exchange: Sync {
    /// Makes the result of `position` (one-way portal `portal`), found with `states` walk
    /// states, known to the other shards (later walks' shares of the flow's budget depend on
    /// the states spent: see [`super::budget`]).
    fn publish(&self, position: u32, portal: u32, states: u64, vis: &Bits);
    /// Results the other shards published that this one has not collected yet, as
    /// (position, states, result).
    fn collect(&self) -> Vec<(u32, u64, Bits)>;
    /// Whether shard `index` is still at work (its results are worth waiting for).
    fn owner_alive(&self, index: u32) -> bool;
}

/// An exchange for a shard that works alone: nothing to publish, nobody to wait for.
pub struct Alone;

impl Exchange for Alone {
    fn publish(&self, _: u32, _: u32, _: u64, _: &Bits) {}
    fn collect(&self) -> Vec<(u32, u64, Bits)> {
        Vec::new()
    }
    fn owner_alive(&self, _: u32) -> bool {
        false
    }
}

/// Shard `index` of `count`.
#[derive(Debug, Clone, Copy)]
pub struct ShardOf {
    pub index: u32,
    pub count: u32,
}

impl ShardOf {
    fn owner(&self, position: usize) -> u32 {
        (position % self.count as usize) as u32
    }
}

/// What one shard computed: (position, portal, states, result) for every position it ran (its
/// own, and those it took over), by position.
#[derive(Default)]
pub struct ShardFlow {
    pub results: Vec<(u32, u32, u64, Bits)>,
    pub counters: Counters,
    /// Positions of other shards computed here.
    pub taken_over: usize,
    /// Walks given up while waiting for a result whose shard stopped, and run again.
    pub redone: usize,
}

/// How long to sleep between looks at the exchange while waiting: from the shortest, doubled
/// after each look that found nothing new, up to the longest. Short waits (a result due any
/// moment) cost little time; long ones (a large portal under way elsewhere) few looks: each
/// look reads every other shard's journal, so N shards looking every few milliseconds would
/// spend a share of their CPU growing with N² on it.
const POLL_SHORTEST: Duration = Duration::from_millis(1);
const POLL_LONGEST: Duration = Duration::from_millis(50);

/// The flow of `shard`'s share of `order` as `plan` says (as [`super::portal_flow`]); must be called
/// inside the thread pool to use, one pool per shard (a shard's workers wait for other shards'
/// results). Progress advances by [`Meter::UNITS`] over the shard's own positions.
pub fn shard_flow(
    graph: &Graph,
    base: &[BaseVis],
    order: &[u32],
    plan: FlowPlan,
    (shard, exchange): (ShardOf, &dyn Exchange),
    progress: &dyn Progress,
) -> ShardFlow {
    let schedule = Schedule::new(graph.portals.len(), order, plan.lockstep);
    let book = Book::new(plan.budget, plan.limits.states, base, order);
    let own: u64 = (0..order.len())
        .filter(|&i| shard.owner(i) == shard.index)
        .map(|i| book.expected_at(i))
        .sum();
    let meter = Meter::new(own, plan.budget);
    let flows = Flows::new(graph, base, (plan.kind, plan.limits), book, meter);
    let run = ShardRun {
        flows: &flows,
        schedule: &schedule,
        order,
        shard,
        exchange,
        progress,
        pulling: Mutex::new(()),
        out: Mutex::default(),
    };
    rayon::scope(|scope| {
        for _ in 0..rayon::current_num_threads() {
            scope.spawn(|_| run.work());
        }
    });
    progress.advance(flows.meter.rest());
    let mut out = run.out.into_inner().unwrap_or_else(|e| e.into_inner());
    out.results.sort_by_key(|r| r.0);
    out
}

/// The shared state of one shard's workers.
struct ShardRun<'a> {
    flows: &'a Flows<'a>,
    schedule: &'a Schedule,
    order: &'a [u32],
    shard: ShardOf,
    exchange: &'a dyn Exchange,
    progress: &'a dyn Progress,
    /// Held by the worker collecting results or taking a position over.
    pulling: Mutex<()>,
    out: Mutex<ShardFlow>,
}

impl ShardRun<'_> {
    /// One worker: the shard's next own position, once the results it may reuse are in,
    /// until the shard's share is done.
    fn work(&self) {
        let _wake_on_panic = WakeOnPanic(self.schedule);
        let (index, count) = (self.shard.index as usize, self.shard.count as usize);
        loop {
            let k = self.schedule.next.fetch_add(1, Ordering::Relaxed);
            let i = k * count + index;
            if i >= self.order.len() {
                break;
            }
            if !self.gather(self.schedule.window_usable(i)) {
                break; // another worker panicked
            }
            // Results a stopped shard owes are taken over now, not given up on mid-walk.
            if self.owes_stopped(i) && !self.gather(self.schedule.usable(i)) {
                break; // as above
            }
            if self.is_finished(i) {
                self.keep_published(i); // another shard took it over: no need to run it again
            } else if !self.run_position(i, false) {
                break; // as above
            }
        }
    }

    /// Keeps position `i`'s result, published by another shard, in this shard's results (so
    /// that its part holds its whole share).
    fn keep_published(&self, i: usize) {
        let p = self.order[i] as usize;
        if let Some(vis) = self.schedule.results[p].get() {
            let states = self.schedule.spent(i);
            let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
            out.results.push((i as u32, p as u32, states, vis.clone()));
        }
    }

    /// Runs position `i` (positions `..window_usable(i)` finished), publishes and keeps its
    /// result. A walk that gave up waiting for a result (its shard stopped) is run again once
    /// every result it may reuse is in, taken over where need be. False if a worker panicked.
    fn run_position(&self, i: usize, taken_over: bool) -> bool {
        let p = self.order[i] as usize;
        let mut redone = 0;
        let (vis, counters) = loop {
            if let Some(found) = self.flows.flow_at(self.schedule, self, i, p, self.progress) {
                break found;
            }
            if !self.gather(self.schedule.usable(i)) {
                return false;
            }
            redone += 1;
        };
        let states = counters.chains;
        self.exchange.publish(i as u32, p as u32, states, &vis);
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        out.counters.add(&counters);
        out.taken_over += usize::from(taken_over);
        out.redone += redone;
        out.results.push((i as u32, p as u32, states, vis.clone()));
        drop(out);
        self.schedule.finish(i, p, vis, states);
        true
    }

    /// Waits until positions `..usable` are all finished here: collecting what other shards
    /// published, taking over the positions of shards that stopped; false if a worker panicked.
    fn gather(&self, usable: usize) -> bool {
        let mut poll = POLL_SHORTEST;
        let mut last = usize::MAX;
        loop {
            let prefix = {
                let f = self.schedule.finished.lock().unwrap_or_else(|e| e.into_inner());
                if f.failed {
                    return false;
                }
                f.prefix
            };
            if prefix >= usable {
                return true;
            }
            poll = if prefix == last {
                (poll * 2).min(POLL_LONGEST)
            } else {
                POLL_SHORTEST
            };
            last = prefix;
            self.pull_or_take_over(prefix, poll);
        }
    }

    /// One look at the exchange while position `gap` (the first unfinished) is missing: the
    /// published results recorded; `gap` computed here when its owner has stopped; else a
    /// sleep of `poll` (or a wait for this shard's own worker running `gap`).
    fn pull_or_take_over(&self, gap: usize, poll: Duration) {
        let Ok(_pulling) = self.pulling.try_lock() else {
            std::thread::sleep(poll);
            return;
        };
        self.collect_published();
        if self.is_finished(gap) {
            return;
        }
        let owner = self.shard.owner(gap);
        if owner != self.shard.index && !self.exchange.owner_alive(owner) {
            self.run_position(gap, true);
        } else {
            std::thread::sleep(poll);
        }
    }

    /// Records the results other shards published since the last look (the caller holds
    /// `pulling`).
    fn collect_published(&self) {
        for (position, states, vis) in self.exchange.collect() {
            let i = position as usize;
            if let Some(&p) = self.order.get(i) {
                self.schedule.finish(i, p as usize, vis, states);
            }
        }
    }

    /// Whether a result that position `i` may reuse is missing and its shard has stopped.
    fn owes_stopped(&self, i: usize) -> bool {
        (self.schedule.window_usable(i)..self.schedule.usable(i)).any(|j| {
            let owner = self.shard.owner(j);
            !self.is_finished(j) && owner != self.shard.index && !self.exchange.owner_alive(owner)
        })
    }

    fn is_finished(&self, i: usize) -> bool {
        let f = self.schedule.finished.lock().unwrap_or_else(|e| e.into_inner());
        f.at[i]
    }
}

/// A shard's walk waits for a result of its own workers or of another shard, collecting what the
/// others publish; it gives up when the owner has stopped (the position is taken over between
/// walks: see [`ShardRun::run_position`]). A position taken over is always the first
/// unfinished one, so its walk never waits here.
impl Waiter for ShardRun<'_> {
    fn wait_until_finished(&self, i: usize) -> bool {
        let mut poll = POLL_SHORTEST;
        loop {
            match self.schedule.wait_until(|f| f.at[i], Some(poll)) {
                Waited::Ready => return true,
                Waited::Failed => return false,
                Waited::TimedOut => {}
            }
            if let Ok(_pulling) = self.pulling.try_lock() {
                self.collect_published();
            }
            if self.is_finished(i) {
                return true;
            }
            let owner = self.shard.owner(i);
            if owner != self.shard.index && !self.exchange.owner_alive(owner) {
                return false;
            }
            poll = (poll * 2).min(POLL_LONGEST);
        }
    }
}
