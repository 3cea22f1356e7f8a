//! Sampling the walkable space (Valve's `SampleStep`): a depth-first flood from the seeds over
//! the 25-unit grid, each step a hull trace that may step up 18 units, climb onto an obstacle or
//! drop to the floor below.

use glam::Vec3;
use srcmap_hull::{Hull, Trace, World};

use crate::game::Heights;
use crate::nodes::{Graph, NodeId, STEP, dir_vector, opposite};

pub const STEP_HEIGHT: f32 = 18.0;
pub const HALF_HUMAN_WIDTH: f32 = 16.0;
pub const HALF_HUMAN_HEIGHT: f32 = 35.5;
pub const HUMAN_HEIGHT: f32 = 71.0;
pub const HUMAN_CROUCH_HEIGHT: f32 = 55.0;
/// The ducked player hull's height, where the seeds' ground search starts.
const DUCK_HULL_HEIGHT: f32 = 36.0;
/// `nav_slope_limit`: the least ground normal z that is walkable.
pub const SLOPE_LIMIT: f32 = 0.7;
/// Heights changing by less than this link nodes both ways.
const BOTH_WAYS_DZ: f32 = 50.0;
const SKY_SURFACE: u32 = 0x2 | 0x4;

/// The thin column the sampling traces sweep (`NavTraceMins/Maxs`).
pub const NAV_HULL: Hull = Hull {
    mins: Vec3::new(-0.45, -0.45, 0.0),
    maxs: Vec3::new(0.45, 0.45, HUMAN_CROUCH_HEIGHT),
};

/// The trace world with the generation mask and the game's heights.
pub struct Space<'w> {
    pub world: &'w World,
    pub mask: u32,
    pub heights: Heights,
}

impl Space<'_> {
    pub fn trace(&self, hull: &Hull, from: Vec3, to: Vec3) -> Trace {
        self.world.trace(hull, from, to, self.mask)
    }

    pub fn column(&self, from: Vec3, to: Vec3) -> Trace {
        self.trace(&NAV_HULL, from, to)
    }

    /// The floor under a point of a trace (`StayOnFloor`): walkable, within the death drop.
    fn floor_below(&self, from: Vec3) -> Option<Trace> {
        let t = self.column(from, from - Vec3::Z * self.heights.death_drop);
        (!t.start_solid && t.fraction < 1.0 && t.normal.z >= SLOPE_LIMIT).then_some(t)
    }

    /// The ground under a spawn point (`FindGroundForNode`).
    pub fn ground_for_seed(&self, pos: Vec3) -> Option<Trace> {
        let start = pos + Vec3::Z * (DUCK_HULL_HEIGHT - 0.1);
        let t = self.column(start, pos - Vec3::Z * self.heights.death_drop);
        (!t.all_solid && t.fraction < 1.0).then_some(t)
    }

    /// Moves from `start` to `end` over the floor, stepping up where blocked (`TraceAdjacentNode`).
    fn adjacent(&self, depth: u32, start: Vec3, end: Vec3) -> Option<Trace> {
        let t = self.column(start, end);
        if t.start_solid {
            return None;
        }
        if (t.end.x - end.x).abs() < 0.01 && (t.end.y - end.y).abs() < 0.01 {
            return self.floor_below(t.end);
        }
        if depth > 0 && (t.end - start).truncate().length_squared() < 1.0 {
            return None;
        }
        let floor = self.floor_below(t.end)?;
        let up = self.column(floor.end, floor.end + Vec3::Z * STEP_HEIGHT);
        self.adjacent(depth + 1, up.end, Vec3::new(end.x, end.y, up.end.z))
    }

    /// Climbs onto what blocks the way from `from` to `to` (up to the climb height); the
    /// floor reached and the height climbed.
    fn climb(&self, from: Vec3, to: Vec3) -> Option<(Trace, f32)> {
        // Heights above the clearance over `from` fail either way; stop the scan there.
        let clearance =
            self.column(from, from + Vec3::Z * self.heights.climb_up).fraction * self.heights.climb_up;
        let mut height = STEP_HEIGHT;
        while height <= clearance {
            let lift = Vec3::Z * height;
            let t = self.column(from + lift, to + lift);
            if !t.start_solid && t.fraction == 1.0 {
                return self.floor_below(t.end).map(|f| (f, height));
            }
            height += 1.0;
        }
        None
    }

    /// Whether the diagonal `offset` from `pos` is no place to stand (`IsNodeOverlapped`'s traces).
    fn overlapped(&self, pos: Vec3, offset: (f32, f32)) -> bool {
        let tiny = Hull::new([-0.5; 3], [0.5; 3]);
        let start = pos + Vec3::Z * HALF_HUMAN_HEIGHT;
        let end = start + Vec3::new(offset.0, offset.1, 0.0) * STEP;
        let t = self.trace(&tiny, start, end);
        if t.start_solid || t.fraction < 0.1 {
            return true;
        }
        let down = self.trace(&tiny, t.end, end - Vec3::Z * HUMAN_HEIGHT);
        down.start_solid || down.fraction == 1.0 || down.normal.z < 0.7
    }

    fn boxed_in(&self, pos: Vec3) -> bool {
        [(1.0, 1.0), (-1.0, 1.0), (1.0, -1.0), (-1.0, -1.0)]
            .into_iter()
            .all(|o| self.overlapped(pos, o))
    }
}

