//! Compile stage 2: visibility. Potentially visible sets (PVS) and audible sets (PAS) per
//! cluster, computed the way Valve's VVIS does, only faster.
//!
//! [`vis`] runs the stage on a `Bsp` in memory, as a list of passes (methods of `Run`), each
//! over the stage's own data:
//! 1. **Portals** ([`Portals`]): from a PRT1 file ([`Portals::parse_prt`]) or rebuilt from a
//!    compiled BSP's own tree ([`tree::portals_from_bsp`]). Then the vis radius
//!    ([`vis_radius`], vvis `DetermineVisRadius`, or [`Options::radius_override`]).
//! 2. **Graph** ([`graph::Graph`]): each portal as two one-way portals, per-cluster lists.
//! 3. **Base vis** ([`graph::base_vis`]): vvis `BasePortalVis` — what each portal might see
//!    (in front, facing away, flood-reachable), cut by the vis radius when there is one.
//! 4. **Flow** ([`flow::portal_flow`]): vvis `PortalFlow` — the recursive walk with
//!    separating-plane clipping (skipped with `fast`, as vvis `-fast` does).
//! 5. **Clusters** ([`pvs::cluster_vis`]): portal bits to cluster rows, vvis's symmetry
//!    cross-check, PAS as the union of the PVS rows of every visible cluster.
//! 6. **Visibility** ([`ClusterVis::to_visibility`]): the rows as the lump's content.
//! 7. **Leaf flags** ([`water::update_water`]): what vvis derives from the PVS — radial flags
//!    under a vis radius, leaves that must test fog volumes, each leaf's distance to water.
//! 8. **Store**: the lump's content into `bsp.visibility`.
//!
//! Between passes, in debug builds, in tests and with [`Options::verify`], the invariants the
//! next pass relies on are checked (planar portals in range; one-way halves that point at each
//! other's clusters; might-see sets that leave out their own portal; flow results inside them;
//! rows a cluster count wide, each cluster seeing itself, PAS ⊇ PVS; a distance to water per
//! leaf). The stage returns the shared [`Report`] shape; [`dump`] prints the graph with base
//! vis, the flow's results and the rows as text.
//!
//! [`compute`] runs passes 2–5 on portals alone; [`vis_bsp`] runs [`vis`] on a BSP file's
//! bytes and returns the new file (every lump vis does not change byte for byte). Work is
//! spread over the [`Options::threads`] with rayon; progress goes through the [`Progress`]
//! trait, the library itself never prints. [`check`] judges a PVS against another lump and by
//! line of sight.
//!
//! [`vis_shard`] computes one shard's share of the flow (a compile spread over machines,
//! `srcmap vvis --shard I/N`), the shards exchanging results through an [`Exchange`] while
//! they run; [`vis_merged`] / [`merge_bsp`] finish vis from their records, the same BSP as
//! [`vis`] / [`vis_bsp`] byte for byte.
//!
//! Results are deterministic (independent of thread count) and, on the corpus, equal to
//! Valve's lumps cluster pair for cluster pair on all but three maps (see the crate tests).

pub mod bits;
pub mod check;
pub mod clip;
pub mod dump;
pub mod error;
pub mod flow;
pub mod graph;
pub mod part;
pub mod pass;
pub mod portals;
pub mod pvs;
pub mod tree;
mod verify;
pub mod water;

use std::time::{Duration, Instant};

use srcmap_bsp::{Bsp, BspDocument, BspFile, Visibility};

pub use error::VvisError;
pub use flow::shard::{Alone, Exchange, ShardOf};
pub use flow::{FlowBudget, FlowKind};
pub use part::FlowRecord;
pub use pass::vis_pass;
pub use portals::{Portal, PortalId, Portals};
pub use pvs::ClusterVis;

pub use srcmap_stage::{NoProgress, Progress, Report, Threads};

use graph::{BaseVis, Graph};

