//! Portals rebuilt from a compiled BSP's own tree, the way vbsp's `WritePortalFile` makes them:
//! a box around the world, then for every node (parents first) the node's plane as a huge
//! polygon clipped by its ancestors and by the portals bounding the node, and the node's
//! portals split between its children. What ends between two leaves of different visible
//! clusters, and passes `Portal_VisFlood`, is a vis portal.
//!
//! This lets vis run on any BSP (no `.prt` needed) and is how we compare with Valve: the
//! clusters are the BSP's own, so `func_viscluster` merges and the single 3D-skybox cluster
//! come with them.

use srcmap_bsp::Bsp;
use srcmap_bsp::flags::Contents;
use srcmap_geom::{DVec3, Plane, Winding};

use crate::error::VvisError;
use crate::portals::{Portal, Portals};

/// vbsp `SIDESPACE`: padding around the world box.
const SIDESPACE: f64 = 8.0;
/// vbsp `ON_EPSILON`, used when clipping by the portals bounding a node.
const ON_EPSILON: f64 = 0.1;
/// vbsp `BASE_WINDING_EPSILON` / `SPLIT_WINDING_EPSILON`.
const BASE_WINDING_EPSILON: f64 = 0.001;
const SPLIT_WINDING_EPSILON: f64 = 0.001;
/// polylib `EDGE_LENGTH`: a winding with fewer than three longer edges is tiny.
const EDGE_LENGTH: f64 = 0.2;

/// A side of a tree portal: an inner node, a leaf, or the void around the world box.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cell {
    Node(usize),
    Leaf(usize),
    Outside,
}

struct TreePortal {
    plane: Plane,
    winding: Winding,
    cells: [Cell; 2],
    /// False for the six world-box portals (vbsp's `onnode == NULL`): never vis portals.
    on_node: bool,
}

/// The compiled tree, checked: every index in range and every node reached once.
pub(crate) struct Tree {
    pub planes: Vec<Plane>,
    /// `(plane, [front, back])` per node.
    pub nodes: Vec<(usize, [Cell2; 2])>,
    pub leaf_cluster: Vec<i32>,
    pub leaf_contents: Vec<i32>,
    pub head: Cell2,
    pub parent: Vec<Option<(usize, usize)>>,
    pub bounds: (DVec3, DVec3),
}

/// A child reference in [`Tree`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cell2 {
    Node(usize),
    Leaf(usize),
}

impl Tree {
    pub fn from_bsp(bsp: &Bsp) -> Result<Tree, VvisError> {
        let bad = |m: String| VvisError::Invalid(m);
        let world = bsp
            .models
            .first()
            .ok_or_else(|| bad("the BSP has no models (no world)".into()))?;
        let planes: Vec<Plane> = bsp
            .planes
            .iter()
            .map(|p| {
                Plane::new(
                    DVec3::new(p.normal[0] as f64, p.normal[1] as f64, p.normal[2] as f64),
                    p.dist as f64,
                )
            })
            .collect();
        let child = |c: i32| -> Result<Cell2, VvisError> {
            if c >= 0 {
                if (c as usize) < bsp.nodes.len() {
                    return Ok(Cell2::Node(c as usize));
                }
            } else {
                let leaf = (-1 - c as i64) as usize;
                if leaf < bsp.leafs.len() {
                    return Ok(Cell2::Leaf(leaf));
                }
            }
            Err(bad(format!("node child {c} out of range")))
        };
        let mut nodes = Vec::with_capacity(bsp.nodes.len());
        for (i, n) in bsp.nodes.iter().enumerate() {
            if n.plane < 0 || n.plane as usize >= planes.len() {
                return Err(bad(format!("node {i}: plane {} out of range", n.plane)));
            }
            nodes.push((n.plane as usize, [child(n.children[0])?, child(n.children[1])?]));
        }
        let head = child(world.head_node)?;
        // Parents, and a check that the world's tree really is a tree.
        let mut parent = vec![None; nodes.len()];
        let mut seen_leaf = vec![false; bsp.leafs.len()];
        let mut stack = vec![head];
        let mut visited = 0usize;
        while let Some(c) = stack.pop() {
            visited += 1;
            if visited > nodes.len() + bsp.leafs.len() + 1 {
                return Err(bad("the node graph is not a tree".into()));
            }
            match c {
                Cell2::Leaf(l) => {
                    if std::mem::replace(&mut seen_leaf[l], true) {
                        return Err(bad(format!("leaf {l} is reached twice")));
                    }
                }
                Cell2::Node(n) => {
                    for (side, &ch) in nodes[n].1.iter().enumerate() {
                        if let Cell2::Node(k) = ch {
                            if parent[k].is_some() || Cell2::Node(k) == head {
                                return Err(bad(format!("node {k} is reached twice")));
                            }
                            parent[k] = Some((n, side));
                        }
                        stack.push(ch);
                    }
                }
            }
        }
        let v = |a: [f32; 3]| DVec3::new(a[0] as f64, a[1] as f64, a[2] as f64);
        // The world box: the world model's bounds, grown to the head node's. In a sealed map
        // only solid leaves touch the box, so its size does not matter; in an unsealed tree
        // (a leak compiled anyway) the box must not cut the portals of the open leaves.
        let mut bounds = (v(world.mins), v(world.maxs));
        if let Cell2::Node(n) = head {
            let node = &bsp.nodes[n];
            bounds = (bounds.0.min(v(node.mins)), bounds.1.max(v(node.maxs)));
        }
        Ok(Tree {
            planes,
            nodes,
            leaf_cluster: bsp.leafs.iter().map(|l| l.cluster).collect(),
            leaf_contents: bsp.leafs.iter().map(|l| l.contents).collect(),
            head,
            parent,
            bounds,
        })
    }
}

