//! Displacement surfaces: the (2^power + 1)² vertex grid over the base face's quad, used as
//! shadow casters and to place the luxels of displacement faces on the displaced surface.
//!
//! As in VRAD, a displacement's lightmap is laid over the grid itself, not through the
//! texinfo's lightmap vectors: luxel column `s` runs along the grid's u (corner 0 → 3), row
//! `t` along v (corner 0 → 1), luxel (s, t) sitting at u = s / (width - 1), v = t / (height - 1).

use glam::{Vec2, Vec3};
use srcmap_bsp::Bsp;
use srcmap_disp::neighbors::DispNeighbors;
use srcmap_disp::normals::ShadedGrid;

use crate::faces::FaceGeom;

/// A displacement's surface in world space.
#[derive(Debug, Clone)]
pub struct DispSurface {
    /// Base quad corners, starting at the one nearest `start_position`.
    pub corners: [Vec3; 4],
    /// Vertices per side.
    pub side: usize,
    pub verts: Vec<Vec3>,
    /// Per vertex: the mean of the unit normals of the triangles around it (VRAD's
    /// `CalcNormalFromEdges`), what shading uses between vertices.
    pub normals: Vec<Vec3>,
    /// Its contents block light (`MASK_OPAQUE`): only then does VRAD add its triangles to
    /// the shadow casters (`CVRADDispColl::AddPolysForRayTrace`). A displacement of a
    /// `CONTENTS_WINDOW` brush (`tools/toolsinvisibledisplacement`) is lit but casts nothing.
    pub opaque: bool,
}

impl DispSurface {
    /// Builds the surface of face `face` if it is a displacement with valid data.
    pub fn build(bsp: &Bsp, face: usize, geom: &FaceGeom) -> Option<DispSurface> {
        let f = bsp.faces.get(face)?;
        let info = bsp.disp_info.get(usize::try_from(f.dispinfo).ok()?)?;
        if geom.points.len() != 4 || !(1..=4).contains(&info.power) {
            return None;
        }
        let quad = [geom.points[0], geom.points[1], geom.points[2], geom.points[3]];
        let corners = srcmap_disp::rotate_corners(&quad, Vec3::from(info.start_position));
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
        let normals = vertex_normals(&verts, side);
        Some(DispSurface {
            corners,
            side,
            verts,
            normals,
            opaque: info.contents as u32 & srcmap_bsp::flags::MASK_OPAQUE != 0,
        })
    }

    /// Whether `point` lies in front of the plane of VRAD's root patch of this displacement,
    /// by VRAD's `PLANE_TEST_EPSILON`. The root patch is the quad of the displaced surface's four
    /// corner vertices; its plane passes through the first corner with the normal of the corners
    /// beside it (`CVRADDispColl::InitParentPatch`), so on a surface whose corners are raised it
    /// floats above the middle. VRAD tests a receiving patch against it once for the whole
    /// displacement (`TestPatchToFace`): a patch behind it gets no light from any part of the
    /// displacement, even the part right in front of it (a wall standing on a floor displacement
    /// whose corners are higher than the wall's patches).
    pub fn root_plane_faces(&self, point: Vec3) -> bool {
        let n = self.side;
        let (p0, p1, p3) = (self.verts[0], self.verts[n * (n - 1)], self.verts[n - 1]);
        let normal = (p3 - p0).cross(p1 - p0).normalize_or_zero();
        normal.dot(point) > normal.dot(p0) + 0.01
    }

    /// The grid's power (`side` is 2^power + 1).
    pub fn power(&self) -> u32 {
        (self.side - 1).trailing_zeros()
    }

    /// The cell's corners a (i, j), b (i, j + 1), c (i + 1, j + 1), d (i + 1, j).
    fn cell(&self, i: usize, j: usize) -> [Vec3; 4] {
        let n = self.side;
        [
            self.verts[i * n + j],
            self.verts[i * n + j + 1],
            self.verts[(i + 1) * n + j + 1],
            self.verts[(i + 1) * n + j],
        ]
    }

    /// Whether cell (i, j) is split along b–d rather than a–c: the split alternates from
    /// cell to cell, as in the engine's and VRAD's displacement triangles.
    fn odd(&self, i: usize, j: usize) -> bool {
        (i * self.side + j) % 2 == 1
    }

