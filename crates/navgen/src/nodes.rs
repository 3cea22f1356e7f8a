//! The sample graph: nodes on the 25-unit grid, linked to their neighbours in the four
//! directions, with the crouch state of each corner quadrant.

use std::collections::HashMap;

use glam::Vec3;

/// `GenerationStepSize`: the grid the samples lie on.
pub const STEP: f32 = 25.0;

/// `NavDirType`: north is −y, east +x, south +y, west −x.
pub const NORTH: usize = 0;
pub const EAST: usize = 1;
pub const SOUTH: usize = 2;
pub const WEST: usize = 3;

/// `NavCornerType`.
pub const NORTH_WEST: usize = 0;
pub const NORTH_EAST: usize = 1;
pub const SOUTH_EAST: usize = 2;
pub const SOUTH_WEST: usize = 3;

pub fn opposite(dir: usize) -> usize {
    (dir + 2) % 4
}

/// The unit step of a direction on the grid.
pub fn dir_vector(dir: usize) -> (i32, i32) {
    [(0, -1), (1, 0), (0, 1), (-1, 0)][dir]
}

pub type NodeId = u32;

/// One sample (`CNavNode`).
#[derive(Debug, Clone)]
pub struct Node {
    pub pos: Vec3,
    pub normal: Vec3,
    /// Grid coordinates of `pos`.
    pub cell: (i32, i32),
    pub to: [Option<NodeId>; 4],
    /// Height of what had to be climbed to reach the neighbour (0 for none).
    pub obstacle: [f32; 4],
    pub visited: [bool; 4],
    pub parent: Option<NodeId>,
    pub crouch: [bool; 4],
    pub blocked: [bool; 4],
    pub on_displacement: bool,
    /// The area that covers this node (its cell south-east of it).
    pub area: Option<u32>,
}

impl Node {
    pub fn is_crouch(&self) -> bool {
        self.crouch.iter().any(|&c| c)
    }

    pub fn is_blocked_anywhere(&self) -> bool {
        self.blocked.iter().any(|&b| b)
    }
}

/// All nodes, found by grid cell and height.
#[derive(Debug, Clone, Default)]
pub struct Graph {
    pub nodes: Vec<Node>,
    by_cell: HashMap<(i32, i32), Vec<NodeId>>,
}

/// Nodes at the same grid point closer than this in height are the same node.
const SAME_NODE_DZ: f32 = 0.45 * STEP;

/// The grid coordinate of a position on the grid.
pub fn cell_of(v: f32) -> i32 {
    (v / STEP).round() as i32
}

impl Graph {
    /// The node at `pos`'s grid point within [`SAME_NODE_DZ`] of its height.
    pub fn find(&self, pos: Vec3) -> Option<NodeId> {
        let ids = self.by_cell.get(&(cell_of(pos.x), cell_of(pos.y)))?;
        ids.iter()
            .copied()
            .find(|&i| (self.nodes[i as usize].pos.z - pos.z).abs() < SAME_NODE_DZ)
    }

    pub fn add(&mut self, pos: Vec3, normal: Vec3, parent: Option<NodeId>, on_displacement: bool) -> NodeId {
        let id = self.nodes.len() as NodeId;
        let cell = (cell_of(pos.x), cell_of(pos.y));
        self.nodes.push(Node {
            pos,
            normal,
            cell,
            to: [None; 4],
            obstacle: [0.0; 4],
            visited: [false; 4],
            parent,
            crouch: [false; 4],
            blocked: [false; 4],
            on_displacement,
            area: None,
        });
        self.by_cell.entry(cell).or_default().push(id);
        id
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    /// The neighbour of `id` in `dir`, when linked.
    pub fn next(&self, id: NodeId, dir: usize) -> Option<NodeId> {
        self.nodes[id as usize].to[dir]
    }

    /// Linked to the neighbour in `dir`, and it back.
    pub fn bi_linked(&self, id: NodeId, dir: usize) -> Option<NodeId> {
        self.next(id, dir)
            .filter(|&n| self.next(n, opposite(dir)) == Some(id))
    }

    /// The four nodes of the cell south-east of `id` are linked round (Valve's `IsClosedCell`).
    pub fn closed_cell(&self, id: NodeId) -> bool {
        let (Some(e), Some(s)) = (self.bi_linked(id, EAST), self.bi_linked(id, SOUTH)) else {
            return false;
        };
        let se = self.bi_linked(e, SOUTH);
        se.is_some() && se == self.bi_linked(s, EAST)
    }
}
