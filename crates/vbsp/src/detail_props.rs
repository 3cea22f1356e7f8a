//! Detail props: the grass and pebbles the engine draws near the camera, written to the `dprp`
//! game lump (v4) as Valve's VBSP places them (`detailobjects.cpp`), on the finished BSP.
//!
//! - A face whose material has `%detailtype` ([`Resolver::detail_type`]; a patched copy answers
//!   for its original) gets objects of that type from `detail.vbsp`: the worldspawn
//!   `detailvbsp` key, default `detail.vbsp`, read through the game's search paths.
//! - Per fan triangle of the face, `area × density / 10⁶` objects (truncated), at points drawn
//!   with the Windows C library's `rand()` seeded with the face's Hammer id, so placement is
//!   Valve's draw for draw; a displacement draws over its whole surface and its blend alpha
//!   picks the group. Sprite scale draws come from vstdlib's uniform and Gaussian streams
//!   (implemented from their description; no corpus map tests them).
//! - `prop_detail`/`detail_prop` and `prop_detail_sprite` entities add one object each.
//! - Objects are sorted by leaf (stably: Valve's `qsort` order within a leaf is the C
//!   library's and not reproduced); each records the leaf its origin is in, which is how the
//!   engine finds a leaf's detail props.
//!
//! Limitations: a displacement's point is interpolated on its grid's triangles in grid
//! parameters (Valve maps the draw through the flat base grid first: points can differ
//! slightly); model detail props whose `.mdl` is not among the game's files are kept (Valve
//! drops them) with one warning each, as static props do.

use std::collections::{HashMap, HashSet};

use glam::Vec3;
use srcmap_bsp::Bsp;
use srcmap_bsp::gamelump::{DPRP, DetailObject, DetailProps, DetailSprite, GameLumpData};
use srcmap_content::detail_vbsp::{DetailKind, DetailModel, DetailType, DetailTypes};
use srcmap_materials::Resolver;

use crate::diag::{Diagnostic, Where};
use crate::input::{MapEntity, MapInput};
use crate::props::ModelReader;
use srcmap_disp::DispGrid;

/// What the compile gives this pass.
pub(crate) struct DetailInputs<'a> {
    pub input: &'a MapInput,
    pub materials: &'a Resolver,
    /// The game's files (`detail.vbsp`, models); `None` without `-game`.
    pub files: Option<ModelReader<'a>>,
    pub map_name: &'a str,
    /// The Hammer side id of each BSP face.
    pub face_hammer_ids: &'a [i64],
    /// A detail file given to the compile, used instead of the game's.
    pub detail_types: Option<&'a DetailTypes>,
}

/// The most objects the lump's 16-bit indices allow.
const MAX_OBJECTS: usize = 65535;

/// The Windows C library's `rand()`: what Valve's VBSP draws with.
#[derive(Debug, Clone, Copy)]
pub struct MsvcRand(u32);

/// `VALVE_RAND_MAX`.
const RAND_MAX: f32 = 32767.0;

impl MsvcRand {
    pub fn new(seed: u32) -> MsvcRand {
        MsvcRand(seed)
    }
    pub fn next_value(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(214013).wrapping_add(2531011);
        (self.0 >> 16) & 0x7fff
    }
    /// `rand() / (float)VALVE_RAND_MAX`.
    pub fn unit(&mut self) -> f32 {
        self.next_value() as f32 / RAND_MAX
    }
}

/// vstdlib's `RandomGaussianFloat` over its uniform stream (a shuffled Park-Miller generator,
/// seeded by `RandomSeed`); the Gaussian's spare value lives across reseeds, as Valve's.
struct ValveRandom {
    idum: i32,
    iy: i32,
    iv: [i32; 32],
    spare: Option<f32>,
}

impl ValveRandom {
    const IA: i32 = 16807;
    const IM: i32 = 2147483647;
    const IQ: i32 = 127773;
    const IR: i32 = 2836;
    const NDIV: i32 = 1 + (Self::IM - 1) / 32;

    fn new() -> ValveRandom {
        ValveRandom {
            idum: 0,
            iy: 0,
            iv: [0; 32],
            spare: None,
        }
    }

    fn seed(&mut self, seed: i32) {
        self.idum = if seed < 0 { seed } else { seed.wrapping_neg() };
        self.iy = 0;
    }

    fn step(idum: i32) -> i32 {
        let k = idum / Self::IQ;
        let next = Self::IA
            .wrapping_mul(idum - k * Self::IQ)
            .wrapping_sub(Self::IR.wrapping_mul(k));
        if next < 0 {
            next.wrapping_add(Self::IM)
        } else {
            next
        }
    }

    fn next(&mut self) -> i32 {
        if self.idum <= 0 || self.iy == 0 {
            self.idum = if self.idum.wrapping_neg() < 1 {
                1
            } else {
                self.idum.wrapping_neg()
            };
            for j in (0..32 + 8).rev() {
                self.idum = Self::step(self.idum);
                if j < 32 {
                    self.iv[j] = self.idum;
                }
            }
            self.iy = self.iv[0];
        }
        self.idum = Self::step(self.idum);
        let j = (self.iy / Self::NDIV) as usize;
        self.iy = self.iv[j.min(31)];
        self.iv[j.min(31)] = self.idum;
        self.iy
    }

    fn uniform(&mut self) -> f32 {
        let max = 1.0 - 1.2e-7f32;
        ((1.0 / Self::IM as f32) * self.next() as f32).min(max)
    }

