//! The whole flow's budget of walk states (issue 44), and the progress it measures.
//!
//! Open maps with long sight lines make the flow explode: thousands of large walks, not a few
//! huge ones, so a bound on each walk ([`super::WalkLimits::states`]) does not bound the flow.
//! [`FlowBudget`] bounds it, by default at [`DEFAULT_STATES_PER_PORTAL`] states per one-way
//! portal (chosen from the corpus: `docs/vvis-measurements.md`).
//!
//! The walks take the budget in the flow's order ([`Book::cap`]): each its fair share of what
//! is left (in proportion to its expected states) and a quarter of what is free beyond it,
//! what must stay for the walks after it not being free: half their expected states while the
//! budget allows, else their fair shares. A map whose flow
//! needs well under the budget has no walk cut (its output is the unbounded flow's, byte for
//! byte); one that needs more has its late, large walks cut, the cut walks' results widened
//! (the PVS shows more, never less).
//!
//! A walk's cap depends only on the states spent by the positions more than
//! [`super::WINDOW`] places back (all finished before it starts) and on the caps reserved by
//! those after them, so caps, and so results, do not depend on thread count or timing; shards
//! exchange each result's states with it. The states spent never exceed the budget: every cap
//! fits in what the finished positions left, less what the running ones may still take.

use std::sync::Mutex;

use crate::graph::BaseVis;

/// Walk states per one-way portal the flow may expand unless told otherwise: 6,000 (the
/// largest corpus flow that finishes, jump_byte_a3 from Valve's tree, needs 5,059 a portal;
/// aim_ag_texture_city, the one that explodes, more than 8,233).
pub const DEFAULT_STATES_PER_PORTAL: u64 = 6_000;

/// How many states the whole flow may expand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlowBudget {
    /// This many per one-way portal of the map (the default: [`DEFAULT_STATES_PER_PORTAL`]).
    PerPortal(u64),
    /// This many in all.
    Total(u64),
    /// No bound but each walk's own: the exact PVS, in a time that open maps make explode.
    Unbounded,
}

impl Default for FlowBudget {
    fn default() -> FlowBudget {
        FlowBudget::PerPortal(DEFAULT_STATES_PER_PORTAL)
    }
}

impl FlowBudget {
    /// The budget a `--flow-states` flag asks for: none given, the default; 0, no bound; else
    /// that many in all.
    pub fn from_flag(states: Option<u64>) -> FlowBudget {
        match states {
            None => FlowBudget::default(),
            Some(0) => FlowBudget::Unbounded,
            Some(n) => FlowBudget::Total(n),
        }
    }

    /// The states a flow over `one_way` one-way portals may expand; `None` without a bound.
    pub fn total(self, one_way: usize) -> Option<u64> {
        match self {
            FlowBudget::PerPortal(n) => Some(n.saturating_mul(one_way as u64)),
            FlowBudget::Total(n) => Some(n),
            FlowBudget::Unbounded => None,
        }
    }
}

/// The states a walk whose base vis is `b` is expected to expand: `m^1.5 / 14` for `m` portals
/// in its might-see set (0.053–0.071 states per `m^1.5` on subway01, a3c8p1_forest_day,
/// jump_byte_a3 and aim_ag_texture_city; see `docs/vvis-measurements.md`).
pub fn expected(b: &BaseVis) -> u64 {
    let m = b.might_see as f64;
    (m * m.sqrt() / 14.0) as u64 + 1
}

/// The budget's ledger: each position's cap, computed in order.
pub struct Book {
    total: Option<u64>,
    /// Each walk's own bound.
    own: u64,
    /// Expected states by position, and the sum over the positions after each.
    expected: Vec<u64>,
    after: Vec<u64>,
    ledger: Mutex<Ledger>,
}

#[derive(Default)]
struct Ledger {
    /// Caps of positions `..caps.len()`.
    caps: Vec<u64>,
    /// States spent by positions `..settled_upto`.
    settled: u64,
    settled_upto: usize,
    /// Caps of positions `settled_upto..caps.len()` (running or waiting to).
    reserved: u64,
}

impl Book {
    /// The ledger of a flow of the walks `order` (base vis `base`) within `total` states, each
    /// walk within `own`.
    pub fn new(total: Option<u64>, own: u64, base: &[BaseVis], order: &[u32]) -> Book {
        let expected: Vec<u64> = order.iter().map(|&p| expected(&base[p as usize])).collect();
        let mut after = vec![0; expected.len()];
        for i in (0..expected.len().saturating_sub(1)).rev() {
            after[i] = after[i + 1] + expected[i + 1];
        }
        Book {
            total,
            own,
            expected,
            after,
            ledger: Mutex::default(),
        }
    }

    /// The flow's budget, if any.
    pub fn total(&self) -> Option<u64> {
        self.total
    }

    /// Expected states of the walk at `position`.
    pub fn expected_at(&self, position: usize) -> u64 {
        self.expected[position]
    }

