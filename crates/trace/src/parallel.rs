//! Many rays in one direction: a "parallel-ray light buffer". Every triangle is projected
//! onto the plane normal to the direction and binned into 2D grids; a ray is then a point of
//! that plane and walks only its cell's triangles, nearest first, through the same exact
//! triangle test the BVH runs. Answers are the BVH's (the closest hit, or whether anything is
//! hit), except which of two hits at exactly the same distance is reported.
//!
//! A triangle goes to the finest grid level whose cells are at least as large as its
//! projected box, so it lands in at most 2×2 cells of one level: memory stays about four
//! entries a triangle however large the triangles are.

use std::cell::Cell;

use glam::Vec3A;

use obvhs::ray::Ray;
use obvhs::triangle::Triangle;

use crate::{Hit, Scene, Tracer, intersect, ray};

/// One triangle in one cell: its depth range along the direction and its projected edges
/// (all padded), and its slot in the scene's triangle table.
#[derive(Debug, Clone, Copy)]
struct Entry {
    near: f32,
    far: f32,
    slot: u32,
    /// Per edge `[a, b, c]`: a ray at `(x, y)` may hit the triangle only where
    /// `a x + b y + c >= 0` for all three.
    edges: [[f32; 3]; 3],
}

impl Entry {
    #[inline(always)]
    fn may_contain(&self, x: f32, y: f32) -> bool {
        self.edges.iter().all(|e| e[0] * x + e[1] * y + e[2] >= 0.0)
    }
}

/// One grid level: square cells of `cell` units from `min`, `nx × ny` of them, whose
/// entry ranges start at `first_cell` in [`ParallelRays::cell_start`].
#[derive(Debug, Clone)]
struct Level {
    min: [f32; 2],
    inv_cell: f32,
    nx: usize,
    ny: usize,
    first_cell: usize,
}

/// `[a, b, c, e]` such that a ray along `w` from `(x, y, z)` (in the frame of `axes`, as
/// [`Frame::foot`]) surely misses triangle `t` where `a x + b y + c z + e > 0`: the ray starts
/// more than [`behind_margin`] beyond the triangle's plane, so the exact test finds the plane
/// behind it (`t` below [`crate::MIN_T`]) even with its rounding. Never true for a triangle
/// seen nearly edge-on, whose side the rounding may not tell, or too thin for the margin to
/// cover its rounding. A luxel's ray leaving its own face, one unit off it, is the common
/// case: every sky ray lies under its own face's triangles.
fn plane_along(t: &Triangle, [u, v, w]: [Vec3A; 3]) -> [f32; 4] {
    const NEVER: [f32; 4] = [0.0, 0.0, 0.0, -1.0];
    let (e1, e2) = (t.v1 - t.v0, t.v2 - t.v0);
    let normal = e1.cross(e2);
    let area2 = normal.length();
    let margin = behind_margin(e1.length() * e2.length() / area2);
    let n = normal / area2;
    let facing = n.dot(w);
    if !(margin <= MAX_BEHIND_MARGIN && facing.abs() >= MIN_FACING) {
        return NEVER;
    }
    // The ray runs towards growing depth: the plane lies behind an origin on the side its
    // normal's depth component points to.
    let n = n * facing.signum();
    [n.dot(u), n.dot(v), n.dot(w), -n.dot(t.v0) - margin]
}

/// The least cosine between a triangle's normal and the direction for [`plane_along`] to
/// tell its sides apart.
const MIN_FACING: f32 = 1e-3;

/// How far (in units) an origin must lie beyond a triangle's plane for [`plane_along`] to
/// call its ray a miss, for a triangle whose edges' lengths are `shape` times the sine of
/// their angle apart (1 for a right isosceles triangle, large for a sliver). The exact test's
/// distance carries an error of a few float steps of the origin's distance from a corner
/// (at most 2 × 32768 units on a map) times `shape`, over the sine between ray and plane,
/// as the true distance does: the margin covers ten steps at the map's full size, plus the
/// rounding of the projected corners and origin.
fn behind_margin(shape: f32) -> f32 {
    0.1 + 10.0 * f32::EPSILON * 65536.0 * shape
}

/// [`behind_margin`] above this is no use: a luxel's ray starts 1 unit off its face.
const MAX_BEHIND_MARGIN: f32 = 0.9;

/// A triangle's level holds it in at most this many cells (plus one) along each axis.
const SPAN: f32 = 8.0;

/// A projected triangle and its slack.
#[derive(Debug, Clone, Copy)]
struct Shape2 {
    corners: [[f32; 2]; 3],
    pad: f32,
}

impl Shape2 {
    /// The padded inward edge equations of [`Entry::edges`]; always true seen edge-on.
    fn edges(&self) -> [[f32; 3]; 3] {
        let [a, b, c] = self.corners;
        let cross = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
        if cross.abs() <= 1e-6 {
            return [[0.0; 3]; 3];
        }
        [(a, b), (b, c), (c, a)].map(|(p, q)| {
            let n = [-(q[1] - p[1]) * cross.signum(), (q[0] - p[0]) * cross.signum()];
            let len = (n[0] * n[0] + n[1] * n[1]).sqrt();
            if len <= 0.0 {
                return [0.0; 3];
            }
            let n = [n[0] / len, n[1] / len];
            [n[0], n[1], self.pad - n[0] * p[0] - n[1] * p[1]]
        })
    }

    /// Whether the rectangle `[x0, y0, x1, y1]` grown by the slack may overlap the triangle:
    /// false only when it lies wholly outside one of its edges (the box axes are the caller's).
    fn may_overlap(&self, r: [f32; 4]) -> bool {
        self.overlap_test().may_overlap(r)
    }

    /// What [`Shape2::may_overlap`] needs of the shape, made once for the many rectangles a
    /// sweep tests it against.
    fn overlap_test(&self) -> OverlapTest {
        let [a, b, c] = self.corners;
        let cross = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
        // Inward normal of edge p→q (the triangle's winding decides the side).
        let normal =
            |p: [f32; 2], q: [f32; 2]| [-(q[1] - p[1]) * cross.signum(), (q[0] - p[0]) * cross.signum()];
        OverlapTest {
            edges: [(a, b), (b, c), (c, a)].map(|(p, q)| (normal(p, q), p)),
            pad: self.pad,
            // Seen edge-on: its box says all.
            edge_on: cross.abs() <= 1e-6,
        }
    }
}

/// A projected triangle's edges as [`Shape2::may_overlap`] tests them: per edge its inward
/// normal and first corner, and the slack.
#[derive(Clone, Copy)]
struct OverlapTest {
    edges: [([f32; 2], [f32; 2]); 3],
    pad: f32,
    edge_on: bool,
}

impl OverlapTest {
    /// [`Shape2::may_overlap`].
    #[inline(always)]
    fn may_overlap(&self, r: [f32; 4]) -> bool {
        if self.edge_on {
            return true;
        }
        let r = [r[0] - self.pad, r[1] - self.pad, r[2] + self.pad, r[3] + self.pad];
        self.edges.iter().all(|&(n, p)| {
            let x = if n[0] >= 0.0 { r[2] } else { r[0] };
            let y = if n[1] >= 0.0 { r[3] } else { r[1] };
            n[0] * (x - p[0]) + n[1] * (y - p[1]) >= 0.0
        })
    }
}

