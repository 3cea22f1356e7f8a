//! Portals between the leaves of a tree, the flood from entities that finds the inside,
//! leak paths, and filling the outside (Valve's portals.cpp, in our own arenas).

use std::collections::VecDeque;

use srcmap_geom::{DVec3, Plane, PlaneSet, Winding};

use crate::brush::Brush;
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

impl Portals {
    /// A new portal goes at the head of both nodes' lists, as Valve's linked lists have it:
    /// the order of a leaf's list decides the order faces are made and so how they merge.
    fn add(&mut self, tree: &mut Tree, p: Portal) -> u32 {
        let id = self.portals.len() as u32;
        for n in p.nodes {
            tree.nodes[n.idx()].portals.insert(0, id);
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
    // The box around the map, portals between the head node and the outside.
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
                w = w.and_then(|w| w.clip_front(other, 0.1, false));
            }
        }
        if let Some(w) = w {
            portals.add(
                tree,
                Portal {
                    plane: *pl,
                    on_node: None,
                    nodes: [tree.head, tree.outside],
                    winding: w,
                    side: None,
                },
            );
        }
    }
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

fn make_node_portal(
    tree: &mut Tree,
    planes: &PlaneSet,
    portals: &mut Portals,
    n: NodeId,
    pnum: srcmap_geom::PlaneId,
) {
    let plane = *planes.get(pnum);
    let mut w = Some(Winding::base_for_plane(&plane));
    // Clip by every portal bounding this node: what remains is the node's cross-section.
    for &pid in &tree.nodes[n.idx()].portals {
        let Some(cur) = w else { break };
        let p = &portals.portals[pid as usize];
        let keep = if p.nodes[0] == n {
            p.plane
        } else {
            p.plane.flipped()
        };
        w = cur.clip_front(&keep, 0.1, false);
    }
    let Some(w) = w else { return };
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

fn split_node_portals(
    tree: &mut Tree,
    planes: &PlaneSet,
    portals: &mut Portals,
    n: NodeId,
    pnum: srcmap_geom::PlaneId,
) {
    let plane = *planes.get(pnum);
    let [front, back] = tree.nodes[n.idx()].children;
    let list = std::mem::take(&mut tree.nodes[n.idx()].portals);
    for pid in list {
        let p = portals.portals[pid as usize].clone();
        let side = if p.nodes[0] == n { 0 } else { 1 };
        let other = p.nodes[1 - side];
        // Detach from both nodes; re-attach the pieces to the children.
        tree.nodes[other.idx()].portals.retain(|&q| q != pid);
        portals.alive[pid as usize] = false;
        let (fw, bw) = match p.winding.split(&plane, 0.001) {
            // On the plane: should not happen for a portal of a parent; keep by facing.
            (None, None) => {
                if p.plane.normal.dot(plane.normal) > 0.0 {
                    (Some(p.winding.clone()), None)
                } else {
                    (None, Some(p.winding.clone()))
                }
            }
            fb => fb,
        };
        let fw = fw.filter(|w| !w.is_tiny(TINY_EDGE));
        let bw = bw.filter(|w| !w.is_tiny(TINY_EDGE));
        for (w, child) in [(fw, front), (bw, back)] {
            let Some(w) = w else { continue };
            let mut nodes = p.nodes;
            nodes[side] = child;
            portals.add(
                tree,
                Portal {
                    winding: w,
                    nodes,
                    ..p.clone()
                },
            );
        }
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
    let mut queue = VecDeque::new();
    for &FloodSource {
        entity: ent,
        origin,
        player_start,
    } in origins
    {
        let mut o = origin;
        o.z += 1.0; // entities on the floor are inside
        let offsets: &[(f64, f64)] = if player_start {
            &[
                (-16.0, -16.0),
                (-16.0, 0.0),
                (-16.0, 16.0),
                (0.0, -16.0),
                (0.0, 0.0),
                (0.0, 16.0),
                (16.0, -16.0),
                (16.0, 0.0),
                (16.0, 16.0),
            ]
        } else {
            &[(0.0, 0.0)]
        };
        for &(x, y) in offsets {
            let leaf = tree.leaf_at(planes, o + DVec3::new(x, y, 0.0));
            let node = &mut tree.nodes[leaf.idx()];
            if node.contents & CONTENTS_SOLID != 0 {
                continue;
            }
            if node.occupied == 0 {
                node.occupied = 1;
                node.occupant = Some(ent);
                queue.push_back(leaf);
            }
            break;
        }
    }
    if queue.is_empty() {
        return Flood::NoEntities;
    }
    // Breadth first, so `occupied` is the distance and the leak line is a shortest path.
    while let Some(n) = queue.pop_front() {
        let (dist, occupant) = (tree.nodes[n.idx()].occupied, tree.nodes[n.idx()].occupant);
        for pi in tree.nodes[n.idx()].portals.clone() {
            let p = &portals.portals[pi as usize];
            let other = if p.nodes[0] == n { p.nodes[1] } else { p.nodes[0] };
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
    let out = &tree.nodes[tree.outside.idx()];
    if out.occupied == 0 {
        return Flood::Sealed;
    }
    // Walk from the void down the distances to the entity, through portal centres.
    let entity = out.occupant.unwrap_or(0);
    let mut path = Vec::new();
    let mut n = tree.outside;
    while tree.nodes[n.idx()].occupied > 1 {
        let cur = tree.nodes[n.idx()].occupied;
        let mut step = None;
        for &pi in &tree.nodes[n.idx()].portals {
            let p = &portals.portals[pi as usize];
            let other = if p.nodes[0] == n { p.nodes[1] } else { p.nodes[0] };
            let occ = tree.nodes[other.idx()].occupied;
            if occ != 0 && occ < cur && entity_passable(tree, p) {
                step = Some((other, p.winding.center()));
                break;
            }
        }
        let Some((next, mid)) = step else { break };
        path.push(mid);
        n = next;
    }
    let origin = origins
        .iter()
        .find(|o| o.entity == entity)
        .map(|o| o.origin)
        .unwrap_or_default();
    path.push(origin);
    Flood::Leak { entity, path }
}

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
        let mut best: Option<SideRef> = None;
        let mut best_dist = f64::INFINITY;
        'search: for n in [a, b] {
            for &bi in &tree.nodes[n.idx()].brushes {
                let brush = &brushes[bi.idx()];
                if brush.contents & vis == 0 {
                    continue;
                }
                for (si, s) in brush.sides.iter().enumerate() {
                    if s.bevel {
                        continue;
                    }
                    if s.plane.positive() == pnum {
                        best = Some(SideRef {
                            brush: bi,
                            side: si as u32,
                        });
                        break 'search;
                    }
                    let pl = planes.get(s.plane);
                    let dist: f64 = p.winding.points.iter().map(|&q| pl.distance(q).abs()).sum();
                    if dist < best_dist {
                        best_dist = dist;
                        best = Some(SideRef {
                            brush: bi,
                            side: si as u32,
                        });
                    }
                }
            }
        }
        portals.portals[i].side = best;
        found.extend(best);
    }
    found
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
