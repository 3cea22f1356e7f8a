//! Static props: each `prop_static` entity becomes a record of the `sprp` game lump, as
//! Valve's VBSP (`staticprop.cpp`) makes it, on the finished BSP tree.
//!
//! - The lump's version and record layout are the target's ([`crate::Options::target`]): v10 in
//!   Source 2013 multiplayer's 72-byte layout with 32-bit flags by default, v6 for the
//!   singleplayer branch, v9 for Portal 2 and Left 4 Dead 2, v11 for CS:GO, v4/v5 for BSP 19.
//! - A prop's leaves are the non-solid leaves whose convex volume overlaps the model: one
//!   convex hull per mesh (LOD 0 vertices of the `.vvd`), tested against the leaf's volume
//!   (the planes on its path from the root, as Valve), after a descent by the hulls' box.
//! - A model that cannot be read, lacks `$staticprop`, or has `prop_data` without
//!   `allowstatic` drops its props with a warning, as Valve's. So does a prop that touches no
//!   leaf ("outside the map").
//! - Without the game's models ([`crate::Options::models`] unset), or for a model whose `.mdl`
//!   the search paths lack (Valve drops those props; game content here is often partial), the
//!   props keep their placement, flags and model names; their leaves are those a box of
//!   [`FALLBACK_HALF_EXTENT`] around the origin reaches, and each model is warned about once.

use std::collections::HashMap;

use srcmap_bsp::Bsp;
use srcmap_bsp::gamelump::{StaticProp, StaticPropLayout, StaticProps};
use srcmap_geom::DVec3;
use srcmap_model::{ModelError, ModelFiles, StaticUse};

use crate::contents::CONTENTS_SOLID;
use crate::diag::{Diagnostic, Where};
use crate::input::{MapEntity, MapInput};
use crate::instances::Rot;

/// Reads a game file (`models/x.mdl`) through the game's search paths; `None` when absent.
pub type ModelReader<'a> = &'a (dyn Fn(&str) -> Option<Vec<u8>> + Sync);

/// Half the side of the box around a prop's origin whose leaves a prop gets when its model
/// is not available: large enough that the list holds Valve's for nearly every corpus prop
/// (256 left a quarter of them short), at some 15 times Valve's leaf references.
pub const FALLBACK_HALF_EXTENT: f64 = 512.0;

use srcmap_bsp::gamelump::static_prop_flags::*;

/// What a model name resolved to, once per model.
enum ModelShape {
    /// The point set of each mesh, in model space.
    Hulls(Vec<Vec<DVec3>>),
    /// Not usable as a static prop: its props are dropped.
    Rejected,
    /// No model files to read (compile without the game): a box around the origin.
    Unknown,
}

fn is_static_prop_class(e: &MapEntity) -> bool {
    e.classname.eq_ignore_ascii_case("prop_static") || e.classname.eq_ignore_ascii_case("static_prop")
}

/// Whether the map places any static prop (else the compile leaves the game lump alone).
pub fn has_static_props(input: &MapInput) -> bool {
    input.entities.iter().any(is_static_prop_class)
}

fn at(e: &MapEntity) -> Where {
    Where {
        entity_id: Some(e.id),
        classname: Some(e.classname.clone()),
        ..Default::default()
    }
}

/// `atof`: the leading number, 0 when there is none.
fn float_key(e: &MapEntity, key: &str) -> f64 {
    e.get(key).map_or(0.0, leading_number)
}

fn leading_number(s: &str) -> f64 {
    let s = s.trim_start();
    let mut end = 0;
    for (i, c) in s.char_indices() {
        let ok = c.is_ascii_digit() || c == '.' || ((c == '-' || c == '+') && i == 0) || c == 'e' || c == 'E';
        if !ok {
            break;
        }
        end = i + c.len_utf8();
    }
    (0..=end).rev().find_map(|n| s[..n].parse().ok()).unwrap_or(0.0)
}

/// `atoi`.
fn int_key(e: &MapEntity, key: &str) -> i64 {
    float_key(e, key).trunc() as i64
}

