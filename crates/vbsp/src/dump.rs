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
            let flags = side_flags(s);
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

/// A side's flags, each with a space before it.
fn side_flags(s: &crate::brush::BrushSide) -> String {
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
    flags
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
            None => leaf_line(&mut out, &pad, n, node),
        }
    }
    out
}

/// A leaf of [`tree`]'s dump: contents, brushes, portal count, flood state.
fn leaf_line(out: &mut String, pad: &str, n: crate::tree::NodeId, node: &crate::tree::Node) {
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

/// The number of records of each lump [`bsp`] counts.
fn record_counts(bsp: &srcmap_bsp::Bsp) -> [(&'static str, usize); 16] {
    [
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
    ]
}

/// The BSP's record counts and its entity lump.
pub fn bsp(bsp: &srcmap_bsp::Bsp) -> String {
    let mut out = String::new();
    let counts = record_counts(bsp);
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

/// A float of a BSP record, at fixed precision.
fn f32s(v: &[f32]) -> String {
    let parts: Vec<String> = v.iter().map(|&x| num(x as f64)).collect();
    format!("({})", parts.join(" "))
}

/// Each model's record: head, faces, bounds.
pub fn records(bsp: &srcmap_bsp::Bsp) -> String {
    let mut out = String::new();
    for (i, m) in bsp.models.iter().enumerate() {
        let _ = writeln!(
            out,
            "model {i} head {} faces {}+{} bounds {}..{}",
            m.head_node,
            m.first_face,
            m.num_faces,
            f32s(&m.mins),
            f32s(&m.maxs)
        );
    }
    out
}

/// The water records and the leaves that point at them.
pub fn water(bsp: &srcmap_bsp::Bsp) -> String {
    let mut out = String::new();
    for (i, w) in bsp.leaf_water_data.iter().enumerate() {
        let _ = writeln!(
            out,
            "water {i} surface {} min {} texinfo {}",
            num(w.surface_z as f64),
            num(w.min_z as f64),
            w.surface_texinfo
        );
    }
    for (i, l) in bsp
        .leafs
        .iter()
        .enumerate()
        .filter(|(_, l)| l.leaf_water_data != -1)
    {
        let _ = writeln!(out, "leaf {i} water {}", l.leaf_water_data);
    }
    out
}

/// Each DISPINFO: its face, power, and where its vertices, triangles and samples start.
pub fn displacements(bsp: &srcmap_bsp::Bsp) -> String {
    let mut out = String::new();
    for (i, d) in bsp.disp_info.iter().enumerate() {
        let _ = writeln!(
            out,
            "disp {i} face {} power {} start {} verts {} tris {} samples {} contents {:#x}",
            d.map_face,
            d.power,
            f32s(&d.start_position),
            d.disp_vert_start,
            d.disp_tri_start,
            d.lightmap_sample_position_start,
            d.contents
        );
    }
    out
}

/// Each physics model: its model, solids and sizes; whether PHYSDISP was written.
pub fn physics(bsp: &srcmap_bsp::Bsp) -> String {
    let mut out = String::new();
    for m in bsp.phys_collide.iter().flat_map(|c| &c.models) {
        let sizes: Vec<usize> = m.solids.iter().map(|s| s.len()).collect();
        let _ = writeln!(
            out,
            "physics model {} solids {sizes:?} key data {} bytes",
            m.model_index,
            m.key_data.len()
        );
    }
    let _ = writeln!(out, "physdisp {}", bsp.phys_disp.is_some());
    out
}

/// Each overlay: its id, texinfo, faces.
pub fn overlays(bsp: &srcmap_bsp::Bsp) -> String {
    let mut out = String::new();
    for o in &bsp.overlays {
        let count = (o.face_count_and_render_order & 0x3fff) as usize;
        let faces = &o.faces[..count.min(o.faces.len())];
        let _ = writeln!(
            out,
            "overlay {} texinfo {} order {} faces {faces:?} origin {}",
            o.id,
            o.texinfo,
            o.face_count_and_render_order >> 14,
            f32s(&o.origin)
        );
    }
    out
}

/// The cube map samples and the patched files made for the pakfile so far.
pub fn cubemaps(bsp: &srcmap_bsp::Bsp, patch_files: &[(String, Vec<u8>)]) -> String {
    let mut out = String::new();
    for (i, c) in bsp.cubemaps.iter().enumerate() {
        let _ = writeln!(out, "cubemap {i} origin {:?} size {}", c.origin, c.size);
    }
    for (path, data) in patch_files {
        let _ = writeln!(out, "patch {path} {} bytes", data.len());
    }
    out
}

/// The static props: their models, each prop's model, origin and leaves.
pub fn static_props(bsp: &srcmap_bsp::Bsp) -> String {
    let mut out = String::new();
    let Some(sprp) = bsp.game_lumps.static_props() else {
        return out;
    };
    for (i, m) in sprp.models.iter().enumerate() {
        let _ = writeln!(out, "model {i} {m}");
    }
    for (i, p) in sprp.props.iter().enumerate() {
        let first = p.first_leaf as usize;
        let leaves = sprp
            .leaves
            .get(first..first + p.leaf_count as usize)
            .unwrap_or(&[]);
        let _ = writeln!(
            out,
            "prop {i} model {} origin {} angles {} leaves {leaves:?}",
            p.prop_type,
            f32s(&p.origin),
            f32s(&p.angles)
        );
    }
    out
}

/// The detail props: their models, sprite count, each prop's model, kind, leaf and origin.
pub fn detail_props(bsp: &srcmap_bsp::Bsp) -> String {
    let mut out = String::new();
    let Some(dprp) = crate::verify_bsp::detail_lump(bsp) else {
        return out;
    };
    for (i, m) in dprp.models.iter().enumerate() {
        let _ = writeln!(out, "model {i} {m}");
    }
    let _ = writeln!(out, "sprites {}", dprp.sprites.len());
    for (i, o) in dprp.objects.iter().enumerate() {
        let _ = writeln!(
            out,
            "prop {i} model {} kind {} leaf {} origin {}",
            o.detail_model,
            o.kind,
            o.leaf,
            f32s(&o.origin)
        );
    }
    out
}

/// The pakfile's files and their sizes.
pub fn pakfile(bsp: &srcmap_bsp::Bsp) -> String {
    let mut out = String::new();
    if let Ok(pak) = srcmap_bsp::pak::Pak::parse(&bsp.pakfile, 0) {
        for e in &pak.entries {
            let _ = writeln!(out, "file {} {} bytes", e.name, e.size);
        }
    }
    out
}

/// Each entity's class and model, and the world's bounds.
pub fn entities(bsp: &srcmap_bsp::Bsp) -> String {
    let mut out = String::new();
    let get = |e: &srcmap_bsp::Entity, key: &str| {
        (e.pairs.iter())
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map_or(String::new(), |(_, v)| v.clone())
    };
    for (i, e) in bsp.entities.iter().enumerate() {
        let _ = writeln!(
            out,
            "entity {i} {} model {:?}",
            get(e, "classname"),
            get(e, "model")
        );
    }
    if let Some(world) = bsp.entities.first() {
        let (mins, maxs) = (get(world, "world_mins"), get(world, "world_maxs"));
        let _ = writeln!(out, "world bounds {mins:?}..{maxs:?}");
    }
    out
}
