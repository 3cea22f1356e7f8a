//! Vis on hand-made portal sets whose answer is known.

use srcmap_vvis::clip::plane_from_winding;
use srcmap_vvis::flow::Meter;
use srcmap_vvis::{
    ClusterVis, FlowBudget, FlowKind, NoProgress, Options, Portal, Portals, Report, Threads, compute,
};

/// A square portal on the plane `axis = at`, spanning `lo..hi` on the two other axes, wound so
/// that vvis sees it from `front` (a point inside `clusters[0]`).
fn square(clusters: [u32; 2], axis: usize, at: f64, lo: [f64; 2], hi: [f64; 2], front: [f64; 3]) -> Portal {
    let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
    let mut pts = Vec::new();
    for (a, b) in [(lo[0], lo[1]), (lo[0], hi[1]), (hi[0], hi[1]), (hi[0], lo[1])] {
        let mut p = [0.0; 3];
        p[axis] = at;
        p[u] = a;
        p[v] = b;
        pts.push(p);
    }
    let w: Vec<[f32; 3]> = pts.iter().map(|p| p.map(|c| c as f32)).collect();
    let plane = plane_from_winding(&w);
    let f = front.map(|c| c as f32);
    if plane.distance(f) < 0.0 {
        pts.reverse();
    }
    Portal {
        clusters,
        points: pts,
    }
}

/// Four 64-unit rooms in a ring broken on one side: 0 → 1 → 2 → 3 (an S-bend seen from above).
fn bend() -> Portals {
    Portals {
        num_clusters: 4,
        portals: vec![
            square([0, 1], 0, 64.0, [0.0, 0.0], [64.0, 64.0], [32.0, 32.0, 32.0]),
            square([1, 2], 1, 64.0, [0.0, 64.0], [64.0, 128.0], [96.0, 32.0, 32.0]),
            square([2, 3], 0, 64.0, [64.0, 0.0], [128.0, 64.0], [96.0, 96.0, 32.0]),
        ],
    }
}

fn rows(p: &Portals, fast: bool, flow: FlowKind) -> Vec<Vec<usize>> {
    let opts = Options {
        fast,
        flow,
        threads: Threads(2),
        verify: true,
        ..Default::default()
    };
    let (vis, _) = compute(p, false, None, &opts, &NoProgress).unwrap();
    vis.pvs.iter().map(|r| r.ones().collect()).collect()
}

#[test]
fn bend_hides_the_far_room() {
    let p = bend();
    p.verify().unwrap();
    let expected = vec![vec![0, 1, 2], vec![0, 1, 2, 3], vec![0, 1, 2, 3], vec![1, 2, 3]];
    assert_eq!(rows(&p, false, FlowKind::Fast), expected);
    assert_eq!(rows(&p, false, FlowKind::Reference), expected);
}

#[test]
fn corridor_sees_everything_and_pas_covers_pvs() {
    // Five rooms in a straight line.
    let portals = (0..4)
        .map(|i| {
            let x = 64.0 * (i + 1) as f64;
            square([i, i + 1], 0, x, [0.0, 0.0], [64.0, 64.0], [x - 32.0, 32.0, 32.0])
        })
        .collect();
    let p = Portals {
        num_clusters: 5,
        portals,
    };
    for r in rows(&p, false, FlowKind::Fast) {
        assert_eq!(r, vec![0, 1, 2, 3, 4]);
    }
    let (vis, report) = compute(&p, false, None, &Options::default(), &NoProgress).unwrap();
    assert_eq!(report.count("visible_pairs"), 25);
    for (pvs, pas) in vis.pvs.iter().zip(&vis.pas) {
        assert!(pvs.ones().all(|c| pas.get(c)));
    }
}

#[test]
fn fast_vis_is_a_superset_and_radius_only_removes() {
    let p = bend();
    let full = rows(&p, false, FlowKind::Fast);
    let fast = rows(&p, true, FlowKind::Fast);
    for (f, q) in full.iter().zip(&fast) {
        assert!(f.iter().all(|c| q.contains(c)), "fast {q:?} misses some of {f:?}");
    }
    let opts = Options::default();
    let (radial, _) = compute(&p, false, Some(1.0), &opts, &NoProgress).unwrap();
    for (r, f) in radial.pvs.iter().zip(&full) {
        assert!(r.ones().all(|c| f.contains(&c)));
    }
}

/// Full vis of `p` with `threads` threads and the given flow, other options as in `rest`.
fn full_vis_with(p: &Portals, threads: usize, flow: FlowKind, rest: Options) -> (ClusterVis, Report) {
    let opts = Options {
        threads: Threads(threads),
        flow,
        verify: true,
        ..rest
    };
    compute(p, false, None, &opts, &NoProgress).unwrap()
}

