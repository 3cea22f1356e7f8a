//! Map brushes: planes from side points, windings, contents, bevels, validation.

use srcmap_geom::{Bounds, DVec3, Plane, PlaneId, PlaneSet, Winding, polyhedron_faces};

use crate::contents::*;
use crate::diag::{Diagnostic, Where};
use crate::ids::{EntityId, TexinfoId};
use crate::input::MapBrush;

/// Coordinates beyond this are outside Source's world (`MAX_COORD_INTEGER`).
pub const MAX_COORD: f64 = 16384.0;

/// One brush of the map, as the BSP's brush lump will store it.
#[derive(Debug, Clone)]
pub struct Brush {
    /// The entity (after preprocessing) the brush belongs to.
    pub entity: EntityId,
    pub vmf_id: i64,
    pub contents: u32,
    /// Sides in Valve's order: the six axial planes first (as present or added as bevels),
    /// then the other sides, then edge bevels.
    pub sides: Vec<BrushSide>,
    pub bounds: Bounds,
}

#[derive(Debug, Clone)]
pub struct BrushSide {
    pub plane: PlaneId,
    pub texinfo: TexinfoId,
    pub surf: u32,
    pub winding: Option<Winding>,
    pub bevel: bool,
    pub vmf_id: i64,
    pub displacement: bool,
    /// Some portal between different contents lies on this side (set by the first pass).
    pub visible: bool,
}

/// A side before texinfo is known: plane, material facts and the VMF side index.
pub struct RawSide {
    pub plane: PlaneId,
    pub contents: u32,
    pub surf: u32,
    pub texinfo: TexinfoId,
    pub vmf_id: i64,
    pub displacement: bool,
}

/// Build a brush from its sides, as Valve's `ParseBrush`: drop duplicate and mirrored
/// planes (reported), make windings, compute contents and bounds, add bevels. `None`
/// (with a diagnostic) for a brush that cannot be built.
pub fn build_brush(
    planes: &mut PlaneSet,
    entity: EntityId,
    entity_where: &Where,
    src: &MapBrush,
    sides: Vec<RawSide>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Brush> {
    let mut report = BrushReport::new(src, entity_where, diags);
    let kept = report.distinct_sides(sides)?;
    let plane_values: Vec<Plane> = kept.iter().map(|s| *planes.get(s.plane)).collect();
    let windings = polyhedron_faces(&plane_values);
    let bounds = report.checked_bounds(&windings)?;
    report.warn_redundant_sides(&kept, &windings);
    let contents = brush_contents(&kept);
    let mut sides: Vec<BrushSide> = kept
        .into_iter()
        .zip(windings)
        .map(|(s, w)| s.with_winding(w))
        .collect();
    add_bevels(planes, &mut sides, &bounds);
    Some(Brush {
        entity,
        vmf_id: src.id,
        contents,
        sides,
        bounds,
    })
}

impl RawSide {
    /// The brush side of this raw side with its polygon (`None` when redundant).
    fn with_winding(self, winding: Option<Winding>) -> BrushSide {
        BrushSide {
            plane: self.plane,
            texinfo: self.texinfo,
            surf: self.surf,
            winding,
            bevel: false,
            vmf_id: self.vmf_id,
            displacement: self.displacement,
            visible: false,
        }
    }
}

/// Where [`build_brush`] reports a brush's problems.
struct BrushReport<'a> {
    src: &'a MapBrush,
    entity_where: &'a Where,
    diags: &'a mut Vec<Diagnostic>,
}