/// `sscanf("%f %f %f")`: missing parts stay 0.
fn vec_key(e: &MapEntity, key: &str) -> DVec3 {
    let mut v = [0.0; 3];
    if let Some(text) = e.get(key) {
        for (slot, part) in v.iter_mut().zip(text.split_whitespace()) {
            *slot = leading_number(part);
        }
    }
    DVec3::from_array(v)
}

fn vector(v: DVec3) -> [f32; 3] {
    [v.x as f32, v.y as f32, v.z as f32]
}

/// Builds the `sprp` lump of `bsp` from the map's static props. Does nothing for a map
/// without any, so such maps compile exactly as before.
pub fn emit(input: &MapInput, bsp: &mut Bsp, models: Option<ModelReader<'_>>, diags: &mut Vec<Diagnostic>) {
    if !has_static_props(input) {
        return;
    }
    let Some(lump) = bsp.game_lumps.static_props() else {
        return;
    };
    // The target's layout: the version number alone does not tell Source 2013's v10 from CS:GO's.
    let mut writer = PropWriter::new(input, bsp, lump.layout, models);
    for e in input.entities.iter().filter(|e| is_static_prop_class(e)) {
        writer.add(e, diags);
    }
    let out = writer.out;
    if let Some(lump) = bsp.game_lumps.static_props_mut() {
        *lump = out;
    }
}

/// The `sprp` lump being built, and what placing a prop reads.
struct PropWriter<'a> {
    out: StaticProps,
    tree: LeafTree<'a>,
    /// Each model read so far, by normalised name.
    shapes: HashMap<String, ModelShape>,
    /// The `info_lighting`s: (name, origin).
    lighting: Vec<(&'a str, DVec3)>,
    models: Option<ModelReader<'a>>,
}

impl<'a> PropWriter<'a> {
    fn new(
        input: &'a MapInput,
        bsp: &'a Bsp,
        layout: StaticPropLayout,
        models: Option<ModelReader<'a>>,
    ) -> Self {
        PropWriter {
            out: StaticProps {
                layout,
                ..Default::default()
            },
            tree: LeafTree::new(bsp),
            shapes: HashMap::new(),
            lighting: (input.entities.iter())
                .filter(|e| e.classname.eq_ignore_ascii_case("info_lighting"))
                .map(|e| (e.get("targetname").unwrap_or(""), vec_key(e, "origin")))
                .collect(),
            models,
        }
    }

    /// A prop: its leaves from its model's hulls (a box without the model), its model in
    /// the dictionary, its record; dropped (reported) outside the map or past the leaf
    /// list's limit.
    fn add(&mut self, e: &MapEntity, diags: &mut Vec<Diagnostic>) {
        let layout = self.out.layout;
        let name = e.get("model").unwrap_or("");
        let origin = vec_key(e, "origin");
        let angles = vec_key(e, "angles");
        let Some(leaves) = self.leaves(e, name, origin, angles, diags) else {
            return;
        };
        if let Some(why) = self.leaf_problem(name, origin, &leaves) {
            diags.push(Diagnostic::warning(at(e), why));
            return;
        }
        let mut prop = record(e, origin, angles, layout);
        prop.prop_type = self.model_index(name) as u16;
        prop.first_leaf = self.out.leaves.len() as u16;
        prop.leaf_count = leaves.len() as u16;
        self.aim_lighting(e, &mut prop);
        self.out.leaves.extend(leaves);
        self.out.props.push(prop);
    }

    /// Why a prop touching `leaves` is dropped, if it is: it is outside the map, or the
    /// lump's leaf list is full (it indexes it with 16 bits before v12, as Valve's).
    fn leaf_problem(&self, name: &str, origin: DVec3, leaves: &[u32]) -> Option<String> {
        if leaves.is_empty() {
            return Some(format!(
                "static prop {name} outside the map ({:.2}, {:.2}, {:.2}): dropped",
                origin.x, origin.y, origin.z
            ));
        }
        if layout_leaf_limit(self.out.layout) < self.out.leaves.len() + leaves.len() {
            return Some(format!(
                "static prop {name}: the static prop leaf list is full; dropped"
            ));
        }
        None
    }