    fn gaussian(&mut self, mean: f32, std_dev: f32) -> f32 {
        if let Some(v) = self.spare.take() {
            return std_dev * v + mean;
        }
        loop {
            let v1 = 2.0 * self.uniform() - 1.0;
            let v2 = 2.0 * self.uniform() - 1.0;
            let rsq = v1 * v1 + v2 * v2;
            if rsq > 1.0 || rsq == 0.0 {
                continue;
            }
            let fac = (-2.0 * rsq.ln() / rsq).sqrt();
            self.spare = Some(v1 * fac);
            return std_dev * v2 * fac + mean;
        }
    }
}

/// The lump being built.
struct Builder<'a> {
    bsp: &'a Bsp,
    lump: DetailProps,
    files: Option<ModelReader<'a>>,
    /// Model names already looked for in the game's files (and warned about when absent).
    checked_models: HashSet<String>,
    overflow: usize,
    diags: &'a mut Vec<Diagnostic>,
}

impl<'a> Builder<'a> {
    fn new(bsp: &'a Bsp, files: Option<ModelReader<'a>>, diags: &'a mut Vec<Diagnostic>) -> Builder<'a> {
        Builder {
            bsp,
            lump: DetailProps::default(),
            files,
            checked_models: HashSet::new(),
            overflow: 0,
            diags,
        }
    }

    /// Valve's `ComputeDetailLeaf`: down the world's nodes, in float.
    fn leaf_of(&self, p: Vec3) -> u16 {
        let mut node = 0i32;
        let mut steps = 0;
        while node >= 0 && steps <= self.bsp.nodes.len() {
            let Some(n) = self.bsp.nodes.get(node as usize) else {
                return 0;
            };
            let Some(plane) = self.bsp.planes.get(n.plane as usize) else {
                return 0;
            };
            let front = p.dot(Vec3::from_array(plane.normal)) >= plane.dist;
            node = n.children[usize::from(!front)];
            steps += 1;
        }
        u16::try_from(-1 - node).unwrap_or(0)
    }

    /// Whether the lump is full; then the `left` samples still to draw count as overflow
    /// (without drawing them: a huge face or density would take forever).
    fn full(&mut self, left: usize) -> bool {
        let full = self.lump.objects.len() >= MAX_OBJECTS;
        if full {
            self.overflow = self.overflow.saturating_add(left);
        }
        full
    }

    fn push(&mut self, mut object: DetailObject, origin: Vec3) {
        if self.lump.objects.len() >= MAX_OBJECTS {
            self.overflow += 1;
            return;
        }
        object.origin = origin.to_array();
        object.leaf = self.leaf_of(origin);
        // Full bright until vrad lights them, as Valve writes them.
        object.lighting = srcmap_bsp::ColorRgbExp32 {
            r: 255,
            g: 255,
            b: 255,
            exponent: 0,
        };
        self.lump.objects.push(object);
    }

    fn add_model(&mut self, name: &str, origin: Vec3, angles: Vec3, orientation: u8) {
        if let Some(read) = self.files
            && self.checked_models.insert(name.to_ascii_lowercase())
            && read(name).is_none()
        {
            self.diags.push(Diagnostic::warning(
                Where::default(),
                format!("detail prop model {name} is not among the game's files (kept)"),
            ));
        }
        let index = match self.lump.models.iter().position(|m| m == name) {
            Some(i) => i,
            None => {
                self.lump.models.push(name.to_owned());
                self.lump.models.len() - 1
            }
        };
        let object = DetailObject {
            angles: angles.to_array(),
            detail_model: index as u16,
            orientation,
            kind: DetailKind::Model as u8,
            ..Default::default()
        };
        self.push(object, origin);
    }

    fn add_sprite(&mut self, origin: Vec3, angles: Vec3, sprite: DetailSprite, scale: f32, m: SpriteLook) {
        let index = match self.lump.sprites.iter().position(|s| same_bits(s, &sprite)) {
            Some(i) => i,
            None => {
                self.lump.sprites.push(sprite);
                self.lump.sprites.len() - 1
            }
        };
        let object = DetailObject {
            angles: angles.to_array(),
            detail_model: index as u16,
            orientation: m.orientation,
            kind: m.kind,
            scale,
            shape_angle: m.shape_angle,
            shape_size: m.shape_size,
            sway_amount: m.sway_amount,
            ..Default::default()
        };
        self.push(object, origin);
    }

    /// Valve's `PlaceDetail`: the slope test, the angles, then the object.
    fn place(
        &mut self,
        m: &DetailModel,
        pt: Vec3,
        normal: Vec3,
        rng: &mut MsvcRand,
        gauss: &mut ValveRandom,
    ) {
        if !passes_slope(m, normal.z, rng) {
            return;
        }
        let angles = if m.upright {
            Vec3::new(0.0, 360.0 * rng.next_value() as f32 / RAND_MAX, 0.0)
        } else {
            surface_angles(normal, 360.0 * rng.next_value() as f32 / RAND_MAX)
        };
        match m.kind {
            DetailKind::Model => self.add_model(&m.model, pt, angles, m.orientation),
            _ => self.add_model_sprite(m, pt, angles, gauss),
        }
    }

    /// A sprite of a detail type's model, its scale drawn from the Gaussian stream when
    /// the model asks for random scale.
    fn add_model_sprite(&mut self, m: &DetailModel, pt: Vec3, angles: Vec3, gauss: &mut ValveRandom) {
        let scale = if m.random_scale_std_dev != 0.0 {
            gauss.gaussian(1.0, m.random_scale_std_dev).abs()
        } else {
            1.0
        };
        let sprite = DetailSprite {
            ul: m.pos[0],
            lr: m.pos[1],
            tex_ul: m.tex[0],
            tex_lr: m.tex[1],
        };
        self.add_sprite(pt, angles, sprite, scale, SpriteLook::of(m));
    }

    /// One of a `prop_detail`/`detail_prop` or `prop_detail_sprite` entity's object (other
    /// entities add none).
    fn add_entity(&mut self, e: &MapEntity) {
        let origin = vec_key(e, "origin");
        let angles = vec_key(e, "angles");
        let orientation = e
            .get("detailOrientation")
            .map_or(0, srcmap_content::detail_vbsp::atoi) as u8;
        if is_detail_model_class(e) {
            self.add_model(e.get("model").unwrap_or(""), origin, angles, orientation);
        } else if is_detail_sprite_class(e) {
            let look = SpriteLook {
                kind: DetailKind::Sprite as u8,
                orientation,
                shape_angle: 0,
                shape_size: 0,
                sway_amount: 0,
            };
            self.add_sprite(origin, angles, entity_sprite(e), 1.0, look);
        }
    }

    /// Warn about the objects that did not fit in the lump.
    fn warn_overflow(&mut self) {
        if self.overflow > 0 {
            self.diags.push(Diagnostic::warning(
                Where::default(),
                format!(
                    "too many detail props: {} were not emitted (the lump holds {MAX_OBJECTS})",
                    self.overflow
                ),
            ));
        }
    }
}

/// Valve's slope test: a normal steeper than the model's `max_angle` gets nothing, one
/// between `min_angle` and `max_angle` an object with falling probability.
fn passes_slope(m: &DetailModel, cos_angle: f32, rng: &mut MsvcRand) -> bool {
    if cos_angle < m.max_cos_angle {
        return false;
    }
    if cos_angle < m.min_cos_angle {
        let probability = (cos_angle - m.max_cos_angle) / (m.min_cos_angle - m.max_cos_angle);
        if rng.unit() > probability {
            return false;
        }
    }
    true
}

/// A `prop_detail_sprite` entity's sprite: its corners, and its texture rectangle in texels
/// inset by half a texel, over the texture's total size.
fn entity_sprite(e: &MapEntity) -> DetailSprite {
    let size = vec_key(e, "tex_total_size").x;
    let ul = vec2_key(e, "tex_ul");
    let extent = vec2_key(e, "tex_size");
    let tex_lr = [(extent[0] + ul[0] - 0.5) / size, (extent[1] + ul[1] - 0.5) / size];
    let tex_ul = [(ul[0] + 0.5) / size, (ul[1] + 0.5) / size];
    DetailSprite {
        ul: vec2_key(e, "position_ul"),
        lr: vec2_key(e, "position_lr"),
        tex_ul,
        tex_lr,
    }
}

/// The per-object sprite fields.
#[derive(Clone, Copy)]
struct SpriteLook {
    kind: u8,
    orientation: u8,
    shape_angle: u8,
    shape_size: u8,
    sway_amount: u8,
}

impl SpriteLook {
    fn of(m: &DetailModel) -> SpriteLook {
        SpriteLook {
            kind: m.kind as u8,
            orientation: m.orientation,
            shape_angle: m.shape_angle,
            shape_size: m.shape_size,
            sway_amount: m.sway_amount,
        }
    }
}

/// Valve compares dictionary entries with `memcmp`.
fn same_bits(a: &DetailSprite, b: &DetailSprite) -> bool {
    let bits = |s: &DetailSprite| {
        [s.ul, s.lr, s.tex_ul, s.tex_lr]
            .concat()
            .iter()
            .map(|f| f.to_bits())
            .collect::<Vec<_>>()
    };
    bits(a) == bits(b)
}

/// Angles of a frame whose z is the surface normal, turned `rot_deg` about it (Valve's basis
/// from x = (1,0,0), or (0,1,0) when the normal is along x; then `MatrixAngles`).
pub fn surface_angles(normal: Vec3, rot_deg: f32) -> Vec3 {
    let z = normal.normalize_or_zero();
    let mut x = Vec3::X;
    if (x.dot(z).abs() - 1.0) as f64 > -1e-3 {
        x = Vec3::Y;
    }
    let y = z.cross(x).normalize_or_zero();
    let x = y.cross(z).normalize_or_zero();
    let (s, c) = rot_deg.to_radians().sin_cos();
    let forward = x * c + y * s;
    let left = y * c - x * s;
    let up = z;
    let xy = (forward.x * forward.x + forward.y * forward.y).sqrt();
    let (pitch, yaw, roll) = if xy > 0.001 {
        (
            (-forward.z).atan2(xy),
            forward.y.atan2(forward.x),
            left.z.atan2(up.z),
        )
    } else {
        ((-forward.z).atan2(xy), (-left.x).atan2(left.y), 0.0)
    };
    Vec3::new(pitch.to_degrees(), yaw.to_degrees(), roll.to_degrees())
}

/// Valve's `SelectGroup`: the group pair around `alpha`, one of them drawn by distance.
fn select_group(detail: &DetailType, alpha: f32, rng: &mut MsvcRand) -> usize {
    let groups = &detail.groups;
    let mut start = 0;
    while start + 1 < groups.len() && alpha >= groups[start + 1].alpha {
        start += 1;
    }
    let end = (start + 1).min(groups.len() - 1);
    if start == end {
        return start;
    }
    let span = groups[end].alpha - groups[start].alpha;
    let dist = if span != 0.0 {
        (alpha - groups[start].alpha) / span
    } else {
        0.0
    };
    if rng.unit() > dist { start } else { end }
}

/// Valve's `SelectDetail`: the first model whose running amount reaches a uniform draw.
fn select_model<'d>(detail: &'d DetailType, group: usize, rng: &mut MsvcRand) -> Option<&'d DetailModel> {
    let r = rng.unit();
    detail.groups[group]
        .models
        .iter()
        .find(|m| r <= m.cumulative_amount)
}

