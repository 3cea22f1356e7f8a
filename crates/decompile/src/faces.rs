//! The faces that lie on a brush side: same plane (either of a pair), same facing, centre
//! inside the side's winding. They give a side without a texinfo its material, every side its
//! smoothing groups, and overlays their sides back.

use std::collections::HashMap;

use srcmap_bsp::Bsp;
use srcmap_geom::{DVec3, Plane, Winding};

use crate::types::dvec;

/// Faces by model and plane pair, with their centres.
pub(crate) struct FaceIndex {
    by_plane: HashMap<(usize, u32), Vec<u32>>,
    centres: Vec<Option<DVec3>>,
}

impl FaceIndex {
    pub fn new(bsp: &Bsp) -> FaceIndex {
        let centres = bsp.faces.iter().map(|f| centre(bsp, f)).collect();
        let mut by_plane: HashMap<(usize, u32), Vec<u32>> = HashMap::new();
        for model in 0..bsp.models.len() {
            for f in bsp.model_face_range(model, bsp.faces.len()) {
                by_plane
                    .entry((model, bsp.faces[f].plane & !1))
                    .or_default()
                    .push(f as u32);
            }
        }
        FaceIndex { by_plane, centres }
    }

    /// The faces of `model` on `plane_index`, facing like `plane`, inside `winding`.
    pub fn faces_on(
        &self,
        bsp: &Bsp,
        model: usize,
        plane_index: u32,
        plane: &Plane,
        winding: &Winding,
    ) -> Vec<u32> {
        let Some(list) = self.by_plane.get(&(model, plane_index & !1)) else {
            return Vec::new();
        };
        let keep = |&&f: &&u32| {
            let face = &bsp.faces[f as usize];
            let facing = face_normal(bsp, face).is_some_and(|n| n.dot(plane.normal) > 0.99);
            let inside = self.centres[f as usize].is_some_and(|c| contains(winding, plane.normal, c));
            facing && inside && face.dispinfo < 0
        };
        list.iter().filter(keep).copied().collect()
    }
}

/// The face's front normal: its plane's (Valve stores the face's own plane of a twin pair;
/// `side` only records which twin it is).
fn face_normal(bsp: &Bsp, face: &srcmap_bsp::Face) -> Option<DVec3> {
    Some(dvec(bsp.planes.get(face.plane as usize)?.normal))
}

fn centre(bsp: &Bsp, face: &srcmap_bsp::Face) -> Option<DVec3> {
    let verts = bsp.face_vertices(face)?;
    let sum: DVec3 = verts.iter().map(|v| dvec(*v)).sum();
    (!verts.is_empty()).then(|| sum / verts.len() as f64)
}

/// `p` (on the winding's plane) lies inside the convex `winding`, within a small margin.
fn contains(winding: &Winding, normal: DVec3, p: DVec3) -> bool {
    let pts = &winding.points;
    let n = pts.len();
    if n < 3 {
        return false;
    }
    let (mut pos, mut neg) = (false, false);
    for i in 0..n {
        let (a, b) = (pts[i], pts[(i + 1) % n]);
        let edge = b - a;
        let side = edge.cross(p - a).dot(normal) / edge.length().max(1e-9);
        pos |= side > 0.01;
        neg |= side < -0.01;
    }
    !(pos && neg)
}