    /// Expected states of all the walks.
    pub fn expected_sum(&self) -> u64 {
        self.expected.first().map_or(0, |e| e + self.after[0])
    }

    /// The states the walk at `position` may expand, given `spent(m)`, the states spent by
    /// each position `m` before `usable(position)` (all finished when it starts).
    pub fn cap(&self, position: usize, usable: impl Fn(usize) -> usize, spent: impl Fn(usize) -> u64) -> u64 {
        let Some(total) = self.total else {
            return self.own;
        };
        let mut l = self.ledger.lock().unwrap_or_else(|e| e.into_inner());
        while l.caps.len() <= position {
            let j = l.caps.len();
            while l.settled_upto < usable(j) {
                let m = l.settled_upto;
                l.settled += spent(m);
                l.reserved -= l.caps[m];
                l.settled_upto += 1;
            }
            let left = total.saturating_sub(l.settled + l.reserved);
            let (fair, free) = share(left, self.expected[j], self.after[j]);
            let mut cap = free;
            if j + 1 < self.expected.len() {
                // Its fair share and a quarter of the free rest, so that the walks running
                // beside it (whose caps are reserved in full until they finish) never hold the
                // whole budget between them.
                cap = fair + (free - fair) / 4;
            }
            let cap = cap.min(self.own);
            l.caps.push(cap);
            l.reserved += cap;
        }
        l.caps[position]
    }
}

/// What a walk expected to expand `e` states may take of `left`, with walks expected to expand
/// `after` states still to come: its fair share (of `left`, in proportion to `e`), and what is
/// free: all but half of `after`, or, when `left` is short of that, its fair share.
fn share(left: u64, e: u64, after: u64) -> (u64, u64) {
    let whole = u128::from(e + after).max(1);
    let fair = (u128::from(left) * u128::from(e) / whole) as u64;
    let others = (u128::from(left) * u128::from(after) / whole) as u64;
    let free = left - (after / 2).min(others);
    (fair.min(free), free)
}

/// The flow's progress measured in states: the fraction done is the states spent over those
/// spent and those still to come, the latter the expected states of the walks not yet run,
/// scaled by what the walks run so far spent against their expectation, and never more than
/// the budget leaves. The fraction only grows, and reaches 1 with the last walk.
pub struct Meter {
    gauge: Mutex<Gauge>,
}

struct Gauge {
    spent: u64,
    expected_done: u64,
    expected_left: u64,
    budget: Option<u64>,
    /// Progress units reported so far (of [`Meter::UNITS`]).
    shown: u64,
}

impl Meter {
    /// Progress units of the whole flow.
    pub const UNITS: u64 = 1_000_000;

    /// A meter for walks expected to expand `expected` states in all, within `budget`.
    pub fn new(expected: u64, budget: Option<u64>) -> Meter {
        Meter {
            gauge: Mutex::new(Gauge {
                spent: 0,
                expected_done: 0,
                expected_left: expected,
                budget,
                shown: 0,
            }),
        }
    }

    /// A walk expected to expand `expected` states expanded `states`: the progress units to
    /// advance by.
    pub fn walk_done(&self, expected: u64, states: u64) -> u64 {
        let mut g = self.gauge.lock().unwrap_or_else(|e| e.into_inner());
        g.spent += states;
        g.expected_done += expected;
        g.expected_left = g.expected_left.saturating_sub(expected);
        let units = (g.fraction() * Meter::UNITS as f64) as u64;
        let step = units.saturating_sub(g.shown);
        g.shown += step;
        step
    }

    /// The units not yet reported (all of them count once the flow is over).
    pub fn rest(&self) -> u64 {
        let g = self.gauge.lock().unwrap_or_else(|e| e.into_inner());
        Meter::UNITS - g.shown
    }
}