    /// Two triangles per grid cell, wound so a flat displacement faces like its base face.
    pub fn triangles(&self) -> impl Iterator<Item = [Vec3; 3]> + '_ {
        let n = self.side;
        (0..n - 1).flat_map(move |i| {
            (0..n - 1).flat_map(move |j| {
                let [a, b, c, d] = self.cell(i, j);
                if self.odd(i, j) {
                    [[a, b, d], [b, c, d]]
                } else {
                    [[a, b, c], [a, c, d]]
                }
            })
        })
    }

    /// The grid cell (row i, column j) holding grid parameters `uv` and the position in it.
    fn locate(&self, uv: Vec2) -> (usize, usize, f32, f32) {
        let n = self.side;
        let x = uv.x.clamp(0.0, 1.0) * (n - 1) as f32;
        let y = uv.y.clamp(0.0, 1.0) * (n - 1) as f32;
        let j = (x.floor() as usize).min(n - 2);
        let i = (y.floor() as usize).min(n - 2);
        (i, j, x - j as f32, y - i as f32)
    }

    /// The point of the displaced surface at grid parameters `uv` and the normal of the
    /// triangle it lies in (VRAD's `DispUVToSurfPoint`, which pushes samples off along it).
    pub fn surface_point(&self, uv: Vec2) -> (Vec3, Vec3) {
        let (i, j, fx, fy) = self.locate(uv);
        let [a, b, c, d] = self.cell(i, j);
        // Barycentric interpolation inside the triangle of the cell holding (fx, fy).
        let (pos, e1, e2) = if self.odd(i, j) {
            if fx + fy <= 1.0 {
                (a + (b - a) * fx + (d - a) * fy, b - a, d - a)
            } else {
                (c + (d - c) * (1.0 - fx) + (b - c) * (1.0 - fy), c - d, c - b)
            }
        } else if fx >= fy {
            (a + (b - a) * fx + (c - b) * fy, b - a, c - b)
        } else {
            (a + (c - d) * fx + (d - a) * fy, c - d, d - a)
        };
        (pos, e1.cross(e2).normalize_or_zero())
    }

    /// The shading normal at grid parameters `uv`: vertex normals blended bilinearly
    /// (VRAD's `DispUVToSurfNormal`).
    pub fn normal_at(&self, uv: Vec2) -> Vec3 {
        let n = self.side;
        let (i, j, fx, fy) = self.locate(uv);
        let v = |ii: usize, jj: usize| self.normals[ii * n + jj];
        let top = v(i, j).lerp(v(i, j + 1), fx).normalize_or_zero();
        let bottom = v(i + 1, j).lerp(v(i + 1, j + 1), fx).normalize_or_zero();
        top.lerp(bottom, fy).normalize_or_zero()
    }

    /// Grid parameters of point `p` on triangle `k` (in [`DispSurface::triangles`] order), from
    /// its barycentric coordinates there.
    pub fn triangle_uv(&self, k: usize, p: Vec3) -> Vec2 {
        let cells = self.side - 1;
        let (i, j) = ((k / 2) / cells, (k / 2) % cells);
        if i >= cells {
            return self.uv_of(p);
        }
        let [a, b, c, d] = self.cell(i, j);
        let at = |di: usize, dj: usize| Vec2::new((j + dj) as f32, (i + di) as f32);
        let (ga, gb, gc, gd) = (at(0, 0), at(0, 1), at(1, 1), at(1, 0));
        let (tri, grid) = match (self.odd(i, j), k % 2 == 1) {
            (true, false) => ([a, b, d], [ga, gb, gd]),
            (true, true) => ([b, c, d], [gb, gc, gd]),
            (false, false) => ([a, b, c], [ga, gb, gc]),
            (false, true) => ([a, c, d], [ga, gc, gd]),
        };
        match barycentric(tri, p) {
            Some(w) => {
                ((grid[0] * w.x + grid[1] * w.y + grid[2] * w.z) / cells as f32).clamp(Vec2::ZERO, Vec2::ONE)
            }
            None => self.uv_of(p),
        }
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

    /// Position and shading normal of the displaced surface at grid parameters `uv`
    /// (`fallback_normal` where the surface is degenerate).
    pub fn sample(&self, uv: Vec2, fallback_normal: Vec3) -> (Vec3, Vec3) {
        let (pos, _) = self.surface_point(uv);
        let normal = self.normal_at(uv);
        (
            pos,
            if normal == Vec3::ZERO {
                fallback_normal
            } else {
                normal
            },
        )
    }

    /// A sample VRAD would take at `uv`: on the surface, pushed 1 unit off along its
    /// triangle's normal, with the shading normal there.
    pub fn lifted_sample(&self, uv: Vec2, fallback_normal: Vec3) -> (Vec3, Vec3) {
        let (pos, push) = self.surface_point(uv);
        let push = if push == Vec3::ZERO { fallback_normal } else { push };
        let normal = self.normal_at(uv);
        (
            pos + push,
            if normal == Vec3::ZERO {
                fallback_normal
            } else {
                normal
            },
        )
    }
}

