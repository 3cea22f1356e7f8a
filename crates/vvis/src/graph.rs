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
    let spheres = Spheres::of(&graph.portals);
    (0..graph.portals.len())
        .into_par_iter()
        .map_init(Vec::new, |sides, i| {
            base_portal_vis(graph, &spheres, sides, i, radius_sq)
        })
        .collect()
}

fn base_portal_vis(
    graph: &Graph,
    spheres: &Spheres,
    sides: &mut Vec<[f32; 2]>,
    index: usize,
    radius_sq: Option<f64>,
) -> BaseVis {
    let p = &graph.portals[index];
    spheres.sides_of(p, sides);
    let mut front = Bits::new(graph.words);
    for (j, (tp, &[ahead, behind])) in graph.portals.iter().zip(sides.iter()).enumerate() {
        if j != index && might_see(p, tp, spheres.slack, (ahead, behind)) && within_radius(p, tp, radius_sq) {
            front.set(j);
        }
    }
    let flood = simple_flood(graph, &front, p.leaf);
    let might_see = flood.count();
    BaseVis { flood, might_see }
}

/// Every portal's bounding sphere and plane, coordinate by coordinate, to place them all
/// against one portal in straight loops; and the slack that keeps a sphere's answer the
/// points' answer.
struct Spheres {
    origin: [Vec<f32>; 3],
    radius: Vec<f32>,
    normal: [Vec<f32>; 3],
    dist: Vec<f32>,
    slack: f32,
}

impl Spheres {
    fn of(portals: &[VisPortal]) -> Spheres {
        let each = |f: &dyn Fn(&VisPortal) -> f32| portals.iter().map(f).collect::<Vec<f32>>();
        let reach = portals
            .iter()
            .map(|p| p.origin.iter().fold(p.radius, |m, c| m.max(c.abs() + p.radius)))
            .fold(0.0f32, f32::max);
        Spheres {
            origin: [
                each(&|p| p.origin[0]),
                each(&|p| p.origin[1]),
                each(&|p| p.origin[2]),
            ],
            radius: each(&|p| p.radius),
            normal: [
                each(&|p| p.plane.normal[0]),
                each(&|p| p.plane.normal[1]),
                each(&|p| p.plane.normal[2]),
            ],
            dist: each(&|p| p.plane.dist),
            slack: slack(reach),
        }
    }

    /// Per portal `j`, into `out`: how far its sphere, grown by the slack, reaches in front
    /// of `p`'s plane, and how far `p`'s reaches behind `j`'s plane, each past
    /// [`ON_VIS_EPSILON`] (at most zero: no point can be there).
    fn sides_of(&self, p: &VisPortal, out: &mut Vec<[f32; 2]>) {
        let ([nx, ny, nz], d) = (p.plane.normal, p.plane.dist);
        let ([ox, oy, oz], r) = (p.origin, p.radius);
        // Reach inflated by the slack: at most zero, no point can be past the epsilon.
        let margin = ON_VIS_EPSILON - self.slack;
        // Every column sliced to one length: the loop then runs without bounds checks, four
        // portals at a time.
        let len = self.radius.len();
        let (x, y, z) = (
            &self.origin[0][..len],
            &self.origin[1][..len],
            &self.origin[2][..len],
        );
        let (a, b, c) = (
            &self.normal[0][..len],
            &self.normal[1][..len],
            &self.normal[2][..len],
        );
        let (radius, dist) = (&self.radius[..len], &self.dist[..len]);
        out.clear();
        out.resize(len, [0.0; 2]);
        for (j, side) in out[..len].iter_mut().enumerate() {
            let ahead = x[j] * nx + y[j] * ny + z[j] * nz - d + radius[j];
            let behind = -(ox * a[j] + oy * b[j] + oz * c[j] - dist[j]) + r;
            *side = [ahead - margin, behind - margin];
        }
    }
}

/// How far a portal's computed point distances to a plane can stray from its centre's
/// computed distance beyond its radius, in a map whose points and spheres stay within
/// `reach` of the origin: rounding, in `f32`, of the distances and of the bounding sphere (a
/// few units in the last place of `reach`, taken eight times over, plus an eighth of a unit).
fn slack(reach: f32) -> f32 {
    0.125 + 8.0e-6 * reach
}