/// What to compute and how.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// vvis `-fast`: stop after base vis (a loose, conservative PVS).
    pub fast: bool,
    /// Worker threads (0: one per core).
    pub threads: Threads,
    /// vvis `-radius_override`: a vis radius regardless of `env_fog_controller`.
    pub radius_override: Option<f64>,
    /// The flow implementation (the reference exists for benchmarks and tests).
    pub flow: FlowKind,
    /// Bytes of walk states one thread may hold for a portal's fast flow before that portal
    /// is walked again depth first (slower, little memory); `None`: 512 MiB.
    pub walk_memory: Option<usize>,
    /// States one portal's fast walk may expand before it stops with a conservative result
    /// (more visible, never less; see [`flow::WalkLimits`]); `None`: [`flow::fast::WALK_STATES`].
    pub walk_states: Option<u64>,
    /// Check the invariants between passes in release builds too (debug builds always do).
    pub verify: bool,
    /// States the whole flow may expand (see [`flow::budget`]): a bound on the flow's time
    /// whatever the map, where [`Options::walk_states`] bounds one walk. By default
    /// [`flow::budget::DEFAULT_STATES_PER_PORTAL`] per one-way portal, which no corpus map
    /// whose flow finishes unbounded in reasonable time reaches.
    pub flow_budget: FlowBudget,
    /// How many places back in the order a walk may reuse finished results: vvis with this
    /// many threads (see [`flow::portal_flow`]); `None`: [`flow::LOCKSTEP`]. `Some(1)` is vvis
    /// `-threads 1`, the one deterministic Valve run; vvis's output with more threads depends on
    /// its timing (`docs/vvis-measurements.md`).
    pub lockstep: Option<usize>,
}

impl Options {
    /// How many places back a walk may reuse results: these options' (at least 1) or
    /// [`flow::LOCKSTEP`].
    pub fn lockstep(&self) -> usize {
        self.lockstep.unwrap_or(flow::LOCKSTEP).max(1)
    }

    /// The fast walk's limits: these options' or the defaults.
    pub fn walk_limits(&self) -> flow::WalkLimits {
        flow::WalkLimits::new(self.walk_memory, self.walk_states)
    }
}

/// Where the portals came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortalSource {
    PrtFile,
    RebuiltFromTree,
}

/// Visibility for a BSP in memory (what `srcmap compile` runs after vbsp): fills
/// `bsp.visibility` with the PVS/PAS, flags every leaf radial under a vis radius, and updates
/// the leaves' fog-volume tests and distances to water. `prt` is the portal file's text; without
/// one the portals are rebuilt from the BSP's own tree.
pub fn vis(
    bsp: &mut Bsp,
    prt: Option<&str>,
    options: &Options,
    progress: &dyn Progress,
) -> Result<Report, VvisError> {
    options.threads.pool()?.install(|| {
        let mut run = Run::new(options, progress);
        let (portals, source) = run.portals(bsp, prt)?;
        let radius = run.radius(bsp);
        let clusters = run.cluster_vis(&portals, source, radius)?;
        run.finish_bsp(bsp, radius, &clusters)
    })
}

/// One shard's share of a sharded vis (`srcmap vvis --shard I/N`): the flow results of the
/// portals at positions `i % shard.count == shard.index` of the order, and of any it took over
/// from shards that stopped (see [`flow::shard`]), for [`vis_merged`] to combine. With `fast`
/// there is no flow and nothing to share: no records.
pub fn vis_shard(
    bsp: &Bsp,
    prt: Option<&str>,
    options: &Options,
    shard: ShardOf,
    exchange: &dyn Exchange,
    progress: &dyn Progress,
) -> Result<ShardOutput, VvisError> {
    options.threads.pool()?.install(|| {
        let mut run = Run::new(options, progress);
        let (portals, source) = run.portals(bsp, prt)?;
        let radius = run.radius(bsp);
        let graph = run.graph(&portals, source)?;
        let base = run.base_vis(&graph, radius)?;
        let (records, taken_over) = if options.fast {
            (Vec::new(), 0)
        } else {
            run.shard_flow(&graph, &base, shard, exchange)
        };
        Ok(ShardOutput {
            portals: graph.portals.len(),
            words: graph.words,
            records,
            taken_over,
            report: run.report(),
        })
    })
}