fn full_vis(p: &Portals, threads: usize, flow: FlowKind) -> (ClusterVis, Report) {
    full_vis_with(p, threads, flow, Options::default())
}

/// A 6 × 6 grid of 128-unit rooms, each joined to its neighbours by a window of pseudo-random
/// size and place (a fixed generator): 60 portals, so that later portals reuse the results of
/// earlier ones, and small windows hide some rooms from others.
fn window_grid() -> Portals {
    let mut unit = srcmap_corpus::unit_random(0x2545_f491_4f6c_dd1d);
    let mut window = move || {
        let (a, b) = (unit() * 96.0, unit() * 96.0);
        let (lo, hi) = (a.min(b), a.max(b) + 16.0);
        (lo.floor(), hi.floor())
    };
    let n = 6u32;
    let cluster = |i: u32, j: u32| i * n + j;
    let mut portals = Vec::new();
    for i in 0..n {
        for j in 0..n {
            let (x0, y0) = (128.0 * i as f64, 128.0 * j as f64);
            let centre = [x0 + 64.0, y0 + 64.0, 64.0];
            if i + 1 < n {
                let ((u0, u1), (v0, v1)) = (window(), window());
                portals.push(square(
                    [cluster(i, j), cluster(i + 1, j)],
                    0,
                    x0 + 128.0,
                    [y0 + u0, v0],
                    [y0 + u1, v1],
                    centre,
                ));
            }
            if j + 1 < n {
                let ((u0, u1), (v0, v1)) = (window(), window());
                portals.push(square(
                    [cluster(i, j), cluster(i, j + 1)],
                    1,
                    y0 + 128.0,
                    [v0, x0 + u0],
                    [v1, x0 + u1],
                    centre,
                ));
            }
        }
    }
    Portals {
        num_clusters: n * n,
        portals,
    }
}

/// The window grid's graph, base vis and vvis's order of its one-way portals: what a flow runs on.
fn window_grid_flow_input() -> (
    srcmap_vvis::graph::Graph,
    Vec<srcmap_vvis::graph::BaseVis>,
    Vec<u32>,
) {
    use srcmap_vvis::graph;
    let g = graph::Graph::new(&window_grid(), false);
    let base = graph::base_vis(&g, None);
    let order = graph::sorted_order(&base);
    (g, base, order)
}

#[test]
fn window_grid_is_the_same_for_any_thread_count_and_every_flow() {
    let p = window_grid();
    p.verify().unwrap();
    let run = |threads, flow| full_vis(&p, threads, flow).0;
    let one = run(1, FlowKind::Fast);
    for other in [
        run(2, FlowKind::Fast),
        run(3, FlowKind::Fast),
        run(2, FlowKind::Reference),
        run(3, FlowKind::FastSiblings),
        run(2, FlowKind::FastShadow),
    ] {
        assert_eq!(one.pvs, other.pvs);
        assert_eq!(one.pas, other.pas);
    }
    // Reusing results fewer places back: the same for any thread count too.
    for lockstep in [1, 8] {
        let run = |threads| {
            let rest = Options {
                lockstep: Some(lockstep),
                ..Options::default()
            };
            full_vis_with(&p, threads, FlowKind::Fast, rest)
        };
        let ((one, report), (three, _)) = (run(1), run(3));
        assert_eq!((one.pvs, one.pas), (three.pvs, three.pas), "lockstep {lockstep}");
        assert_eq!(report.count("lockstep"), lockstep as u64);
    }
    // The windows hide something, and every room sees its neighbours.
    let pairs: usize = one.pvs.iter().map(|r| r.ones().count()).sum();
    assert!(pairs < 36 * 36, "every room sees every other: {pairs}");
    assert!(pairs >= 36 + 2 * 60, "{pairs}");
}

/// The fast flow looks for clusters, not portals: a portal's published result may hold more
/// than the reference's walk finds (the flood's portals into clusters already known seen,
/// standing in for the search it skipped), never less, and the cluster PVS is the same.
#[test]
fn window_grid_portal_results_are_supersets_of_the_reference() {
    use srcmap_vvis::flow;
    let (g, base, order) = window_grid_flow_input();
    let run = |kind| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap()
            .install(|| flow::portal_flow(&g, &base, &order, flow::FlowPlan::new(kind), &NoProgress))
    };
    let (fast, reference) = (run(FlowKind::Fast), run(FlowKind::Reference));
    let mut larger = 0;
    for (i, (f, r)) in fast.vis.iter().zip(&reference.vis).enumerate() {
        let missing: Vec<usize> = r.ones().filter(|&q| !f.get(q)).collect();
        assert!(missing.is_empty(), "portal {i}: the fast flow lost {missing:?}");
        larger += (f != r) as usize;
    }
    // The search was cut short somewhere here, or this test would not cover it.
    assert!(larger > 0);
    assert!(fast.counters.chains < reference.counters.chains);
}

