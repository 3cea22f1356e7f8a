//! Deterministic text dumps of vis's main structures, for golden tests and debugging: the
//! portal graph with what base vis says each one-way portal might see, what the flow says each
//! one sees, and the cluster rows (PVS, PAS). No addresses, no timings; sets as sorted index lists.

use std::fmt::Write as _;

use crate::bits::Bits;
use crate::graph::{BaseVis, Graph};
use crate::pvs::ClusterVis;

/// The graph: each cluster's outgoing one-way portals, then each one-way portal as
/// `from -> into`, its other half, and its base-vis might-see count and set.
pub fn graph(graph: &Graph, base: &[BaseVis]) -> String {
    let mut out = format!(
        "clusters {} one-way portals {}\n",
        graph.num_clusters,
        graph.portals.len()
    );
    for (c, list) in graph.cluster_portals.iter().enumerate() {
        let _ = writeln!(
            out,
            "cluster {c} portals{}",
            list_of(list.iter().map(|&p| p as usize))
        );
    }
    for (p, portal) in graph.portals.iter().enumerate() {
        let from = graph.portals[p ^ 1].leaf;
        let _ = write!(out, "portal {p}: {from} -> {} pair {}", portal.leaf, p ^ 1);
        if let Some(b) = base.get(p) {
            let _ = write!(out, " might see {}:{}", b.might_see, list_of(b.flood.ones()));
        }
        out.push('\n');
    }
    out
}

/// The flow's result: each one-way portal's count and set of the portals it sees.
pub fn portal_vis(vis: &[Bits]) -> String {
    let mut out = format!("one-way portals {}\n", vis.len());
    for (p, v) in vis.iter().enumerate() {
        let _ = writeln!(out, "portal {p} sees {}:{}", v.count(), list_of(v.ones()));
    }
    out
}

/// The cluster rows: each cluster's PVS, then its PAS, as lists of clusters.
pub fn cluster_vis(vis: &ClusterVis) -> String {
    let mut out = format!(
        "clusters {} visible before cross-check {} dropped by it {}\n",
        vis.pvs.len(),
        vis.total_visible,
        vis.optimized
    );
    for (name, rows) in [("pvs", &vis.pvs), ("pas", &vis.pas)] {
        for (c, row) in rows.iter().enumerate() {
            let _ = writeln!(out, "{name} {c} ({}):{}", row.count(), list_of(row.ones()));
        }
    }
    out
}

/// Indices as ` a b c`.
fn list_of(items: impl Iterator<Item = usize>) -> String {
    items.fold(String::new(), |mut s, i| {
        let _ = write!(s, " {i}");
        s
    })
}
