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
    let at = |side: Option<i64>| Where {
        brush: Some(src.id),
        side,
        ..entity_where.clone()
    };
    let mut kept: Vec<RawSide> = Vec::with_capacity(sides.len());
    for s in sides {
        if kept.iter().any(|k| k.plane == s.plane) {
            diags.push(Diagnostic::warning(
                at(Some(s.vmf_id)),
                "duplicate plane, side removed",
            ));
            continue;
        }
        if kept.iter().any(|k| k.plane == s.plane.flipped()) {
            diags.push(Diagnostic::error(
                at(Some(s.vmf_id)),
                "mirrored plane (brush has no volume), brush skipped",
            ));
            return None;
        }
        kept.push(s);
    }
    if kept.len() < 4 {
        diags.push(Diagnostic::error(
            at(None),
            format!("brush has only {} distinct planes, skipped", kept.len()),
        ));
        return None;
    }
    let plane_values: Vec<Plane> = kept.iter().map(|s| *planes.get(s.plane)).collect();
    let windings = polyhedron_faces(&plane_values);
    let mut bounds = Bounds::EMPTY;
    let mut faces = 0;
    for w in windings.iter().flatten() {
        faces += 1;
        for &p in &w.points {
            bounds.add_point(p);
        }
    }
    if faces < 4 || bounds.is_empty() || bounds.size().min_element() < 0.01 {
        diags.push(Diagnostic::error(
            at(None),
            "brush encloses no volume (not convex or inside-out), skipped",
        ));
        return None;
    }
    if bounds.mins.min_element() < -MAX_COORD || bounds.maxs.max_element() > MAX_COORD {
        diags.push(Diagnostic::error(at(None), "brush bounds out of range, skipped"));
        return None;
    }
    for (s, w) in kept.iter().zip(&windings) {
        if w.is_none() && s.surf & (SURF_HINT | SURF_SKIP) == 0 {
            diags.push(Diagnostic::warning(
                at(Some(s.vmf_id)),
                "side does not touch the brush (redundant plane)",
            ));
        }
    }

    // Valve's `BrushContents`: the first side's contents; any transparent contents on a
    // side make the brush translucent and not solid.
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

    let mut sides: Vec<BrushSide> = kept
        .into_iter()
        .zip(windings)
        .map(|(s, w)| BrushSide {
            plane: s.plane,
            texinfo: s.texinfo,
            surf: s.surf,
            winding: w,
            bevel: false,
            vmf_id: s.vmf_id,
            displacement: s.displacement,
            visible: false,
        })
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

/// Valve's `AddBrushBevels`: axial planes first (existing sides moved into place, missing
/// ones added as bevels at the bounds), then bevels along non-axial edges, so that box
/// traces against the brush stop at the right place.
fn add_bevels(planes: &mut PlaneSet, sides: &mut Vec<BrushSide>, bounds: &Bounds) {
    let template = sides[0].clone();
    let bevel_side = |plane: PlaneId| BrushSide {
        plane,
        winding: None,
        bevel: true,
        vmf_id: -1,
        displacement: false,
        visible: false,
        ..template.clone()
    };
    let mut order = 0;
    for axis in 0..3 {
        for dir in [-1.0, 1.0] {
            let found = sides.iter().position(|s| planes.get(s.plane).normal[axis] == dir);
            let i = match found {
                Some(i) => i,
                None => {
                    let mut normal = DVec3::ZERO;
                    normal[axis] = dir;
                    let dist = if dir > 0.0 {
                        bounds.maxs[axis]
                    } else {
                        -bounds.mins[axis]
                    };
                    let Some(id) = planes.find_or_insert(Plane::new(normal, dist)) else {
                        continue;
                    };
                    sides.push(bevel_side(id));
                    sides.len() - 1
                }
            };
            if i != order {
                sides.swap(i, order);
            }
            order += 1;
        }
    }
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
            let mut vec = w.points[j] - w.points[k];
            if vec.length() < 0.5 {
                continue;
            }
            vec = vec.normalize();
            srcmap_geom::snap_normal(&mut vec);
            if (0..3).any(|a| vec[a] == 1.0 || vec[a] == -1.0) {
                continue; // only non-axial edges need bevels
            }
            for axis in 0..3 {
                for dir in [-1.0, 1.0] {
                    let mut v2 = DVec3::ZERO;
                    v2[axis] = dir;
                    let normal = vec.cross(v2);
                    if normal.length() < 0.5 {
                        continue;
                    }
                    let normal = normal.normalize();
                    let dist = w.points[j].dot(normal);
                    let candidate = Plane::new(normal, dist);
                    // A proper edge bevel has every point of the brush behind it.
                    let outer = sides.iter().all(|s| {
                        if planes.get(s.plane).approx_eq(&candidate, 0.01, 0.01) {
                            return false;
                        }
                        s.winding
                            .as_ref()
                            .is_none_or(|w2| w2.points.iter().all(|&p| candidate.distance(p) <= 0.1))
                    });
                    if !outer {
                        continue;
                    }
                    if let Some(id) = planes.find_or_insert(candidate) {
                        sides.push(bevel_side(id));
                    }
                }
            }
        }
    }
}