/// What [`vis_shard`] computed.
pub struct ShardOutput {
    /// One-way portals of the map's graph, and the words of a result row.
    pub portals: usize,
    pub words: usize,
    /// The results, by position.
    pub records: Vec<FlowRecord>,
    /// How many of them belong to other shards (computed here because their shard stopped).
    pub taken_over: usize,
    pub report: Report,
}

/// The end of a sharded vis: [`vis`] with the flow's results taken from the shards' `records`
/// instead of computed (every one-way portal's, in any order, duplicates equal). The same
/// `bsp` as [`vis`] with the same options leaves, byte for byte.
pub fn vis_merged(
    bsp: &mut Bsp,
    prt: Option<&str>,
    options: &Options,
    records: &[FlowRecord],
    progress: &dyn Progress,
) -> Result<Report, VvisError> {
    if options.fast {
        return vis(bsp, prt, options, progress);
    }
    options.threads.pool()?.install(|| {
        let mut run = Run::new(options, progress);
        let (portals, source) = run.portals(bsp, prt)?;
        let radius = run.radius(bsp);
        let graph = run.graph(&portals, source)?;
        let portal_vis = merged_flow(&graph, records)?;
        let clusters = run.clusters(&graph, &portal_vis)?;
        run.finish_bsp(bsp, radius, &clusters)
    })
}

/// Each one-way portal's flow result from the shards' records; an error naming the portal
/// when one is missing, given twice with different results, or does not fit the graph.
fn merged_flow(graph: &Graph, records: &[FlowRecord]) -> Result<Vec<bits::Bits>, VvisError> {
    let n = graph.portals.len();
    let mut vis: Vec<Option<&bits::Bits>> = vec![None; n];
    for r in records {
        let p = r.portal as usize;
        let fits = p < n && r.vis.words.len() == graph.words && r.vis.ones().all(|q| q < n);
        if !fits {
            return Err(VvisError::Invalid(format!(
                "flow result for one-way portal {p} does not fit this map ({n} one-way portals)"
            )));
        }
        match vis[p] {
            Some(v) if *v != r.vis => {
                return Err(VvisError::Invalid(format!(
                    "two different flow results for one-way portal {p}"
                )));
            }
            _ => vis[p] = Some(&r.vis),
        }
    }
    vis.into_iter()
        .enumerate()
        .map(|(p, v)| {
            v.cloned()
                .ok_or_else(|| VvisError::Invalid(format!("no flow result for one-way portal {p}")))
        })
        .collect()
}

/// Portal visibility → cluster PVS/PAS for a set of portals. `round_like_prt`: round the
/// coordinates as a PRT file would (for portals rebuilt from a tree).
pub fn compute(
    portals: &Portals,
    round_like_prt: bool,
    radius: Option<f64>,
    options: &Options,
    progress: &dyn Progress,
) -> Result<(ClusterVis, Report), VvisError> {
    options.threads.pool()?.install(|| {
        let mut run = Run::new(options, progress);
        let source = if round_like_prt {
            PortalSource::RebuiltFromTree
        } else {
            PortalSource::PrtFile
        };
        run.check_portals(portals, source)?;
        run.stats.radius = radius;
        let clusters = run.cluster_vis(portals, source, radius)?;
        Ok((clusters, run.report()))
    })
}

/// The figures of a run, typed, until [`Run::report`] turns them into the shared shape.
#[derive(Debug, Clone, Default)]
struct VisStats {
    clusters: usize,
    /// Portals in the file sense (each is two one-way portals for vis).
    portals: usize,
    from_prt: bool,
    /// The vis radius used (`env_fog_controller` `farz` or the override).
    radius: Option<f64>,
    threads: usize,
    /// Sum over one-way portals of what base vis says they might see.
    might_see: u64,
    /// Where the flow's work went.
    counters: flow::Counters,
    /// The states the flow could spend in all, when bounded.
    flow_budget: Option<u64>,
    /// A shard's walks given up while waiting for a stopped shard's result, and run again.
    walks_redone: Option<usize>,
    /// Visible cluster pairs in the final PVS (each cluster sees itself).
    visible_pairs: u64,
    /// Pairs dropped by the symmetry cross-check.
    crosscheck_dropped: u64,
    /// Size of the new visibility lump.
    vis_bytes: Option<usize>,
    portal_time: Option<Duration>,
    base_time: Duration,
    flow_time: Duration,
    cluster_time: Duration,
}

