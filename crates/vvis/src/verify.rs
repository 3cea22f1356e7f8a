//! The invariants each pass hands the next, checked between passes when
//! [`srcmap_stage::verify_enabled`] says so. A failure is a bug in the pass before (or input
//! that slipped past its checks), reported as [`VvisError::Verify`] naming that pass.

use srcmap_bsp::{Bsp, Visibility};

use crate::bits::Bits;
use crate::error::VvisError;
use crate::graph::{BaseVis, Graph};
use crate::portals::Portals;
use crate::pvs::ClusterVis;

/// How far (units) a winding's point may lie off its plane: vbsp's `ON_EPSILON`. PRT files
/// round coordinates, and tree portals are clipped in `f64`; both stay well inside this.
const PLANAR_EPSILON: f64 = 0.1;

fn fail(pass: &'static str, message: String) -> VvisError {
    VvisError::Verify { pass, message }
}

/// What the graph relies on beyond [`Portals::verify`] (clusters in range and distinct, 3 to
/// 64 finite points, always checked): each winding planar.
pub(crate) fn portals(portals: &Portals) -> Result<(), VvisError> {
    for (i, p) in portals.portals.iter().enumerate() {
        if let Some(off) = off_plane(&p.points) {
            return Err(fail(
                "portals",
                format!("portal {i}: a point lies {off:.3} units off the winding's plane"),
            ));
        }
    }
    Ok(())
}

/// The largest distance of a point from the winding's plane (Newell's normal through the
/// centroid), when it exceeds [`PLANAR_EPSILON`]. Collinear points (no normal) are planar.
fn off_plane(points: &[[f64; 3]]) -> Option<f64> {
    let mut normal = [0f64; 3];
    let mut centre = [0f64; 3];
    for (i, a) in points.iter().enumerate() {
        let b = points[(i + 1) % points.len()];
        normal[0] += (a[1] - b[1]) * (a[2] + b[2]);
        normal[1] += (a[2] - b[2]) * (a[0] + b[0]);
        normal[2] += (a[0] - b[0]) * (a[1] + b[1]);
        for k in 0..3 {
            centre[k] += a[k] / points.len() as f64;
        }
    }
    let len = normal.iter().map(|c| c * c).sum::<f64>().sqrt();
    if len < 1e-9 {
        return None;
    }
    let worst = points
        .iter()
        .map(|p| ((0..3).map(|k| (p[k] - centre[k]) * normal[k]).sum::<f64>() / len).abs())
        .fold(0.0, f64::max);
    (worst > PLANAR_EPSILON).then_some(worst)
}

/// What base vis and the flow rely on: every one-way portal listed under exactly one cluster,
/// and the two halves of each file portal pointing at each other's clusters (`2i` leaves the
/// cluster `2i + 1` leads into, and the other way round).
pub(crate) fn graph(graph: &Graph) -> Result<(), VvisError> {
    graph_sizes(graph)?;
    let from = portal_sources(graph)?;
    for p in 0..graph.portals.len() {
        graph_portal(graph, &from, p)?;
    }
    Ok(())
}

/// One-way portal `p` in a cluster's list (`from`), into a cluster in range, whose other half
/// leaves that cluster, with at least three points.
fn graph_portal(graph: &Graph, from: &[Option<usize>], p: usize) -> Result<(), VvisError> {
    let portal = &graph.portals[p];
    let bad = |message: String| Err(fail("graph", message));
    let Some(leaves) = from[p] else {
        return bad(format!("portal {p} is in no cluster's list"));
    };
    if portal.leaf as usize >= graph.num_clusters {
        return bad(format!(
            "portal {p} leads into cluster {} of {}",
            portal.leaf, graph.num_clusters
        ));
    }
    if from[p ^ 1] != Some(portal.leaf as usize) {
        return bad(format!(
            "portal {p} leads from {leaves} into {} but its other half leaves {:?}",
            portal.leaf,
            from[p ^ 1]
        ));
    }
    if portal.winding.len() < 3 {
        return bad(format!("portal {p}: {} points", portal.winding.len()));
    }
    Ok(())
}

