//! Displacements both ways (vmap.md §4.8, §5.4d). A displacement side becomes an open grid mesh
//! of (2^power + 1)² vertices: vertex (i, j) (row i from the start corner toward the second
//! corner, column j toward the fourth) at `flat + normal · elevation + normals · distances +
//! offsets`, its alpha as blend paint. A mesh that is such a grid of quads comes back as one
//! displacement: the base quad is its corners projected on their mean plane, and each vertex's
//! offset from the flat grid is stored as a unit normal and a distance, so positions are exact.

use std::collections::HashMap;

use srcmap_geom::DVec3;
use srcmap_vmap::PolygonMesh;
use srcmap_vmf::DispInfo;

/// A displacement's vertices in grid order (row-major), `n` a side.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    pub n: usize,
    pub displaced: Vec<DVec3>,
    /// The same points on the flat base quad (where the texture is projected).
    pub flat: Vec<DVec3>,
}

/// `corners` clockwise seen from the front; the grid starts at the one nearest `start`.
pub fn grid(corners: &[DVec3], normal: DVec3, d: &DispInfo) -> Option<Grid> {
    let n = d.vertices_per_row();
    // Offsets may be missing (vbsp reads them as zero); normals and distances may not.
    if corners.len() != 4 || d.normals.len() != n * n || d.distances.len() != n * n {
        return None;
    }
    let start = DVec3::from_array(d.start_position);
    let first = (0..4).min_by(|&a, &b| corners[a].distance(start).total_cmp(&corners[b].distance(start)))?;
    let p = [0, 1, 2, 3].map(|k| corners[(first + k) % 4]);
    let flat = flat_grid(&p, n);
    let displaced = (0..n * n)
        .map(|k| {
            let moved = DVec3::from_array(d.normals[k].map(f64::from)) * f64::from(d.distances[k])
                + DVec3::from_array(d.offsets.get(k).copied().unwrap_or_default().map(f64::from));
            flat[k] + normal * d.elevation + moved
        })
        .collect();
    Some(Grid { n, displaced, flat })
}

/// The grid's quads, counter-clockwise seen from the front (the base quad is clockwise).
pub fn quads(n: usize) -> Vec<Vec<u32>> {
    let at = |i: usize, j: usize| (i * n + j) as u32;
    (0..n - 1)
        .flat_map(|i| (0..n - 1).map(move |j| vec![at(i, j), at(i, j + 1), at(i + 1, j + 1), at(i + 1, j)]))
        .collect()
}

/// The vertices of a mesh that is an open grid of quads with a power-2…4 side, row by row
/// from a corner; `None` for any other mesh.
pub fn grid_order(mesh: &PolygonMesh) -> Option<(u32, Vec<u32>)> {
    let v = mesh.vertex_count();
    let n = (2..=4).map(|p| (1usize << p) + 1).find(|&n| n * n == v)?;
    if mesh.face_count() != (n - 1) * (n - 1)
        || (0..mesh.face_count()).any(|f| mesh.face_corners(f).len() != 4)
    {
        return None;
    }
    let boundary = boundary_loop(mesh)?;
    if boundary.len() != 4 * (n - 1) {
        return None;
    }
    let quads_at = quads_by_edge(mesh);
    let mut g = vec![u32::MAX; n * n];
    for j in 0..n {
        g[j] = boundary[j];
        g[j * n] = boundary[(boundary.len() - j) % boundary.len()];
    }
    for i in 1..n {
        for j in 1..n {
            g[i * n + j] = fourth_corner(
                &quads_at,
                g[(i - 1) * n + j - 1],
                g[(i - 1) * n + j],
                g[i * n + j - 1],
            )?;
        }
    }
    let power = (n - 1).trailing_zeros();
    Some((power, g))
}

