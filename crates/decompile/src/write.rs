//! The map as VMF text, laid out as Hammer saves one: versioninfo, visgroups, viewsettings,
//! world, entities (outputs in `connections`), cameras. Written straight into one string (a
//! big map's displacement rows are megabytes of numbers).

use std::fmt::Write as _;

use srcmap_vmf::{DispInfo, TextureAxis, format_number};

use crate::map::Map;
use crate::types::{OutEntity, OutSide, OutSolid};

/// The map as VMF text.
pub(crate) fn text(map: &Map) -> String {
    let mut doc = Doc::default();
    header(&mut doc, map.revision);
    entity(&mut doc, "world", &map.world);
    for e in &map.entities {
        entity(&mut doc, "entity", e);
    }
    doc.open("cameras");
    doc.value("activecamera", "-1");
    doc.close();
    doc.out
}

/// VMF text under construction: tab-indented, one key/value per line, `\"` for a quote.
#[derive(Default)]
struct Doc {
    out: String,
    depth: usize,
}

impl Doc {
    fn indent(&mut self) {
        for _ in 0..self.depth {
            self.out.push('\t');
        }
    }

    /// Opens a block, closed by [`Doc::close`].
    fn open(&mut self, key: &str) {
        self.indent();
        self.out.push_str(key);
        self.out.push('\n');
        self.indent();
        self.out.push_str("{\n");
        self.depth += 1;
    }

    fn close(&mut self) {
        self.depth -= 1;
        self.indent();
        self.out.push_str("}\n");
    }

    /// A key/value line in the innermost open block.
    fn value(&mut self, key: &str, value: &str) {
        self.indent();
        let value = value.replace('"', "\\\"");
        let _ = writeln!(self.out, "\"{key}\" \"{value}\"");
    }
}

fn block(doc: &mut Doc, key: &str, values: &[(&str, &str)]) {
    doc.open(key);
    for (k, v) in values {
        doc.value(k, v);
    }
    doc.close();
}

fn header(doc: &mut Doc, revision: i32) {
    let revision = revision.to_string();
    let version = [
        ("editorversion", "400"),
        ("editorbuild", "0"),
        ("mapversion", revision.as_str()),
        ("formatversion", "100"),
        ("prefab", "0"),
    ];
    block(doc, "versioninfo", &version);
    block(doc, "visgroups", &[]);
    let view = [("bSnapToGrid", "1"), ("bShowGrid", "1"), ("nGridSpacing", "64")];
    block(doc, "viewsettings", &view);
}

/// An entity: id, key/values (outputs into `connections`), solids.
fn entity(doc: &mut Doc, key: &str, e: &OutEntity) {
    doc.open(key);
    doc.value("id", &e.id.to_string());
    let (outputs, keys): (Vec<_>, Vec<_>) = e.keyvalues.iter().partition(|(k, v)| is_output(k, v));
    for (k, v) in keys.iter().filter(|(k, _)| !k.eq_ignore_ascii_case("id")) {
        doc.value(k, v);
    }
    if !outputs.is_empty() {
        doc.open("connections");
        for (k, v) in outputs {
            doc.value(k, v);
        }
        doc.close();
    }
    for s in &e.solids {
        solid(doc, s);
    }
    doc.close();
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

fn solid(doc: &mut Doc, s: &OutSolid) {
    doc.open("solid");
    doc.value("id", &s.id.to_string());
    for side in &s.sides {
        write_side(doc, side);
    }
    doc.close();
}

fn write_side(doc: &mut Doc, s: &OutSide) {
    doc.open("side");
    doc.value("id", &s.id.to_string());
    doc.value("plane", &plane(&s.points));
    doc.value("material", &s.material);
    doc.value("uaxis", &axis(&s.uaxis));
    doc.value("vaxis", &axis(&s.vaxis));
    doc.value("rotation", "0");
    doc.value("lightmapscale", &format_number(s.lightmap_scale));
    doc.value("smoothing_groups", &s.smoothing_groups.to_string());
    if let Some(d) = &s.disp {
        dispinfo(doc, d);
    }
    doc.close();
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

fn dispinfo(doc: &mut Doc, d: &DispInfo) {
    doc.open("dispinfo");
    let [x, y, z] = d.start_position.map(format_number);
    doc.value("power", &d.power.to_string());
    doc.value("startposition", &format!("[{x} {y} {z}]"));
    doc.value("flags", &d.flags.to_string());
    doc.value("elevation", "0");
    doc.value("subdiv", "0");
    let side = d.vertices_per_row();
    rows(doc, "normals", &flat3(&d.normals), side * 3);
    rows(
        doc,
        "distances",
        &d.distances.iter().map(|&v| num32(v)).collect::<Vec<_>>(),
        side,
    );
    rows(doc, "offsets", &flat3(&d.offsets), side * 3);
    rows(doc, "offset_normals", &flat3(&d.offset_normals), side * 3);
    rows(
        doc,
        "alphas",
        &d.alphas.iter().map(|&v| num32(v)).collect::<Vec<_>>(),
        side,
    );
    let tags: Vec<String> = d.triangle_tags.iter().map(i32::to_string).collect();
    rows(doc, "triangle_tags", &tags, 2 * (side - 1));
    let allowed: Vec<String> = d.allowed_verts.iter().map(i32::to_string).collect();
    doc.open("allowed_verts");
    doc.value("10", &allowed.join(" "));
    doc.close();
    doc.close();
}

/// `values` in a block of `row0`, `row1`, ... of `per_row` words each.
fn rows(doc: &mut Doc, key: &str, values: &[String], per_row: usize) {
    doc.open(key);
    for (i, row) in values.chunks(per_row.max(1)).enumerate() {
        doc.value(&format!("row{i}"), &row.join(" "));
    }
    doc.close();
}

fn flat3(v: &[[f32; 3]]) -> Vec<String> {
    v.iter().flat_map(|p| p.map(num32)).collect()
}

/// An f32 in the shortest form that reads back as itself.
fn num32(v: f32) -> String {
    crate::types::f32_value(v)
}
