//! Compile stage 2: visibility. Potentially visible sets (PVS) and audible sets (PAS) per
//! cluster, computed the way Valve's VVIS does, only faster.
//!
//! Pipeline, each step a function from data to data:
//! 1. **Portals** ([`Portals`]): from a PRT1 file ([`Portals::parse_prt`]) or rebuilt from a
//!    compiled BSP's own tree ([`tree::portals_from_bsp`]).
//! 2. **Graph** ([`graph::Graph`]): each portal as two one-way portals, per-cluster lists.
//! 3. **Base vis** ([`graph::base_vis`]): vvis `BasePortalVis` — what each portal might see
//!    (in front, facing away, flood-reachable), cut by the vis radius when there is one.
//! 4. **Flow** ([`flow::portal_flow`]): vvis `PortalFlow` — the recursive walk with
//!    separating-plane clipping (skipped with `fast`, as vvis `-fast` does).
//! 5. **Clusters** ([`pvs::cluster_vis`]): portal bits to cluster rows, vvis's symmetry
//!    cross-check, PAS as the union of the PVS rows of every visible cluster.
//!
//! 6. **Water** ([`water::update_water`]): what vvis derives from the PVS — leaves that must
//!    test fog volumes, and each leaf's distance to visible water.
//!
//! [`vis_bsp`] runs all of it on a BSP file's bytes and returns the new file (visibility lump
//! replaced; leaf flags and water distances updated; every other lump byte for byte). Work is
//! spread over all cores with rayon; progress goes through the [`Progress`] trait, the library
//! itself never prints. [`check`] judges a PVS against another lump and by line of sight.
//!
//! Results are deterministic (independent of thread count) and, on the corpus, equal to
//! Valve's lumps cluster pair for cluster pair on all but three maps (see the crate tests).

pub mod bits;
pub mod check;
pub mod clip;
pub mod error;
pub mod flow;
pub mod graph;
pub mod portals;
pub mod pvs;
pub mod tree;
pub mod water;

use std::time::{Duration, Instant};

use srcmap_bsp::{Bsp, BspDocument, BspFile, Visibility};

pub use error::VisError;
pub use flow::FlowKind;
pub use portals::{Portal, PortalId, Portals};
pub use pvs::ClusterVis;

pub use srcmap_stage::{NoProgress, Progress};

/// What to compute and how.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// vvis `-fast`: stop after base vis (a loose, conservative PVS).
    pub fast: bool,
    /// Worker threads; `None`: one per core.
    pub threads: Option<usize>,
    /// vvis `-radius_override`: a vis radius regardless of `env_fog_controller`.
    pub radius_override: Option<f64>,
    /// The flow implementation (the reference exists for benchmarks and tests).
    pub flow: FlowKind,
    /// Bytes of walk states one thread may hold for a portal's fast flow before that portal
    /// is walked again depth first (slower, little memory); `None`: 512 MiB.
    pub walk_memory: Option<usize>,
}

/// Where the portals came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortalSource {
    PrtFile,
    RebuiltFromTree,
}

/// Figures from a run.
#[derive(Debug, Clone)]
pub struct Report {
    pub clusters: usize,
    /// Portals in the file sense (each is two one-way portals for vis).
    pub portals: usize,
    pub source: PortalSource,
    /// The vis radius used (`env_fog_controller` `farz` or the override).
    pub radius: Option<f64>,
    pub fast: bool,
    pub threads: usize,
    pub portal_time: Duration,
    pub base_time: Duration,
    pub flow_time: Duration,
    pub cluster_time: Duration,
    /// Sum over one-way portals of what base vis says they might see.
    pub might_see: u64,
    /// Where the flow's work went.
    pub counters: flow::Counters,
    /// Visible cluster pairs in the final PVS (each cluster sees itself).
    pub visible_pairs: u64,
    /// Pairs dropped by the symmetry cross-check.
    pub optimized: u64,
    /// Size of the new visibility lump.
    pub vis_bytes: usize,
}

/// Portal visibility → cluster PVS/PAS for a set of portals. `round_like_prt`: round the
/// coordinates as a PRT file would (for portals rebuilt from a tree).
pub fn compute(
    portals: &Portals,
    round_like_prt: bool,
    radius: Option<f64>,
    options: &Options,
    progress: &dyn Progress,
) -> Result<(ClusterVis, Report), VisError> {
    portals.verify()?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads.unwrap_or(0))
        .build()
        .map_err(|e| VisError::Threads(e.to_string()))?;
    let threads = pool.current_num_threads();
    pool.install(|| {
        let graph = graph::Graph::new(portals, round_like_prt);
        let t = Instant::now();
        progress.start("base vis", graph.portals.len() as u64);
        let base = graph::base_vis(&graph, radius.map(|r| r * r));
        progress.advance(graph.portals.len() as u64);
        progress.finish();
        let base_time = t.elapsed();
        let t = Instant::now();
        let (portal_vis, counters) = if options.fast {
            (
                base.iter().map(|b| b.flood.clone()).collect(),
                flow::Counters::default(),
            )
        } else {
            let order = graph::sorted_order(&base);
            let total: u64 = base.iter().map(flow::work_estimate).sum();
            progress.start("portal flow", total);
            let r = flow::portal_flow(&graph, &base, &order, options.flow, options.walk_memory, progress);
            progress.finish();
            (r.vis, r.counters)
        };
        let flow_time = t.elapsed();
        let t = Instant::now();
        let clusters = pvs::cluster_vis(&graph, &portal_vis);
        let cluster_time = t.elapsed();
        let report = Report {
            clusters: graph.num_clusters,
            portals: portals.portals.len(),
            source: if round_like_prt {
                PortalSource::RebuiltFromTree
            } else {
                PortalSource::PrtFile
            },
            radius,
            fast: options.fast,
            threads,
            portal_time: Duration::ZERO,
            base_time,
            flow_time,
            cluster_time,
            might_see: base.iter().map(|b| b.might_see as u64).sum(),
            counters,
            visible_pairs: clusters.pvs.iter().map(|r| r.count() as u64).sum(),
            optimized: clusters.optimized,
            vis_bytes: 0,
        };
        Ok((clusters, report))
    })
}