/// One run of the stage: its options, where progress goes, and the figures so far. Each pass
/// is a method; with verification on, each checks what the next one relies on.
struct Run<'a> {
    options: &'a Options,
    progress: &'a dyn Progress,
    verify: bool,
    stats: VisStats,
}

impl<'a> Run<'a> {
    fn new(options: &'a Options, progress: &'a dyn Progress) -> Run<'a> {
        Run {
            options,
            progress,
            verify: srcmap_stage::verify_enabled(options.verify),
            stats: VisStats {
                threads: rayon::current_num_threads(),
                ..VisStats::default()
            },
        }
    }

    /// Pass 1: the portals, from the PRT file or rebuilt from the BSP's tree.
    fn portals(&mut self, bsp: &Bsp, prt: Option<&str>) -> Result<(Portals, PortalSource), VvisError> {
        let t = Instant::now();
        let (portals, source) = portals_for(bsp, prt)?;
        self.stats.portal_time = Some(t.elapsed());
        self.check_portals(&portals, source)?;
        Ok((portals, source))
    }

    /// The vis radius: the override, else `env_fog_controller`'s `farz` (vvis
    /// `DetermineVisRadius`).
    fn radius(&mut self, bsp: &Bsp) -> Option<f64> {
        self.stats.radius = self.options.radius_override.or_else(|| vis_radius(bsp));
        self.stats.radius
    }

    /// What the graph needs of the portals: clusters in range, windings of 3 to 64 finite
    /// points (always: bad input is an error, not a panic), and planar windings (verifying).
    fn check_portals(&mut self, portals: &Portals, source: PortalSource) -> Result<(), VvisError> {
        portals.verify()?;
        if self.verify {
            verify::portals(portals)?;
        }
        self.stats.portals = portals.portals.len();
        self.stats.from_prt = source == PortalSource::PrtFile;
        Ok(())
    }

    /// Passes 2-5, portals to cluster rows, which [`vis`] and [`compute`] share: the graph, base
    /// vis, the flow (or its skip with `-fast`), and the cluster PVS/PAS.
    fn cluster_vis(
        &mut self,
        portals: &Portals,
        source: PortalSource,
        radius: Option<f64>,
    ) -> Result<ClusterVis, VvisError> {
        let graph = self.graph(portals, source)?;
        let base = self.base_vis(&graph, radius)?;
        let portal_vis = if self.options.fast {
            self.skip_flow(&graph, &base)?
        } else {
            self.flow(&graph, &base)?
        };
        self.clusters(&graph, &portal_vis)
    }

    /// Pass 2: each portal as two one-way portals, listed per cluster.
    fn graph(&mut self, portals: &Portals, source: PortalSource) -> Result<Graph, VvisError> {
        let graph = Graph::new(portals, source == PortalSource::RebuiltFromTree);
        if self.verify {
            verify::graph(&graph)?;
        }
        self.stats.clusters = graph.num_clusters;
        Ok(graph)
    }

    /// Pass 3: what each one-way portal might see (vvis `BasePortalVis`), cut by the radius.
    fn base_vis(&mut self, graph: &Graph, radius: Option<f64>) -> Result<Vec<BaseVis>, VvisError> {
        let t = Instant::now();
        let total = graph.portals.len() as u64;
        self.progress
            .start("base vis", total, srcmap_stage::Unit::Portals);
        let base = graph::base_vis(graph, radius.map(|r| r * r));
        self.progress.advance(total);
        self.progress.finish();
        self.stats.base_time = t.elapsed();
        self.stats.might_see = base.iter().map(|b| b.might_see as u64).sum();
        if self.verify {
            verify::base_vis(graph, &base)?;
        }
        Ok(base)
    }

    /// Pass 4 with `fast` (vvis `-fast`): what base vis says each portal might see stands.
    fn skip_flow(&mut self, graph: &Graph, base: &[BaseVis]) -> Result<Vec<bits::Bits>, VvisError> {
        let vis: Vec<bits::Bits> = base.iter().map(|b| b.flood.clone()).collect();
        if self.verify {
            verify::flow(graph, base, &vis)?;
        }
        Ok(vis)
    }

    /// Pass 4: the portal flow (vvis `PortalFlow`), portals in vvis's sorted order.
    fn flow(&mut self, graph: &Graph, base: &[BaseVis]) -> Result<Vec<bits::Bits>, VvisError> {
        let t = Instant::now();
        let order = graph::sorted_order(base);
        let plan = self.plan(graph);
        self.progress
            .start("portal flow", flow::Meter::UNITS, srcmap_stage::Unit::Work);
        let result = flow::portal_flow(graph, base, &order, plan, self.progress);
        self.progress.finish();
        self.stats.flow_time = t.elapsed();
        self.stats.counters = result.counters;
        if self.verify {
            verify::flow(graph, base, &result.vis)?;
        }
        Ok(result.vis)
    }

    /// How the flow runs on `graph`: the options' walk, limits and lockstep, and the whole
    /// flow's budget of states (noted for the report).
    fn plan(&mut self, graph: &Graph) -> flow::FlowPlan {
        let budget = self.options.flow_budget.total(graph.portals.len());
        self.stats.flow_budget = budget;
        flow::FlowPlan {
            kind: self.options.flow,
            limits: self.options.walk_limits(),
            budget,
            lockstep: self.options.lockstep(),
        }
    }

    /// Pass 5: portal vis merged into cluster rows, cross-checked, and the PAS.
    fn clusters(&mut self, graph: &Graph, portal_vis: &[bits::Bits]) -> Result<ClusterVis, VvisError> {
        let t = Instant::now();
        let clusters = pvs::cluster_vis(graph, portal_vis);
        self.stats.cluster_time = t.elapsed();
        if self.verify {
            verify::cluster_vis(&clusters, graph.num_clusters)?;
        }
        self.stats.visible_pairs = clusters.pvs.iter().map(|r| r.count() as u64).sum();
        self.stats.crosscheck_dropped = clusters.optimized;
        Ok(clusters)
    }

    /// Passes 6-8 and the report: the rows into `bsp`'s visibility lump and leaf flags.
    fn finish_bsp(
        &mut self,
        bsp: &mut Bsp,
        radius: Option<f64>,
        clusters: &ClusterVis,
    ) -> Result<Report, VvisError> {
        let visibility = self.visibility(clusters)?;
        self.leaf_flags(bsp, radius, &visibility)?;
        self.store(bsp, visibility);
        Ok(self.report())
    }

    /// Pass 4 of one shard ([`vis_shard`]): its share of the flow, as records by position, and
    /// how many it took over from other shards.
    fn shard_flow(
        &mut self,
        graph: &Graph,
        base: &[BaseVis],
        shard: ShardOf,
        exchange: &dyn Exchange,
    ) -> (Vec<FlowRecord>, usize) {
        let t = Instant::now();
        let order = graph::sorted_order(base);
        let plan = self.plan(graph);
        self.progress
            .start("portal flow", flow::Meter::UNITS, srcmap_stage::Unit::Work);
        let out = flow::shard::shard_flow(graph, base, &order, plan, (shard, exchange), self.progress);
        self.progress.finish();
        self.stats.flow_time = t.elapsed();
        self.stats.counters = out.counters;
        let records = out
            .results
            .into_iter()
            .map(|(position, portal, states, vis)| FlowRecord {
                position,
                portal,
                states,
                vis,
            })
            .collect();
        self.stats.walks_redone = Some(out.redone);
        (records, out.taken_over)
    }

    /// Pass 6: the rows as the visibility lump's content (each a cluster count of bits).
    fn visibility(&mut self, clusters: &ClusterVis) -> Result<Visibility, VvisError> {
        let visibility = clusters.to_visibility();
        if self.verify {
            verify::visibility(&visibility, clusters.pvs.len())?;
        }
        Ok(visibility)
    }

    /// Pass 7: what vvis derives from the PVS for the leaves: radial flags under a vis radius,
    /// fog-volume tests, distances to water.
    fn leaf_flags(
        &mut self,
        bsp: &mut Bsp,
        radius: Option<f64>,
        visibility: &Visibility,
    ) -> Result<(), VvisError> {
        if radius.is_some() {
            for leaf in &mut bsp.leafs {
                leaf.area_flags |= LEAF_FLAGS_RADIAL << 9;
            }
        }
        water::update_water(bsp, visibility);
        if self.verify {
            verify::leaf_flags(bsp, radius.is_some())?;
        }
        Ok(())
    }

    /// Pass 8: the visibility lump's content into the BSP (replacing any undecoded bytes).
    fn store(&mut self, bsp: &mut Bsp, visibility: Visibility) {
        self.stats.vis_bytes = Some(visibility.to_bytes(bsp.endian).len());
        bsp.raw.remove(&srcmap_bsp::lump::VISIBILITY);
        bsp.visibility = Some(visibility);
    }

    /// The figures in the shape every stage reports.
    fn report(&self) -> Report {
        let s = &self.stats;
        let c = &s.counters;
        let mut r = Report::new("vvis");
        r.set("clusters", s.clusters as f64);
        r.set("portals", s.portals as f64);
        r.set("portals_from_prt", u32::from(s.from_prt));
        if let Some(radius) = s.radius {
            r.set("radius", radius);
        }
        r.set("fast", u32::from(self.options.fast));
        r.set("threads", s.threads as f64);
        if !self.options.fast {
            r.set("lockstep", self.options.lockstep() as f64);
        }
        r.set("might_see", s.might_see as f64);
        for (name, value) in c.named() {
            r.set(name, value as f64);
        }
        if let Some(states) = s.flow_budget {
            r.set("flow_states", states as f64);
        }
        if let Some(redone) = s.walks_redone {
            r.set("walks_redone", redone as f64);
        }
        r.set("visible_pairs", s.visible_pairs as f64);
        r.set("crosscheck_dropped", s.crosscheck_dropped as f64);
        if let Some(bytes) = s.vis_bytes {
            r.set("vis_bytes", bytes as f64);
        }
        if let Some(t) = s.portal_time {
            r.time("portals", t);
        }
        r.time("base", s.base_time);
        r.time("flow", s.flow_time);
        r.time("clusters", s.cluster_time);
        if c.cut > 0 {
            r.warn(self.cut_warning());
        }
        r
    }

    /// What a mapper must know when walks were cut: how many, by which bound, how far the PVS
    /// may have widened, and how to get the exact one.
    fn cut_warning(&self) -> srcmap_stage::Warning {
        let c = &self.stats.counters;
        let walk = self.options.walk_limits().states;
        let budget = match self.stats.flow_budget {
            Some(total) => {
                format!("their share of the flow's budget of {total} states (at most {walk} a walk)")
            }
            None => format!("the budget of {walk} states a walk"),
        };
        srcmap_stage::Warning::new(
            "vvis.walks_cut",
            format!(
                "{} of {} portal walks reached {budget} and stopped: their results are widened by \
                 {} clusters they had not reached, so the PVS shows more than a full vis would \
                 (never less); --flow-states 0 lifts the flow's budget for the exact PVS (its time \
                 can explode on open maps)",
                c.cut,
                2 * self.stats.portals,
                c.widened
            ),
        )
    }
}