impl Level {
    /// The cells (global indices) a padded box `[min x, min y, max x, max y]` overlaps, of
    /// those the triangle `shape` may overlap.
    fn cells<'a>(&'a self, b: &[f32; 4], shape: &'a Shape2) -> impl Iterator<Item = usize> + 'a {
        let clamp = |x: f32, n: usize| (x.max(0.0) as usize).min(n - 1);
        let x0 = clamp((b[0] - self.min[0]) * self.inv_cell, self.nx);
        let x1 = clamp((b[2] - self.min[0]) * self.inv_cell, self.nx);
        let y0 = clamp((b[1] - self.min[1]) * self.inv_cell, self.ny);
        let y1 = clamp((b[3] - self.min[1]) * self.inv_cell, self.ny);
        let cell = 1.0 / self.inv_cell;
        (y0..=y1)
            .flat_map(move |y| (x0..=x1).map(move |x| (x, y)))
            .filter(move |&(x, y)| {
                let (x0, y0) = (self.min[0] + x as f32 * cell, self.min[1] + y as f32 * cell);
                shape.may_overlap([x0, y0, x0 + cell, y0 + cell])
            })
            .map(move |(x, y)| self.first_cell + y * self.nx + x)
    }
}

/// The level a projected box `b` goes to: the finest (from cells `fine` wide, each level
/// twice as coarse) whose cells are at least its size over [`SPAN`].
fn level_of(b: &[f32; 4], fine: f32, level_count: usize) -> usize {
    let size = (b[2] - b[0]).max(b[3] - b[1]);
    let mut k = 0;
    let mut cell = fine;
    while cell * SPAN < size && k + 1 < level_count {
        cell *= 2.0;
        k += 1;
    }
    k
}

/// A scene prepared for rays along one direction; other directions fall back to the BVH.
pub struct ParallelRays<'s> {
    scene: &'s Scene,
    frame: Frame,
    levels: Vec<Level>,
    /// Per cell of every level, where its entries start (one past the end: the next one's).
    cell_start: Vec<u32>,
    entries: Vec<Entry>,
}

impl std::fmt::Debug for ParallelRays<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParallelRays")
            .field("dir", &self.frame.dir)
            .field("levels", &self.levels.len())
            .field("entries", &self.entries.len())
            .finish()
    }
}

/// Slack on projected coordinates: f32 rounding of a dot product at map coordinates (up to
/// ~5e4 units: a few thousandths), plus the triangle test's barycentric tolerance (1e-5 of
/// an edge), several times over.
fn slack(magnitude: f32, extent: f32) -> f32 {
    0.05 + magnitude * 4e-6 + extent * 1e-4
}

/// A depth as a key whose unsigned order is `f32::total_cmp`'s.
fn depth_key(depth: f32) -> u64 {
    let bits = depth.to_bits();
    u64::from(if bits >> 31 == 1 { !bits } else { bits | 1 << 31 })
}

/// The plane across a direction: the direction as [`ray`] hands it to the triangle test, two
/// axes across it and the unit direction, and 1 / its length (depth differences to ray
/// distances).
struct Frame {
    dir: [f32; 3],
    axes: [Vec3A; 3],
    inv_len: f32,
}

impl Frame {
    fn new(dir: [f32; 3]) -> Frame {
        let dir = ray([0.0; 3], dir, 1.0).direction.to_array();
        let d = Vec3A::from(dir);
        let len = d.length();
        let w = if len > 0.0 { d / len } else { Vec3A::Z };
        let helper = if w.z.abs() < 0.9 { Vec3A::Z } else { Vec3A::X };
        let u = helper.cross(w).normalize();
        let v = w.cross(u);
        Frame {
            dir,
            axes: [u, v, w],
            inv_len: if len > 0.0 { 1.0 / len } else { 0.0 },
        }
    }

    /// Where a ray from `origin` stands across the direction: `(x, y, depth)`.
    #[inline(always)]
    fn foot(&self, origin: [f32; 3]) -> [f32; 3] {
        let o = ray(origin, self.dir, 1.0).origin;
        self.axes.map(|a| o.dot(a))
    }
}

/// A triangle seen along a direction: its projected box `[min x, min y, max x, max y]` and
/// depth range `[near, far]`, both padded by its slack, and its projected shape.
#[derive(Clone, Copy)]
struct Projected {
    area: [f32; 4],
    depth: [f32; 2],
    shape: Shape2,
}

impl Projected {
    fn new(t: &Triangle, [u, v, w]: [Vec3A; 3]) -> Projected {
        let p = [t.v0, t.v1, t.v2];
        let xs = p.map(|p| p.dot(u));
        let ys = p.map(|p| p.dot(v));
        let zs = p.map(|p| p.dot(w));
        let magnitude = p.iter().map(|p| p.abs().max_element()).fold(0.0, f32::max);
        let min = |a: [f32; 3]| a[0].min(a[1]).min(a[2]);
        let max = |a: [f32; 3]| a[0].max(a[1]).max(a[2]);
        let extent = (max(xs) - min(xs)).max(max(ys) - min(ys)).max(max(zs) - min(zs));
        let pad = slack(magnitude, extent);
        Projected {
            area: [min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad],
            depth: [min(zs) - pad, max(zs) + pad],
            shape: Shape2 {
                corners: [0, 1, 2].map(|i| [xs[i], ys[i]]),
                pad,
            },
        }
    }
}

