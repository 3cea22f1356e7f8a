//! Bounce patches: each lit face cut into a grid of cells as VRAD cuts it into patches (its
//! extent halved until a piece is under [`Options::bounce_spacing`] luxels, VRAD's `chop` of 4;
//! a displacement into cells of twice that, VRAD's `dispchop` of 8),
//! and the light of those cells spread back over luxels as VRAD's `BuildPatchRadial` does.
//!
//! VRAD gives a luxel the weighted mean of the patches around it, its own face's and those of
//! the faces it shares a vertex with at under 45° (its `faceneighbor`, so a face split by vbsp
//! shows no seam in its bounced light). A patch weighs `2 − (ds² + dt²)` at a luxel, where
//! `ds`, `dt` are the luxel's distance from the patch centre in patch widths: a cone about
//! 1.42 patch widths wide, so neighbouring patches overlap and the light varies smoothly.

use std::collections::HashMap;

use glam::{Vec2, Vec3};

use crate::displacement::DispSurface;
use crate::faces::FaceGeom;
use crate::samples::{cut, disp_uv};

/// VRAD's `RADIALDIST2`: a patch reaches luxels within √2 of its widths.
const RADIAL_REACH2: f32 = 2.0;
/// Faces whose planes meet at a smaller angle share patches (VRAD's `smoothing_threshold`, cos 45°).
const NEIGHBOUR_COS: f32 = std::f32::consts::FRAC_1_SQRT_2;

/// One axis of a face's cell grid: `count` cells of `size` luxels from luxel coordinate `min`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Cells {
    pub count: usize,
    pub size: f32,
    pub min: f32,
}

/// A face's patches along one axis at most (a bound for hostile lightmap extents).
const MAX_CELLS: usize = 1024;

impl Cells {
    /// Cells of about `spacing` luxels over `luxels` luxel centres (0 ..= luxels − 1).
    pub fn over(luxels: usize, spacing: usize) -> Cells {
        let span = luxels.saturating_sub(1);
        let count = span.div_ceil(spacing.max(1)).max(1);
        Cells {
            count,
            size: (span as f32 / count as f32).max(1.0),
            min: 0.0,
        }
    }

    /// VRAD's patches of a face along one axis (`SubdividePatch`): the face's extent `lo..hi`
    /// halved, and halved again, until a piece is under `chop` luxels; so `2^k` equal cells.
    pub fn halved(lo: f32, hi: f32, chop: usize) -> Cells {
        let extent = (hi - lo).max(0.0);
        let mut count = 1;
        while extent / count as f32 >= chop.max(1) as f32 && count < MAX_CELLS {
            count *= 2;
        }
        Cells {
            count,
            size: (extent / count as f32).max(1e-3),
            min: lo,
        }
    }

    /// The cell holding luxel coordinate `v`.
    #[inline]
    pub fn index(&self, v: f32) -> usize {
        (((v - self.min) / self.size).max(0.0) as usize).min(self.count - 1)
    }

    /// Luxel coordinate of cell `i`'s centre.
    #[inline]
    pub fn centre(&self, i: usize) -> f32 {
        self.min + (i as f32 + 0.5) * self.size
    }
}

/// The cell grid of one face.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Grid {
    pub cols: Cells,
    pub rows: Cells,
}

impl Grid {
    /// A brush face's grid is VRAD's patches over the face's extent; a displacement's, cells of
    /// twice `spacing` over its luxels (VRAD's `dispchop`).
    pub fn of(g: &FaceGeom, spacing: usize) -> Grid {
        if g.is_displacement || g.luxel_poly.len() < 3 {
            let spacing = if g.is_displacement { spacing * 2 } else { spacing };
            return Grid {
                cols: Cells::over(g.width, spacing),
                rows: Cells::over(g.height, spacing),
            };
        }
        let (lo, hi) = poly_bounds(&g.luxel_poly);
        Grid {
            cols: Cells::halved(lo.x, hi.x, spacing),
            rows: Cells::halved(lo.y, hi.y, spacing),
        }
    }

    pub fn len(&self) -> usize {
        self.cols.count * self.rows.count
    }