/// A face's vertices in winding order.
fn face_points(bsp: &Bsp, face: usize) -> Vec<Vec3> {
    let f = &bsp.faces[face];
    let first = usize::try_from(f.first_edge).unwrap_or(usize::MAX);
    let count = usize::try_from(f.num_edges).unwrap_or(0);
    let Some(edges) = bsp.surfedges.get(first..first.saturating_add(count)) else {
        return Vec::new();
    };
    edges
        .iter()
        .filter_map(|&e| {
            let edge = bsp.edges.get(e.unsigned_abs() as usize)?;
            let v = edge.0[usize::from(e < 0)];
            bsp.vertexes.get(v as usize).map(|&p| Vec3::from_array(p))
        })
        .collect()
}

/// `(int)(area * density * 0.000001)`, the float product widened as C does.
fn sample_count(area: f32, density: f32) -> usize {
    // Capped: an absurd area or density (or their product overflowing f32) would otherwise ask
    // for 2^64 samples, and the overflow warning would count them.
    let samples = ((area * density) as f64 * 0.000001).min(f64::from(u32::MAX));
    samples as usize
}

/// Valve's `EmitDetailObjectsOnFace`: each fan triangle on its own.
fn emit_on_face(
    b: &mut Builder<'_>,
    points: &[Vec3],
    detail: &DetailType,
    rng: &mut MsvcRand,
    gauss: &mut ValveRandom,
) {
    let Some(&first) = points.first() else {
        return;
    };
    for tri in points.windows(2).skip(1) {
        let (e1, e2) = (tri[0] - first, tri[1] - first);
        let area_vec = e1.cross(e2);
        let len = area_vec.length();
        let samples = sample_count(0.5 * len, detail.density);
        for i in 0..samples {
            if b.full(samples - i) {
                return;
            }
            let (u, v) = draw_in_triangle(rng);
            let group = select_group(detail, 1.0, rng);
            let Some(model) = select_model(detail, group, rng) else {
                continue;
            };
            let pt = first + e1 * u + e2 * v;
            b.place(model, pt, area_vec / -len, rng, gauss);
        }
    }
}

