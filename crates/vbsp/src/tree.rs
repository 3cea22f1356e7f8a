//! The brush BSP: split the brushes of a model by their own side planes until each leaf
//! is a convex region of uniform contents (Valve's `BrushBSP`).

use srcmap_geom::{Bounds, DVec3, Plane, PlaneId, PlaneSet, Winding};

use crate::brush::{Brush, BrushSide};
use crate::contents::*;
use crate::ids::BrushId;

/// Brush splits closer than this to a plane keep the point on it (q2/Valve `ON_EPSILON`-ish).
const SPLIT_EPS: f64 = 0.1;
/// Valve builds its world tree in blocks of this size on X and Y (`BLOCKS_SIZE`).
pub const BLOCK_SIZE: f64 = 1024.0;
/// Above this many brushes the two children are built in parallel.
const PARALLEL_BRUSHES: usize = 48;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    pub fn idx(self) -> usize {
        self.0 as usize
    }
}

/// A node or leaf of the tree. Leaves have `plane == None`.
#[derive(Debug, Clone)]
pub struct Node {
    pub plane: Option<PlaneId>,
    pub children: [NodeId; 2],
    pub parent: Option<NodeId>,
    pub bounds: Bounds,
    pub contents: u32,
    /// Leaves: the map brushes in this leaf.
    pub brushes: Vec<BrushId>,
    /// Portals touching this node (leaves only, after portalisation).
    pub portals: Vec<u32>,
    /// Flood distance from an entity (1 = an entity's own leaf, 0 = not reached).
    pub occupied: u32,
    /// Entity index whose flood reached this leaf first.
    pub occupant: Option<u32>,
}

impl Node {
    fn leaf(contents: u32, brushes: Vec<BrushId>, bounds: Bounds) -> Node {
        Node {
            plane: None,
            children: [NodeId(0); 2],
            parent: None,
            bounds,
            contents,
            brushes,
            portals: Vec::new(),
            occupied: 0,
            occupant: None,
        }
    }

    pub fn is_leaf(&self) -> bool {
        self.plane.is_none()
    }
}

/// A BSP tree in an arena. `outside` is a special leaf standing for the void around the
/// tree; it is not reachable from `head`.
#[derive(Debug, Clone)]
pub struct Tree {
    pub nodes: Vec<Node>,
    pub head: NodeId,
    pub outside: NodeId,
    pub bounds: Bounds,
}

/// A tree whose links are inconsistent ([`Tree::verify`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BrokenTree(pub String);

impl Tree {
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.idx()]
    }

    /// The leaf containing `p` (points on a plane go to the front, as the engine does).
    pub fn leaf_at(&self, planes: &PlaneSet, p: DVec3) -> NodeId {
        let mut n = self.head;
        while let Some(pl) = self.nodes[n.idx()].plane {
            let d = planes.get(pl).distance(p);
            n = self.nodes[n.idx()].children[if d >= 0.0 { 0 } else { 1 }];
        }
        n
    }

    /// Every node reachable from the head, parents before children and each front subtree
    /// before its back one (the order of Valve's recursive walks).
    pub fn preorder(&self) -> Vec<NodeId> {
        let mut out = Vec::with_capacity(self.nodes.len());
        let mut stack = vec![self.head];
        while let Some(n) = stack.pop() {
            out.push(n);
            let node = &self.nodes[n.idx()];
            if node.plane.is_some() {
                stack.push(node.children[1]);
                stack.push(node.children[0]);
            }
        }
        out
    }

    pub fn leaves(&self) -> impl Iterator<Item = NodeId> + '_ {
        (0..self.nodes.len() as u32)
            .map(NodeId)
            .filter(|&n| self.nodes[n.idx()].is_leaf() && n != self.outside)
    }

    /// Structural checks: children point back to their parents, leaves have no children.
    pub fn verify(&self) -> Result<(), BrokenTree> {
        let mut stack = vec![self.head];
        let mut seen = vec![false; self.nodes.len()];
        while let Some(n) = stack.pop() {
            if std::mem::replace(&mut seen[n.idx()], true) {
                return Err(BrokenTree(format!("node {} reached twice", n.0)));
            }
            let node = &self.nodes[n.idx()];
            if node.plane.is_some() {
                for c in node.children {
                    if self.nodes[c.idx()].parent != Some(n) {
                        return Err(BrokenTree(format!(
                            "node {} child {} has the wrong parent",
                            n.0, c.0
                        )));
                    }
                    stack.push(c);
                }
            }
        }
        Ok(())
    }

    /// A text dump for tests: one line per node, indented by depth.
    pub fn dump(&self, planes: &PlaneSet) -> String {
        let mut out = String::new();
        let mut stack = vec![(self.head, 0usize)];
        while let Some((n, depth)) = stack.pop() {
            let node = &self.nodes[n.idx()];
            let pad = "  ".repeat(depth);
            match node.plane {
                Some(p) => {
                    let pl = planes.get(p);
                    out += &format!(
                        "{pad}node {} plane ({} {} {}) {}\n",
                        n.0, pl.normal.x, pl.normal.y, pl.normal.z, pl.dist
                    );
                    stack.push((node.children[1], depth + 1));
                    stack.push((node.children[0], depth + 1));
                }
                None => {
                    out += &format!(
                        "{pad}leaf {} contents {:#x} brushes {:?}\n",
                        n.0, node.contents, node.brushes
                    )
                }
            }
        }
        out
    }
}

// ---- brushes being split -------------------------------------------------------------

const F_BEVEL: u8 = 1;
/// The side lies on a node plane already (or was made by a split): never a splitter.
const F_NODE: u8 = 2;
const F_VISIBLE: u8 = 4;
const F_SKIP: u8 = 8;
const F_HINT: u8 = 16;
const F_WATER: u8 = 64;
const F_DETAIL: u8 = 128;

#[derive(Debug, Clone)]
struct BSide {
    plane: PlaneId,
    winding: Option<Winding>,
    flags: u8,
    /// Index of the map brush side this came from; `None` for cuts.
    orig_side: Option<u32>,
}

#[derive(Debug, Clone)]
struct BBrush {
    /// The map brush; `None` for a node volume.
    orig: Option<BrushId>,
    contents: u32,
    sides: Vec<BSide>,
    bounds: Bounds,
}

