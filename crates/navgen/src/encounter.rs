//! Encounter spots (Valve's `ComputeSpotEncounters`/`AddSpotEncounters`, read for behaviour):
//! for every way through an area, from one of its neighbours to another, the hiding spots in
//! cover that come into sight off to the side while walking the straight line between the two
//! portals, each with how far along the line it appears. A spot seen once on a path (ahead,
//! behind or aside) is not listed again on it; spots already in sight at the start are not
//! listed at all.

use glam::Vec3;
use rayon::prelude::*;
use srcmap_hull::Hull;

use crate::areas::Area;
use crate::hiding::{IN_COVER, Pvs, Spot};
use crate::nodes::{NORTH, SOUTH, STEP, WEST};
use crate::sample::{HALF_HUMAN_HEIGHT, Space};

/// Spots farther than this from the eye are not looked for.
const SEE_SPOT_RANGE: f32 = 2000.0;
/// A spot within 45° of the path's line (ahead or behind) is not an encounter (the game
/// compares with 0.7071).
const ASIDE: f32 = std::f32::consts::FRAC_1_SQRT_2;

/// One way through an area and the spots met on it: (spot index in area order, 0..1 along).
#[derive(Debug, Clone, PartialEq)]
pub struct Encounter {
    pub from: (u32, usize),
    pub to: (u32, usize),
    pub spots: Vec<(u32, f32)>,
}

/// A hiding spot in cover, where eyes look at it, and its cluster.
struct Watched {
    index: u32,
    pos: Vec3,
    cluster: Option<usize>,
}

/// What the walker sees with.
pub struct Eyes<'a, 'w> {
    pub space: &'a Space<'w>,
    pub pvs: &'a Pvs<'a>,
    /// The eye's height over the floor.
    pub height: f32,
}

/// Per area, its encounters; `links` are the areas' connections per direction, `spots` the
/// hiding spots per area. Areas are walked in parallel (each path marks the spots it has seen).
pub fn encounters(
    eyes: &Eyes<'_, '_>,
    areas: &[Area],
    links: &[[Vec<u32>; 4]],
    spots: &[Vec<Spot>],
) -> Vec<Vec<Encounter>> {
    let watched = watched_spots(eyes.pvs, spots);
    (0..areas.len())
        .into_par_iter()
        .map(|i| {
            let mut seen = vec![false; watched.len()];
            let ways = ways_through(&links[i]);
            ways.into_iter()
                .map(|way| {
                    seen.fill(false);
                    walk(eyes, areas, i, way, (&watched, &mut seen))
                })
                .collect()
        })
        .collect()
}

fn watched_spots(pvs: &Pvs<'_>, spots: &[Vec<Spot>]) -> Vec<Watched> {
    let all = spots.iter().flatten().enumerate();
    all.filter(|(_, s)| s.flags & IN_COVER != 0)
        .map(|(i, s)| {
            let pos = s.pos + Vec3::Z * HALF_HUMAN_HEIGHT;
            Watched {
                index: i as u32,
                pos,
                cluster: pvs.cluster(pos),
            }
        })
        .collect()
}

/// Every ordered pair of distinct connections: ((area, dir) in, (area, dir) out).
fn ways_through(links: &[Vec<u32>; 4]) -> Vec<((u32, usize), (u32, usize))> {
    let connections: Vec<(u32, usize)> = (0..4)
        .flat_map(|d| links[d].iter().map(move |&a| (a, d)))
        .collect();
    let mut ways = Vec::new();
    for (i, &from) in connections.iter().enumerate() {
        for (j, &to) in connections.iter().enumerate() {
            if i != j {
                ways.push((from, to));
            }
        }
    }
    ways
}