/// The flood over the grid.
pub struct Sampler<'s, 'w> {
    pub space: &'s Space<'w>,
    pub graph: Graph,
    current: Option<NodeId>,
    seeds: Vec<(Vec3, Vec3)>,
}

impl<'s, 'w> Sampler<'s, 'w> {
    pub fn new(space: &'s Space<'w>, seeds: Vec<(Vec3, Vec3)>) -> Self {
        Sampler {
            space,
            graph: Graph::default(),
            current: None,
            seeds,
        }
    }

    /// Floods from every seed, then from the free spots by the ladders' ends.
    pub fn run(&mut self, ladder_ends: &[(Vec3, usize)]) {
        let mut seeds = std::mem::take(&mut self.seeds).into_iter();
        let mut ends = ladder_ends.iter();
        loop {
            if self.current.is_none() {
                self.current = self
                    .next_seed(&mut seeds)
                    .or_else(|| self.next_ladder_seed(&mut ends));
                if self.current.is_none() {
                    return;
                }
            }
            self.step();
        }
    }

    fn next_seed(&mut self, seeds: &mut impl Iterator<Item = (Vec3, Vec3)>) -> Option<NodeId> {
        for (pos, normal) in seeds {
            if self.graph.find(pos).is_none() {
                let id = self.graph.add(pos, normal, None, false);
                self.check_crouch(id);
                return Some(id);
            }
        }
        None
    }

