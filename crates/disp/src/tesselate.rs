//! Tesselating a displacement from its allowed vertices, and VBSP's snapping of the
//! vertices that tesselation leaves out onto the triangles that replace them.
//!
//! The tesselation walks the node quadtree: a node whose child is active leaves that
//! quarter to the child; otherwise it fans triangles round its centre through whichever
//! of its eight surrounding vertices are allowed. Vertices no triangle uses would float
//! above the surface the engine actually draws and collides with, so VBSP moves them onto
//! it (barycentric in grid coordinates) before writing the map.

use crate::allowed::{ALLOWED_WORDS, children, is_allowed};
use crate::{DispGrid, VertIndex, side_len};
use glam::Vec3;

/// Triangles (vertex indices, row-major) of a displacement of `power` using only the
/// vertices `allowed` sets, in the engine's order.
pub fn tesselate(power: u32, allowed: &[u32; ALLOWED_WORDS]) -> Vec<[u16; 3]> {
    let mut tris = Vec::new();
    if power == 0 {
        return tris;
    }
    let mid = 1 << (power - 1);
    tesselate_node(power, allowed, VertIndex::new(mid, mid), 0, &mut tris);
    tris
}

/// The ring round a node, clockwise from its lower right, in units of its half-size; the
/// diagonal entries name the child (upper right, upper left, lower left, lower right) whose
/// quarter they open onto.
const RING: [(i32, i32, Option<usize>); 9] = [
    (1, -1, Some(3)),
    (0, -1, None),
    (-1, -1, Some(2)),
    (-1, 0, None),
    (-1, 1, Some(1)),
    (0, 1, None),
    (1, 1, Some(0)),
    (1, 0, None),
    (1, -1, Some(3)),
];

/// The node's own triangles: a fan about its centre through the allowed vertices of its
/// ring, restarting after each quarter an `active` child covers.
fn fan_ring(
    side: usize,
    allowed: &[u32; ALLOWED_WORDS],
    node: VertIndex,
    half: i32,
    active: [bool; 4],
    tris: &mut Vec<[u16; 3]>,
) {
    let centre = node.index(side) as u16;
    // The ring vertex waiting for its successor to close a triangle with the centre.
    let mut pending: Option<u16> = None;
    for (dx, dy, child) in RING {
        if child.is_some_and(|k| active[k]) {
            // That quarter belongs to the child: the fan restarts after it.
            pending = None;
            continue;
        }
        let v = VertIndex::new(node.x + dx * half, node.y + dy * half).index(side);
        if !is_allowed(allowed, v) {
            continue;
        }
        let v = v as u16;
        if let Some(first) = pending {
            tris.push([first, v, centre]);
        }
        pending = Some(v);
    }
}

fn tesselate_node(
    power: u32,
    allowed: &[u32; ALLOWED_WORDS],
    node: VertIndex,
    level: u32,
    tris: &mut Vec<[u16; 3]>,
) {
    let side = side_len(power);
    let half = 1 << (power - 1 - level);
    let mut active = [false; 4];
    if level + 1 < power {
        for (k, child) in children(node, half).into_iter().enumerate() {
            active[k] = is_allowed(allowed, child.index(side));
            if active[k] {
                tesselate_node(power, allowed, child, level + 1, tris);
            }
        }
    }
    fan_ring(side, allowed, node, half, active, tris);
}

/// Where VBSP moves each vertex that the tesselation under `allowed` does not use: onto the
/// first triangle that encloses it in grid coordinates. Returns `(vertex index, position)`
/// in vertex order; a vertex no triangle encloses (which a sound tesselation never leaves)
/// is not listed.
pub fn snapped_verts(grid: &DispGrid, allowed: &[u32; ALLOWED_WORDS]) -> Vec<(usize, Vec3)> {
    let side = grid.side();
    let tris = tesselate(grid.power, allowed);
    let mut used = vec![false; side * side];
    for t in &tris {
        for &i in t {
            used[usize::from(i)] = true;
        }
    }
    let at = |i: u16| {
        let v = VertIndex::of(usize::from(i), side);
        (v.x as f32, v.y as f32)
    };
    let mut out = Vec::new();
    for index in (0..side * side).filter(|&i| !used[i]) {
        let v = VertIndex::of(index, side);
        let p = (v.x as f32, v.y as f32);
        let found = tris.iter().find_map(|t| {
            let w = barycentric(at(t[0]), at(t[1]), at(t[2]), p);
            w.iter().all(|c| (0.0..=1.0).contains(c)).then_some((t, w))
        });
        if let Some((t, w)) = found {
            let [a, b, c] = t.map(|i| grid.verts[usize::from(i)]);
            out.push((index, a * w[0] + b * w[1] + c * w[2]));
        }
    }
    out
}

/// Twice the signed area of the 2-D triangle `abc`.
fn area2(a: (f32, f32), b: (f32, f32), c: (f32, f32)) -> f32 {
    (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0)
}

fn barycentric(a: (f32, f32), b: (f32, f32), c: (f32, f32), p: (f32, f32)) -> [f32; 3] {
    let inv = 1.0 / area2(a, b, c);
    [area2(b, c, p) * inv, area2(c, a, p) * inv, area2(a, b, p) * inv]
}

