//! Where each luxel is lit: one sample point per luxel, placed by the face's lightmap vectors
//! and extents, kept a quarter luxel inside the face and lifted 1 unit off it; a
//! displacement's samples laid over its grid (VRAD's `BuildFacelights` sample placement).

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
        };
        let centroid = face.luxel_centroid();
        for t in 0..face.height {
            for s in 0..face.width {
                let (pos, normal) = luxel_sample(face, disp, s, t, centroid);
                out.pos.push(pos);
                out.normal.push(normal);
            }
        }
        out
    }
}

/// The sample (position, normal) of luxel `(s, t)`.
#[inline]
fn luxel_sample(
    face: &FaceGeom,
    disp: Option<&DispSurface>,
    s: usize,
    t: usize,
    centroid: Vec2,
) -> (Vec3, Vec3) {
    match disp {
        // VRAD samples a displacement at the centres of a width × height grid
        // over the surface; the luxels are then blended from these samples.
        Some(d) => d.lifted_sample(
            Vec2::new(
                (s as f32 + 0.5) / face.width as f32,
                (t as f32 + 0.5) / face.height as f32,
            ),
            face.normal,
        ),
        None => sample_point(face, None, Vec2::new(s as f32, t as f32), centroid),
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