impl<'s> ParallelRays<'s> {
    /// Bins `scene`'s triangles for rays along `dir` (not zero).
    pub fn new(scene: &'s Scene, dir: [f32; 3]) -> ParallelRays<'s> {
        let mut out = ParallelRays {
            scene,
            frame: Frame::new(dir),
            levels: Vec::new(),
            cell_start: Vec::new(),
            entries: Vec::new(),
        };
        out.bin();
        out
    }

    /// The direction these rays share.
    pub fn direction(&self) -> [f32; 3] {
        self.frame.dir
    }

    /// Projected 2D boxes, depth ranges (all padded), then the levels and their cells.
    fn bin(&mut self) {
        let tris = &self.scene.triangles;
        if tris.is_empty() {
            return;
        }
        let (boxes, lo, hi) = self.project_all();
        // Finest cells: a sixteenth of a triangle's share of the projected area each.
        let (width, height) = (hi[0] - lo[0], hi[1] - lo[1]);
        let fine = ((width * height) / (16.0 * tris.len() as f32)).sqrt().max(1.0);
        let total = self.add_levels(lo, width, height, fine);
        let level_count = self.levels.len();
        let placed: Vec<usize> = boxes
            .iter()
            .map(|p| level_of(&p.area, fine, level_count))
            .collect();
        let count = self.cell_counts(&boxes, &placed, total);
        self.entries = self.sorted_entries(&boxes, &placed, &count);
        // Levels no triangle went to cost every ray a lookup for nothing.
        self.levels
            .retain(|l| count[l.first_cell + l.nx * l.ny] > count[l.first_cell]);
        // Coarse levels first: their large triangles are the likely hits, and a hit found
        // early ends the other cells' walks early.
        self.levels.reverse();
        self.cell_start = count;
    }

    /// Every triangle projected (its padded box `[min x, min y, max x, max y]`, depths
    /// `[near, far]` and shape), and the corners of all their boxes.
    fn project_all(&self) -> (Vec<Projected>, [f32; 2], [f32; 2]) {
        let tris = &self.scene.triangles;
        let mut boxes = Vec::with_capacity(tris.len());
        let (mut lo, mut hi) = ([f32::INFINITY; 2], [f32::NEG_INFINITY; 2]);
        for t in tris {
            let projected = Projected::new(t, self.frame.axes);
            let b = projected.area;
            lo = [lo[0].min(b[0]), lo[1].min(b[1])];
            hi = [hi[0].max(b[2]), hi[1].max(b[3])];
            boxes.push(projected);
        }
        (boxes, lo, hi)
    }

    /// The levels, from cells `fine` wide over the `width × height` area from `lo`, each
    /// twice as coarse as the one before, up to one of at most 2 × 2 cells. Returns the
    /// number of cells of all levels.
    fn add_levels(&mut self, lo: [f32; 2], width: f32, height: f32, fine: f32) -> usize {
        let mut cell = fine;
        let mut total = 0;
        loop {
            let nx = (width / cell).floor() as usize + 1;
            let ny = (height / cell).floor() as usize + 1;
            self.levels.push(Level {
                min: lo,
                inv_cell: 1.0 / cell,
                nx,
                ny,
                first_cell: total,
            });
            total += nx * ny;
            if nx <= 2 && ny <= 2 {
                return total;
            }
            cell *= 2.0;
        }
    }

    /// Per cell (of `total`), where its entries start, the one past the last cell's end
    /// last: the first half of a counting sort of (cell, triangle) pairs.
    fn cell_counts(&self, boxes: &[Projected], placed: &[usize], total: usize) -> Vec<u32> {
        let mut count = vec![0u32; total + 1];
        for (p, &k) in boxes.iter().zip(placed) {
            for c in self.levels[k].cells(&p.area, &p.shape) {
                count[c + 1] += 1;
            }
        }
        for i in 1..count.len() {
            count[i] += count[i - 1];
        }
        count
    }

    /// Every cell's entries, each cell's sorted nearest first (then by slot).
    fn sorted_entries(&self, boxes: &[Projected], placed: &[usize], count: &[u32]) -> Vec<Entry> {
        let total = count.len() - 1;
        let mut fill = count.to_vec();
        let mut entries = vec![
            Entry {
                near: 0.0,
                far: 0.0,
                slot: 0,
                edges: [[0.0; 3]; 3],
            };
            count[total] as usize
        ];
        for (slot, (p, &k)) in boxes.iter().zip(placed).enumerate() {
            for c in self.levels[k].cells(&p.area, &p.shape) {
                entries[fill[c] as usize] = Entry {
                    near: p.depth[0],
                    far: p.depth[1],
                    slot: slot as u32,
                    edges: p.shape.edges(),
                };
                fill[c] += 1;
            }
        }
        for c in 0..total {
            entries[count[c] as usize..count[c + 1] as usize]
                .sort_unstable_by(|a, b| a.near.total_cmp(&b.near).then(a.slot.cmp(&b.slot)));
        }
        entries
    }

    /// The entries of `level`'s cell holding the point `(x, y)` of the plane.
    #[inline(always)]
    fn cell(&self, level: &Level, x: f32, y: f32) -> &[Entry] {
        let cx = (x - level.min[0]) * level.inv_cell;
        let cy = (y - level.min[1]) * level.inv_cell;
        if !(cx >= 0.0 && cy >= 0.0) {
            return &[];
        }
        let (cx, cy) = (cx as usize, cy as usize);
        if cx >= level.nx || cy >= level.ny {
            return &[];
        }
        let c = level.first_cell + cy * level.nx + cx;
        &self.entries[self.cell_start[c] as usize..self.cell_start[c + 1] as usize]
    }

    /// Walks the triangles a ray from `origin` may hit before `max_t`, nearest first within
    /// each cell, calling `visit(slot, t)` with each hit's distance; `visit` returns the new
    /// bound (hits at or beyond it are not wanted), or `None` to stop.
    #[inline(always)]
    fn walk(&self, origin: [f32; 3], max_t: f32, mut visit: impl FnMut(u32, f32) -> Option<f32>) {
        let ray = ray(origin, self.frame.dir, max_t);
        let [x, y, depth] = self.frame.foot(origin);
        let mut bound = max_t;
        for level in &self.levels {
            for e in self.cell(level, x, y) {
                if (e.near - depth) * self.frame.inv_len >= bound {
                    break;
                }
                if e.far < depth || !e.may_contain(x, y) {
                    continue;
                }
                let t = intersect(&self.scene.triangles[e.slot as usize], &ray);
                if t < bound {
                    match visit(e.slot, t) {
                        Some(b) => bound = b,
                        None => return,
                    }
                }
            }
        }
    }

    /// The nearest hit before `max_t` (the BVH's `closest`, along this direction).
    fn closest_along(&self, origin: [f32; 3], max_t: f32) -> Option<Hit> {
        let mut best = None;
        self.walk(origin, max_t, |slot, t| {
            best = Some((slot, t));
            Some(t)
        });
        best.map(|(slot, t)| Hit {
            t,
            payload: self.scene.payloads[slot as usize],
            triangle: self.scene.original[slot as usize],
        })
    }

    /// Whether a triangle whose payload has none of `ignore`'s bits lies before `max_t`.
    fn occluded_along(&self, origin: [f32; 3], max_t: f32, ignore: u32) -> bool {
        let mut hit = false;
        self.walk(origin, max_t, |slot, _| {
            if self.scene.payloads[slot as usize] & ignore != 0 {
                return Some(max_t);
            }
            hit = true;
            None
        });
        hit
    }

    fn along(&self, dir: [f32; 3]) -> bool {
        ray([0.0; 3], dir, 1.0).direction.to_array() == self.frame.dir
    }
}

impl Tracer for ParallelRays<'_> {
    fn closest(&self, origin: [f32; 3], dir: [f32; 3], max_t: f32) -> Option<Hit> {
        if self.along(dir) {
            self.closest_along(origin, max_t)
        } else {
            self.scene.closest(origin, dir, max_t)
        }
    }

    fn occluded(&self, origin: [f32; 3], dir: [f32; 3], max_t: f32) -> bool {
        self.occluded_except(origin, dir, max_t, 0)
    }

    fn occluded_except(&self, origin: [f32; 3], dir: [f32; 3], max_t: f32, ignore: u32) -> bool {
        if self.along(dir) {
            self.occluded_along(origin, max_t, ignore)
        } else {
            self.scene.occluded_except(origin, dir, max_t, ignore)
        }
    }
}

/// Triangles a [`Groups`] box holds: consecutive slots, neighbours in the BVH's leaf order and
/// so close together in space.
const GROUP: usize = 32;

