//! Builds the typed view from the document, checking what Hammer's own reader checks.

use crate::values::{parse_axis, parse_numbers, parse_plane, parse_row, parse_vec3};
use crate::*;

struct Ctx<'d> {
    doc: &'d Document,
    lenient: bool,
    problems: std::sync::Mutex<Vec<VmfError>>,
}

type Result<T> = std::result::Result<T, VmfError>;

/// A key lower-cased into a stack buffer, for matching against known names without allocating
/// (keys longer than the buffer match nothing, which no known key is).
fn lower<'b>(key: &str, buf: &'b mut [u8; 24]) -> &'b str {
    let Some(dst) = buf.get_mut(..key.len()) else {
        return "";
    };
    dst.copy_from_slice(key.as_bytes());
    dst.make_ascii_lowercase();
    std::str::from_utf8(dst).unwrap_or("")
}

impl<'d> Ctx<'d> {
    fn note_problem(&self, e: VmfError) {
        if let Ok(mut p) = self.problems.lock() {
            p.push(e);
        }
    }

    fn err(&self, offset: usize, message: impl Into<String>) -> VmfError {
        let (line, column) = self.doc.line_col(offset);
        VmfError {
            offset,
            line,
            column,
            message: message.into(),
        }
    }

    /// A key/value inside a class Hammer reads: both tokens must be quoted, as Hammer's chunk
    /// reader requires (an unquoted word there is a syntax error in Hammer).
    fn pair(&self, node: NodeId) -> Result<(&'d str, std::borrow::Cow<'d, str>)> {
        let key = self.doc.key(node);
        if !self.doc.key_quoted(node) {
            return Err(self.err(
                self.doc.offset(node),
                format!("unquoted key `{key}`: VMF keys must be quoted"),
            ));
        }
        let value = self.doc.value_unescaped(node).unwrap_or_default();
        if !self.doc.value_quoted(node) {
            return Err(self.err(
                self.doc.value_offset(node),
                format!("unquoted value `{value}` for key \"{key}\": VMF values must be quoted"),
            ));
        }
        Ok((key, value))
    }

    fn int(&self, node: NodeId, value: &str) -> Result<i64> {
        let t = value.trim();
        crate::values::fast_int(t)
            .ok()
            .or_else(|| {
                t.parse::<f64>()
                    .ok()
                    .filter(|f| f.fract() == 0.0)
                    .map(|f| f as i64)
            })
            .ok_or_else(|| {
                self.err(
                    self.doc.value_offset(node),
                    format!("\"{}\" must be an integer, found \"{value}\"", self.doc.key(node)),
                )
            })
    }

    fn float(&self, node: NodeId, value: &str) -> Result<f64> {
        crate::values::parse_f64(value.trim()).ok_or(()).map_err(|_| {
            self.err(
                self.doc.value_offset(node),
                format!("\"{}\" must be a number, found \"{value}\"", self.doc.key(node)),
            )
        })
    }

    fn bool(&self, node: NodeId, value: &str) -> Result<bool> {
        Ok(self.int(node, value)? != 0)
    }

    fn vec3(&self, node: NodeId, value: &str) -> Result<[f64; 3]> {
        parse_vec3(value).ok_or_else(|| {
            self.err(
                self.doc.value_offset(node),
                format!(
                    "\"{}\" must be three numbers, found \"{value}\"",
                    self.doc.key(node)
                ),
            )
        })
    }

    fn color(&self, node: NodeId, value: &str) -> Result<[u8; 3]> {
        let c = parse_numbers::<3>(value).ok_or_else(|| {
            self.err(
                self.doc.value_offset(node),
                format!("color must be three numbers, found \"{value}\""),
            )
        })?;
        Ok(c.map(|v| v.clamp(0.0, 255.0) as u8))
    }

    fn is(&self, node: NodeId, name: &str) -> bool {
        self.doc.key(node).eq_ignore_ascii_case(name)
    }

    fn version_info(&self, node: NodeId) -> Result<VersionInfo> {
        let mut v = VersionInfo {
            node: Some(node),
            ..Default::default()
        };
        for c in self.doc.children(node) {
            if self.doc.is_block(c) {
                continue;
            }
            let (k, val) = self.pair(c)?;
            let val: &str = &val;
            match lower(k, &mut [0; 24]) {
                "editorversion" => v.editor_version = self.int(c, val)?,
                "editorbuild" => v.editor_build = self.int(c, val)?,
                "mapversion" => v.map_version = self.int(c, val)?,
                "formatversion" => v.format_version = self.int(c, val)?,
                "prefab" => v.prefab = self.bool(c, val)?,
                _ => {}
            }
        }
        Ok(v)
    }