/// The boundary's vertices in loop order, starting at a corner (a vertex of one face only).
fn boundary_loop(mesh: &PolygonMesh) -> Option<Vec<u32>> {
    let start = mesh.edge_face.iter().position(|&f| f < 0)?;
    let mut loop_ = Vec::new();
    let mut h = start;
    loop {
        loop_.push(u32::try_from(mesh.edge_vertex[h]).ok()?);
        h = usize::try_from(mesh.edge_next[h]).ok()?;
        if h == start || loop_.len() > mesh.half_edge_count() {
            break;
        }
    }
    let mut faces_at = vec![0usize; mesh.vertex_count()];
    for f in 0..mesh.face_count() {
        for c in mesh.face_corners(f) {
            faces_at[c.vertex as usize] += 1;
        }
    }
    let corner = loop_.iter().position(|&v| faces_at[v as usize] == 1)?;
    loop_.rotate_left(corner);
    Some(loop_)
}

/// Each quad's corners, by each of its edges.
fn quads_by_edge(mesh: &PolygonMesh) -> HashMap<(u32, u32), Vec<[u32; 4]>> {
    let mut out: HashMap<(u32, u32), Vec<[u32; 4]>> = HashMap::new();
    for f in 0..mesh.face_count() {
        let c: Vec<u32> = mesh.face_corners(f).iter().map(|c| c.vertex).collect();
        let quad = [c[0], c[1], c[2], c[3]];
        for k in 0..4 {
            let (a, b) = (quad[k], quad[(k + 1) % 4]);
            out.entry((a.min(b), a.max(b))).or_default().push(quad);
        }
    }
    out
}

/// The fourth corner of the quad with corners `a`, `b` and `c` (`b` and `c` next to `a`).
fn fourth_corner(quads_at: &HashMap<(u32, u32), Vec<[u32; 4]>>, a: u32, b: u32, c: u32) -> Option<u32> {
    let quad = quads_at
        .get(&(a.min(b), a.max(b)))?
        .iter()
        .find(|q| q.contains(&c))?;
    quad.iter().copied().find(|x| ![a, b, c].contains(x))
}

/// A displacement for grid positions `p` and blend `alphas` (row-major, side `n`) whose front
/// faces `front`: the base quad clockwise from the front (start corner first) and the dispinfo.
pub fn dispinfo(p: &[DVec3], alphas: &[f32], n: usize, power: u32, front: DVec3) -> ([DVec3; 4], DispInfo) {
    let corner = |i: usize, j: usize| p[i * n + j];
    let mut c = [
        corner(0, 0),
        corner(n - 1, 0),
        corner(n - 1, n - 1),
        corner(0, n - 1),
    ];
    let transposed = crate::brush::newell(&c).dot(front) > 0.0;
    if transposed {
        // Counter-clockwise from the front: rows and columns swap.
        c.swap(1, 3);
    }
    let center = c.iter().copied().sum::<DVec3>() / 4.0;
    let base = c.map(|q| q - front * front.dot(q - center));
    let mut d = DispInfo {
        power,
        start_position: base[0].to_array(),
        allowed_verts: vec![-1; 10],
        ..DispInfo::default()
    };
    let at = |i: usize, j: usize| if transposed { p[j * n + i] } else { p[i * n + j] };
    d.triangle_tags = (0..(n - 1) * (n - 1))
        .flat_map(|q| {
            let (i, j) = (q / (n - 1), q % (n - 1));
            let tag = slope_tag(
                (at(i + 1, j + 1) - at(i, j)).cross(at(i, j + 1) - at(i + 1, j)),
                front,
            );
            [tag, tag]
        })
        .collect();
    let flat = flat_grid(&base, n);
    for (at, flat) in flat.iter().enumerate() {
        let (i, j) = (at / n, at % n);
        let k = if transposed { j * n + i } else { i * n + j };
        push_vertex(&mut d, p[k] - *flat, front, alphas.get(k).copied().unwrap_or(0.0));
    }
    (base, d)
}

