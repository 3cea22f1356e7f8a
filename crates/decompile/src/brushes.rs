//! Brushes back as solids: the non-bevel sides' planes, each side's winding on the brush,
//! plane points on it, and the side's material and texture axes.

use srcmap_bsp::BrushSide;
use srcmap_bsp::flags::{CONTENTS_DETAIL, CONTENTS_SOLID, CONTENTS_TRANSLUCENT};
use srcmap_geom::{DVec3, Plane, Winding, polyhedron_faces};
use srcmap_vmf::TextureAxis;

use crate::context::Ctx;
use crate::hidden::MadeSide;
use crate::points::plane_points;
use crate::texture;
use crate::tools::{flag_material, tool_material};
use crate::types::{OutSide, OutSolid, SideGeom, dvec};

/// Where a brush goes: its model, the model's origin (brush entities are built around it)
/// and the owning entity's class (for tool materials).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Placement<'a> {
    pub model: usize,
    pub offset: DVec3,
    pub class: &'a str,
}

impl Ctx<'_> {
    /// Brush `index` as a solid, or `None` (noted) when its sides enclose nothing.
    pub fn solid(&mut self, index: usize, at: Placement<'_>) -> Option<OutSolid> {
        let brush = self.bsp.brushes[index];
        let geoms = self.side_geoms(index);
        if geoms.len() < 4 {
            self.notes
                .push(format!("brush {index}: its sides enclose no volume; left out"));
            return None;
        }
        let contents = brush.contents as u32;
        let made: Vec<MadeSide> = geoms.iter().map(|g| self.side(g, contents, at)).collect();
        let sides = self.hidden_materials(made);
        let (mins, maxs) = bounds(geoms.iter().flat_map(|g| g.winding.points.iter()), at.offset);
        let id = self.ids.next();
        Some(OutSolid {
            id,
            sides,
            mins,
            maxs,
        })
    }

    /// The brush's sides with a winding, bevels left out.
    pub(crate) fn side_geoms(&self, index: usize) -> Vec<SideGeom> {
        let brush = &self.bsp.brushes[index];
        let first = usize::try_from(brush.first_side).unwrap_or(0);
        let sides: Vec<(usize, Plane)> = (self.bsp.sides_of(brush).enumerate())
            // The low byte: newer layouts keep a `thin` flag in the high one.
            .filter(|(_, s)| s.bevel & 0xff == 0)
            .filter_map(|(k, s)| Some((first + k, self.plane(s)?)))
            .collect();
        let planes: Vec<Plane> = sides.iter().map(|s| s.1).collect();
        let windings = polyhedron_faces(&planes);
        sides
            .into_iter()
            .zip(windings)
            .filter_map(|((index, plane), w)| {
                Some(SideGeom {
                    index,
                    plane,
                    winding: w?,
                })
            })
            .collect()
    }

    fn plane(&self, side: &BrushSide) -> Option<Plane> {
        let p = self.bsp.planes.get(side.plane as usize)?;
        let plane = Plane::new(dvec(p.normal), p.dist as f64);
        (plane.normal.length() > 0.5 && plane.dist.is_finite()).then_some(plane)
    }

    /// One side: its faces found (remembered for overlays), its texinfo (the side's own, else
    /// a face's), then material and axes from it, or a tool material.
    fn side(&mut self, g: &SideGeom, contents: u32, at: Placement<'_>) -> MadeSide {
        let bs = self.bsp.brush_sides[g.index];
        let id = self.ids.next();
        let faces = self.matched_faces(g, at.model, id);
        let moved = Winding::new(g.winding.points.iter().map(|p| *p + at.offset).collect());
        let plane = Plane::new(g.plane.normal, g.plane.dist + g.plane.normal.dot(at.offset));
        let mut side = OutSide::new(id, plane_points(&plane, &moved));
        side.smoothing_groups = faces
            .first()
            .map_or(0, |&f| self.bsp.faces[f as usize].smoothing_groups);
        side.hammer_id = (faces.iter())
            .find_map(|&f| self.bsp.face_ids.get(f as usize).copied())
            .filter(|&id| id != 0);
        let texinfo = self.side_texinfo(bs.texinfo, &faces);
        match texinfo {
            Some(t) => self.textured(&mut side, t, at.offset),
            None => untextured(&mut side, plane.normal, tool_material(contents, at.class)),
        }
        if side.material.eq_ignore_ascii_case("tools/toolsnodraw") && !plain_solid(contents) {
            // Valve's compiler stores clip, ladder and other tool sides as nodraw: the
            // brush's contents still say which tool it was.
            side.material = tool_material(contents, at.class).to_string();
        }
        let shown =
            !faces.is_empty() || (self.faces).shows(self.bsp, at.model, bs.plane, &g.plane, &g.winding);
        MadeSide { side, texinfo, shown }
    }

    /// The faces on a side, each remembered as cut from side `id` (unless another had it).
    fn matched_faces(&mut self, g: &SideGeom, model: usize, id: i64) -> Vec<u32> {
        let plane = self.bsp.brush_sides[g.index].plane;
        let faces = self.faces.faces_on(self.bsp, model, plane, &g.plane, &g.winding);
        for &f in &faces {
            self.face_sides.entry(f).or_insert(id);
        }
        faces
    }

    /// The side's own texinfo, else its first face's, when it exists.
    fn side_texinfo(&self, own: i32, faces: &[u32]) -> Option<usize> {
        let valid = |t: i32| usize::try_from(t).ok().filter(|&t| t < self.bsp.texinfo.len());
        let face = faces.first().map(|&f| self.bsp.faces[f as usize].texinfo);
        valid(own).or_else(|| face.and_then(valid))
    }

    /// Material and axes from texinfo `t`; a patched material's cubemap learns the side.
    pub fn textured(&mut self, side: &mut OutSide, t: usize, offset: DVec3) {
        if let Some(origin) = self.texture_of(side, t, offset) {
            self.cubemap_sides.entry(origin).or_default().push(side.id);
        }
    }

    /// Material and axes from texinfo `t`, and the cubemap whose patch the material was.
    pub fn texture_of(&self, side: &mut OutSide, t: usize, offset: DVec3) -> Option<[i32; 3]> {
        let info = self.bsp.texinfo[t];
        let ([u, v], lightmap_scale) = texture::axes(&info, offset);
        (side.uaxis, side.vaxis, side.lightmap_scale) = (u, v, lightmap_scale);
        let material = self.materials.of_texinfo(self.bsp, t as i32).cloned();
        let flagged = flag_material(info.flags as u32).unwrap_or("tools/toolsnodraw");
        match material {
            Some(m) if !m.name.is_empty() => {
                side.material = m.name;
                m.cubemap
            }
            _ => {
                side.material = flagged.to_string();
                None
            }
        }
    }
}