/// A corridor of rooms 128 units long and 256 wide, each wall's 96-unit opening shifted
/// sideways from the last and split 2 × 2 into four portals (as a BSP splits openings): the
/// paths from a portal through the pieces of one opening meet again at each piece of the next,
/// through windows clipped one inside another, and the shifts hide the far rooms.
fn split_openings() -> Portals {
    let shifts = [16.0, 72.0, 144.0, 88.0, 24.0, 96.0, 152.0];
    let mut portals = Vec::new();
    for (i, &y) in shifts.iter().enumerate() {
        let x = 128.0 * (i + 1) as f64;
        let centre = [x - 64.0, 128.0, 64.0];
        for (y0, z0) in [(y, 16.0), (y + 48.0, 16.0), (y, 64.0), (y + 48.0, 64.0)] {
            portals.push(square(
                [i as u32, i as u32 + 1],
                0,
                x,
                [y0, z0],
                [y0 + 48.0, z0 + 48.0],
                centre,
            ));
        }
    }
    Portals {
        num_clusters: shifts.len() as u32 + 1,
        portals,
    }
}

#[test]
fn split_openings_held_states_are_skipped_and_flows_agree() {
    let p = split_openings();
    p.verify().unwrap();
    let run = |threads, flow| full_vis(&p, threads, flow);
    let (fast, fast_report) = run(2, FlowKind::Fast);
    let (reference, reference_report) = run(2, FlowKind::Reference);
    // The fast walk must have skipped states here (windings inside ones found before through
    // the same portal), or this test would not cover it, and expanded fewer than the reference.
    let (ours, valve) = (&fast_report, &reference_report);
    assert!(ours.count("held") > 0, "{ours:?}");
    assert!(ours.count("chains") < valve.count("chains"), "{ours:?} {valve:?}");
    assert_eq!(fast.pvs, reference.pvs);
    assert_eq!(fast.pas, reference.pas);
    // With no memory for the widest-first walk, every portal is walked depth first: no state
    // is skipped, and the result is the same.
    let no_memory = Options {
        walk_memory: Some(0),
        ..Default::default()
    };
    let (depth_first, report) = full_vis_with(&p, 2, FlowKind::Fast, no_memory);
    assert_eq!(report.count("held"), 0, "{report:?}");
    assert_ne!(report.count("chains"), ours.count("chains"));
    assert_eq!(depth_first.pvs, reference.pvs);
    assert_eq!(depth_first.pas, reference.pas);
    // Some rooms are hidden from others, and every room sees its neighbours.
    let pairs: usize = fast.pvs.iter().map(|r| r.ones().count()).sum();
    assert!(pairs < 8 * 8, "every room sees every other: {pairs}");
    assert!(pairs >= 8 + 2 * 7, "{pairs}");
    for threads in [1, 3] {
        assert_eq!(run(threads, FlowKind::Fast).0.pvs, fast.pvs, "{threads} threads");
    }
}

#[test]
fn the_same_for_any_thread_count() {
    let p = bend();
    let one = compute(
        &p,
        false,
        None,
        &Options {
            threads: Threads(1),
            ..Default::default()
        },
        &NoProgress,
    )
    .unwrap()
    .0;
    let three = compute(
        &p,
        false,
        None,
        &Options {
            threads: Threads(3),
            ..Default::default()
        },
        &NoProgress,
    )
    .unwrap()
    .0;
    assert_eq!(one.pvs, three.pvs);
    assert_eq!(one.pas, three.pas);
}

#[test]
fn bad_portals_are_errors_not_panics() {
    let mut p = bend();
    p.portals[0].clusters = [0, 9];
    assert!(compute(&p, false, None, &Options::default(), &NoProgress).is_err());
    let mut p = bend();
    p.portals[1].points.truncate(2);
    assert!(compute(&p, false, None, &Options::default(), &NoProgress).is_err());
    // Degenerate (zero-area) portals are accepted and do not panic.
    let mut p = bend();
    p.portals[1].points = vec![[0.0; 3]; 4];
    assert!(compute(&p, false, None, &Options::default(), &NoProgress).is_ok());
    assert!(srcmap_vvis::vis_bsp(b"not a bsp", None, &Options::default(), &NoProgress).is_err());
}

