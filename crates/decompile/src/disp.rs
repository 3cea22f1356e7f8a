//! Displacements back on their brushes. The compiler keeps no displacement brush (only its
//! base faces), so the brushes are rebuilt around the base quads (`disp_brush`): each base the
//! textured side that carries the `dispinfo`, the other sides in the first base's texture.
//! Each vertex's stored vector and distance become its normal and distance (no offsets), so
//! the recompile puts every vertex where it was.

use srcmap_bsp::DispInfo as BspDisp;
use srcmap_geom::{DVec3, Plane};
use srcmap_vmf::DispInfo;

use crate::brushes::{bounds, untextured};
use crate::context::Ctx;
use crate::disp_brush::{Base, Sides, brush_groups, brush_sides};
use crate::points::plane_points;
use crate::types::{OutSide, OutSolid, dvec};

use srcmap_bsp::flags::disp_tag::{BUILDABLE as TAG_BUILDABLE, WALKABLE as TAG_WALKABLE};
use srcmap_vmf::hammer_tag::{BUILDABLE as HAMMER_BUILDABLE, WALKABLE as HAMMER_WALKABLE};

/// A displacement as its brush side will carry it.
struct Piece {
    face: u32,
    base: Base,
    texinfo: usize,
    dispinfo: DispInfo,
}

impl Ctx<'_> {
    /// The displacements on their brushes (noted where their records do not fit).
    pub fn displacement_solids(&mut self) -> Vec<OutSolid> {
        let pieces: Vec<Piece> = (0..self.bsp.disp_info.len())
            .filter_map(|i| self.disp_piece(i))
            .collect();
        let bases: Vec<Base> = pieces.iter().map(|p| p.base).collect();
        let mut solids = Vec::new();
        for group in brush_groups(&bases) {
            let group: Vec<&Piece> = group.iter().map(|&i| &pieces[i]).collect();
            match self.shared_brush(&group) {
                Some(solid) => solids.push(solid),
                None => solids.extend(group.iter().filter_map(|p| self.lone_brush(p))),
            }
        }
        solids
    }

    /// A displacement's brush of its own (noted when even that does not keep its quad).
    fn lone_brush(&mut self, piece: &Piece) -> Option<OutSolid> {
        let solid = self.shared_brush(&[piece]);
        if solid.is_none() {
            let face = piece.face;
            self.notes.push(format!(
                "displacement on face {face}: no brush keeps its base quad; left out"
            ));
        }
        solid
    }

    fn disp_piece(&mut self, index: usize) -> Option<Piece> {
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
        Some(Piece {
            face: info.map_face,
            base: Base {
                quad,
                top,
                side_id: (self.bsp.face_ids.get(info.map_face as usize).copied()).filter(|&id| id != 0),
            },
            texinfo,
            dispinfo,
        })
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

    /// The one brush `run` lies on, its bases textured and displaced, the rest in the first
    /// base's material.
    fn shared_brush(&mut self, run: &[&Piece]) -> Option<OutSolid> {
        let bases: Vec<Base> = run.iter().map(|p| p.base).collect();
        let planes: Sides = brush_sides(&bases)?;
        let mut sides = Vec::new();
        for (k, (plane, w)) in planes.iter().enumerate() {
            let mut side = OutSide::new(self.ids.next(), plane_points(plane, w));
            match run.get(k) {
                Some(piece) => {
                    // Overlays on the displacement name this side.
                    self.face_sides.insert(piece.face, side.id);
                    self.textured(&mut side, piece.texinfo, DVec3::ZERO);
                    side.disp = Some(Box::new(piece.dispinfo.clone()));
                }
                // The compiler draws none of the other sides; mappers leave them as the brush
                // was textured before it was displaced, so they take the first base's texture.
                None => match run.first() {
                    Some(first) => {
                        self.texture_of(&mut side, first.texinfo, DVec3::ZERO);
                    }
                    None => untextured(&mut side, plane.normal, "tools/toolsnodraw"),
                },
            }
            sides.push(side);
        }
        let (mins, maxs) = bounds(planes.iter().flat_map(|(_, w)| w.points.iter()), DVec3::ZERO);
        Some(OutSolid {
            id: self.ids.next(),
            sides,
            mins,
            maxs,
        })
    }
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
