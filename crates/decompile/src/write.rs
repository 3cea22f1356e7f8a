//! The map as a VMF document, laid out as Hammer saves one: versioninfo, visgroups,
//! viewsettings, world, entities (outputs in `connections`), cameras, cordon.

use srcmap_kv::{Document, NodeId};
use srcmap_vmf::{DispInfo, TextureAxis, Vmf, format_number};

use crate::map::Map;
use crate::types::{OutEntity, OutSide, OutSolid};

/// The map as a document the VMF reader reads.
pub(crate) fn document(map: &Map) -> Document {
    // An empty parse gives a document with the VMF's quoting rules.
    let mut doc = Document::parse_with("", Vmf::KV_OPTIONS).unwrap_or_default();
    header(&mut doc, map.revision);
    entity(&mut doc, "world", &map.world);
    for e in &map.entities {
        entity(&mut doc, "entity", e);
    }
    let cameras = doc.append_block(NodeId::ROOT, "cameras");
    doc.append_value(cameras, "activecamera", "-1");
    doc
}

fn block(doc: &mut Document, parent: NodeId, key: &str, values: &[(&str, &str)]) -> NodeId {
    let b = doc.append_block(parent, key);
    for (k, v) in values {
        doc.append_value(b, k, v);
    }
    b
}

fn header(doc: &mut Document, revision: i32) {
    let revision = revision.to_string();
    let version = [
        ("editorversion", "400"),
        ("editorbuild", "0"),
        ("mapversion", revision.as_str()),
        ("formatversion", "100"),
        ("prefab", "0"),
    ];
    block(doc, NodeId::ROOT, "versioninfo", &version);
    block(doc, NodeId::ROOT, "visgroups", &[]);
    let view = [("bSnapToGrid", "1"), ("bShowGrid", "1"), ("nGridSpacing", "64")];
    block(doc, NodeId::ROOT, "viewsettings", &view);
}

/// An entity: id, key/values (outputs into `connections`), solids.
fn entity(doc: &mut Document, key: &str, e: &OutEntity) {
    let b = doc.append_block(NodeId::ROOT, key);
    doc.append_value(b, "id", &e.id.to_string());
    let (outputs, keys): (Vec<_>, Vec<_>) = e.keyvalues.iter().partition(|(k, v)| is_output(k, v));
    for (k, v) in keys.iter().filter(|(k, _)| !k.eq_ignore_ascii_case("id")) {
        doc.append_value(b, k, v);
    }
    if !outputs.is_empty() {
        let c = doc.append_block(b, "connections");
        for (k, v) in outputs {
            doc.append_value(c, k, v);
        }
    }
    for s in &e.solids {
        solid(doc, b, s);
    }
}

/// An output: `target,input,parameter,delay,times` with the ESC separator newer compilers
/// write, or with commas under an `On…`/`Out…` name.
fn is_output(key: &str, value: &str) -> bool {
    if value.matches('\x1b').count() == 4 {
        return true;
    }
    let named = key.starts_with("On") || key.starts_with("Out");
    named && value.matches(',').count() == 4
}

fn solid(doc: &mut Document, parent: NodeId, s: &OutSolid) {
    let b = doc.append_block(parent, "solid");
    doc.append_value(b, "id", &s.id.to_string());
    for side in &s.sides {
        write_side(doc, b, side);
    }
}

fn write_side(doc: &mut Document, parent: NodeId, s: &OutSide) {
    let b = doc.append_block(parent, "side");
    doc.append_value(b, "id", &s.id.to_string());
    doc.append_value(b, "plane", &plane(&s.points));
    doc.append_value(b, "material", &s.material);
    doc.append_value(b, "uaxis", &axis(&s.uaxis));
    doc.append_value(b, "vaxis", &axis(&s.vaxis));
    doc.append_value(b, "rotation", "0");
    doc.append_value(b, "lightmapscale", &format_number(s.lightmap_scale));
    doc.append_value(b, "smoothing_groups", &s.smoothing_groups.to_string());
    if let Some(d) = &s.disp {
        dispinfo(doc, b, d);
    }
}

fn plane(points: &[[f64; 3]; 3]) -> String {
    let p = |q: &[f64; 3]| {
        format!(
            "({} {} {})",
            format_number(q[0]),
            format_number(q[1]),
            format_number(q[2])
        )
    };
    format!("{} {} {}", p(&points[0]), p(&points[1]), p(&points[2]))
}

fn axis(a: &TextureAxis) -> String {
    let [x, y, z] = a.axis.map(format_number);
    format!(
        "[{x} {y} {z} {}] {}",
        format_number(a.shift),
        format_number(a.scale)
    )
}

fn dispinfo(doc: &mut Document, parent: NodeId, d: &DispInfo) {
    let b = doc.append_block(parent, "dispinfo");
    let [x, y, z] = d.start_position.map(format_number);
    doc.append_value(b, "power", &d.power.to_string());
    doc.append_value(b, "startposition", &format!("[{x} {y} {z}]"));
    doc.append_value(b, "flags", &d.flags.to_string());
    doc.append_value(b, "elevation", "0");
    doc.append_value(b, "subdiv", "0");
    let side = d.vertices_per_row();
    rows(doc, b, "normals", &flat3(&d.normals), side * 3);
    rows(
        doc,
        b,
        "distances",
        &d.distances.iter().map(|&v| num32(v)).collect::<Vec<_>>(),
        side,
    );
    rows(doc, b, "offsets", &flat3(&d.offsets), side * 3);
    rows(doc, b, "offset_normals", &flat3(&d.offset_normals), side * 3);
    rows(
        doc,
        b,
        "alphas",
        &d.alphas.iter().map(|&v| num32(v)).collect::<Vec<_>>(),
        side,
    );
    let tags: Vec<String> = d.triangle_tags.iter().map(i32::to_string).collect();
    rows(doc, b, "triangle_tags", &tags, 2 * (side - 1));
    let allowed: Vec<String> = d.allowed_verts.iter().map(i32::to_string).collect();
    let a = doc.append_block(b, "allowed_verts");
    doc.append_value(a, "10", &allowed.join(" "));
}

/// `values` in a block of `row0`, `row1`, ... of `per_row` words each.
fn rows(doc: &mut Document, parent: NodeId, key: &str, values: &[String], per_row: usize) {
    let b = doc.append_block(parent, key);
    for (i, row) in values.chunks(per_row.max(1)).enumerate() {
        doc.append_value(b, &format!("row{i}"), &row.join(" "));
    }
}

fn flat3(v: &[[f32; 3]]) -> Vec<String> {
    v.iter().flat_map(|p| p.map(num32)).collect()
}

/// An f32 in the shortest form that reads back as itself.
fn num32(v: f32) -> String {
    crate::types::f32_value(v)
}
