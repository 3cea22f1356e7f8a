//! Which vvis pass made a compiled map's PVS, told from the map alone. `vvis -fast` keeps the
//! portal flood (vvis `BasePortalVis`: what each portal might see) as the PVS; a full vis runs
//! the exact pass, which only removes clusters from that flood. So the map's own tree, its
//! portals rebuilt and flooded as vvis does, tells: a PVS strictly inside the flood somewhere
//! is a full vis; one equal to it everywhere is `-fast` when a full pass of ours culls more than
//! 1% of the pairs (ours and Valve's full passes agree within that on the corpus), either pass
//! when it culls nothing, and not told apart in between or when the full pass is too big to
//! run; a PVS outside the flood means the rebuilt portals are not the ones vvis had, and
//! nothing is told.

use srcmap_bsp::state::{VisPass, row_mask, visible_pairs};
use srcmap_bsp::{Bsp, Visibility};

use crate::{NoProgress, Options, Threads, compute, tree, vis_radius};

/// Above this many visible cluster pairs in the map's PVS, [`vis_pass`] compares nothing (the
/// largest corpus map has 1.6 M, its flood a second or two).
pub const COMPARE_MAX_PAIRS: u64 = 4_000_000;

/// Above this many visible cluster pairs in the flood, [`vis_pass`] does not run the full pass
/// (its work grows with the square of what each portal might see: 84 k pairs took seconds,
/// 1.6 M minutes).
pub const FULL_PASS_MAX_PAIRS: u64 = 50_000;

/// How many of `outer`'s pairs `inner` lacks, each row of `inner` being within `outer`'s;
/// `None` when some pair of `inner` is not in `outer`. Compared a byte at a time.
fn pairs_culled(inner: &Visibility, outer: &Visibility) -> Option<u64> {
    let n = inner.num_clusters as usize;
    let mut culled = 0u64;
    for (a, b) in inner.pvs.iter().zip(&outer.pvs).take(n) {
        for i in 0..inner.row_len() {
            let mask = row_mask(n, i);
            let x = a.get(i).copied().unwrap_or(0) & mask;
            let y = b.get(i).copied().unwrap_or(0) & mask;
            if x & !y != 0 {
                return None;
            }
            culled += (y & !x).count_ones() as u64;
        }
    }
    Some(culled)
}

/// How the map's PVS compares with the portal flood of its own tree (and, when the flood has
/// at most `max_pairs` visible pairs, with a full pass). `Unknown` for a PVS of more than
/// [`COMPARE_MAX_PAIRS`] pairs or clusters beyond Valve's 65,536.
pub fn vis_pass(bsp: &Bsp, max_pairs: u64) -> VisPass {
    let Some(stored) = bsp.visibility.as_ref().filter(|v| v.num_clusters > 0) else {
        return VisPass::None;
    };
    // More clusters than Valve's MAX_MAP_CLUSTERS, or a PVS too big to flood for a report.
    if stored.num_clusters > 65_536 || visible_pairs(stored) > COMPARE_MAX_PAIRS {
        return VisPass::Unknown;
    }
    let Ok(portals) = tree::portals_from_bsp(bsp) else {
        return VisPass::Unknown;
    };
    let run = |fast: bool| compute_pvs(bsp, &portals, fast);
    let Some(flood) = run(true) else {
        return VisPass::Unknown;
    };
    if flood.pvs.len() != stored.num_clusters as usize {
        return VisPass::Unknown;
    }
    let pairs: u64 = flood.pvs.iter().map(|r| r.count() as u64).sum();
    let flood = flood.to_visibility();
    match pairs_culled(stored, &flood) {
        None => VisPass::Unknown,
        Some(culled) if culled > 0 => VisPass::Full,
        Some(_) if pairs > max_pairs => VisPass::PortalFlood,
        Some(_) => full_against_flood(run(false), &flood, pairs),
    }
}

/// The PVS of the map's own tree portals: the portal flood (`fast`) or a full pass.
fn compute_pvs(bsp: &Bsp, portals: &crate::Portals, fast: bool) -> Option<crate::ClusterVis> {
    let options = Options {
        fast,
        threads: Threads::ALL,
        ..Options::default()
    };
    compute(portals, true, vis_radius(bsp), &options, &NoProgress)
        .ok()
        .map(|(vis, _)| vis)
}

/// A PVS that culls nothing from the flood of `pairs` pairs, judged by what a full pass culls
/// from that flood.
fn full_against_flood(full: Option<crate::ClusterVis>, flood: &Visibility, pairs: u64) -> VisPass {
    match full.map(|full| pairs_culled(&full.to_visibility(), flood)) {
        Some(Some(0)) => VisPass::Either,
        // Our full pass and Valve's may differ by a pair here and there (the vvis corpus
        // test allows 1%): only a full pass that culls more than that tells -fast.
        Some(Some(culled)) if culled * 100 > pairs => VisPass::Fast,
        Some(Some(_)) => VisPass::PortalFlood,
        _ => VisPass::Unknown,
    }
}