/// Applies [`snapped_verts`] to a displacement: its grid vertices move, and its
/// `(unit vector, distance)` field is rewritten as VBSP rewrites DISP_VERTS (a moved vertex
/// keeps its old offset plus the move, unnormalised, with distance 1). `field` is row-major
/// like `grid.verts`.
pub fn snap(grid: &mut DispGrid, allowed: &[u32; ALLOWED_WORDS], field: &mut [(Vec3, f32)]) {
    for (index, to) in snapped_verts(grid, allowed) {
        let moved = to - grid.verts[index];
        let (vector, dist) = field[index];
        field[index] = (vector * dist + moved, 1.0);
        grid.verts[index] = to;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::allowed::ALL_ALLOWED;
    use crate::tri_count;

    #[test]
    fn full_tesselation_uses_every_triangle() {
        for power in 2..=4 {
            let tris = tesselate(power, &ALL_ALLOWED);
            assert_eq!(tris.len(), tri_count(power));
            let mut seen = std::collections::HashSet::new();
            for t in &tris {
                let mut k = *t;
                k.sort_unstable();
                assert!(seen.insert(k), "triangle {t:?} twice");
            }
        }
    }

    #[test]
    fn leaf_fan_winds_clockwise_round_the_centre() {
        // Power 1 is not a map power, but a power-2 leaf is the same fan: the first
        // leaf visited is the upper-right child at (3, 3).
        let tris = tesselate(2, &ALL_ALLOWED);
        let side = 5;
        let idx = |x: usize, y: usize| (y * side + x) as u16;
        assert_eq!(tris[0], [idx(4, 2), idx(3, 2), idx(3, 3)]);
        assert_eq!(tris[1], [idx(3, 2), idx(2, 2), idx(3, 3)]);
    }

    /// A bumpy power-3 displacement with a flat power-2 one of the same size on its right.
    fn fine_next_to_coarse() -> (DispGrid, DispGrid, Vec<(Vec3, f32)>) {
        let quad = |x0: f32| {
            [
                Vec3::new(x0, 0.0, 0.0),
                Vec3::new(x0, 128.0, 0.0),
                Vec3::new(x0 + 128.0, 128.0, 0.0),
                Vec3::new(x0 + 128.0, 0.0, 0.0),
            ]
        };
        let field: Vec<(Vec3, f32)> = (0..81).map(|i| (Vec3::Z, ((i * 37) % 11) as f32)).collect();
        let fine = DispGrid::new(3, quad(0.0), &field);
        let coarse = DispGrid::new(2, quad(128.0), &vec![(Vec3::Z, 0.0); 25]);
        (fine, coarse, field)
    }

    #[test]
    fn vertices_the_coarser_neighbor_lacks_snap_onto_the_edge() {
        let (fine, coarse, mut field) = fine_next_to_coarse();
        let grids = [fine.clone(), coarse];
        let neighbors = crate::neighbors::find_neighbors(&grids);
        let allowed = crate::allowed::allowed_verts(&[3, 2], &neighbors);
        // The odd vertices of the fine grid's right edge (x = 8) are gone, nothing else.
        let missing: Vec<usize> = (0..81).filter(|&i| !is_allowed(&allowed[0], i)).collect();
        assert_eq!(missing, [17, 35, 53, 71]);
        assert_eq!(allowed[1], ALL_ALLOWED);

        let snapped = snapped_verts(&fine, &allowed[0]);
        assert_eq!(snapped.iter().map(|s| s.0).collect::<Vec<_>>(), missing);
        for &(index, to) in &snapped {
            // Halfway between the edge vertices above and below.
            let between = (fine.verts[index - 9] + fine.verts[index + 9]) * 0.5;
            assert!((to - between).length() < 1e-4, "{index}: {to} vs {between}");
        }
        assert!(snapped_verts(&grids[1], &allowed[1]).is_empty());

        // The rewritten field rebuilds the snapped positions, and nothing else changes.
        let mut snapped_grid = fine.clone();
        snap(&mut snapped_grid, &allowed[0], &mut field);
        let rebuilt = DispGrid::new(3, fine.corners, &field);
        for i in 0..81 {
            let want = snapped.iter().find(|s| s.0 == i).map_or(fine.verts[i], |s| s.1);
            assert!((rebuilt.verts[i] - want).length() < 1e-4, "vertex {i}");
            assert_eq!(snapped_grid.verts[i], want, "grid vertex {i}");
        }
        assert!(missing.iter().all(|&i| field[i].1 == 1.0));
    }

    #[test]
    fn nothing_moves_with_everything_allowed() {
        let corners = [
            Vec3::ZERO,
            Vec3::new(0.0, 64.0, 0.0),
            Vec3::new(64.0, 64.0, 0.0),
            Vec3::new(64.0, 0.0, 0.0),
        ];
        let field: Vec<(Vec3, f32)> = (0..25).map(|i| (Vec3::Z, (i * 7 % 5) as f32)).collect();
        let g = DispGrid::new(2, corners, &field);
        assert!(snapped_verts(&g, &ALL_ALLOWED).is_empty());
    }
}
