//! Displacements back on a brush. The compiler keeps no displacement brush (only its base
//! face), so each displacement gets a brush of its own: the base quad as its top side, which
//! carries the material and the `dispinfo`, and nodraw sides 8 units behind. Each vertex's
//! stored vector and distance become its normal and distance (no offsets), so the recompile
//! puts every vertex where it was.

use srcmap_bsp::DispInfo as BspDisp;
use srcmap_geom::{DVec3, Plane, polyhedron_faces};
use srcmap_vmf::DispInfo;

use crate::brushes::{bounds, untextured};
use crate::context::Ctx;
use crate::points::plane_points;
use crate::types::{OutSide, OutSolid, dvec};

/// How far behind its base face a displacement's brush reaches.
const THICKNESS: f64 = 8.0;

use srcmap_bsp::flags::disp_tag::{BUILDABLE as TAG_BUILDABLE, WALKABLE as TAG_WALKABLE};
use srcmap_vmf::hammer_tag::{BUILDABLE as HAMMER_BUILDABLE, WALKABLE as HAMMER_WALKABLE};

impl Ctx<'_> {
    /// Every displacement as a solid of its own (noted where its records do not fit).
    pub fn displacement_solids(&mut self) -> Vec<OutSolid> {
        (0..self.bsp.disp_info.len())
            .filter_map(|i| self.disp_solid(i))
            .collect()
    }

    fn disp_solid(&mut self, index: usize) -> Option<OutSolid> {
        let info = self.bsp.disp_info[index];
        let found = self.disp_base(&info).and_then(|(quad, top, texinfo)| {
            let dispinfo = self.disp_rows(&info, top.normal)?;
            Some((quad, top, texinfo, dispinfo))
        });
        let Some((quad, top, texinfo, dispinfo)) = found else {
            self.notes.push(format!(
                "displacement {index}: its face or rows are missing; left out"
            ));
            return None;
        };
        Some(self.prism(info.map_face, &quad, top, texinfo, dispinfo))
    }

    /// The base face's corners, front plane and texinfo.
    fn disp_base(&self, info: &BspDisp) -> Option<([DVec3; 4], Plane, usize)> {
        let face = srcmap_disp::disp_faces(self.bsp).get(info.map_face as usize)?;
        let quad = srcmap_disp::face_quad(self.bsp, info.map_face as usize)?;
        let p = self.bsp.planes.get(face.plane as usize)?;
        // The face's own plane (its `side` only says which twin that is).
        let top = Plane::new(dvec(p.normal), p.dist as f64);
        let texinfo = usize::try_from(face.texinfo)
            .ok()
            .filter(|&t| t < self.bsp.texinfo.len())?;
        Some((
            quad.map(|v| DVec3::from_array(v.to_array().map(f64::from))),
            top,
            texinfo,
        ))
    }

    /// The VMF rows of a displacement: vectors, distances, alphas, tags, allowed vertices.
    fn disp_rows(&self, info: &BspDisp, normal: DVec3) -> Option<DispInfo> {
        let power = u32::try_from(info.power).ok().filter(|p| (2..=4).contains(p))?;
        let start = usize::try_from(info.disp_vert_start).ok()?;
        let verts = self
            .bsp
            .disp_verts
            .get(start..start.checked_add(srcmap_disp::vert_count(power))?)?;
        let tri_start = usize::try_from(info.disp_tri_start).ok()?;
        let tris = self
            .bsp
            .disp_tris
            .get(tri_start..tri_start.checked_add(srcmap_disp::tri_count(power))?)?;
        let n = normal.as_vec3().to_array();
        Some(DispInfo {
            node: None,
            power,
            start_position: info.start_position.map(f64::from),
            flags: if info.min_tess < 0 {
                (info.min_tess & i32::MAX) as i64
            } else {
                0
            },
            elevation: 0.0,
            subdiv: false,
            normals: verts.iter().map(|v| v.vec).collect(),
            distances: verts.iter().map(|v| v.dist).collect(),
            offsets: vec![[0.0; 3]; verts.len()],
            offset_normals: vec![n; verts.len()],
            alphas: verts.iter().map(|v| v.alpha).collect(),
            triangle_tags: tris.iter().map(|&t| hammer_tag(t)).collect(),
            allowed_verts: info.allowed_verts.iter().map(|&w| w as i32).collect(),
        })
    }

    /// The brush under a base quad: top side textured and displaced, the rest nodraw.
    fn prism(
        &mut self,
        face: u32,
        quad: &[DVec3; 4],
        top: Plane,
        texinfo: usize,
        dispinfo: DispInfo,
    ) -> OutSolid {
        let planes = prism_planes(quad, top);
        let windings = polyhedron_faces(&planes);
        let mut sides = Vec::new();
        for (k, (plane, w)) in planes.iter().zip(&windings).enumerate() {
            let Some(w) = w else { continue };
            let mut side = OutSide::new(self.ids.next(), plane_points(plane, w));
            if k == 0 {
                // Overlays on the displacement name its top side.
                self.face_sides.insert(face, side.id);
                self.textured(&mut side, texinfo, DVec3::ZERO);
                side.disp = Some(Box::new(dispinfo.clone()));
            } else {
                untextured(&mut side, plane.normal, "tools/toolsnodraw");
            }
            sides.push(side);
        }
        let (mins, maxs) = bounds(
            windings.iter().flatten().flat_map(|w| w.points.iter()),
            DVec3::ZERO,
        );
        OutSolid {
            id: self.ids.next(),
            sides,
            mins,
            maxs,
        }
    }
}

/// The top plane, the bottom plane `THICKNESS` behind it, and one plane through each edge.
fn prism_planes(quad: &[DVec3; 4], top: Plane) -> Vec<Plane> {
    let centre = quad.iter().sum::<DVec3>() / 4.0;
    let mut planes = vec![top, Plane::new(-top.normal, -(top.dist - THICKNESS))];
    for k in 0..4 {
        let (a, b) = (quad[k], quad[(k + 1) % 4]);
        let mut n = (b - a).cross(top.normal).normalize_or_zero();
        if n.dot(a - centre) < 0.0 {
            n = -n;
        }
        planes.push(Plane::new(n, n.dot(a)));
    }
    planes
}

/// Hammer's tag for a BSP triangle tag: its walkable and buildable bits (the only ones the
/// VMF carries into the BSP).
fn hammer_tag(tag: u16) -> i32 {
    let mut hammer = 0;
    if tag & TAG_WALKABLE != 0 {
        hammer |= HAMMER_WALKABLE;
    }
    if tag & TAG_BUILDABLE != 0 {
        hammer |= HAMMER_BUILDABLE;
    }
    hammer
}
