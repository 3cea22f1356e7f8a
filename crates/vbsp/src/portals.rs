//! Portals between the leaves of a tree, the flood from entities that finds the inside,
//! leak paths, and filling the outside (Valve's portals.cpp, in our own arenas).

use std::collections::VecDeque;

use srcmap_geom::{DVec3, Plane, PlaneSet, Winding};

use crate::brush::{Brush, BrushSide};
use crate::contents::*;
use crate::ids::SideRef;
use crate::tree::{NodeId, Tree};

/// Portal polygons with an edge shorter than this count as degenerate.
const TINY_EDGE: f64 = 0.2;
/// Head node portals sit this far outside the map's bounds (q2's `SIDESPACE`).
const SIDESPACE: f64 = 8.0;

#[derive(Debug, Clone)]
pub struct Portal {
    pub plane: Plane,
    /// The node whose plane this portal lies on; `None` for the box around the map.
    pub on_node: Option<NodeId>,
    /// `nodes[0]` is in front of `plane`.
    pub nodes: [NodeId; 2],
    pub winding: Winding,
    /// The brush side this portal shows, when it separates different visible contents.
    pub side: Option<SideRef>,
}

#[derive(Debug, Clone, Default)]
pub struct Portals {
    pub portals: Vec<Portal>,
    pub alive: Vec<bool>,
}

/// The room a node's portal list starts with.
const NODE_PORTALS: usize = 8;

impl Portals {
    /// A new portal goes at the head of both nodes' lists, as Valve's linked lists have it:
    /// the order of a leaf's list decides the order faces are made and so how they merge.
    fn add(&mut self, tree: &mut Tree, p: Portal) -> u32 {
        let id = self.portals.len() as u32;
        for n in p.nodes {
            let list = &mut tree.nodes[n.idx()].portals;
            if list.capacity() == 0 {
                // A leaf has a handful of portals: room for them at once, not by doubling.
                list.reserve_exact(NODE_PORTALS);
            }
            list.insert(0, id);
        }
        self.portals.push(p);
        self.alive.push(true);
        id
    }

    /// Live portals.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &Portal)> {
        self.portals
            .iter()
            .enumerate()
            .filter(|(i, _)| self.alive[*i])
            .map(|(i, p)| (i as u32, p))
    }
}

/// Build the portals of `tree` (Valve's `MakeTreePortals`).
pub fn make_portals(tree: &mut Tree, planes: &PlaneSet) -> Portals {
    let mut portals = Portals::default();
    for n in &mut tree.nodes {
        n.portals.clear();
    }
    add_box_portals(tree, &mut portals);
    // Depth-first, front child first: each node makes its own portal and splits its
    // inherited ones.
    let mut stack = vec![tree.head];
    while let Some(n) = stack.pop() {
        let Some(pnum) = tree.nodes[n.idx()].plane else {
            continue;
        };
        make_node_portal(tree, planes, &mut portals, n, pnum);
        split_node_portals(tree, planes, &mut portals, n, pnum);
        let [front, back] = tree.nodes[n.idx()].children;
        stack.extend([back, front]);
    }
    portals
}

/// The box around the map ([`SIDESPACE`] out from its bounds): portals between the head
/// node and the outside.
fn add_box_portals(tree: &mut Tree, portals: &mut Portals) {
    let b = tree.bounds.expanded(SIDESPACE);
    let mut box_planes = Vec::new();
    for axis in 0..3 {
        let mut n = DVec3::ZERO;
        n[axis] = 1.0;
        box_planes.push(Plane::new(n, b.mins[axis]));
        box_planes.push(Plane::new(-n, -b.maxs[axis]));
    }
    for (i, pl) in box_planes.iter().enumerate() {
        let mut w = Some(Winding::base_for_plane(pl));
        for (j, other) in box_planes.iter().enumerate() {
            if i != j {
                w = w.and_then(|w| w.into_front(other, 0.1, false));
            }
        }
        if let Some(w) = w {
            let portal = Portal {
                plane: *pl,
                on_node: None,
                nodes: [tree.head, tree.outside],
                winding: w,
                side: None,
            };
            portals.add(tree, portal);
        }
    }
}

/// The portal on node `n`'s plane between its children, unless it is tiny.
fn make_node_portal(
    tree: &mut Tree,
    planes: &PlaneSet,
    portals: &mut Portals,
    n: NodeId,
    pnum: srcmap_geom::PlaneId,
) {
    let plane = *planes.get(pnum);
    let Some(w) = node_cross_section(tree, portals, n, &plane) else {
        return;
    };
    if w.is_tiny(TINY_EDGE) {
        return;
    }
    let children = tree.nodes[n.idx()].children;
    portals.add(
        tree,
        Portal {
            plane,
            on_node: Some(n),
            nodes: children,
            winding: w,
            side: None,
        },
    );
}

