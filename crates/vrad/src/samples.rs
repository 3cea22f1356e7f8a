//! Where each luxel is lit (VRAD's `BuildFacesamples`): a flat face's polygon, in luxel
//! space, is cut into cells one luxel wide, cell `(s, t)` spanning `s..s+1` × `t..t+1` (so a
//! cell's centre lies half a luxel past luxel `(s, t)`'s); each cell the face reaches holds a
//! sample at the balance point of its piece of the face, lifted 1 unit off it. Luxels are
//! then blended from the samples around them (`direct::radial`). A displacement's samples
//! are laid over its grid instead.

use glam::{Vec2, Vec3};

use crate::displacement::DispSurface;
use crate::faces::{FaceGeom, clamp_to_polygon, closest_on_edge};

/// Where each luxel of a face is sampled.
#[derive(Debug, Clone, Default)]
pub struct FaceSamples {
    /// Sample points, already lifted 1 unit off the surface.
    pub pos: Vec<Vec3>,
    pub normal: Vec<Vec3>,
    /// Visibility cluster of each sample (-1: unknown), to skip lights it cannot see.
    pub cluster: Vec<i32>,
    /// A flat face's cells, one per luxel (empty on a displacement).
    pub cells: Vec<Cell>,
}

/// The piece of a flat face inside one luxel-wide cell, in luxel space (relative to `mins`).
#[derive(Debug, Clone, Default)]
pub struct Cell {
    /// Its balance point (area centroid), where the sample lies.
    pub centre: Vec2,
    /// Its bounds.
    pub mins: Vec2,
    pub maxs: Vec2,
    /// The piece itself when it fills less than the whole cell (empty when it fills it,
    /// and when the face does not reach the cell: see [`Cell::holds_sample`]).
    pub piece: Vec<Vec2>,
    /// Its area in square luxels (0: the face does not reach the cell).
    pub area: f32,
}

impl Cell {
    /// Whether the face reaches the cell, so that it holds a sample.
    pub fn holds_sample(&self) -> bool {
        self.area > 0.0
    }

    /// Whether VRAD's supersampling keeps luxel-space point `p` of this cell: it lies in the
    /// cell's piece of the face, and VRAD's test against the piece (`PointsInWinding`, only
    /// where the face does not fill the cell) does not throw it out. That test ORs its
    /// "outside" mask into a value it never initialises; Valve's lightmaps show a point thrown
    /// out exactly where the x component of the cross product of the piece's first edge with
    /// the point (from the edge's start) has its sign bit set, or the product is zero: on
    /// ptex_test every piece of the walls facing +x and none facing -x, and on its walls facing
    /// ±y (x component a signed zero) the pieces along their top edge but not along their
    /// bottom, the top corner piece (which starts at another vertex) excepted.
    pub fn keeps(&self, face: &FaceGeom, p: Vec2) -> bool {
        self.contains(p) && !self.masked_by_vrad(face, p)
    }

    /// [`Cell::keeps`]'s uninitialised-mask rule, on the world positions VRAD tests.
    fn masked_by_vrad(&self, face: &FaceGeom, p: Vec2) -> bool {
        let [a, b, ..] = self.piece[..] else {
            return false;
        };
        let start = face.luxel_to_world(a.x, a.y);
        let edge = face.luxel_to_world(b.x, b.y) - start;
        let to = face.luxel_to_world(p.x, p.y) - start;
        // Written out as VRAD's cross product is, so that a zero keeps the sign it has there.
        let x = edge.y * to.z - edge.z * to.y;
        edge.cross(to) == Vec3::ZERO || x.is_sign_negative()
    }

    /// Whether luxel-space point `p` lies in the cell's piece of the face.
    pub fn contains(&self, p: Vec2) -> bool {
        self.piece.is_empty() || crate::faces::inside_polygon(&self.piece, p)
    }
}