/// A box around each [`GROUP`] triangles of a scene, made once for every direction a
/// [`ParallelOrigins`] sweeps it along: a group whose projected box meets no origin is
/// passed over without projecting its triangles one by one.
#[derive(Debug)]
pub(crate) struct Groups {
    boxes: Vec<GroupBox>,
}

/// A group's box (centre and half size) and a slack covering any of its triangles' own
/// ([`slack`]) and the rounding of projecting the box instead of the corners.
#[derive(Debug, Clone, Copy)]
struct GroupBox {
    centre: Vec3A,
    half: Vec3A,
    pad: f32,
}

impl Groups {
    fn new(triangles: &[Triangle]) -> Groups {
        let boxes = (triangles.chunks(GROUP))
            .map(|group| {
                let (mut lo, mut hi) = (Vec3A::INFINITY, Vec3A::NEG_INFINITY);
                for t in group {
                    lo = lo.min(t.v0).min(t.v1).min(t.v2);
                    hi = hi.max(t.v0).max(t.v1).max(t.v2);
                }
                let magnitude = lo.abs().max(hi.abs()).max_element();
                // A triangle's extent along any axis is at most the box's diagonal.
                let diagonal = (hi - lo).length();
                GroupBox {
                    centre: (lo + hi) * 0.5,
                    half: (hi - lo) * 0.5,
                    pad: slack(magnitude, diagonal) + 0.01 + (magnitude + diagonal) * 1e-5,
                }
            })
            .collect();
        Groups { boxes }
    }
}

impl GroupBox {
    /// The box seen along a frame's `[u, v, w]`: its padded 2D box and depth range, holding
    /// every one of its triangles' ([`Projected`]).
    fn projected(&self, axes: [Vec3A; 3]) -> ([f32; 4], [f32; 2]) {
        let [x, y, z] = axes.map(|a| (self.centre.dot(a), self.half.dot(a.abs()) + self.pad));
        (
            [x.0 - x.1, y.0 - y.1, x.0 + x.1, y.0 + y.1],
            [z.0 - z.1, z.0 + z.1],
        )
    }
}

/// A scene's triangles seen along one direction, nearest first (by near depth, then slot),
/// for every set of origins a [`ParallelOrigins`] asks along it: a sky table asks a direction
/// once per level of its refinement, and each of those sweeps projected and sorted the
/// triangles anew.
pub struct SceneAlong<'s> {
    scene: &'s Scene,
    dir: [f32; 3],
    /// Per group of [`GROUP`] slots ([`Groups`]), its padded projected box and depths.
    groups: Vec<([f32; 4], [f32; 2])>,
    /// Every triangle, projected, nearest first.
    order: Vec<Seen>,
}

/// A triangle of a [`SceneAlong`]: projected, with its slot and payload.
#[derive(Clone, Copy)]
struct Seen {
    projected: Projected,
    slot: u32,
    payload: u32,
}

impl<'s> SceneAlong<'s> {
    /// `scene`'s triangles seen along `dir` (not zero).
    pub fn new(scene: &'s Scene, dir: [f32; 3]) -> SceneAlong<'s> {
        let axes = Frame::new(dir).axes;
        let groups = scene.groups.get_or_init(|| Groups::new(&scene.triangles));
        let order = with_spare(|spare| {
            let projected = (scene.triangles.iter()).map(|t| Projected::new(t, axes));
            refill(&mut spare.projected, projected);
            // Sorted as keys (near depth, then slot) rather than as the triangles themselves:
            // moving 8 bytes instead of 64 made the sort several times cheaper.
            let keys = (spare.projected.iter().enumerate())
                .map(|(slot, p)| (depth_key(p.depth[0]) << 32) | slot as u64);
            refill(&mut spare.keys, keys).sort_unstable();
            let seen = spare.keys.iter().map(|&k| {
                let slot = k as u32;
                Seen {
                    projected: spare.projected[slot as usize],
                    slot,
                    payload: scene.payloads[slot as usize],
                }
            });
            let mut order = std::mem::take(&mut spare.order);
            refill(&mut order, seen);
            order
        });
        SceneAlong {
            scene,
            dir,
            groups: groups.boxes.iter().map(|b| b.projected(axes)).collect(),
            order,
        }
    }
}

impl Drop for SceneAlong<'_> {
    /// Hands the triangles' buffer back to the thread's [`Spare`] for the next direction
    /// (the larger, where two scenes were seen along one).
    fn drop(&mut self) {
        let order = std::mem::take(&mut self.order);
        with_spare(|s| {
            if order.capacity() > s.order.capacity() {
                s.order = order;
            }
        });
    }
}

/// Rays in one direction from a known set of origins (say every luxel of a map), answered the
/// other way round from [`ParallelRays`]: the origins are binned on the plane across the
/// direction, and each triangle in turn meets the origins under it (an "irregular z-buffer").
/// A ray runs the same exact triangle test as the BVH, so the answers are its, except which of
/// two hits at exactly the same distance is reported. Worth it when every origin is asked:
/// each triangle's data is read once for all the rays it may meet.
pub struct ParallelOrigins {
    frame: Frame,
    origins: Vec<[f32; 3]>,
    /// Per origin, where its ray stands across the direction: `(x, y, depth)`.
    feet: Vec<[f32; 3]>,
    /// The grid of cells the origins are binned in: `nx × ny` squares of `1 / inv_cell` from
    /// `min`.
    min: [f32; 2],
    inv_cell: f32,
    nx: usize,
    ny: usize,
    /// Per cell, where its origins start in `binned` (one past the end: the next one's).
    cell_start: Vec<u32>,
    binned: Vec<Binned>,
    /// Per cell, the least depth of its origins (a triangle wholly behind it meets none).
    cell_near: Vec<f32>,
}

/// An origin as [`ParallelOrigins`]' cells hold it: its foot beside its index, so that a
/// sweep reads a cell's origins from one run of memory rather than from all over the feet
/// (that scattered read was the sweep's hottest instruction).
#[derive(Debug, Clone, Copy, Default)]
struct Binned {
    foot: [f32; 3],
    origin: u32,
}

/// The origins of [`ParallelOrigins`]' cells still open in a sweep: per cell `c`, places
/// `cell_start[c]..live_end[c]` of `live`.
struct CellOrigins<'a> {
    live: &'a mut LiveOrigins,
    live_end: &'a mut [u32],
}

/// Origins a cell tests against a triangle at once.
const LANES: usize = 8;

/// The open origins of a sweep, their feet as one array per coordinate (so that [`LANES`]
/// neighbours load as one vector each), then their indices; [`LANES`] places of padding
/// after the last, so a group of lanes starting at any place can be read whole.
#[derive(Default)]
struct LiveOrigins {
    x: Vec<f32>,
    y: Vec<f32>,
    z: Vec<f32>,
    origin: Vec<u32>,
}

impl LiveOrigins {
    /// Refills from `binned`, padded.
    fn fill(&mut self, binned: &[Binned]) {
        let padding = std::iter::repeat_n(Binned::default(), LANES);
        let all = || binned.iter().copied().chain(padding.clone());
        refill(&mut self.x, all().map(|b| b.foot[0]));
        refill(&mut self.y, all().map(|b| b.foot[1]));
        refill(&mut self.z, all().map(|b| b.foot[2]));
        refill(&mut self.origin, all().map(|b| b.origin));
    }