/// What a grid mesh cannot say about the displacement it came from, carried as a string
/// attribute of the mesh node ([`Carried::ATTRIBUTE`]; Hammer ignores it) so that VMF → VMAP →
/// VMF gives the same displacement back: the base quad (the brush side's face, where vbsp lays
/// out the lightmap and the start position), the corners of the displaced grid (to find the
/// grid's orientation in the mesh again), elevation, flags, lightmap scale, triangle tags and
/// allowed vertices, and the brush's side planes in their order (vbsp's face windings, and
/// so which displacements it finds to be corner neighbours, follow the brush's sides).
/// Positions themselves come from the mesh, so an edited grid keeps its shape; a mesh whose
/// corners moved is converted without it.
#[derive(Debug, Clone, PartialEq)]
pub struct Carried {
    /// Start corner first, clockwise from the front.
    pub base: [DVec3; 4],
    /// The displaced grid's corners (i, j) = (0, 0), (n-1, 0), (n-1, n-1), (0, n-1).
    pub corners: [DVec3; 4],
    pub elevation: f64,
    pub flags: i64,
    pub lightmap_scale: f64,
    pub tags: Vec<i32>,
    pub allowed: Vec<i32>,
    /// The brush's plane points, side by side (Hammer's order), and which side is displaced.
    pub planes: Vec<[[f64; 3]; 3]>,
    pub displaced_side: usize,
}

/// Grid position (i, j) under one of the eight turns and mirrors of a grid with last index l.
type GridTurn = fn(usize, usize, usize) -> (usize, usize);

impl Carried {
    pub const ATTRIBUTE: &'static str = "srcmapDisplacement";

    pub fn new(grid: &Grid, solid: &srcmap_vmf::Solid, side: usize) -> Carried {
        let d = solid.sides[side].dispinfo.as_deref().cloned().unwrap_or_default();
        let n = grid.n;
        let at = [0, (n - 1) * n, n * n - 1, n - 1];
        Carried {
            base: at.map(|k| grid.flat[k]),
            corners: at.map(|k| grid.displaced[k]),
            elevation: d.elevation,
            flags: d.flags,
            lightmap_scale: solid.sides[side].lightmap_scale,
            tags: d.triangle_tags,
            allowed: d.allowed_verts,
            planes: solid.sides.iter().map(|s| s.plane).collect(),
            displaced_side: side,
        }
    }

    /// `key numbers…` fields separated by `;`; numbers in Rust's shortest exact form.
    pub fn to_text(&self) -> String {
        let points = |p: &[DVec3; 4]| {
            p.iter()
                .flat_map(|v| v.to_array())
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
        };
        let ints = |v: &[i32]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        [
            ("base", points(&self.base)),
            ("corners", points(&self.corners)),
            ("elevation", vec![self.elevation.to_string()]),
            ("flags", vec![self.flags.to_string()]),
            ("lightmapscale", vec![self.lightmap_scale.to_string()]),
            ("tags", ints(&self.tags)),
            ("allowed", ints(&self.allowed)),
            (
                "planes",
                self.planes
                    .iter()
                    .flatten()
                    .flatten()
                    .map(|x| x.to_string())
                    .collect(),
            ),
            ("side", vec![self.displaced_side.to_string()]),
        ]
        .iter()
        .map(|(k, v)| format!("{k} {}", v.join(" ")))
        .collect::<Vec<_>>()
        .join(";")
    }