/// Triangle parameters `(u, v)` drawn uniformly: a draw in the unit square, folded into
/// the triangle `u + v <= 1`.
fn draw_in_triangle(rng: &mut MsvcRand) -> (f32, f32) {
    let mut u = rng.unit();
    let mut v = rng.unit();
    if v > 1.0 - u {
        (u, v) = (1.0 - u, 1.0 - v);
    }
    (u, v)
}

/// Place a detail type's objects on a face (its fan `points`), over its displacement
/// surface when it has one.
fn emit_on_surface(
    b: &mut Builder<'_>,
    points: &[Vec3],
    disp: Option<&DispSurface>,
    detail: &DetailType,
    rng: &mut MsvcRand,
    gauss: &mut ValveRandom,
) {
    match disp {
        Some(disp) => emit_on_disp(b, points, disp, detail, rng, gauss),
        None => emit_on_face(b, points, detail, rng, gauss),
    }
}

/// A point of a displacement at grid parameters `(u, v)` in `[0, 1]`: position, normal and
/// blend alpha (0-1), on the grid triangle holding it (Valve's diagonal alternation).
fn disp_point(disp: &DispSurface, u: f32, v: f32, up: Vec3) -> (Vec3, Vec3, f32) {
    let side = (1usize << disp.grid.power) + 1;
    let fu = u * (side as f32 - 1.000001);
    let fv = v * (side as f32 - 1.000001);
    let (su, sv) = ((fu as usize).min(side - 2), (fv as usize).min(side - 2));
    let (du, dv) = (fu - su as f32, fv - sv as f32);
    let at = |row: usize, col: usize| {
        let i = row * side + col;
        (disp.grid.verts[i], disp.alphas.get(i).copied().unwrap_or(0.0))
    };
    let cell = [at(sv, su), at(sv, su + 1), at(sv + 1, su), at(sv + 1, su + 1)];
    let odd = (sv * side + su) % 2 == 1;
    let (o, a, b, ta, tb) = cell_triangle(cell, odd, du, dv);
    let pos = o.0 + (a.0 - o.0) * ta + (b.0 - o.0) * tb;
    let alpha = o.1 + (a.1 - o.1) * ta + (b.1 - o.1) * tb;
    let mut normal = (a.0 - o.0).cross(b.0 - o.0).normalize_or_zero();
    if normal.dot(up) < 0.0 {
        normal = -normal;
    }
    (pos, normal, alpha / 255.0)
}

/// A grid vertex's position and blend alpha.
type GridCorner = (Vec3, f32);