    /// The cell holding luxel-space point `st`.
    #[inline]
    pub fn cell_at(&self, st: Vec2) -> usize {
        self.rows.index(st.y) * self.cols.count + self.cols.index(st.x)
    }

    /// Luxel-space centre of cell `c`.
    pub fn centre(&self, c: usize) -> Vec2 {
        Vec2::new(
            self.cols.centre(c % self.cols.count),
            self.rows.centre(c / self.cols.count),
        )
    }

    /// Luxel-space corners (min, max) of cell `c`.
    pub fn bounds(&self, c: usize) -> (Vec2, Vec2) {
        let half = Vec2::new(self.cols.size, self.rows.size) * 0.5;
        (self.centre(c) - half, self.centre(c) + half)
    }
}

/// The corners (min, max) of a polygon's bounding box.
fn poly_bounds(poly: &[Vec2]) -> (Vec2, Vec2) {
    let lo = poly.iter().copied().fold(Vec2::splat(f32::INFINITY), Vec2::min);
    let hi = poly
        .iter()
        .copied()
        .fold(Vec2::splat(f32::NEG_INFINITY), Vec2::max);
    (lo, hi)
}

/// Per face, the faces whose patches also light it: those sharing a vertex with it whose
/// planes meet at under 45°, brush faces among brush faces (VRAD's `PairEdges`). A
/// displacement uses its own patches only, as VRAD's displacement radial does.
pub(crate) fn neighbours(faces: &[FaceGeom]) -> Vec<Vec<u32>> {
    let mut by_vertex: HashMap<[i64; 3], Vec<u32>> = HashMap::new();
    for (i, g) in faces.iter().enumerate().filter(|(_, g)| shares_patches(g)) {
        for p in &g.points {
            let list = by_vertex.entry(vertex_key(*p)).or_default();
            if list.last() != Some(&(i as u32)) {
                list.push(i as u32);
            }
        }
    }
    faces
        .iter()
        .enumerate()
        .map(|(i, g)| face_neighbours(faces, i, g, &by_vertex))
        .collect()
}

fn shares_patches(g: &FaceGeom) -> bool {
    g.lit && !g.is_displacement
}

/// A vertex position to 1/64 unit: faces of one BSP share their vertices exactly.
fn vertex_key(p: Vec3) -> [i64; 3] {
    (p * 64.0).round().as_i64vec3().to_array()
}

fn face_neighbours(
    faces: &[FaceGeom],
    i: usize,
    g: &FaceGeom,
    by_vertex: &HashMap<[i64; 3], Vec<u32>>,
) -> Vec<u32> {
    if !shares_patches(g) {
        return Vec::new();
    }
    let mut out: Vec<u32> = Vec::new();
    for p in &g.points {
        for &n in by_vertex.get(&vertex_key(*p)).into_iter().flatten() {
            let close = faces[n as usize].normal.dot(g.normal) >= NEIGHBOUR_COS;
            if n as usize != i && close && !out.contains(&n) {
                out.push(n);
            }
        }
    }
    out
}

/// A patch as face `target` sees it: its centre and extent in `target`'s luxel space.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Footprint {
    centre: Vec2,
    extent: Vec2,
}

/// The piece of a face over one cell of its grid, in its luxel space, and the piece's
/// balance point.
#[derive(Debug, Clone)]
pub(crate) struct CellPiece {
    corners: Vec<Vec2>,
    centre: Vec2,
}

/// Per face, per cell of its grid: VRAD's patch over it ([`CellPiece`]; a displacement's, the
/// cell's bounds); `None` where the face misses the cell, which VRAD has no patch for. Cut
/// once: every face's [`footprints`] read its neighbours' pieces.
pub(crate) fn cell_pieces(faces: &[FaceGeom], grids: &[Grid]) -> Vec<Vec<Option<CellPiece>>> {
    use rayon::prelude::*;
    (faces.par_iter().zip(grids))
        .map(|(g, grid)| (0..grid.len()).map(|c| face_cell_piece(g, grid, c)).collect())
        .collect()
}

