//! VMF text as Hammer lays it out: tab-indented blocks, one `"key" "value"` a line.

use std::fmt::Write as _;

use srcmap_vmf::{DispInfo, format_number};

/// A brush side to write.
#[derive(Debug, Clone, PartialEq)]
pub struct OutSide {
    /// Three plane points, clockwise seen from outside.
    pub points: [[f64; 3]; 3],
    pub material: String,
    /// `[x y z shift] scale` for U and V.
    pub uaxis: ([f64; 4], f64),
    pub vaxis: ([f64; 4], f64),
    pub smoothing_groups: u32,
    pub disp: Option<Box<DispInfo>>,
    /// The side's id (set before writing).
    pub id: i64,
    /// The mesh face it shows (`mesh node id:face index`), for overlays' side lists.
    pub face: Option<String>,
}

/// An entity to write (the world too): key values in order, outputs, solids.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OutEntity {
    pub id: i64,
    pub keys: Vec<(String, String)>,
    pub outputs: Vec<(String, String)>,
    /// `editor` block values (`color`, `visgroupshown`, …).
    pub editor: Vec<(String, String)>,
    pub solids: Vec<Vec<OutSide>>,
}

/// VMF text under construction.
#[derive(Default)]
pub struct VmfText {
    out: String,
    depth: usize,
    next_solid: i64,
}

impl VmfText {
    /// Text starting with the header blocks; solids are numbered from `first_solid_id`.
    pub fn new(first_solid_id: i64) -> VmfText {
        let mut t = VmfText {
            next_solid: first_solid_id,
            ..VmfText::default()
        };
        let version = [
            ("editorversion", "400"),
            ("editorbuild", "0"),
            ("mapversion", "1"),
            ("formatversion", "100"),
            ("prefab", "0"),
        ];
        t.block("versioninfo", &version);
        t.block("visgroups", &[]);
        t.block(
            "viewsettings",
            &[("bSnapToGrid", "1"), ("bShowGrid", "1"), ("nGridSpacing", "64")],
        );
        t
    }

    fn indent(&mut self) {
        self.out.extend(std::iter::repeat_n('\t', self.depth));
    }

    fn open(&mut self, name: &str) {
        self.indent();
        let _ = writeln!(self.out, "{name}");
        self.indent();
        self.out.push_str("{\n");
        self.depth += 1;
    }

    fn close(&mut self) {
        self.depth -= 1;
        self.indent();
        self.out.push_str("}\n");
    }

    /// A key value; a quote inside is written `\"`, as VMF readers take it.
    fn value(&mut self, key: &str, value: &str) {
        self.indent();
        let _ = writeln!(self.out, "\"{key}\" \"{}\"", value.replace('"', "\\\""));
    }

    fn block(&mut self, name: &str, values: &[(&str, &str)]) {
        self.open(name);
        for (k, v) in values {
            self.value(k, v);
        }
        self.close();
    }

    /// `world` or `entity` with everything in it.
    pub fn entity(&mut self, block: &str, e: &OutEntity) {
        self.open(block);
        self.value("id", &e.id.to_string());
        for (k, v) in &e.keys {
            self.value(k, v);
        }
        if !e.outputs.is_empty() {
            self.open("connections");
            for (k, v) in &e.outputs {
                self.value(k, v);
            }
            self.close();
        }
        for s in &e.solids {
            self.solid(s);
        }
        if !e.editor.is_empty() {
            self.open("editor");
            for (k, v) in &e.editor {
                self.value(k, v);
            }
            self.close();
        }
        self.close();
    }

    fn solid(&mut self, sides: &[OutSide]) {
        self.open("solid");
        self.value("id", &self.next_solid.to_string());
        self.next_solid += 1;
        for s in sides {
            self.side(s);
        }
        self.close();
    }

    fn side(&mut self, s: &OutSide) {
        self.open("side");
        self.value("id", &s.id.to_string());
        let point = |p: &[f64; 3]| format!("({} {} {})", num(p[0]), num(p[1]), num(p[2]));
        self.value("plane", &s.points.iter().map(point).collect::<Vec<_>>().join(" "));
        self.value("material", &s.material);
        let axis = |(a, scale): ([f64; 4], f64)| {
            format!(
                "[{} {} {} {}] {}",
                num(a[0]),
                num(a[1]),
                num(a[2]),
                num(a[3]),
                num(scale)
            )
        };
        self.value("uaxis", &axis(s.uaxis));
        self.value("vaxis", &axis(s.vaxis));
        self.value("rotation", "0");
        self.value("lightmapscale", "16");
        self.value("smoothing_groups", &s.smoothing_groups.to_string());
        if let Some(d) = &s.disp {
            self.dispinfo(d);
        }
        self.close();
    }

    fn dispinfo(&mut self, d: &DispInfo) {
        self.open("dispinfo");
        self.value("power", &d.power.to_string());
        let [x, y, z] = d.start_position.map(num);
        self.value("startposition", &format!("[{x} {y} {z}]"));
        self.value("flags", &d.flags.to_string());
        self.value("elevation", &num(d.elevation));
        self.value("subdiv", if d.subdiv { "1" } else { "0" });
        let n = d.vertices_per_row();
        let words3 = |v: &[[f32; 3]]| {
            v.iter()
                .flat_map(|p| p.map(|c| num(f64::from(c))))
                .collect::<Vec<_>>()
        };
        let words1 = |v: &[f32]| v.iter().map(|&c| num(f64::from(c))).collect::<Vec<_>>();
        self.rows("normals", &words3(&d.normals), 3 * n);
        self.rows("distances", &words1(&d.distances), n);
        self.rows("offsets", &words3(&d.offsets), 3 * n);
        self.rows("offset_normals", &words3(&d.offset_normals), 3 * n);
        self.rows("alphas", &words1(&d.alphas), n);
        let tags: Vec<String> = d.triangle_tags.iter().map(i32::to_string).collect();
        self.rows("triangle_tags", &tags, 2 * (n - 1));
        let allowed: Vec<String> = d.allowed_verts.iter().map(i32::to_string).collect();
        self.block("allowed_verts", &[("10", &allowed.join(" "))]);
        self.close();
    }

    /// `words` as a block of `row0`, `row1`, … of `per_row` words.
    fn rows(&mut self, name: &str, words: &[String], per_row: usize) {
        self.open(name);
        for (i, row) in words.chunks(per_row.max(1)).enumerate() {
            self.value(&format!("row{i}"), &row.join(" "));
        }
        self.close();
    }

    /// The finished text (with an empty `cameras` block, as Hammer writes).
    pub fn finish(mut self) -> String {
        self.block("cameras", &[("activecamera", "-1")]);
        self.out
    }
}

/// A number as VMF text: integers bare, others with at most 6 decimals (plane points and axes
/// come from f32 data, so more digits would only be noise).
fn num(v: f64) -> String {
    let r = (v * 1e6).round() / 1e6;
    format_number(if r == 0.0 { 0.0 } else { r })
}