/// The triangle of a grid cell (corners `c00, c01, c10, c11`) holding fractions `(du, dv)`,
/// as corner, step along u's edge, step along v's edge, and the fractions along them. Odd
/// cells split along the other diagonal (Valve's alternation).
fn cell_triangle(
    [c00, c01, c10, c11]: [GridCorner; 4],
    odd: bool,
    du: f32,
    dv: f32,
) -> (GridCorner, GridCorner, GridCorner, f32, f32) {
    if odd {
        if du + dv <= 1.0 {
            (c00, c01, c10, du, dv)
        } else {
            (c11, c10, c01, 1.0 - du, 1.0 - dv)
        }
    } else if du >= dv {
        // Triangle c00, c01, c11.
        (c00, c01, (c11.0 - c01.0 + c00.0, c11.1 - c01.1 + c00.1), du, dv)
    } else {
        (c00, (c11.0 - c10.0 + c00.0, c11.1 - c10.1 + c00.1), c10, du, dv)
    }
}

/// A displacement as the BSP records it: its grid and per-vertex blend alpha (0-255).
struct DispSurface {
    grid: DispGrid,
    alphas: Vec<f32>,
}

/// Every displacement of `bsp` (by dispinfo index), from its DISPINFO and DISP_VERTS records.
fn disp_surfaces(bsp: &Bsp) -> Vec<Option<DispSurface>> {
    let grids = srcmap_disp::grids_of(bsp);
    (grids.into_iter().zip(&bsp.disp_info))
        .map(|(grid, info)| {
            let grid = grid?;
            let start = usize::try_from(info.disp_vert_start).ok()?;
            let verts = bsp.disp_verts.get(start..start + grid.verts.len())?;
            let alphas = verts.iter().map(|v| v.alpha).collect();
            Some(DispSurface { grid, alphas })
        })
        .collect()
}

/// Valve's `EmitDetailObjectsOnDisplacementFace`: the base quad's area, draws over the grid.
fn emit_on_disp(
    b: &mut Builder<'_>,
    points: &[Vec3],
    disp: &DispSurface,
    detail: &DetailType,
    rng: &mut MsvcRand,
    gauss: &mut ValveRandom,
) {
    if points.len() < 4 {
        return;
    }
    let area: f32 = (1..=2)
        .map(|i| 0.5 * (points[i] - points[0]).cross(points[i + 1] - points[0]).length())
        .sum();
    let up = -(points[1] - points[0]).cross(points[2] - points[0]);
    let samples = sample_count(area, detail.density);
    for i in 0..samples {
        if b.full(samples - i) {
            return;
        }
        let u = rng.unit();
        let v = rng.unit();
        let (pt, normal, alpha) = disp_point(disp, u, v, up);
        let group = select_group(detail, alpha, rng);
        let Some(model) = select_model(detail, group, rng) else {
            continue;
        };
        b.place(model, pt, normal, rng, gauss);
    }
}

/// The material a face was written with, before vbsp's patches (`maps/<map>/<name>_wvt_patch`,
/// `maps/<map>/<name>_<x>_<y>_<z>`): Valve's `FindOriginalMaterial`.
fn original_material(name: &str, map_name: &str) -> String {
    let prefix = format!("maps/{map_name}/");
    let Some(rest) = name.get(prefix.len()..).filter(|_| {
        name.get(..prefix.len())
            .is_some_and(|p| p.replace('\\', "/").eq_ignore_ascii_case(&prefix))
    }) else {
        return name.to_owned();
    };
    if let Some(base) = rest.strip_suffix("_wvt_patch") {
        return base.to_owned();
    }
    let parts: Vec<&str> = rest.rsplitn(4, '_').collect();
    if parts.len() == 4
        && parts[..3]
            .iter()
            .all(|p| p.trim_start_matches('-').parse::<i64>().is_ok())
    {
        return parts[3].to_owned();
    }
    name.to_owned()
}

fn is_detail_model_class(e: &MapEntity) -> bool {
    e.classname.eq_ignore_ascii_case("prop_detail") || e.classname.eq_ignore_ascii_case("detail_prop")
}

fn is_detail_sprite_class(e: &MapEntity) -> bool {
    e.classname.eq_ignore_ascii_case("prop_detail_sprite")
}

fn vec_key(e: &MapEntity, key: &str) -> Vec3 {
    let mut v = [0.0f32; 3];
    if let Some(text) = e.get(key) {
        for (slot, part) in v.iter_mut().zip(text.split_whitespace()) {
            *slot = srcmap_content::detail_vbsp::atof(part) as f32;
        }
    }
    Vec3::from_array(v)
}

fn vec2_key(e: &MapEntity, key: &str) -> [f32; 2] {
    let v = vec_key(e, key);
    [v.x, v.y]
}

/// Places the map's detail props and writes them into `bsp`'s `dprp` lump. A map with no
/// face of a detail material and no detail entity keeps the lump as it is.
pub(crate) fn emit(inputs: &DetailInputs<'_>, bsp: &mut Bsp, diags: &mut Vec<Diagnostic>) {
    let face_types = face_detail_types(inputs, bsp);
    let has_entities =
        (inputs.input.entities.iter()).any(|e| is_detail_model_class(e) || is_detail_sprite_class(e));
    if face_types.iter().all(Option::is_none) && !has_entities {
        warn_unknown_detail_types(inputs, bsp, diags);
        return;
    }
    let loaded = match inputs.detail_types {
        Some(_) => None,
        None => (face_types.iter().any(Option::is_some))
            .then(|| load_types(inputs, diags))
            .flatten(),
    };
    let types = inputs.detail_types.or(loaded.as_ref());
    let no_types = DetailTypes::default();
    let types = types.unwrap_or(&no_types);
    let mut b = Builder::new(bsp, inputs.files, diags);
    let placed = emit_on_faces(&mut b, inputs, &face_types, types);
    for e in &inputs.input.entities {
        b.add_entity(e);
    }
    b.warn_overflow();
    let file = match inputs.detail_types {
        Some(_) => "the detail file given".to_string(),
        None => format!("the game's {}", detail_file_name(inputs)),
    };
    b.diags.extend(placed_note(&placed, &file));
    let mut lump = b.lump;
    lump.objects.sort_by_key(|o| o.leaf);
    store_lump(bsp, lump, diags);
}

