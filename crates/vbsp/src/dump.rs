//! Deterministic text dumps of the compile's structures (brushes, trees, portals, faces,
//! clusters), one per pass, for golden tests and debugging: no addresses, no timings,
//! floats at fixed precision.

use std::fmt::Write;

use srcmap_geom::{Bounds, DVec3, Plane, PlaneId, PlaneSet, Winding};

use crate::brush::Brush;
use crate::faces::Face;
use crate::portals::Portals;
use crate::tree::Tree;
use crate::types::Clusters;

/// The dump of one pass: its name and text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PassDump {
    pub pass: &'static str,
    pub text: String,
}

/// A number at fixed precision, without a negative zero.
fn num(v: f64) -> String {
    let s = format!("{v:.3}");
    if s == "-0.000" { "0.000".to_string() } else { s }
}

fn vec3(v: DVec3) -> String {
    format!("({} {} {})", num(v.x), num(v.y), num(v.z))
}

fn plane(p: &Plane) -> String {
    format!("{} {}", vec3(p.normal), num(p.dist))
}

fn plane_id(planes: &PlaneSet, id: PlaneId) -> String {
    format!("#{} {}", id.0, plane(planes.get(id)))
}

fn bounds(b: &Bounds) -> String {
    if b.is_empty() {
        "empty".to_string()
    } else {
        format!("{}..{}", vec3(b.mins), vec3(b.maxs))
    }
}

fn winding(w: &Winding) -> String {
    let pts: Vec<String> = w.points.iter().map(|&p| vec3(p)).collect();
    format!("{} points {}", w.len(), pts.join(" "))
}

/// Brushes with their sides.
pub fn brushes(brushes: &[Brush], planes: &PlaneSet) -> String {
    let mut out = String::new();
    for (i, b) in brushes.iter().enumerate() {
        let _ = writeln!(
            out,
            "brush {i} entity {} hammer {} contents {:#x} bounds {}",
            b.entity,
            b.vmf_id,
            b.contents,
            bounds(&b.bounds)
        );
        for (si, s) in b.sides.iter().enumerate() {
            let mut flags = String::new();
            for (set, name) in [
                (s.bevel, " bevel"),
                (s.visible, " visible"),
                (s.displacement, " displacement"),
            ] {
                if set {
                    flags += name;
                }
            }
            let _ = writeln!(
                out,
                "  side {si} plane {} texinfo {} surf {:#x} hammer {}{flags}",
                plane_id(planes, s.plane),
                s.texinfo,
                s.surf,
                s.vmf_id
            );
        }
    }
    out
}

/// A tree from its head, depth first, front child first; leaves with their contents,
/// brushes and flood state.
pub fn tree(tree: &Tree, planes: &PlaneSet) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "tree {} nodes, {} leaves, bounds {}",
        tree.nodes.len(),
        tree.leaves().count(),
        bounds(&tree.bounds)
    );
    let mut stack = vec![(tree.head, 0usize)];
    while let Some((n, depth)) = stack.pop() {
        let node = tree.node(n);
        let pad = "  ".repeat(depth);
        match node.plane {
            Some(p) => {
                let _ = writeln!(out, "{pad}node {} plane {}", n.0, plane_id(planes, p));
                stack.push((node.children[1], depth + 1));
                stack.push((node.children[0], depth + 1));
            }
            None => {
                let _ = write!(
                    out,
                    "{pad}leaf {} contents {:#x} brushes {:?} portals {} occupied {}",
                    n.0,
                    node.contents,
                    node.brushes.iter().map(|b| b.0).collect::<Vec<_>>(),
                    node.portals.len(),
                    node.occupied
                );
                out.push('\n');
            }
        }
    }
    out
}

/// The open leaves (in arena order) with their area and, when known, cluster.
pub fn open_leaves(tree: &Tree, areas: &[u32], clusters: Option<&Clusters>) -> String {
    let mut out = String::new();
    for leaf in tree.leaves() {
        let node = tree.node(leaf);
        if node.contents & crate::contents::CONTENTS_SOLID != 0 {
            continue;
        }
        let _ = write!(
            out,
            "leaf {} contents {:#x} area {}",
            leaf.0,
            node.contents,
            areas.get(leaf.idx()).copied().unwrap_or(0)
        );
        if let Some(c) = clusters {
            let _ = write!(
                out,
                " cluster {}",
                c.of_node.get(leaf.idx()).copied().unwrap_or(-1)
            );
        }
        out.push('\n');
    }
    out
}

/// Live portals: the leaves they join, the node they lie on, the side they show.
pub fn portals(portals: &Portals) -> String {
    let mut out = String::new();
    for (i, p) in portals.iter() {
        let on = p.on_node.map_or("outside".to_string(), |n| n.0.to_string());
        let side = p
            .side
            .map_or("-".to_string(), |s| format!("{}:{}", s.brush, s.side));
        let _ = writeln!(
            out,
            "portal {i} leaves {} {} on {on} side {side} plane {} {} points around {}",
            p.nodes[0].0,
            p.nodes[1].0,
            plane(&p.plane),
            p.winding.len(),
            vec3(p.winding.center())
        );
    }
    out
}

/// Faces: plane, texinfo, contents, the side shown, node and leaves, points.
pub fn faces(faces: &[Face], planes: &PlaneSet) -> String {
    let mut out = String::new();
    for (i, f) in faces.iter().enumerate() {
        let node = f.node.map_or("-".to_string(), |n| n.0.to_string());
        let side = f
            .side
            .map_or("-".to_string(), |s| format!("{}:{}", s.brush, s.side));
        let leaves: Vec<u32> = f.leaves.iter().map(|l| l.0).collect();
        let _ = writeln!(
            out,
            "face {i} plane {} texinfo {} contents {:#x} side {side} hammer {} node {node} leaves {leaves:?} {}",
            plane_id(planes, f.plane),
            f.texinfo,
            f.contents,
            f.hammer_id,
            winding(&f.winding)
        );
    }
    out
}

/// The BSP's record counts and its entity lump.
pub fn bsp(bsp: &srcmap_bsp::Bsp) -> String {
    let mut out = String::new();
    let counts = [
        ("planes", bsp.planes.len()),
        ("texdata", bsp.texdata.len()),
        ("texinfo", bsp.texinfo.len()),
        ("vertexes", bsp.vertexes.len()),
        ("edges", bsp.edges.len()),
        ("surfedges", bsp.surfedges.len()),
        ("faces", bsp.faces.len()),
        ("nodes", bsp.nodes.len()),
        ("leafs", bsp.leafs.len()),
        ("leaf_faces", bsp.leaf_faces.len()),
        ("leaf_brushes", bsp.leaf_brushes.len()),
        ("brushes", bsp.brushes.len()),
        ("brush_sides", bsp.brush_sides.len()),
        ("models", bsp.models.len()),
        ("areas", bsp.areas.len()),
        ("area_portals", bsp.area_portals.len()),
    ];
    for (name, count) in counts {
        let _ = writeln!(out, "{name} {count}");
    }
    for (i, e) in bsp.entities.iter().enumerate() {
        let _ = writeln!(out, "entity {i}");
        for (k, v) in &e.pairs {
            let _ = writeln!(out, "  {k:?} {v:?}");
        }
    }
    out
}
