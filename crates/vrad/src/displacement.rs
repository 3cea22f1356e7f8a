//! Displacement surfaces: the (2^power + 1)² vertex grid over the base face's quad, used as
//! shadow casters and to place the luxels of displacement faces on the displaced surface.

use glam::{Vec2, Vec3};
use srcmap_bsp::Bsp;

use crate::faces::FaceGeom;

/// A displacement's surface in world space.
#[derive(Debug, Clone)]
pub struct DispSurface {
    /// Base quad corners, starting at the one nearest `start_position`.
    pub corners: [Vec3; 4],
    /// Vertices per side.
    pub side: usize,
    pub verts: Vec<Vec3>,
}

impl DispSurface {
    /// Builds the surface of face `face` if it is a displacement with valid data.
    pub fn build(bsp: &Bsp, face: usize, geom: &FaceGeom) -> Option<DispSurface> {
        let f = bsp.faces.get(face)?;
        let info = bsp.disp_info.get(usize::try_from(f.dispinfo).ok()?)?;
        if geom.points.len() != 4 || !(1..=4).contains(&info.power) {
            return None;
        }
        let start = Vec3::from(info.start_position);
        let first = (0..4).min_by(|&a, &b| {
            geom.points[a]
                .distance_squared(start)
                .total_cmp(&geom.points[b].distance_squared(start))
        })?;
        let corners = [0, 1, 2, 3].map(|k| geom.points[(first + k) % 4]);
        let side = (1usize << info.power) + 1;
        let base = usize::try_from(info.disp_vert_start).ok()?;
        let mut verts = Vec::with_capacity(side * side);
        for i in 0..side {
            let v = i as f32 / (side - 1) as f32;
            let left = corners[0].lerp(corners[1], v);
            let right = corners[3].lerp(corners[2], v);
            for j in 0..side {
                let u = j as f32 / (side - 1) as f32;
                let dv = bsp.disp_verts.get(base + i * side + j)?;
                verts.push(left.lerp(right, u) + Vec3::from(dv.vec) * dv.dist);
            }
        }
        Some(DispSurface { corners, side, verts })
    }

    /// Two triangles per grid cell.
    pub fn triangles(&self) -> impl Iterator<Item = [Vec3; 3]> + '_ {
        let n = self.side;
        (0..n - 1).flat_map(move |i| {
            (0..n - 1).flat_map(move |j| {
                let a = self.verts[i * n + j];
                let b = self.verts[i * n + j + 1];
                let c = self.verts[(i + 1) * n + j + 1];
                let d = self.verts[(i + 1) * n + j];
                [[a, b, c], [a, c, d]]
            })
        })
    }

    /// Grid parameters (u along corner 0→3, v along corner 0→1) of a point on the base quad.
    pub fn uv_of(&self, p: Vec3) -> Vec2 {
        // Treat the quad as the parallelogram spanned at corner 0 (base faces are near-parallelograms).
        let eu = self.corners[3] - self.corners[0];
        let ev = self.corners[1] - self.corners[0];
        let d = p - self.corners[0];
        let (uu, uv, vv) = (eu.dot(eu), eu.dot(ev), ev.dot(ev));
        let det = uu * vv - uv * uv;
        if det.abs() < 1e-9 {
            return Vec2::ZERO;
        }
        let (du, dv) = (d.dot(eu), d.dot(ev));
        Vec2::new((du * vv - dv * uv) / det, (dv * uu - du * uv) / det).clamp(Vec2::ZERO, Vec2::ONE)
    }

    /// Position and normal of the displaced surface at grid parameters `uv`.
    pub fn sample(&self, uv: Vec2, fallback_normal: Vec3) -> (Vec3, Vec3) {
        let n = self.side;
        let x = uv.x * (n - 1) as f32;
        let y = uv.y * (n - 1) as f32;
        let j = (x.floor() as usize).min(n - 2);
        let i = (y.floor() as usize).min(n - 2);
        let (fx, fy) = (x - j as f32, y - i as f32);
        let a = self.verts[i * n + j];
        let b = self.verts[i * n + j + 1];
        let c = self.verts[(i + 1) * n + j + 1];
        let d = self.verts[(i + 1) * n + j];
        let pos = a.lerp(b, fx).lerp(d.lerp(c, fx), fy);
        let mut normal = (b - a)
            .lerp(c - d, fy)
            .cross((d - a).lerp(c - b, fx))
            .normalize_or_zero();
        if normal.dot(fallback_normal) < 0.0 {
            normal = -normal;
        }
        if normal == Vec3::ZERO {
            normal = fallback_normal;
        }
        (pos, normal)
    }
}
