//! Displacement surfaces, shared by the compiler stages and the viewers.
//!
//! A displacement replaces a four-sided brush face (its *base face*) with a (2^power + 1)²
//! grid of vertices: the bilinear grid over the base quad, each vertex pushed along a unit
//! vector by a distance. The grid's corner 0 is the base-face corner nearest the
//! displacement's start position; rows run from corner 0 towards corner 1 and columns from
//! corner 0 towards corner 3, so vertex (x = column, y = row) is `y * side + x` — Valve's
//! `CVertIndex` layout, where corner 1 is "upper left" and corner 3 "lower right".
//!
//! Arithmetic is `f32`, in the order Valve's builder uses, so that positions, lightmap sample
//! positions and the neighbour tests' tolerances come out as in Valve's files.

use glam::Vec3;
use srcmap_bsp::Bsp;

pub mod allowed;
pub mod edges;
pub mod lightmap;
pub mod neighbors;
pub mod normals;
pub mod tesselate;

pub use lightmap::{LightmapSize, SamplePosition};

/// The smallest and largest power a map may use (4×4 to 16×16 quads).
pub const MIN_POWER: u32 = 2;
pub const MAX_POWER: u32 = 4;

/// Vertices along one side of a displacement of `power`.
pub fn side_len(power: u32) -> usize {
    (1usize << power) + 1
}

/// Vertices of a displacement of `power`: `(2^power + 1)²`.
pub fn vert_count(power: u32) -> usize {
    side_len(power) * side_len(power)
}

/// Triangles of a displacement of `power`: `2 · (2^power)²`.
pub fn tri_count(power: u32) -> usize {
    2 << (2 * power)
}

/// A grid position: `x` is the column (corner 0 → 3), `y` the row (corner 0 → 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct VertIndex {
    pub x: i32,
    pub y: i32,
}

impl VertIndex {
    pub const fn new(x: i32, y: i32) -> VertIndex {
        VertIndex { x, y }
    }

    /// Index into the row-major vertex array of a grid `side` vertices wide.
    pub fn index(self, side: usize) -> usize {
        self.y as usize * side + self.x as usize
    }

    /// The grid position of vertex `index`.
    pub fn of(index: usize, side: usize) -> VertIndex {
        VertIndex::new((index % side) as i32, (index / side) as i32)
    }
}

/// Which base-face corner a displacement starts at: the one nearest `start` (Valve's
/// `FindSurfPointStartIndex`; the first of equals wins).
pub fn start_corner(points: &[Vec3; 4], start: Vec3) -> usize {
    let mut best = 0;
    let mut best_d = f32::MAX;
    for (i, p) in points.iter().enumerate() {
        let d = (start - *p).length_squared();
        if d < best_d {
            best_d = d;
            best = i;
        }
    }
    best
}

/// The base face's corners rotated so that corner 0 is the start corner.
pub fn rotate_corners(points: &[Vec3; 4], start: Vec3) -> [Vec3; 4] {
    let s = start_corner(points, start);
    [0, 1, 2, 3].map(|k| points[(k + s) % 4])
}

/// A displacement's geometry: base corners (start corner first) and the final vertices.
#[derive(Debug, Clone, PartialEq)]
pub struct DispGrid {
    pub power: u32,
    /// Base quad, corner 0 the start corner.
    pub corners: [Vec3; 4],
    /// The flat grid over the base quad, row-major.
    pub flat: Vec<Vec3>,
    /// Final vertices: `flat + vector · distance`, row-major.
    pub verts: Vec<Vec3>,
}

impl DispGrid {
    /// Builds the grid from the rotated corners and per-vertex `(unit vector, distance)`
    /// (Valve's `GenerateDispSurf`, without elevation or subdivision, which VBSP never feeds
    /// it: offsets and elevation are already folded into the vectors and distances).
    ///
    /// `field` must hold `vert_count(power)` entries.
    pub fn new(power: u32, corners: [Vec3; 4], field: &[(Vec3, f32)]) -> DispGrid {
        let side = side_len(power);
        let inv = 1.0 / (side - 1) as f32;
        let edge0 = (corners[1] - corners[0]) * inv;
        let edge1 = (corners[2] - corners[3]) * inv;
        let mut flat = Vec::with_capacity(side * side);
        let mut verts = Vec::with_capacity(side * side);
        for row in 0..side {
            let a = edge0 * row as f32 + corners[0];
            let b = edge1 * row as f32 + corners[3];
            let step = (b - a) * inv;
            for col in 0..side {
                let p = a + step * col as f32;
                let (vector, dist) = field[row * side + col];
                flat.push(p);
                verts.push(p + vector * dist);
            }
        }
        DispGrid {
            power,
            corners,
            flat,
            verts,
        }
    }