    /// Moves the origin at place `from` to place `to` (an open origin over a closed one).
    #[inline(always)]
    fn overwrite(&mut self, to: usize, from: usize) {
        self.x[to] = self.x[from];
        self.y[to] = self.y[from];
        self.z[to] = self.z[from];
        self.origin[to] = self.origin[from];
    }
}

/// What a sweep's lane test asks of a triangle: its padded edges (as [`Entry::edges`]), the
/// plane beyond which an origin's ray surely misses it ([`plane_along`]), and its far
/// depth, beyond which an origin lies wholly behind it.
#[derive(Clone, Copy)]
struct LaneTest {
    edges: [[f32; 3]; 3],
    plane: [f32; 4],
    far: f32,
}

impl LaneTest {
    /// Made only for a triangle that reaches a cell with open origins (most never do), so its
    /// plane is found from the world triangle `t` here rather than with every projection.
    fn new(p: &Projected, t: &Triangle, axes: [Vec3A; 3]) -> LaneTest {
        LaneTest {
            edges: p.shape.edges(),
            plane: plane_along(t, axes),
            far: p.depth[1],
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2;

/// Of the [`LANES`] origins of `live` from place `first`, a mask of those under the padded
/// triangle of `test` and not behind it (depth above its far depth, or beyond its plane),
/// bit `k` for place `first + k`: [`ParallelRays`]' tests, the same arithmetic, and the plane.
fn portable_under(live: &LiveOrigins, first: usize, test: &LaneTest) -> u32 {
    let lanes = |v: &[f32]| -> [f32; LANES] { v[first..][..LANES].try_into().unwrap_or_default() };
    let (x, y, z) = (lanes(&live.x), lanes(&live.y), lanes(&live.z));
    let inside = |e: &[f32; 3], k: usize| e[0] * x[k] + e[1] * y[k] + e[2] >= 0.0;
    let p = test.plane;
    (0..LANES).fold(0, |mask, k| {
        // Behind the whole triangle: `>` (false for NaN) as the scalar sweep had it.
        let behind = z[k] > test.far || p[0] * x[k] + p[1] * y[k] + p[2] * z[k] + p[3] > 0.0;
        let edges = &test.edges;
        let met = !behind & inside(&edges[0], k) & inside(&edges[1], k) & inside(&edges[2], k);
        mask | u32::from(met) << k
    })
}

/// A cell coordinate as a whole number: `x as usize` (0 for negatives and NaN) for any grid
/// smaller than `u32::MAX` cells a side, which [`ParallelOrigins`]' grids are, through `u32`:
/// converting to 64 bits costs a float-to-integer path twice as long, and the sweep converts
/// for every origin binned and every triangle offered.
#[inline(always)]
fn cell_number(x: f32) -> usize {
    x as u32 as usize
}

/// How many triangles of the sweep's order ahead a world triangle is fetched into the cache:
/// the sweep reads it (for its plane) in depth order, that is in no order of the scene's, and
/// waited for the load (most of [`LaneTest::new`]'s time on a3c8p1_forest_day).
const PREFETCH_AHEAD: usize = 8;

/// Asks the processor to load `t` into the cache, both its ends (48 bytes may straddle two
/// lines); no effect elsewhere than x86-64.
#[inline(always)]
fn prefetch(t: &Triangle) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing and faults on no address.
    #[allow(unsafe_code)]
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let first: *const i8 = (t as *const Triangle).cast();
        _mm_prefetch::<_MM_HINT_T0>(first);
        _mm_prefetch::<_MM_HINT_T0>(first.wrapping_add(std::mem::size_of::<Triangle>() - 1));
    }
}

/// Origins a cell of [`ParallelOrigins`] holds on average (where they are spread evenly).
/// With a cell's origins tested eight at a time, visiting a cell costs more than testing an
/// origin: 8 took fewer instructions than 4 or 16 on subway01 and dotf_test2.
const ORIGINS_PER_CELL: f32 = 8.0;

impl ParallelOrigins {
    /// Bins `origins` for rays along `dir` (not zero).
    pub fn new(origins: Vec<[f32; 3]>, dir: [f32; 3]) -> ParallelOrigins {
        let frame = Frame::new(dir);
        let mut feet = with_spare(|s| std::mem::take(&mut s.feet));
        feet.clear();
        feet.extend(origins.iter().map(|&o| frame.foot(o)));
        let (mut lo, mut hi) = ([f32::INFINITY; 2], [f32::NEG_INFINITY; 2]);
        for f in feet.iter().filter(|f| f.iter().all(|c| c.is_finite())) {
            lo = [lo[0].min(f[0]), lo[1].min(f[1])];
            hi = [hi[0].max(f[0]), hi[1].max(f[1])];
        }
        let mut out = ParallelOrigins {
            frame,
            origins,
            feet,
            min: lo,
            inv_cell: 1.0,
            nx: 0,
            ny: 0,
            cell_start: vec![0],
            binned: Vec::new(),
            cell_near: Vec::new(),
        };
        if lo[0] > hi[0] {
            return out; // no finite origin
        }
        out.bin(hi[0] - lo[0], hi[1] - lo[1]);
        out
    }

    /// Lays the grid over the `width × height` area the feet cover, about
    /// [`ORIGINS_PER_CELL`] origins a cell, and bins the origins in it.
    fn bin(&mut self, width: f32, height: f32) {
        let cell = (width * height * ORIGINS_PER_CELL / self.origins.len() as f32)
            .sqrt()
            .max(width.max(height) / 4096.0)
            .max(1.0);
        self.inv_cell = 1.0 / cell;
        self.nx = (width * self.inv_cell) as usize + 1;
        self.ny = (height * self.inv_cell) as usize + 1;
        let mut spare = with_spare(std::mem::take);
        self.sort_into_cells(&mut spare);
        self.cell_start = std::mem::take(&mut spare.cell_start);
        self.binned = std::mem::take(&mut spare.binned);
        self.cell_near = std::mem::take(&mut spare.cell_near);
        with_spare(|s| *s = spare);
    }

    /// Into `spare`'s `cell_start`, `binned` and `cell_near`, the origins sorted by cell (a
    /// counting sort) and each cell's least depth.
    fn sort_into_cells(&self, spare: &mut Spare) {
        let cells = self.nx * self.ny;
        let cell_of = refill(
            &mut spare.cell_of,
            self.feet.iter().map(|f| self.cell_of(f[0], f[1])),
        );
        let start = refill(&mut spare.cell_start, std::iter::repeat_n(0, cells + 1));
        for &c in cell_of.iter().filter(|&&c| c != NO_CELL) {
            start[c as usize + 1] += 1;
        }
        for c in 1..start.len() {
            start[c] += start[c - 1];
        }
        let fill = refill(&mut spare.fill, start.iter().copied());
        let binned = refill(
            &mut spare.binned,
            std::iter::repeat_n(Binned::default(), start[cells] as usize),
        );
        let near = refill(&mut spare.cell_near, std::iter::repeat_n(f32::INFINITY, cells));
        for (i, &c) in cell_of.iter().enumerate().filter(|(_, c)| **c != NO_CELL) {
            let c = c as usize;
            let foot = self.feet[i];
            binned[fill[c] as usize] = Binned {
                foot,
                origin: i as u32,
            };
            fill[c] += 1;
            near[c] = near[c].min(foot[2]);
        }
    }