/// Contents a nodraw side gives: solid, perhaps detail.
fn plain_solid(contents: u32) -> bool {
    contents & !(CONTENTS_DETAIL | CONTENTS_TRANSLUCENT) == CONTENTS_SOLID
}

/// A side with no texinfo: `material`, Hammer's world-aligned axes for its facing.
pub(crate) fn untextured(side: &mut OutSide, normal: DVec3, material: &str) {
    side.material = material.to_string();
    let [u, v] = world_axes(normal);
    side.uaxis = TextureAxis {
        axis: u,
        shift: 0.0,
        scale: 0.25,
    };
    side.vaxis = TextureAxis {
        axis: v,
        shift: 0.0,
        scale: 0.25,
    };
}

/// Hammer's world alignment: floors and ceilings X/-Y, walls along their axis and -Z.
fn world_axes(n: DVec3) -> [[f64; 3]; 2] {
    let a = n.abs();
    if a.z >= a.x && a.z >= a.y {
        [[1.0, 0.0, 0.0], [0.0, -1.0, 0.0]]
    } else if a.x >= a.y {
        [[0.0, 1.0, 0.0], [0.0, 0.0, -1.0]]
    } else {
        [[1.0, 0.0, 0.0], [0.0, 0.0, -1.0]]
    }
}

/// The box around `points` moved by `offset`.
pub(crate) fn bounds<'p>(points: impl Iterator<Item = &'p DVec3>, offset: DVec3) -> (DVec3, DVec3) {
    let mut lo = DVec3::splat(f64::INFINITY);
    let mut hi = DVec3::splat(f64::NEG_INFINITY);
    for p in points {
        lo = lo.min(*p + offset);
        hi = hi.max(*p + offset);
    }
    (lo, hi)
}