    /// Bounds of the final vertices: (mins, maxs).
    pub fn bounds(&self) -> (Vec3, Vec3) {
        self.verts
            .iter()
            .fold((Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)), |(lo, hi), &v| {
                (lo.min(v), hi.max(v))
            })
    }

    pub fn side(&self) -> usize {
        side_len(self.power)
    }

    pub fn vert(&self, at: VertIndex) -> Vec3 {
        self.verts[at.index(self.side())]
    }

    /// The grid position of corner `corner` (0 lower left, 1 upper left, 2 upper right,
    /// 3 lower right — Valve's `CORNER_*` order, which is the base corners' order).
    pub fn corner_index(&self, corner: usize) -> VertIndex {
        let m = self.side() as i32 - 1;
        [
            VertIndex::new(0, 0),
            VertIndex::new(0, m),
            VertIndex::new(m, m),
            VertIndex::new(m, 0),
        ][corner & 3]
    }
}

/// The faces displacements index: the LDR faces, or the HDR ones in console builds that
/// strip the LDR lump.
pub fn disp_faces(bsp: &Bsp) -> &[srcmap_bsp::Face] {
    if bsp.faces.is_empty() {
        &bsp.faces_hdr
    } else {
        &bsp.faces
    }
}

/// The four corner points of face `face`, in its winding order, when it has exactly four.
pub fn face_quad(bsp: &Bsp, face: usize) -> Option<[Vec3; 4]> {
    let f = disp_faces(bsp).get(face)?;
    if f.num_edges != 4 {
        return None;
    }
    let v = bsp.face_vertices(f)?;
    Some([v[0], v[1], v[2], v[3]].map(Vec3::from))
}

/// Every displacement of a BSP rebuilt from its lumps (base face from `map_face`, start
/// position, DISP_VERTS): `None` where the records do not fit together.
pub fn grids_of(bsp: &Bsp) -> Vec<Option<DispGrid>> {
    bsp.disp_info
        .iter()
        .map(|info| {
            let power = u32::try_from(info.power).ok().filter(|p| *p <= MAX_POWER)?;
            let quad = face_quad(bsp, info.map_face as usize)?;
            let corners = rotate_corners(&quad, Vec3::from(info.start_position));
            let start = usize::try_from(info.disp_vert_start).ok()?;
            let verts = bsp.disp_verts.get(start..start + vert_count(power))?;
            let field: Vec<(Vec3, f32)> = verts.iter().map(|v| (Vec3::from(v.vec), v.dist)).collect();
            Some(DispGrid::new(power, corners, &field))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_per_power() {
        assert_eq!(vert_count(2), 25);
        assert_eq!(vert_count(4), 289);
        assert_eq!(tri_count(2), 32);
        assert_eq!(tri_count(4), 512);
    }

    #[test]
    fn flat_grid_spans_the_quad_from_the_start_corner() {
        let quad = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(0.0, 64.0, 0.0),
            Vec3::new(64.0, 64.0, 0.0),
            Vec3::new(64.0, 0.0, 0.0),
        ];
        let corners = rotate_corners(&quad, Vec3::new(64.0, 64.0, 0.0));
        assert_eq!(corners[0], quad[2]);
        let field = vec![(Vec3::Z, 8.0); vert_count(2)];
        let g = DispGrid::new(2, corners, &field);
        // Row 1 is a quarter of the way from corner 0 towards corner 1.
        assert_eq!(g.vert(VertIndex::new(0, 1)), Vec3::new(64.0, 48.0, 8.0));
        // Column 1 is a quarter of the way from corner 0 towards corner 3.
        assert_eq!(g.vert(VertIndex::new(1, 0)), Vec3::new(48.0, 64.0, 8.0));
        assert_eq!(g.vert(g.corner_index(2)), Vec3::new(0.0, 0.0, 8.0));
    }
}