    /// The leaves the prop's model touches; `None` when its model is rejected.
    fn leaves(
        &mut self,
        e: &MapEntity,
        name: &str,
        origin: DVec3,
        angles: DVec3,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<Vec<u32>> {
        let models = self.models;
        let shape = (self.shapes)
            .entry(srcmap_model::normalise(name))
            .or_insert_with(|| load_shape(name, models, e, diags));
        Some(match shape {
            ModelShape::Rejected => return None,
            ModelShape::Hulls(hulls) => {
                let rot = Rot::from_angles(angles);
                let world: Vec<Vec<DVec3>> = hulls
                    .iter()
                    .map(|h| h.iter().map(|&p| origin + rot.apply(p)).collect())
                    .collect();
                self.tree.leaves_touching(&world)
            }
            ModelShape::Unknown => self
                .tree
                .leaves_touching(&[box_corners(origin, FALLBACK_HALF_EXTENT)]),
        })
    }

    /// The model's index in the dictionary, added when new.
    fn model_index(&mut self, name: &str) -> usize {
        match self.out.models.iter().position(|m| m == name) {
            Some(i) => i,
            None => {
                self.out.models.push(name.to_string());
                self.out.models.len() - 1
            }
        }
    }

    /// A prop naming an `info_lighting` (`lightingorigin`) is lit from its origin; Valve
    /// searches from the last one.
    fn aim_lighting(&self, e: &MapEntity, prop: &mut StaticProp) {
        let target = e.get("lightingorigin").unwrap_or("");
        if target.is_empty() {
            return;
        }
        if let Some((_, o)) = self.lighting.iter().rev().find(|(n, _)| *n == target) {
            let layout = self.out.layout;
            prop.lighting_origin = vector(*o);
            let flags = prop.flags_in(layout) | USE_LIGHTING_ORIGIN;
            prop.set_flags_in(layout, flags);
        }
    }
}

/// The eight corners of the cube of half side `r` around `center`.
fn box_corners(center: DVec3, r: f64) -> Vec<DVec3> {
    (0..8)
        .map(|i| {
            let s = |bit: i32| if i & bit != 0 { r } else { -r };
            center + DVec3::new(s(1), s(2), s(4))
        })
        .collect()
}

/// How many leaf references the lump can index.
fn layout_leaf_limit(layout: StaticPropLayout) -> usize {
    match layout {
        StaticPropLayout::V12 | StaticPropLayout::V13 => u32::MAX as usize,
        _ => u16::MAX as usize,
    }
}

/// A prop's record from its entity's keys, as Valve's `EmitStaticProps` reads them.
fn record(e: &MapEntity, origin: DVec3, angles: DVec3, layout: StaticPropLayout) -> StaticProp {
    let (mut flags, lightmap_res) = flags_and_lightmap(e);
    let (fade_min, fade_max) = fade_distances(e, &mut flags);
    let level = |key: &str| int_key(e, key) as u8;
    let scale = number_or_one(e, "modelscale");
    let mut p = StaticProp {
        origin: vector(origin),
        angles: vector(angles),
        solid: int_key(e, "solid") as u8,
        skin: int_key(e, "skin") as i32,
        fade_min_dist: fade_min,
        fade_max_dist: fade_max,
        forced_fade_scale: number_or_one(e, "fadescale"),
        min_dx_level: int_key(e, "mindxlevel") as u16,
        max_dx_level: int_key(e, "maxdxlevel") as u16,
        lightmap_res,
        min_cpu_level: level("mincpulevel"),
        max_cpu_level: level("maxcpulevel"),
        min_gpu_level: level("mingpulevel"),
        max_gpu_level: level("maxgpulevel"),
        diffuse_modulation: diffuse_modulation(e),
        scale: [scale; 3],
        ..Default::default()
    };
    p.set_flags_in(layout, flags);
    p
}

/// The flags the entity's switches set, and its lightmap resolution when it asks for
/// lightmaps (else the no-per-texel-lighting flag).
fn flags_and_lightmap(e: &MapEntity) -> (u32, [u16; 2]) {
    let mut flags = 0;
    for (key, flag) in [
        ("ignorenormals", IGNORE_NORMALS),
        ("disableshadows", NO_SHADOW),
        ("disablevertexlighting", NO_PER_VERTEX_LIGHTING),
        ("disableselfshadowing", NO_SELF_SHADOWING),
        ("screenspacefade", SCREEN_SPACE_FADE),
    ] {
        if int_key(e, key) == 1 {
            flags |= flag;
        }
    }
    let mut lightmap_res = [0u16; 2];
    if int_key(e, "generatelightmaps") == 0 {
        flags |= NO_PER_TEXEL_LIGHTING;
    } else {
        lightmap_res = [
            int_key(e, "lightmapresolutionx") as u16,
            int_key(e, "lightmapresolutiony") as u16,
        ];
    }
    (flags, lightmap_res)
}

/// The fade distances (min, max): a prop with a max fades (flag set), its min below zero
/// meaning the max.
fn fade_distances(e: &MapEntity, flags: &mut u32) -> (f32, f32) {
    let fade_max = float_key(e, "fademaxdist") as f32;
    let mut fade_min = 0.0;
    if fade_max > 0.0 {
        *flags |= FADES;
        fade_min = float_key(e, "fademindist") as f32;
        if fade_min < 0.0 {
            fade_min = fade_max;
        }
    }
    (fade_min, fade_max)
}

/// A number key read as C's `atof`, 1 when absent or empty.
fn number_or_one(e: &MapEntity, key: &str) -> f32 {
    match e.get(key) {
        Some(v) if !v.is_empty() => leading_number(v) as f32,
        _ => 1.0,
    }
}

/// The render colour (white without one) and amount.
fn diffuse_modulation(e: &MapEntity) -> [u8; 4] {
    let colour = vec_key(e, "rendercolor");
    let alpha = e.get("renderamt").map_or(255, |v| leading_number(v) as u8);
    match e.get("rendercolor") {
        Some(_) => [colour.x as u8, colour.y as u8, colour.z as u8, alpha],
        None => [255, 255, 255, alpha],
    }
}

/// Reads a model once: its mesh point sets, or why its props go.
fn load_shape(
    name: &str,
    models: Option<ModelReader<'_>>,
    e: &MapEntity,
    diags: &mut Vec<Diagnostic>,
) -> ModelShape {
    // Valve's loader finds no studio model there; no game content is needed to know it.
    if !name.to_ascii_lowercase().ends_with(".mdl") {
        diags.push(Diagnostic::warning(
            at(e),
            format!("error loading studio model \"{name}\" (not a .mdl): its props are dropped"),
        ));
        return ModelShape::Rejected;
    }
    let files = match model_files(name, models, e, diags) {
        Ok(files) => files,
        Err(shape) => return shape,
    };
    if let Some(why) = static_use_problem(name, files.mdl.static_use()) {
        diags.push(Diagnostic::warning(at(e), why));
        return ModelShape::Rejected;
    }
    let hulls = solid_hulls(&files);
    if hulls.is_empty() {
        diags.push(Diagnostic::warning(
            at(e),
            format!("bad geometry on {name}: its props are dropped"),
        ));
        return ModelShape::Rejected;
    }
    ModelShape::Hulls(hulls)
}

/// The model's files; without them (reported) the props are placed by a box
/// ([`ModelShape::Unknown`]) when the game's files are missing or lack the model, and
/// dropped ([`ModelShape::Rejected`]) when the model does not read.
fn model_files(
    name: &str,
    models: Option<ModelReader<'_>>,
    e: &MapEntity,
    diags: &mut Vec<Diagnostic>,
) -> Result<ModelFiles, ModelShape> {
    let unknown = |why: &str, diags: &mut Vec<Diagnostic>| {
        diags.push(Diagnostic::warning(
            at(e),
            format!(
                "model {name} {why}: its props are kept, with a leaf list from a box around their origin \
                 (Valve's vbsp drops the props of a model it cannot load, or one without $staticprop or \
                 breakable by its prop_data: that takes the model to know)"
            ),
        ));
        ModelShape::Unknown
    };
    let Some(read) = models else {
        return Err(unknown("not available (no game content)", diags));
    };
    match ModelFiles::load(name, read) {
        Ok(files) => Ok(files),
        // Valve's VBSP drops the props of a model its file system lacks; here the game content
        // is often partial, so the props stay, placed as without the game.
        Err(ModelError::Missing(path)) if path.ends_with(".mdl") => {
            Err(unknown("not found in the game's search paths", diags))
        }
        Err(err) => {
            diags.push(Diagnostic::warning(
                at(e),
                format!("error loading studio model {name}: {err}; its props are dropped"),
            ));
            Err(ModelShape::Rejected)
        }
    }
}

/// Why a model cannot be a static prop, as Valve words it; `None` when it can.
fn static_use_problem(name: &str, static_use: StaticUse) -> Option<String> {
    match static_use {
        StaticUse::Allowed => None,
        StaticUse::NotStaticProp => Some(format!(
            "to use model {name} with prop_static, it must be compiled with $staticprop: its props are dropped"
        )),
        StaticUse::Dynamic => Some(format!(
            "prop_static using model {name}, which must be used on a dynamic entity (i.e. prop_physics): deleted"
        )),
    }
}

/// The model's meshes as point sets, those that span a solid, each without its repeated
/// points ([`distinct_points`]).
fn solid_hulls(files: &ModelFiles) -> Vec<Vec<DVec3>> {
    (files.mesh_points().into_iter())
        .map(|m| {
            m.into_iter()
                .map(|p| DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64))
                .collect()
        })
        .filter(|m: &Vec<DVec3>| has_volume(m))
        .map(distinct_points)
        .collect()
}