impl FaceSamples {
    /// Whether the sample of luxel `l` exists (on a flat face: the face reaches its cell).
    #[inline]
    pub fn holds(&self, l: usize) -> bool {
        self.cells.get(l).is_none_or(Cell::holds_sample)
    }
}

impl FaceSamples {
    pub fn build(face: &FaceGeom, disp: Option<&DispSurface>) -> FaceSamples {
        if !face.lit {
            return FaceSamples::default();
        }
        let n = face.luxel_count();
        let mut out = FaceSamples {
            pos: Vec::with_capacity(n),
            normal: Vec::with_capacity(n),
            cluster: Vec::new(),
            cells: Vec::new(),
        };
        match disp {
            // VRAD samples a displacement at the centres of a width × height grid over the
            // surface; the luxels are then blended from these samples.
            Some(d) => {
                for t in 0..face.height {
                    for s in 0..face.width {
                        let uv = Vec2::new(
                            (s as f32 + 0.5) / face.width as f32,
                            (t as f32 + 0.5) / face.height as f32,
                        );
                        let (pos, normal) = d.lifted_sample(uv, face.normal);
                        // VRAD lights every sample from one unit further along the base
                        // face's normal (`ComputeIlluminationPointAndNormalsSSE`), on top of
                        // the push off the displaced surface.
                        out.pos.push(pos + face.normal);
                        out.normal.push(normal);
                    }
                }
            }
            None => {
                out.cells = face_cells(face);
                for (l, cell) in out.cells.iter().enumerate() {
                    // A cell the face misses keeps its luxel's point: never lit, but a place.
                    let at = if cell.holds_sample() {
                        cell.centre
                    } else {
                        Vec2::new((l % face.width) as f32, (l / face.width) as f32)
                    };
                    out.pos.push(face.luxel_to_world(at.x, at.y) + face.normal);
                    out.normal.push(face.normal);
                }
            }
        }
        out
    }
}

/// Points within this distance (luxels) of a cutting line count as on it (VRAD's
/// `ON_EPSILON / 16` for lightmap space).
const CUT_EPSILON: f32 = 0.1 / 16.0;

/// A flat face's cells, row by row: as VRAD, each row is cut off below `t + 1` and each cell
/// of it below `s + 1`, so the first row and column take whatever lies before them and what
/// lies past the last is dropped.
pub fn face_cells(face: &FaceGeom) -> Vec<Cell> {
    let mut cells = vec![Cell::default(); face.luxel_count()];
    let mut rest = face.luxel_poly.clone();
    for t in 0..face.height {
        let (mut row, above) = cut(&rest, 1, t as f32 + 1.0);
        rest = above;
        for s in 0..face.width {
            let (piece, after) = cut(&row, 0, s as f32 + 1.0);
            row = after;
            cells[t * face.width + s] = cell(piece);
        }
    }
    cells
}

/// A cell of `piece` (empty: the face misses it).
fn cell(piece: Vec<Vec2>) -> Cell {
    let (area, centre) = area_and_centre(&piece);
    if piece.len() < 3 || area <= 0.0 {
        return Cell::default();
    }
    let mins = piece.iter().copied().fold(Vec2::splat(f32::MAX), Vec2::min);
    let maxs = piece.iter().copied().fold(Vec2::splat(f32::MIN), Vec2::max);
    let whole = area >= 1.0 - 1e-3;
    Cell {
        centre,
        mins,
        maxs,
        piece: if whole { Vec::new() } else { piece },
        area,
    }
}