/// The splitting flags of a map brush's side.
fn side_flags(b: &Brush, s: &BrushSide, pass: Pass) -> u8 {
    let water = b.contents & (CONTENTS_WATER | CONTENTS_SLIME) != 0;
    let mut flags = 0;
    if s.bevel {
        flags |= F_BEVEL;
    }
    // The first pass treats every side as visible; the second knows better.
    if pass == Pass::First || s.visible {
        flags |= F_VISIBLE;
    }
    if s.surf & SURF_SKIP != 0 {
        flags |= F_SKIP;
    }
    if s.surf & SURF_HINT != 0 {
        flags |= F_HINT;
    }
    if water {
        flags |= F_WATER;
    }
    if b.contents & CONTENTS_DETAIL != 0 {
        flags |= F_DETAIL;
    }
    flags
}

const PSIDE_FRONT: u8 = 1;
const PSIDE_BACK: u8 = 2;
const PSIDE_BOTH: u8 = 3;
const PSIDE_FACING: u8 = 4;

impl BBrush {
    fn from_brush(idx: BrushId, b: &Brush, pass: Pass) -> BBrush {
        let sides = b
            .sides
            .iter()
            .enumerate()
            .map(|(si, s)| BSide {
                plane: s.plane,
                winding: s.winding.clone(),
                flags: side_flags(b, s, pass),
                orig_side: Some(si as u32),
            })
            .collect();
        BBrush {
            orig: Some(idx),
            contents: b.contents,
            sides,
            bounds: b.bounds,
        }
    }

    fn from_bounds(planes: &PlaneSet, box_planes: &[PlaneId; 6], bounds: Bounds) -> BBrush {
        let pls: Vec<Plane> = box_planes.iter().map(|&p| *planes.get(p)).collect();
        let windings = srcmap_geom::polyhedron_faces(&pls);
        let sides = box_planes
            .iter()
            .zip(windings)
            .map(|(&plane, winding)| BSide {
                plane,
                winding,
                flags: F_NODE,
                orig_side: None,
            })
            .collect();
        BBrush {
            orig: None,
            contents: 0,
            sides,
            bounds,
        }
    }

    fn recompute_bounds(&mut self) {
        let mut b = Bounds::EMPTY;
        for w in self.sides.iter().filter_map(|s| s.winding.as_ref()) {
            for &p in &w.points {
                b.add_point(p);
            }
        }
        self.bounds = b;
    }

    fn volume(&self, planes: &PlaneSet) -> f64 {
        let Some(corner) = self
            .sides
            .iter()
            .find_map(|s| s.winding.as_ref())
            .map(|w| w.points[0])
        else {
            return 0.0;
        };
        let mut v = 0.0;
        for s in &self.sides {
            let Some(w) = &s.winding else { continue };
            let d = -planes.get(s.plane).distance(corner);
            v += d * w.area();
        }
        v / 3.0
    }

    /// Valve's `TestBrushToPlanenum`: which side of `pnum` the brush is on, how many
    /// visible sides the plane would split, whether it splits a hint, and whether the
    /// brush lies within one unit of the plane.
    #[inline]
    fn test_plane(&self, planes: &PlaneSet, pnum: PlaneId) -> (u8, u32, bool, bool) {
        // One test per side finds the first side on either member of the pair.
        let pair = pnum.positive();
        match self.sides.iter().find(|s| s.plane.positive() == pair) {
            Some(s) => facing_test(s.plane, pnum),
            None => self.test_unfaced_plane(planes, pnum),
        }
    }

    /// [`BBrush::test_plane`] for a brush with no side on `pnum` or its flip.
    #[inline]
    fn test_unfaced_plane(&self, planes: &PlaneSet, pnum: PlaneId) -> (u8, u32, bool, bool) {
        let plane = planes.get(pnum);
        let side = box_on_plane_side(&self.bounds, plane, planes.plane_type(pnum));
        if side != PSIDE_BOTH {
            return (side, 0, false, false);
        }
        let (splits, hint, d_front, d_back) = self.visible_splits(plane);
        let eps = (d_front > 0.0 && d_front < 1.0) || (d_back < 0.0 && d_back > -1.0);
        (side, splits, hint, eps)
    }

    /// How many visible sides (skip sides not counted) `plane` would split, whether one of
    /// them is a hint, and how far the visible sides reach in front of and behind it.
    #[inline]
    fn visible_splits(&self, plane: &Plane) -> (u32, bool, f64, f64) {
        let (mut d_front, mut d_back) = (0.0f64, 0.0f64);
        let mut splits = 0;
        let mut hint = false;
        for s in &self.sides {
            if s.flags & F_NODE != 0 || s.flags & F_VISIBLE == 0 {
                continue;
            }
            let Some(w) = &s.winding else { continue };
            let (mut front, mut back) = (false, false);
            for &p in &w.points {
                let d = plane.distance(p);
                // As `f64::max`/`min` (a NaN is skipped), without their NaN handling's cost.
                if d > d_front {
                    d_front = d;
                }
                if d < d_back {
                    d_back = d;
                }
                front |= d > SPLIT_EPS;
                back |= d < -SPLIT_EPS;
            }
            if front && back && s.flags & F_SKIP == 0 {
                splits += 1;
                hint |= s.flags & F_HINT != 0;
            }
        }
        (splits, hint, d_front, d_back)
    }

    /// Split by `pnum` (Valve's `SplitBrush`): the parts in front and behind, each closed by
    /// a new side on the plane. Parts under one cubic unit are dropped.
    fn split(self, planes: &PlaneSet, pnum: PlaneId) -> (Option<BBrush>, Option<BBrush>) {
        let plane = planes.get(pnum);
        let (d_front, d_back) = self.extent_on(plane);
        if d_front < SPLIT_EPS {
            return (None, Some(self));
        }
        if d_back > -SPLIT_EPS {
            return (Some(self), None);
        }
        let Some(mid) = self.cut_polygon(planes, plane) else {
            return if self.mostly_front(plane) {
                (Some(self), None)
            } else {
                (None, Some(self))
            };
        };
        let mut parts = self.split_sides(plane, pnum);
        for p in &mut parts {
            p.recompute_bounds();
        }
        let [front, back] = parts;
        (
            front.closed_by_cut(planes, pnum.flipped(), mid.reversed()),
            back.closed_by_cut(planes, pnum, mid),
        )
    }