/// The node's cross-section on `plane`: the plane's polygon clipped by every portal
/// bounding the node.
fn node_cross_section(tree: &Tree, portals: &Portals, n: NodeId, plane: &Plane) -> Option<Winding> {
    let mut w = Some(Winding::base_for_plane(plane));
    for &pid in &tree.nodes[n.idx()].portals {
        let Some(cur) = w else { break };
        let p = &portals.portals[pid as usize];
        let keep = if p.nodes[0] == n {
            p.plane
        } else {
            p.plane.flipped()
        };
        w = cur.into_front(&keep, 0.1, false);
    }
    w
}

/// Split the portals node `n` inherited by its plane onto its children.
fn split_node_portals(
    tree: &mut Tree,
    planes: &PlaneSet,
    portals: &mut Portals,
    n: NodeId,
    pnum: srcmap_geom::PlaneId,
) {
    let plane = *planes.get(pnum);
    let children = tree.nodes[n.idx()].children;
    let list = std::mem::take(&mut tree.nodes[n.idx()].portals);
    for pid in list {
        split_portal(tree, portals, pid, n, &plane, children);
    }
}

/// Replace portal `pid` of node `n` by its pieces in front of and behind `plane`, attached
/// to the node's `children` instead (tiny pieces dropped).
#[inline]
fn split_portal(
    tree: &mut Tree,
    portals: &mut Portals,
    pid: u32,
    n: NodeId,
    plane: &Plane,
    children: [NodeId; 2],
) {
    let p = &portals.portals[pid as usize];
    let side = if p.nodes[0] == n { 0 } else { 1 };
    // Detach from both nodes; re-attach the pieces to the children.
    let other = p.nodes[1 - side];
    // A portal is on each of its two (different) nodes' lists once: the search stops there.
    let other_list = &mut tree.nodes[other.idx()].portals;
    if let Some(at) = other_list.iter().position(|&q| q == pid) {
        other_list.remove(at);
    }
    // The portal is replaced: its polygon goes to the pieces.
    let winding = std::mem::take(&mut portals.portals[pid as usize].winding);
    let p = &portals.portals[pid as usize];
    let (fw, bw) = split_portal_winding(winding, &p.plane, plane);
    let fw = fw.filter(|w| !w.is_tiny(TINY_EDGE));
    let bw = bw.filter(|w| !w.is_tiny(TINY_EDGE));
    // The pieces share all but the polygon and one node with the portal they replace.
    let (p_plane, on_node, p_nodes, p_side) = (p.plane, p.on_node, p.nodes, p.side);
    portals.alive[pid as usize] = false;
    for (w, child) in [(fw, children[0]), (bw, children[1])] {
        let Some(w) = w else { continue };
        let mut nodes = p_nodes;
        nodes[side] = child;
        let piece = Portal {
            plane: p_plane,
            on_node,
            nodes,
            winding: w,
            side: p_side,
        };
        portals.add(tree, piece);
    }
}

/// A portal's polygon (on `portal_plane`) split by a node's plane. One lying on the plane
/// (which should not happen for a portal of a parent) goes to the side it faces.
#[inline]
fn split_portal_winding(
    winding: Winding,
    portal_plane: &Plane,
    plane: &Plane,
) -> (Option<Winding>, Option<Winding>) {
    match winding.into_split(plane, 0.001) {
        Ok(parts) => parts,
        Err(on) if portal_plane.normal.dot(plane.normal) > 0.0 => (Some(on), None),
        Err(on) => (None, Some(on)),
    }
}

/// Result of flooding from the entities.
#[derive(Debug, Clone)]
pub enum Flood {
    /// The inside was found and the void is sealed off.
    Sealed,
    /// No entity lies in open space (nothing to flood from).
    NoEntities,
    /// An entity reaches the void: the entity's index and the path from the void to it.
    Leak { entity: u32, path: Vec<DVec3> },
}

/// An entity the flood starts from.
#[derive(Debug, Clone, Copy)]
pub struct FloodSource {
    /// The entity's index in the map input.
    pub entity: u32,
    pub origin: DVec3,
    /// An `info_player_start`: nudged around as Valve does so that one in a wall still
    /// counts.
    pub player_start: bool,
}