/// vbsp `WindingIsTiny`.
fn is_tiny(w: &Winding) -> bool {
    w.is_tiny(EDGE_LENGTH)
}

/// polylib `ChopWindingInPlace`: keep the part in front; a winding on the plane is dropped.
fn chop_front(w: Winding, plane: &Plane, eps: f64) -> Option<Winding> {
    w.clip_front(plane, eps, false)
}

/// polylib `ClipWindingEpsilon`: a winding with no point in front (including one lying on
/// the plane) goes to the back whole; one with no point behind goes to the front whole.
fn clip_epsilon(w: &Winding, plane: &Plane, eps: f64) -> (Option<Winding>, Option<Winding>) {
    let (mut front, mut back) = (false, false);
    for &p in &w.points {
        let d = plane.distance(p);
        front |= d > eps;
        back |= d < -eps;
    }
    if !front {
        return (None, Some(w.clone()));
    }
    if !back {
        return (Some(w.clone()), None);
    }
    w.split(plane, eps)
}

/// vbsp `Portal_VisFlood`: can vis see through a portal between these contents (leaf
/// records' bits)?
pub(crate) fn vis_flood(c1: i32, c2: i32) -> bool {
    let (mut c1, mut c2) = (Contents::from_record(c1), Contents::from_record(c2));
    // vbsp `VisibleContents(c1 ^ c2)`: the strongest visible bit in which the two differ.
    let visible_difference = |a: Contents, b: Contents| Contents(a.bits() ^ b.bits()).visible();
    if visible_difference(c1, c2).is_empty() {
        return true;
    }
    if c1.intersects(Contents::TRANSLUCENT | Contents::DETAIL) {
        c1 = Contents::default();
    }
    if c2.intersects(Contents::TRANSLUCENT | Contents::DETAIL) {
        c2 = Contents::default();
    }
    if (c1 | c2).intersects(Contents::SOLID) {
        return false;
    }
    if c1 == c2 {
        return true;
    }
    visible_difference(c1, c2).is_empty()
}

struct Builder<'t> {
    tree: &'t Tree,
    portals: Vec<TreePortal>,
    node_portals: Vec<Vec<usize>>,
    leaf_portals: Vec<Vec<usize>>,
}