    /// The attribute's text back; `None` when a field is missing or not a number.
    pub fn parse(text: &str) -> Option<Carried> {
        let fields: HashMap<&str, Vec<&str>> = text
            .split(';')
            .filter_map(|f| {
                let mut w = f.split_whitespace();
                Some((w.next()?, w.collect()))
            })
            .collect();
        let floats =
            |k: &str| -> Option<Vec<f64>> { fields.get(k)?.iter().map(|x| x.parse().ok()).collect() };
        let ints = |k: &str| -> Option<Vec<i32>> { fields.get(k)?.iter().map(|x| x.parse().ok()).collect() };
        let points = |k: &str| -> Option<[DVec3; 4]> {
            let v = floats(k).filter(|v| v.len() == 12 && v.iter().all(|x| x.is_finite()))?;
            Some([0, 1, 2, 3].map(|i| DVec3::new(v[3 * i], v[3 * i + 1], v[3 * i + 2])))
        };
        let one = |k: &str| {
            floats(k)
                .filter(|v| v.len() == 1 && v[0].is_finite())
                .map(|v| v[0])
        };
        Some(Carried {
            base: points("base")?,
            corners: points("corners")?,
            elevation: one("elevation")?,
            flags: one("flags")? as i64,
            lightmap_scale: one("lightmapscale")?,
            tags: ints("tags")?,
            allowed: ints("allowed")?,
            planes: floats("planes")
                .filter(|v| v.len() % 9 == 0 && v.iter().all(|x| x.is_finite()))?
                .chunks(9)
                .map(|c| [0, 1, 2].map(|k| [c[3 * k], c[3 * k + 1], c[3 * k + 2]]))
                .collect(),
            displaced_side: one("side")? as usize,
        })
    }

    /// The mesh's grid `order` (row-major, side `n`) turned so that its corners are the carried
    /// ones (within 0.01 unit); `None` when no turn or mirror of the grid matches.
    pub fn orient(&self, order: &[u32], positions: &[DVec3], n: usize) -> Option<Vec<u32>> {
        let last = n - 1;
        let turns: [GridTurn; 8] = [
            |i, j, _| (i, j),
            |i, j, l| (l - j, i),
            |i, j, l| (l - i, l - j),
            |i, j, l| (j, l - i),
            |i, j, _| (j, i),
            |i, j, l| (l - i, j),
            |i, j, l| (l - j, l - i),
            |i, j, l| (i, l - j),
        ];
        let at = [(0, 0), (last, 0), (last, last), (0, last)];
        turns.iter().find_map(|turn| {
            let pick = |i: usize, j: usize| {
                let (a, b) = turn(i, j, last);
                order[a * n + b]
            };
            let fits = at
                .iter()
                .zip(&self.corners)
                .all(|(&(i, j), c)| positions[pick(i, j) as usize].distance(*c) <= 0.01);
            fits.then(|| (0..n * n).map(|k| pick(k / n, k % n)).collect())
        })
    }

    /// The displacement over the carried base with grid positions `p` (in the carried
    /// orientation) and blend `alphas`: each vertex's offset from the flat grid (less the
    /// elevation) as a unit normal and a distance.
    pub fn dispinfo(&self, p: &[DVec3], alphas: &[f32], n: usize, power: u32) -> DispInfo {
        let front = -crate::brush::newell(&self.base).normalize_or_zero();
        let mut d = DispInfo {
            power,
            start_position: self.base[0].to_array(),
            elevation: self.elevation,
            flags: self.flags,
            allowed_verts: self.allowed.clone(),
            triangle_tags: self.tags.clone(),
            ..DispInfo::default()
        };
        for (k, flat) in flat_grid(&self.base, n).iter().enumerate() {
            let delta = p[k] - *flat - front * self.elevation;
            push_vertex(&mut d, delta, front, alphas.get(k).copied().unwrap_or(0.0));
        }
        d
    }
}

/// One grid vertex of a displacement: its move off the flat grid as a unit normal and a
/// distance (straight out along `front` when it does not move), no offset, its alpha.
fn push_vertex(d: &mut DispInfo, delta: DVec3, front: DVec3, alpha: f32) {
    let len = delta.length();
    d.normals
        .push((if len > 0.0 { delta / len } else { front }).as_vec3().to_array());
    d.distances.push(len as f32);
    d.offsets.push([0.0; 3]);
    d.offset_normals.push(front.as_vec3().to_array());
    d.alphas.push(alpha);
}