    fn visgroup(&self, node: NodeId) -> Result<VisGroup> {
        let mut g = VisGroup {
            node,
            name: String::new(),
            id: 0,
            color: [0; 3],
            children: Vec::new(),
        };
        for c in self.doc.children(node) {
            if self.doc.is_block(c) {
                if self.is(c, "visgroup") {
                    g.children.push(self.visgroup(c)?);
                }
                continue;
            }
            let (k, v) = self.pair(c)?;
            let v: &str = &v;
            match lower(k, &mut [0; 24]) {
                "name" => g.name = v.to_owned(),
                "visgroupid" => g.id = self.int(c, v)?,
                "color" => g.color = self.color(c, v)?,
                _ => {}
            }
        }
        Ok(g)
    }

    fn editor(&self, node: NodeId) -> Result<Editor> {
        let mut e = Editor {
            node: Some(node),
            ..Default::default()
        };
        for c in self.doc.children(node) {
            if self.doc.is_block(c) {
                continue;
            }
            let (k, v) = self.pair(c)?;
            let v: &str = &v;
            match lower(k, &mut [0; 24]) {
                "color" => e.color = self.color(c, v)?,
                "visgroupid" => e.visgroup_ids.push(self.int(c, v)?),
                "groupid" => e.group_id = Some(self.int(c, v)?),
                "visgroupshown" => e.visgroup_shown = self.bool(c, v)?,
                "visgroupautoshown" => e.visgroup_auto_shown = self.bool(c, v)?,
                "comments" => e.comments = Some(v.to_owned()),
                "logicalpos" => {
                    let inner = v.trim().trim_start_matches('[').trim_end_matches(']');
                    e.logical_pos = parse_numbers::<2>(inner);
                }
                _ => {}
            }
        }
        Ok(e)
    }

    fn connection(&self, node: NodeId) -> Result<Connection> {
        let (output, value) = self.pair(node)?;
        let value: &str = &value;
        let separator = if value.contains('\x1b') { '\x1b' } else { ',' };
        let bad = || {
            self.err(
                self.doc.value_offset(node),
                format!(
                    "output \"{output}\" must be \"target{s}input{s}parameter{s}delay{s}times\"",
                    s = if separator == ',' { "," } else { "<ESC>" }
                ),
            )
        };
        let [target, input, parameter, delay, times] = connection_fields(value, separator).ok_or_else(bad)?;
        Ok(Connection {
            node,
            output: output.to_owned(),
            target: target.to_owned(),
            input: input.to_owned(),
            parameter: parameter.to_owned(),
            delay: delay.trim().parse().map_err(|_| bad())?,
            times_to_fire: times.trim().parse().map_err(|_| bad())?,
            separator,
        })
    }

    fn entity(&self, node: NodeId, hidden: bool) -> Result<Entity> {
        let mut e = blank_entity(node, String::new(), hidden);
        // Solids are read after the entity's own keys, in parallel when there are many (the
        // world of a large map holds thousands); the order stays the file's.
        let mut solid_nodes: Vec<(NodeId, bool)> = Vec::new();
        for c in self.doc.children(node) {
            if self.doc.is_block(c) {
                self.entity_block(c, &mut e, &mut solid_nodes)?;
            } else {
                self.entity_key(c, &mut e)?;
            }
        }
        e.solids = self.solids(&solid_nodes)?;
        Ok(e)
    }

    /// One key/value of an entity: kept in order; `id` and `classname` also read.
    fn entity_key(&self, c: NodeId, e: &mut Entity) -> Result<()> {
        let (k, v) = self.pair(c)?;
        let v: &str = &v;
        if k.eq_ignore_ascii_case("id") {
            e.id = self.int(c, v)?;
        } else if k.eq_ignore_ascii_case("classname") {
            e.classname = v.to_owned();
        }
        e.keyvalues.push((k.to_owned(), v.to_owned()));
        Ok(())
    }