    fn next_ladder_seed<'a>(&mut self, ends: &mut impl Iterator<Item = &'a (Vec3, usize)>) -> Option<NodeId> {
        for &(pos, facing) in ends {
            if let Some(id) = self.ladder_end_node(pos, facing) {
                return Some(id);
            }
        }
        None
    }

    /// A new node near a ladder end (`LadderEndSearch`): the dismount point, then one and two
    /// steps away in each direction.
    fn ladder_end_node(&mut self, end: Vec3, facing: usize) -> Option<NodeId> {
        let (fx, fy) = dir_vector(facing);
        let centre = end + Vec3::new(fx as f32, fy as f32, 0.0) * HALF_HUMAN_WIDTH;
        for d in -1i32..8 {
            let mut p = centre;
            if d >= 0 {
                let (dx, dy) = dir_vector(d as usize % 4);
                let k = if d >= 4 { 2.0 } else { 1.0 } * STEP;
                p += Vec3::new(dx as f32, dy as f32, 0.0) * k;
            }
            p.z += STEP;
            p.x = snap(p.x);
            p.y = snap(p.y);
            let Some(ground) = self.space.floor_below(p) else {
                continue;
            };
            let fudge = Vec3::Z * 4.0;
            let t = self.space.column(centre + fudge, ground.end + fudge);
            if t.fraction == 1.0 && !t.start_solid && self.graph.find(ground.end).is_none() {
                let id = self
                    .graph
                    .add(ground.end, ground.normal, None, ground.displacement);
                self.check_crouch(id);
                return Some(id);
            }
        }
        None
    }

    /// One step of the flood from the current node: the next unvisited direction, or back
    /// to the parent when all are done.
    fn step(&mut self) {
        let Some(cur) = self.current else { return };
        let Some(dir) = (0..4).find(|&d| !self.graph.node(cur).visited[d]) else {
            self.current = self.graph.node(cur).parent;
            return;
        };
        self.graph.nodes[cur as usize].visited[dir] = true;
        let from = self.graph.node(cur).pos;
        let (dx, dy) = dir_vector(dir);
        let target = Vec3::new(
            snap(from.x) + dx as f32 * STEP,
            snap(from.y) + dy as f32 * STEP,
            from.z,
        );
        if let Some((floor, obstacle)) = self.reach(from, target) {
            self.accept(cur, dir, floor, obstacle);
        }
    }

    /// The floor reached from `from` toward `target`, and the obstacle height climbed.
    fn reach(&self, from: Vec3, target: Vec3) -> Option<(Trace, f32)> {
        match self.space.adjacent(0, from, target) {
            Some(t) => Some((t, 0.0)),
            None => self.space.climb(from, target),
        }
    }

    fn accept(&mut self, cur: NodeId, dir: usize, floor: Trace, mut obstacle: f32) {
        if floor.surface & SKY_SURFACE != 0 || self.space.boxed_in(floor.end) {
            return;
        }
        let dz = floor.end.z - self.graph.node(cur).pos.z;
        if obstacle < STEP_HEIGHT || dz > obstacle - 2.0 {
            obstacle = 0.0;
        }
        self.add_node(cur, dir, floor, obstacle);
    }

    /// Links `source` to the node at the floor reached (made when new, which then becomes the
    /// current node), and back when the height changes little (`AddNode`).
    fn add_node(&mut self, source: NodeId, dir: usize, floor: Trace, obstacle: f32) {
        let dest = floor.end;
        let node = match self.graph.find(dest) {
            Some(n) => n,
            None => {
                let n = self
                    .graph
                    .add(dest, floor.normal, Some(source), floor.displacement);
                self.check_crouch(n);
                self.current = Some(n);
                n
            }
        };
        let src = &mut self.graph.nodes[source as usize];
        src.to[dir] = Some(node);
        src.obstacle[dir] = obstacle;
        let dz = src.pos.z - dest.z;
        if dz.abs() < BOTH_WAYS_DZ {
            let back = &mut self.graph.nodes[node as usize];
            back.to[opposite(dir)] = Some(source);
            back.obstacle[opposite(dir)] = if obstacle > 0.0 {
                (obstacle + dz).max(0.0)
            } else {
                0.0
            };
            back.visited[opposite(dir)] = true;
        }
    }

    /// Which corner quadrants have standing room, crouching room or none (`CheckCrouch`).
    fn check_crouch(&mut self, id: NodeId) {
        let pos = self.graph.node(id).pos;
        let top = self
            .space
            .column(pos, pos + Vec3::Z * self.space.heights.jump_crouch)
            .end
            .z
            - pos.z;
        for corner in 0..4 {
            let (crouch, blocked) = self.corner_room(pos, corner, top);
            let node = &mut self.graph.nodes[id as usize];
            node.crouch[corner] = crouch;
            node.blocked[corner] = blocked;
        }
    }

    /// (crouch only, blocked) for one quadrant: the lowest height up to `top` where a crouching
    /// box fits decides; standing needs a full-height box there.
    fn corner_room(&self, pos: Vec3, corner: usize, top: f32) -> (bool, bool) {
        let (sx, sy) = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)][corner];
        let quad = |h: f32| {
            let a = Vec3::new(sx * HALF_HUMAN_WIDTH, sy * HALF_HUMAN_WIDTH, 0.0);
            Hull::new(a.min(Vec3::ZERO), a.max(Vec3::ZERO).with_z(h))
        };
        let (crouch_box, stand_box) = (quad(HUMAN_CROUCH_HEIGHT), quad(HUMAN_HEIGHT));
        let mut height = 0.0;
        while height <= top {
            let p = pos + Vec3::Z * height;
            if !self.space.trace(&crouch_box, p, p).start_solid {
                return (self.space.trace(&stand_box, p, p).start_solid, false);
            }
            height += 1.0;
        }
        (true, true)
    }
}

/// Rounds to the grid (half away from zero, as Valve's `RoundToUnits`/`SnapToGrid`).
pub fn snap(v: f32) -> f32 {
    (v / STEP).round() * STEP
}