/// Hammer's walkable and buildable bits for a surface of normal `n` (oriented to `front`):
/// set when its up component reaches 0.7 and 0.8 (`WALKABLE_NORMAL_VALUE`,
/// `BUILDABLE_NORMAL_VALUE`). Both triangles of a quad get the quad's tags.
fn slope_tag(n: DVec3, front: DVec3) -> i32 {
    use srcmap_vmf::hammer_tag::{BUILDABLE, WALKABLE};
    let n = if n.dot(front) < 0.0 { -n } else { n }.normalize_or_zero();
    let walkable = if n.z >= 0.7 { WALKABLE } else { 0 };
    walkable | if n.z >= 0.8 { BUILDABLE } else { 0 }
}

/// The flat grid over a base quad `p` (start corner first), row-major: row i from p0 toward
/// p1, column j toward p3.
fn flat_grid(p: &[DVec3; 4], n: usize) -> Vec<DVec3> {
    let last = (n - 1) as f64;
    (0..n)
        .flat_map(|i| {
            let (a, b) = (p[0].lerp(p[1], i as f64 / last), p[3].lerp(p[2], i as f64 / last));
            (0..n).map(move |j| a.lerp(b, j as f64 / last))
        })
        .collect()
}

/// Per vertex, the normalised sum of the (counter-clockwise) normals of the faces around it.
pub fn vertex_normals(positions: &[DVec3], faces: &[Vec<u32>]) -> Vec<DVec3> {
    let mut sum = vec![DVec3::ZERO; positions.len()];
    for f in faces {
        let p: Vec<DVec3> = f.iter().map(|&v| positions[v as usize]).collect();
        let n = crate::brush::newell(&p);
        for &v in f {
            sum[v as usize] += n;
        }
    }
    sum.into_iter().map(|n| n.normalize_or(DVec3::Z)).collect()
}