/// Barycentric weights of `p` (projected onto the triangle's plane) in `tri`; `None` when the
/// triangle is degenerate.
fn barycentric(tri: [Vec3; 3], p: Vec3) -> Option<Vec3> {
    let (e1, e2, d) = (tri[1] - tri[0], tri[2] - tri[0], p - tri[0]);
    let (d11, d12, d22) = (e1.dot(e1), e1.dot(e2), e2.dot(e2));
    let det = d11 * d22 - d12 * d12;
    if det.abs() <= f32::EPSILON * d11 * d22 {
        return None;
    }
    let (p1, p2) = (d.dot(e1), d.dot(e2));
    let v = (d22 * p1 - d12 * p2) / det;
    let w = (d11 * p2 - d12 * p1) / det;
    Some(Vec3::new(1.0 - v - w, v, w))
}

/// Blends the shading normals of `surfaces` (per face) where displacements meet, on the
/// neighbours the BSP records (VRAD's `SmoothNeighboringDispSurfNormals`).
pub fn smooth_neighbor_normals(bsp: &Bsp, surfaces: &mut [Option<DispSurface>]) {
    let mut face_of_disp = vec![None; bsp.disp_info.len()];
    for (face, _) in surfaces.iter().enumerate().filter(|(_, s)| s.is_some()) {
        if let Some(slot) = dispinfo_of(bsp, face).and_then(|d| face_of_disp.get_mut(d)) {
            slot.get_or_insert(face);
        }
    }
    let mut grids: Vec<Option<ShadedGrid>> = face_of_disp
        .iter()
        .zip(&bsp.disp_info)
        .map(|(face, info)| {
            let s = surfaces[(*face)?].as_ref()?;
            ShadedGrid::new(
                s.power(),
                s.verts.clone(),
                s.normals.clone(),
                DispNeighbors::of(info),
            )
        })
        .collect();
    srcmap_disp::normals::smooth(&mut grids);
    for (grid, face) in grids.into_iter().zip(face_of_disp) {
        if let (Some(grid), Some(s)) = (grid, face.and_then(|i| surfaces[i].as_mut())) {
            s.normals = grid.into_normals();
        }
    }
}

fn dispinfo_of(bsp: &Bsp, face: usize) -> Option<usize> {
    usize::try_from(bsp.faces.get(face)?.dispinfo).ok()
}