/// Valve's `FloodEntities`: mark every leaf reachable through non-solid portals from an
/// entity's origin.
pub fn flood_entities(
    tree: &mut Tree,
    planes: &PlaneSet,
    portals: &Portals,
    origins: &[FloodSource],
) -> Flood {
    for n in &mut tree.nodes {
        n.occupied = 0;
        n.occupant = None;
    }
    let queue = occupy_start_leaves(tree, planes, origins);
    if queue.is_empty() {
        return Flood::NoEntities;
    }
    flood_from(tree, portals, queue);
    let out = &tree.nodes[tree.outside.idx()];
    if out.occupied == 0 {
        return Flood::Sealed;
    }
    let entity = out.occupant.unwrap_or(0);
    let mut path = leak_path(tree, portals);
    let origin = origins
        .iter()
        .find(|o| o.entity == entity)
        .map(|o| o.origin)
        .unwrap_or_default();
    path.push(origin);
    Flood::Leak { entity, path }
}

/// Occupy each entity's start leaf (the first entity in a leaf owns it): the leaves to
/// flood from.
fn occupy_start_leaves(tree: &mut Tree, planes: &PlaneSet, origins: &[FloodSource]) -> VecDeque<NodeId> {
    let mut queue = VecDeque::new();
    for source in origins {
        let Some(leaf) = start_leaf(tree, planes, source) else {
            continue;
        };
        let node = &mut tree.nodes[leaf.idx()];
        if node.occupied == 0 {
            node.occupied = 1;
            node.occupant = Some(source.entity);
            queue.push_back(leaf);
        }
    }
    queue
}

/// Where Valve tries an `info_player_start` around its origin, so that one in a wall still
/// counts.
const PLAYER_START_OFFSETS: [(f64, f64); 9] = [
    (-16.0, -16.0),
    (-16.0, 0.0),
    (-16.0, 16.0),
    (0.0, -16.0),
    (0.0, 0.0),
    (0.0, 16.0),
    (16.0, -16.0),
    (16.0, 0.0),
    (16.0, 16.0),
];

/// The leaf an entity floods from: the first non-solid leaf at its origin, a unit up
/// (entities on the floor are inside), or around it for a player start.
fn start_leaf(tree: &Tree, planes: &PlaneSet, source: &FloodSource) -> Option<NodeId> {
    let mut o = source.origin;
    o.z += 1.0; // entities on the floor are inside
    let offsets: &[(f64, f64)] = if source.player_start {
        &PLAYER_START_OFFSETS
    } else {
        &[(0.0, 0.0)]
    };
    offsets
        .iter()
        .map(|&(x, y)| tree.leaf_at(planes, o + DVec3::new(x, y, 0.0)))
        .find(|leaf| tree.nodes[leaf.idx()].contents & CONTENTS_SOLID == 0)
}

/// The node across portal `p` from `n`.
#[inline]
fn other_node(p: &Portal, n: NodeId) -> NodeId {
    if p.nodes[0] == n { p.nodes[1] } else { p.nodes[0] }
}

/// Breadth first from the queued leaves through passable portals, so `occupied` is the
/// distance and the leak line is a shortest path.
fn flood_from(tree: &mut Tree, portals: &Portals, mut queue: VecDeque<NodeId>) {
    while let Some(n) = queue.pop_front() {
        let (dist, occupant) = (tree.nodes[n.idx()].occupied, tree.nodes[n.idx()].occupant);
        for pi in tree.nodes[n.idx()].portals.clone() {
            let p = &portals.portals[pi as usize];
            let other = other_node(p, n);
            if !entity_passable(tree, p) {
                continue;
            }
            let o = &mut tree.nodes[other.idx()];
            if o.occupied == 0 {
                o.occupied = dist + 1;
                o.occupant = occupant;
                queue.push_back(other);
            }
        }
    }
}

/// The leak line without its entity end: from the void down the flood distances towards
/// the entity, through portal centres.
fn leak_path(tree: &Tree, portals: &Portals) -> Vec<DVec3> {
    let mut path = Vec::new();
    let mut n = tree.outside;
    while tree.nodes[n.idx()].occupied > 1 {
        let Some((next, mid)) = downhill_step(tree, portals, n) else {
            break;
        };
        path.push(mid);
        n = next;
    }
    path
}

/// The first passable portal of `n` to a flooded node nearer the entity: that node and
/// the portal's centre.
#[inline]
fn downhill_step(tree: &Tree, portals: &Portals, n: NodeId) -> Option<(NodeId, DVec3)> {
    let cur = tree.nodes[n.idx()].occupied;
    for &pi in &tree.nodes[n.idx()].portals {
        let p = &portals.portals[pi as usize];
        let other = other_node(p, n);
        let occ = tree.nodes[other.idx()].occupied;
        if occ != 0 && occ < cur && entity_passable(tree, p) {
            return Some((other, p.winding.center()));
        }
    }
    None
}

#[inline]
fn entity_passable(tree: &Tree, p: &Portal) -> bool {
    p.nodes
        .iter()
        .all(|n| tree.nodes[n.idx()].contents & CONTENTS_SOLID == 0)
}