/// A convex polygon cut by the line `p[axis] = at`: the part below it and the part above
/// (either empty). Points within [`CUT_EPSILON`] of the line count as on it, so a polygon
/// that only touches the line stays whole on its side.
pub fn cut(poly: &[Vec2], axis: usize, at: f32) -> (Vec<Vec2>, Vec<Vec2>) {
    let side = |p: Vec2| p[axis] - at;
    if poly.iter().all(|&p| side(p) <= CUT_EPSILON) {
        return (poly.to_vec(), Vec::new());
    }
    if poly.iter().all(|&p| side(p) >= -CUT_EPSILON) {
        return (Vec::new(), poly.to_vec());
    }
    let (mut below, mut above) = (Vec::new(), Vec::new());
    for (i, &a) in poly.iter().enumerate() {
        let b = poly[(i + 1) % poly.len()];
        let (da, db) = (side(a), side(b));
        if da <= CUT_EPSILON {
            below.push(a);
        }
        if da >= -CUT_EPSILON {
            above.push(a);
        }
        if (da > CUT_EPSILON && db < -CUT_EPSILON) || (da < -CUT_EPSILON && db > CUT_EPSILON) {
            let mut p = a + (b - a) * (da / (da - db));
            p[axis] = at;
            below.push(p);
            above.push(p);
        }
    }
    (below, above)
}

/// The area of a polygon and its balance point (area centroid), by a fan of triangles.
pub(crate) fn area_and_centre(poly: &[Vec2]) -> (f32, Vec2) {
    fan_area_centre(poly, |a, b, c| (b - a).perp_dot(c - a).abs())
}

/// A convex polygon's area and balance point by a fan of triangles, `twice_area` giving
/// twice a triangle's area: one sum for 3D patches and 2D sample cells alike.
pub(crate) fn fan_area_centre<V>(poly: &[V], twice_area: impl Fn(V, V, V) -> f32) -> (f32, V)
where
    V: Copy
        + Default
        + std::ops::Add<Output = V>
        + std::ops::Mul<f32, Output = V>
        + std::ops::Div<f32, Output = V>,
{
    let (mut area, mut moment) = (0.0f32, V::default());
    for i in 1..poly.len().saturating_sub(1) {
        let (a, b, c) = (poly[0], poly[i], poly[i + 1]);
        let tri = 0.5 * twice_area(a, b, c);
        area += tri;
        moment = moment + (a + b + c) / 3.0 * tri;
    }
    if area > 0.0 {
        (area, moment / area)
    } else {
        (0.0, V::default())
    }
}

/// Grid parameters of luxel-space `st` on a displacement face (luxels span the grid).
pub fn disp_uv(face: &FaceGeom, st: Vec2) -> Vec2 {
    let span = |n: usize| (n.max(2) - 1) as f32;
    Vec2::new(st.x / span(face.width), st.y / span(face.height)).clamp(Vec2::ZERO, Vec2::ONE)
}

/// Grid parameters of luxel-space `st` on a displacement face, kept within the span of its
/// direct samples (half a luxel in from each border): lifted off the very border, a point can
/// end up behind the floor or wall the edge meets, where every ray it traces is lost.
pub fn disp_uv_inside(face: &FaceGeom, st: Vec2) -> Vec2 {
    let half = Vec2::new(0.5 / face.width.max(1) as f32, 0.5 / face.height.max(1) as f32);
    disp_uv(face, st).clamp(half, Vec2::ONE - half)
}

/// Luxel-space coordinates of grid parameters `uv` on a displacement face.
pub fn disp_st(face: &FaceGeom, uv: Vec2) -> Vec2 {
    let span = |n: usize| (n.max(2) - 1) as f32;
    Vec2::new(uv.x * span(face.width), uv.y * span(face.height))
}

