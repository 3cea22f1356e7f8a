//! Many rays in one direction: a "parallel-ray light buffer". Every triangle is projected
//! onto the plane normal to the direction and binned into 2D grids; a ray is then a point of
//! that plane and walks only its cell's triangles, nearest first, through the same exact
//! triangle test the BVH runs. Answers are the BVH's (the closest hit, or whether anything is
//! hit), except which of two hits at exactly the same distance is reported.
//!
//! A triangle goes to the finest grid level whose cells are at least as large as its
//! projected box, so it lands in at most 2×2 cells of one level: memory stays about four
//! entries a triangle however large the triangles are.

use glam::Vec3A;

use crate::{Hit, Scene, Tracer, intersect, ray};

/// One triangle in one cell: its depth range along the direction (padded) and its slot in
/// the scene's triangle table.
#[derive(Debug, Clone, Copy)]
struct Entry {
    near: f32,
    far: f32,
    slot: u32,
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

impl Level {
    /// The cells (global indices) a padded box `[min x, min y, max x, max y]` overlaps.
    fn cells(&self, b: &[f32; 4]) -> impl Iterator<Item = usize> + '_ {
        let clamp = |x: f32, n: usize| (x.max(0.0) as usize).min(n - 1);
        let x0 = clamp((b[0] - self.min[0]) * self.inv_cell, self.nx);
        let x1 = clamp((b[2] - self.min[0]) * self.inv_cell, self.nx);
        let y0 = clamp((b[1] - self.min[1]) * self.inv_cell, self.ny);
        let y1 = clamp((b[3] - self.min[1]) * self.inv_cell, self.ny);
        (y0..=y1).flat_map(move |y| (x0..=x1).map(move |x| self.first_cell + y * self.nx + x))
    }
}

/// A scene prepared for rays along one direction; other directions fall back to the BVH.
pub struct ParallelRays<'s> {
    scene: &'s Scene,
    /// The direction as [`ray`] hands it to the triangle test.
    dir: [f32; 3],
    /// Plane axes and the unit direction.
    axes: [Vec3A; 3],
    /// 1 / |dir|: depth differences to ray distances.
    inv_len: f32,
    levels: Vec<Level>,
    /// Per cell of every level, where its entries start (one past the end: the next one's).
    cell_start: Vec<u32>,
    entries: Vec<Entry>,
}

impl std::fmt::Debug for ParallelRays<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParallelRays")
            .field("dir", &self.dir)
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