/// Per-vertex normals: for each grid cell touching a vertex, the unit normals of its two
/// triangles split along b–d (as VRAD builds them), summed and normalised.
fn vertex_normals(verts: &[Vec3], side: usize) -> Vec<Vec3> {
    let mut acc = vec![Vec3::ZERO; verts.len()];
    for i in 0..side - 1 {
        for j in 0..side - 1 {
            let (ia, ib, ic, id) = (
                i * side + j,
                i * side + j + 1,
                (i + 1) * side + j + 1,
                (i + 1) * side + j,
            );
            let (a, b, c, d) = (verts[ia], verts[ib], verts[ic], verts[id]);
            let n1 = (b - a).cross(d - a).normalize_or_zero();
            let n2 = (c - b).cross(d - b).normalize_or_zero();
            for k in [ia, ib, ic, id] {
                acc[k] += n1 + n2;
            }
        }
    }
    acc.into_iter().map(|n| n.normalize_or_zero()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A power-2 grid over the 256-unit square at z = 0, every vertex pushed sideways as well
    /// as up, so projecting a surface point onto the base quad lands on another cell.
    fn sheared() -> DispSurface {
        let corners = [
            Vec3::ZERO,
            Vec3::new(0.0, 256.0, 0.0),
            Vec3::new(256.0, 256.0, 0.0),
            Vec3::new(256.0, 0.0, 0.0),
        ];
        let side = 5;
        let mut verts = Vec::new();
        for i in 0..side {
            for j in 0..side {
                let base = Vec3::new(64.0 * j as f32, 64.0 * i as f32, 0.0);
                let lift = if (1..side - 1).contains(&i) && (1..side - 1).contains(&j) {
                    48.0
                } else {
                    0.0
                };
                verts.push(base + Vec3::new(lift, 0.5 * lift, lift));
            }
        }
        let normals = vertex_normals(&verts, side);
        DispSurface {
            corners,
            side,
            verts,
            normals,
            opaque: true,
        }
    }

    /// A power-2 bowl over the 256-unit square: its four corner vertices raised to z = 64, the
    /// rest at z = 0.
    fn bowl() -> DispSurface {
        let side = 5;
        let mut verts = Vec::new();
        for i in 0..side {
            for j in 0..side {
                let corner = (i == 0 || i == side - 1) && (j == 0 || j == side - 1);
                let z = if corner { 64.0 } else { 0.0 };
                verts.push(Vec3::new(64.0 * j as f32, 64.0 * i as f32, z));
            }
        }
        let normals = vertex_normals(&verts, side);
        DispSurface {
            corners: [
                Vec3::ZERO,
                Vec3::Y * 256.0,
                Vec3::new(256.0, 256.0, 0.0),
                Vec3::X * 256.0,
            ],
            side,
            verts,
            normals,
            opaque: true,
        }
    }

    /// VRAD's root patch of a bowl spans its raised corners: a point above the middle of the
    /// surface but under the corners' plane is behind it, one above the corners is in front,
    /// and the plane's side does not depend on where over the square the point is.
    #[test]
    fn the_root_plane_runs_through_the_corners_not_the_surface() {
        let d = bowl();
        assert!(!d.root_plane_faces(Vec3::new(128.0, 128.0, 32.0)));
        assert!(!d.root_plane_faces(Vec3::new(10.0, 240.0, 64.0)));
        assert!(d.root_plane_faces(Vec3::new(128.0, 128.0, 64.5)));
        assert!(d.root_plane_faces(Vec3::new(-500.0, 900.0, 80.0)));
    }

    /// A flat power-2 displacement of `contents` on the 256-unit square at z = 0.
    fn flat_disp(contents: i32) -> Option<DispSurface> {
        let mut bsp = Bsp::new(20);
        bsp.faces.push(srcmap_bsp::Face {
            dispinfo: 0,
            ..Default::default()
        });
        bsp.disp_info.push(srcmap_bsp::DispInfo {
            power: 2,
            contents,
            ..Default::default()
        });
        bsp.disp_verts = vec![
            srcmap_bsp::DispVert {
                vec: [0.0, 0.0, 1.0],
                dist: 0.0,
                alpha: 0.0,
            };
            25
        ];
        let corners = [[0.0, 0.0], [0.0, 256.0], [256.0, 256.0], [256.0, 0.0]];
        let geom = FaceGeom {
            points: corners.iter().map(|&[x, y]| Vec3::new(x, y, 0.0)).collect(),
            normal: Vec3::Z,
            texinfo_flags: srcmap_bsp::flags::SurfaceFlags::EMPTY,
            lit: true,
            bumped: false,
            is_displacement: true,
            width: 17,
            height: 17,
            mins: [0, 0],
            vecs: [[1.0 / 16.0, 0.0, 0.0, 0.0], [0.0, 1.0 / 16.0, 0.0, 0.0]],
            luxel_origin: Vec3::ZERO,
            luxel_axes: [Vec3::X * 16.0, Vec3::Y * 16.0],
            luxel_poly: corners.iter().map(|&[x, y]| Vec2::new(x, y) / 16.0).collect(),
            reflectivity: Vec3::splat(0.5),
            texture_vecs: [Vec3::X, Vec3::Y],
            neighbours: Vec::new(),
        };
        DispSurface::build(&bsp, 0, &geom)
    }

    #[test]
    fn only_a_displacement_whose_contents_block_light_casts_shadows() {
        // CONTENTS_SOLID, and tools/toolsinvisibledisplacement's CONTENTS_WINDOW | TRANSLUCENT.
        assert!(flat_disp(0x1).is_some_and(|d| d.opaque));
        assert!(flat_disp(0x1000_0002).is_some_and(|d| !d.opaque && d.verts.len() == 25));
    }

    #[test]
    fn a_point_on_a_triangle_maps_back_to_itself_through_its_grid_parameters() {
        let d = sheared();
        let mut projection_missed = 0;
        for (k, tri) in d.triangles().enumerate() {
            let centroid = (tri[0] + tri[1] + tri[2]) / 3.0;
            let (back, _) = d.surface_point(d.triangle_uv(k, centroid));
            assert!(
                back.distance(centroid) < 1e-3,
                "triangle {k}: {back} vs {centroid}"
            );
            if d.surface_point(d.uv_of(centroid)).0.distance(centroid) > 1.0 {
                projection_missed += 1;
            }
        }
        // What the exact mapping is for: the base-quad projection lands elsewhere.
        assert!(projection_missed > 0);
    }
}