/// Valve's `FillOutside`: leaves the flood did not reach become solid.
pub fn fill_outside(tree: &mut Tree) -> usize {
    let mut filled = 0;
    let leaves: Vec<NodeId> = tree.leaves().collect();
    for l in leaves {
        let n = &mut tree.nodes[l.idx()];
        if n.occupied == 0 && n.contents & CONTENTS_SOLID == 0 {
            n.contents = CONTENTS_SOLID;
            filled += 1;
        }
    }
    filled
}

/// Valve's `FindPortalSide` for every portal: the brush side a portal between different
/// visible contents shows, preferring a side exactly on the portal's plane. Marks those
/// sides visible in `brushes`.
pub fn find_portal_sides(tree: &Tree, planes: &PlaneSet, portals: &mut Portals, brushes: &mut [Brush]) {
    for s in portal_sides(tree, planes, portals, brushes) {
        brushes[s.brush.idx()].sides[s.side as usize].visible = true;
    }
}

/// [`find_portal_sides`] without marking: returns the sides found.
pub fn portal_sides(
    tree: &Tree,
    planes: &PlaneSet,
    portals: &mut Portals,
    brushes: &[Brush],
) -> Vec<SideRef> {
    let mut found = Vec::new();
    for i in 0..portals.portals.len() {
        if !portals.alive[i] {
            continue;
        }
        let p = &portals.portals[i];
        let Some(on) = p.on_node else { continue };
        let [a, b] = p.nodes;
        let vis = Contents(tree.nodes[a.idx()].contents ^ tree.nodes[b.idx()].contents)
            .visible()
            .0;
        if vis == 0 {
            continue;
        }
        let pnum = tree.nodes[on.idx()].plane.expect("portal on a node").positive();
        let best = portal_side(tree, planes, brushes, p, vis, pnum);
        portals.portals[i].side = best;
        found.extend(best);
    }
    found
}

/// The side portal `p` (on plane `pnum`) shows among the non-bevel sides of the brushes
/// with contents `vis` in its two leaves: the first exactly on its plane, else the one
/// nearest its points.
fn portal_side(
    tree: &Tree,
    planes: &PlaneSet,
    brushes: &[Brush],
    p: &Portal,
    vis: u32,
    pnum: srcmap_geom::PlaneId,
) -> Option<SideRef> {
    let mut best: Option<SideRef> = None;
    let mut best_dist = f64::INFINITY;
    for (side, s) in candidate_sides(tree, brushes, p, vis) {
        if s.plane.positive() == pnum {
            return Some(side);
        }
        let pl = planes.get(s.plane);
        let dist: f64 = p.winding.points.iter().map(|&q| pl.distance(q).abs()).sum();
        if dist < best_dist {
            best_dist = dist;
            best = Some(side);
        }
    }
    best
}

/// The non-bevel sides of the brushes with contents `vis` in portal `p`'s two leaves, in
/// leaf, brush and side order.
fn candidate_sides<'a>(
    tree: &'a Tree,
    brushes: &'a [Brush],
    p: &'a Portal,
    vis: u32,
) -> impl Iterator<Item = (SideRef, &'a BrushSide)> {
    let leaf_brushes = p.nodes.iter().flat_map(|n| &tree.nodes[n.idx()].brushes);
    leaf_brushes
        .filter(move |bi| brushes[bi.idx()].contents & vis != 0)
        .flat_map(move |&bi| {
            let sides = brushes[bi.idx()].sides.iter().enumerate();
            sides.filter(|(_, s)| !s.bevel).map(move |(si, s)| {
                let side = SideRef {
                    brush: bi,
                    side: si as u32,
                };
                (side, s)
            })
        })
}

/// Valve's `Portal_VisFlood`: can vis see through this portal? Detail and translucent
/// contents count as open.
pub fn portal_vis_flood(tree: &Tree, p: &Portal) -> bool {
    if p.on_node.is_none() {
        return false;
    }
    let mut c1 = tree.nodes[p.nodes[0].idx()].contents;
    let mut c2 = tree.nodes[p.nodes[1].idx()].contents;
    if Contents(c1 ^ c2).visible().0 == 0 {
        return c1 & CONTENTS_SOLID == 0;
    }
    if c1 & (CONTENTS_TRANSLUCENT | CONTENTS_DETAIL) != 0 {
        c1 = 0;
    }
    if c2 & (CONTENTS_TRANSLUCENT | CONTENTS_DETAIL) != 0 {
        c2 = 0;
    }
    if (c1 | c2) & CONTENTS_SOLID != 0 {
        return false;
    }
    c1 ^ c2 == 0 || Contents(c1 ^ c2).visible().0 == 0
}