    /// The cell holding the point `(x, y)` of the plane, or [`NO_CELL`].
    fn cell_of(&self, x: f32, y: f32) -> u32 {
        let cx = (x - self.min[0]) * self.inv_cell;
        let cy = (y - self.min[1]) * self.inv_cell;
        if !(cx >= 0.0 && cy >= 0.0) {
            return NO_CELL;
        }
        let (cx, cy) = (cell_number(cx), cell_number(cy));
        if cx < self.nx && cy < self.ny {
            (cy * self.nx + cx) as u32
        } else {
            NO_CELL
        }
    }

    /// The origins, in the order given.
    pub fn origins(&self) -> &[[f32; 3]] {
        &self.origins
    }

    /// Calls `meet(origin, triangle slot, ahead)` (`ahead`: how far the triangle's near depth
    /// lies beyond the origin's, in depth units) for every origin whose ray may hit a
    /// triangle of `along` whose payload `wanted` accepts: the origin lies under the padded
    /// projected triangle, not wholly behind it (what [`ParallelRays`]' walk tests).
    /// Triangles come nearest first (by near depth, then slot), so `meet` returns true once an
    /// origin's question is settled (nothing nearer can come), and the origin is met no more.
    fn sweep(
        &self,
        along: &SceneAlong<'_>,
        wanted: impl Fn(u32) -> bool,
        meet: impl FnMut(usize, usize, f32) -> bool,
    ) {
        #[cfg(target_arch = "x86_64")]
        if is_x86_feature_detected!("avx2") {
            #[allow(unsafe_code)]
            // SAFETY: the processor has AVX2, as just asked.
            return unsafe { avx2::sweep(self, along, wanted, meet) };
        }
        self.sweep_with(along, wanted, meet, portable_under);
    }

    /// [`ParallelOrigins::sweep`] testing a cell's origins a group of lanes at a time with
    /// `under` ([`portable_under`]'s answers).
    #[inline(always)]
    fn sweep_with(
        &self,
        along: &SceneAlong<'_>,
        wanted: impl Fn(u32) -> bool,
        mut meet: impl FnMut(usize, usize, f32) -> bool,
        under: impl Fn(&LiveOrigins, usize, &LaneTest) -> u32 + Copy,
    ) {
        assert_eq!(
            along.dir, self.frame.dir,
            "origins and triangles seen along one direction"
        );
        if self.nx == 0 {
            return;
        }
        let mut spare = with_spare(std::mem::take);
        // Per cell, its origins still open are `live[cell_start[c]..live_end[c]]`.
        spare.live.fill(&self.binned);
        refill(&mut spare.live_end, self.cell_start[1..].iter().copied());
        // Whole groups of triangles that meet no origin (most of a map's, when few are asked:
        // a shard's share of the luxels, or a fine level's) are passed over.
        let groups = along
            .groups
            .iter()
            .map(|(area, depth)| self.may_meet(area, depth[1]));
        refill(&mut spare.groups_met, groups);
        let cell = 1.0 / self.inv_cell;
        let offered = |k: usize| {
            (along.order.get(k))
                .is_some_and(|s| spare.groups_met[s.slot as usize / GROUP] && wanted(s.payload))
        };
        // Bit `j`: whether the triangle `j` places on is offered, each asked once.
        let mut window = (0..PREFETCH_AHEAD).fold(0u32, |m, j| m | u32::from(offered(j)) << j);
        for (k, seen) in along.order.iter().enumerate() {
            let ahead = offered(k + PREFETCH_AHEAD);
            if ahead {
                prefetch(&along.scene.triangles[along.order[k + PREFETCH_AHEAD].slot as usize]);
            }
            let this = window & 1 != 0;
            window = window >> 1 | u32::from(ahead) << (PREFETCH_AHEAD - 1);
            if !this {
                continue;
            }
            let mut open = CellOrigins {
                live: &mut spare.live,
                live_end: &mut spare.live_end,
            };
            let triangle = &along.scene.triangles[seen.slot as usize];
            let seen = (&seen.projected, triangle, seen.slot);
            self.sweep_triangle(seen, cell, &mut open, &mut meet, under);
        }
        with_spare(|s| *s = spare);
    }

    /// Offers one triangle (projected `p`, its world `triangle` and `slot`) to the open origins of every cell
    /// (`cell` wide) it may cover.
    #[inline(always)]
    fn sweep_triangle(
        &self,
        (p, triangle, slot): (&Projected, &Triangle, u32),
        cell: f32,
        open: &mut CellOrigins<'_>,
        meet: &mut impl FnMut(usize, usize, f32) -> bool,
        under: impl Fn(&LiveOrigins, usize, &LaneTest) -> u32 + Copy,
    ) {
        // Made at the first cell that needs them: most triangles turn out to need none.
        let (mut test, mut overlap) = (None, None);
        let (x0, x1) = self.span(p.area[0], p.area[2], self.min[0], self.nx);
        let (y0, y1) = self.span(p.area[1], p.area[3], self.min[1], self.ny);
        for cy in y0..y1 {
            for cx in x0..x1 {
                let c = cy * self.nx + cx;
                if self.cell_near[c] > p.depth[1] || open.live_end[c] == self.cell_start[c] {
                    continue;
                }
                let overlap = overlap.get_or_insert_with(|| p.shape.overlap_test());
                if !self.cell_may_overlap(cx, cy, cell, overlap) {
                    continue;
                }
                let test = test.get_or_insert_with(|| LaneTest::new(p, triangle, self.frame.axes));
                self.meet_cell(c, open, (test, p.depth[0]), slot, meet, under);
            }
        }
    }

    /// Whether a projected box `[min x, min y, max x, max y]` whose far depth is `far` covers
    /// a cell holding an origin not wholly behind it.
    fn may_meet(&self, area: &[f32; 4], far: f32) -> bool {
        let (x0, x1) = self.span(area[0], area[2], self.min[0], self.nx);
        let (y0, y1) = self.span(area[1], area[3], self.min[1], self.ny);
        // An empty cell's nearest depth is infinite, and a scene's depths are finite.
        (y0..y1).any(|cy| (cy * self.nx + x0..cy * self.nx + x1).any(|c| self.cell_near[c] <= far))
    }

    /// The cells `[start, end)` along one axis that `lo..hi` covers, of `n` from `min`.
    #[inline]
    fn span(&self, lo: f32, hi: f32, min: f32, n: usize) -> (usize, usize) {
        let a = (lo - min) * self.inv_cell;
        let b = (hi - min) * self.inv_cell;
        (
            cell_number(a).min(n),
            if b >= 0.0 {
                cell_number(b).min(n - 1) + 1
            } else {
                0
            },
        )
    }