/// A mesh's points with each repeat dropped (a render mesh repeats a corner for each normal
/// and texture coordinate it has), in an order that leaves every answer of the leaf tests
/// unchanged: the first point stays first (the overlap iteration starts from it), then each
/// distinct point at its last occurrence (the support search keeps the last of equal maxima,
/// so ties between different points resolve as before). Only bitwise-equal points merge.
fn distinct_points(points: Vec<DVec3>) -> Vec<DVec3> {
    let key = |p: &DVec3| p.to_array().map(f64::to_bits);
    let mut last = HashMap::with_capacity(points.len());
    for (i, p) in points.iter().enumerate() {
        last.insert(key(p), i);
    }
    let rest = (points.iter().enumerate()).filter(|&(i, p)| last[&key(p)] == i);
    points
        .first()
        .into_iter()
        .chain(rest.map(|(_, p)| p))
        .copied()
        .collect()
}

/// Whether the points span a solid: Valve's physics hull builder makes no hull of a flat or
/// degenerate mesh, so such a mesh touches no leaf.
fn has_volume(points: &[DVec3]) -> bool {
    const THICKNESS: f64 = 0.01;
    let Some(&a) = points.first() else { return false };
    let far = |from: DVec3| {
        points.iter().copied().max_by(|p, q| {
            (*p - from)
                .length_squared()
                .total_cmp(&(*q - from).length_squared())
        })
    };
    let Some(b) = far(a) else { return false };
    let ab = b - a;
    if ab.length() < THICKNESS {
        return false;
    }
    let off_line = |p: &DVec3| ab.cross(*p - a).length_squared();
    let Some(&c) = points.iter().max_by(|p, q| off_line(p).total_cmp(&off_line(q))) else {
        return false;
    };
    let normal = ab.cross(c - a);
    if normal.length() < THICKNESS * ab.length() {
        return false;
    }
    let normal = normal.normalize();
    points.iter().any(|p| (*p - a).dot(normal).abs() > THICKNESS)
}