/// vvis `DetermineVisRadius`: the first `env_fog_controller`'s `farz`, if positive.
pub fn vis_radius(bsp: &Bsp) -> Option<f64> {
    let fog = bsp.entities.iter().find(|e| {
        e.classname()
            .is_some_and(|c| c.eq_ignore_ascii_case("env_fog_controller"))
    })?;
    let farz = fog.get("farz").map_or(0.0, atof);
    (farz > 0.0).then_some(farz)
}

/// C `atof`: the longest numeric prefix, 0 when there is none.
fn atof(s: &str) -> f64 {
    let s = s.trim_start();
    let end = s
        .char_indices()
        .take_while(|&(i, c)| {
            c.is_ascii_digit() || c == '.' || ((c == '-' || c == '+') && i == 0) || c == 'e' || c == 'E'
        })
        .count();
    (1..=end)
        .rev()
        .find_map(|n| s.get(..n).and_then(|p| p.parse().ok()))
        .unwrap_or(0.0)
}

/// vvis `LEAF_FLAGS_RADIAL`.
pub const LEAF_FLAGS_RADIAL: u32 = 0x02;

/// The portals for a BSP: the PRT file's when given, else rebuilt from the tree. Checks that
/// the PRT's clusters cover the BSP's.
pub fn portals_for(bsp: &Bsp, prt: Option<&str>) -> Result<(Portals, PortalSource), VisError> {
    match prt {
        Some(text) => {
            let portals = Portals::parse_prt(text)?;
            let bsp_clusters = bsp.leafs.iter().map(|l| l.cluster + 1).max().unwrap_or(0).max(0) as u32;
            if bsp_clusters > portals.num_clusters {
                return Err(VisError::ClusterMismatch {
                    prt: portals.num_clusters,
                    bsp: bsp_clusters,
                });
            }
            Ok((portals, PortalSource::PrtFile))
        }
        None => Ok((tree::portals_from_bsp(bsp)?, PortalSource::RebuiltFromTree)),
    }
}

/// Runs vis on a BSP file: returns the new file's bytes (visibility lump replaced, leaves
/// flagged radial under a vis radius; every other lump byte for byte as it was) and a report.
pub fn vis_bsp(
    bsp_bytes: &[u8],
    prt: Option<&str>,
    options: &Options,
    progress: &dyn Progress,
) -> Result<(Vec<u8>, Report), VisError> {
    let file = BspFile::parse(bsp_bytes)?;
    let mut bsp = Bsp::from_file(&file)?;
    let t = Instant::now();
    let (portals, source) = portals_for(&bsp, prt)?;
    let portal_time = t.elapsed();
    let radius = options.radius_override.or_else(|| vis_radius(&bsp));
    let (clusters, mut report) = compute(
        &portals,
        source == PortalSource::RebuiltFromTree,
        radius,
        options,
        progress,
    )?;
    report.portal_time = portal_time;
    let vis: Visibility = clusters.to_visibility();
    let vis_lump = vis.to_bytes(bsp.endian);
    report.vis_bytes = vis_lump.len();
    let mut doc = BspDocument::from_file(&file);
    store_lump(&mut doc, srcmap_bsp::lump::VISIBILITY, vis_lump)?;
    // What vvis derives from the PVS: radial leaf flags, fog-volume tests, distance to water.
    let (old_leafs, old_water) = (bsp.leafs.clone(), bsp.leaf_min_dist_to_water.clone());
    if radius.is_some() {
        for leaf in &mut bsp.leafs {
            leaf.area_flags |= LEAF_FLAGS_RADIAL << 9;
        }
    }
    water::update_water(&mut bsp, &vis);
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
fn store_lump(doc: &mut BspDocument<'_>, lump: usize, data: Vec<u8>) -> Result<(), VisError> {
    let slot = &doc.lumps[lump];
    let version = slot.version;
    if slot.is_compressed() && !data.is_empty() {
        let packed = srcmap_bsp::lzma::compress(&data)
            .map_err(|message| srcmap_bsp::Error::Write { lump, message })?;
        doc.set_lump_stored(lump, packed, version, data.len() as u32);
    } else {
        doc.set_lump(lump, data, version);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atof_like_c() {
        assert_eq!(atof("4096"), 4096.0);
        assert_eq!(atof(" 2500.5 junk"), 2500.5);
        assert_eq!(atof("x"), 0.0);
        assert_eq!(atof("-3e2"), -300.0);
    }
}
