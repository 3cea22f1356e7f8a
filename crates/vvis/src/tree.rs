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
        let world = bsp
            .models
            .first()
            .ok_or_else(|| VvisError::Invalid("the BSP has no models (no world)".into()))?;
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
        let nodes = checked_nodes(bsp, planes.len())?;
        let head = child_cell(bsp, world.head_node)?;
        let parent = parents(&nodes, head, bsp.leafs.len())?;
        Ok(Tree {
            planes,
            nodes,
            leaf_cluster: bsp.leafs.iter().map(|l| l.cluster).collect(),
            leaf_contents: bsp.leafs.iter().map(|l| l.contents).collect(),
            head,
            parent,
            bounds: world_box(bsp, world, head),
        })
    }
}

/// A node's child reference, in range.
fn child_cell(bsp: &Bsp, c: i32) -> Result<Cell2, VvisError> {
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
    Err(VvisError::Invalid(format!("node child {c} out of range")))
}

/// Each node's plane and children, every index in range.
fn checked_nodes(bsp: &Bsp, num_planes: usize) -> Result<Vec<(usize, [Cell2; 2])>, VvisError> {
    let mut nodes = Vec::with_capacity(bsp.nodes.len());
    for (i, n) in bsp.nodes.iter().enumerate() {
        if n.plane < 0 || n.plane as usize >= num_planes {
            return Err(VvisError::Invalid(format!(
                "node {i}: plane {} out of range",
                n.plane
            )));
        }
        nodes.push((
            n.plane as usize,
            [child_cell(bsp, n.children[0])?, child_cell(bsp, n.children[1])?],
        ));
    }
    Ok(nodes)
}

/// Each node's parent and side under it, and a check that the world's tree really is a tree
/// (no node or leaf reached twice).
fn parents(
    nodes: &[(usize, [Cell2; 2])],
    head: Cell2,
    num_leafs: usize,
) -> Result<Vec<Option<(usize, usize)>>, VvisError> {
    let bad = |m: String| Err(VvisError::Invalid(m));
    let mut parent = vec![None; nodes.len()];
    let mut seen_leaf = vec![false; num_leafs];
    let mut stack = vec![head];
    let mut visited = 0usize;
    while let Some(c) = stack.pop() {
        visited += 1;
        if visited > nodes.len() + num_leafs + 1 {
            return bad("the node graph is not a tree".into());
        }
        match c {
            Cell2::Leaf(l) => {
                if std::mem::replace(&mut seen_leaf[l], true) {
                    return bad(format!("leaf {l} is reached twice"));
                }
            }
            Cell2::Node(n) => push_children(nodes, n, head, &mut parent, &mut stack)?,
        }
    }
    Ok(parent)
}

/// Node `n`'s children onto the stack, each child node's parent recorded (an error when it
/// has one already, or is the head).
fn push_children(
    nodes: &[(usize, [Cell2; 2])],
    n: usize,
    head: Cell2,
    parent: &mut [Option<(usize, usize)>],
    stack: &mut Vec<Cell2>,
) -> Result<(), VvisError> {
    for (side, &ch) in nodes[n].1.iter().enumerate() {
        if let Cell2::Node(k) = ch {
            if parent[k].is_some() || Cell2::Node(k) == head {
                return Err(VvisError::Invalid(format!("node {k} is reached twice")));
            }
            parent[k] = Some((n, side));
        }
        stack.push(ch);
    }
    Ok(())
}

/// The world box: the world model's bounds, grown to the head node's. In a sealed map only
/// solid leaves touch the box, so its size does not matter; in an unsealed tree (a leak
/// compiled anyway) the box must not cut the portals of the open leaves.
fn world_box(bsp: &Bsp, world: &srcmap_bsp::Model, head: Cell2) -> (DVec3, DVec3) {
    let v = |a: [f32; 3]| DVec3::new(a[0] as f64, a[1] as f64, a[2] as f64);
    let mut bounds = (v(world.mins), v(world.maxs));
    if let Cell2::Node(n) = head {
        let node = &bsp.nodes[n];
        bounds = (bounds.0.min(v(node.mins)), bounds.1.max(v(node.maxs)));
    }
    bounds
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
        let planes = world_box_planes(self.tree.bounds);
        let head = to_cell(self.tree.head);
        for (i, plane) in planes.iter().enumerate() {
            let Some(winding) = box_side(&planes, i) else {
                continue;
            };
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
        let Some(winding) = self.node_winding(node, &plane) else {
            return;
        };
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

    /// The node's plane as a huge winding clipped by its ancestors' planes (to the side the
    /// node is on) and by the portals bounding the node.
    fn node_winding(&self, node: usize, plane: &Plane) -> Option<Winding> {
        let tree = self.tree;
        let mut w = Some(Winding::base_for_plane(plane));
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
        w
    }

    /// vbsp `SplitNodePortals`: hand the node's portals to its children.
    fn split_node_portals(&mut self, node: usize) {
        let tree = self.tree;
        let plane = tree.planes[tree.nodes[node].0];
        let children = tree.nodes[node].1.map(to_cell);
        let list = std::mem::take(&mut self.node_portals[node]);
        for id in list {
            self.split_portal(id, node, &plane, children);
        }
    }

    /// Portal `id` of `node` split by its plane: each part not tiny goes to the child
    /// (`[front, back]`) on its side, in place of the node.
    fn split_portal(&mut self, id: usize, node: usize, plane: &Plane, [f, b]: [Cell; 2]) {
        let side = if self.portals[id].cells[0] == Cell::Node(node) {
            0
        } else {
            1
        };
        let other = self.portals[id].cells[1 - side];
        self.remove(id, other);
        let (front, back) = split_not_tiny(&self.portals[id].winding, plane);
        match (front, back) {
            (None, None) => {}
            (None, Some(_)) => self.attach(id, side, b, other),
            (Some(_), None) => self.attach(id, side, f, other),
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
                self.attach(id, side, f, other);
                self.attach(new_id, side, b, other);
            }
        }
    }

    /// Portal `id` between `child` (on side `side`) and `other`.
    fn attach(&mut self, id: usize, side: usize, child: Cell, other: Cell) {
        if side == 0 {
            self.add(id, child, other)
        } else {
            self.add(id, other, child)
        }
    }
}