impl<'s> ParallelRays<'s> {
    /// Bins `scene`'s triangles for rays along `dir` (not zero).
    pub fn new(scene: &'s Scene, dir: [f32; 3]) -> ParallelRays<'s> {
        let dir = ray([0.0; 3], dir, 1.0).direction.to_array();
        let d = Vec3A::from(dir);
        let len = d.length();
        let w = if len > 0.0 { d / len } else { Vec3A::Z };
        let helper = if w.z.abs() < 0.9 { Vec3A::Z } else { Vec3A::X };
        let u = helper.cross(w).normalize();
        let v = w.cross(u);
        let mut out = ParallelRays {
            scene,
            dir,
            axes: [u, v, w],
            inv_len: if len > 0.0 { 1.0 / len } else { 0.0 },
            levels: Vec::new(),
            cell_start: Vec::new(),
            entries: Vec::new(),
        };
        out.bin();
        out
    }

    /// The direction these rays share.
    pub fn direction(&self) -> [f32; 3] {
        self.dir
    }

    /// Projected 2D boxes, depth ranges (all padded), then the levels and their cells.
    fn bin(&mut self) {
        let tris = &self.scene.triangles;
        if tris.is_empty() {
            return;
        }
        let [u, v, w] = self.axes;
        // Per triangle: [min x, min y, max x, max y], [near, far].
        let mut boxes = Vec::with_capacity(tris.len());
        let (mut lo, mut hi) = ([f32::INFINITY; 2], [f32::NEG_INFINITY; 2]);
        for t in tris {
            let p = [t.v0, t.v1, t.v2];
            let xs = p.map(|p| p.dot(u));
            let ys = p.map(|p| p.dot(v));
            let zs = p.map(|p| p.dot(w));
            let magnitude = p.iter().map(|p| p.abs().max_element()).fold(0.0, f32::max);
            let min = |a: [f32; 3]| a[0].min(a[1]).min(a[2]);
            let max = |a: [f32; 3]| a[0].max(a[1]).max(a[2]);
            let extent = (max(xs) - min(xs)).max(max(ys) - min(ys)).max(max(zs) - min(zs));
            let pad = slack(magnitude, extent);
            let b = [min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad];
            lo = [lo[0].min(b[0]), lo[1].min(b[1])];
            hi = [hi[0].max(b[2]), hi[1].max(b[3])];
            boxes.push((b, [min(zs) - pad, max(zs) + pad]));
        }
        // Finest cells: about two triangles' share of the projected area each.
        let (width, height) = (hi[0] - lo[0], hi[1] - lo[1]);
        let fine = ((width * height) / (2.0 * tris.len() as f32)).sqrt().max(1.0);
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
                break;
            }
            cell *= 2.0;
        }
        let level_count = self.levels.len();
        let level_of = |b: &[f32; 4]| {
            let size = (b[2] - b[0]).max(b[3] - b[1]);
            let mut k = 0;
            let mut cell = fine;
            while cell < size && k + 1 < level_count {
                cell *= 2.0;
                k += 1;
            }
            k
        };
        // Counting sort of (cell, entry) pairs.
        let mut count = vec![0u32; total + 1];
        let placed: Vec<usize> = boxes.iter().map(|(b, _)| level_of(b)).collect();
        for ((b, _), &k) in boxes.iter().zip(&placed) {
            for c in self.levels[k].cells(b) {
                count[c + 1] += 1;
            }
        }
        for i in 1..count.len() {
            count[i] += count[i - 1];
        }
        let mut fill = count.clone();
        let mut entries = vec![
            Entry {
                near: 0.0,
                far: 0.0,
                slot: 0
            };
            count[total] as usize
        ];
        for (slot, ((b, depth), &k)) in boxes.iter().zip(&placed).enumerate() {
            for c in self.levels[k].cells(b) {
                entries[fill[c] as usize] = Entry {
                    near: depth[0],
                    far: depth[1],
                    slot: slot as u32,
                };
                fill[c] += 1;
            }
        }
        for c in 0..total {
            entries[count[c] as usize..count[c + 1] as usize]
                .sort_unstable_by(|a, b| a.near.total_cmp(&b.near).then(a.slot.cmp(&b.slot)));
        }
        self.cell_start = count;
        self.entries = entries;
    }

    /// The entries of every level's cell holding the ray from `origin`, and the origin's depth.
    fn cells(&self, origin: Vec3A) -> (impl Iterator<Item = &[Entry]>, f32) {
        let [u, v, w] = self.axes;
        let (x, y) = (origin.dot(u), origin.dot(v));
        let cells = self.levels.iter().filter_map(move |level| {
            let cx = (x - level.min[0]) * level.inv_cell;
            let cy = (y - level.min[1]) * level.inv_cell;
            if !(cx >= 0.0 && cy >= 0.0) {
                return None;
            }
            let (cx, cy) = (cx as usize, cy as usize);
            if cx >= level.nx || cy >= level.ny {
                return None;
            }
            let c = level.first_cell + cy * level.nx + cx;
            let range = self.cell_start[c] as usize..self.cell_start[c + 1] as usize;
            Some(&self.entries[range])
        });
        (cells, origin.dot(w))
    }

    /// The nearest hit before `max_t` (the BVH's `closest`, along this direction).
    fn closest_along(&self, origin: [f32; 3], max_t: f32) -> Option<Hit> {
        let ray = ray(origin, self.dir, max_t);
        let (cells, depth) = self.cells(ray.origin);
        let mut best = max_t;
        let mut found = None;
        for entries in cells {
            for e in entries {
                if (e.near - depth) * self.inv_len >= best {
                    break;
                }
                if e.far < depth {
                    continue;
                }
                let t = intersect(&self.scene.triangles[e.slot as usize], &ray);
                if t < best {
                    best = t;
                    found = Some(e.slot);
                }
            }
        }
        found.map(|slot| Hit {
            t: best,
            payload: self.scene.payloads[slot as usize],
            triangle: self.scene.original[slot as usize],
        })
    }

    /// Whether a triangle whose payload has none of `ignore`'s bits lies before `max_t`.
    fn occluded_along(&self, origin: [f32; 3], max_t: f32, ignore: u32) -> bool {
        let ray = ray(origin, self.dir, max_t);
        let (cells, depth) = self.cells(ray.origin);
        for entries in cells {
            for e in entries {
                if (e.near - depth) * self.inv_len >= max_t {
                    break;
                }
                if e.far < depth || self.scene.payloads[e.slot as usize] & ignore != 0 {
                    continue;
                }
                if intersect(&self.scene.triangles[e.slot as usize], &ray) < max_t {
                    return true;
                }
            }
        }
        false
    }

    fn along(&self, dir: [f32; 3]) -> bool {
        ray([0.0; 3], dir, 1.0).direction.to_array() == self.dir
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