/// One-way portals in pairs, bit sets wide enough for them, a portal list per cluster.
fn graph_sizes(graph: &Graph) -> Result<(), VvisError> {
    let n = graph.portals.len();
    let bad = |message: String| Err(fail("graph", message));
    if !n.is_multiple_of(2) {
        return bad(format!("{n} one-way portals (not pairs)"));
    }
    if graph.words != n.div_ceil(64) {
        return bad(format!("{} bit-set words for {n} portals", graph.words));
    }
    if graph.cluster_portals.len() != graph.num_clusters {
        return bad(format!(
            "{} portal lists for {} clusters",
            graph.cluster_portals.len(),
            graph.num_clusters
        ));
    }
    Ok(())
}

/// The cluster listing each one-way portal, each listed at most once.
fn portal_sources(graph: &Graph) -> Result<Vec<Option<usize>>, VvisError> {
    let n = graph.portals.len();
    let mut from = vec![None; n];
    for (c, list) in graph.cluster_portals.iter().enumerate() {
        for &p in list {
            match from.get_mut(p as usize) {
                None => return Err(fail("graph", format!("cluster {c} lists portal {p} of {n}"))),
                Some(Some(other)) => {
                    return Err(fail(
                        "graph",
                        format!("portal {p} listed by clusters {other} and {c}"),
                    ));
                }
                Some(slot) => *slot = Some(c),
            }
        }
    }
    Ok(from)
}

/// What the stored lump and the water pass rely on: a PVS and a PAS row per cluster, each the
/// cluster count wide, each cluster seeing itself, and every PAS row holding its PVS row.
pub(crate) fn cluster_vis(vis: &ClusterVis, clusters: usize) -> Result<(), VvisError> {
    let bad = |message: String| Err(fail("clusters", message));
    if vis.pvs.len() != clusters || vis.pas.len() != clusters {
        return bad(format!(
            "{} PVS and {} PAS rows for {clusters} clusters",
            vis.pvs.len(),
            vis.pas.len()
        ));
    }
    let words = clusters.div_ceil(64);
    let width = |row: &Bits| row.words.len() == words && row.ones().all(|c| c < clusters);
    for (c, (pvs, pas)) in vis.pvs.iter().zip(&vis.pas).enumerate() {
        if !width(pvs) || !width(pas) {
            return bad(format!("cluster {c}: a row is not {clusters} clusters wide"));
        }
        if !pvs.get(c) {
            return bad(format!("cluster {c} does not see itself"));
        }
        if let Some(k) = pvs.words.iter().zip(&pas.words).position(|(v, a)| v & !a != 0) {
            return bad(format!(
                "cluster {c}: its PAS misses clusters of its PVS (word {k})"
            ));
        }
    }
    Ok(())
}

/// What the flow relies on: a might-see set per one-way portal, as wide as the graph's bit
/// sets, of the size recorded, never holding the portal itself.
pub(crate) fn base_vis(graph: &Graph, base: &[BaseVis]) -> Result<(), VvisError> {
    let bad = |message: String| Err(fail("base vis", message));
    if base.len() != graph.portals.len() {
        return bad(format!(
            "{} might-see sets for {} one-way portals",
            base.len(),
            graph.portals.len()
        ));
    }
    for (p, b) in base.iter().enumerate() {
        if b.flood.words.len() != graph.words {
            return bad(format!(
                "portal {p}: a set of {} words, not {}",
                b.flood.words.len(),
                graph.words
            ));
        }
        if b.flood.count() != b.might_see {
            return bad(format!(
                "portal {p}: {} portals counted as {}",
                b.flood.count(),
                b.might_see
            ));
        }
        if b.flood.get(p) {
            return bad(format!("portal {p} might see itself"));
        }
    }
    Ok(())
}

/// What the cluster rows rely on: a result per one-way portal, as wide as the graph's bit
/// sets, inside what base vis said the portal might see.
pub(crate) fn flow(graph: &Graph, base: &[BaseVis], vis: &[Bits]) -> Result<(), VvisError> {
    let bad = |message: String| Err(fail("flow", message));
    if vis.len() != graph.portals.len() {
        return bad(format!(
            "{} results for {} one-way portals",
            vis.len(),
            graph.portals.len()
        ));
    }
    for (p, (v, b)) in vis.iter().zip(base).enumerate() {
        if v.words.len() != graph.words {
            return bad(format!(
                "portal {p}: a result of {} words, not {}",
                v.words.len(),
                graph.words
            ));
        }
        if let Some(k) = v.words.iter().zip(&b.flood.words).position(|(v, f)| v & !f != 0) {
            return bad(format!("portal {p} sees portals base vis ruled out (word {k})"));
        }
    }
    Ok(())
}