fn face_cell_piece(g: &FaceGeom, grid: &Grid, c: usize) -> Option<CellPiece> {
    let corners = if g.is_displacement {
        let (lo, hi) = grid.bounds(c);
        vec![lo, Vec2::new(hi.x, lo.y), hi, Vec2::new(lo.x, hi.y)]
    } else {
        cell_piece(g, grid, c)
    };
    (corners.len() >= 3).then(|| CellPiece {
        centre: crate::samples::area_and_centre(&corners).1,
        corners,
    })
}

/// `piece`, a cell of face `source`, in face `target`'s luxel space (through world space
/// on the base plane, as VRAD maps a neighbour's patch winding). On a flat face it is VRAD's
/// patch: the piece of the face over the cell, centred on its balance point and spanning its
/// bounds (a sliver face's patches reach only the luxels near it).
fn footprint(piece: &CellPiece, source: &FaceGeom, target: &FaceGeom, same: bool) -> Footprint {
    let to_target = |st: Vec2| match same {
        true => st,
        false => target.world_to_luxel(source.luxel_to_world(st.x, st.y)),
    };
    let corners: Vec<Vec2> = piece.corners.iter().map(|&st| to_target(st)).collect();
    let min = corners.iter().copied().fold(Vec2::splat(f32::MAX), Vec2::min);
    let max = corners.iter().copied().fold(Vec2::splat(f32::MIN), Vec2::max);
    Footprint {
        centre: to_target(piece.centre),
        extent: (max - min).max(Vec2::ONE),
    }
}

/// The part of face `g` over cell `c` of its `grid` (the edge cells reaching to the face's
/// edges), as a world-space polygon wound as Valve winds faces (clockwise seen from the
/// front): VRAD's patch winding, for [`vrad_form_factor`]. Empty where the face misses it.
pub(crate) fn cell_polygon(g: &FaceGeom, grid: &Grid, c: usize) -> Vec<Vec3> {
    let piece = cell_piece(g, grid, c);
    let poly: Vec<Vec3> = piece.iter().map(|st| g.luxel_to_world(st.x, st.y)).collect();
    if poly.len() < 3 {
        return Vec::new();
    }
    wound_as_valve(poly, g.normal)
}

/// Cell `c` of displacement face `g`'s `grid` as VRAD's displacement patches are: the two
/// triangles of the displaced surface over it (VRAD builds its displacement patches from the
/// displaced vertices, not from the base face, and splits them into triangles down to about
/// its `dispchop` of 8 luxels, the size of these cells), each wound as [`cell_polygon`] winds
/// a face's part.
pub(crate) fn disp_cell_pieces(g: &FaceGeom, disp: &DispSurface, grid: &Grid, c: usize) -> Vec<Vec<Vec3>> {
    let (lo, hi) = grid.bounds(c);
    let corners = [lo, Vec2::new(hi.x, lo.y), hi, Vec2::new(lo.x, hi.y)];
    let [a, b, c, d] = corners.map(|st| disp.surface_point(disp_uv(g, st)).0);
    vec![
        wound_as_valve(vec![a, b, c], g.normal),
        wound_as_valve(vec![a, c, d], g.normal),
    ]
}

/// `poly` wound clockwise seen from the side `normal` points to.
fn wound_as_valve(mut poly: Vec<Vec3>, normal: Vec3) -> Vec<Vec3> {
    if (poly[1] - poly[0]).cross(poly[2] - poly[1]).dot(normal) > 0.0 {
        poly.reverse();
    }
    poly
}

/// The part of face `g` over cell `c` of its `grid`, in luxel space (the edge cells reaching
/// to the face's edges); empty where the face misses it.
fn cell_piece(g: &FaceGeom, grid: &Grid, c: usize) -> Vec<Vec2> {
    let (lo, hi) = grid.bounds(c);
    let index = [c % grid.cols.count, c / grid.cols.count];
    let counts = [grid.cols.count, grid.rows.count];
    let mut piece = g.luxel_poly.clone();
    for axis in 0..2 {
        if index[axis] > 0 {
            piece = cut(&piece, axis, lo[axis]).1;
        }
        if index[axis] + 1 < counts[axis] {
            piece = cut(&piece, axis, hi[axis]).0;
        }
    }
    piece
}