impl Builder<'_> {
    fn list(&mut self, c: Cell) -> Option<&mut Vec<usize>> {
        match c {
            Cell::Node(n) => Some(&mut self.node_portals[n]),
            Cell::Leaf(l) => Some(&mut self.leaf_portals[l]),
            Cell::Outside => None,
        }
    }

    fn add(&mut self, id: usize, front: Cell, back: Cell) {
        self.portals[id].cells = [front, back];
        for c in [front, back] {
            if let Some(list) = self.list(c) {
                list.push(id);
            }
        }
    }

    fn remove(&mut self, id: usize, c: Cell) {
        if let Some(list) = self.list(c)
            && let Some(pos) = list.iter().position(|&p| p == id)
        {
            list.remove(pos);
        }
    }

    fn headnode_portals(&mut self) {
        let (mins, maxs) = self.tree.bounds;
        let lo = mins - DVec3::splat(SIDESPACE);
        let hi = maxs + DVec3::splat(SIDESPACE);
        let mut planes = Vec::with_capacity(6);
        for j in 0..2 {
            for i in 0..3 {
                let mut n = DVec3::ZERO;
                if j == 0 {
                    n[i] = 1.0;
                    planes.push(Plane::new(n, lo[i]));
                } else {
                    n[i] = -1.0;
                    planes.push(Plane::new(n, -hi[i]));
                }
            }
        }
        let head = to_cell(self.tree.head);
        for (i, plane) in planes.iter().enumerate() {
            let mut w = Some(Winding::base_for_plane(plane));
            for (j, other) in planes.iter().enumerate() {
                if j != i {
                    w = w.and_then(|w| chop_front(w, other, ON_EPSILON));
                }
            }
            let Some(winding) = w else { continue };
            let id = self.portals.len();
            self.portals.push(TreePortal {
                plane: *plane,
                winding,
                cells: [Cell::Outside; 2],
                on_node: false,
            });
            self.add(id, head, Cell::Outside);
        }
    }

    /// vbsp `BaseWindingForNode` + `MakeNodePortal`.
    fn make_node_portal(&mut self, node: usize) {
        let tree = self.tree;
        let plane = tree.planes[tree.nodes[node].0];
        let mut w = Some(Winding::base_for_plane(&plane));
        let mut cur = node;
        while let Some((parent, side)) = tree.parent[cur] {
            let Some(win) = w.take() else { break };
            let pp = tree.planes[tree.nodes[parent].0];
            let keep = if side == 0 { pp } else { pp.flipped() };
            w = chop_front(win, &keep, BASE_WINDING_EPSILON);
            cur = parent;
        }
        for &id in &self.node_portals[node] {
            let Some(win) = w.take() else { break };
            let p = &self.portals[id];
            let keep = if p.cells[0] == Cell::Node(node) {
                p.plane
            } else {
                p.plane.flipped()
            };
            w = chop_front(win, &keep, ON_EPSILON);
        }
        let Some(winding) = w else { return };
        if is_tiny(&winding) {
            return;
        }
        let children = tree.nodes[node].1;
        let id = self.portals.len();
        self.portals.push(TreePortal {
            plane,
            winding,
            cells: [Cell::Outside; 2],
            on_node: true,
        });
        self.add(id, to_cell(children[0]), to_cell(children[1]));
    }

    /// vbsp `SplitNodePortals`: hand the node's portals to its children.
    fn split_node_portals(&mut self, node: usize) {
        let tree = self.tree;
        let plane = tree.planes[tree.nodes[node].0];
        let [f, b] = tree.nodes[node].1.map(to_cell);
        let list = std::mem::take(&mut self.node_portals[node]);
        for id in list {
            let side = if self.portals[id].cells[0] == Cell::Node(node) {
                0
            } else {
                1
            };
            let other = self.portals[id].cells[1 - side];
            self.remove(id, other);
            let (mut front, mut back) =
                clip_epsilon(&self.portals[id].winding, &plane, SPLIT_WINDING_EPSILON);
            if front.as_ref().is_some_and(is_tiny) {
                front = None;
            }
            if back.as_ref().is_some_and(is_tiny) {
                back = None;
            }
            let attach = |this: &mut Self, id: usize, child: Cell| {
                if side == 0 {
                    this.add(id, child, other)
                } else {
                    this.add(id, other, child)
                }
            };
            match (front, back) {
                (None, None) => {}
                (None, Some(_)) => attach(self, id, b),
                (Some(_), None) => attach(self, id, f),
                (Some(fw), Some(bw)) => {
                    let p = &self.portals[id];
                    let new_id = self.portals.len();
                    let copy = TreePortal {
                        plane: p.plane,
                        winding: bw,
                        cells: [Cell::Outside; 2],
                        on_node: p.on_node,
                    };
                    self.portals.push(copy);
                    self.portals[id].winding = fw;
                    attach(self, id, f);
                    attach(self, new_id, b);
                }
            }
        }
    }
}