/// What the leaf flags and the stored lump rely on: a PVS and a PAS row per cluster, each the
/// bytes of a cluster count of bits, each cluster seeing itself.
pub(crate) fn visibility(vis: &Visibility, clusters: usize) -> Result<(), VvisError> {
    let bad = |message: String| Err(fail("visibility", message));
    if vis.num_clusters as usize != clusters || vis.pvs.len() != clusters || vis.pas.len() != clusters {
        return bad(format!(
            "{} clusters, {} PVS and {} PAS rows for {clusters} clusters",
            vis.num_clusters,
            vis.pvs.len(),
            vis.pas.len()
        ));
    }
    let len = vis.row_len();
    for c in 0..clusters {
        if vis.pvs[c].len() != len || vis.pas[c].len() != len {
            return bad(format!("cluster {c}: a row is not {len} bytes"));
        }
        if !vis.can_see(c, c) {
            return bad(format!("cluster {c} does not see itself"));
        }
    }
    Ok(())
}

/// What the stored BSP relies on: a distance to water per leaf and, under a vis radius, every
/// leaf flagged radial.
pub(crate) fn leaf_flags(bsp: &Bsp, radial: bool) -> Result<(), VvisError> {
    let bad = |message: String| Err(fail("leaf flags", message));
    if bsp.leaf_min_dist_to_water.len() != bsp.leafs.len() {
        return bad(format!(
            "{} distances to water for {} leaves",
            bsp.leaf_min_dist_to_water.len(),
            bsp.leafs.len()
        ));
    }
    let flag = crate::LEAF_FLAGS_RADIAL << 9;
    if radial && let Some(l) = bsp.leafs.iter().position(|l| l.area_flags & flag == 0) {
        return bad(format!("leaf {l} is not flagged radial"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::portals::Portal;

    fn square(z_last: f64) -> Portal {
        Portal {
            clusters: [0, 1],
            points: vec![
                [0.0, 0.0, 0.0],
                [64.0, 0.0, 0.0],
                [64.0, 64.0, 0.0],
                [0.0, 64.0, z_last],
            ],
        }
    }

    #[test]
    fn windings_must_be_planar() {
        let flat = Portals {
            num_clusters: 2,
            portals: vec![square(0.0)],
        };
        assert!(portals(&flat).is_ok());
        let bent = Portals {
            num_clusters: 2,
            portals: vec![square(4.0)],
        };
        assert!(matches!(
            portals(&bent),
            Err(VvisError::Verify { pass: "portals", .. })
        ));
    }

    #[test]
    fn graph_halves_point_at_each_other() {
        let p = Portals {
            num_clusters: 3,
            portals: vec![square(0.0)],
        };
        let mut g = Graph::new(&p, false);
        assert!(graph(&g).is_ok());
        g.portals[1].leaf = 2;
        assert!(matches!(graph(&g), Err(VvisError::Verify { pass: "graph", .. })));
    }

    #[test]
    fn rows_see_themselves_and_pas_holds_pvs() {
        let row = |ones: &[usize]| {
            let mut b = Bits::new(1);
            for &c in ones {
                b.set(c);
            }
            b
        };
        let good = ClusterVis {
            pvs: vec![row(&[0, 1]), row(&[0, 1])],
            pas: vec![row(&[0, 1]), row(&[0, 1])],
            total_visible: 4,
            optimized: 0,
        };
        assert!(cluster_vis(&good, 2).is_ok());
        let mut blind = good.clone();
        blind.pvs[1] = row(&[0]);
        assert!(cluster_vis(&blind, 2).is_err());
        let mut deaf = good.clone();
        deaf.pas[0] = row(&[0]);
        assert!(cluster_vis(&deaf, 2).is_err());
        let mut wide = good;
        wide.pvs[0] = row(&[0, 1, 2]);
        assert!(cluster_vis(&wide, 2).is_err());
    }
}