/// vvis `DetermineVisRadius`: the first `env_fog_controller`'s `farz`, if positive.
pub fn vis_radius(bsp: &Bsp) -> Option<f64> {
    let fog = bsp.entities.iter().find(|e| {
        e.classname()
            .is_some_and(|c| c.eq_ignore_ascii_case("env_fog_controller"))
    })?;
    let farz = fog.get("farz").map_or(0.0, srcmap_kv::values::atof);
    (farz > 0.0).then_some(farz)
}

/// vvis `LEAF_FLAGS_RADIAL`.
pub const LEAF_FLAGS_RADIAL: u32 = 0x02;

/// The portals for a BSP: the PRT file's when given, else rebuilt from the tree. Checks that
/// the PRT's clusters cover the BSP's and are no more than its leaves.
pub fn portals_for(bsp: &Bsp, prt: Option<&str>) -> Result<(Portals, PortalSource), VvisError> {
    match prt {
        Some(text) => {
            let portals = Portals::parse_prt(text)?;
            let bsp_clusters = bsp.leafs.iter().map(|l| l.cluster + 1).max().unwrap_or(0).max(0) as u32;
            // Each cluster holds at least one leaf: more clusters than leaves is a portal file
            // for another map (and would size the PVS by a count the BSP cannot have).
            if bsp_clusters > portals.num_clusters || portals.num_clusters as usize > bsp.leafs.len() {
                return Err(VvisError::ClusterMismatch {
                    prt: portals.num_clusters,
                    bsp: bsp_clusters,
                });
            }
            Ok((portals, PortalSource::PrtFile))
        }
        None => Ok((tree::portals_from_bsp(bsp)?, PortalSource::RebuiltFromTree)),
    }
}

