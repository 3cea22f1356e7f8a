//! From portal visibility to cluster visibility: vvis `ClusterMerge`,
//! `CompressAndCrosscheckClusterVis` and `CalcPAS`.

use srcmap_bsp::Visibility;

use crate::bits::Bits;
use crate::graph::Graph;

/// Cluster rows (PVS, then PAS) and a few counts.
#[derive(Debug, Clone)]
pub struct ClusterVis {
    pub pvs: Vec<Bits>,
    pub pas: Vec<Bits>,
    /// Visible cluster pairs before the symmetry cross-check (vvis "Total clusters visible").
    pub total_visible: u64,
    /// Pairs dropped by the cross-check because only one side saw the other.
    pub optimized: u64,
}

/// Merges portal vis into cluster rows, applies vvis's cross-check (a cluster keeps another
/// only if that one sees it back), and builds the PAS.
pub fn cluster_vis(graph: &Graph, portal_vis: &[Bits]) -> ClusterVis {
    let mut rows: Vec<Bits> = (0..graph.num_clusters)
        .map(|c| cluster_row(graph, portal_vis, c))
        .collect();
    let total_visible = rows.iter().map(|row| row.count() as u64).sum();
    let optimized = crosscheck(&mut rows);
    let pas = rows
        .iter()
        .map(|row| {
            let mut pas = row.clone();
            for j in row.ones() {
                pas.or_with(&rows[j]);
            }
            pas
        })
        .collect();
    ClusterVis {
        pvs: rows,
        pas,
        total_visible,
        optimized,
    }
}

/// vvis `ClusterMerge` for cluster `c`: the clusters its portals and what they see lead into,
/// and itself.
fn cluster_row(graph: &Graph, portal_vis: &[Bits], c: usize) -> Bits {
    let mut portals = Bits::new(graph.words);
    for &p in &graph.cluster_portals[c] {
        if let Some(v) = portal_vis.get(p as usize) {
            portals.or_with(v);
        }
        portals.set(p as usize);
    }
    let mut row = Bits::new(graph.num_clusters.div_ceil(64));
    for p in portals.ones() {
        if let Some(portal) = graph.portals.get(p) {
            row.set(portal.leaf as usize);
        }
    }
    row.set(c);
    row
}

/// vvis's cross-check, in place, cluster by cluster: a cluster keeps another only if that one
/// sees it back (as the rows stand when it comes to it). The pairs dropped.
fn crosscheck(rows: &mut [Bits]) -> u64 {
    let mut optimized = 0u64;
    for i in 0..rows.len() {
        let drop: Vec<usize> = rows[i].ones().filter(|&j| j != i && !rows[j].get(i)).collect();
        optimized += drop.len() as u64;
        for j in drop {
            rows[i].clear(j);
        }
    }
    optimized
}

impl ClusterVis {
    /// The visibility lump's content.
    pub fn to_visibility(&self) -> Visibility {
        let n = self.pvs.len();
        let len = n.div_ceil(8);
        Visibility {
            num_clusters: n as u32,
            pvs: self.pvs.iter().map(|r| r.to_bytes(len)).collect(),
            pas: self.pas.iter().map(|r| r.to_bytes(len)).collect(),
        }
    }
}
