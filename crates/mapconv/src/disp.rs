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
        let delta = p[k] - *flat;
        let len = delta.length();
        d.normals
            .push((if len > 0.0 { delta / len } else { front }).as_vec3().to_array());
        d.distances.push(len as f32);
        d.offsets.push([0.0; 3]);
        d.offset_normals.push(front.as_vec3().to_array());
        d.alphas.push(alphas.get(k).copied().unwrap_or(0.0));
    }
    (base, d)
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

    /// A power-2 displacement over a 64-unit square, raised by a bump: the grid rebuilt from
    /// its mesh gives a dispinfo that puts every vertex back where it was.
    #[test]
    fn a_grid_comes_back_as_the_same_displacement() {
        let n = 5;
        let corners = [
            DVec3::new(0.0, 64.0, 0.0),
            DVec3::new(64.0, 64.0, 0.0),
            DVec3::new(64.0, 0.0, 0.0),
            DVec3::new(0.0, 0.0, 0.0),
        ];
        let d = DispInfo {
            power: 2,
            start_position: [0.0, 0.0, 0.0],
            normals: vec![[0.0, 0.0, 1.0]; n * n],
            distances: (0..n * n).map(|k| ((k % n) * (k / n)) as f32).collect(),
            offsets: vec![[0.0; 3]; n * n],
            ..DispInfo::default()
        };
        let g = grid(&corners, DVec3::Z, &d).unwrap();
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
}
