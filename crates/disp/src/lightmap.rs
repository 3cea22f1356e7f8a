//! Displacement lightmaps laid out as VBSP lays them out.
//!
//! A displacement's lightmap does not follow its texinfo's projection: it is a rectangle of
//! `(u + 1) × (v + 1)` samples stretched over the grid, `u` luxels along the columns (corner 0
//! → 3) and `v` along the rows (corner 0 → 1), sized from the base quad's longest edges and
//! the texinfo's lightmap scale. For each sample the map stores where on the displacement it
//! lies — a triangle and barycentric weights (the DISP_LIGHTMAP_SAMPLE_POSITIONS lump) — so
//! that the light tool can place samples on the displaced surface.
//!
//! Arithmetic is `f32` in Valve's order, so that the sample-position bytes, which truncate
//! barycentric weights, come out as in Valve's files.

use glam::{Vec2, Vec3};
use srcmap_bsp::lighting::DispSamplePosition;

use crate::{DispGrid, side_len, tri_count};

/// The largest luxel count along a displacement lightmap's side, border excluded
/// (`MAX_DISP_LIGHTMAP_DIM_WITHOUT_BORDER`).
pub const MAX_LUXELS: u32 = 125;

/// A displacement face's lightmap extent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LightmapSize {
    /// Luxels along the columns (corner 0 → 3): the face's `lightmap_size[0]`.
    pub u: u32,
    /// Luxels along the rows (corner 0 → 1): the face's `lightmap_size[1]`.
    pub v: u32,
    /// The lightmap's long side runs against the texinfo's: VBSP makes a copy of the texinfo
    /// with the lightmap vectors swapped ([`swapped_lightmap_vecs`]) for the displacement's
    /// own record. The face keeps the original texinfo, and no face refers to the copy, so
    /// texinfo compaction drops it again (no corpus map holds one).
    pub swap: bool,
}

impl LightmapSize {
    /// The size as the face record stores it.
    pub fn face_size(self) -> [i32; 2] {
        [self.u as i32, self.v as i32]
    }
}

/// World units per luxel as VBSP derives it for displacements: the reciprocal of the length
/// of the lightmap `s` vector, truncated (so a scale below 1 gives 0).
pub fn world_units_per_luxel(lightmap_s: Vec3) -> i32 {
    (1.0 / lightmap_s.length()) as i32
}

/// Whether the base quad is longer along `s` than along `t` (ties count as `s`): the largest
/// edge extent projected on each unit axis.
fn longest_along_s(corners: &[Vec3; 4], s: Vec3, t: Vec3) -> bool {
    let (s, t) = (s.normalize_or_zero(), t.normalize_or_zero());
    let along_s = corners.map(|p| s.dot(p));
    let along_t = corners.map(|p| t.dot(p));
    let (mut s_len, mut t_len) = (0.0f32, 0.0f32);
    for k in 0..4 {
        s_len = s_len.max((along_s[(k + 1) % 4] - along_s[k]).abs());
        t_len = t_len.max((along_t[(k + 1) % 4] - along_t[k]).abs());
    }
    s_len >= t_len
}

/// The lightmap extent of a displacement over `corners` (start corner first), lit with the
/// texinfo lightmap axes `s` and `t` (`lightmap_vecs[..][..3]`).
///
/// VBSP passes the brush side's winding; a BSP's welded face vertices can land the other side
/// of a whole luxel and give a size one off from the stored one.
///
/// `None` when the lightmap scale is below one world unit per luxel: VBSP then leaves the
/// face's size as the ordinary face extents had it and every sample position empty.
pub fn lightmap_size(corners: &[Vec3; 4], s: Vec3, t: Vec3) -> Option<LightmapSize> {
    let units = world_units_per_luxel(s);
    if units <= 0 {
        return None;
    }
    let along_s = longest_along_s(corners, s, t);
    let [c0, c1, c2, c3] = *corners;
    let u_len = (c3 - c0).length().max((c2 - c1).length());
    let v_len = (c1 - c0).length().max((c2 - c3).length());
    let per_unit = 1.0 / units as f32;
    let luxels = |len: f32| ((len * per_unit) as i32 + 1).min(MAX_LUXELS as i32) as u32;
    let (u, v) = (luxels(u_len), luxels(v_len));
    let swap = if along_s { v > u } else { u > v };
    Some(LightmapSize { u, v, swap })
}