    /// One block inside an entity; solids (and hidden solids) are only collected, to be read
    /// afterwards.
    fn entity_block(&self, c: NodeId, e: &mut Entity, solid_nodes: &mut Vec<(NodeId, bool)>) -> Result<()> {
        match lower(self.doc.key(c), &mut [0; 24]) {
            "solid" => solid_nodes.push((c, e.hidden)),
            "hidden" => {
                for s in self
                    .doc
                    .children(c)
                    .filter(|&s| self.is(s, "solid") && self.doc.is_block(s))
                {
                    solid_nodes.push((s, true));
                }
            }
            "connections" => {
                for o in self.doc.children(c).filter(|&o| !self.doc.is_block(o)) {
                    e.connections.push(self.connection(o)?);
                }
            }
            "group" => e.groups.push(self.group(c)?),
            "editor" => e.editor = Some(self.editor(c)?),
            _ => {}
        }
        Ok(())
    }

    fn group(&self, node: NodeId) -> Result<Group> {
        let mut g = Group {
            node,
            id: 0,
            editor: None,
        };
        for gc in self.doc.children(node) {
            if self.doc.is_block(gc) {
                if self.is(gc, "editor") {
                    g.editor = Some(self.editor(gc)?);
                }
            } else {
                let (k, v) = self.pair(gc)?;
                let v: &str = &v;
                if k.eq_ignore_ascii_case("id") {
                    g.id = self.int(gc, v)?;
                }
            }
        }
        Ok(g)
    }

    /// The solids at `nodes`, in parallel when there are many; file order and the first error
    /// kept.
    fn solids(&self, nodes: &[(NodeId, bool)]) -> Result<Vec<Solid>> {
        let solids: Vec<Result<Solid>> = if nodes.len() >= 64 {
            use rayon::prelude::*;
            nodes.par_iter().map(|&(n, h)| self.solid(n, h)).collect()
        } else {
            nodes.iter().map(|&(n, h)| self.solid(n, h)).collect()
        };
        solids.into_iter().collect::<Result<_>>()
    }

    fn solid(&self, node: NodeId, hidden: bool) -> Result<Solid> {
        let mut s = Solid {
            node,
            id: 0,
            sides: Vec::with_capacity(6),
            editor: None,
            hidden,
        };
        for c in self.doc.children(node) {
            if self.doc.is_block(c) {
                match lower(self.doc.key(c), &mut [0; 24]) {
                    "side" => match self.side(c, s.id) {
                        Ok(side) => s.sides.push(side),
                        Err(e) if self.lenient => self.note_problem(e),
                        Err(e) => return Err(e),
                    },
                    "editor" => s.editor = Some(self.editor(c)?),
                    _ => {}
                }
            } else {
                let (k, v) = self.pair(c)?;
                let v: &str = &v;
                if k.eq_ignore_ascii_case("id") {
                    s.id = self.int(c, v)?;
                }
            }
        }
        Ok(s)
    }

    fn side(&self, node: NodeId, solid_id: i64) -> Result<Side> {
        let mut side = Side {
            node,
            id: 0,
            plane: [[0.0; 3]; 3],
            material: String::new(),
            uaxis: TextureAxis::default(),
            vaxis: TextureAxis::default(),
            rotation: 0.0,
            lightmap_scale: 16.0,
            smoothing_groups: 0,
            dispinfo: None,
            vertices_plus: None,
        };
        let mut has_plane = false;
        for c in self.doc.children(node) {
            if self.doc.is_block(c) {
                self.side_block(c, solid_id, &mut side)?;
            } else {
                has_plane |= self.side_key(c, solid_id, &mut side)?;
            }
        }
        if !has_plane {
            return Err(self.err(
                self.doc.offset(node),
                format!("solid {solid_id} side {}: no \"plane\" key", side.id),
            ));
        }
        Ok(side)
    }

    /// A block inside a side: its displacement (a problem only noted when lenient) or its
    /// `vertices_plus`.
    fn side_block(&self, c: NodeId, solid_id: i64, side: &mut Side) -> Result<()> {
        match lower(self.doc.key(c), &mut [0; 24]) {
            "dispinfo" => match self.dispinfo(c, solid_id, side.id) {
                Ok(d) => side.dispinfo = Some(Box::new(d)),
                Err(e) if self.lenient => self.note_problem(e),
                Err(e) => return Err(e),
            },
            "vertices_plus" => {
                let mut verts = Vec::new();
                for v in self.doc.children(c).filter(|&v| !self.doc.is_block(v)) {
                    let (_, val) = self.pair(v)?;
                    let val: &str = &val;
                    verts.push(self.vec3(v, val)?);
                }
                side.vertices_plus = Some(verts);
            }
            _ => {}
        }
        Ok(())
    }