/// A portal file's cluster count must fit the BSP it is for: no fewer than its leaves use, and
/// no more than it has leaves (each cluster holds one at least).
#[test]
fn a_portal_file_with_more_clusters_than_the_bsp_has_leaves_is_refused() {
    let mut bsp = srcmap_bsp::Bsp::new(20);
    bsp.leafs = vec![srcmap_bsp::Leaf::default(); 3];
    for (i, leaf) in bsp.leafs.iter_mut().enumerate() {
        leaf.cluster = i as i32 - 1;
    }
    let prt = |clusters: u32| format!("PRT1\n{clusters}\n0\n");
    assert!(srcmap_vvis::portals_for(&bsp, Some(&prt(2))).is_ok());
    assert!(srcmap_vvis::portals_for(&bsp, Some(&prt(3))).is_ok());
    for clusters in [1, 4, 200_000] {
        let e = srcmap_vvis::portals_for(&bsp, Some(&prt(clusters))).unwrap_err();
        assert!(e.to_string().contains("clusters"), "{e}");
    }
}

/// Results published by the shards of an in-memory run, each shard reading from where it
/// stopped.
struct Board {
    published: std::sync::Mutex<Vec<(u32, u64, srcmap_vvis::bits::Bits)>>,
}

/// One shard's view of a [`Board`]: what it has read, and whether the others count as alive.
struct Seat<'a> {
    board: &'a Board,
    read: std::sync::Mutex<usize>,
    /// The other shards answer as alive this many more times.
    others_alive: std::sync::atomic::AtomicUsize,
}

impl srcmap_vvis::Exchange for Seat<'_> {
    fn publish(&self, position: u32, _portal: u32, states: u64, vis: &srcmap_vvis::bits::Bits) {
        let mut published = self.board.published.lock().unwrap();
        published.push((position, states, vis.clone()));
    }
    fn collect(&self) -> Vec<(u32, u64, srcmap_vvis::bits::Bits)> {
        let all = self.board.published.lock().unwrap();
        let mut read = self.read.lock().unwrap();
        let new = all[*read..].to_vec();
        *read = all.len();
        new
    }
    fn owner_alive(&self, _index: u32) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        let left = self
            .others_alive
            .fetch_update(Relaxed, Relaxed, |n| n.checked_sub(1));
        left.is_ok()
    }
}

/// The window grid's flow in N shards, run side by side (exchanging results) and alone (each
/// taking every other share over): every one-way portal's result is the one-run result, for
/// N = 1, 2, 4, 7, both fast flows, and without a budget or with one that cuts walks (their
/// shares depend on the states the shards spent).
#[test]
fn window_grid_shards_give_the_one_run_results() {
    use srcmap_vvis::flow;
    use srcmap_vvis::flow::shard::{ShardOf, shard_flow};
    let (g, base, order) = window_grid_flow_input();
    let plans = [FlowKind::Fast, FlowKind::FastSiblings].map(|kind| {
        let plan = flow::FlowPlan::new(kind);
        let states = flow::portal_flow(&g, &base, &order, plan, &NoProgress).counters;
        let budget = Some(states.chains / 3);
        [plan, flow::FlowPlan { budget, ..plan }]
    });
    // And one plan reusing results fewer places back (more walks waiting for results).
    let serial = flow::FlowPlan {
        lockstep: 1,
        ..flow::FlowPlan::new(FlowKind::Fast)
    };
    for plan in plans.into_iter().flatten().chain([serial]) {
        let flow::FlowPlan {
            kind,
            budget,
            lockstep,
            ..
        } = plan;
        let flow = flow::portal_flow(&g, &base, &order, plan, &NoProgress);
        assert_eq!(flow.counters.cut > 0, budget.is_some(), "{kind:?} {budget:?}");
        let whole = flow.vis;
        for n in [1u32, 2, 4, 7] {
            for together in [true, false] {
                let board = Board {
                    published: Default::default(),
                };
                let run = |index| {
                    let seat = Seat {
                        board: &board,
                        read: Default::default(),
                        others_alive: (if together { usize::MAX } else { 0 }).into(),
                    };
                    let shard = ShardOf { index, count: n };
                    // Each shard its own pool, as each is its own process in a real run.
                    let pool = Threads(1).pool().unwrap();
                    pool.install(|| shard_flow(&g, &base, &order, plan, (shard, &seat), &NoProgress))
                };
                let outs: Vec<_> = if together {
                    std::thread::scope(|s| {
                        let handles: Vec<_> = (0..n).map(|i| s.spawn(move || run(i))).collect();
                        handles.into_iter().map(|h| h.join().unwrap()).collect()
                    })
                } else {
                    (0..n).map(run).collect()
                };
                let mut merged = vec![None; whole.len()];
                for out in outs {
                    for (_, portal, _, vis) in out.results {
                        merged[portal as usize] = Some(vis);
                    }
                }
                let merged: Vec<_> = merged.into_iter().map(Option::unwrap).collect();
                assert!(
                    merged == whole,
                    "{kind:?} {budget:?} lockstep {lockstep}, {n} shards, together {together}"
                );
            }
        }
    }
}