/// The BSP's world tree, for finding the leaves a convex set overlaps.
struct LeafTree<'a> {
    bsp: &'a Bsp,
    /// Each tested leaf's volume corners: a leaf's path from the root, so its volume, is fixed.
    corners: HashMap<usize, Vec<DVec3>>,
}

/// A half-space `normal · x <= dist`.
#[derive(Clone, Copy)]
struct HalfSpace {
    normal: DVec3,
    dist: f64,
}

impl HalfSpace {
    /// The plane's back and front half-spaces.
    fn sides_of(normal: DVec3, dist: f64) -> (HalfSpace, HalfSpace) {
        let back = HalfSpace { normal, dist };
        let front = HalfSpace {
            normal: -normal,
            dist: -dist,
        };
        (back, front)
    }
}

impl<'a> LeafTree<'a> {
    fn new(bsp: &'a Bsp) -> Self {
        LeafTree {
            bsp,
            corners: HashMap::new(),
        }
    }

    /// The non-solid leaves whose volume overlaps the convex hull of any of `hulls`, in
    /// the order Valve's descent visits them (back child first).
    fn leaves_touching(&mut self, hulls: &[Vec<DVec3>]) -> Vec<u32> {
        let mut out = Vec::new();
        let (Some(lo), Some(hi)) = (
            hulls.iter().flatten().copied().reduce(DVec3::min),
            hulls.iter().flatten().copied().reduce(DVec3::max),
        ) else {
            return out;
        };
        if self.bsp.nodes.is_empty() {
            return out;
        }
        let hulls: Vec<PropHull<'_>> = hulls.iter().map(|h| PropHull::new(h)).collect();
        let mut path = Vec::new();
        self.descend(0, lo, hi, &hulls, &mut path, &mut out);
        out
    }