    /// How far the brush's points reach in front of `plane` (at least 0) and behind it (at
    /// most 0).
    #[inline]
    fn extent_on(&self, plane: &Plane) -> (f64, f64) {
        let (mut d_front, mut d_back) = (0.0f64, 0.0f64);
        for w in self.sides.iter().filter_map(|s| s.winding.as_ref()) {
            for &p in &w.points {
                let d = plane.distance(p);
                if d > d_front {
                    d_front = d;
                }
                if d < d_back {
                    d_back = d;
                }
            }
        }
        (d_front, d_back)
    }

    /// The polygon where `plane` cuts the brush; `None` when it is tiny or empty.
    #[inline]
    fn cut_polygon(&self, planes: &PlaneSet, plane: &Plane) -> Option<Winding> {
        let mut mid = Some(Winding::base_for_plane(plane));
        for s in &self.sides {
            let Some(w) = mid else { break };
            mid = w.into_back(planes.get(s.plane), 0.0, false);
        }
        mid.filter(|w| !w.is_tiny(0.2))
    }

    /// The brush's sides split by `plane` (`pnum`) into the front and back halves, not yet
    /// closed and without bounds.
    fn split_sides(self, plane: &Plane, pnum: PlaneId) -> [BBrush; 2] {
        // Room for every side and the cap each half gets (`closed_by_cut`).
        let half = || BBrush {
            orig: self.orig,
            contents: self.contents,
            sides: Vec::with_capacity(self.sides.len() + 1),
            bounds: Bounds::EMPTY,
        };
        let mut parts = [half(), half()];
        for s in self.sides {
            let (f, b) = split_side(s, plane, pnum);
            parts[0].sides.extend(f);
            parts[1].sides.extend(b);
        }
        parts
    }

    /// A split half closed with the cut polygon `cap` on `cap_plane` (facing out of the
    /// half); `None` when the half has fewer than three polygons or under one cubic unit.
    fn closed_by_cut(mut self, planes: &PlaneSet, cap_plane: PlaneId, cap: Winding) -> Option<BBrush> {
        if self.sides.iter().filter(|s| s.winding.is_some()).count() < 3 {
            return None;
        }
        self.sides.push(BSide {
            plane: cap_plane,
            winding: Some(cap),
            flags: F_NODE,
            orig_side: None,
        });
        self.recompute_bounds();
        (self.volume(planes) >= 1.0).then_some(self)
    }

    fn mostly_front(&self, plane: &Plane) -> bool {
        let mut max = 0.0f64;
        let mut front = true;
        for w in self.sides.iter().filter_map(|s| s.winding.as_ref()) {
            for &p in &w.points {
                let d = plane.distance(p);
                if d > max {
                    max = d;
                    front = true;
                }
                if -d > max {
                    max = -d;
                    front = false;
                }
            }
        }
        front
    }
}

/// One half of a side split by `plane` (`pnum`), for the front and the back half. A side
/// without a polygon (bevels, redundant sides) goes to both; a side lying in the plane to
/// the half it faces away from.
#[inline]
fn split_side(mut s: BSide, plane: &Plane, pnum: PlaneId) -> (Option<BSide>, Option<BSide>) {
    let Some(w) = s.winding.take() else {
        return (Some(s.clone()), Some(s));
    };
    let (f, b) = match w.into_split(plane, 0.0) {
        Ok(parts) => parts,
        Err(on) if s.plane == pnum => (None, Some(on)),
        Err(on) => (Some(on), None),
    };
    let with = |w: Winding| BSide {
        winding: Some(w),
        ..s
    };
    (f.map(with), b.map(with))
}

/// Which side of `plane` (of type `ty`) the box is on: `PSIDE_FRONT`, `PSIDE_BACK` or both.
#[inline]
fn box_on_plane_side(b: &Bounds, plane: &Plane, ty: srcmap_geom::PlaneType) -> u8 {
    if ty.is_axial() {
        return box_on_axial_plane_side(b, plane, ty.axis());
    }
    let (mut near, mut far) = (DVec3::ZERO, DVec3::ZERO);
    for i in 0..3 {
        if plane.normal[i] >= 0.0 {
            near[i] = b.mins[i];
            far[i] = b.maxs[i];
        } else {
            near[i] = b.maxs[i];
            far[i] = b.mins[i];
        }
    }
    let mut side = 0;
    if plane.distance(far) >= 0.0 {
        side |= PSIDE_FRONT;
    }
    if plane.distance(near) < 0.0 {
        side |= PSIDE_BACK;
    }
    side
}

/// [`BBrush::test_plane`] of a brush whose first side on `pnum`'s pair lies on `side_plane`.
#[inline]
fn facing_test(side_plane: PlaneId, pnum: PlaneId) -> (u8, u32, bool, bool) {
    let side = if side_plane == pnum {
        PSIDE_BACK
    } else {
        PSIDE_FRONT
    };
    (side | PSIDE_FACING, 0, false, false)
}

/// Per brush of a node, a bit per plane pair (its number modulo 64) for each pair a side of
/// the brush lies on. The split search tests every candidate plane against every brush of the
/// node, and scanning each brush's sides for one on the plane was a third of the tree's time
/// (the sides scattered in memory); a clear bit says there is none without the scan.
struct PairMasks {
    masks: Vec<u64>,
}

impl PairMasks {
    fn new(brushes: &[BBrush]) -> Self {
        let mask = |b: &BBrush| b.sides.iter().fold(0, |m, s| m | pair_bit(s.plane));
        PairMasks {
            masks: brushes.iter().map(mask).collect(),
        }
    }

    /// Whether brush `i` may have a side on `pnum` or its flip (`false`: it has none).
    #[inline]
    fn may_face(&self, i: usize, pnum: PlaneId) -> bool {
        self.masks[i] & pair_bit(pnum) != 0
    }
}

/// The bit of `pnum`'s pair in a [`PairMasks`] mask.
#[inline]
fn pair_bit(pnum: PlaneId) -> u64 {
    1 << ((pnum.0 >> 1) % 64)
}

