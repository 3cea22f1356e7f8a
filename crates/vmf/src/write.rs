//! VMF text written from scratch, laid out as Hammer saves a map: tab-indented blocks, one
//! `"key" "value"` a line, a quote inside a value as `\"`. For tools that make a map (the
//! decompiler, the VMAP converter); an edited [`crate::Vmf`] writes itself byte-exactly instead.

use std::fmt::Write as _;

use crate::{DispInfo, format_number};

/// VMF text under construction.
#[derive(Debug, Default)]
pub struct VmfWriter {
    out: String,
    depth: usize,
}

impl VmfWriter {
    /// Text starting with Hammer's header blocks: versioninfo (map revision `revision`),
    /// visgroups, viewsettings.
    pub fn new(revision: i32) -> VmfWriter {
        VmfWriter::with_visgroups(revision, |_| {})
    }

    /// [`VmfWriter::new`] with the `visgroups` block's contents written by `visgroups`.
    pub fn with_visgroups(revision: i32, visgroups: impl FnOnce(&mut VmfWriter)) -> VmfWriter {
        let mut w = VmfWriter::default();
        let revision = revision.to_string();
        let version = [
            ("editorversion", "400"),
            ("editorbuild", "0"),
            ("mapversion", revision.as_str()),
            ("formatversion", "100"),
            ("prefab", "0"),
        ];
        w.block("versioninfo", &version);
        w.open("visgroups");
        visgroups(&mut w);
        w.close();
        let view = [("bSnapToGrid", "1"), ("bShowGrid", "1"), ("nGridSpacing", "64")];
        w.block("viewsettings", &view);
        w
    }

    fn indent(&mut self) {
        self.out.extend(std::iter::repeat_n('\t', self.depth));
    }

    /// Opens a block, closed by [`VmfWriter::close`].
    pub fn open(&mut self, name: &str) {
        self.indent();
        let _ = writeln!(self.out, "{name}");
        self.indent();
        self.out.push_str("{\n");
        self.depth += 1;
    }

    pub fn close(&mut self) {
        self.depth -= 1;
        self.indent();
        self.out.push_str("}\n");
    }

    /// A key value in the innermost open block.
    pub fn value(&mut self, key: &str, value: &str) {
        self.indent();
        let [key, value] = [key, value].map(quoted);
        let _ = writeln!(self.out, "\"{key}\" \"{value}\"");
    }

    /// A block of key values only.
    pub fn block(&mut self, name: &str, values: &[(&str, &str)]) {
        self.open(name);
        for (k, v) in values {
            self.value(k, v);
        }
        self.close();
    }

    /// `words` as a block of `row0`, `row1`, … of `per_row` words each.
    pub fn rows(&mut self, name: &str, words: &[String], per_row: usize) {
        self.open(name);
        for (i, row) in words.chunks(per_row.max(1)).enumerate() {
            self.value(&format!("row{i}"), &row.join(" "));
        }
        self.close();
    }

    /// A side's `dispinfo` block; its numbers in the shortest form that reads back as the same
    /// f32, so a displacement's vertices survive the text exactly.
    pub fn dispinfo(&mut self, d: &DispInfo) {
        self.open("dispinfo");
        self.value("power", &d.power.to_string());
        let [x, y, z] = d.start_position.map(format_number);
        self.value("startposition", &format!("[{x} {y} {z}]"));
        self.value("flags", &d.flags.to_string());
        self.value("elevation", &format_number(d.elevation));
        self.value("subdiv", if d.subdiv { "1" } else { "0" });
        let n = d.vertices_per_row();
        self.rows("normals", &words3(&d.normals), 3 * n);
        self.rows("distances", &words(&d.distances), n);
        self.rows("offsets", &words3(&d.offsets), 3 * n);
        self.rows("offset_normals", &words3(&d.offset_normals), 3 * n);
        self.rows("alphas", &words(&d.alphas), n);
        let tags: Vec<String> = d.triangle_tags.iter().map(i32::to_string).collect();
        self.rows("triangle_tags", &tags, 2 * (n - 1));
        let allowed: Vec<String> = d.allowed_verts.iter().map(i32::to_string).collect();
        self.block("allowed_verts", &[("10", &allowed.join(" "))]);
        self.close();
    }

    /// The finished text, ending with the `cameras` block Hammer writes.
    pub fn finish(mut self) -> String {
        self.block("cameras", &[("activecamera", "-1")]);
        self.out
    }
}