    fn descend(
        &mut self,
        mut node: i32,
        lo: DVec3,
        hi: DVec3,
        hulls: &[PropHull<'_>],
        path: &mut Vec<HalfSpace>,
        out: &mut Vec<u32>,
    ) {
        let depth = path.len();
        while node >= 0 {
            let Some(n) = self.bsp.nodes.get(node as usize) else {
                path.truncate(depth);
                return;
            };
            let Some(plane) = self.bsp.planes.get(n.plane as usize) else {
                path.truncate(depth);
                return;
            };
            let normal = DVec3::from_array(plane.normal.map(f64::from));
            let dist = plane.dist as f64;
            // The box corners nearest and farthest along the normal.
            let near = DVec3::select(normal.cmpge(DVec3::ZERO), lo, hi);
            let far = DVec3::select(normal.cmpge(DVec3::ZERO), hi, lo);
            let (back, front) = HalfSpace::sides_of(normal, dist);
            if normal.dot(far) <= dist {
                path.push(back);
                node = n.children[1];
            } else if normal.dot(near) >= dist {
                path.push(front);
                node = n.children[0];
            } else {
                path.push(back);
                self.descend(n.children[1], lo, hi, hulls, path, out);
                path.pop();
                path.push(front);
                self.descend(n.children[0], lo, hi, hulls, path, out);
                path.truncate(depth);
                return;
            }
        }
        self.visit_leaf((-1 - node) as usize, hulls, path, out);
        path.truncate(depth);
    }

    /// A leaf reached by `path`: kept when it is not solid and a hull reaches into it.
    fn visit_leaf(&mut self, leaf: usize, hulls: &[PropHull<'_>], path: &[HalfSpace], out: &mut Vec<u32>) {
        let solid = self
            .bsp
            .leafs
            .get(leaf)
            .is_none_or(|l| l.contents as u32 & CONTENTS_SOLID != 0);
        if solid {
            return;
        }
        let corners = self.corners.entry(leaf).or_insert_with(|| polytope_corners(path));
        // A hull point inside the leaf settles it without the iteration.
        let inside = |p: &DVec3| path.iter().all(|h| h.normal.dot(*p) <= h.dist);
        let touches = |h: &PropHull<'_>| {
            h.points.iter().any(inside) || h.holds_any(corners) || hulls_overlap(h.points, corners)
        };
        if !corners.is_empty() && hulls.iter().any(touches) {
            out.push(leaf as u32);
        }
    }
}

/// The points of a convex set a prop occupies, and their box when they are its eight corners
/// (the set is then that box).
struct PropHull<'h> {
    points: &'h [DVec3],
    solid_box: Option<(DVec3, DVec3)>,
}