    /// Whether a projected shape may overlap cell `(cx, cy)` (`cell` wide). The cell's
    /// square is grown a little: a foot's cell is found by rounded arithmetic, so it may lie
    /// a hair outside the exact square.
    #[inline(always)]
    fn cell_may_overlap(&self, cx: usize, cy: usize, cell: f32, shape: &OverlapTest) -> bool {
        let (cx0, cy0) = (self.min[0] + cx as f32 * cell, self.min[1] + cy as f32 * cell);
        shape.may_overlap([
            cx0 - cell * 0.01,
            cy0 - cell * 0.01,
            cx0 + cell * 1.01,
            cy0 + cell * 1.01,
        ])
    }

    /// Offers triangle `slot` (its lane `test` and near depth) to every open origin of cell `c`
    /// under it and not behind it; an origin `meet` settles is closed.
    #[inline(always)]
    fn meet_cell(
        &self,
        c: usize,
        open: &mut CellOrigins<'_>,
        (test, near): (&LaneTest, f32),
        slot: u32,
        meet: &mut impl FnMut(usize, usize, f32) -> bool,
        under: impl Fn(&LiveOrigins, usize, &LaneTest) -> u32,
    ) {
        let CellOrigins { live, live_end } = open;
        let start = self.cell_start[c] as usize;
        // From the last group of lanes down, each group's lanes from the last down: a closed
        // origin's place takes the cell's last open one, which has met this triangle already.
        let mut top = live_end[c] as usize;
        while top > start {
            let first = top.saturating_sub(LANES).max(start);
            let mut under = under(live, first, test) & (u32::MAX >> (32 - (top - first)));
            while under != 0 {
                let k = 31 - under.leading_zeros() as usize;
                under &= !(1 << k);
                let j = first + k;
                if meet(live.origin[j] as usize, slot as usize, near - live.z[j]) {
                    live_end[c] -= 1;
                    live.overwrite(j, live_end[c] as usize);
                }
            }
            top = first;
        }
    }

    /// The ray from origin `i` up to `max_t`: [`ray`]'s, made once for the direction (its
    /// inverse direction costs three divisions) and moved.
    fn ray_from(&self) -> impl Fn(usize, f32) -> Ray + '_ {
        let template = ray([0.0; 3], self.frame.dir, 0.0);
        move |i, max_t| Ray {
            origin: self.origins[i].into(),
            tmax: max_t,
            ..template
        }
    }

    /// Per origin, the nearest hit of `along`'s scene before `max_t` (the BVH's `closest`).
    pub fn closest(&self, along: &SceneAlong<'_>, max_t: f32) -> Vec<Option<Hit>> {
        self.closest_with(along, max_t, |_| true)
    }

    /// [`ParallelOrigins::closest`] among the triangles whose payload `wanted` accepts.
    pub fn closest_with(
        &self,
        along: &SceneAlong<'_>,
        max_t: f32,
        wanted: impl Fn(u32) -> bool,
    ) -> Vec<Option<Hit>> {
        let scene = along.scene;
        let mut best = vec![(max_t, u32::MAX); self.origins.len()];
        let (from, inv_len) = (self.ray_from(), self.frame.inv_len);
        self.sweep(along, wanted, |i, slot, ahead| {
            let (bound, _) = best[i];
            // Triangles come nearest first: none from here on can be hit before the bound.
            if ahead * inv_len >= bound {
                return true;
            }
            let t = intersect(&scene.triangles[slot], &from(i, max_t));
            if t < bound {
                best[i] = (t, slot as u32);
            }
            false
        });
        best.into_iter()
            .map(|(t, slot)| {
                (slot != u32::MAX).then(|| Hit {
                    t,
                    payload: scene.payloads[slot as usize],
                    triangle: scene.original[slot as usize],
                })
            })
            .collect()
    }

    /// Per origin, whether a triangle of `along`'s scene whose payload has none of `ignore`'s
    /// bits lies before `limits[origin]` (the BVH's `occluded_except`).
    pub fn occluded_except(&self, along: &SceneAlong<'_>, limits: &[f32], ignore: u32) -> Vec<bool> {
        let scene = along.scene;
        let mut hit = vec![false; self.origins.len()];
        let (from, inv_len) = (self.ray_from(), self.frame.inv_len);
        self.sweep(
            along,
            |p| p & ignore == 0,
            |i, slot, ahead| {
                let limit = limits[i];
                if ahead * inv_len >= limit {
                    return true;
                }
                hit[i] = intersect(&scene.triangles[slot], &from(i, limit)) < limit;
                hit[i]
            },
        );
        hit
    }
}

impl Drop for ParallelOrigins {
    /// Hands the buffers back to the thread's [`Spare`] for the next direction.
    fn drop(&mut self) {
        let feet = std::mem::take(&mut self.feet);
        let cell_start = std::mem::take(&mut self.cell_start);
        let binned = std::mem::take(&mut self.binned);
        let cell_near = std::mem::take(&mut self.cell_near);
        with_spare(|s| {
            (s.feet, s.cell_start, s.binned, s.cell_near) = (feet, cell_start, binned, cell_near);
        });
    }
}

/// [`ParallelOrigins::cell_of`] for a foot outside the grid.
const NO_CELL: u32 = u32::MAX;

/// Buffers a thread's [`ParallelOrigins`] reuse from one direction to the next. Made afresh
/// for each of a sky table's directions (several megabytes each on a big map), their pages
/// were faulted in anew every time: 8 % of vrad's CPU time was the kernel's.
#[derive(Default)]
struct Spare {
    feet: Vec<[f32; 3]>,
    cell_of: Vec<u32>,
    cell_start: Vec<u32>,
    fill: Vec<u32>,
    binned: Vec<Binned>,
    cell_near: Vec<f32>,
    live: LiveOrigins,
    live_end: Vec<u32>,
    projected: Vec<Projected>,
    keys: Vec<u64>,
    order: Vec<Seen>,
    groups_met: Vec<bool>,
}

thread_local! {
    static SPARE: Cell<Spare> = Cell::default();
}

/// Runs `f` on this thread's [`Spare`] (a fresh one where a caller up the stack holds it, or
/// while the thread's locals are being torn down).
fn with_spare<R>(f: impl FnOnce(&mut Spare) -> R) -> R {
    let mut spare = SPARE.try_with(Cell::take).unwrap_or_default();
    let out = f(&mut spare);
    // Nothing to keep it for once the thread's locals are gone.
    let _ = SPARE.try_with(|cell| cell.set(spare));
    out
}