/// Runs vis on a BSP file (the standalone `srcmap vvis`): [`vis`] on the file's `Bsp`, then
/// the new file's bytes with the visibility lump replaced, the leaf and water-distance lumps
/// replaced when vis changed them, and every other lump byte for byte as it was.
pub fn vis_bsp(
    bsp_bytes: &[u8],
    prt: Option<&str>,
    options: &Options,
    progress: &dyn Progress,
) -> Result<(Vec<u8>, Report), VvisError> {
    rewrite_bsp(bsp_bytes, |bsp| vis(bsp, prt, options, progress))
}

/// [`vis_merged`] on a BSP file, written as [`vis_bsp`] writes it: the same bytes as
/// [`vis_bsp`] with the same options.
pub fn merge_bsp(
    bsp_bytes: &[u8],
    prt: Option<&str>,
    options: &Options,
    records: &[FlowRecord],
    progress: &dyn Progress,
) -> Result<(Vec<u8>, Report), VvisError> {
    rewrite_bsp(bsp_bytes, |bsp| vis_merged(bsp, prt, options, records, progress))
}

/// The file `bsp_bytes` with `run`'s visibility: the visibility lump replaced, the leaf and
/// water-distance lumps replaced when it changed them, every other lump as it was.
fn rewrite_bsp(
    bsp_bytes: &[u8],
    run: impl FnOnce(&mut Bsp) -> Result<Report, VvisError>,
) -> Result<(Vec<u8>, Report), VvisError> {
    let file = BspFile::parse(bsp_bytes)?;
    let mut bsp = Bsp::from_file(&file)?;
    let (old_leafs, old_water) = (bsp.leafs.clone(), bsp.leaf_min_dist_to_water.clone());
    let report = run(&mut bsp)?;
    let mut doc = BspDocument::from_file(&file);
    let vis_lump = bsp
        .visibility
        .as_ref()
        .map_or_else(Vec::new, |v| v.to_bytes(bsp.endian));
    store_lump(&mut doc, srcmap_bsp::lump::VISIBILITY, vis_lump)?;
    for (lump, changed) in [
        (srcmap_bsp::lump::LEAFS, bsp.leafs != old_leafs),
        (
            srcmap_bsp::lump::LEAFMINDISTTOWATER,
            bsp.leaf_min_dist_to_water != old_water,
        ),
    ] {
        if changed {
            store_lump(&mut doc, lump, bsp.lump_bytes(lump)?)?;
        }
    }
    Ok((doc.to_bytes()?, report))
}

/// Replaces a lump with new uncompressed bytes, stored as the old one was: LZMA-compressed when
/// the file had it compressed (as maps packed by bspzip have), plain otherwise. Keeps the version.
fn store_lump(doc: &mut BspDocument<'_>, lump: usize, data: Vec<u8>) -> Result<(), VvisError> {
    let slot = &doc.lumps[lump];
    let version = slot.version;
    if slot.is_compressed() && !data.is_empty() {
        let packed = srcmap_bsp::lzma::encode(&data).map_err(|e| srcmap_bsp::BspError::Write {
            lump,
            message: e.to_string(),
        })?;
        doc.set_lump_stored(lump, packed, version, data.len() as u32);
    } else {
        doc.set_lump(lump, data, version);
    }
    Ok(())
}
