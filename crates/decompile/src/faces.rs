//! The faces that lie on a brush side: same plane (either of a pair), same facing, centre
//! inside the side's winding. They give a side without a texinfo its material, every side its
//! smoothing groups, and overlays their sides back.

use std::collections::{HashMap, HashSet};

use srcmap_bsp::Bsp;
use srcmap_geom::{DVec3, Plane, Winding};

use crate::types::dvec;

/// Faces by model and plane pair, with their centres.
pub(crate) struct FaceIndex {
    by_plane: HashMap<(usize, u32), Vec<u32>>,
    centres: Vec<Option<DVec3>>,
    /// The texinfos some face uses.
    used_texinfos: HashSet<i32>,
    /// The first texinfo some face uses, by texdata and flags.
    first_used: HashMap<(i32, i32), usize>,
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
        let used_texinfos: HashSet<i32> = bsp.faces.iter().map(|f| f.texinfo).collect();
        let mut first_used = HashMap::new();
        for (t, info) in bsp.texinfo.iter().enumerate() {
            if used_texinfos.contains(&(t as i32)) {
                first_used.entry((info.texdata, info.flags)).or_insert(t);
            }
        }
        FaceIndex {
            by_plane,
            centres,
            used_texinfos,
            first_used,
        }
    }

    /// Some face uses texinfo `t`.
    pub fn texinfo_used(&self, t: usize) -> bool {
        i32::try_from(t).is_ok_and(|t| self.used_texinfos.contains(&t))
    }

    /// The first texinfo some face uses with texinfo `t`'s texdata and flags.
    pub fn first_used_like(&self, bsp: &Bsp, t: usize) -> Option<usize> {
        let info = bsp.texinfo.get(t)?;
        self.first_used.get(&(info.texdata, info.flags)).copied()
    }

    /// Some face of `model` on `plane_index`, facing like `plane`, overlaps `winding`: its
    /// centre or a corner inside the winding, or the winding's centre inside it (a face
    /// vbsp merged across coplanar sides has its centre on one of them only).
    pub fn shows(&self, bsp: &Bsp, model: usize, plane_index: u32, plane: &Plane, winding: &Winding) -> bool {
        let Some(list) = self.by_plane.get(&(model, plane_index & !1)) else {
            return false;
        };
        let middle = winding.points.iter().sum::<DVec3>() / winding.points.len().max(1) as f64;
        let overlaps = |f: u32| {
            let face = &bsp.faces[f as usize];
            let facing = face_normal(bsp, face).is_some_and(|n| n.dot(plane.normal) > 0.99);
            let points: Vec<DVec3> = (bsp.face_vertices(face).unwrap_or_default().into_iter())
                .map(dvec)
                .collect();
            let corner_in = points
                .iter()
                .any(|&p| contains_strictly(winding, plane.normal, p));
            let centre_in = self.centres[f as usize].is_some_and(|c| contains(winding, plane.normal, c));
            let around = contains(&Winding::new(points), plane.normal, middle);
            facing && face.dispinfo < 0 && (centre_in || corner_in || around)
        };
        list.iter().any(|&f| overlaps(f))
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
    let sides = edge_sides(winding, normal, p);
    let outside_of = |sign: f64| sides.iter().any(|&s| s * sign > 0.01);
    sides.len() >= 3 && !(outside_of(1.0) && outside_of(-1.0))
}

/// `p` lies inside `winding` and at least 0.1 unit from each edge (a corner of a face that
/// only touches the winding's edge is not in it).
fn contains_strictly(winding: &Winding, normal: DVec3, p: DVec3) -> bool {
    let sides = edge_sides(winding, normal, p);
    let all = |sign: f64| sides.iter().all(|&s| s * sign >= 0.1);
    sides.len() >= 3 && (all(1.0) || all(-1.0))
}

/// The signed distance of `p` from each edge of `winding` (one sign inside, for either order).
fn edge_sides(winding: &Winding, normal: DVec3, p: DVec3) -> Vec<f64> {
    let pts = &winding.points;
    let n = pts.len();
    let side = |i: usize| {
        let (a, b) = (pts[i], pts[(i + 1) % n]);
        let edge = b - a;
        edge.cross(p - a).dot(normal) / edge.length().max(1e-9)
    };
    (0..n).map(side).collect()
}