impl Gauge {
    /// The fraction of the flow's states done, as far as is known.
    fn fraction(&self) -> f64 {
        if self.expected_left == 0 {
            return 1.0;
        }
        let rate = if self.spent > 0 {
            self.spent as f64 / self.expected_done as f64
        } else {
            1.0
        };
        let mut left = self.expected_left as f64 * rate;
        if let Some(budget) = self.budget {
            left = left.min(budget.saturating_sub(self.spent) as f64);
        }
        let done = if self.spent > 0 {
            self.spent as f64
        } else {
            self.expected_done as f64
        };
        if done + left <= 0.0 {
            1.0
        } else {
            (done / (done + left)).min(1.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::Bits;

    fn might(m: u32) -> BaseVis {
        BaseVis {
            flood: Bits::new(0),
            might_see: m,
        }
    }

    /// Positions `0..n` of a one-thread flow (each reuses all before it) spending `need`, up
    /// to their caps; the caps and what was spent.
    fn run(book: &Book, need: &[u64], lockstep: usize) -> (Vec<u64>, u64) {
        let mut spent = Vec::new();
        let mut caps = Vec::new();
        for (i, &n) in need.iter().enumerate() {
            let cap = book.cap(i, |j| (j + 1).saturating_sub(lockstep), |m| spent[m]);
            caps.push(cap);
            spent.push(n.min(cap));
        }
        (caps, spent.iter().sum())
    }

    #[test]
    fn expected_states_grow_with_might_see() {
        let e: Vec<u64> = [0, 10, 100, 1_000, 10_000].map(|m| expected(&might(m))).to_vec();
        assert!(e.windows(2).all(|w| w[0] < w[1]), "{e:?}");
        // 1000^1.5 / 14 = 2258.8 states (whole states, plus one).
        assert_eq!(e[3], 2_259);
    }

    #[test]
    fn a_roomy_budget_cuts_no_walk_and_a_tight_one_is_never_exceeded() {
        let base: Vec<BaseVis> = (1..=200).map(|m| might(m * 10)).collect();
        let order: Vec<u32> = (0..200).collect();
        // Walks needing up to 3x their expected states, in an uneven pattern.
        let need: Vec<u64> = base
            .iter()
            .enumerate()
            .map(|(i, b)| expected(b) * (1 + (i as u64 * 7) % 3))
            .collect();
        let needed: u64 = need.iter().sum();
        for lockstep in [1, 8] {
            let roomy = Book::new(Some(needed + needed / 4), u64::MAX, &base, &order);
            let (caps, spent) = run(&roomy, &need, lockstep);
            assert!(caps.iter().zip(&need).all(|(c, n)| c >= n), "lockstep {lockstep}");
            assert_eq!(spent, needed);
            for total in [0, 1, 1_000, needed / 3, needed - 1] {
                let tight = Book::new(Some(total), u64::MAX, &base, &order);
                let (caps, spent) = run(&tight, &need, lockstep);
                assert!(spent <= total, "{spent} > {total}");
                assert!(caps.iter().zip(&need).any(|(c, n)| c < n), "something is cut");
            }
        }
        let unbounded = Book::new(None, 77, &base, &order);
        assert!((0..200).all(|i| unbounded.cap(i, |_| 0, |_| 0) == 77));
    }

    #[test]
    fn a_tight_budget_leaves_the_later_walks_their_share() {
        let base: Vec<BaseVis> = [100, 100, 100, 100].map(might).to_vec();
        let order = [0, 1, 2, 3];
        let e = expected(&base[0]);
        let book = Book::new(Some(2 * e), u64::MAX, &base, &order);
        let (caps, spent) = run(&book, &[10 * e; 4], 1);
        assert_eq!(spent, 2 * e, "the last walk takes what is left");
        assert!(caps.iter().all(|&c| c >= e / 2 - 1 && c <= e), "{caps:?} {e}");
    }

    #[test]
    fn walks_running_side_by_side_never_starve_each_other() {
        // Eight walks under way at once, each needing a state or two of a small budget: the
        // first ones' reserved caps leave enough for the others.
        let base: Vec<BaseVis> = (0..40).map(|_| might(4)).collect();
        let order: Vec<u32> = (0..40).collect();
        let book = Book::new(Some(48_000), 100_000, &base, &order);
        let (caps, spent) = run(&book, &[2; 40], 8);
        assert_eq!(spent, 80);
        assert!(caps.iter().all(|&c| c >= 1_000), "{caps:?}");
    }

    #[test]
    fn progress_by_states_only_grows_reaches_the_end_and_heeds_the_budget() {
        // Walks of growing expectation spending twice what was expected, within a budget.
        let walks: Vec<(u64, u64)> = (1..=50).map(|i| (i * 10, i * 20)).collect();
        let expected: u64 = walks.iter().map(|w| w.0).sum();
        let budget = 30_000;
        let meter = Meter::new(expected, Some(budget));
        let (mut shown, mut spent) = (0, 0);
        for &(e, s) in &walks {
            shown += meter.walk_done(e, s);
            spent += s;
            let fraction = shown as f64 / Meter::UNITS as f64;
            // Never more left than the budget allows, nor than the measured rate predicts.
            let least = spent as f64 / (spent + budget.saturating_sub(spent)) as f64;
            assert!(fraction + 1e-6 >= least.min(1.0), "{fraction} < {least}");
        }
        assert_eq!(shown, Meter::UNITS, "reaches the end with the last walk");
        assert_eq!(meter.rest(), 0);
        // Halfway through the states spent (walks 1..=35 spend 12,600 of 25,500), about half.
        let halfway = Meter::new(expected, None);
        let mut units = 0;
        for &(e, s) in &walks[..35] {
            units += halfway.walk_done(e, s);
        }
        let f = units as f64 / Meter::UNITS as f64;
        assert!((f - 12_600.0 / 25_500.0).abs() < 0.01, "{f}");
    }
}