/// Whether portal `p` might see portal `tp`: some point of `tp` in front of `p`, some point of
/// `p` behind `tp` (vvis's tests, asked of the points only where the spheres do not decide;
/// `(ahead, behind)` is what [`Spheres::sides_of`] gave for the pair).
#[inline]
fn might_see(p: &VisPortal, tp: &VisPortal, slack: f32, (ahead, behind): (f32, f32)) -> bool {
    let some_ahead = || tp.winding.iter().any(|&pt| p.plane.distance(pt) > ON_VIS_EPSILON);
    let some_behind = || {
        p.winding
            .iter()
            .any(|&pt| tp.plane.distance(pt) < -ON_VIS_EPSILON)
    };
    // Past zero by its diameter and twice the slack, the whole sphere is past the epsilon.
    (ahead > 0.0 && (ahead - 2.0 * (tp.radius + slack) > 0.0 || some_ahead()))
        && (behind > 0.0 && (behind - 2.0 * (p.radius + slack) > 0.0 || some_behind()))
}

/// Radial vis: whether `tp` comes within the radius of `p`'s centre (always, without one).
#[inline]
fn within_radius(p: &VisPortal, tp: &VisPortal, radius_sq: Option<f64>) -> bool {
    let Some(r2) = radius_sq else {
        return true;
    };
    // vvis: the closest point of the other portal to this portal's centre, in double.
    let min_dist2 = tp
        .winding
        .iter()
        .map(|&pt| {
            let s = sub(pt, p.origin);
            dot(s, s) as f64
        })
        .fold(1_024_000_000.0f64, f64::min);
    min_dist2 <= r2
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

#[cfg(test)]
mod tests {
    use super::*;

    /// vvis's test, point by point, without the spheres.
    fn might_see_by_points(p: &VisPortal, tp: &VisPortal) -> bool {
        tp.winding.iter().any(|&pt| p.plane.distance(pt) > ON_VIS_EPSILON)
            && p.winding
                .iter()
                .any(|&pt| tp.plane.distance(pt) < -ON_VIS_EPSILON)
    }

    /// Portals on a coarse grid around `at`, so that many points lie on, or within the epsilon
    /// of, other portals' planes, and many spheres just touch them.
    fn grid_portals(count: usize, at: f32) -> Vec<VisPortal> {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n) as f32
        };
        let mut portals = Vec::new();
        while portals.len() < count {
            // Offsets of up to 0.2 units put points on both sides of the epsilon and the slack.
            let (axis, level) = (next(3) as usize, at + next(9) * 16.0 + next(40) * 0.005);
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            let (u0, v0) = (at + next(8) * 16.0 + next(40) * 0.005, at + next(8) * 16.0);
            // Strips as well as squares: a strip's sphere reaches barely past its far edge.
            let (wide, high) = (1.0 + next(4) * 15.0, 1.0 + next(4) * 15.0);
            let mut corner = |du: f32, dv: f32| {
                let mut q = [level; 3];
                (q[u], q[v]) = (u0 + du, v0 + dv + next(2) * 0.01);
                q
            };
            let w = vec![
                corner(0.0, 0.0),
                corner(wide, 0.0),
                corner(wide, high),
                corner(0.0, high),
            ];
            portals.extend(one_way_halves(w, 0, 1));
        }
        portals
    }

    #[test]
    fn bounding_spheres_answer_as_the_points_do() {
        for at in [0.0, -16_000.0, 30_000.0] {
            let portals = grid_portals(400, at);
            let spheres = Spheres::of(&portals);
            let mut sides = Vec::new();
            let mut counts = [0usize; 2];
            for p in &portals {
                spheres.sides_of(p, &mut sides);
                for (tp, &[ahead, behind]) in portals.iter().zip(&sides) {
                    let by_points = might_see_by_points(p, tp);
                    assert_eq!(
                        might_see(p, tp, spheres.slack, (ahead, behind)),
                        by_points,
                        "{p:?} against {tp:?}"
                    );
                    counts[usize::from(by_points)] += 1;
                }
            }
            assert!(
                counts.iter().all(|&c| c > 20_000),
                "both answers met often: {counts:?}"
            );
        }
    }
}