/// A shard whose peers stop while its walks wait for their results gives those walks up, takes
/// the positions over and runs the walks again: every result is still the one-run result.
#[test]
fn a_shard_whose_peers_stop_mid_walk_runs_those_walks_again() {
    use srcmap_vvis::flow;
    use srcmap_vvis::flow::shard::{ShardOf, shard_flow};
    let (g, base, order) = window_grid_flow_input();
    let mut redone = 0;
    // Lockstep 1: the walk at position 2 (shard 0's second) reads position 1's result (shard 1's).
    for lockstep in [1, flow::LOCKSTEP] {
        let plan = flow::FlowPlan {
            lockstep,
            ..flow::FlowPlan::new(FlowKind::Fast)
        };
        let whole = flow::portal_flow(&g, &base, &order, plan, &NoProgress).vis;
        for alive_for in [1, 2, 3, 5, 8] {
            let board = Board {
                published: Default::default(),
            };
            let seat = Seat {
                board: &board,
                read: Default::default(),
                others_alive: alive_for.into(),
            };
            let shard = ShardOf { index: 0, count: 2 };
            let out = (Threads(1).pool().unwrap())
                .install(|| shard_flow(&g, &base, &order, plan, (shard, &seat), &NoProgress));
            let own = order.len().div_ceil(2);
            assert!(out.results.len() >= own, "its own share");
            for (position, portal, _, vis) in &out.results {
                let at =
                    format!("position {position}, lockstep {lockstep}, peers alive for {alive_for} looks");
                assert!(*vis == whole[*portal as usize], "{at}");
            }
            redone += out.redone;
        }
    }
    assert!(redone > 0, "no walk was given up");
}

/// A walk that reaches its state budget stops and widens its result to what its waiting states
/// might see: the PVS can only grow (never hide a pair the full flow shows), the same for any
/// thread count; a budget no walk reaches changes nothing. Both walks are cut: the widest-first
/// one and, with no memory for states, the depth-first one.
#[test]
fn a_state_budget_bounds_walks_and_only_widens_the_pvs() {
    for p in [window_grid(), split_openings()] {
        let (full, full_report) = full_vis(&p, 2, FlowKind::Fast);
        assert_eq!(full_report.count("walks_cut"), 0);
        let roomy = Options {
            walk_states: Some(full_report.count("chains")),
            ..Default::default()
        };
        assert_eq!(full_vis_with(&p, 2, FlowKind::Fast, roomy).0.pvs, full.pvs);
        for memory in [None, Some(0)] {
            let tight = |threads| {
                let opts = Options {
                    walk_states: Some(2),
                    walk_memory: memory,
                    ..Default::default()
                };
                full_vis_with(&p, threads, FlowKind::Fast, opts)
            };
            let (cut, report) = tight(2);
            assert!(report.count("walks_cut") > 0, "{report:?}");
            assert!(report.count("chains") < full_report.count("chains"));
            let (pairs, full_pairs) = (count_pairs(&cut), count_pairs(&full));
            assert!(pairs > full_pairs, "{pairs} {full_pairs}");
            for (c, (a, f)) in cut.pvs.iter().zip(&full.pvs).enumerate() {
                let hidden: Vec<usize> = f.ones().filter(|&d| !a.get(d)).collect();
                assert!(hidden.is_empty(), "cluster {c} hides {hidden:?} ({memory:?})");
            }
            assert_eq!(tight(1).0.pvs, cut.pvs, "{memory:?}");
            assert_eq!(tight(3).0.pvs, cut.pvs, "{memory:?}");
        }
    }
}

fn count_pairs(v: &ClusterVis) -> usize {
    v.pvs.iter().map(|r| r.ones().count()).sum()
}