/// The lightmap axes of the texinfo VBSP adds for a swapped displacement: `s' = t`,
/// `t' = -s` (each `[x, y, z, offset]`).
pub fn swapped_lightmap_vecs(vecs: [[f32; 4]; 2]) -> [[f32; 4]; 2] {
    [vecs[1], vecs[0].map(|c| -c)]
}

/// Lightmap coordinates of every grid vertex, row-major like [`DispGrid::verts`]: corner 0
/// at (0.5, 0.5), corner 1 at (0.5, v + 0.5), corner 2 at (u + 0.5, v + 0.5), corner 3 at
/// (u + 0.5, 0.5), bilinear in between.
pub fn luxel_coords(power: u32, u: u32, v: u32) -> Vec<Vec2> {
    let (u, v) = (u as f32, v as f32);
    let corners = [
        Vec2::new(0.5, 0.5),
        Vec2::new(0.5, v + 0.5),
        Vec2::new(u + 0.5, v + 0.5),
        Vec2::new(u + 0.5, 0.5),
    ];
    let side = side_len(power);
    let inv = 1.0 / (side - 1) as f32;
    let step0 = (corners[1] - corners[0]) * inv;
    let step1 = (corners[2] - corners[3]) * inv;
    let mut out = Vec::with_capacity(side * side);
    for row in 0..side {
        let a = step0 * row as f32 + corners[0];
        let b = step1 * row as f32 + corners[3];
        let step = (b - a) * inv;
        for col in 0..side {
            out.push(a + step * col as f32);
        }
    }
    out
}

/// The triangles of a displacement of `power` as vertex indices, in the order sample positions
/// refer to them: the quadtree order of Valve's power info (children upper right, upper left,
/// lower left, lower right; each leaf's eight triangles fanned clockwise from its lower right
/// around its centre), not the row-major order of DISP_TRIS.
pub fn quadtree_tris(power: u32) -> Vec<[usize; 3]> {
    let side = side_len(power) as i32;
    let mut out = Vec::with_capacity(tri_count(power));
    let mid = side / 2;
    push_node_tris(&mut out, side, (mid, mid), mid);
    out
}

/// Appends the triangles under the node centred at `centre` whose half-width is `half`.
fn push_node_tris(out: &mut Vec<[usize; 3]>, side: i32, centre: (i32, i32), half: i32) {
    let (x, y) = centre;
    if half > 1 {
        let q = half / 2;
        for (dx, dy) in [(1, 1), (-1, 1), (-1, -1), (1, -1)] {
            push_node_tris(out, side, (x + dx * q, y + dy * q), q);
        }
        return;
    }
    // The leaf's ring, from its lower right corner clockwise back to the start.
    const RING: [(i32, i32); 9] = [
        (1, -1),
        (0, -1),
        (-1, -1),
        (-1, 0),
        (-1, 1),
        (0, 1),
        (1, 1),
        (1, 0),
        (1, -1),
    ];
    let index = |(dx, dy): (i32, i32)| ((y + dy) * side + x + dx) as usize;
    let centre_index = index((0, 0));
    for pair in RING.windows(2) {
        out.push([index(pair[0]), index(pair[1]), centre_index]);
    }
}

/// Twice the signed area of triangle `a b c`, in the operand order Valve's barycentric helper
/// uses (so that its rounding matches).
fn area2(a: Vec2, b: Vec2, c: Vec2) -> f32 {
    (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)
}

/// Barycentric weights of `p` in triangle `tri`, when all three lie in `[0, 1]`.
fn barycentric_inside(tri: [Vec2; 3], p: Vec2) -> Option<[f32; 3]> {
    let [a, b, c] = tri;
    let inv_area = 1.0 / area2(a, b, c);
    let w = [
        area2(b, c, p) * inv_area,
        area2(c, a, p) * inv_area,
        area2(a, b, p) * inv_area,
    ];
    w.iter().all(|x| (0.0..=1.0).contains(x)).then_some(w)
}

/// Where one lightmap sample lies on a displacement.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SamplePosition {
    /// Index into [`quadtree_tris`].
    pub tri: usize,
    /// Weights of the triangle's three vertices.
    pub weights: [f32; 3],
}