/// The six planes (normals out) of the brush under a displacement's base quad `base`
/// (clockwise from the front `front`): the base plane, one 8 units behind, and the four edges.
pub fn brush_planes(base: &[DVec3; 4], front: DVec3) -> Vec<srcmap_geom::Plane> {
    use srcmap_geom::Plane;
    let center = base.iter().copied().sum::<DVec3>() / 4.0 - front * 4.0;
    let mut planes = vec![
        Plane::new(front, front.dot(base[0])),
        Plane::new(-front, -front.dot(base[0]) + 8.0),
    ];
    for k in 0..4 {
        let (a, b) = (base[k], base[(k + 1) % 4]);
        let mut m = (b - a).cross(front).normalize_or_zero();
        if m.dot(center - a) > 0.0 {
            m = -m;
        }
        planes.push(Plane::new(m, m.dot(a)));
    }
    planes
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 64-unit square at z = 0, clockwise seen from above, ending at the origin.
    const SQUARE: [DVec3; 4] = [
        DVec3::new(0.0, 64.0, 0.0),
        DVec3::new(64.0, 64.0, 0.0),
        DVec3::new(64.0, 0.0, 0.0),
        DVec3::new(0.0, 0.0, 0.0),
    ];

    /// A power-2 displacement over a 64-unit square, raised by a bump: the grid rebuilt from
    /// its mesh gives a dispinfo that puts every vertex back where it was.
    #[test]
    fn a_grid_comes_back_as_the_same_displacement() {
        let n = 5;
        let d = DispInfo {
            power: 2,
            start_position: [0.0, 0.0, 0.0],
            normals: vec![[0.0, 0.0, 1.0]; n * n],
            distances: (0..n * n).map(|k| ((k % n) * (k / n)) as f32).collect(),
            offsets: vec![[0.0; 3]; n * n],
            ..DispInfo::default()
        };
        let g = grid(&SQUARE, DVec3::Z, &d).unwrap();
        assert_eq!(g.flat[0], DVec3::ZERO);
        assert_eq!(g.displaced[n * n - 1].z, 16.0);
        let normals = vertex_normals(&g.displaced, &quads(n));
        assert!(normals.iter().all(|v| v.z > 0.0), "quads face the front");
        let (base, back) = dispinfo(&g.displaced, &[], n, 2, DVec3::Z);
        assert!(
            crate::brush::newell(&base).dot(DVec3::Z) < 0.0,
            "base clockwise from the front"
        );
        let again = grid(&base, DVec3::Z, &back).unwrap();
        let mut a: Vec<[i64; 3]> = again
            .displaced
            .iter()
            .map(|p| (p.round()).as_i64vec3().to_array())
            .collect();
        let mut b: Vec<[i64; 3]> = g
            .displaced
            .iter()
            .map(|p| (p.round()).as_i64vec3().to_array())
            .collect();
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
        assert_eq!(brush_planes(&base, DVec3::Z).len(), 6);
        // A gentle bump: every quad walkable; a wall (facing +x) is not.
        assert!(
            back.triangle_tags.iter().all(|&t| t == 9),
            "{:?}",
            back.triangle_tags
        );
        assert_eq!(slope_tag(DVec3::X, DVec3::X), 0);
    }

    /// What is carried reads back as written, and the grid is found again whichever corner
    /// the mesh's vertex order starts from and in whichever direction it runs; a grid whose
    /// corners moved is not.
    #[test]
    fn carried_data_reads_back_and_finds_the_grid_in_any_order() {
        let n = 5;
        let d = DispInfo {
            power: 2,
            elevation: 0.5,
            flags: 2,
            normals: vec![[0.0, 0.0, 1.0]; n * n],
            distances: (0..n * n).map(|k| (k % 7) as f32 / 3.0).collect(),
            triangle_tags: (0..32).collect(),
            allowed_verts: vec![-1; 10],
            ..DispInfo::default()
        };
        let g = grid(&SQUARE, DVec3::Z, &d).unwrap();
        let text = format!(
            "world\n{{\n\"classname\" \"worldspawn\"\n{}\n}}\n",
            crate::testmaps::box_solid(1, [0.0; 3], [64.0, 64.0, 16.0], "DEV/X")
        );
        let mut solid = srcmap_vmf::Vmf::parse(text).unwrap().world.solids[0].clone();
        solid.sides[0].dispinfo = Some(Box::new(d.clone()));
        solid.sides[0].lightmap_scale = 8.0;
        let c = Carried::new(&g, &solid, 0);
        assert_eq!(Carried::parse(&c.to_text()), Some(c.clone()));
        assert_eq!(Carried::parse("base 1 2 3"), None);
        let straight: Vec<u32> = (0..(n * n) as u32).collect();
        let l = n - 1;
        let orders: Vec<Vec<u32>> = [
            (false, 0),
            (false, 1),
            (false, 2),
            (false, 3),
            (true, 0),
            (true, 2),
        ]
        .iter()
        .map(|&(mirror, turns)| {
            (0..n * n)
                .map(|k| {
                    let (mut i, mut j) = (k / n, k % n);
                    if mirror {
                        (i, j) = (j, i);
                    }
                    for _ in 0..turns {
                        (i, j) = (j, l - i);
                    }
                    straight[i * n + j]
                })
                .collect()
        })
        .collect();
        for order in &orders {
            assert_eq!(c.orient(order, &g.displaced, n).as_deref(), Some(&straight[..]));
        }
        let again = c.dispinfo(&g.displaced, &[], n, 2);
        assert_eq!((again.start_position, again.triangle_tags.len()), ([0.0; 3], 32));
        for k in 0..n * n {
            assert!((again.distances[k] - d.distances[k]).abs() < 1e-5);
        }
        let mut moved = g.displaced.clone();
        moved[0].z += 1.0;
        assert_eq!(c.orient(&straight, &moved, n), None);
    }
}