/// Clears `buffer` and fills it from `items`, keeping its capacity; returns it.
fn refill<T>(buffer: &mut Vec<T>, items: impl IntoIterator<Item = T>) -> &mut Vec<T> {
    buffer.clear();
    buffer.extend(items);
    buffer
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SceneBuilder;

    /// Triangles of every size and place, far from the origin too (where rounding is
    /// coarsest), and unit directions all round.
    fn scene_and_directions() -> (Scene, Vec<[f32; 3]>) {
        let mut b = SceneBuilder::new();
        let mut seed = 7u32;
        let mut next = move || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1u32 << 24) as f32 - 0.5
        };
        for i in 0..2000 {
            let far = if i % 3 == 0 { 30_000.0 } else { 300.0 };
            let size = if i % 40 == 0 { 5000.0 } else { 8.0 };
            let a = [next() * far, next() * far, next() * far];
            let corner = |a: f32, d: f32| a + d * size;
            let c = [corner(a[0], next()), corner(a[1], next()), corner(a[2], next())];
            let d = [corner(a[0], next()), corner(a[1], next()), corner(a[2], next())];
            b.add_triangle(a, c, d, i);
        }
        let dirs = (0..40).map(|_| [next(), next(), next()]).collect();
        (b.build(), dirs)
    }

    #[test]
    fn a_group_box_holds_its_triangles_seen_along_any_direction() {
        let (scene, dirs) = scene_and_directions();
        let groups = Groups::new(&scene.triangles);
        assert_eq!(groups.boxes.len(), scene.triangles.len().div_ceil(GROUP));
        for dir in dirs {
            let axes = Frame::new(dir).axes;
            for (slot, t) in scene.triangles.iter().enumerate() {
                let p = Projected::new(t, axes);
                let (area, depth) = groups.boxes[slot / GROUP].projected(axes);
                let inside = area[0] <= p.area[0]
                    && area[1] <= p.area[1]
                    && area[2] >= p.area[2]
                    && area[3] >= p.area[3];
                assert!(
                    inside && depth[0] <= p.depth[0] && depth[1] >= p.depth[1],
                    "{slot} {dir:?}"
                );
            }
        }
    }

    /// Origins spread over the scene of [`scene_and_directions`], a few stacked on one foot.
    fn origins_among(scene: &Scene) -> Vec<[f32; 3]> {
        let mut seed = 11u32;
        let mut next = move || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1u32 << 24) as f32 - 0.5
        };
        let mut origins: Vec<[f32; 3]> = (0..3000)
            .map(|_| [next() * 600.0, next() * 600.0, next() * 600.0])
            .collect();
        // Corners of triangles: feet on edges, where rounding decides.
        origins.extend(scene.triangles.iter().take(200).map(|t| t.v1.to_array()));
        origins.extend([[1.0, 2.0, 3.0]; 9]);
        origins
    }

    /// Every (origin, triangle) pair a sweep meets, in order, `meet` closing an origin at
    /// every third triangle it meets whose slot is odd.
    fn meetings(
        rays: &ParallelOrigins,
        along: &SceneAlong<'_>,
        under: impl Fn(&LiveOrigins, usize, &LaneTest) -> u32 + Copy,
    ) -> Vec<(usize, usize, u32)> {
        let mut met = Vec::new();
        rays.sweep_with(
            along,
            |p| p % 5 != 0,
            |i, slot, ahead| {
                met.push((i, slot, ahead.to_bits()));
                slot % 2 == 1 && met.len() % 3 == 0
            },
            under,
        );
        met
    }

    #[test]
    fn a_sweep_meets_the_same_origins_in_the_same_order_with_any_lane_test() {
        let (scene, dirs) = scene_and_directions();
        let origins = origins_among(&scene);
        let mut total = 0;
        for dir in dirs {
            let rays = ParallelOrigins::new(origins.clone(), dir);
            let along = SceneAlong::new(&scene, dir);
            let one_by_one = |live: &LiveOrigins, first: usize, test: &LaneTest| {
                (0..LANES).fold(0, |mask, k| {
                    let (x, y, z) = (live.x[first + k], live.y[first + k], live.z[first + k]);
                    let inside = test.edges.iter().all(|e| e[0] * x + e[1] * y + e[2] >= 0.0);
                    let p = test.plane;
                    let beyond = p[0] * x + p[1] * y + p[2] * z + p[3];
                    let ahead = [(z, test.far), (beyond, 0.0)]
                        .iter()
                        .all(|(v, limit)| v.partial_cmp(limit) != Some(std::cmp::Ordering::Greater));
                    mask | u32::from(inside && ahead) << k
                })
            };
            let want = meetings(&rays, &along, one_by_one);
            assert_eq!(want, meetings(&rays, &along, portable_under), "{dir:?}");
            #[cfg(target_arch = "x86_64")]
            if is_x86_feature_detected!("avx2") {
                #[allow(unsafe_code)]
                // SAFETY: the processor has AVX2, as just asked.
                let with_avx2 = |live: &LiveOrigins, first: usize, test: &LaneTest| unsafe {
                    avx2::under(live, first, test)
                };
                assert_eq!(want, meetings(&rays, &along, with_avx2), "{dir:?}");
            }
            total += want.len();
        }
        assert!(total > 5_000, "{total} meetings");
    }

    /// A ray leaving a face one unit off it (a luxel's) is not offered that face, whose plane
    /// lies behind it; with the plane test turned off, most are (those seeing it along a
    /// slant: a face's depths then span its origins').
    #[test]
    fn a_ray_leaving_its_face_is_not_offered_it() {
        let mut b = crate::SceneBuilder::new();
        let quads = [(0.0, 0.0), (300.0, 0.0), (0.0, 300.0), (20_000.0, 9_000.0)];
        for (k, &(x, y)) in quads.iter().enumerate() {
            let k = k as u32;
            b.add_triangle(
                [x, y, 5.0],
                [x + 256.0, y, 5.0],
                [x + 256.0, y + 256.0, 5.0],
                2 * k,
            );
            b.add_triangle(
                [x, y, 5.0],
                [x + 256.0, y + 256.0, 5.0],
                [x, y + 256.0, 5.0],
                2 * k + 1,
            );
        }
        let scene = b.build();
        let feet = (0..16).flat_map(|i| (0..16).map(move |j| (i as f32 * 16.0 + 0.5, j as f32 * 16.0 + 0.3)));
        let origins: Vec<[f32; 3]> = (quads.iter())
            .flat_map(|&(x, y)| feet.clone().map(move |(s, t)| [x + s, y + t, 6.0]))
            .collect();
        for dir in [[0.5, -0.3, 1.0], [1.0, 1.0, 0.05], [-0.1, 0.2, 1.0]] {
            let rays = ParallelOrigins::new(origins.clone(), dir);
            let along = SceneAlong::new(&scene, dir);
            let met = |planes: bool| {
                let mut count = 0;
                let under = |live: &LiveOrigins, first: usize, test: &LaneTest| {
                    let plane = if planes { test.plane } else { [0.0, 0.0, 0.0, -1.0] };
                    portable_under(live, first, &LaneTest { plane, ..*test })
                };
                rays.sweep_with(
                    &along,
                    |_| true,
                    |_, _, _| {
                        count += 1;
                        false
                    },
                    under,
                );
                count
            };
            assert_eq!(met(true), 0, "{dir:?}");
            assert!(met(false) > origins.len() / 2, "{dir:?} {}", met(false));
        }
    }

    #[test]
    fn depth_keys_sort_as_total_cmp() {
        let mut depths = [
            0.0,
            -0.0,
            1.5,
            -1.5,
            f32::MAX,
            f32::MIN,
            1e-40,
            -1e-40,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ];
        let mut by_key = depths;
        depths.sort_by(f32::total_cmp);
        by_key.sort_by_key(|&d| depth_key(d));
        assert_eq!(depths.map(f32::to_bits), by_key.map(f32::to_bits));
    }
}