/// [`box_on_plane_side`] for a plane along axis `a`.
#[inline]
fn box_on_axial_plane_side(b: &Bounds, plane: &Plane, a: usize) -> u8 {
    let (n, d) = (plane.normal[a], plane.dist);
    // Axial planes may face negative (the odd member of a pair).
    let (lo, hi) = if n > 0.0 {
        (b.mins[a] - d, b.maxs[a] - d)
    } else {
        (-b.maxs[a] - d, -b.mins[a] - d)
    };
    if hi <= 0.0 {
        return PSIDE_BACK;
    }
    if lo >= 0.0 {
        return PSIDE_FRONT;
    }
    PSIDE_BOTH
}

// ---- building -----------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    /// Every side may split; used to find the inside and the visible sides.
    First,
    /// Visible sides split first (Valve's second, "optimised" pass).
    Second,
}

enum Built {
    Leaf {
        contents: u32,
        brushes: Vec<BrushId>,
        bounds: Bounds,
    },
    Node {
        plane: PlaneId,
        bounds: Bounds,
        children: Box<[Built; 2]>,
    },
}

struct Builder<'a> {
    planes: &'a PlaneSet,
    /// The map's block range on X and Y (`lo..=hi` block numbers), when building in blocks.
    blocks: Option<[(i64, i64); 2]>,
}

/// Where a node stands in Valve's block tree: a range of blocks still to divide, or inside
/// one block (ordinary brush splitting).
#[derive(Clone, Copy)]
enum BlockState {
    Range { x: (i64, i64), y: (i64, i64) },
    Inside,
}

/// The block range Valve uses for a map's bounds: blocks `floor(min/1024)..=floor(max/1024)`
/// on X and Y, within ±16 blocks.
fn block_range(bounds: &Bounds) -> [(i64, i64); 2] {
    [0, 1].map(|a| {
        let lo = ((bounds.mins[a] / BLOCK_SIZE).floor() as i64).max(-16);
        let hi = ((bounds.maxs[a] / BLOCK_SIZE).floor() as i64).min(15);
        (lo, hi.max(lo))
    })
}

/// Build the tree of `brush_ids` (indices into `brushes`). `planes` must already hold the
/// block grid planes (see [`add_block_planes`]). `blocks` splits on Valve's 1024-unit
/// block grid first (the world only).
pub fn build_tree(
    planes: &PlaneSet,
    brushes: &[Brush],
    brush_ids: &[BrushId],
    pass: Pass,
    bounds: Bounds,
    blocks: bool,
) -> Tree {
    let list = valve_list_order(brush_ids, |i| BBrush::from_brush(i, &brushes[i.idx()], pass));
    let builder = Builder {
        planes,
        blocks: blocks.then(|| block_range(&bounds)),
    };
    // The node volume starts as the whole world, so that every point has a leaf whose
    // bounds contain it (the void around the map becomes solid leaves).
    let vb = world_box();
    let box_planes = box_plane_ids(planes, &vb);
    let volume = box_planes.map(|bp| BBrush::from_bounds(planes, &bp, vb));
    let state = builder.head_state();
    // Brush models are carved whole; the world block by block (in `node_split`).
    let list = if blocks { list } else { chop(planes, list) };
    let built = builder.build_r(list, volume, 0, state);
    into_tree(built, bounds)
}

/// The tree of a built head node, with the outside leaf added after it.
fn into_tree(built: Built, bounds: Bounds) -> Tree {
    let mut nodes = Vec::new();
    let head = flatten(built, None, &mut nodes);
    let outside = NodeId(nodes.len() as u32);
    nodes.push(Node::leaf(CONTENTS_EMPTY, Vec::new(), Bounds::EMPTY));
    Tree {
        nodes,
        head,
        outside,
        bounds,
    }
}

fn flatten(b: Built, parent: Option<NodeId>, nodes: &mut Vec<Node>) -> NodeId {
    let id = NodeId(nodes.len() as u32);
    match b {
        Built::Leaf {
            contents,
            brushes,
            bounds,
        } => {
            let mut n = Node::leaf(contents, brushes, bounds);
            n.parent = parent;
            nodes.push(n);
        }
        Built::Node {
            plane,
            bounds,
            children,
        } => {
            let mut n = Node::leaf(0, Vec::new(), bounds);
            n.plane = Some(plane);
            n.parent = parent;
            nodes.push(n);
            let [c0, c1] = *children;
            let a = flatten(c0, Some(id), nodes);
            let b = flatten(c1, Some(id), nodes);
            nodes[id.idx()].children = [a, b];
        }
    }
    id
}

/// Plane ids of the six faces of a box, or `None` when a plane is missing from the table.
fn box_plane_ids(planes: &PlaneSet, b: &Bounds) -> Option<[PlaneId; 6]> {
    let mut out = [PlaneId(0); 6];
    for axis in 0..3 {
        let mut n = DVec3::ZERO;
        n[axis] = 1.0;
        out[axis * 2] = planes.find(&Plane::new(n, b.maxs[axis]))?;
        out[axis * 2 + 1] = planes.find(&Plane::new(-n, -b.mins[axis]))?;
    }
    Some(out)
}

/// Add the planes [`build_tree`] needs beyond the brushes' own: the block grid on X and
/// Y and the faces of the node volume box.
pub fn add_block_planes(planes: &mut PlaneSet, bounds: &Bounds) {
    let range = block_range(bounds);
    for axis in 0..2 {
        let (lo, hi) = range[axis];
        for g in lo - 1..=hi + 2 {
            let mut n = DVec3::ZERO;
            n[axis] = 1.0;
            planes.find_or_insert(Plane::new(n, g as f64 * BLOCK_SIZE));
        }
    }
    let vb = world_box();
    for axis in 0..3 {
        let mut n = DVec3::ZERO;
        n[axis] = 1.0;
        planes.find_or_insert(Plane::new(n, vb.maxs[axis]));
        planes.find_or_insert(Plane::new(-n, -vb.mins[axis]));
    }
}

/// The box every tree's volume starts as: Source's whole coordinate range and a block
/// more, so every point of a map (and of Valve's trees) has a leaf around it.
fn world_box() -> Bounds {
    let r = crate::brush::MAX_COORD + BLOCK_SIZE;
    Bounds::new(DVec3::splat(-r), DVec3::splat(r))
}

