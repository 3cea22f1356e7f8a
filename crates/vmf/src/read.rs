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
        // Target and input from the left, delay and times from the right: the parameter in the
        // middle may itself contain the separator.
        let mut left = value.splitn(3, separator);
        let target = left.next().ok_or_else(bad)?;
        let input = left.next().ok_or_else(bad)?;
        let rest = left.next().ok_or_else(bad)?;
        let mut right = rest.rsplitn(3, separator);
        let last = right.next().ok_or_else(bad)?;
        let (parameter, delay, times) = match (right.next(), right.next()) {
            (Some(delay), Some(param)) => (param, delay, last),
            // Hammer treats a missing "times to fire" as fire once... but only when there are
            // exactly four fields: target, input, parameter, delay.
            (Some(param), None) => (param, last, "1"),
            _ => return Err(bad()),
        };
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
        let mut e = Entity {
            node,
            id: 0,
            classname: String::new(),
            keyvalues: Vec::new(),
            connections: Vec::new(),
            solids: Vec::new(),
            groups: Vec::new(),
            editor: None,
            hidden,
        };
        // Solids are read after the entity's own keys, in parallel when there are many (the
        // world of a large map holds thousands); the order stays the file's.
        let mut solid_nodes: Vec<(NodeId, bool)> = Vec::new();
        for c in self.doc.children(node) {
            if !self.doc.is_block(c) {
                let (k, v) = self.pair(c)?;
                let v: &str = &v;
                if k.eq_ignore_ascii_case("id") {
                    e.id = self.int(c, v)?;
                } else if k.eq_ignore_ascii_case("classname") {
                    e.classname = v.to_owned();
                }
                e.keyvalues.push((k.to_owned(), v.to_owned()));
                continue;
            }
            match lower(self.doc.key(c), &mut [0; 24]) {
                "solid" => solid_nodes.push((c, hidden)),
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
                "group" => {
                    let mut g = Group {
                        node: c,
                        id: 0,
                        editor: None,
                    };
                    for gc in self.doc.children(c) {
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
                    e.groups.push(g);
                }
                "editor" => e.editor = Some(self.editor(c)?),
                _ => {}
            }
        }
        let solids: Vec<Result<Solid>> = if solid_nodes.len() >= 64 {
            use rayon::prelude::*;
            solid_nodes.par_iter().map(|&(n, h)| self.solid(n, h)).collect()
        } else {
            solid_nodes.iter().map(|&(n, h)| self.solid(n, h)).collect()
        };
        e.solids = solids.into_iter().collect::<Result<_>>()?;
        Ok(e)
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
                continue;
            }
            let (k, v) = self.pair(c)?;
            let v: &str = &v;
            let at = self.doc.value_offset(c);
            match lower(k, &mut [0; 24]) {
                "id" => side.id = self.int(c, v)?,
                "plane" => {
                    side.plane = parse_plane(v).ok_or_else(|| {
                        self.err(
                            at,
                            format!(
                                "solid {solid_id} side {}: plane must be three points \
                                 \"(x y z) (x y z) (x y z)\", found \"{v}\"",
                                side.id
                            ),
                        )
                    })?;
                    has_plane = true;
                }
                "material" => side.material = v.to_owned(),
                "uaxis" | "vaxis" => {
                    let axis = parse_axis(v).ok_or_else(|| {
                        self.err(
                            at,
                            format!(
                                "solid {solid_id} side {}: {k} must be \"[x y z shift] scale\", found \"{v}\"",
                                side.id
                            ),
                        )
                    })?;
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
        }
        if !has_plane {
            return Err(self.err(
                self.doc.offset(node),
                format!("solid {solid_id} side {}: no \"plane\" key", side.id),
            ));
        }
        Ok(side)
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
        }
        let n = d.vertices_per_row();
        for b in blocks {
            let name = self.doc.key(b).to_ascii_lowercase();
            // (words per row, rows)
            let (per_row, rows) = match name.as_str() {
                "normals" | "offsets" | "offset_normals" => (3 * n, n),
                "distances" | "alphas" => (n, n),
                "triangle_tags" => (2 * (n - 1), n - 1),
                "allowed_verts" => (10, 1),
                _ => continue,
            };
            let mut floats: Vec<f32> = Vec::with_capacity(per_row * rows);
            let mut ints: Vec<i32> = Vec::new();
            let integer = matches!(name.as_str(), "triangle_tags" | "allowed_verts");
            let mut seen = 0usize;
            for r in self.doc.children(b).filter(|&r| !self.doc.is_block(r)) {
                let (k, v) = self.pair(r)?;
                let v: &str = &v;
                let at = self.doc.value_offset(r);
                let row_ok = name == "allowed_verts"
                    || k.strip_prefix("row")
                        .and_then(|i| i.parse::<usize>().ok())
                        .is_some_and(|i| i == seen);
                if !row_ok || seen >= rows {
                    return Err(self.err(
                        self.doc.offset(r),
                        format!(
                            "solid {solid_id} side {side_id}: dispinfo {name} has unexpected row \"{k}\" \
                             (power {} has rows row0..row{})",
                            d.power,
                            rows - 1
                        ),
                    ));
                }
                let parsed = if integer {
                    parse_row(v, &mut ints)
                } else {
                    parse_row(v, &mut floats)
                };
                match parsed {
                    Ok(count) if count == per_row => {}
                    Ok(count) => {
                        return Err(self.err(
                            at,
                            format!(
                                "solid {solid_id} side {side_id}: dispinfo {name} {k} has {count} numbers, \
                                 expected {per_row} (power {})",
                                d.power
                            ),
                        ));
                    }
                    Err(word) => {
                        return Err(self.err(
                            at,
                            format!("solid {solid_id} side {side_id}: dispinfo {name} {k}: word {} is not a number", word + 1),
                        ));
                    }
                }
                seen += 1;
            }
            if seen != 0 && seen != rows {
                return Err(self.err(
                    self.doc.offset(b),
                    format!(
                        "solid {solid_id} side {side_id}: dispinfo {name} has {seen} rows, expected {rows} (power {})",
                        d.power
                    ),
                ));
            }
            let triples = |f: &[f32]| f.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect::<Vec<_>>();
            match name.as_str() {
                "normals" => d.normals = triples(&floats),
                "offsets" => d.offsets = triples(&floats),
                "offset_normals" => d.offset_normals = triples(&floats),
                "distances" => d.distances = floats,
                "alphas" => d.alphas = floats,
                "triangle_tags" => d.triangle_tags = ints,
                _ => d.allowed_verts = ints,
            }
        }
        Ok(d)
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
}