/// The detail file the worldspawn names (`detailvbsp`), else `detail.vbsp`.
fn detail_file_name<'i>(inputs: &DetailInputs<'i>) -> &'i str {
    let world = inputs.input.entities.first();
    (world.and_then(|w| w.get("detailvbsp")))
        .filter(|n| !n.is_empty())
        .unwrap_or("detail.vbsp")
}

/// Put the lump in the BSP's `dprp` game lump (warned about when there is none).
fn store_lump(bsp: &mut Bsp, lump: DetailProps, diags: &mut Vec<Diagnostic>) {
    let slot = bsp.game_lumps.lumps.iter_mut().find(|l| l.id == DPRP);
    match slot {
        Some(l) => l.data = GameLumpData::DetailProps(lump),
        None => diags.push(Diagnostic::warning(
            Where::default(),
            "the BSP has no dprp game lump to hold the detail props",
        )),
    }
}

/// No face has a known detail type: if displacements (where detail props grow) use materials
/// whose `%detailtype` is not known (materials the resolver does not know at all, or, when a
/// detail file was given, ones the table has learned no type for), detail props may be missing
/// for that reason alone; say so, naming them.
fn warn_unknown_detail_types(inputs: &DetailInputs<'_>, bsp: &Bsp, diags: &mut Vec<Diagnostic>) {
    let unknown: HashSet<String> = (inputs.materials.unknown_materials().iter())
        .map(|m| m.to_ascii_lowercase())
        .collect();
    let detail_file_given = inputs.detail_types.is_some();
    let mut names: Vec<String> = displacement_materials(bsp, inputs.map_name)
        .filter(|name| {
            unknown.contains(&name.to_ascii_lowercase())
                || (detail_file_given && !inputs.materials.detail_type_known(name))
        })
        .collect();
    names.sort();
    names.dedup();
    if names.is_empty() {
        return;
    }
    diags.push(
        Diagnostic::warning(Where::default(), unknown_types_message(&names)).with_code("vbsp.detail_unknown"),
    );
}

/// The (unpatched) materials of the BSP's displacement faces.
fn displacement_materials<'b>(bsp: &'b Bsp, map_name: &'b str) -> impl Iterator<Item = String> + 'b {
    (bsp.faces.iter())
        .filter(|f| f.dispinfo >= 0)
        .filter_map(|f| bsp.texinfo.get(usize::try_from(f.texinfo).ok()?))
        .filter_map(|t| bsp.texdata_name(usize::try_from(t.texdata).ok()?))
        .map(move |name| original_material(name, map_name))
}

fn unknown_types_message(names: &[String]) -> String {
    let shown: Vec<&str> = names.iter().take(5).map(String::as_str).collect();
    let more = names.len().saturating_sub(shown.len());
    format!(
        "no detail props placed: the %detailtype of {} displacement material{} is unknown (give -game, or a \
         material table harvested with `materials extract --detail-file`): {}{}",
        names.len(),
        if names.len() == 1 { "" } else { "s" },
        shown.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    )
}

/// The detail type of each BSP face: its material's `%detailtype` (a patched material
/// answering for its original), looked up once per texdata.
fn face_detail_types(inputs: &DetailInputs<'_>, bsp: &Bsp) -> Vec<Option<String>> {
    let mut type_of_material: HashMap<usize, Option<String>> = HashMap::new();
    (0..bsp.faces.len())
        .map(|fi| {
            let texinfo = usize::try_from(bsp.faces[fi].texinfo).ok()?;
            let texdata = usize::try_from(bsp.texinfo.get(texinfo)?.texdata).ok()?;
            type_of_material
                .entry(texdata)
                .or_insert_with(|| {
                    let name = bsp.texdata_name(texdata)?;
                    inputs
                        .materials
                        .detail_type(&original_material(name, inputs.map_name))
                })
                .clone()
        })
        .collect()
}

/// Place the objects of each face's detail type on it, seeded by the face's Hammer id.
/// A type missing from the detail file (or without groups) is warned about once.
fn emit_on_faces<'t>(
    b: &mut Builder<'_>,
    inputs: &DetailInputs<'_>,
    face_types: &'t [Option<String>],
    types: &'t DetailTypes,
) -> PlacedByType<'t> {
    let disps = disp_surfaces(b.bsp);
    let mut gauss = ValveRandom::new();
    let mut unknown: HashSet<&str> = HashSet::new();
    let mut placed = PlacedByType::new();
    for (fi, ty) in face_types.iter().enumerate() {
        let Some(ty) = ty else { continue };
        let Some(detail) = known_type(types, ty, &mut unknown, b.diags) else {
            continue;
        };
        let before = b.lump.objects.len();
        let seed = face_seed(inputs, b.bsp, fi);
        let mut rng = MsvcRand::new(seed);
        gauss.seed(seed as i32);
        let points = face_points(b.bsp, fi);
        if points.len() < 3 {
            continue;
        }
        let disp = usize::try_from(b.bsp.faces[fi].dispinfo).ok();
        let disp = disp.and_then(|d| disps.get(d)).and_then(Option::as_ref);
        emit_on_surface(b, &points, disp, detail, &mut rng, &mut gauss);
        let entry = placed.entry(&detail.name).or_insert((0, 0, detail.density));
        entry.0 += 1;
        entry.1 += b.lump.objects.len() - before;
    }
    placed
}

