//! Areas from the samples (Valve's `CreateNavAreasFromNodes`): the largest rectangles of closed,
//! flat, equally crouched cells first, down to single cells.

use glam::Vec3;

use crate::attributes::{ATTR_CROUCH, ATTR_NO_MERGE};
use crate::grid::{AreaGrid, Listing};
use crate::nodes::{EAST, Graph, NORTH, NodeId, SOUTH, SOUTH_EAST, WEST};
use crate::sample::STEP_HEIGHT;

/// `nav_area_max_size`: the largest area side in cells.
pub const MAX_SIDE: usize = 50;
/// Nodes further than this from the north-west node's plane keep an area from growing.
const OFF_PLANE: f32 = 5.0;

/// A rectangle of cells: x0..x1 × y0..y1, corner heights NW, NE, SE, SW.
#[derive(Debug, Clone)]
pub struct Area {
    pub min: [f32; 2],
    pub max: [f32; 2],
    pub z: [f32; 4],
    pub attributes: u32,
    /// The nodes whose south-east cell it covers.
    pub nodes: Vec<NodeId>,
    /// Where the game's area grid lists it.
    pub listing: Listing,
}

impl Area {
    /// A flat area at height 0 over one node, listed `order`-th with its own extent (tests).
    #[cfg(test)]
    pub(crate) fn flat(min: [f32; 2], max: [f32; 2], order: u32) -> Area {
        Area {
            min,
            max,
            z: [0.0; 4],
            attributes: 0,
            nodes: vec![0],
            listing: Listing { order, min, max },
        }
    }

    /// The normal of the plane through the NW, NE and SW corners.
    pub fn normal(&self) -> Vec3 {
        let nw = Vec3::new(self.min[0], self.min[1], self.z[0]);
        let ne = Vec3::new(self.max[0], self.min[1], self.z[1]);
        let sw = Vec3::new(self.min[0], self.max[1], self.z[3]);
        (sw - nw).cross(ne - nw).normalize_or(Vec3::Z) * -1.0
    }

    pub fn contains(&self, x: f32, y: f32) -> bool {
        x >= self.min[0] && x <= self.max[0] && y >= self.min[1] && y <= self.max[1]
    }

    /// The height at (x, y), bilinear over the four corners; a point off the area takes the
    /// height at the nearest point of it (as the game's `GetZ`).
    pub fn z_at(&self, x: f32, y: f32) -> f32 {
        let u = ((x - self.min[0]) / (self.max[0] - self.min[0]).max(1e-6)).clamp(0.0, 1.0);
        let v = ((y - self.min[1]) / (self.max[1] - self.min[1]).max(1e-6)).clamp(0.0, 1.0);
        let north = self.z[0] + (self.z[1] - self.z[0]) * u;
        let south = self.z[3] + (self.z[2] - self.z[3]) * u;
        north + (south - north) * v
    }
}

/// The highest area containing `pos` in x and y whose floor lies below it within `beneath`
/// (Valve's `GetNavArea`), among those `grid` lists there when given.
pub fn area_under(areas: &[Area], grid: Option<&AreaGrid>, pos: Vec3, beneath: f32) -> Option<u32> {
    let top = pos.z + 5.0;
    areas
        .iter()
        .enumerate()
        .filter(|(_, a)| a.contains(pos.x, pos.y))
        .filter(|(_, a)| grid.is_none_or(|g| g.lists(&a.listing, pos)))
        .map(|(i, a)| (i as u32, a.z_at(pos.x, pos.y)))
        .filter(|&(_, z)| z <= top && top - z <= beneath)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

/// Builds the areas and marks each node with the area covering it.
pub fn build(graph: &mut Graph) -> Vec<Area> {
    let runs = closed_runs(graph);
    let mut areas = Vec::new();
    let (mut w, mut h) = (MAX_SIDE, MAX_SIDE);
    while w > 0 && h > 0 {
        for id in (0..graph.nodes.len() as NodeId).rev() {
            if graph.node(id).area.is_none()
                && runs[id as usize].0 >= w
                && runs[id as usize].1 >= h
                && fits(graph, id, w, h)
            {
                let area = cover(graph, id, w, h, areas.len() as u32);
                areas.push(area);
            }
        }
        if w >= h { w -= 1 } else { h -= 1 }
    }
    areas
}

/// For each node, how many closed cells follow in a row east and south (a bound that lets
/// most tries fail at once).
fn closed_runs(graph: &Graph) -> Vec<(usize, usize)> {
    let n = graph.nodes.len();
    let mut runs = vec![(usize::MAX, usize::MAX); n];
    for id in 0..n as NodeId {
        runs[id as usize] = (run(graph, id, EAST), run(graph, id, SOUTH));
    }
    runs
}

fn run(graph: &Graph, mut id: NodeId, dir: usize) -> usize {
    let mut count = 0;
    while count < MAX_SIDE && graph.closed_cell(id) {
        count += 1;
        match graph.next(id, dir) {
            Some(n) => id = n,
            None => break,
        }
    }
    count
}

/// The quadrants of a node inside a `w`×`h` block at (x, y) (the east and south edge nodes'
/// cells reach past them; the NW node's only cell is its south-east one).
fn inner_quadrants(x: usize, y: usize, w: usize, h: usize) -> &'static [usize] {
    let (west, north) = (x == 0, y == 0);
    let (east, south) = (x == w - 1, y == h - 1);
    match (north, west, east, south) {
        (true, true, _, _) => &[SOUTH_EAST],
        (true, _, true, _) | (true, false, false, _) => &[SOUTH_EAST, 3],
        (_, true, _, true) | (false, true, _, false) => &[SOUTH_EAST, 1],
        _ => &[0, 1, 2, 3],
    }
}