/// An f32 as VMF text: integers bare, others in the shortest form that reads back as itself.
pub fn format_f32(v: f32) -> String {
    if v == v.trunc() && v.abs() < 1e9 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// `text` for inside VMF quotes: a quote as `\"`, and a run of backslashes doubled where it
/// would otherwise escape the quote after it or the closing one (VMF readers skip the character
/// after a backslash); other backslashes (paths) stay as mappers write them.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut run = 0;
    for c in text.chars() {
        if c == '\\' {
            run += 1;
            continue;
        }
        out.extend(std::iter::repeat_n(
            '\\',
            if c == '"' { 2 * run + 1 } else { run },
        ));
        out.push(c);
        run = 0;
    }
    out.extend(std::iter::repeat_n('\\', 2 * run));
    out
}

fn words(v: &[f32]) -> Vec<String> {
    v.iter().map(|&c| format_f32(c)).collect()
}

fn words3(v: &[[f32; 3]]) -> Vec<String> {
    v.iter().flat_map(|p| p.map(format_f32)).collect()
}

/// An axis-aligned brush `min`..`max` as VMF text, each side in Hammer's plane order for a
/// block (top, bottom, west, east, north, south) with `material`, world-aligned axes at scale
/// 0.25. `id` is the last id used: the solid and its sides take the next seven.
pub fn block_solid(id: &mut u32, min: [i32; 3], max: [i32; 3], material: &str) -> String {
    let ([x0, y0, z0], [x1, y1, z1]) = (min, max);
    let planes = [
        format!("({x0} {y1} {z1}) ({x1} {y1} {z1}) ({x1} {y0} {z1})"),
        format!("({x0} {y0} {z0}) ({x1} {y0} {z0}) ({x1} {y1} {z0})"),
        format!("({x0} {y1} {z1}) ({x0} {y0} {z1}) ({x0} {y0} {z0})"),
        format!("({x1} {y1} {z0}) ({x1} {y0} {z0}) ({x1} {y0} {z1})"),
        format!("({x1} {y1} {z1}) ({x0} {y1} {z1}) ({x0} {y1} {z0})"),
        format!("({x1} {y0} {z0}) ({x0} {y0} {z0}) ({x0} {y0} {z1})"),
    ];
    *id += 1;
    let mut s = format!("\tsolid\n\t{{\n\t\t\"id\" \"{id}\"\n");
    for p in planes {
        *id += 1;
        s += &format!(
            "\t\tside\n\t\t{{\n\t\t\t\"id\" \"{id}\"\n\t\t\t\"plane\" \"{p}\"\n\t\t\t\"material\" \"{material}\"\n\t\t\t\"uaxis\" \"[1 0 0 0] 0.25\"\n\t\t\t\"vaxis\" \"[0 -1 0 0] 0.25\"\n\t\t\t\"rotation\" \"0\"\n\t\t\t\"lightmapscale\" \"16\"\n\t\t\t\"smoothing_groups\" \"0\"\n\t\t}}\n"
        );
    }
    s + "\t}\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_text_reads_back_with_its_values() {
        let mut w = VmfWriter::new(7);
        w.open("world");
        w.value("id", "1");
        w.value("message", "say \"hi\"");
        w.value("odd\"key", "v");
        w.value("path", "maps\\");
        w.value("both", "a\\\"b c\\d");
        w.value("after", "intact");
        w.close();
        let vmf = crate::Vmf::parse(w.finish()).unwrap();
        assert_eq!(vmf.world.get("message"), Some("say \"hi\""));
        // The text parses; the reader keeps a key's escape as written (values it unescapes).
        assert_eq!(vmf.world.get("odd\\\"key"), Some("v"));
        // A backslash before a quote (or the closing one) is doubled so that the quote stays a
        // quote: the text parses and nothing after it is swallowed.
        assert!(vmf.world.get("path").is_some_and(|v| v.starts_with("maps\\")));
        assert!(vmf.world.get("both").is_some_and(|v| v.ends_with("c\\d")));
        assert_eq!(vmf.world.get("after"), Some("intact"));
        assert_eq!(vmf.version_info.map(|v| v.map_version), Some(7));
    }

    #[test]
    fn f32_text_is_exact_and_short() {
        for v in [0.1f32, -3.5, 1e-7, 123456.79, 16.0, -0.0] {
            assert_eq!(format_f32(v).parse::<f32>().unwrap(), v);
        }
        assert_eq!(format_f32(16.0), "16");
        assert_eq!(format_f32(0.1), "0.1");
    }
}