/// An open field, the kind of map where the portal flow explodes (issue 44): one big box split
/// into an `n` × `n` grid of 128-unit cells, each open to its neighbours but for a small pillar
/// at every inner corner, so that sight lines cross the whole field and a walk has very many
/// ways through it. The states its full walks expand and hold grow with the field: 64 thousand
/// states and a walk of 72 KB at 12 × 12, 252 thousand and 206 KB at 16 × 16.
fn pillar_field(n: u32) -> Portals {
    const PILLAR: f64 = 16.0;
    let cluster = |i: u32, j: u32| i * n + j;
    // The opening along a cell's side, less the pillars at its inner ends.
    let span = |k: u32| {
        let lo = 128.0 * k as f64 + if k > 0 { PILLAR } else { 0.0 };
        let hi = 128.0 * (k + 1) as f64 - if k + 1 < n { PILLAR } else { 0.0 };
        (lo, hi)
    };
    let mut portals = Vec::new();
    for i in 0..n {
        for j in 0..n {
            let centre = [128.0 * i as f64 + 64.0, 128.0 * j as f64 + 64.0, 32.0];
            let at = |k: u32| 128.0 * (k + 1) as f64;
            if i + 1 < n {
                let (y0, y1) = span(j);
                let c = [cluster(i, j), cluster(i + 1, j)];
                portals.push(square(c, 0, at(i), [y0, 0.0], [y1, 64.0], centre));
            }
            if j + 1 < n {
                let (x0, x1) = span(i);
                let c = [cluster(i, j), cluster(i, j + 1)];
                portals.push(square(c, 1, at(j), [0.0, x0], [64.0, x1], centre));
            }
        }
    }
    Portals {
        num_clusters: n * n,
        portals,
    }
}

/// Progress as a stage reports it: each phase's announced total and what was advanced.
#[derive(Default)]
struct Recorded(std::sync::Mutex<Vec<(String, u64, u64)>>);

impl srcmap_vvis::Progress for Recorded {
    fn start(&self, phase: &str, total: u64, _unit: srcmap_stage::Unit) {
        self.0.lock().unwrap().push((phase.to_string(), total, 0));
    }
    fn advance(&self, done: u64) {
        if let Some(last) = self.0.lock().unwrap().last_mut() {
            last.2 += done;
        }
    }
}

/// Issue 44: whatever the map, full vis finishes within bounds set before it starts. On an open
/// field whose walks outgrow their budget, each walk expands at most `budget` states and holds
/// at most the states those expansions made (bytes that do not grow with the field past its
/// might-see words, where the full walks' bytes do), the progress announces a total no larger
/// than the budget allows and advances by exactly that total, and the PVS only widens: the cut
/// answer hides nothing the full one shows, and on a field small enough that no walk reaches the
/// budget the answer is the full one.
#[test]
fn an_open_field_stays_within_its_state_budget_memory_and_progress() {
    let budget = 40;
    let bounded = Options {
        walk_states: Some(budget),
        ..Default::default()
    };
    let field = pillar_field(12);
    let one_way = 2 * field.portals.len() as u64;
    let progress = Recorded::default();
    let options = Options {
        threads: Threads(2),
        verify: true,
        ..bounded.clone()
    };
    let (cut, report) = compute(&field, false, None, &options, &progress).unwrap();
    assert!(report.count("walks_cut") > 0, "{report:?}");
    assert!(report.count("chains") <= one_way * budget, "{report:?}");
    // A state: its might-see words, two windings of at most 64 points, its record and edges;
    // an expansion keeps at most one state per portal out of a cell (4).
    let per_state = one_way.div_ceil(64) * 8 + 2 * 64 * 12 + 128;
    let most_bytes = (1 + 4 * budget) * per_state;
    let peak = report.count("state_bytes_peak");
    assert!(peak > 0 && peak <= most_bytes, "{peak} > {most_bytes}");
    let phases = progress.0.into_inner().unwrap();
    let (_, total, advanced) = phases.iter().find(|(p, ..)| p == "portal flow").unwrap();
    assert_eq!((*total, *advanced), (Meter::UNITS, Meter::UNITS), "{phases:?}");

    let (full, full_report) = full_vis(&field, 2, FlowKind::Fast);
    assert_eq!(full_report.count("walks_cut"), 0);
    assert!(
        full_report.count("chains") > 2 * report.count("chains"),
        "{full_report:?}"
    );
    assert!(
        full_report.count("state_bytes_peak") > 2 * peak,
        "{full_report:?}"
    );
    for (c, (a, f)) in cut.pvs.iter().zip(&full.pvs).enumerate() {
        let hidden: Vec<usize> = f.ones().filter(|&d| !a.get(d)).collect();
        assert!(hidden.is_empty(), "cluster {c} hides {hidden:?}");
    }
    assert!(count_pairs(&cut) > count_pairs(&full));
    let small = pillar_field(2);
    let (small_cut, small_report) = full_vis_with(&small, 2, FlowKind::Fast, bounded);
    assert_eq!(small_report.count("walks_cut"), 0);
    assert_eq!(small_cut.pvs, full_vis(&small, 2, FlowKind::Fast).0.pvs);
}