/// The six planes of the box around the world (`bounds` grown by [`SIDESPACE`]), facing in.
fn world_box_planes((mins, maxs): (DVec3, DVec3)) -> Vec<Plane> {
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
    planes
}

/// Side `i` of the world box: its plane as a winding clipped by the other five.
fn box_side(planes: &[Plane], i: usize) -> Option<Winding> {
    let mut w = Some(Winding::base_for_plane(&planes[i]));
    for (j, other) in planes.iter().enumerate() {
        if j != i {
            w = w.and_then(|w| chop_front(w, other, ON_EPSILON));
        }
    }
    w
}

/// A winding split by `plane` (vbsp `ClipWindingEpsilon`), a tiny part dropped.
fn split_not_tiny(w: &Winding, plane: &Plane) -> (Option<Winding>, Option<Winding>) {
    let (mut front, mut back) = clip_epsilon(w, plane, SPLIT_WINDING_EPSILON);
    if front.as_ref().is_some_and(is_tiny) {
        front = None;
    }
    if back.as_ref().is_some_and(is_tiny) {
        back = None;
    }
    (front, back)
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
    b.build();
    let num_clusters = (tree.leaf_cluster.iter().copied().max().unwrap_or(-1).max(-1) + 1).max(0) as u32;
    let num_clusters = num_clusters.max(min_clusters);
    // Written per cluster, from the portal's front leaf, like vbsp's `BuildPortalList`.
    let mut by_cluster: Vec<Vec<Portal>> = vec![Vec::new(); num_clusters as usize];
    for (leaf, list) in b.leaf_portals.iter().enumerate() {
        for &id in list {
            if let Some((c0, portal)) = b.vis_portal(leaf, id) {
                by_cluster[c0].push(portal);
            }
        }
    }
    Portals {
        num_clusters,
        portals: by_cluster.into_iter().flatten().collect(),
    }
}

impl Builder<'_> {
    /// Every node's portal made and split among its children, parents before children
    /// (vbsp `CreateVisPortals_r`, front subtree first), inside the world box's portals.
    fn build(&mut self) {
        let tree = self.tree;
        if let Cell2::Node(_) = tree.head {
            self.headnode_portals();
        }
        let mut stack = vec![tree.head];
        while let Some(c) = stack.pop() {
            if let Cell2::Node(n) = c {
                self.make_node_portal(n);
                self.split_node_portals(n);
                let [f, bk] = tree.nodes[n].1;
                stack.push(bk);
                stack.push(f);
            }
        }
    }

    /// Portal `id` of `leaf` as a vis portal, with its front leaf's cluster, when it is one:
    /// on a node, from `leaf` to a leaf of another visible cluster, passing `Portal_VisFlood`,
    /// of 3 to 64 points.
    fn vis_portal(&self, leaf: usize, id: usize) -> Option<(usize, Portal)> {
        let tree = self.tree;
        let p = &self.portals[id];
        let (Cell::Leaf(l0), Cell::Leaf(l1)) = (p.cells[0], p.cells[1]) else {
            return None;
        };
        if l0 != leaf || !p.on_node {
            return None;
        }
        let (c0, c1) = (tree.leaf_cluster[l0], tree.leaf_cluster[l1]);
        if c0 < 0 || c1 < 0 || c0 == c1 || !vis_flood(tree.leaf_contents[l0], tree.leaf_contents[l1]) {
            return None;
        }
        let pts = &p.winding.points;
        if pts.len() < 3 || pts.len() > crate::portals::MAX_POINTS_ON_WINDING {
            return None;
        }
        // vbsp flips the cluster order when the winding faces away from the plane.
        let backwards = p.plane.normal.dot(vvis_plane_normal(pts)) < 0.99;
        let clusters = if backwards {
            [c1 as u32, c0 as u32]
        } else {
            [c0 as u32, c1 as u32]
        };
        let points = pts.iter().map(|v| v.to_array()).collect();
        Some((c0 as usize, Portal { clusters, points }))
    }
}
