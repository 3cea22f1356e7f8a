//! Shortest paths over the finished mesh (the game's `NavAreaBuildPath`, as a Dijkstra search
//! giving the same least-cost paths): the ways out of each area (its connections, its ladders
//! up and down) and a search whose step cost the caller gives.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use glam::Vec3;

use crate::areas::Area;
use crate::ladders::Ladder;
use crate::visibility::center;

/// `NavTraverseType` of a ladder climbed up and down.
pub const GO_LADDER_UP: u8 = 4;
pub const GO_LADDER_DOWN: u8 = 5;

/// A way from one area to another: how (a direction 0-3, or a ladder), and the ladder's length.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Way {
    pub to: u32,
    pub how: u8,
    pub ladder: Option<f32>,
}

/// Per area, its ways out: connections in direction order, then ladders up, then down.
pub fn ways(links: &[[Vec<u32>; 4]], ladders: &[Ladder]) -> Vec<Vec<Way>> {
    let mut out: Vec<Vec<Way>> = links
        .iter()
        .map(|dirs| {
            let way = |(d, &to): (usize, &u32)| Way {
                to,
                how: d as u8,
                ladder: None,
            };
            dirs.iter()
                .enumerate()
                .flat_map(|(d, list)| list.iter().map(move |to| way((d, to))))
                .collect()
        })
        .collect();
    for l in ladders {
        let Some(bottom) = l.bottom_area else { continue };
        for &top in l.top_areas.iter().flatten() {
            out[bottom as usize].push(Way {
                to: top,
                how: GO_LADDER_UP,
                ladder: Some(l.length),
            });
        }
        for &top in l.down_areas.iter().flatten() {
            out[top as usize].push(Way {
                to: bottom,
                how: GO_LADDER_DOWN,
                ladder: Some(l.length),
            });
        }
    }
    out
}

/// Where a search went: per area, the least cost to reach it (infinite when unreached), the
/// area it came from with how, and the length of that path between area centres.
#[derive(Debug, Clone)]
pub struct Reached {
    pub cost: Vec<f32>,
    pub parent: Vec<Option<(u32, u8)>>,
    pub length: Vec<f32>,
}

impl Reached {
    /// The areas from `start` to `goal`, both included (empty when `goal` was not reached).
    pub fn path_to(&self, goal: usize) -> Vec<usize> {
        if !self.cost[goal].is_finite() {
            return Vec::new();
        }
        let mut path = vec![goal];
        while let Some((p, _)) = self.parent[*path.last().unwrap_or(&goal)] {
            path.push(p as usize);
        }
        path.reverse();
        path
    }
}

/// The least-cost paths from `start` (stopping once `goal` is settled); `step` gives the cost
/// of entering an area over a way from another (`None`: blocked).
pub fn search(
    areas: &[Area],
    ways: &[Vec<Way>],
    start: usize,
    goal: Option<usize>,
    step: impl Fn(usize, usize, &Way) -> Option<f32>,
) -> Reached {
    let n = areas.len();
    let mut r = Reached {
        cost: vec![f32::INFINITY; n],
        parent: vec![None; n],
        length: vec![0.0; n],
    };
    let mut done = vec![false; n];
    let mut open = BinaryHeap::new();
    r.cost[start] = 0.0;
    open.push(Open(0.0, start));
    while let Some(Open(cost, a)) = open.pop() {
        if std::mem::replace(&mut done[a], true) {
            continue;
        }
        if Some(a) == goal {
            break;
        }
        for way in &ways[a] {
            let b = way.to as usize;
            let Some(c) = step(b, a, way).map(|c| cost + c) else {
                continue;
            };
            if c < r.cost[b] && !done[b] {
                r.cost[b] = c;
                r.parent[b] = Some((a as u32, way.how));
                r.length[b] = r.length[a] + center(&areas[a]).distance(center(&areas[b]));
                open.push(Open(c, b));
            }
        }
    }
    r
}

/// The distance between area centres, or a ladder's length (`ShortestPathCost`'s step).
pub fn step_length(areas: &[Area], to: usize, from: usize, way: &Way) -> f32 {
    way.ladder
        .unwrap_or_else(|| center(&areas[to]).distance(center(&areas[from])))
}

/// The area holding `p` (the highest floor under it within a player's height), else the one
/// whose centre is nearest (`GetNearestNavArea`).
pub fn nearest_area(areas: &[Area], p: Vec3) -> Option<usize> {
    let under = areas
        .iter()
        .enumerate()
        .filter(|(_, a)| a.contains(p.x, p.y))
        .map(|(i, a)| (i, a.z_at(p.x, p.y)))
        .filter(|&(_, z)| z <= p.z + 18.0 && p.z - z < 71.0)
        .max_by(|a, b| a.1.total_cmp(&b.1));
    under.map(|(i, _)| i).or_else(|| {
        let d = |a: &Area| center(a).distance_squared(p);
        (0..areas.len()).min_by(|&i, &j| d(&areas[i]).total_cmp(&d(&areas[j])))
    })
}

/// An open area and its cost, least cost first (then lowest index).
struct Open(f32, usize);

impl PartialEq for Open {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Open {}
impl PartialOrd for Open {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Open {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.total_cmp(&self.0).then(other.1.cmp(&self.1))
    }
}
