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
    let n = graph.num_clusters;
    let cwords = n.div_ceil(64);
    let mut rows = Vec::with_capacity(n);
    let mut total_visible = 0u64;
    for c in 0..n {
        let mut portals = Bits::new(graph.words);
        for &p in &graph.cluster_portals[c] {
            if let Some(v) = portal_vis.get(p as usize) {
                portals.or_with(v);
            }
            portals.set(p as usize);
        }
        let mut row = Bits::new(cwords);
        for p in portals.ones() {
            if let Some(portal) = graph.portals.get(p) {
                row.set(portal.leaf as usize);
            }
        }
        row.set(c);
        total_visible += row.count() as u64;
        rows.push(row);
    }
    // Cross-check in place, cluster by cluster, as vvis does.
    let mut optimized = 0u64;
    for i in 0..n {
        let drop: Vec<usize> = rows[i].ones().filter(|&j| j != i && !rows[j].get(i)).collect();
        optimized += drop.len() as u64;
        for j in drop {
            rows[i].clear(j);
        }
    }
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