    /// One key/value of a side; returns whether it was the plane.
    fn side_key(&self, c: NodeId, solid_id: i64, side: &mut Side) -> Result<bool> {
        let (k, v) = self.pair(c)?;
        let v: &str = &v;
        let at = self.doc.value_offset(c);
        match lower(k, &mut [0; 24]) {
            "id" => side.id = self.int(c, v)?,
            "plane" => {
                side.plane = self.side_plane(at, v, solid_id, side.id)?;
                return Ok(true);
            }
            "material" => side.material = v.to_owned(),
            "uaxis" | "vaxis" => {
                let axis = self.side_axis(at, k, v, solid_id, side.id)?;
                if k.eq_ignore_ascii_case("uaxis") {
                    side.uaxis = axis;
                } else {
                    side.vaxis = axis;
                }
            }
            "rotation" => side.rotation = self.float(c, v)?,
            "lightmapscale" => side.lightmap_scale = self.float(c, v)?,
            "smoothing_groups" => side.smoothing_groups = self.int(c, v)? as u32,
            _ => {}
        }
        Ok(false)
    }

    fn side_plane(&self, at: usize, v: &str, solid_id: i64, side_id: i64) -> Result<[[f64; 3]; 3]> {
        parse_plane(v).ok_or_else(|| {
            self.err(
                at,
                format!(
                    "solid {solid_id} side {side_id}: plane must be three points \
                     \"(x y z) (x y z) (x y z)\", found \"{v}\""
                ),
            )
        })
    }

    fn side_axis(&self, at: usize, k: &str, v: &str, solid_id: i64, side_id: i64) -> Result<TextureAxis> {
        parse_axis(v).ok_or_else(|| {
            self.err(
                at,
                format!(
                    "solid {solid_id} side {side_id}: {k} must be \"[x y z shift] scale\", found \"{v}\""
                ),
            )
        })
    }

    fn dispinfo(&self, node: NodeId, solid_id: i64, side_id: i64) -> Result<DispInfo> {
        let mut d = DispInfo {
            node: Some(node),
            ..Default::default()
        };
        let mut blocks = Vec::new();
        for c in self.doc.children(node) {
            if self.doc.is_block(c) {
                blocks.push(c);
                continue;
            }
            self.dispinfo_key(c, solid_id, side_id, &mut d)?;
        }
        for b in blocks {
            self.dispinfo_block(b, solid_id, side_id, &mut d)?;
        }
        Ok(d)
    }

    fn dispinfo_key(&self, c: NodeId, solid_id: i64, side_id: i64, d: &mut DispInfo) -> Result<()> {
        let (k, v) = self.pair(c)?;
        let v: &str = &v;
        match lower(k, &mut [0; 24]) {
            "power" => {
                let p = self.int(c, v)?;
                if !(1..=4).contains(&p) {
                    return Err(self.err(
                        self.doc.value_offset(c),
                        format!(
                            "solid {solid_id} side {side_id}: dispinfo power must be 2, 3 or 4, found {p}"
                        ),
                    ));
                }
                d.power = p as u32;
            }
            "startposition" => d.start_position = self.vec3(c, v)?,
            "flags" => d.flags = self.int(c, v)?,
            "elevation" => d.elevation = self.float(c, v)?,
            "subdiv" => d.subdiv = self.bool(c, v)?,
            _ => {}
        }
        Ok(())
    }

    /// One row block of a displacement (`normals`, `distances`, …): every row checked for its
    /// name and count of numbers, then stored on `d`. Unknown blocks are skipped.
    fn dispinfo_block(&self, b: NodeId, solid_id: i64, side_id: i64, d: &mut DispInfo) -> Result<()> {
        let name = self.doc.key(b).to_ascii_lowercase();
        let Some((per_row, rows)) = row_shape(&name, d.vertices_per_row()) else {
            return Ok(());
        };
        let block = DispRows {
            solid_id,
            side_id,
            name: &name,
            power: d.power,
            per_row,
            rows,
        };
        let mut floats: Vec<f32> = Vec::with_capacity(per_row * rows);
        let mut ints: Vec<i32> = Vec::new();
        let mut seen = 0usize;
        for r in self.doc.children(b).filter(|&r| !self.doc.is_block(r)) {
            self.dispinfo_row(r, &block, seen, &mut floats, &mut ints)?;
            seen += 1;
        }
        if seen != 0 && seen != rows {
            let message = format!("{block} has {seen} rows, expected {rows} (power {})", d.power);
            return Err(self.err(self.doc.offset(b), message));
        }
        block.store(d, floats, ints);
        Ok(())
    }