/// The position of every sample of a `(u + 1) × (v + 1)` lightmap (row-major, `v + 1` rows),
/// found as VBSP finds it: the first triangle, in quadtree order, whose luxel-space footprint
/// holds the sample's centre. `None` where no triangle does.
pub fn sample_positions(power: u32, u: u32, v: u32) -> Vec<Option<SamplePosition>> {
    let coords = luxel_coords(power, u, v);
    let order = quadtree_tris(power);
    let tris: Vec<[Vec2; 3]> = order.iter().map(|t| t.map(|i| coords[i])).collect();
    // Each triangle lies in one grid cell; a sample can only be held by the triangles of the
    // cell it falls in or of a neighbouring one (an edge or corner shared within rounding).
    // Testing those and keeping the lowest quadtree index is the first-in-order answer.
    let cells = side_len(power) - 1;
    let by_cell = triangles_by_cell(&order, side_len(power));
    let mut out = Vec::with_capacity(((u + 1) * (v + 1)) as usize);
    for y in 0..=v {
        for x in 0..=u {
            let p = Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
            out.push(first_holding(&by_cell, cells, &tris, p, (u, v)));
        }
    }
    out
}

/// The first triangle in quadtree order that holds sample centre `p` of a `(u, v)` lightmap,
/// among those of the cells (`cells` along an axis) near it.
fn first_holding(
    by_cell: &[Vec<usize>],
    cells: usize,
    tris: &[[Vec2; 3]],
    p: Vec2,
    (u, v): (u32, u32),
) -> Option<SamplePosition> {
    let mut found: Option<SamplePosition> = None;
    for row in near_cells(p.y, v, cells) {
        for col in near_cells(p.x, u, cells) {
            for &tri in &by_cell[row * cells + col] {
                if found.is_some_and(|f| f.tri < tri) {
                    continue;
                }
                if let Some(weights) = barycentric_inside(tris[tri], p) {
                    found = Some(SamplePosition { tri, weights });
                }
            }
        }
    }
    found
}

/// The triangles (by quadtree index) of each grid cell, row by row, of a grid `side` vertices
/// wide.
fn triangles_by_cell(order: &[[usize; 3]], side: usize) -> Vec<Vec<usize>> {
    let cells = side - 1;
    let mut by_cell: Vec<Vec<usize>> = vec![Vec::new(); cells * cells];
    for (t, tri) in order.iter().enumerate() {
        let col = tri.iter().map(|&i| i % side).min().unwrap_or(0).min(cells - 1);
        let row = tri.iter().map(|&i| i / side).min().unwrap_or(0).min(cells - 1);
        by_cell[row * cells + col].push(t);
    }
    by_cell
}

/// The grid cells (of `cells` along an axis) near a sample at `luxel` on an axis of `extent`
/// luxels: its own and its neighbours (every cell for an extent of 0).
fn near_cells(luxel: f32, extent: u32, cells: usize) -> std::ops::RangeInclusive<usize> {
    if extent == 0 {
        return 0..=cells - 1;
    }
    let cell = ((luxel - 0.5) / extent as f32 * cells as f32).floor() as i64;
    let clamp = |c: i64| c.clamp(0, cells as i64 - 1) as usize;
    clamp(cell - 1)..=clamp(cell + 1)
}

/// Appends the DISP_LIGHTMAP_SAMPLE_POSITIONS encoding of `positions`
/// ([`srcmap_bsp::lighting::encode_disp_sample_positions`]): each weight times 255.9
/// truncated to a byte; a sample without a triangle is triangle 0 with zero weights.
pub fn encode_sample_positions(positions: &[Option<SamplePosition>], out: &mut Vec<u8>) {
    let records: Vec<DispSamplePosition> = positions
        .iter()
        .map(|p| match p {
            Some(p) => DispSamplePosition {
                triangle: p.tri as u32,
                barycentric: p.weights.map(|w| (w * 255.9) as u8),
            },
            None => DispSamplePosition {
                triangle: 0,
                barycentric: [0; 3],
            },
        })
        .collect();
    srcmap_bsp::lighting::encode_disp_sample_positions(&records, out);
}

/// The DISP_LIGHTMAP_SAMPLE_POSITIONS bytes of one displacement of `power` whose face has the
/// lightmap size `[u, v]`.
pub fn sample_position_bytes(power: u32, u: u32, v: u32) -> Vec<u8> {
    let mut out = Vec::new();
    encode_sample_positions(&sample_positions(power, u, v), &mut out);
    out
}

impl DispGrid {
    /// This displacement's lightmap extent for the texinfo lightmap axes `s` and `t`.
    pub fn lightmap_size(&self, s: Vec3, t: Vec3) -> Option<LightmapSize> {
        lightmap_size(&self.corners, s, t)
    }