/// The middle of the opening between area `a` and its neighbour `b` on `a`'s side `dir`
/// (`ComputePortal`: the overlap of their extents, kept on `a`), at eye height over `b`.
fn portal(a: &Area, b: &Area, dir: usize, eye: f32) -> Vec3 {
    let (along, across) = if dir == NORTH || dir == SOUTH {
        (0, 1)
    } else {
        (1, 0)
    };
    let edge = if dir == NORTH || dir == WEST {
        a.min[across]
    } else {
        a.max[across]
    };
    let clamp = |v: f32| v.clamp(a.min[along], a.max[along]);
    let lo = clamp(a.min[along].max(b.min[along]));
    let hi = clamp(a.max[along].min(b.max[along]));
    let mut p = [0.0; 2];
    p[along] = (lo + hi) / 2.0;
    p[across] = edge;
    Vec3::new(p[0], p[1], b.z_at(p[0], p[1]) + eye)
}

/// Walks from the portal to `from` to the portal to `to` in 25-unit steps, end included.
fn walk(
    eyes: &Eyes<'_, '_>,
    areas: &[Area],
    i: usize,
    (from, to): ((u32, usize), (u32, usize)),
    (watched, seen): (&[Watched], &mut [bool]),
) -> Encounter {
    let here = &areas[i];
    let start = portal(here, &areas[from.0 as usize], from.1, eyes.height);
    let end = portal(here, &areas[to.0 as usize], to.1, eyes.height);
    let length = start.distance(end);
    let dir = (end - start).normalize_or_zero();
    let mut met = Vec::new();
    let mut along = 0.0f32;
    loop {
        let last = along >= length;
        along = along.min(length);
        let eye = start + dir * along;
        let cluster = eyes.pvs.cluster(eye);
        for (k, w) in watched.iter().enumerate() {
            if seen[k] || !in_sight(eyes, (eye, cluster), w) {
                continue;
            }
            let delta = (w.pos.with_z(w.pos.z - HALF_HUMAN_HEIGHT + eyes.height) - eye).normalize_or_zero();
            let dot = dir.dot(delta);
            if dot.abs() < ASIDE && along > 0.0 {
                met.push((w.index, along / length));
            }
            seen[k] = true;
        }
        if last {
            break;
        }
        along += STEP;
    }
    Encounter { from, to, spots: met }
}

fn in_sight(eyes: &Eyes<'_, '_>, (eye, cluster): (Vec3, Option<usize>), w: &Watched) -> bool {
    let eye_level = w.pos.with_z(w.pos.z - HALF_HUMAN_HEIGHT + eyes.height);
    if eye.distance(eye_level) > SEE_SPOT_RANGE || !eyes.pvs.may_see(cluster, w.cluster) {
        return false;
    }
    eyes.space.trace(&Hull::POINT, eye, w.pos).fraction == 1.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::EAST;

    fn area(min: [f32; 2], max: [f32; 2]) -> Area {
        Area::flat(min, max, 0)
    }

    #[test]
    fn portals_lie_on_the_shared_stretch_of_the_side() {
        let a = area([0.0, 0.0], [100.0, 100.0]);
        let north = area([50.0, -100.0], [300.0, 0.0]);
        assert_eq!(portal(&a, &north, NORTH, 10.0), Vec3::new(75.0, 0.0, 10.0));
        let west = area([-100.0, 20.0], [0.0, 40.0]);
        assert_eq!(portal(&a, &west, WEST, 0.0), Vec3::new(0.0, 30.0, 0.0));
        let east = area([100.0, -50.0], [200.0, 150.0]);
        assert_eq!(portal(&a, &east, EAST, 0.0), Vec3::new(100.0, 50.0, 0.0));
    }

    #[test]
    fn every_ordered_pair_of_distinct_connections_is_a_way_through() {
        let mut links: [Vec<u32>; 4] = Default::default();
        links[NORTH] = vec![1, 2];
        links[SOUTH] = vec![1];
        let ways = ways_through(&links);
        assert_eq!(ways.len(), 6);
        assert!(ways.contains(&((1, NORTH), (1, SOUTH))));
        assert!(!ways.contains(&((2, NORTH), (2, NORTH))));
    }
}
