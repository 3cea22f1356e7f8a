//! VMF text as Hammer lays it out: tab-indented blocks, one `"key" "value"` a line.

use srcmap_vmf::{DispInfo, VmfWriter, format_number};

use crate::groups::{OutCordon, OutVisgroup, write_vmf_cordons, write_vmf_visgroups};

/// Hammer's lightmap scale (luxels per world unit) for a side that does not say.
pub const DEFAULT_LIGHTMAP_SCALE: f64 = 16.0;

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
    /// The points are a source VMF's, written exactly (not rounded to 6 decimals).
    pub exact_points: bool,
    /// Luxels per world unit ([`DEFAULT_LIGHTMAP_SCALE`] but where carried).
    pub lightmap_scale: f64,
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
    pub solids: Vec<OutSolid>,
    /// Hidden in the editor: written in a `hidden` block, which vbsp does not compile.
    pub hidden: bool,
}

/// A brush to write: its sides and the visgroups it is in.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OutSolid {
    pub sides: Vec<OutSide>,
    pub visgroups: Vec<i64>,
    /// Hidden in the editor (see [`OutEntity::hidden`]).
    pub hidden: bool,
}

/// VMF text under construction: the shared layout, with solids numbered as they are written.
pub struct VmfText {
    doc: VmfWriter,
    next_solid: i64,
}

impl VmfText {
    /// Text starting with the header blocks, `visgroups` in theirs; solids are numbered from
    /// `first_solid_id`.
    pub fn new(first_solid_id: i64, visgroups: &[OutVisgroup]) -> VmfText {
        VmfText {
            doc: VmfWriter::with_visgroups(1, |w| write_vmf_visgroups(w, visgroups)),
            next_solid: first_solid_id,
        }
    }

    /// The `cordons` block.
    pub fn cordons(&mut self, active: bool, cordons: &[OutCordon]) {
        write_vmf_cordons(&mut self.doc, active, cordons);
    }

    fn open(&mut self, name: &str) {
        self.doc.open(name);
    }

    fn close(&mut self) {
        self.doc.close();
    }

    fn value(&mut self, key: &str, value: &str) {
        self.doc.value(key, value);
    }

    /// `world` or `entity` with everything in it (in a `hidden` block when hidden).
    pub fn entity(&mut self, block: &str, e: &OutEntity) {
        self.hidden(e.hidden, |t| t.entity_block(block, e));
    }

    /// `f`'s blocks, inside a `hidden` block when `hidden`.
    fn hidden(&mut self, hidden: bool, f: impl FnOnce(&mut VmfText)) {
        if hidden {
            self.open("hidden");
        }
        f(self);
        if hidden {
            self.close();
        }
    }

    fn entity_block(&mut self, block: &str, e: &OutEntity) {
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
            // A hidden entity's solids are hidden with it.
            self.hidden(s.hidden && !e.hidden, |t| t.solid(s));
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

    fn solid(&mut self, solid: &OutSolid) {
        self.open("solid");
        self.value("id", &self.next_solid.to_string());
        self.next_solid += 1;
        for s in &solid.sides {
            self.side(s);
        }
        if !solid.visgroups.is_empty() || solid.hidden {
            self.open("editor");
            for id in &solid.visgroups {
                self.value("visgroupid", &id.to_string());
            }
            self.value("visgroupshown", if solid.hidden { "0" } else { "1" });
            self.value("visgroupautoshown", "1");
            self.close();
        }
        self.close();
    }

    fn side(&mut self, s: &OutSide) {
        self.open("side");
        self.value("id", &s.id.to_string());
        let coord = |x: f64| if s.exact_points { format_number(x) } else { num(x) };
        let point = |p: &[f64; 3]| format!("({} {} {})", coord(p[0]), coord(p[1]), coord(p[2]));
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
        self.value("lightmapscale", &num(s.lightmap_scale));
        self.value("smoothing_groups", &s.smoothing_groups.to_string());
        if let Some(d) = &s.disp {
            self.doc.dispinfo(d);
        }
        self.close();
    }

    /// The finished text (with an empty `cameras` block, as Hammer writes).
    pub fn finish(self) -> String {
        self.doc.finish()
    }
}

/// A number as VMF text: integers bare, others with at most 6 decimals (plane points and axes
/// come from f32 data, so more digits would only be noise).
fn num(v: f64) -> String {
    let r = (v * 1e6).round() / 1e6;
    format_number(if r == 0.0 { 0.0 } else { r })
}