    /// Row `seen` of a displacement block: named `row<seen>` (any name in `allowed_verts`),
    /// within the block's rows, holding exactly its count of numbers.
    fn dispinfo_row(
        &self,
        r: NodeId,
        block: &DispRows<'_>,
        seen: usize,
        floats: &mut Vec<f32>,
        ints: &mut Vec<i32>,
    ) -> Result<()> {
        let (k, v) = self.pair(r)?;
        let v: &str = &v;
        let at = self.doc.value_offset(r);
        if !block.row_ok(k, seen) {
            let (power, last) = (block.power, block.rows - 1);
            let message =
                format!("{block} has unexpected row \"{k}\" (power {power} has rows row0..row{last})");
            return Err(self.err(self.doc.offset(r), message));
        }
        let first = floats.len();
        let parsed = if block.integer() {
            parse_row(v, ints)
        } else {
            parse_row(v, floats)
        };
        // `nan`/`inf` parse as numbers, but no displacement can be built from them.
        if let Some(word) = floats[first..].iter().position(|f| !f.is_finite()) {
            let message = format!("{block} {k}: word {} is not a finite number", word + 1);
            return Err(self.err(at, message));
        }
        match parsed {
            Ok(count) if count == block.per_row => Ok(()),
            Ok(count) => Err(self.err(at, block.count_message(k, count))),
            Err(word) => Err(self.err(at, format!("{block} {k}: word {} is not a number", word + 1))),
        }
    }

    fn cordon_boxes(&self, node: NodeId, c: &mut Cordon) -> Result<()> {
        let mut mins = None;
        let mut maxs = None;
        for k in self.doc.children(node) {
            if self.doc.is_block(k) {
                if self.is(k, "box") {
                    self.cordon_boxes(k, c)?;
                }
                continue;
            }
            let (key, v) = self.pair(k)?;
            let v: &str = &v;
            match lower(key, &mut [0; 24]) {
                "mins" => mins = Some(self.vec3(k, v)?),
                "maxs" => maxs = Some(self.vec3(k, v)?),
                "active" => c.active = self.bool(k, v)?,
                "name" => c.name = Some(v.to_owned()),
                _ => {}
            }
        }
        if let (Some(a), Some(b)) = (mins, maxs) {
            c.boxes.push((a, b));
        }
        Ok(())
    }

    fn cordon(&self, node: NodeId) -> Result<Cordon> {
        let mut c = Cordon {
            node,
            name: None,
            active: false,
            boxes: Vec::new(),
        };
        self.cordon_boxes(node, &mut c)?;
        Ok(c)
    }

    fn cordons(&self, node: NodeId) -> Result<Cordons> {
        let mut cs = Cordons {
            node,
            active: false,
            cordons: Vec::new(),
        };
        for c in self.doc.children(node) {
            if self.doc.is_block(c) {
                if self.is(c, "cordon") {
                    cs.cordons.push(self.cordon(c)?);
                }
            } else {
                let (k, v) = self.pair(c)?;
                let v: &str = &v;
                if k.eq_ignore_ascii_case("active") {
                    cs.active = self.bool(c, v)?;
                }
            }
        }
        Ok(cs)
    }

    fn cameras(&self, node: NodeId) -> Result<Cameras> {
        let mut cams = Cameras {
            node: Some(node),
            active: -1,
            cameras: Vec::new(),
        };
        for c in self.doc.children(node) {
            if self.doc.is_block(c) {
                if self.is(c, "camera") {
                    cams.cameras.push(self.camera(c)?);
                }
            } else {
                let (k, v) = self.pair(c)?;
                let v: &str = &v;
                if k.eq_ignore_ascii_case("activecamera") {
                    cams.active = self.int(c, v)?;
                }
            }
        }
        Ok(cams)
    }

