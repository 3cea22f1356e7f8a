//! Valve's portal flow as Valve wrote it (vvis `RecursiveLeafFlow`): from the base portal, a
//! depth-first walk through every portal its might-see set allows, narrowing the set by what
//! each portal might see (its finished result where the schedule allows reuse), clipping the
//! pass portal by the separating planes of the source and the previous pass, one plane at a
//! time, found and applied as Valve's `ClipToSeperators` does.
//!
//! Nothing is pruned beyond Valve's own tests; kept to measure the fast flow's speed-up in the
//! same run and to compare its results ([`super::FlowKind::Reference`]).

use crate::bits::Bits;
use crate::clip::{Chop, V3, chop, separators_each};
use crate::graph::{BaseVis, Graph, VisPortal};

use super::{Children, Counters, Done, Frame, clip_pass_and_source, frame_pair};

/// Buffers a thread reuses from one base portal to the next.
#[derive(Default)]
struct Scratch {
    frames: Vec<Frame>,
    tmp: Vec<V3>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

struct Walk<'a> {
    graph: &'a Graph,
    children: &'a Children,
    base: &'a [BaseVis],
    done: Done<'a>,
    base_portal: usize,
    /// The portals found.
    vis: Bits,
    frames: Vec<Frame>,
    tmp: Vec<V3>,
    counters: Counters,
}

/// The flow of one-way portal `p`: the portals it can see.
pub(super) fn flow_one(
    graph: &Graph,
    children: &Children,
    base: &[BaseVis],
    done: Done<'_>,
    p: usize,
) -> (Bits, Counters) {
    let portal = &graph.portals[p];
    let words = graph.words;
    let scratch = Scratch::take(&base[p].flood.words, words, &portal.winding);
    let mut walk = Walk {
        graph,
        children,
        base,
        done,
        base_portal: p,
        vis: Bits::new(words),
        frames: scratch.frames,
        tmp: scratch.tmp,
        counters: Counters::default(),
    };
    walk.leaf_flow(portal.leaf as usize, 1);
    Scratch {
        frames: walk.frames,
        tmp: walk.tmp,
    }
    .give_back();
    (walk.vis, walk.counters)
}

impl Scratch {
    /// This thread's buffers, the head level set to the base portal (might-see set `flood`,
    /// `words` wide; source `winding`).
    fn take(flood: &[u64], words: usize, winding: &[V3]) -> Scratch {
        let mut scratch = SCRATCH.with(|s| std::mem::take(&mut *s.borrow_mut()));
        if scratch.frames.is_empty() {
            scratch.frames.push(Frame::default());
        }
        scratch.frames[0].reset_head(flood, words, winding);
        scratch
    }

    /// The buffers back to the thread, for its next base portal.
    fn give_back(self) {
        SCRATCH.with(|s| *s.borrow_mut() = self);
    }
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
        for &pn in self.children.of(leaf) {
            let mut frames = std::mem::take(&mut self.frames);
            let (prev, cur) = frame_pair(&mut frames, depth, graph.words);
            let passed = self.step(pn as usize, prev, cur);
            self.frames = frames;
            if passed {
                self.leaf_flow(graph.portals[pn as usize].leaf as usize, depth + 1);
            }
        }
    }

    /// Tests portal `pn` out of the cluster that level `prev` entered; true when the walk
    /// goes through it (its bit is then set and `cur` holds the new level).
    fn step(&mut self, pn: usize, prev: &Frame, cur: &mut Frame) -> bool {
        let p = &self.graph.portals[pn];
        let test: &[u64] = match self.done.get(pn) {
            Some(v) => &v.words,
            None => &self.base[pn].flood.words,
        };
        let (word, bit) = (pn / 64, 1u64 << (pn % 64));
        if prev.might[word] & bit == 0 {
            return false; // can't possibly see it
        }
        self.counters.candidates += 1;
        let more = narrow(cur, prev, test, &self.vis.words);
        if more == 0 && self.vis.words[word] & bit != 0 {
            return false; // can't see anything new
        }
        self.counters.geometric += 1;
        if !self.clip_through(p, prev, cur) {
            return false;
        }
        self.vis.words[word] |= bit;
        self.counters.passed += 1;
        true
    }
}

impl Walk<'_> {
    /// The geometric tests of portal `p` from level `prev`: the pass and source clipped, then
    /// the pass by their separators, into `cur`; false when nothing is left.
    #[inline(always)]
    fn clip_through(&mut self, p: &VisPortal, prev: &Frame, cur: &mut Frame) -> bool {
        let base = &self.graph.portals[self.base_portal];
        if clip_pass_and_source(p, &base.plane, base, prev, cur).is_none() {
            return false;
        }
        prev.pass.is_empty()
            || clip_interleaved(
                &cur.source,
                &prev.pass,
                &mut cur.pass,
                &mut self.tmp,
                &mut self.counters,
            )
    }
}

/// `cur`'s might-see set, `prev`'s narrowed to `test` (all its words); whether anything in
/// it is not in `seen` (non-zero: something new visible through the portal).
#[inline(always)]
fn narrow(cur: &mut Frame, prev: &Frame, test: &[u64], seen: &[u64]) -> u64 {
    let mut more = 0u64;
    for (((n, m), t), v) in cur.might.iter_mut().zip(&prev.might).zip(test).zip(seen) {
        *n = m & t;
        more |= *n & !v;
    }
    (cur.lo, cur.hi) = (0, prev.might.len());
    more
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