/// `x` as written, or in exponent form when that would be long (a density of 1e30).
fn short_number(x: f32) -> String {
    if x.abs() < 1e7 {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// Per detail type: faces that drew objects, objects placed, the type's density.
type PlacedByType<'t> = std::collections::BTreeMap<&'t str, (usize, usize, f32)>;

/// A note of what the faces' detail types placed and which detail file gave their densities:
/// the count follows that file (a game's `detail.vbsp` other than the one given changes it), so
/// a mapper comparing counts with another compile needs it.
fn placed_note(placed: &PlacedByType<'_>, file: &str) -> Option<Diagnostic> {
    let total: usize = placed.values().map(|p| p.1).sum();
    let types: Vec<String> = (placed.iter())
        .map(|(ty, (faces, objects, density))| {
            let density = short_number(*density);
            format!("{ty} {objects} on {faces} faces (density {density})")
        })
        .collect();
    (!placed.is_empty()).then(|| {
        Diagnostic::note(format!(
            "{total} detail props placed from {file}: {}",
            types.join(", ")
        ))
        .with_code("vbsp.detail_placed")
    })
}

/// Detail type `ty` from the detail file, when it is there with groups; else `None`,
/// warned about once per type (`unknown` holds those warned about).
fn known_type<'t>(
    types: &'t DetailTypes,
    ty: &'t str,
    unknown: &mut HashSet<&'t str>,
    diags: &mut Vec<Diagnostic>,
) -> Option<&'t DetailType> {
    let detail = types.get(ty).filter(|d| !d.groups.is_empty());
    if detail.is_none() && unknown.insert(ty) {
        diags.push(Diagnostic::warning(
            Where::default(),
            format!(
                "detail type {ty} is not in the detail file (or has no groups): its faces get no detail props"
            ),
        ));
    }
    detail
}

/// The seed of face `fi`'s draws: Valve's `dfaceids` keep the side id's low 16 bits, and
/// seed with that.
fn face_seed(inputs: &DetailInputs<'_>, bsp: &Bsp, fi: usize) -> u32 {
    match inputs.face_hammer_ids.get(fi) {
        Some(&id) => id as u16 as u32,
        None => bsp.face_ids.get(fi).copied().unwrap_or(0),
    }
}

/// Which detail type each material had in a BSP Valve compiled: for each face (and
/// displacement), the objects each type of `types` would place there (seeded by the BSP's face
/// ids) are looked up among the BSP's own detail objects (within [`NEAR`]); a material gets
/// the type whose placements were found most often (at least [`MIN_INFERRED_MATCHES`]).
/// Materials whose faces are too small for an object are not inferred. Returns
/// `(material, type name)`, sorted; a patched material (the map is `map_name`) as its original.
pub fn infer_detail_types(bsp: &Bsp, types: &DetailTypes, map_name: &str) -> Vec<(String, String)> {
    let Some(lump) = detail_lump(bsp) else {
        return Vec::new();
    };
    let placed = NearPoints::new(lump.objects.iter().map(|o| Vec3::from_array(o.origin)));
    if lump.objects.is_empty() || bsp.face_ids.len() != bsp.faces.len() {
        return Vec::new();
    }
    let scores = score_faces(bsp, types, &placed);
    best_types(bsp, types, map_name, scores)
}

/// Per texdata, each detail type's score (by index): the objects the type would place on the
/// texdata's faces (and displacements) that the BSP has (`placed`).
fn score_faces(bsp: &Bsp, types: &DetailTypes, placed: &NearPoints) -> HashMap<usize, HashMap<usize, usize>> {
    let disps = disp_surfaces(bsp);
    let mut scores: HashMap<usize, HashMap<usize, usize>> = HashMap::new();
    for (fi, face) in bsp.faces.iter().enumerate() {
        let Some(texdata) =
            (bsp.texinfo.get(face.texinfo as usize)).and_then(|t| usize::try_from(t.texdata).ok())
        else {
            continue;
        };
        let points = face_points(bsp, fi);
        let disp = usize::try_from(face.dispinfo).ok();
        let disp = disp.map(|d| disps.get(d).and_then(Option::as_ref));
        if points.len() < 3 || matches!(disp, Some(None)) {
            continue;
        }
        let surface = FaceSurface {
            bsp,
            face: fi,
            points: &points,
            disp: disp.flatten(),
        };
        surface.score_types(types, placed, scores.entry(texdata).or_default());
    }
    scores
}

/// The BSP's detail props game lump, when it has one.
fn detail_lump(bsp: &Bsp) -> Option<&DetailProps> {
    (bsp.game_lumps.lumps.iter()).find_map(|l| match &l.data {
        GameLumpData::DetailProps(d) => Some(d),
        _ => None,
    })
}

/// A BSP face as detail placement sees it.
struct FaceSurface<'a> {
    bsp: &'a Bsp,
    face: usize,
    points: &'a [Vec3],
    disp: Option<&'a DispSurface>,
}