/// How a node of the tree being built is made.
enum NodeSplit {
    /// Split on the plane; the children's block states.
    Plane(PlaneId, [BlockState; 2]),
    /// A leaf of the node's brushes.
    Leaf,
    /// A leaf of these contents and no brushes: a block of Valve's block tree.
    BlockLeaf(u32),
}

/// The counts [`Builder::split_value`] scores a candidate plane by.
#[derive(Default)]
struct PlaneCounts {
    front: i64,
    back: i64,
    facing: i64,
    splits: i64,
    hintsplit: bool,
    eps_brushes: i64,
}

impl Builder<'_> {
    /// Valve's BlockTree covers the map's blocks and a ring of empty blocks around them.
    fn head_state(&self) -> BlockState {
        match self.blocks {
            Some([(xl, xh), (yl, yh)]) => BlockState::Range {
                x: (xl - 1, xh + 1),
                y: (yl - 1, yh + 1),
            },
            None => BlockState::Inside,
        }
    }

    fn build_r(&self, brushes: Vec<BBrush>, volume: Option<BBrush>, depth: u32, state: BlockState) -> Built {
        let brushes = self.block_brushes(brushes, state);
        let bounds = volume.as_ref().map(|v| v.bounds).unwrap_or(Bounds::EMPTY);
        let (pnum, child_states) = match self.node_split(&brushes, volume.as_ref(), depth, state) {
            NodeSplit::Plane(pnum, child_states) => (pnum, child_states),
            NodeSplit::Leaf => return leaf_from(brushes, bounds),
            NodeSplit::BlockLeaf(contents) => {
                return Built::Leaf {
                    contents,
                    brushes: Vec::new(),
                    bounds,
                };
            }
        };
        let (front, back) = self.partition(brushes, pnum);
        let (vf, vb) = match volume {
            Some(v) => v.split(self.planes, pnum),
            None => (None, None),
        };
        let children = self.build_children([(front, vf), (back, vb)], depth + 1, child_states);
        Built::Node {
            plane: pnum,
            bounds,
            children: Box::new(children),
        }
    }

    /// Build the front and back children from their brushes and volumes, in parallel when
    /// they hold many brushes.
    fn build_children(
        &self,
        [(front, vf), (back, vb)]: [(Vec<BBrush>, Option<BBrush>); 2],
        depth: u32,
        child_states: [BlockState; 2],
    ) -> [Built; 2] {
        let (c0, c1) = if front.len() + back.len() > PARALLEL_BRUSHES {
            rayon::join(
                || self.build_r(front, vf, depth, child_states[0]),
                || self.build_r(back, vb, depth, child_states[1]),
            )
        } else {
            (
                self.build_r(front, vf, depth, child_states[0]),
                self.build_r(back, vb, depth, child_states[1]),
            )
        };
        [c0, c1]
    }

    /// How to make a node: halve a block range, settle a single block, or choose a
    /// splitting plane among the brushes (a leaf when none is left or too deep).
    fn node_split(
        &self,
        brushes: &[BBrush],
        volume: Option<&BBrush>,
        depth: u32,
        state: BlockState,
    ) -> NodeSplit {
        match state {
            BlockState::Range { x, y } if x.0 != x.1 || y.0 != y.1 => self.halve_blocks(x, y),
            BlockState::Range { x, y } => {
                let [(xl, xh), (yl, yh)] = self.blocks.unwrap_or_default();
                let ring = x.0 < xl || x.0 > xh || y.0 < yl || y.0 > yh;
                if ring {
                    // The ring around the map: an empty leaf.
                    return NodeSplit::BlockLeaf(0);
                }
                if brushes.is_empty() {
                    // Valve makes a block without brushes one solid leaf.
                    return NodeSplit::BlockLeaf(CONTENTS_SOLID);
                }
                self.brush_split(brushes, volume)
            }
            BlockState::Inside if brushes.is_empty() || depth > 400 => NodeSplit::Leaf,
            BlockState::Inside => self.brush_split(brushes, volume),
        }
    }

    /// The brushes of one block of the map, as Valve's vbsp builds the block's own tree:
    /// the map brushes clipped to the block, newest first, carved apart (`ProcessBlock`).
    /// Other states keep their brushes.
    fn block_brushes(&self, mut brushes: Vec<BBrush>, state: BlockState) -> Vec<BBrush> {
        let BlockState::Range { x, y } = state else {
            return brushes;
        };
        if x.0 != x.1 || y.0 != y.1 || brushes.is_empty() {
            return brushes;
        }
        // Each map brush has at most one piece in a block: only block planes cut it so far.
        brushes.sort_by_key(|b| std::cmp::Reverse(b.orig));
        chop(self.planes, brushes)
    }

    /// Valve's BlockTree: halve the longer block range on a grid line.
    fn halve_blocks(&self, x: (i64, i64), y: (i64, i64)) -> NodeSplit {
        let (axis, (lo, hi)) = if x.1 - x.0 > y.1 - y.0 { (0, x) } else { (1, y) };
        let mid = lo + (hi - lo) / 2 + 1;
        let (front, back) = ((mid, hi), (lo, mid - 1));
        let child_states = if axis == 0 {
            [
                BlockState::Range { x: front, y },
                BlockState::Range { x: back, y },
            ]
        } else {
            [
                BlockState::Range { x, y: front },
                BlockState::Range { x, y: back },
            ]
        };
        let mut n = DVec3::ZERO;
        n[axis] = 1.0;
        match self.planes.find(&Plane::new(n, mid as f64 * BLOCK_SIZE)) {
            Some(pnum) => NodeSplit::Plane(pnum, child_states),
            None => NodeSplit::Leaf,
        }
    }

    /// The best side plane of the brushes to split on; a leaf when there is none.
    fn brush_split(&self, brushes: &[BBrush], volume: Option<&BBrush>) -> NodeSplit {
        match self.select_split(brushes, volume) {
            Some(pnum) => NodeSplit::Plane(pnum, [BlockState::Inside; 2]),
            None => NodeSplit::Leaf,
        }
    }

    /// The brushes (or their pieces) in front of and behind `pnum`, their sides on the
    /// node plane marked.
    fn partition(&self, brushes: Vec<BBrush>, pnum: PlaneId) -> (Vec<BBrush>, Vec<BBrush>) {
        let mut front = Vec::with_capacity(brushes.len());
        let mut back = Vec::with_capacity(brushes.len());
        for b in brushes {
            let (side, ..) = b.test_plane(self.planes, pnum);
            if side == PSIDE_BOTH {
                let (f, bk) = b.split(self.planes, pnum);
                if let Some(f) = f {
                    front.push(mark_node_plane(f, pnum));
                }
                if let Some(bk) = bk {
                    back.push(mark_node_plane(bk, pnum));
                }
            } else if side & PSIDE_FRONT != 0 {
                front.push(mark_node_plane(b, pnum));
            } else {
                back.push(mark_node_plane(b, pnum));
            }
        }
        // Valve's SplitBrushList builds each child's list by prepending: the order is
        // reversed, and the first best plane wins ties in `select_split`.
        front.reverse();
        back.reverse();
        (front, back)
    }

    /// Valve's `SelectSplitSide`: try each side plane of the node's brushes, visible ones
    /// first, scoring facing brushes up and splits and imbalance down, axial preferred,
    /// hints never split except by hints, water first.
    fn select_split(&self, brushes: &[BBrush], volume: Option<&BBrush>) -> Option<PlaneId> {
        let mut tested = PlaneBits::new(self.planes.len());
        let masks = PairMasks::new(brushes);
        for pass in 0..2 {
            if let Some(p) = self.best_split_in_pass(brushes, &masks, volume, pass, &mut tested) {
                return Some(p);
            }
        }
        None
    }

    /// The best-scoring plane among the candidate sides of `pass` whose planes were not
    /// `tested` yet and that cut the node's volume; the planes tried join `tested`.
    fn best_split_in_pass(
        &self,
        brushes: &[BBrush],
        masks: &PairMasks,
        volume: Option<&BBrush>,
        pass: u32,
        tested: &mut PlaneBits,
    ) -> Option<PlaneId> {
        let mut best: Option<(i64, PlaneId)> = None;
        for side in brushes.iter().flat_map(|b| &b.sides) {
            if !is_split_candidate(side, pass) {
                continue;
            }
            let pnum = side.plane.positive();
            if !tested.insert(pnum) {
                continue;
            }
            if let Some(v) = volume
                && !plane_cuts_volume(self.planes, v, pnum)
            {
                continue;
            }
            let value = self.split_value(brushes, masks, pnum, side.flags);
            if best.is_none_or(|(bv, _)| value > bv) {
                best = Some((value, pnum));
            }
        }
        best.map(|(_, p)| p)
    }

    /// The score of splitting the brushes on `pnum`, the plane of a side with `flags`.
    #[inline]
    fn split_value(&self, brushes: &[BBrush], masks: &PairMasks, pnum: PlaneId, flags: u8) -> i64 {
        let c = self.plane_counts(brushes, masks, pnum);
        let mut value = 5 * c.facing - 5 * c.splits - (c.front - c.back).abs();
        if self.planes.plane_type(pnum).is_axial() {
            value += 5;
        }
        value -= c.eps_brushes * 1000;
        if c.hintsplit && flags & F_HINT == 0 {
            value = -9_999_999;
        }
        if flags & F_WATER != 0 {
            value = 9_999_999;
        }
        value
    }

    /// Each brush tested against `pnum`, counted.
    #[inline]
    fn plane_counts(&self, brushes: &[BBrush], masks: &PairMasks, pnum: PlaneId) -> PlaneCounts {
        let mut c = PlaneCounts::default();
        for (i, test) in brushes.iter().enumerate() {
            let result = if masks.may_face(i, pnum) {
                test.test_plane(self.planes, pnum)
            } else {
                test.test_unfaced_plane(self.planes, pnum)
            };
            c.count(result);
        }
        c
    }
}