/// A planar convex polygon's area and balance point (area centroid).
pub(crate) fn area_and_centre(poly: &[Vec3]) -> (f32, Vec3) {
    crate::samples::fan_area_centre(poly, |a, b, c| (b - a).cross(c - a).length())
}

/// VRAD's `FormFactorPolyToDiff` (divided by π): the share of a point's cosine-weighted
/// hemisphere that polygon `poly` covers, by the edge-angle sum, where each edge's angle
/// comes from the arcsine of its sine. That is exact while every edge subtends under 90°,
/// but an edge close beside the point (angle near 180°) counts as near 0°: a patch in a
/// narrow slot or a tight corner takes almost nothing from the patches right beside it.
/// Bounce light copies that to keep VRAD's energy there.
pub(crate) fn vrad_form_factor(poly: &[Vec3], point: Vec3, normal: Vec3) -> f32 {
    let mut sum = 0.0;
    for (i, a) in poly.iter().enumerate() {
        let b = poly[(i + 1) % poly.len()];
        let gamma = (*a - point)
            .normalize_or_zero()
            .cross((b - point).normalize_or_zero());
        let sin = gamma.length();
        if sin > 1e-9 {
            sum += sin.min(1.0).asin() * (gamma / sin).dot(normal);
        }
    }
    sum / (2.0 * std::f32::consts::PI)
}

/// Running weighted sums per luxel of one face.
struct Radial {
    light: Vec<Vec3>,
    weight: Vec<f32>,
    width: usize,
    height: usize,
}

impl Radial {
    fn new(g: &FaceGeom) -> Radial {
        Radial {
            light: vec![Vec3::ZERO; g.luxel_count()],
            weight: vec![0.0; g.luxel_count()],
            width: g.width,
            height: g.height,
        }
    }

    /// Adds one patch's `light` with VRAD's cone weight to every luxel it reaches.
    fn add(&mut self, f: Footprint, light: Vec3) {
        let reach = f.extent * RADIAL_REACH2.sqrt();
        let (s0, s1) = span(f.centre.x, reach.x, self.width);
        let (t0, t1) = span(f.centre.y, reach.y, self.height);
        for t in t0..t1 {
            for s in s0..s1 {
                let d = (f.centre - Vec2::new(s as f32, t as f32)) / f.extent;
                let w = RADIAL_REACH2 - d.length_squared();
                if w > 0.0 {
                    self.light[t * self.width + s] += light * w;
                    self.weight[t * self.width + s] += w;
                }
            }
        }
    }

    /// Weighted means; a luxel no patch reaches gets no bounced light (VRAD's `SampleRadial`
    /// on a patch radial: off a sliver face's patches its luxels stay black).
    fn finish(self) -> Vec<Vec3> {
        self.light
            .iter()
            .zip(&self.weight)
            .map(|(v, w)| if *w > 1e-6 { *v / *w } else { Vec3::ZERO })
            .collect()
    }
}

/// Luxel indices `lo..hi` within `reach` of `centre`, clamped to `0..n`.
fn span(centre: f32, reach: f32, n: usize) -> (usize, usize) {
    let lo = (centre - reach).floor().max(0.0) as usize;
    let hi = ((centre + reach).floor() + 1.0).clamp(0.0, n as f32) as usize;
    (lo.min(n), hi)
}

/// Where the patches that light face `face` (its own and its neighbours') fall in its luxel
/// space: (source face, cell, footprint) per patch. Computed once, used for every light the
/// patches carry ([`spread`]).
pub(crate) fn footprints(
    faces: &[FaceGeom],
    pieces: &[Vec<Option<CellPiece>>],
    neighbours: &[u32],
    face: usize,
) -> Vec<(usize, usize, Footprint)> {
    let g = &faces[face];
    let sources = std::iter::once(face as u32).chain(neighbours.iter().copied());
    sources
        .map(|src| src as usize)
        .flat_map(|src| {
            (pieces[src].iter().enumerate()).filter_map(move |(c, piece)| {
                let piece = piece.as_ref()?;
                Some((src, c, footprint(piece, &faces[src], g, src == face)))
            })
        })
        .collect()
}