/// The surface point and normal for luxel-space coordinates `st`: pulled inside the face (a
/// sample outside it would sit in a neighbouring wall) and lifted 1 unit along the normal,
/// as VRAD does to keep rays off the face itself. On a displacement, the luxel's point of the
/// displaced surface (see [`crate::displacement`]), no nearer its border than the direct
/// samples ([`disp_uv_inside`]).
pub fn sample_point(face: &FaceGeom, disp: Option<&DispSurface>, st: Vec2, centroid: Vec2) -> (Vec3, Vec3) {
    if let Some(d) = disp {
        return d.lifted_sample(disp_uv_inside(face, st), face.normal);
    }
    // VRAD samples the centroid of the part of the luxel's cell inside the face, which for
    // an edge luxel lies about a quarter luxel inside. Keep samples at least that far in.
    const MARGIN: f32 = 0.25;
    let mut p = clamp_to_polygon(&face.luxel_poly, st);
    if p != st || edge_distance(&face.luxel_poly, p) < MARGIN {
        let to_center = centroid - p;
        let len = to_center.length();
        if len > 0.0 {
            p += to_center * (MARGIN.min(len) / len);
        }
    }
    (face.luxel_to_world(p.x, p.y) + face.normal, face.normal)
}

/// Distance from `p` to the nearest edge of a polygon.
fn edge_distance(poly: &[Vec2], p: Vec2) -> f32 {
    let mut best = f32::INFINITY;
    for i in 0..poly.len() {
        let q = closest_on_edge(poly[i], poly[(i + 1) % poly.len()], p);
        best = best.min(q.distance(p));
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use srcmap_bsp::flags::SurfaceFlags;

    /// A flat face on z = 0 whose luxel-space polygon is `poly` (1 luxel = 16 units, s along
    /// x, t along y, `mins` 0), with a `width` × `height` lightmap.
    fn face(poly: &[[f32; 2]], width: usize, height: usize) -> FaceGeom {
        let luxel_poly: Vec<Vec2> = poly.iter().map(|&p| Vec2::from(p)).collect();
        FaceGeom {
            points: luxel_poly.iter().map(|p| (*p * 16.0).extend(0.0)).collect(),
            normal: Vec3::Z,
            texinfo_flags: SurfaceFlags::EMPTY,
            lit: true,
            bumped: false,
            is_displacement: false,
            width,
            height,
            mins: [0, 0],
            vecs: [[1.0 / 16.0, 0.0, 0.0, 0.0], [0.0, 1.0 / 16.0, 0.0, 0.0]],
            luxel_origin: Vec3::ZERO,
            luxel_axes: [Vec3::X * 16.0, Vec3::Y * 16.0],
            luxel_poly,
            reflectivity: Vec3::splat(0.5),
            texture_vecs: [Vec3::X, Vec3::Y],
            neighbours: Vec::new(),
        }
    }

    #[test]
    fn cells_are_a_luxel_wide_past_each_luxel_and_samples_sit_at_their_pieces_balance_points() {
        // s in 0.25..3.75, t in 0..0.5: a 4 × 2 lightmap (size 3 × 1, mins 0) whose second
        // row the face never reaches.
        let f = face(&[[0.25, 0.0], [3.75, 0.0], [3.75, 0.5], [0.25, 0.5]], 4, 2);
        let samples = FaceSamples::build(&f, None);
        let cells = &samples.cells;
        assert_eq!((cells.len(), samples.pos.len()), (8, 8));
        // Row 0: cell s spans s..s+1 clipped to the face; row 1 holds no sample.
        let expect = [(0.25, 1.0), (1.0, 2.0), (2.0, 3.0), (3.0, 3.75)];
        for (s, &(lo, hi)) in expect.iter().enumerate() {
            let c = &cells[s];
            assert!(c.holds_sample());
            assert!((c.area - (hi - lo) * 0.5).abs() < 1e-5, "{s}: {c:?}");
            assert!(
                c.centre.distance(Vec2::new((lo + hi) / 2.0, 0.25)) < 1e-5,
                "{s}: {c:?}"
            );
            assert_eq!((c.mins, c.maxs), (Vec2::new(lo, 0.0), Vec2::new(hi, 0.5)));
            // Lifted 1 unit off the face at the balance point.
            assert!(samples.pos[s].distance(Vec3::new(8.0 * (lo + hi), 4.0, 1.0)) < 1e-4);
            assert!(samples.holds(s) && !samples.holds(4 + s));
        }
        // A piece smaller than its cell keeps its outline for supersampling; a whole one not.
        assert!(!cells[1].piece.is_empty() && cells[1].contains(Vec2::new(1.5, 0.25)));
        assert!(!cells[1].contains(Vec2::new(1.5, 0.75)));
    }

    /// A wall on x = 0 two luxels wide and half a luxel high (t 0..0.5; s along +y, t along
    /// -z, as Valve's texinfos run on walls), its polygon wound as a face facing `facing_x`
    /// (+1 or -1) is (Valve's faces run clockwise seen from the front).
    fn wall(facing_x: f32) -> FaceGeom {
        let mut poly = vec![[0.0, 0.0], [2.0, 0.0], [2.0, 0.5], [0.0, 0.5]];
        if facing_x < 0.0 {
            poly.reverse();
        }
        let mut f = face(&poly, 3, 2);
        f.normal = Vec3::X * facing_x;
        f.luxel_origin = Vec3::new(0.0, 0.0, 8.0);
        f.luxel_axes = [Vec3::Y * 16.0, Vec3::NEG_Z * 16.0];
        f.points = f.luxel_poly.iter().map(|p| f.luxel_to_world(p.x, p.y)).collect();
        f
    }

    #[test]
    fn supersampling_keeps_the_points_valves_vrad_keeps() {
        // Every cell of these walls is half filled. VRAD throws out each point of a cell
        // facing +x, and none facing -x, except those off the piece.
        let inside = [Vec2::new(0.3, 0.1), Vec2::new(0.5, 0.25), Vec2::new(0.9, 0.4)];
        for (facing, kept) in [(1.0, false), (-1.0, true)] {
            let f = wall(facing);
            let cells = face_cells(&f);
            assert!(cells[0].area > 0.49 && cells[0].area < 0.51, "{:?}", cells[0]);
            for (s, cell) in cells.iter().enumerate().take(2) {
                for p in inside {
                    let p = p + Vec2::new(s as f32, 0.0);
                    assert_eq!(cell.keeps(&f, p), kept, "facing {facing}, {p}");
                }
                assert!(!cell.keeps(&f, Vec2::new(s as f32 + 0.5, 0.75)));
            }
        }
        // A cell the face fills is tested against nothing: every point is kept.
        let f = face(&[[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]], 3, 3);
        let cells = face_cells(&f);
        assert!(cells[0].piece.is_empty());
        assert!(cells[0].keeps(&f, Vec2::new(0.2, 0.9)));
    }

    #[test]
    fn a_face_filling_its_cells_has_whole_cells_centred_half_a_luxel_past_each_luxel() {
        let f = face(&[[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]], 3, 3);
        let cells = face_cells(&f);
        for t in 0..3 {
            for s in 0..3 {
                let c = &cells[t * 3 + s];
                // What lies past s, t = 2 is dropped: the last row and column are empty.
                assert_eq!(c.holds_sample(), s < 2 && t < 2, "{s} {t}");
                if c.holds_sample() {
                    assert!(c.piece.is_empty() && (c.area - 1.0).abs() < 1e-5);
                    assert_eq!(c.centre, Vec2::new(s as f32 + 0.5, t as f32 + 0.5));
                }
            }
        }
    }

    #[test]
    fn a_polygon_cut_keeps_what_only_touches_the_line_whole() {
        let square = [Vec2::ZERO, Vec2::X, Vec2::ONE, Vec2::Y];
        let (below, above) = cut(&square, 0, 1.0 + CUT_EPSILON / 2.0);
        assert_eq!((below.len(), above.len()), (4, 0));
        let (below, above) = cut(&square, 1, 0.5);
        assert_eq!(area_and_centre(&below), (0.5, Vec2::new(0.5, 0.25)));
        assert_eq!(area_and_centre(&above), (0.5, Vec2::new(0.5, 0.75)));
    }
}