impl PlaneCounts {
    /// Adds one brush's [`BBrush::test_plane`] result.
    #[inline]
    fn count(&mut self, (side, splits, hint, eps): (u8, u32, bool, bool)) {
        self.splits += splits as i64;
        self.hintsplit |= hint;
        self.eps_brushes += eps as i64;
        self.facing += i64::from(side & PSIDE_FACING != 0);
        self.front += i64::from(side & PSIDE_FRONT != 0);
        self.back += i64::from(side & PSIDE_BACK != 0);
    }
}

/// The plane pairs a node's split search has tried, one bit per pair: the search asks once per
/// candidate side, and a list searched each time cost O(sides x planes) at the top nodes.
struct PlaneBits {
    words: Vec<u64>,
}

impl PlaneBits {
    /// Room for the pairs of a plane set of `plane_count` planes, none tried.
    fn new(plane_count: usize) -> Self {
        PlaneBits {
            words: vec![0; plane_count / 128 + 1],
        }
    }

    /// Marks `pnum`'s pair tried; whether it was new.
    #[inline]
    fn insert(&mut self, pnum: PlaneId) -> bool {
        let pair = (pnum.0 >> 1) as usize;
        let (word, bit) = (pair / 64, 1u64 << (pair % 64));
        if word >= self.words.len() {
            self.words.resize(word + 1, 0);
        }
        let new = self.words[word] & bit == 0;
        self.words[word] |= bit;
        new
    }
}

/// Sides on the node plane can never split again below it.
#[inline]
fn mark_node_plane(mut b: BBrush, pnum: PlaneId) -> BBrush {
    for s in &mut b.sides {
        if s.plane.positive() == pnum {
            s.flags |= F_NODE;
        }
    }
    b
}

/// Whether a side may split in pass `pass` (0: visible sides, 1: the others): it has a
/// polygon and is no bevel, node, skip or detail side (detail is merged in afterwards).
#[inline]
fn is_split_candidate(side: &BSide, pass: u32) -> bool {
    if side.flags & (F_BEVEL | F_NODE | F_SKIP) != 0 || side.winding.is_none() {
        return false;
    }
    if side.flags & F_DETAIL != 0 {
        return false;
    }
    let visible = side.flags & F_VISIBLE != 0;
    visible == (pass == 0)
}