/// Face `g`'s luxels from the per-cell `light` of the patches at `prints` ([`footprints`]).
pub(crate) fn spread(g: &FaceGeom, prints: &[(usize, usize, Footprint)], light: &[Vec<Vec3>]) -> Vec<Vec3> {
    let mut radial = Radial::new(g);
    for &(src, c, f) in prints {
        if let Some(l) = light.get(src).and_then(|cells| cells.get(c)) {
            radial.add(f, *l);
        }
    }
    radial.finish()
}

/// Per face: whether light passes through it (VRAD traces patch-to-patch visibility against
/// the opaque brushes, displacements and props alone, so a water surface, a window or a door
/// without `vrad_brush_cast_shadows` gets patches but hides nothing behind it). A flat face is
/// see-through when no occluder lies on it at its centre; a displacement when its contents do
/// not block light.
pub(crate) fn see_through_faces(world: &crate::World) -> Vec<bool> {
    use srcmap_trace::Tracer;
    (world.faces.iter().zip(&world.disps))
        .map(|(g, d)| match (g.lit, d) {
            (false, _) => false,
            (true, Some(d)) => !d.opaque,
            (true, None) => {
                let c = g.points.iter().copied().sum::<Vec3>() / g.points.len().max(1) as f32;
                let from = c + g.normal * 0.5;
                !world
                    .occluders
                    .occluded(from.to_array(), (-g.normal).to_array(), 1.0)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_cover_every_luxel_and_are_near_the_spacing() {
        for luxels in 1..40 {
            let c = Cells::over(luxels, 4);
            assert!(c.size <= 4.0 + 1e-6 || luxels <= 2, "{luxels}: {c:?}");
            assert_eq!(c.index(0.0), 0);
            assert_eq!(c.index(luxels.saturating_sub(1) as f32), c.count - 1, "{luxels}");
        }
    }

    /// VRAD halves a face until a piece is under `chop` luxels: a 256-unit wall (16 luxels)
    /// gets 8 patches of 2 luxels, since a 4-luxel piece is still cut; 3.9 luxels stay whole.
    #[test]
    fn halved_cells_are_vrads_patches() {
        let c = Cells::halved(-3.0, 13.0, 4);
        assert_eq!((c.count, c.size), (8, 2.0));
        assert_eq!((c.index(-3.0), c.index(12.9), c.index(40.0)), (0, 7, 7));
        assert_eq!(c.centre(0), -2.0);
        assert_eq!(Cells::halved(0.0, 17.0, 4).count, 8);
        assert_eq!(Cells::halved(0.0, 3.9, 4).count, 1);
        assert_eq!(Cells::halved(0.0, 4.0, 4).count, 2);
        assert!(Cells::halved(0.0, 1e9, 4).count <= MAX_CELLS);
    }

    /// A 2×2 square seen from 1 unit above its centre: the edge-angle sum gives the exact
    /// form factor (about 0.554); seen from right beside one edge, VRAD's arcsine makes that
    /// edge's near-180° angle count as near 0°, and the square takes almost nothing.
    #[test]
    fn vrad_form_factor_is_exact_far_and_vanishes_beside_an_edge() {
        let square = [
            Vec3::new(1.0, 1.0, 0.0),
            Vec3::new(1.0, -1.0, 0.0),
            Vec3::new(-1.0, -1.0, 0.0),
            Vec3::new(-1.0, 1.0, 0.0),
        ];
        let above = vrad_form_factor(&square, Vec3::Z, -Vec3::Z);
        assert!((above - 0.5541).abs() < 1e-3, "{above}");
        // A point 0.05 beyond the edge x = 1, facing along -x, a quarter unit up: the square
        // covers over a third of its hemisphere, VRAD's sum gives about 0.06.
        let beside = vrad_form_factor(&square, Vec3::new(1.05, 0.0, 0.25), -Vec3::X);
        assert!(beside.abs() < 0.1, "{beside}");
    }

    #[test]
    fn a_luxel_span_reaches_past_the_patch_and_stays_in_range() {
        assert_eq!(span(4.0, 5.7, 20), (0, 10));
        assert_eq!(span(18.0, 5.7, 20), (12, 20));
        assert_eq!(span(-30.0, 5.7, 20), (0, 0));
    }
}