fn to_cell(c: Cell2) -> Cell {
    match c {
        Cell2::Node(n) => Cell::Node(n),
        Cell2::Leaf(l) => Cell::Leaf(l),
    }
}

/// The plane vvis computes from a winding's first three points (`PlaneFromWinding`).
pub(crate) fn vvis_plane_normal(points: &[DVec3]) -> DVec3 {
    let v1 = points[2] - points[1];
    let v2 = points[0] - points[1];
    v2.cross(v1).normalize_or_zero()
}

/// Rebuilds the vis portals of a compiled BSP from its tree. Cluster numbers are the leaves'
/// own; the cluster count is one more than the highest (or the visibility lump's, if larger).
pub fn portals_from_bsp(bsp: &Bsp) -> Result<Portals, VvisError> {
    let tree = Tree::from_bsp(bsp)?;
    Ok(portals_from_tree(
        &tree,
        bsp.visibility.as_ref().map_or(0, |v| v.num_clusters),
    ))
}

pub(crate) fn portals_from_tree(tree: &Tree, min_clusters: u32) -> Portals {
    let mut b = Builder {
        tree,
        portals: Vec::new(),
        node_portals: vec![Vec::new(); tree.nodes.len()],
        leaf_portals: vec![Vec::new(); tree.leaf_cluster.len()],
    };
    if let Cell2::Node(_) = tree.head {
        b.headnode_portals();
    }
    // Parents before children (vbsp `CreateVisPortals_r`, front subtree first).
    let mut stack = vec![tree.head];
    while let Some(c) = stack.pop() {
        if let Cell2::Node(n) = c {
            b.make_node_portal(n);
            b.split_node_portals(n);
            let [f, bk] = tree.nodes[n].1;
            stack.push(bk);
            stack.push(f);
        }
    }
    let num_clusters = (tree.leaf_cluster.iter().copied().max().unwrap_or(-1).max(-1) + 1).max(0) as u32;
    let num_clusters = num_clusters.max(min_clusters);
    // Written per cluster, from the portal's front leaf, like vbsp's `BuildPortalList`.
    let mut by_cluster: Vec<Vec<Portal>> = vec![Vec::new(); num_clusters as usize];
    for (leaf, list) in b.leaf_portals.iter().enumerate() {
        for &id in list {
            let p = &b.portals[id];
            let (Cell::Leaf(l0), Cell::Leaf(l1)) = (p.cells[0], p.cells[1]) else {
                continue;
            };
            if l0 != leaf || !p.on_node {
                continue;
            }
            let (c0, c1) = (tree.leaf_cluster[l0], tree.leaf_cluster[l1]);
            if c0 < 0 || c1 < 0 || c0 == c1 {
                continue;
            }
            if !vis_flood(tree.leaf_contents[l0], tree.leaf_contents[l1]) {
                continue;
            }
            let pts = &p.winding.points;
            if pts.len() < 3 || pts.len() > crate::portals::MAX_POINTS_ON_WINDING {
                continue;
            }
            // vbsp flips the cluster order when the winding faces away from the plane.
            let backwards = p.plane.normal.dot(vvis_plane_normal(pts)) < 0.99;
            let clusters = if backwards {
                [c1 as u32, c0 as u32]
            } else {
                [c0 as u32, c1 as u32]
            };
            by_cluster[c0 as usize].push(Portal {
                clusters,
                points: pts.iter().map(|v| v.to_array()).collect(),
            });
        }
    }
    Portals {
        num_clusters,
        portals: by_cluster.into_iter().flatten().collect(),
    }
}