/// Does the plane divide the node's volume into two real parts?
fn plane_cuts_volume(planes: &PlaneSet, volume: &BBrush, pnum: PlaneId) -> bool {
    let plane = planes.get(pnum);
    let (mut front, mut back) = (false, false);
    for w in volume.sides.iter().filter_map(|s| s.winding.as_ref()) {
        for &p in &w.points {
            let d = plane.distance(p);
            front |= d > SPLIT_EPS;
            back |= d < -SPLIT_EPS;
        }
    }
    front && back
}

/// Valve's `LeafNode`: contents are the union of the brushes', except that a solid brush
/// whose every side lies on a node plane fills the leaf.
fn leaf_from(brushes: Vec<BBrush>, bounds: Bounds) -> Built {
    let mut contents = 0;
    for b in &brushes {
        if b.contents & CONTENTS_SOLID != 0
            && b.sides
                .iter()
                .all(|s| s.flags & F_NODE != 0 || s.winding.is_none())
        {
            contents = CONTENTS_SOLID;
            break;
        }
        contents |= b.contents;
    }
    // Node volumes never reach a leaf: every brush here is a map brush's piece.
    let mut ids: Vec<BrushId> = brushes.iter().filter_map(|b| b.orig).collect();
    ids.sort_unstable();
    ids.dedup();
    Built::Leaf {
        contents,
        brushes: ids,
        bounds,
    }
}

// ---- CSG ----------------------------------------------------------------------------

/// Contents that see through each other and may cut each other.
const TRANSPARENT_CONTENTS: u32 = CONTENTS_WINDOW | CONTENTS_GRATE | CONTENTS_WATER | CONTENTS_SLIME;

/// Valve's `BrushGE`: may `a` bite (carve) `b`?
fn brush_ge(a: &BBrush, b: &BBrush) -> bool {
    if b.contents & (CONTENTS_WATER | CONTENTS_SLIME) != 0 && a.contents & CONTENTS_AREAPORTAL != 0 {
        return true;
    }
    if a.contents & CONTENTS_DETAIL != 0 && b.contents & CONTENTS_DETAIL == 0 {
        return false;
    }
    if a.contents & CONTENTS_SOLID != 0 {
        return true;
    }
    a.contents & TRANSPARENT_CONTENTS != 0 && b.contents & TRANSPARENT_CONTENTS != 0
}

/// Valve's `BrushesDisjoint`: boxes apart (touching counts as apart) or facing planes.
fn disjoint(a: &BBrush, b: &BBrush) -> bool {
    for i in 0..3 {
        if a.bounds.mins[i] >= b.bounds.maxs[i] || a.bounds.maxs[i] <= b.bounds.mins[i] {
            return true;
        }
    }
    a.sides
        .iter()
        .any(|s| b.sides.iter().any(|t| s.plane == t.plane.flipped()))
}

enum Subtracted {
    /// The brushes do not really intersect.
    Apart,
    /// `a` lies wholly inside `b`.
    Swallowed,
    /// The parts of `a` outside `b`.
    Pieces(Vec<BBrush>),
}

/// `a - b` (Valve's `SubtractBrush`): cut `a` by each side of `b`, keeping what is in front.
fn subtract(planes: &PlaneSet, a: &BBrush, b: &BBrush) -> Subtracted {
    let mut out = Vec::new();
    let mut inside = Some(a.clone());
    for s in &b.sides {
        let Some(cur) = inside.take() else { break };
        let (front, back) = cur.split(planes, s.plane);
        out.extend(front);
        inside = back;
    }
    match inside {
        None => Subtracted::Apart,
        Some(_) if out.is_empty() => Subtracted::Swallowed,
        Some(_) => Subtracted::Pieces(out),
    }
}

/// The brushes of `ids` in the order of Valve's `MakeBspBrushList`, which prepends each
/// map brush: the last first. The order decides ties between equally good split planes.
fn valve_list_order(ids: &[BrushId], make: impl Fn(BrushId) -> BBrush) -> Vec<BBrush> {
    ids.iter().rev().map(|&i| make(i)).collect()
}

/// Valve's `ChopBrushes`: carve intersecting brushes into non-intersecting pieces, a
/// stronger brush (solid over non-solid, structural over detail) biting a weaker one,
/// and only where that does not fragment both. The order of the result is Valve's (its
/// linked lists rebuilt by prepending), since it decides ties when the tree is built.
fn chop(planes: &PlaneSet, list: Vec<BBrush>) -> Vec<BBrush> {
    let mut keep = Vec::with_capacity(list.len());
    // A deque, so that a kept brush leaves the front without moving all the others.
    let mut list = std::collections::VecDeque::from(list);
    while !list.is_empty() {
        let Some((gone, pieces)) = carve_first(planes, list.make_contiguous()) else {
            // The first brush intersects nothing after it any more: keep it.
            keep.extend(list.pop_front());
            continue;
        };
        // Valve restarts from a list rebuilt by prepending: the rest, the pieces
        // appended, the carved brush left out, all reversed.
        list.extend(pieces);
        list.remove(gone);
        list.make_contiguous().reverse();
    }
    keep.reverse();
    keep
}

/// Carve the first brush of `list` with the first later brush it really intersects where
/// one may bite the other: the index of the brush to drop and the pieces that replace it;
/// `None` when it intersects nothing.
fn carve_first(planes: &PlaneSet, list: &[BBrush]) -> Option<(usize, Vec<BBrush>)> {
    (1..list.len())
        .filter(|&j| !disjoint(&list[0], &list[j]))
        .find_map(|j| {
            let (first_goes, pieces) = carve_pair(planes, &list[0], &list[j])?;
            Some((if first_goes { 0 } else { j }, pieces))
        })
}

/// What biting one brush with another gives.
enum Bite {
    /// The biter may not bite the victim.
    NotAllowed,
    /// The brushes do not really intersect.
    Apart,
    /// The victim was wholly inside the biter.
    Swallowed,
    /// The victim's parts outside the biter, in Valve's order (last cut first).
    Pieces(Vec<BBrush>),
}

/// `victim - biter` when the biter may bite the victim.
fn bite(planes: &PlaneSet, victim: &BBrush, biter: &BBrush) -> Bite {
    if !brush_ge(biter, victim) {
        return Bite::NotAllowed;
    }
    match subtract(planes, victim, biter) {
        Subtracted::Apart => Bite::Apart,
        Subtracted::Swallowed => Bite::Swallowed,
        Subtracted::Pieces(mut p) => {
            p.reverse();
            Bite::Pieces(p)
        }
    }
}