pub(crate) fn read(doc: Document, lenient: bool) -> Result<Vmf> {
    let ctx = Ctx {
        doc: &doc,
        lenient,
        problems: Default::default(),
    };
    let mut version_info = None;
    let mut visgroups = Vec::new();
    let mut view_settings = Vec::new();
    let mut world = None;
    let mut entity_nodes: Vec<(NodeId, bool)> = Vec::new();
    let mut cameras = None;
    let mut cordon = None;
    let mut cordons = None;
    for top in doc.children(NodeId::ROOT) {
        if !doc.is_block(top) {
            continue;
        }
        match lower(doc.key(top), &mut [0; 24]) {
            "versioninfo" => version_info = Some(ctx.version_info(top)?),
            "visgroups" => {
                for g in doc
                    .children(top)
                    .filter(|&g| doc.is_block(g) && ctx.is(g, "visgroup"))
                {
                    visgroups.push(ctx.visgroup(g)?);
                }
            }
            "viewsettings" => {
                for c in doc.children(top).filter(|&c| !doc.is_block(c)) {
                    let (k, v) = ctx.pair(c)?;
                    let v: &str = &v;
                    view_settings.push((k.to_owned(), v.to_owned()));
                }
            }
            "world" => {
                if world.is_some() {
                    return Err(ctx.err(doc.offset(top), "a second `world` block (a VMF has one world)"));
                }
                world = Some(top);
            }
            "entity" => entity_nodes.push((top, false)),
            "hidden" => {
                for e in doc
                    .children(top)
                    .filter(|&e| doc.is_block(e) && ctx.is(e, "entity"))
                {
                    entity_nodes.push((e, true));
                }
            }
            "cameras" => {
                let mut cams = Cameras {
                    node: Some(top),
                    active: -1,
                    cameras: Vec::new(),
                };
                for c in doc.children(top) {
                    if doc.is_block(c) {
                        if ctx.is(c, "camera") {
                            let mut cam = Camera {
                                node: c,
                                position: [0.0; 3],
                                look: [0.0; 3],
                            };
                            for k in doc.children(c).filter(|&k| !doc.is_block(k)) {
                                let (key, v) = ctx.pair(k)?;
                                let v: &str = &v;
                                if key.eq_ignore_ascii_case("position") {
                                    cam.position = ctx.vec3(k, v)?;
                                } else if key.eq_ignore_ascii_case("look") {
                                    cam.look = ctx.vec3(k, v)?;
                                }
                            }
                            cams.cameras.push(cam);
                        }
                    } else {
                        let (k, v) = ctx.pair(c)?;
                        let v: &str = &v;
                        if k.eq_ignore_ascii_case("activecamera") {
                            cams.active = ctx.int(c, v)?;
                        }
                    }
                }
                cameras = Some(cams);
            }
            "cordon" => cordon = Some(ctx.cordon(top)?),
            "cordons" => {
                let mut cs = Cordons {
                    node: top,
                    active: false,
                    cordons: Vec::new(),
                };
                for c in doc.children(top) {
                    if doc.is_block(c) {
                        if ctx.is(c, "cordon") {
                            cs.cordons.push(ctx.cordon(c)?);
                        }
                    } else {
                        let (k, v) = ctx.pair(c)?;
                        let v: &str = &v;
                        if k.eq_ignore_ascii_case("active") {
                            cs.active = ctx.bool(c, v)?;
                        }
                    }
                }
                cordons = Some(cs);
            }
            _ => {}
        }
    }
    // Entities are independent: read them in parallel, keeping file order and the first error.
    // The world (most of the solids) is read beside them.
    let (world, entities): (Option<Result<Entity>>, Vec<Result<Entity>>) = rayon::join(
        || world.map(|w| ctx.entity(w, false)),
        || {
            use rayon::prelude::*;
            entity_nodes.par_iter().map(|&(n, h)| ctx.entity(n, h)).collect()
        },
    );
    let world = world.transpose()?;
    let entities = entities.into_iter().collect::<Result<Vec<_>>>()?;
    // Generated VMFs may lack a world; an empty one keeps the view uniform. It has no node of its
    // own until an edit needs one.
    let world = match world {
        Some(w) => w,
        None => Entity {
            node: NodeId::ROOT,
            id: 0,
            classname: "worldspawn".into(),
            keyvalues: Vec::new(),
            connections: Vec::new(),
            solids: Vec::new(),
            groups: Vec::new(),
            editor: None,
            hidden: false,
        },
    };
    // Solids are read in parallel: put the problems back in file order.
    let mut problems = ctx.problems.into_inner().unwrap_or_else(|p| p.into_inner());
    problems.sort_by_key(|p| p.offset);
    Ok(Vmf {
        doc,
        problems,
        version_info,
        visgroups,
        view_settings,
        world,
        entities,
        cameras,
        cordon,
        cordons,
    })
}
