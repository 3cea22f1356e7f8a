//! Displacement collision: each triangle of the full-resolution grid becomes a thin convex slab
//! (its face, a back face one unit below, three edge sides and the axial bevels), so the same
//! box clip serves brushes and terrain.

use glam::Vec3;
use srcmap_bsp::Bsp;
use srcmap_disp::{DispGrid, VertIndex};

use crate::convex::{Side, box_sides};
use crate::world::WorldBuilder;

/// The displacement's flags (kept in `min_tess` by vbsp) that turn off collision with boxes.
const NO_HULL_COLLISION: i32 = 1 << 2;
/// How far below the surface a triangle's slab reaches.
const SLAB_DEPTH: f32 = 1.0;

/// Adds the triangles of every displacement that collides with boxes; returns how many.
pub fn add_displacements(bsp: &Bsp, builder: &mut WorldBuilder) -> usize {
    let mut count = 0;
    for (info, grid) in bsp.disp_info.iter().zip(srcmap_disp::grids_of(bsp)) {
        let (Some(grid), false) = (grid, info.min_tess & NO_HULL_COLLISION != 0) else {
            continue;
        };
        let up = face_normal(bsp, info.map_face as usize);
        let contents = if info.contents == 0 {
            1
        } else {
            info.contents as u32
        };
        for tri in triangles(&grid) {
            add_triangle(builder, tri, up, contents);
            count += 1;
        }
    }
    count
}

/// The direction the displacement's base face looks (the walkable side).
fn face_normal(bsp: &Bsp, face: usize) -> Vec3 {
    let f = srcmap_disp::disp_faces(bsp).get(face);
    let plane = f.and_then(|f| bsp.planes.get(f.plane as usize).map(|p| (p, f.side)));
    plane.map_or(Vec3::Z, |(p, side)| {
        let n = Vec3::from(p.normal);
        if side != 0 { -n } else { n }
    })
}

/// The grid's triangles, two per quad, the diagonal alternating like Valve's grids.
fn triangles(grid: &DispGrid) -> Vec<[Vec3; 3]> {
    let side = grid.side() as i32;
    let mut out = Vec::with_capacity(2 * (side as usize - 1).pow(2));
    for y in 0..side - 1 {
        for x in 0..side - 1 {
            let v = |dx: i32, dy: i32| grid.vert(VertIndex::new(x + dx, y + dy));
            let (a, b, c, d) = (v(0, 0), v(1, 0), v(1, 1), v(0, 1));
            if (x + y) % 2 == 0 {
                out.extend([[a, b, c], [a, c, d]]);
            } else {
                out.extend([[a, b, d], [b, c, d]]);
            }
        }
    }
    out
}

/// The face, the back face a slab depth below and the three edge sides of a triangle.
fn slab_sides(tri: [Vec3; 3], n: Vec3) -> Vec<Side> {
    let top = n.dot(tri[0]);
    let side = |normal: Vec3, dist: f32| Side {
        normal,
        dist,
        surface: 0,
    };
    let mut sides = vec![side(n, top), side(-n, SLAB_DEPTH - top)];
    for i in 0..3 {
        let (p, q, other) = (tri[i], tri[(i + 1) % 3], tri[(i + 2) % 3]);
        let mut e = (q - p).cross(n).normalize();
        if e.dot(other - p) > 0.0 {
            e = -e;
        }
        sides.push(side(e, e.dot(p)));
    }
    sides
}

fn add_triangle(builder: &mut WorldBuilder, tri: [Vec3; 3], up: Vec3, contents: u32) {
    let mut n = (tri[1] - tri[0]).cross(tri[2] - tri[0]);
    if n.length_squared() < 1e-6 {
        return; // a degenerate triangle has no surface to stand on
    }
    n = n.normalize();
    if n.dot(up) < 0.0 {
        n = -n;
    }
    let mut sides = slab_sides(tri, n);
    let below = tri.map(|p| p - n * SLAB_DEPTH);
    let pts = tri.iter().chain(below.iter());
    let mins = pts.clone().fold(Vec3::splat(f32::MAX), |m, p| m.min(*p));
    let maxs = pts.fold(Vec3::splat(f32::MIN), |m, p| m.max(*p));
    sides.extend(box_sides(mins, maxs));
    builder.add(&sides, (mins, maxs), contents, true);
}