/// Carve brushes `a` and `b`: each bites the other where it may; the brush that falls
/// into fewer pieces is replaced by them (a swallowed one by none), unless both would
/// fragment (detail and areaportal pairs excepted). `Some((true, pieces))` replaces `a`,
/// `Some((false, pieces))` replaces `b`; `None` leaves both.
fn carve_pair(planes: &PlaneSet, a: &BBrush, b: &BBrush) -> Option<(bool, Vec<BBrush>)> {
    let sub = match bite(planes, a, b) {
        Bite::Apart => return None,
        Bite::Swallowed => return Some((true, Vec::new())),
        Bite::Pieces(p) => Some(p),
        Bite::NotAllowed => None,
    };
    let sub2 = match bite(planes, b, a) {
        Bite::Apart => return None,
        Bite::Swallowed => return Some((false, Vec::new())),
        Bite::Pieces(p) => Some(p),
        Bite::NotAllowed => None,
    };
    if sub.is_none() && sub2.is_none() {
        return None;
    }
    let c1 = sub.as_ref().map_or(usize::MAX, Vec::len);
    let c2 = sub2.as_ref().map_or(usize::MAX, Vec::len);
    let (ca, cb) = (a.contents, b.contents);
    if c1 > 1 && c2 > 1 && (ca & cb) & CONTENTS_DETAIL == 0 && (ca | cb) & CONTENTS_AREAPORTAL == 0 {
        return None;
    }
    Some(if c1 < c2 {
        (true, sub.unwrap_or_default())
    } else {
        (false, sub2.unwrap_or_default())
    })
}

/// One piece of a carved detail brush: the original brush, and the original sides it
/// still has, with their polygons.
pub struct DetailPiece {
    pub orig: BrushId,
    pub contents: u32,
    pub bounds: Bounds,
    /// (original side index, plane, polygon); cuts are left out.
    pub sides: Vec<(u32, PlaneId, Winding)>,
    /// Every plane bounding the piece (cuts included), bevels flagged.
    pub planes: Vec<(PlaneId, bool)>,
}

/// Carve the detail brushes against each other (Valve's `ChopBrushes` on the detail list
/// in `MergeDetailTree`).
pub fn chop_detail(planes: &PlaneSet, brushes: &[Brush], ids: &[BrushId]) -> Vec<DetailPiece> {
    let list = valve_list_order(ids, |i| BBrush::from_brush(i, &brushes[i.idx()], Pass::First));
    chop(planes, list)
        .into_iter()
        .map(|b| DetailPiece {
            orig: b.orig.expect("detail pieces come from map brushes"),
            contents: b.contents,
            bounds: b.bounds,
            sides: b
                .sides
                .iter()
                .filter_map(|s| Some((s.orig_side?, s.plane, s.winding.clone()?)))
                .collect(),
            planes: b
                .sides
                .iter()
                .map(|s| (s.plane, s.flags & F_BEVEL != 0))
                .collect(),
        })
        .collect()
}

/// The non-solid leaves a brush reaches when split down the tree (Valve's `MergeBrush_r`):
/// where a detail brush is filed for collision.
pub fn brush_leaves(tree: &Tree, planes: &PlaneSet, brush: &Brush, idx: BrushId) -> Vec<NodeId> {
    let mut out = Vec::new();
    let mut stack = vec![(tree.head, BBrush::from_brush(idx, brush, Pass::First))];
    while let Some((n, b)) = stack.pop() {
        let node = tree.node(n);
        let Some(pnum) = node.plane else {
            if node.contents & CONTENTS_SOLID == 0 {
                out.push(n);
            }
            continue;
        };
        let (f, bk) = b.split(planes, pnum);
        if let Some(f) = f {
            stack.push((node.children[0], f));
        }
        if let Some(bk) = bk {
            stack.push((node.children[1], bk));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn box_brush(planes: &mut PlaneSet, lo: [f64; 3], hi: [f64; 3], contents: u32) -> BBrush {
        let b = Bounds::new(DVec3::from(lo), DVec3::from(hi));
        let mut ids = [PlaneId(0); 6];
        for axis in 0..3 {
            let mut n = DVec3::ZERO;
            n[axis] = 1.0;
            ids[axis * 2] = planes.find_or_insert(Plane::new(n, hi[axis])).unwrap();
            ids[axis * 2 + 1] = planes.find_or_insert(Plane::new(-n, -lo[axis])).unwrap();
        }
        let mut brush = BBrush::from_bounds(planes, &ids, b);
        brush.contents = contents;
        for s in &mut brush.sides {
            s.flags = F_VISIBLE;
        }
        brush
    }

    #[test]
    fn chop_carves_overlaps() {
        let mut planes = PlaneSet::new();
        let a = box_brush(&mut planes, [0.0; 3], [64.0; 3], CONTENTS_SOLID);
        let b = box_brush(&mut planes, [32.0, 0.0, 0.0], [96.0, 64.0, 64.0], CONTENTS_SOLID);
        let inner = box_brush(&mut planes, [8.0; 3], [16.0; 3], CONTENTS_SOLID);
        let water = box_brush(&mut planes, [0.0, 0.0, 0.0], [64.0, 64.0, 128.0], CONTENTS_WATER);
        let out = chop(&planes, vec![a, b, inner, water]);
        // The inner box is swallowed; one of the overlapping pair is cut to its outside
        // part; the water keeps only what is above the solid.
        let vol: f64 = out
            .iter()
            .filter(|b| b.contents == CONTENTS_SOLID)
            .map(|b| b.volume(&planes))
            .sum();
        assert!((vol - 96.0 * 64.0 * 64.0).abs() < 1.0, "solid volume {vol}");
        let water: f64 = out
            .iter()
            .filter(|b| b.contents == CONTENTS_WATER)
            .map(|b| b.volume(&planes))
            .sum();
        assert!((water - 64.0 * 64.0 * 64.0).abs() < 1.0, "water volume {water}");
        for (i, x) in out.iter().enumerate() {
            for y in &out[i + 1..] {
                assert!(
                    disjoint(x, y) || matches!(subtract(&planes, x, y), Subtracted::Apart),
                    "pieces overlap"
                );
            }
        }
    }
}
