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
    let n = tree.nodes.len();
    let mut of_node = vec![0u32; n];
    let areaportal_of = |node: NodeId| -> Option<u32> {
        let nd = tree.node(node);
        if nd.contents & CONTENTS_AREAPORTAL == 0 {
            return None;
        }
        nd.brushes.iter().find_map(|b| portal_number.get(b).copied())
    };
    let mut ents: HashMap<u32, PortalEnt> = HashMap::new();
    let mut count = 0u32;
    for leaf in tree.leaves() {
        let nd = tree.node(leaf);
        if of_node[leaf.idx()] != 0
            || nd.contents & CONTENTS_SOLID != 0
            || nd.occupied == 0
            || areaportal_of(leaf).is_some()
        {
            continue;
        }
        count += 1;
        let mut stack = vec![(leaf, None::<u32>)];
        while let Some((node, through)) = stack.pop() {
            if let Some(num) = areaportal_of(node) {
                let e = ents.entry(num).or_insert_with(|| PortalEnt {
                    number: num,
                    ..Default::default()
                });
                if e.areas.contains(&count) {
                    if let Some(p) = through {
                        let side = if e.areas[0] == count { 0 } else { 1 };
                        e.leading[side].push(p);
                    }
                    continue;
                }
                if e.areas[1] != 0 {
                    diags.push(Diagnostic::warning(
                        Where::default(),
                        format!("areaportal {num} touches more than two areas"),
                    ));
                    continue;
                }
                let side = if e.areas[0] != 0 { 1 } else { 0 };
                e.areas[side] = count;
                e.leading[side].extend(through);
                continue;
            }
            if of_node[node.idx()] != 0 {
                continue;
            }
            of_node[node.idx()] = count;
            for &pi in &tree.node(node).portals {
                let p = &portals.portals[pi as usize];
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
    }
    // Areaportal leaves belong to their first area.
    for leaf in tree.leaves() {
        if let Some(num) = areaportal_of(leaf) {
            let e = ents.get(&num);
            of_node[leaf.idx()] = e.map(|e| e.areas[0]).unwrap_or(0);
            if e.is_none_or(|e| e.areas[1] == 0) {
                diags.push(Diagnostic::warning(
                    Where::default(),
                    format!("areaportal {num} does not touch two areas (leak through it?)"),
                ));
            }
        }
    }
    let _ = brushes;
    // Records: area 0 is "no area", area portal 0 is unused.
    let mut areas = vec![Area::default()];
    let mut out_portals = vec![AreaPortal::default()];
    let mut clip_verts = Vec::new();
    let mut list: Vec<&PortalEnt> = ents.values().filter(|e| e.areas[1] != 0).collect();
    list.sort_by_key(|e| e.number);
    for a in 1..=count {
        let first = out_portals.len();
        for e in &list {
            for side in 0..2 {
                if e.areas[side] != a {
                    continue;
                }
                let (verts, plane) = clip_polygon(portals, &e.leading[side]);
                out_portals.push(AreaPortal {
                    portal_key: e.number,
                    other_area: e.areas[1 - side],
                    first_clip_portal_vert: clip_verts.len() as u32,
                    num_clip_portal_verts: verts.len() as u32,
                    plane: plane.and_then(|p| plane_of(&p)).map(|p| p as i32).unwrap_or(0),
                });
                clip_verts.extend(verts.iter().map(|v| [v.x as f32, v.y as f32, v.z as f32]));
            }
        }
        areas.push(Area {
            num_area_portals: (out_portals.len() - first) as i32,
            first_area_portal: first as i32,
        });
    }
    Areas {
        of_node,
        areas,
        portals: out_portals,
        clip_verts,
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
    // Andrew's monotone chain: lower hull, then upper hull, each without its last point.
    let cross =
        |o: (f64, f64), a: (f64, f64), b: (f64, f64)| (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0);
    let mut hull: Vec<(f64, f64)> = Vec::new();
    for &p in &pts {
        while hull.len() >= 2 && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0 {
            hull.pop();
        }
        hull.push(p);
    }
    hull.pop();
    let lower = hull.len() + 1;
    for &p in pts.iter().rev() {
        while hull.len() > lower && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0 {
            hull.pop();
        }
        hull.push(p);
    }
    hull.pop();
    let origin = n * plane.dist;
    (
        hull.into_iter().map(|(a, b)| origin + u * a + v * b).collect(),
        Some(plane),
    )
}