/// A budget for the whole flow ([`Options::flow_budget`]) bounds its time whatever the map: the
/// flow expands no more than the budget in all, the same for any thread count, and the PVS
/// only widens; progress, measured in states, advances to its end. A budget the flow does not
/// come near changes nothing, and neither does lifting it (`FlowBudget::Unbounded`).
#[test]
fn a_flow_budget_bounds_the_whole_flow_and_only_widens_the_pvs() {
    let field = pillar_field(12);
    let one_way = 2 * field.portals.len() as u64;
    let exact = Options {
        flow_budget: FlowBudget::Unbounded,
        ..Default::default()
    };
    let (full, full_report) = full_vis_with(&field, 2, FlowKind::Fast, exact);
    assert_eq!(full_report.count("walks_cut"), 0);
    let needed = full_report.count("chains");
    let budgeted = |threads, flow_budget| {
        let rest = Options {
            flow_budget,
            ..Default::default()
        };
        full_vis_with(&field, threads, FlowKind::Fast, rest)
    };
    let per_portal = needed / one_way / 4;
    for (budget, total) in [
        (FlowBudget::Total(needed / 4), needed / 4),
        (FlowBudget::PerPortal(per_portal), per_portal * one_way),
    ] {
        let (cut, report) = budgeted(2, budget);
        assert!(report.count("chains") <= total, "{report:?}");
        assert!(report.count("walks_cut") > 0, "{report:?}");
        assert!(report.count("widened_clusters") > 0, "{report:?}");
        assert_eq!(report.count("flow_states"), total);
        let warning = &report.warnings[0].message;
        assert!(warning.contains("--flow-states 0"), "{warning}");
        for (c, (a, f)) in cut.pvs.iter().zip(&full.pvs).enumerate() {
            let hidden: Vec<usize> = f.ones().filter(|&d| !a.get(d)).collect();
            assert!(hidden.is_empty(), "cluster {c} hides {hidden:?}");
        }
        assert!(count_pairs(&cut) > count_pairs(&full));
        assert_eq!(budgeted(1, budget).0.pvs, cut.pvs);
        assert_eq!(budgeted(3, budget).0.pvs, cut.pvs);
    }
    let (same, same_report) = budgeted(2, FlowBudget::Total(2 * needed));
    assert_eq!(same_report.count("walks_cut"), 0);
    assert_eq!(same.pvs, full.pvs);
    assert_eq!(full_report.get("flow_states"), None);
}

/// The default bound (issue 44) is applied without being asked for: the flow's budget is
/// `DEFAULT_STATES_PER_PORTAL` per one-way portal, reported, and a field whose walks need far
/// less than that is not cut: its PVS is the unbounded flow's.
#[test]
fn the_default_budget_is_per_portal_and_leaves_a_modest_flow_exact() {
    let field = pillar_field(12);
    let one_way = 2 * field.portals.len() as u64;
    let (default_vis, report) = full_vis(&field, 2, FlowKind::Fast);
    let rate = srcmap_vvis::flow::budget::DEFAULT_STATES_PER_PORTAL;
    assert_eq!(report.count("flow_states"), rate * one_way);
    assert_eq!(report.count("walks_cut"), 0);
    let exact = Options {
        flow_budget: FlowBudget::Unbounded,
        ..Default::default()
    };
    assert_eq!(
        full_vis_with(&field, 2, FlowKind::Fast, exact).0.pvs,
        default_vis.pvs
    );
}

/// Progress through the flow is measured in states: the phase announces its units once and
/// advances by exactly them, whether or not the budget cuts walks, with any thread count.
#[test]
fn flow_progress_advances_to_its_announced_end() {
    let field = pillar_field(8);
    for (threads, budget) in [
        (1, FlowBudget::Unbounded),
        (2, FlowBudget::Total(500)),
        (3, FlowBudget::default()),
    ] {
        let progress = Recorded::default();
        let options = Options {
            threads: Threads(threads),
            flow_budget: budget,
            ..Default::default()
        };
        compute(&field, false, None, &options, &progress).unwrap();
        let phases = progress.0.into_inner().unwrap();
        let (_, total, advanced) = phases.iter().find(|(p, ..)| p == "portal flow").unwrap();
        assert_eq!((*total, *advanced), (Meter::UNITS, Meter::UNITS), "{budget:?}");
    }
}