    fn camera(&self, node: NodeId) -> Result<Camera> {
        let mut cam = Camera {
            node,
            position: [0.0; 3],
            look: [0.0; 3],
        };
        for k in self.doc.children(node).filter(|&k| !self.doc.is_block(k)) {
            let (key, v) = self.pair(k)?;
            let v: &str = &v;
            if key.eq_ignore_ascii_case("position") {
                cam.position = self.vec3(k, v)?;
            } else if key.eq_ignore_ascii_case("look") {
                cam.look = self.vec3(k, v)?;
            }
        }
        Ok(cam)
    }

    /// The visgroups of the top-level `visgroups` block.
    fn visgroups(&self, top: NodeId, out: &mut Vec<VisGroup>) -> Result<()> {
        for g in self
            .doc
            .children(top)
            .filter(|&g| self.doc.is_block(g) && self.is(g, "visgroup"))
        {
            out.push(self.visgroup(g)?);
        }
        Ok(())
    }

    /// The key/values of the top-level `viewsettings` block, as written.
    fn view_settings(&self, top: NodeId, out: &mut Vec<(String, String)>) -> Result<()> {
        for c in self.doc.children(top).filter(|&c| !self.doc.is_block(c)) {
            let (k, v) = self.pair(c)?;
            let v: &str = &v;
            out.push((k.to_owned(), v.to_owned()));
        }
        Ok(())
    }

    /// The top-level blocks: everything but the entities read; the world's and the entities'
    /// nodes collected to be read in parallel.
    fn top_level(&self) -> Result<TopLevel> {
        let doc = self.doc;
        let mut top_level = TopLevel::default();
        for top in doc.children(NodeId::ROOT) {
            if doc.is_block(top) {
                self.top_block(top, &mut top_level)?;
            }
        }
        Ok(top_level)
    }

    fn top_block(&self, top: NodeId, t: &mut TopLevel) -> Result<()> {
        let doc = self.doc;
        match lower(doc.key(top), &mut [0; 24]) {
            "versioninfo" => t.version_info = Some(self.version_info(top)?),
            "visgroups" => self.visgroups(top, &mut t.visgroups)?,
            "viewsettings" => self.view_settings(top, &mut t.view_settings)?,
            "world" => {
                if t.world.is_some() {
                    return Err(self.err(doc.offset(top), "a second `world` block (a VMF has one world)"));
                }
                t.world = Some(top);
            }
            "entity" => t.entity_nodes.push((top, false)),
            "hidden" => t.entity_nodes.extend(
                doc.children(top)
                    .filter(|&e| doc.is_block(e) && self.is(e, "entity"))
                    .map(|e| (e, true)),
            ),
            "cameras" => t.cameras = Some(self.cameras(top)?),
            "cordon" => t.cordon = Some(self.cordon(top)?),
            "cordons" => t.cordons = Some(self.cordons(top)?),
            _ => {}
        }
        Ok(())
    }

    /// The world and the entities. Entities are independent: read them in parallel, keeping
    /// file order and the first error. The world (most of the solids) is read beside them.
    fn world_and_entities(
        &self,
        world: Option<NodeId>,
        entity_nodes: &[(NodeId, bool)],
    ) -> Result<(Entity, Vec<Entity>)> {
        let (world, entities): (Option<Result<Entity>>, Vec<Result<Entity>>) = rayon::join(
            || world.map(|w| self.entity(w, false)),
            || {
                use rayon::prelude::*;
                entity_nodes.par_iter().map(|&(n, h)| self.entity(n, h)).collect()
            },
        );
        let world = world.transpose()?;
        let entities = entities.into_iter().collect::<Result<Vec<_>>>()?;
        // Generated VMFs may lack a world; an empty one keeps the view uniform. It has no node
        // of its own until an edit needs one.
        let world = world.unwrap_or_else(|| blank_entity(NodeId::ROOT, "worldspawn".into(), false));
        Ok((world, entities))
    }

    /// The problems noted, in file order (solids are read in parallel).
    fn into_problems(self) -> Vec<VmfError> {
        let mut problems = self.problems.into_inner().unwrap_or_else(|p| p.into_inner());
        problems.sort_by_key(|p| p.offset);
        problems
    }
}

/// What the top-level blocks hold, before the entities are read.
#[derive(Default)]
struct TopLevel {
    version_info: Option<VersionInfo>,
    visgroups: Vec<VisGroup>,
    view_settings: Vec<(String, String)>,
    world: Option<NodeId>,
    entity_nodes: Vec<(NodeId, bool)>,
    cameras: Option<Cameras>,
    cordon: Option<Cordon>,
    cordons: Option<Cordons>,
}

