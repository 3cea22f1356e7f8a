//! A VMF brush as a closed polygon mesh: each side's plane clipped by the others (geom's
//! windings), corners welded, and each face's loop made of every welded corner on its plane,
//! so two faces meeting at an edge always share its vertices (no T-junction inside a brush).

use srcmap_geom::{DVec3, Plane, Winding};
use srcmap_vmf::Solid;

/// Corners closer than this are one vertex; a vertex this close to a side's plane lies on it.
pub const WELD: f64 = 0.01;
/// A brush reaching this far is open (its planes do not enclose a volume).
const OPEN_LIMIT: f64 = 60000.0;

/// Why a brush has no mesh.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BrushError {
    #[error("side {side} has collinear plane points")]
    BadPlane { side: i64 },
    #[error("its sides do not enclose a volume (open toward {direction:?})")]
    Open { direction: [f64; 3] },
    #[error("only {faces} of its sides touch the solid (at least 4 needed)")]
    TooFewFaces { faces: usize },
}

/// One face of a brush: the side it comes from and its corners, counter-clockwise seen from
/// outside (VMAP's winding), as indexes into [`BrushMesh::vertices`].
#[derive(Debug, Clone, PartialEq)]
pub struct BrushFace {
    pub side: usize,
    pub corners: Vec<u32>,
    pub normal: DVec3,
}

/// A brush's welded vertices (world space) and faces.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BrushMesh {
    pub vertices: Vec<DVec3>,
    pub faces: Vec<BrushFace>,
    /// Sides that touch the solid only at an edge or a point, or repeat another side's plane.
    pub dropped_sides: Vec<usize>,
}

impl BrushMesh {
    pub fn center(&self) -> DVec3 {
        let sum: DVec3 = self.vertices.iter().copied().sum();
        sum / self.vertices.len().max(1) as f64
    }

    /// The mesh with only the faces `keep` takes, its vertices renumbered (the unused left
    /// out).
    pub fn with_faces(&self, keep: impl Fn(&BrushFace) -> bool) -> BrushMesh {
        let mut index = vec![u32::MAX; self.vertices.len()];
        let mut out = BrushMesh {
            dropped_sides: self.dropped_sides.clone(),
            ..BrushMesh::default()
        };
        for face in self.faces.iter().filter(|f| keep(f)) {
            let corners = face.corners.iter().map(|&c| {
                if index[c as usize] == u32::MAX {
                    index[c as usize] = out.vertices.len() as u32;
                    out.vertices.push(self.vertices[c as usize]);
                }
                index[c as usize]
            });
            out.faces.push(BrushFace {
                corners: corners.collect(),
                ..face.clone()
            });
        }
        out
    }

    /// Area of face `f` (Newell).
    pub fn face_area(&self, f: usize) -> f64 {
        let p: Vec<DVec3> = self.faces[f]
            .corners
            .iter()
            .map(|&c| self.vertices[c as usize])
            .collect();
        newell(&p).length() * 0.5
    }
}

/// Newell's vector of a polygon: twice its area along its counter-clockwise normal.
pub fn newell(p: &[DVec3]) -> DVec3 {
    let mut n = DVec3::ZERO;
    for (i, a) in p.iter().enumerate() {
        n += a.cross(p[(i + 1) % p.len()]);
    }
    n
}

/// The side planes, outward (Hammer's clockwise plane points).
pub fn side_planes(solid: &Solid) -> Result<Vec<Plane>, BrushError> {
    solid
        .sides
        .iter()
        .map(|s| {
            let [a, b, c] = s.plane.map(DVec3::from_array);
            Plane::from_points(a, b, c).ok_or(BrushError::BadPlane { side: s.id })
        })
        .collect()
}

/// The brush's mesh.
pub fn brush_mesh(solid: &Solid) -> Result<BrushMesh, BrushError> {
    let planes = side_planes(solid)?;
    let (windings, repeated) = clipped_windings(&planes);
    let vertices = weld(windings.iter().flatten().flat_map(|w| w.points.iter().copied()));
    if let Some(far) = vertices.iter().find(|p| p.abs().max_element() > OPEN_LIMIT) {
        return Err(BrushError::Open {
            direction: far.normalize_or_zero().to_array(),
        });
    }
    let mut mesh = BrushMesh {
        vertices,
        dropped_sides: repeated,
        ..BrushMesh::default()
    };
    for (side, plane) in planes.iter().enumerate() {
        let Some(winding) = windings[side]
            .as_ref()
            .filter(|_| !mesh.dropped_sides.contains(&side))
        else {
            push_unique(&mut mesh.dropped_sides, side);
            continue;
        };
        match face_loop(&mesh.vertices, winding, plane.normal).filter(|c| !repeats_a_face(&mesh.faces, c)) {
            Some(corners) => mesh.faces.push(BrushFace {
                side,
                corners,
                normal: plane.normal,
            }),
            None => mesh.dropped_sides.push(side),
        }
    }
    mesh.dropped_sides.sort_unstable();
    if mesh.faces.len() < 4 {
        return Err(BrushError::TooFewFaces {
            faces: mesh.faces.len(),
        });
    }
    Ok(mesh)
}

/// Two nearly equal planes (not caught as repeated) give the same corners: keep the first.
fn repeats_a_face(faces: &[BrushFace], corners: &[u32]) -> bool {
    let mut sorted = corners.to_vec();
    sorted.sort_unstable();
    faces.iter().any(|f| {
        let mut other = f.corners.clone();
        other.sort_unstable();
        other == sorted
    })
}