impl<'h> PropHull<'h> {
    fn new(points: &'h [DVec3]) -> Self {
        let lo = points.iter().copied().reduce(DVec3::min);
        let hi = points.iter().copied().reduce(DVec3::max);
        let pick = |bit: bool, lo: f64, hi: f64| if bit { hi } else { lo };
        let corner = |i: usize, lo: DVec3, hi: DVec3| {
            DVec3::new(
                pick(i & 1 != 0, lo.x, hi.x),
                pick(i & 2 != 0, lo.y, hi.y),
                pick(i & 4 != 0, lo.z, hi.z),
            )
        };
        let solid_box = lo
            .zip(hi)
            .filter(|&(lo, hi)| (0..8).all(|i| points.contains(&corner(i, lo, hi))));
        PropHull { points, solid_box }
    }

    /// Whether one of `corners` lies in the box the points span, when they are its corners.
    /// Such a point is common to both sets, so [`hulls_overlap`] would find them overlapping:
    /// a point of `a − b` lies within rounding (far below its tolerance) of any direction's
    /// support, so it never finds a separating one. Props without a model are such boxes,
    /// large beside most leaves, and this settles nearly all their leaves without iterating.
    fn holds_any(&self, corners: &[DVec3]) -> bool {
        self.solid_box
            .is_some_and(|(lo, hi)| corners.iter().any(|c| c.cmpge(lo).all() && c.cmple(hi).all()))
    }
}

