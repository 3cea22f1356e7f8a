//! The portal graph vis works on: every file portal as two one-way portals (vvis `LoadPortals`),
//! each cluster's outgoing portals, and the per-portal bit sets of the first pass
//! (`portalfront`, `portalflood`: vvis `BasePortalVis` + `SimpleFlood`).

use rayon::prelude::*;

use crate::bits::Bits;
use crate::clip::{ON_VIS_EPSILON, V3, VPlane, dot, plane_from_winding, sphere, sub};
use crate::portals::{PortalId, Portals, prt_round};

/// A one-way portal: seen from the cluster it leaves, leading into `leaf`.
#[derive(Debug, Clone)]
pub struct VisPortal {
    /// Normal pointing into `leaf`.
    pub plane: VPlane,
    /// The cluster this portal leads into.
    pub leaf: u32,
    pub origin: V3,
    pub radius: f32,
    pub winding: Vec<V3>,
}

/// One-way portals `2i` (cluster 0 → 1) and `2i + 1` (1 → 0) for file portal `i`.
#[derive(Debug, Clone)]
pub struct Graph {
    pub num_clusters: usize,
    pub portals: Vec<VisPortal>,
    /// Outgoing portals of each cluster, in file order.
    pub cluster_portals: Vec<Vec<u32>>,
    /// `u64` words in a bit set over one-way portals.
    pub words: usize,
}

impl Graph {
    /// Builds the graph. With `round_like_prt`, coordinates are first rounded the way a trip
    /// through a PRT file rounds them (for portals rebuilt from a tree in `f64`).
    pub fn new(input: &Portals, round_like_prt: bool) -> Graph {
        let n = input.portals.len();
        let mut portals = Vec::with_capacity(2 * n);
        let mut cluster_portals = vec![Vec::new(); input.num_clusters as usize];
        for (i, p) in input.portals.iter().enumerate() {
            let [c0, c1] = p.clusters;
            let [forward, backward] = one_way_halves(vis_winding(p, round_like_prt), c0, c1);
            cluster_portals[c0 as usize].push((2 * i) as u32);
            portals.push(forward);
            cluster_portals[c1 as usize].push((2 * i + 1) as u32);
            portals.push(backward);
        }
        let words = (2 * n).div_ceil(64);
        Graph {
            num_clusters: input.num_clusters as usize,
            portals,
            cluster_portals,
            words,
        }
    }

    pub fn file_portal(id: u32) -> PortalId {
        PortalId(id / 2)
    }
}

/// A file portal's winding in vvis's `f32`, rounded as a PRT file rounds it when asked.
fn vis_winding(p: &crate::portals::Portal, round_like_prt: bool) -> Vec<V3> {
    p.points
        .iter()
        .map(|v| {
            if round_like_prt {
                v.map(prt_round)
            } else {
                v.map(|c| c as f32)
            }
        })
        .collect()
}

/// The two one-way portals of a file portal of winding `w` between clusters `c0` and `c1`:
/// into `c1` (the winding's plane flipped), and into `c0` (the winding reversed).
fn one_way_halves(w: Vec<V3>, c0: u32, c1: u32) -> [VisPortal; 2] {
    let plane = plane_from_winding(&w);
    let (origin, radius) = sphere(&w);
    let reversed: Vec<V3> = w.iter().rev().copied().collect();
    let forward = VisPortal {
        plane: plane.flipped(),
        leaf: c1,
        origin,
        radius,
        winding: w,
    };
    let (origin, radius) = sphere(&reversed);
    let backward = VisPortal {
        plane,
        leaf: c0,
        origin,
        radius,
        winding: reversed,
    };
    [forward, backward]
}

/// Result of the first pass for one portal.
#[derive(Debug, Clone)]
pub struct BaseVis {
    /// Portals that might be seen: in front, facing away, and reachable through such portals.
    pub flood: Bits,
    pub might_see: u32,
}

/// vvis `BasePortalVis` for every portal, in parallel. `radius_sq`: radial vis (squared).
pub fn base_vis(graph: &Graph, radius_sq: Option<f64>) -> Vec<BaseVis> {
    (0..graph.portals.len())
        .into_par_iter()
        .map(|i| base_portal_vis(graph, i, radius_sq))
        .collect()
}

fn base_portal_vis(graph: &Graph, index: usize, radius_sq: Option<f64>) -> BaseVis {
    let p = &graph.portals[index];
    let mut front = Bits::new(graph.words);
    for (j, tp) in graph.portals.iter().enumerate() {
        if j != index && might_see(p, tp, radius_sq) {
            front.set(j);
        }
    }
    let flood = simple_flood(graph, &front, p.leaf);
    let might_see = flood.count();
    BaseVis { flood, might_see }
}

/// Whether portal `p` might see portal `tp`: some point of `tp` in front of `p`, some point of
/// `p` behind `tp`, and (radial vis, `radius_sq`) `tp` within the radius of `p`'s centre.
#[inline]
fn might_see(p: &VisPortal, tp: &VisPortal, radius_sq: Option<f64>) -> bool {
    // Some point of the other portal in front of this one...
    if !tp.winding.iter().any(|&pt| p.plane.distance(pt) > ON_VIS_EPSILON) {
        return false;
    }
    // ...and some point of this one behind the other.
    if !p
        .winding
        .iter()
        .any(|&pt| tp.plane.distance(pt) < -ON_VIS_EPSILON)
    {
        return false;
    }
    if let Some(r2) = radius_sq {
        // vvis: the closest point of the other portal to this portal's centre, in double.
        let min_dist2 = tp
            .winding
            .iter()
            .map(|&pt| {
                let s = sub(pt, p.origin);
                dot(s, s) as f64
            })
            .fold(1_024_000_000.0f64, f64::min);
        if min_dist2 > r2 {
            return false;
        }
    }
    true
}

/// vvis `SimpleFlood`: the portals reached through portals in `front`, from cluster `leaf`.
fn simple_flood(graph: &Graph, front: &Bits, leaf: u32) -> Bits {
    let mut flood = Bits::new(graph.words);
    let mut stack = vec![leaf];
    while let Some(leaf) = stack.pop() {
        for &pn in &graph.cluster_portals[leaf as usize] {
            let pn = pn as usize;
            if front.get(pn) && !flood.get(pn) {
                flood.set(pn);
                stack.push(graph.portals[pn].leaf);
            }
        }
    }
    flood
}

/// vvis `SortPortals`: ascending by `nummightsee` (stable, so ties keep file order).
pub fn sorted_order(base: &[BaseVis]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..base.len() as u32).collect();
    order.sort_by_key(|&i| base[i as usize].might_see);
    order
}