/// One row block of a displacement: where it is (for messages) and the shape its rows have.
#[derive(Clone, Copy)]
struct DispRows<'n> {
    solid_id: i64,
    side_id: i64,
    /// The block's name, lower-cased.
    name: &'n str,
    power: u32,
    /// Numbers per row, and rows.
    per_row: usize,
    rows: usize,
}

/// The shape of a displacement's row block `name` when the grid has `n` vertices a row:
/// (numbers per row, rows); `None` for a block that is not one of them.
fn row_shape(name: &str, n: usize) -> Option<(usize, usize)> {
    Some(match name {
        "normals" | "offsets" | "offset_normals" => (3 * n, n),
        "distances" | "alphas" => (n, n),
        "triangle_tags" => (2 * (n - 1), n - 1),
        "allowed_verts" => (10, 1),
        _ => return None,
    })
}

/// Where the block is, for messages: `solid S side D: dispinfo NAME`.
impl std::fmt::Display for DispRows<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "solid {} side {}: dispinfo {}",
            self.solid_id, self.side_id, self.name
        )
    }
}

impl DispRows<'_> {
    /// Whether a row named `k` may come as row `seen`: `row<seen>` (any name in
    /// `allowed_verts`), within the block's rows.
    fn row_ok(&self, k: &str, seen: usize) -> bool {
        let named = self.name == "allowed_verts"
            || k.strip_prefix("row")
                .and_then(|i| i.parse::<usize>().ok())
                .is_some_and(|i| i == seen);
        named && seen < self.rows
    }

    /// Row `k` holds `count` numbers, not the block's count.
    fn count_message(&self, k: &str, count: usize) -> String {
        let (per_row, power) = (self.per_row, self.power);
        format!("{self} {k} has {count} numbers, expected {per_row} (power {power})")
    }

    /// Whether the block holds integers rather than floats.
    fn integer(&self) -> bool {
        matches!(self.name, "triangle_tags" | "allowed_verts")
    }

    /// Stores the block's numbers on the displacement.
    fn store(&self, d: &mut DispInfo, floats: Vec<f32>, ints: Vec<i32>) {
        let triples = |f: &[f32]| f.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect::<Vec<_>>();
        match self.name {
            "normals" => d.normals = triples(&floats),
            "offsets" => d.offsets = triples(&floats),
            "offset_normals" => d.offset_normals = triples(&floats),
            "distances" => d.distances = floats,
            "alphas" => d.alphas = floats,
            "triangle_tags" => d.triangle_tags = ints,
            _ => d.allowed_verts = ints,
        }
    }
}

/// An entity with no keys, connections, solids or groups yet.
fn blank_entity(node: NodeId, classname: String, hidden: bool) -> Entity {
    Entity {
        node,
        id: 0,
        classname,
        keyvalues: Vec::new(),
        connections: Vec::new(),
        solids: Vec::new(),
        groups: Vec::new(),
        editor: None,
        hidden,
    }
}

/// An output's value split into `[target, input, parameter, delay, times]`: target and input
/// from the left, delay and times from the right, since the parameter in the middle may itself
/// contain the separator. Hammer treats a missing "times to fire" as fire once, but only when
/// there are exactly four fields.
fn connection_fields(value: &str, separator: char) -> Option<[&str; 5]> {
    let mut left = value.splitn(3, separator);
    let target = left.next()?;
    let input = left.next()?;
    let rest = left.next()?;
    let mut right = rest.rsplitn(3, separator);
    let last = right.next()?;
    match (right.next(), right.next()) {
        (Some(delay), Some(param)) => Some([target, input, param, delay, last]),
        (Some(param), None) => Some([target, input, param, last, "1"]),
        _ => None,
    }
}

pub(crate) fn read(doc: Document, lenient: bool) -> Result<Vmf> {
    let ctx = Ctx {
        doc: &doc,
        lenient,
        problems: Default::default(),
    };
    let top = ctx.top_level()?;
    let (world, entities) = ctx.world_and_entities(top.world, &top.entity_nodes)?;
    let problems = ctx.into_problems();
    Ok(Vmf {
        doc,
        problems,
        version_info: top.version_info,
        visgroups: top.visgroups,
        view_settings: top.view_settings,
        world,
        entities,
        cameras: top.cameras,
        cordon: top.cordon,
        cordons: top.cordons,
    })
}
