//! Areas: the inside of the map split at `func_areaportal` brushes (Valve's `FloodAreas`),
//! and the area portal records with their clip polygons.

use std::collections::HashMap;

use srcmap_bsp::{Area, AreaPortal};
use srcmap_geom::{DVec3, Plane};

use crate::brush::Brush;
use crate::contents::*;
use crate::diag::{Diagnostic, Where};
use crate::ids::BrushId;
use crate::portals::Portals;
use crate::tree::{NodeId, Tree};

/// One areaportal entity: its number and the areas on its two sides.
#[derive(Debug, Clone, Default)]
struct PortalEnt {
    number: u32,
    areas: [u32; 2],
    /// Portals from the areaportal's leaves into each side's area.
    leading: [Vec<u32>; 2],
}

#[derive(Default)]
pub struct Areas {
    /// Area of each tree node (leaves only; 0 = none).
    pub of_node: Vec<u32>,
    pub areas: Vec<Area>,
    pub portals: Vec<AreaPortal>,
    pub clip_verts: Vec<[f32; 3]>,
}

/// Flood areas through the leaves the entity flood reached, stopping at areaportal
/// leaves. `portal_number` maps an areaportal brush (index) to its entity's number.
pub fn flood_areas(
    tree: &Tree,
    portals: &Portals,
    brushes: &[Brush],
    portal_number: &HashMap<BrushId, u32>,
    plane_of: &dyn Fn(&Plane) -> Option<u32>,
    diags: &mut Vec<Diagnostic>,
) -> Areas {
    let mut flood = AreaFlood::new(tree, portals, portal_number, diags);
    for leaf in tree.leaves() {
        if flood.starts_area(leaf) {
            flood.count += 1;
            flood.flood_area(leaf);
        }
    }
    flood.assign_areaportal_leaves();
    let _ = brushes;
    let mut list: Vec<&PortalEnt> = flood.ents.values().filter(|e| e.areas[1] != 0).collect();
    list.sort_by_key(|e| e.number);
    let mut areas = area_records(portals, &list, flood.count, plane_of);
    areas.of_node = flood.of_node;
    areas
}

/// The state of the area flood: the area of each node so far and the areaportal
/// entities met, with the areas on their sides.
struct AreaFlood<'a> {
    tree: &'a Tree,
    portals: &'a Portals,
    portal_number: &'a HashMap<BrushId, u32>,
    of_node: Vec<u32>,
    ents: HashMap<u32, PortalEnt>,
    /// Areas numbered so far; the one being flooded is `count`.
    count: u32,
    diags: &'a mut Vec<Diagnostic>,
}

impl<'a> AreaFlood<'a> {
    fn new(
        tree: &'a Tree,
        portals: &'a Portals,
        portal_number: &'a HashMap<BrushId, u32>,
        diags: &'a mut Vec<Diagnostic>,
    ) -> AreaFlood<'a> {
        AreaFlood {
            tree,
            portals,
            portal_number,
            of_node: vec![0u32; tree.nodes.len()],
            ents: HashMap::new(),
            count: 0,
            diags,
        }
    }

    /// The areaportal entity number of an areaportal node, `None` for any other node.
    fn areaportal_of(&self, node: NodeId) -> Option<u32> {
        let nd = self.tree.node(node);
        if nd.contents & CONTENTS_AREAPORTAL == 0 {
            return None;
        }
        nd.brushes.iter().find_map(|b| self.portal_number.get(b).copied())
    }

    /// Whether a new area starts at this leaf: an occupied, non-solid leaf no area has
    /// reached yet that is not itself an areaportal.
    fn starts_area(&self, leaf: NodeId) -> bool {
        let nd = self.tree.node(leaf);
        !(self.of_node[leaf.idx()] != 0
            || nd.contents & CONTENTS_SOLID != 0
            || nd.occupied == 0
            || self.areaportal_of(leaf).is_some())
    }

    /// Flood area `count` from `leaf` through non-solid portals, stopping at areaportals.
    fn flood_area(&mut self, leaf: NodeId) {
        let mut stack = vec![(leaf, None::<u32>)];
        while let Some((node, through)) = stack.pop() {
            if let Some(num) = self.areaportal_of(node) {
                self.touch_areaportal(num, through);
                continue;
            }
            if self.of_node[node.idx()] != 0 {
                continue;
            }
            self.of_node[node.idx()] = self.count;
            self.push_neighbours(node, &mut stack);
        }
    }

    /// Push the leaves across `node`'s portals that neither side of is solid, but not
    /// the outside node, with the portal crossed.
    fn push_neighbours(&self, node: NodeId, stack: &mut Vec<(NodeId, Option<u32>)>) {
        let tree = self.tree;
        for &pi in &tree.node(node).portals {
            let p = &self.portals.portals[pi as usize];
            if p.nodes
                .iter()
                .any(|x| tree.node(*x).contents & CONTENTS_SOLID != 0)
            {
                continue;
            }
            let other = if p.nodes[0] == node {
                p.nodes[1]
            } else {
                p.nodes[0]
            };
            if other == tree.outside {
                continue;
            }
            stack.push((other, Some(pi)));
        }
    }

    /// The flood of area `count` reached areaportal `num` through portal `through`:
    /// record the area on the entity's next free side, or the portal as leading into
    /// a side already recorded.
    fn touch_areaportal(&mut self, num: u32, through: Option<u32>) {
        let count = self.count;
        let e = self.ents.entry(num).or_insert_with(|| PortalEnt {
            number: num,
            ..Default::default()
        });
        if e.areas.contains(&count) {
            if let Some(p) = through {
                let side = if e.areas[0] == count { 0 } else { 1 };
                e.leading[side].push(p);
            }
            return;
        }
        if e.areas[1] != 0 {
            self.diags.push(Diagnostic::warning(
                Where::default(),
                format!("areaportal {num} touches more than two areas"),
            ));
            return;
        }
        let side = if e.areas[0] != 0 { 1 } else { 0 };
        e.areas[side] = count;
        e.leading[side].extend(through);
    }

    /// Areaportal leaves belong to their first area; warn about areaportals that do not
    /// separate two areas.
    fn assign_areaportal_leaves(&mut self) {
        for leaf in self.tree.leaves() {
            if let Some(num) = self.areaportal_of(leaf) {
                let e = self.ents.get(&num);
                self.of_node[leaf.idx()] = e.map(|e| e.areas[0]).unwrap_or(0);
                if e.is_none_or(|e| e.areas[1] == 0) {
                    self.diags.push(Diagnostic::warning(
                        Where::default(),
                        format!("areaportal {num} does not touch two areas (leak through it?)"),
                    ));
                }
            }
        }
    }
}