fn push_unique(v: &mut Vec<usize>, x: usize) {
    if !v.contains(&x) {
        v.push(x);
    }
}

/// Each side's polygon (`None` when clipped away) and the sides that repeat an earlier plane.
fn clipped_windings(planes: &[Plane]) -> (Vec<Option<Winding>>, Vec<usize>) {
    let repeated: Vec<usize> = (0..planes.len())
        .filter(|&i| planes[..i].iter().any(|p| p.approx_eq(&planes[i], 1e-6, 1e-4)))
        .collect();
    let windings = (0..planes.len())
        .map(|i| {
            let mut w = Winding::base_for_plane(&planes[i]);
            for (j, other) in planes.iter().enumerate() {
                if j != i && !repeated.contains(&j) && !other.approx_eq(&planes[i], 1e-6, 1e-4) {
                    w = w.clip_back(other, 0.0, false)?;
                }
            }
            Some(w)
        })
        .collect();
    (windings, repeated)
}

/// Points merged within [`WELD`] (the first of a cluster stands for it).
fn weld(points: impl Iterator<Item = DVec3>) -> Vec<DVec3> {
    let mut out: Vec<DVec3> = Vec::new();
    for p in points {
        if !out.iter().any(|q| q.distance_squared(p) <= WELD * WELD) {
            out.push(p);
        }
    }
    out
}

/// A face's loop: its own winding's corners as welded vertices, counter-clockwise around
/// `normal`, with every other vertex that lies on one of its edges put in, so that faces
/// meeting at an edge share all its vertices; `None` when fewer than three corners are left.
/// (Taking every vertex near the plane instead lets a sliver face pick up the end of a
/// neighbour's tiny edge, and two faces then run along that edge the same way.)
fn face_loop(vertices: &[DVec3], winding: &Winding, normal: DVec3) -> Option<Vec<u32>> {
    let mut corners: Vec<u32> = winding.points.iter().map(|&p| welded(vertices, p)).collect();
    corners.dedup();
    while corners.len() > 1 && corners.first() == corners.last() {
        corners.pop();
    }
    if corners.len() < 3 {
        return None;
    }
    let at = |c: &[u32]| c.iter().map(|&i| vertices[i as usize]).collect::<Vec<_>>();
    if newell(&at(&corners)).dot(normal) < 0.0 {
        corners.reverse();
    }
    let n = corners.len();
    let loop_: Vec<u32> = (0..n)
        .flat_map(|i| {
            let (a, b) = (corners[i], corners[(i + 1) % n]);
            std::iter::once(a).chain(on_edge(vertices, a, b, &corners))
        })
        .collect();
    (newell(&at(&loop_)).length() > 1e-9).then_some(loop_)
}

/// The vertex a winding point was welded into (the first within [`WELD`]).
fn welded(vertices: &[DVec3], p: DVec3) -> u32 {
    let nearest = |i: &usize| vertices[*i].distance_squared(p);
    let within = (0..vertices.len()).find(|&i| vertices[i].distance_squared(p) <= WELD * WELD);
    within
        .or_else(|| (0..vertices.len()).min_by(|a, b| nearest(a).total_cmp(&nearest(b))))
        .unwrap_or(0) as u32
}

/// The vertices (other than `skip`) within [`WELD`] of the edge a→b, strictly between its
/// ends, in order from a.
fn on_edge(vertices: &[DVec3], a: u32, b: u32, skip: &[u32]) -> Vec<u32> {
    let (pa, pb) = (vertices[a as usize], vertices[b as usize]);
    let d = pb - pa;
    let mut between: Vec<(f64, u32)> = (0..vertices.len() as u32)
        .filter(|v| !skip.contains(v))
        .filter_map(|v| {
            let p = vertices[v as usize];
            let t = (p - pa).dot(d) / d.length_squared();
            ((0.0..1.0).contains(&t) && t > 0.0 && p.distance(pa + d * t) <= WELD).then_some((t, v))
        })
        .collect();
    between.sort_by(|x, y| x.0.total_cmp(&y.0));
    between.into_iter().map(|(_, v)| v).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use srcmap_vmf::Vmf;

    pub(crate) fn box_solid() -> Solid {
        Vmf::parse(crate::testmaps::box_room()).unwrap().world.solids[0].clone()
    }

    #[test]
    fn a_box_brush_is_six_quads_on_eight_vertices() {
        let m = brush_mesh(&box_solid()).unwrap();
        assert_eq!(m.vertices.len(), 8);
        assert_eq!(m.faces.len(), 6);
        for (f, face) in m.faces.iter().enumerate() {
            assert_eq!(face.corners.len(), 4);
            let p: Vec<DVec3> = face.corners.iter().map(|&c| m.vertices[c as usize]).collect();
            // Counter-clockwise seen from outside: Newell's vector points along the normal.
            assert!(newell(&p).normalize().dot(face.normal) > 0.999, "face {f}");
        }
        let total: f64 = (0..6).map(|f| m.face_area(f)).sum();
        assert!(
            (total - 2.0 * (256.0 * 256.0 + 256.0 * 16.0 * 2.0)).abs() < 1e-6,
            "{total}"
        );
    }

    #[test]
    fn a_brush_without_a_top_is_open() {
        let mut s = box_solid();
        s.sides.remove(0);
        assert!(matches!(brush_mesh(&s), Err(BrushError::Open { .. })));
        s.sides[0].plane = [[0.0; 3]; 3];
        assert!(matches!(brush_mesh(&s), Err(BrushError::BadPlane { .. })));
    }
}