/// A slab between two equal doorways (portal `a` into the slab, `b` out of it, 32 units
/// apart), then a high window `p` and, beyond it, a target `t` that no line through `b` and
/// `p` reaches (`b` tops out at z 64 and `p` starts at z 96 32 units on, so such lines climb at
/// least 1 in 1: at y 128 they are above z 160, and `t` spans z 130-150). vvis's test for a
/// walk clips the target by the separators of the source and the last pass only: from `a`,
/// 32 units further back, the separator from its top edge over `p`'s bottom climbs 1 in 2, so
/// `a`'s walk through `b` and `p` reaches `t`, while `b`'s own walk does not. `fillers` portals
/// far away, between rooms of their own, pad the order. One-way portals: `a` 0, `b` 2, `p` 4,
/// `t` 6.
fn slab_behind_a_doorway(fillers: u32) -> Portals {
    let wall = |clusters, y: f64, z: [f64; 2], front_y: f64| {
        let front = [32.0, front_y, (z[0] + z[1]) / 2.0];
        square(clusters, 1, y, [z[0], 0.0], [z[1], 64.0], front)
    };
    let mut portals = vec![
        wall([0, 1], 0.0, [0.0, 64.0], -16.0),
        wall([1, 2], 32.0, [0.0, 64.0], 16.0),
        wall([2, 3], 64.0, [96.0, 120.0], 48.0),
        wall([3, 4], 128.0, [130.0, 150.0], 100.0),
    ];
    for k in 0..fillers {
        let x = 4096.0 + 128.0 * k as f64;
        let rooms = [5 + 2 * k, 6 + 2 * k];
        portals.push(square(
            rooms,
            0,
            x,
            [0.0, 0.0],
            [64.0, 64.0],
            [x - 32.0, 32.0, 32.0],
        ));
    }
    Portals {
        num_clusters: 5 + 2 * fillers,
        portals,
    }
}

/// vvis narrows a walk that goes through a finished portal to what that portal's own walk saw
/// (`flow.cpp`: `p->status == stat_done` → `portalvis`), and a walk from behind that portal
/// can see past it what the portal cannot (the separators are the source's and the last
/// pass's, not every pass's), so what `a` sees depends on whether `b` finished first: vvis's
/// output depends on its thread count, ours on `LOCKSTEP`. Both flows follow that rule: with
/// `b`'s result reusable `a` does not see `t`, without it `a` does (as on
/// testchmb_a_13_advanced: `docs/vvis-measurements.md`).
#[test]
fn a_walk_through_a_finished_portal_sees_only_what_that_portal_saw() {
    use srcmap_vvis::{flow, graph};
    let lockstep = flow::LOCKSTEP;
    let p = slab_behind_a_doorway(lockstep as u32 / 2);
    p.verify().unwrap();
    let g = graph::Graph::new(&p, false);
    let base = graph::base_vis(&g, None);
    let (a, b, window, t) = (0u32, 2u32, 4u32, 6usize);
    assert!(base[a as usize].flood.get(t) && base[b as usize].flood.get(t));
    // `a` at position LOCKSTEP + 2 reuses the results at positions 0-2: `b` is one of them or
    // runs just before `a`; the window runs last in both.
    let rest: Vec<u32> = (0..g.portals.len() as u32)
        .filter(|q| ![a, b, window].contains(q))
        .collect();
    let (early, late) = rest.split_at(lockstep + 1);
    let b_done = [&[b], early, &[a], late, &[window]].concat();
    let b_running = [early, &[b, a], late, &[window]].concat();
    for kind in [FlowKind::Fast, FlowKind::Reference] {
        let plan = flow::FlowPlan {
            lockstep,
            ..flow::FlowPlan::new(kind)
        };
        let run = |order: &[u32]| flow::portal_flow(&g, &base, order, plan, &NoProgress).vis;
        let (with_b, without_b) = (run(&b_done), run(&b_running));
        assert!(
            !with_b[b as usize].get(t) && !without_b[b as usize].get(t),
            "{kind:?}: b sees t"
        );
        assert!(
            !with_b[a as usize].get(t),
            "{kind:?}: a sees t past b's finished result"
        );
        assert!(without_b[a as usize].get(t), "{kind:?}: a's own walk misses t");
        // Lockstep 1 (vvis -threads 1) reuses the result just before: `b`'s, running last.
        let serial = flow::FlowPlan { lockstep: 1, ..plan };
        let serial = flow::portal_flow(&g, &base, &b_running, serial, &NoProgress);
        assert!(
            !serial.vis[a as usize].get(t),
            "{kind:?}: lockstep 1 does not reuse b's result"
        );
    }
}