/// The area and area portal records (without `of_node`) for `count` areas and the
/// areaportals in `list` (sorted by number). Area 0 is "no area", area portal 0 is unused.
fn area_records(
    portals: &Portals,
    list: &[&PortalEnt],
    count: u32,
    plane_of: &dyn Fn(&Plane) -> Option<u32>,
) -> Areas {
    let mut out = Areas {
        of_node: Vec::new(),
        areas: vec![Area::default()],
        portals: vec![AreaPortal::default()],
        clip_verts: Vec::new(),
    };
    for a in 1..=count {
        let first = out.portals.len();
        for e in list {
            for side in 0..2 {
                if e.areas[side] == a {
                    out.push_portal(portals, e, side, plane_of);
                }
            }
        }
        out.areas.push(Area {
            num_area_portals: (out.portals.len() - first) as i32,
            first_area_portal: first as i32,
        });
    }
    out
}

impl Areas {
    /// The area portal record of areaportal `e` seen from its `side`'s area, with its clip
    /// polygon.
    fn push_portal(
        &mut self,
        portals: &Portals,
        e: &PortalEnt,
        side: usize,
        plane_of: &dyn Fn(&Plane) -> Option<u32>,
    ) {
        let (verts, plane) = clip_polygon(portals, &e.leading[side]);
        self.portals.push(AreaPortal {
            portal_key: e.number,
            other_area: e.areas[1 - side],
            first_clip_portal_vert: self.clip_verts.len() as u32,
            num_clip_portal_verts: verts.len() as u32,
            plane: plane.and_then(|p| plane_of(&p)).map(|p| p as i32).unwrap_or(0),
        });
        (self.clip_verts).extend(verts.iter().map(|v| [v.x as f32, v.y as f32, v.z as f32]));
    }
}

/// The convex hull of the portals between an areaportal and one area, on the first
/// portal's plane: the polygon the engine clips visibility through.
fn clip_polygon(portals: &Portals, ids: &[u32]) -> (Vec<DVec3>, Option<Plane>) {
    let Some(&first) = ids.first() else {
        return (Vec::new(), None);
    };
    let plane = portals.portals[first as usize].plane;
    let n = plane.normal;
    let u = if n.z.abs() < 0.9 {
        n.cross(DVec3::Z).normalize()
    } else {
        n.cross(DVec3::X).normalize()
    };
    let v = n.cross(u);
    let mut pts: Vec<(f64, f64)> = Vec::new();
    for &id in ids {
        for &p in &portals.portals[id as usize].winding.points {
            pts.push((p.dot(u), p.dot(v)));
        }
    }
    pts.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    pts.dedup_by(|a, b| (a.0 - b.0).abs() < 0.01 && (a.1 - b.1).abs() < 0.01);
    let hull = convex_hull(&pts);
    let origin = n * plane.dist;
    (
        hull.into_iter().map(|(a, b)| origin + u * a + v * b).collect(),
        Some(plane),
    )
}

/// The z of the cross product of `o→a` and `o→b`: positive when `o, a, b` turn left.
fn cross_2d(o: (f64, f64), a: (f64, f64), b: (f64, f64)) -> f64 {
    (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
}

/// Andrew's monotone chain over sorted, deduplicated points: lower hull, then upper
/// hull, each without its last point.
fn convex_hull(pts: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut hull: Vec<(f64, f64)> = Vec::new();
    for &p in pts {
        while hull.len() >= 2 && cross_2d(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0 {
            hull.pop();
        }
        hull.push(p);
    }
    hull.pop();
    let lower = hull.len() + 1;
    for &p in pts.iter().rev() {
        while hull.len() > lower && cross_2d(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0 {
            hull.pop();
        }
        hull.push(p);
    }
    hull.pop();
    hull
}