impl FaceSurface<'_> {
    /// Add to each detail type's score (by index) the objects it would place on this face
    /// that the BSP has (within [`NEAR`]).
    fn score_types(&self, types: &DetailTypes, placed: &NearPoints, by_type: &mut HashMap<usize, usize>) {
        let mut diags = Vec::new();
        for (ti, detail) in types
            .types
            .iter()
            .enumerate()
            .filter(|(_, d)| !d.groups.is_empty())
        {
            let mut b = Builder::new(self.bsp, None, &mut diags);
            let mut rng = MsvcRand::new(self.bsp.face_ids[self.face]);
            let mut gauss = ValveRandom::new();
            emit_on_surface(&mut b, self.points, self.disp, detail, &mut rng, &mut gauss);
            let found = (b.lump.objects.iter())
                .filter(|o| placed.has_near(Vec3::from_array(o.origin)))
                .count();
            if found > 0 {
                *by_type.entry(ti).or_default() += found;
            }
        }
    }
}

/// Each material's best-scoring detail type, when it scored at least
/// [`MIN_INFERRED_MATCHES`] (ties go to the earlier type), as `(material, type name)` sorted.
fn best_types(
    bsp: &Bsp,
    types: &DetailTypes,
    map_name: &str,
    scores: HashMap<usize, HashMap<usize, usize>>,
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = scores
        .into_iter()
        .filter_map(|(texdata, by_type)| {
            let (&ti, &n) = by_type
                .iter()
                .max_by_key(|&(&ti, &n)| (n, std::cmp::Reverse(ti)))?;
            let name = bsp.texdata_name(texdata)?;
            (n >= MIN_INFERRED_MATCHES)
                .then(|| (original_material(name, map_name), types.types[ti].name.clone()))
        })
        .collect();
    out.sort();
    out
}

/// Points bucketed by unit cell, to find one within [`NEAR`] of a query.
struct NearPoints(HashMap<[i32; 3], Vec<Vec3>>);

/// How far a placement may be from Valve's and still be the same object: displacement points
/// are interpolated slightly differently from Valve's (see the module notes).
const NEAR: f32 = 1.0;

impl NearPoints {
    fn new(points: impl Iterator<Item = Vec3>) -> NearPoints {
        let mut cells: HashMap<[i32; 3], Vec<Vec3>> = HashMap::new();
        for p in points {
            cells.entry(p.floor().as_ivec3().to_array()).or_default().push(p);
        }
        NearPoints(cells)
    }

    fn has_near(&self, p: Vec3) -> bool {
        let c = p.floor().as_ivec3();
        (-1..=1).any(|dx| {
            (-1..=1).any(|dy| {
                (-1..=1).any(|dz| {
                    let cell = (c + glam::IVec3::new(dx, dy, dz)).to_array();
                    (self.0.get(&cell)).is_some_and(|v| v.iter().any(|q| q.distance(p) <= NEAR))
                })
            })
        })
    }
}

/// Placements found in a BSP's lump before a material's detail type is believed (one could
/// be a coincidence of a shared sample point).
const MIN_INFERRED_MATCHES: usize = 2;

/// The detail file the worldspawn names (default `detail.vbsp`), through the game's files.
fn load_types(inputs: &DetailInputs<'_>, diags: &mut Vec<Diagnostic>) -> Option<DetailTypes> {
    let name = detail_file_name(inputs);
    let warn = |diags: &mut Vec<Diagnostic>, why: String| {
        diags.push(Diagnostic::warning(
            Where::default(),
            format!("detail props: {why}; faces with a detail type get none"),
        ));
    };
    let Some(bytes) = inputs.files.and_then(|read| read(name)) else {
        warn(diags, format!("no {name} among the game's files"));
        return None;
    };
    match DetailTypes::parse(&bytes, name) {
        Ok(t) => Some(t),
        Err(e) => {
            warn(diags, e.to_string());
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn msvc_rand_matches_the_c_library_sequence() {
        // srand(1): the first values every Windows C program prints.
        let mut r = MsvcRand::new(1);
        let first: Vec<u32> = (0..5).map(|_| r.next_value()).collect();
        assert_eq!(first, [41, 18467, 6334, 26500, 19169]);
    }

    #[test]
    fn floor_angles_keep_the_floor_up() {
        let a = surface_angles(Vec3::Z, 90.0);
        assert!(a.x.abs() < 1e-4 && a.z.abs() < 1e-4, "{a:?}");
        assert!((a.y - 90.0).abs() < 1e-3, "{a:?}");
        // A wall facing +x: forward is +y (x falls back to y), rolled 90° so up is +x.
        let w = surface_angles(Vec3::X, 0.0);
        assert!((w - Vec3::new(0.0, 90.0, 90.0)).length() < 1e-3, "{w:?}");
    }

    #[test]
    fn patched_materials_answer_for_their_originals() {
        assert_eq!(
            original_material("maps/m1/nature/grass_wvt_patch", "m1"),
            "nature/grass"
        );
        assert_eq!(
            original_material("maps/m1/nature/grass_-16_32_8", "m1"),
            "nature/grass"
        );
        assert_eq!(original_material("nature/grass", "m1"), "nature/grass");
        assert_eq!(
            original_material("maps/other/nature/grass_1_2_3", "m1"),
            "maps/other/nature/grass_1_2_3"
        );
    }

    #[test]
    fn gaussian_draws_spread_around_the_mean() {
        let mut g = ValveRandom::new();
        g.seed(1234);
        let draws: Vec<f32> = (0..4000).map(|_| g.gaussian(1.0, 0.5)).collect();
        let mean = draws.iter().sum::<f32>() / draws.len() as f32;
        let var = draws.iter().map(|d| (d - mean) * (d - mean)).sum::<f32>() / draws.len() as f32;
        assert!((mean - 1.0).abs() < 0.05, "{mean}");
        assert!((var.sqrt() - 0.5).abs() < 0.05, "{var}");
    }
}