/// The corners of the convex volume the half-spaces bound (inside the world's limits): each
/// plane's polygon clipped by all the others.
fn polytope_corners(path: &[HalfSpace]) -> Vec<DVec3> {
    use srcmap_geom::{MAX_WORLD, Plane, Winding};
    let mut planes: Vec<Plane> = path.iter().map(|h| Plane::new(h.normal, h.dist)).collect();
    for axis in [DVec3::X, DVec3::Y, DVec3::Z] {
        planes.push(Plane::new(axis, MAX_WORLD));
        planes.push(Plane::new(-axis, MAX_WORLD));
    }
    let mut corners = Vec::new();
    for (i, p) in planes.iter().enumerate() {
        // The face on plane i faces outwards: the volume is behind every plane.
        let mut w = Some(Winding::base_for_plane(p));
        for (j, q) in planes.iter().enumerate() {
            if i == j {
                continue;
            }
            w = w.and_then(|w| w.into_back(q, 0.01, false));
            if w.is_none() {
                break;
            }
        }
        if let Some(w) = w {
            corners.extend(w.points);
        }
    }
    // Neighbouring faces share their corners.
    corners.sort_by(|a, b| {
        a.to_array()
            .partial_cmp(&b.to_array())
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    corners.dedup_by(|a, b| a.distance_squared(*b) < 1e-6);
    corners
}

/// The point of `pts` furthest along `d`, the last of equal ones (as `max_by` picks), each
/// point's distance computed once; zero for no points.
fn support_point(pts: &[DVec3], d: DVec3) -> DVec3 {
    let Some((&first, rest)) = pts.split_first() else {
        return DVec3::ZERO;
    };
    let (mut best, mut best_at) = (first, first.dot(d));
    for &p in rest {
        let at = p.dot(d);
        if at.total_cmp(&best_at).is_ge() {
            (best, best_at) = (p, at);
        }
    }
    best
}

/// Whether the convex hulls of two point sets overlap: Gilbert's minimum-norm iteration on
/// their difference. A separating direction found proves they do not; when none is found
/// within the iteration budget they are taken to overlap (the leaf is kept: a superset).
fn hulls_overlap(a: &[DVec3], b: &[DVec3]) -> bool {
    let support = support_point;
    // A point of a − b, moved towards the origin.
    let mut x = a[0] - b[0];
    for _ in 0..96 {
        if x.length_squared() < 1e-9 {
            return true;
        }
        let d = -x;
        let s = support(a, d) - support(b, -d);
        // Every point y of a − b has x · y >= x · s: positive means the origin is outside.
        if x.dot(s) > 1e-6 * x.length().max(1.0) {
            return false;
        }
        // Closest point to the origin on the segment x → s.
        let e = s - x;
        let len = e.length_squared();
        if len < 1e-12 {
            return true;
        }
        let t = (-x.dot(e) / len).clamp(0.0, 1.0);
        x += e * t;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hull_overlap_separates_and_touches() {
        let a = box_corners(DVec3::ZERO, 1.0);
        assert!(hulls_overlap(&a, &box_corners(DVec3::new(1.5, 0.0, 0.0), 1.0)));
        assert!(!hulls_overlap(&a, &box_corners(DVec3::new(2.5, 0.0, 0.0), 1.0)));
        assert!(!hulls_overlap(&a, &box_corners(DVec3::new(2.1, 2.1, 2.1), 1.0)));
        // A diagonal slab that clears the cube's corner.
        let slab = vec![
            DVec3::new(3.0, 0.0, 0.0),
            DVec3::new(0.0, 3.0, 0.0),
            DVec3::new(0.0, 0.0, 4.0),
        ];
        assert!(!hulls_overlap(&a, &slab));
        assert!(hulls_overlap(&a, &[DVec3::new(0.5, 0.5, 0.5)]));
    }

    #[test]
    fn numbers_read_like_atof() {
        assert_eq!(leading_number("12.5abc"), 12.5);
        assert_eq!(leading_number("-3"), -3.0);
        assert_eq!(leading_number(""), 0.0);
        assert_eq!(leading_number("x"), 0.0);
        assert_eq!(leading_number("1e"), 1.0);
    }

    #[test]
    fn a_box_holding_a_leaf_corner_is_one_the_iteration_finds_overlapping() {
        // A slanted leaf: a box cut by two diagonal planes.
        let mut path: Vec<HalfSpace> = [DVec3::X, -DVec3::X, DVec3::Y, -DVec3::Y, DVec3::Z, -DVec3::Z]
            .iter()
            .map(|&normal| HalfSpace { normal, dist: 100.0 })
            .collect();
        path.push(HalfSpace {
            normal: DVec3::new(1.0, 1.0, 0.0).normalize(),
            dist: 30.0,
        });
        path.push(HalfSpace {
            normal: DVec3::new(0.0, -1.0, 1.0).normalize(),
            dist: 20.0,
        });
        let corners = polytope_corners(&path);
        let mut held = 0;
        for x in (-160..=160).step_by(40) {
            for y in (-160..=160).step_by(40) {
                for z in (-160..=160).step_by(40) {
                    let points = box_corners(DVec3::new(x as f64, y as f64, z as f64), 48.0);
                    let hull = PropHull::new(&points);
                    assert!(hull.solid_box.is_some());
                    if hull.holds_any(&corners) {
                        held += 1;
                        assert!(hulls_overlap(&points, &corners), "box at {x} {y} {z}");
                    }
                }
            }
        }
        assert!(held > 10, "{held} boxes hold a corner");
        // Points that are not a box's eight corners are not taken for the box they span.
        let rot = Rot::from_angles(DVec3::new(0.0, 30.0, 0.0));
        let turned: Vec<DVec3> = box_corners(DVec3::ZERO, 48.0)
            .iter()
            .map(|&p| rot.apply(p))
            .collect();
        assert!(PropHull::new(&turned).solid_box.is_none());
    }

    #[test]
    fn polytope_of_a_box_has_its_corners() {
        let path = [
            HalfSpace {
                normal: DVec3::X,
                dist: 10.0,
            },
            HalfSpace {
                normal: -DVec3::X,
                dist: 10.0,
            },
            HalfSpace {
                normal: DVec3::Y,
                dist: 5.0,
            },
            HalfSpace {
                normal: -DVec3::Y,
                dist: 5.0,
            },
            HalfSpace {
                normal: DVec3::Z,
                dist: 1.0,
            },
            HalfSpace {
                normal: -DVec3::Z,
                dist: 1.0,
            },
        ];
        let corners = polytope_corners(&path);
        assert!(!corners.is_empty());
        for c in &corners {
            assert!(
                c.x.abs() <= 10.0 + 1e-6 && c.y.abs() <= 5.0 + 1e-6 && c.z.abs() <= 1.0 + 1e-6,
                "{c}"
            );
        }
        assert!(
            corners
                .iter()
                .any(|c| (*c - DVec3::new(10.0, 5.0, 1.0)).length() < 1e-6)
        );
    }
}