impl<'a> BrushReport<'a> {
    fn new(src: &'a MapBrush, entity_where: &'a Where, diags: &'a mut Vec<Diagnostic>) -> BrushReport<'a> {
        BrushReport {
            src,
            entity_where,
            diags,
        }
    }

    /// The brush, or one of its sides by VMF id.
    fn at(&self, side: Option<i64>) -> Where {
        Where {
            brush: Some(self.src.id),
            side,
            ..self.entity_where.clone()
        }
    }

    /// The sides with duplicate planes removed (warned about); `None` (reported) when a
    /// plane is mirrored or fewer than four planes remain.
    fn distinct_sides(&mut self, sides: Vec<RawSide>) -> Option<Vec<RawSide>> {
        let mut kept: Vec<RawSide> = Vec::with_capacity(sides.len());
        for s in sides {
            if kept.iter().any(|k| k.plane == s.plane) {
                let at = self.at(Some(s.vmf_id));
                self.diags
                    .push(Diagnostic::warning(at, "duplicate plane, side removed"));
                continue;
            }
            if kept.iter().any(|k| k.plane == s.plane.flipped()) {
                let at = self.at(Some(s.vmf_id));
                self.diags.push(Diagnostic::error(
                    at,
                    "mirrored plane (brush has no volume), brush skipped",
                ));
                return None;
            }
            kept.push(s);
        }
        if kept.len() < 4 {
            self.diags.push(Diagnostic::error(
                self.at(None),
                format!("brush has only {} distinct planes, skipped", kept.len()),
            ));
            return None;
        }
        Some(kept)
    }

    /// The bounds of the brush's windings; `None` (reported) when the brush encloses no
    /// volume or reaches outside the world.
    fn checked_bounds(&mut self, windings: &[Option<Winding>]) -> Option<Bounds> {
        let mut bounds = Bounds::EMPTY;
        let mut faces = 0;
        for w in windings.iter().flatten() {
            faces += 1;
            for &p in &w.points {
                bounds.add_point(p);
            }
        }
        if faces < 4 || bounds.is_empty() || bounds.size().min_element() < 0.01 {
            self.diags.push(Diagnostic::error(
                self.at(None),
                "brush encloses no volume (not convex or inside-out), skipped",
            ));
            return None;
        }
        if bounds.mins.min_element() < -MAX_COORD || bounds.maxs.max_element() > MAX_COORD {
            self.diags.push(Diagnostic::error(
                self.at(None),
                "brush bounds out of range, skipped",
            ));
            return None;
        }
        Some(bounds)
    }

    /// Warn about sides without a winding, except hint and skip sides.
    fn warn_redundant_sides(&mut self, kept: &[RawSide], windings: &[Option<Winding>]) {
        for (s, w) in kept.iter().zip(windings) {
            if w.is_none() && s.surf & (SURF_HINT | SURF_SKIP) == 0 {
                let at = self.at(Some(s.vmf_id));
                self.diags.push(Diagnostic::warning(
                    at,
                    "side does not touch the brush (redundant plane)",
                ));
            }
        }
    }
}

/// Valve's `BrushContents`: the first side's contents; any transparent contents on a
/// side make the brush translucent and not solid.
fn brush_contents(kept: &[RawSide]) -> u32 {
    let mut contents = kept[0].contents;
    let union = kept.iter().fold(0, |a, s| a | s.contents);
    let transparent = union & (CONTENTS_WINDOW | CONTENTS_GRATE | CONTENTS_WATER | CONTENTS_SLIME);
    if transparent != 0 {
        contents = (contents | transparent | CONTENTS_TRANSLUCENT) & !CONTENTS_SOLID;
    }
    let surf_all = kept.iter().fold(0, |a, s| a | s.surf);
    if surf_all & SURF_TRANS != 0 && contents & CONTENTS_SOLID != 0 {
        // A see-through material (game content only): a window, not a wall.
        contents = (contents & !CONTENTS_SOLID) | CONTENTS_WINDOW | CONTENTS_TRANSLUCENT;
    }
    contents
}

/// Valve's `AddBrushBevels`: axial planes first (existing sides moved into place, missing
/// ones added as bevels at the bounds), then bevels along non-axial edges, so that box
/// traces against the brush stop at the right place.
fn add_bevels(planes: &mut PlaneSet, sides: &mut Vec<BrushSide>, bounds: &Bounds) {
    let template = sides[0].clone();
    add_axial_bevels(planes, sides, bounds, &template);
    if sides.len() == 6 {
        return;
    }
    let n_sides = sides.len();
    for i in 6..n_sides {
        let Some(w) = sides[i].winding.clone() else {
            continue;
        };
        for j in 0..w.points.len() {
            let k = (j + 1) % w.points.len();
            add_edge_bevels(planes, sides, &template, w.points[j], w.points[k]);
        }
    }
}

/// A bevel side on `plane`, with the material facts of `template` (the brush's first side).
fn bevel_side(template: &BrushSide, plane: PlaneId) -> BrushSide {
    BrushSide {
        plane,
        winding: None,
        bevel: true,
        vmf_id: -1,
        displacement: false,
        visible: false,
        ..template.clone()
    }
}

/// Put a side on each axial plane (-x, +x, -y, +y, -z, +z) first: an existing side is
/// swapped into place, a missing one added as a bevel at the bounds.
fn add_axial_bevels(
    planes: &mut PlaneSet,
    sides: &mut Vec<BrushSide>,
    bounds: &Bounds,
    template: &BrushSide,
) {
    let mut order = 0;
    for axis in 0..3 {
        for dir in [-1.0, 1.0] {
            let Some(i) = axial_side(planes, sides, bounds, template, axis, dir) else {
                continue;
            };
            if i != order {
                sides.swap(i, order);
            }
            order += 1;
        }
    }
}

/// The index of the side facing `dir` along `axis`, added as a bevel at the bounds when the
/// brush has none; `None` when the plane table is full.
fn axial_side(
    planes: &mut PlaneSet,
    sides: &mut Vec<BrushSide>,
    bounds: &Bounds,
    template: &BrushSide,
    axis: usize,
    dir: f64,
) -> Option<usize> {
    if let Some(i) = sides.iter().position(|s| planes.get(s.plane).normal[axis] == dir) {
        return Some(i);
    }
    let mut normal = DVec3::ZERO;
    normal[axis] = dir;
    let dist = if dir > 0.0 {
        bounds.maxs[axis]
    } else {
        -bounds.mins[axis]
    };
    let id = planes.find_or_insert(Plane::new(normal, dist))?;
    sides.push(bevel_side(template, id));
    Some(sides.len() - 1)
}

/// Bevels along the edge from `a` to `b` of a non-axial side, when the edge is long enough
/// and not axial: each plane through the edge and an axis that has the whole brush behind it.
fn add_edge_bevels(
    planes: &mut PlaneSet,
    sides: &mut Vec<BrushSide>,
    template: &BrushSide,
    a: DVec3,
    b: DVec3,
) {
    let mut vec = a - b;
    if vec.length() < 0.5 {
        return;
    }
    vec = vec.normalize();
    srcmap_geom::snap_normal(&mut vec);
    if (0..3).any(|a| vec[a] == 1.0 || vec[a] == -1.0) {
        return; // only non-axial edges need bevels
    }
    for axis in 0..3 {
        for dir in [-1.0, 1.0] {
            let Some(candidate) = edge_axis_plane(vec, axis, dir, a) else {
                continue;
            };
            if !is_outer_bevel(planes, sides, &candidate) {
                continue;
            }
            if let Some(id) = planes.find_or_insert(candidate) {
                sides.push(bevel_side(template, id));
            }
        }
    }
}

/// The plane through point `a` containing the edge direction `vec` and the axis `dir`
/// along `axis`; `None` when the edge is nearly along that axis.
fn edge_axis_plane(vec: DVec3, axis: usize, dir: f64, a: DVec3) -> Option<Plane> {
    let mut v2 = DVec3::ZERO;
    v2[axis] = dir;
    let normal = vec.cross(v2);
    if normal.length() < 0.5 {
        return None;
    }
    let normal = normal.normalize();
    let dist = a.dot(normal);
    Some(Plane::new(normal, dist))
}

/// A proper edge bevel has every point of the brush behind it (and is no side's plane).
fn is_outer_bevel(planes: &PlaneSet, sides: &[BrushSide], candidate: &Plane) -> bool {
    sides.iter().all(|s| {
        if planes.get(s.plane).approx_eq(candidate, 0.01, 0.01) {
            return false;
        }
        s.winding
            .as_ref()
            .is_none_or(|w2| w2.points.iter().all(|&p| candidate.distance(p) <= 0.1))
    })
}