    /// Lightmap coordinates of every vertex for a face lightmap of `u × v` luxels.
    pub fn luxel_coords(&self, u: u32, v: u32) -> Vec<Vec2> {
        luxel_coords(self.power, u, v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(size: f32) -> [Vec3; 4] {
        [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(0.0, size, 0.0),
            Vec3::new(size, size, 0.0),
            Vec3::new(size, 0.0, 0.0),
        ]
    }

    #[test]
    fn size_counts_luxels_plus_one_and_caps() {
        let s = Vec3::X / 16.0;
        let t = Vec3::Y / 16.0;
        let size = lightmap_size(&square(512.0), s, t).unwrap();
        assert_eq!((size.u, size.v, size.swap), (33, 33, false));
        let big = lightmap_size(&square(4096.0), s, t).unwrap();
        assert_eq!((big.u, big.v), (MAX_LUXELS, MAX_LUXELS));
        // Half a world unit per luxel truncates to none.
        assert_eq!(lightmap_size(&square(64.0), s * 32.0, t * 32.0), None);
    }

    #[test]
    fn swap_when_the_long_side_runs_across_s() {
        // Columns (corner 0 → 3) run along y and are long; s runs along x, the short side.
        let corners = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(64.0, 0.0, 0.0),
            Vec3::new(64.0, 256.0, 0.0),
            Vec3::new(0.0, 256.0, 0.0),
        ];
        let (s, t) = (Vec3::X / 16.0, Vec3::Y / 16.0);
        let size = lightmap_size(&corners, s, t).unwrap();
        assert_eq!((size.u, size.v, size.swap), (17, 5, true));
        // The swapped texinfo no longer asks for a swap, and the size stays.
        let [s2, t2] = swapped_lightmap_vecs([[s.x, s.y, s.z, 0.0], [t.x, t.y, t.z, 0.0]])
            .map(|r| Vec3::new(r[0], r[1], r[2]));
        let again = lightmap_size(&corners, s2, t2).unwrap();
        assert_eq!((again.u, again.v, again.swap), (17, 5, false));
    }

    #[test]
    fn luxel_corners() {
        let c = luxel_coords(2, 8, 4);
        assert_eq!(c[0], Vec2::new(0.5, 0.5));
        assert_eq!(c[4], Vec2::new(8.5, 0.5));
        assert_eq!(c[20], Vec2::new(0.5, 4.5));
        assert_eq!(c[24], Vec2::new(8.5, 4.5));
        assert_eq!(c[6], Vec2::new(2.5, 1.5));
    }

    #[test]
    fn quadtree_tris_cover_every_cell_twice_in_leaf_fans() {
        for power in 2..=4 {
            let tris = quadtree_tris(power);
            assert_eq!(tris.len(), tri_count(power));
            let side = side_len(power);
            let mut cells = vec![0; (side - 1) * (side - 1)];
            for t in &tris {
                let xs = t.map(|i| i % side);
                let ys = t.map(|i| i / side);
                let cx = *xs.iter().min().unwrap();
                let cy = *ys.iter().min().unwrap();
                cells[cy * (side - 1) + cx] += 1;
            }
            assert!(cells.iter().all(|&n| n == 2));
        }
        // The first leaf is the upper right one of the upper right quadrant.
        let first = quadtree_tris(2)[0];
        assert_eq!(first, [5 * 2 + 4, 5 * 2 + 3, 5 * 3 + 3]);
    }

    #[test]
    fn sample_bytes_of_a_small_map() {
        let bytes = sample_position_bytes(2, 1, 1);
        assert_eq!(bytes.len(), 4 * 4);
        // Sample (0, 0) sits on corner 0 at (0.5, 0.5): weight 1 on that vertex.
        assert!(bytes[..4].iter().skip(1).any(|&b| b == 255));
    }

    #[test]
    fn cell_search_finds_what_a_scan_of_every_triangle_finds() {
        for power in 2..=4 {
            for (u, v) in [(1, 1), (3, 7), (8, 8), (16, 5), (33, 64), (125, 17)] {
                let coords = luxel_coords(power, u, v);
                let tris: Vec<[Vec2; 3]> = quadtree_tris(power)
                    .into_iter()
                    .map(|t| t.map(|i| coords[i]))
                    .collect();
                let fast = sample_positions(power, u, v);
                let mut k = 0;
                for y in 0..=v {
                    for x in 0..=u {
                        let p = Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
                        let scan = tris.iter().enumerate().find_map(|(tri, corners)| {
                            barycentric_inside(*corners, p).map(|weights| SamplePosition { tri, weights })
                        });
                        assert_eq!(fast[k], scan, "power {power}, {u}x{v}, sample ({x}, {y})");
                        k += 1;
                    }
                }
            }
        }
    }
}