/// Valve's `TestArea`: every cell closed and uncovered, one crouch state, no high obstacle
/// inside, every node near the NW node's plane.
fn fits(graph: &Graph, nw: NodeId, w: usize, h: usize) -> bool {
    let first = graph.node(nw);
    if first.blocked[SOUTH_EAST] {
        return false;
    }
    let plane = (first.normal, first.normal.dot(first.pos));
    let crouch = first.crouch[SOUTH_EAST];
    let mut row = Some(nw);
    for y in 0..=h {
        let Some(mut id) = row else { return false };
        for x in 0..=w {
            if !node_fits(graph, id, (x, y, w, h), crouch, plane) {
                return false;
            }
            match graph.next(id, EAST) {
                Some(n) => id = n,
                None if x == w => {}
                None => return false,
            }
        }
        row = graph.next(row.unwrap_or(nw), SOUTH);
    }
    true
}

fn node_fits(
    graph: &Graph,
    id: NodeId,
    at: (usize, usize, usize, usize),
    crouch: bool,
    plane: (Vec3, f32),
) -> bool {
    let (x, y, w, h) = at;
    let n = graph.node(id);
    if (w > 1 || h > 1) && (plane.0.dot(n.pos) - plane.1).abs() > OFF_PLANE {
        return false;
    }
    if x == w || y == h {
        return true; // an edge node: only its height counts
    }
    let quads = inner_quadrants(x, y, w, h);
    if quads.iter().any(|&q| n.blocked[q]) || quads.iter().any(|&q| n.crouch[q]) != crouch {
        return false;
    }
    n.area.is_none() && graph.closed_cell(id) && low_obstacles(n.obstacle, at)
}

/// Inside a block bigger than one cell, no link between its nodes may climb over an obstacle.
fn low_obstacles(obstacle: [f32; 4], (x, y, w, h): (usize, usize, usize, usize)) -> bool {
    if w == 1 && h == 1 {
        return true;
    }
    let inside = [y > 0, x < w - 1, y < h - 1, x > 0];
    (0..4).all(|d| !inside[d] || obstacle[d] <= STEP_HEIGHT)
}

/// Makes the area of the block at `nw` and marks its nodes covered.
fn cover(graph: &mut Graph, nw: NodeId, w: usize, h: usize, index: u32) -> Area {
    let mut nodes = Vec::with_capacity(w * h);
    let mut row = nw;
    for _ in 0..h {
        let mut id = row;
        for _ in 0..w {
            nodes.push(id);
            id = graph.next(id, EAST).unwrap_or(id);
        }
        row = graph.next(row, SOUTH).unwrap_or(row);
    }
    for &n in &nodes {
        graph.nodes[n as usize].area = Some(index);
    }
    let walk =
        |g: &Graph, from: NodeId, dir: usize, k: usize| (0..k).fold(from, |n, _| g.next(n, dir).unwrap_or(n));
    let ne = walk(graph, nw, EAST, w);
    let sw = walk(graph, nw, SOUTH, h);
    let se = walk(graph, sw, EAST, w);
    let p = |n: NodeId| graph.node(n).pos;
    let first = graph.node(nw);
    let mut attributes = if first.crouch[SOUTH_EAST] { ATTR_CROUCH } else { 0 };
    if w == 1 && h == 1 && has_inner_obstacle(graph, [nw, ne, se, sw]) {
        attributes |= ATTR_NO_MERGE;
    }
    let (min, max) = ([p(nw).x, p(nw).y], [p(se).x, p(se).y]);
    Area {
        min,
        max,
        z: [p(nw).z, p(ne).z, p(se).z, p(sw).z],
        attributes,
        nodes,
        listing: Listing {
            order: index,
            min,
            max,
        },
    }
}

fn has_inner_obstacle(graph: &Graph, [nw, ne, se, sw]: [NodeId; 4]) -> bool {
    let high = |n: NodeId, d: usize| graph.node(n).obstacle[d] > STEP_HEIGHT;
    high(nw, SOUTH)
        || high(nw, EAST)
        || high(ne, WEST)
        || high(ne, SOUTH)
        || high(se, NORTH)
        || high(se, WEST)
        || high(sw, EAST)
        || high(sw, NORTH)
}
