//! Brushes: planes, texinfos, windings, contents, bevels; blend and shiny sides patched;
//! displacement sides set aside.

use std::collections::HashMap;

use srcmap_geom::{DVec3, PlaneId};

use super::Compile;
use super::entities::{EntityPlan, Owner};
use crate::brush::{self, Brush, BrushSide};
use crate::contents::*;
use crate::cubemap;
use crate::diag::{Diagnostic, VbspError, Where, check_limit};
use crate::displacement::{self, DispSide};
use crate::dump;
use crate::ids::{BrushId, EntityId};
use crate::input::{MapBrush, MapEntity, MapSide};
use crate::texinfo::texinfo_for;
use crate::types::set_kv;
use crate::verify;
use crate::wvt;

/// An entity whose brushes are being built, and what they share.
struct EntityBrushes<'a, 'p> {
    /// Its index among the input entities.
    index: usize,
    entity: &'a MapEntity,
    plan: &'p EntityPlan,
    owner: EntityId,
    /// Where its brushes are moved from: its origin for a brush entity.
    offset: DVec3,
    at: Where,
}

impl<'a, 'p> EntityBrushes<'a, 'p> {
    fn new(index: usize, entity: &'a MapEntity, plan: &'p EntityPlan, owner: EntityId) -> Self {
        EntityBrushes {
            index,
            entity,
            plan,
            owner,
            // Brush entities with an origin are built around it (the engine moves the model).
            offset: if owner != EntityId::WORLD {
                entity.origin().unwrap_or(DVec3::ZERO)
            } else {
                DVec3::ZERO
            },
            at: Where {
                entity_id: Some(entity.id),
                classname: Some(entity.classname.clone()),
                ..Default::default()
            },
        }
    }
}

impl<'a> Compile<'a> {
    /// The brushes' sides name planes and texinfos that exist.
    pub fn verify_brushes(&mut self) -> Result<(), VbspError> {
        self.checkpoint(
            "brushes",
            |c| verify::brushes(&c.brushes, &c.planes, &c.tex),
            |c| dump::brushes(&c.brushes, &c.planes),
        )
    }

    /// Builds every kept entity's brushes: planes, texinfos, windings, contents, bevels.
    pub fn build_brushes(&mut self) -> Result<(), VbspError> {
        let mut materials = HashMap::new();
        let plans = std::mem::take(&mut self.plans);
        let input = self.input;
        for ((ei, e), plan) in input.entities.iter().enumerate().zip(&plans) {
            let owner = match plan.owner {
                Owner::Dropped => continue,
                Owner::World => EntityId::WORLD,
                Owner::Own(id) => id,
            };
            let entity = EntityBrushes::new(ei, e, plan, owner);
            for mb in &e.brushes {
                self.build_brush(&entity, mb, &mut materials);
            }
        }
        check_limit("brushes", self.brushes.len(), 8192)
    }

    /// One brush of an entity: built (or reported and skipped), its blend and shiny sides
    /// patched, then filed where it belongs.
    fn build_brush(
        &mut self,
        entity: &EntityBrushes<'a, '_>,
        mb: &'a MapBrush,
        materials: &mut HashMap<String, MaterialFacts>,
    ) {
        let Some(raw) = self.raw_sides(entity, mb, materials) else {
            return;
        };
        let Some(mut b) = brush::build_brush(
            &mut self.planes,
            entity.owner,
            &entity.at,
            mb,
            raw,
            &mut self.diags,
        ) else {
            return;
        };
        // Valve patches blend materials before cubemaps: a shiny blend side gets a
        // cubemap patch of its `_wvt_patch` copy.
        self.patch_wvt_sides(&mut b, &entity.at);
        if !self.cubemaps.is_empty() {
            self.attach_cubemaps(&mut b, entity.offset, &entity.at);
        }
        self.file_brush(entity, mb, b);
    }

    /// A brush's sides as planes, texinfos and contents; `None` (reported) when a side's
    /// numbers are not finite or span no plane.
    fn raw_sides(
        &mut self,
        entity: &EntityBrushes<'_, '_>,
        mb: &MapBrush,
        materials: &mut HashMap<String, MaterialFacts>,
    ) -> Option<Vec<brush::RawSide>> {
        let mut raw = Vec::with_capacity(mb.sides.len());
        for s in &mb.sides {
            let plane = self.side_plane(s, entity.offset, || Where {
                brush: Some(mb.id),
                side: Some(s.id),
                ..entity.at.clone()
            })?;
            // Unknown materials are warned about once each by the resolver itself.
            let info = *materials
                .entry(s.material.clone())
                .or_insert_with(|| self.opts.materials.resolve(&s.material).facts);
            self.has_water |= info.contents & (CONTENTS_WATER | CONTENTS_SLIME) != 0;
            let td = self.tex.texdata(&s.material, &info);
            let ti = self
                .tex
                .add(texinfo_for(s, entity.offset, info.surface_flags, td));
            raw.push(brush::RawSide {
                plane,
                contents: side_contents(info.contents, entity.plan.base_contents, info.surface_flags),
                surf: info.surface_flags,
                texinfo: ti,
                vmf_id: s.id,
                displacement: s.displacement.is_some(),
            });
        }
        Some(raw)
    }

    /// A side's plane from its points (moved by `offset`); `None`, reported at `side_at`,
    /// when its numbers are not finite or its points span no plane.
    fn side_plane(&mut self, s: &MapSide, offset: DVec3, side_at: impl FnOnce() -> Where) -> Option<PlaneId> {
        let pts = s.points.map(|p| p - offset);
        let axes_finite = [&s.uaxis, &s.vaxis]
            .iter()
            .all(|a| a.axis.is_finite() && a.shift.is_finite() && a.scale.is_finite());
        let why = if !pts.iter().all(|p| p.is_finite()) || !axes_finite || !s.lightmap_scale.is_finite() {
            "plane points, texture axes or lightmap scale are not finite numbers \
             (NaN or infinite), brush skipped"
        } else {
            match srcmap_geom::Plane::from_points_snapped(pts[0], pts[1], pts[2]) {
                None => "bad plane points (collinear), brush skipped",
                Some(plane) => match self.planes.find_or_insert(plane) {
                    Some(pid) => return Some(pid),
                    None => "plane points span no usable plane, brush skipped",
                },
            }
        };
        self.diags.push(Diagnostic::error(side_at(), why));
        None
    }

    /// Files a built brush: an origin brush places its entity, displacement sides are set
    /// aside, a func_viscluster's bounds kept, an occluder's brush left out of every model;
    /// the rest join their model (areaportals and windows with their contents set).
    fn file_brush(&mut self, entity: &EntityBrushes<'a, '_>, mb: &'a MapBrush, mut b: Brush) {
        let (owner, plan) = (entity.owner, entity.plan);
        if b.contents & CONTENTS_ORIGIN != 0 {
            self.place_by_origin_brush(entity, &b);
            return;
        }
        if b.sides.iter().any(|s| s.displacement) {
            self.gather_displacements(owner, &entity.at, mb, &b);
            return;
        }
        if plan.class == "func_viscluster" {
            self.viscluster_bounds.push((entity.index, b.bounds));
            return;
        }
        let id = BrushId(self.brushes.len() as u32);
        if let Some(n) = plan.occluder {
            // Occluder brushes stay in the brush lump but belong to no model.
            self.occluder_brushes[n].push(id);
            self.brushes.push(b);
            return;
        }
        if let Some(number) = plan.areaportal {
            self.portal_number.insert(id, number);
        }
        b.contents = model_brush_contents(b.contents, plan, owner);
        self.ents[owner.idx()].brushes.push(id);
        self.brushes.push(b);
    }

    /// Origin brushes only place their entity: a brush entity without an `origin` gets the
    /// brush's centre.
    fn place_by_origin_brush(&mut self, entity: &EntityBrushes<'_, '_>, b: &Brush) {
        let owner = entity.owner;
        if owner != EntityId::WORLD && entity.entity.get("origin").is_none() {
            let c = b.bounds.center();
            let v = format!("{} {} {}", c.x as i64, c.y as i64, c.z as i64);
            set_kv(&mut self.ents[owner.idx()].keyvalues, "origin", v);
        }
    }

    /// Moves each non-displacement side (bevels included, as Valve's side list holds them) of a
    /// WorldVertexTransition material to its `_wvt_patch` copy (module `wvt`), whose VMT goes
    /// in the pakfile once.
    fn patch_wvt_sides(&mut self, brush: &mut Brush, at: &Where) {
        for side in brush.sides.iter_mut().filter(|s| !s.displacement) {
            let texinfo = self.tex.list[side.texinfo.idx()];
            let Ok(texdata) = u32::try_from(texinfo.texdata) else {
                continue;
            };
            let patched = match self.wvt_texdata.get(&texdata) {
                Some(&known) => known,
                None => {
                    let patched = self.wvt_patch(texdata, at);
                    self.wvt_texdata.insert(texdata, patched);
                    patched
                }
            };
            if let Some(patched) = patched {
                side.texinfo = self.tex.add(srcmap_bsp::TexInfo {
                    texdata: patched as i32,
                    ..texinfo
                });
            }
        }
    }

    /// The `_wvt_patch` copy of a texdata whose material the resolver knows the patch of
    /// (made, with its pakfile VMT, the first time); `None` for other materials, a copy
    /// already patched, or a name too long (reported).
    fn wvt_patch(&mut self, texdata: u32, at: &Where) -> Option<u32> {
        let material = self.tex.strings[texdata as usize].clone();
        let text = self.opts.materials.wvt_patch(&material)?;
        // A copy already patched is not patched again.
        if wvt::is_patched(&material) {
            return None;
        }
        let Some(name) = wvt::patched_name(&self.opts.map_name, &material) else {
            self.diags.push(Diagnostic::warning(
                at.clone(),
                format!(
                    "the WorldVertexTransition patch of {material} would have too long a name; not patched"
                ),
            ));
            return None;
        };
        let (patched, new) = self.tex.clone_texdata(texdata, &name);
        if new {
            // The cubemap step reads the patched copy's own `$envmap`.
            let shiny = srcmap_materials::vmt_text_uses_env_cubemap(&text);
            self.shiny_texdata.insert(patched, shiny);
            self.patch_files.push(wvt::patch_file(&name, text));
        }
        Some(patched)
    }

    /// Moves each side of a material with `$envmap env_cubemap` to a patched copy naming its
    /// cubemap (module `cubemap`). `offset` is where the brush was moved from (its windings
    /// are around its entity's origin; the nearest cubemap is found in the world).
    fn attach_cubemaps(&mut self, brush: &mut Brush, offset: DVec3, at: &Where) {
        for side in brush.sides.iter_mut().filter(|s| !s.bevel) {
            let texinfo = self.tex.list[side.texinfo.idx()];
            let Ok(texdata) = u32::try_from(texinfo.texdata) else {
                continue;
            };
            let material = &self.tex.strings[texdata as usize];
            let shiny = *self
                .shiny_texdata
                .entry(texdata)
                .or_insert_with(|| self.opts.materials.uses_env_cubemap(material));
            if !shiny {
                continue;
            }
            let centre = side.winding.as_ref().map(|w| w.center() + offset);
            let normal = self.planes.get(side.plane).normal;
            let Some(chosen) = self.cubemaps.for_side(side.vmf_id, centre, normal) else {
                continue;
            };
            let side_at = Where {
                brush: Some(brush.vmf_id),
                side: Some(side.vmf_id),
                ..at.clone()
            };
            if let Some(patched) = self.cubemap_patch(texdata, chosen, side_at) {
                side.texinfo = self.tex.add(srcmap_bsp::TexInfo {
                    texdata: patched as i32,
                    ..texinfo
                });
            }
        }
    }

    /// The copy of a texdata naming cubemap `chosen` (made, with its pakfile VMT and cube
    /// map texture name, the first time); `None` when the name would be too long
    /// (reported at `side_at`).
    fn cubemap_patch(&mut self, texdata: u32, chosen: usize, side_at: Where) -> Option<u32> {
        let origin = self.cubemaps.samples[chosen].origin;
        let material = self.tex.strings[texdata as usize].clone();
        let Some(name) = cubemap::patched_name(&self.opts.map_name, &material, origin) else {
            self.diags.push(Diagnostic::warning(
                side_at,
                format!("the env_cubemap patch of {material} would have too long a name; not patched"),
            ));
            return None;
        };
        let (patched, new) = self.tex.clone_texdata(texdata, &name);
        if new {
            let (path, text) = cubemap::patch_file(&self.opts.map_name, &material, &name, origin);
            self.patch_files.push((path, text));
            let texture = cubemap::texture_name(&self.opts.map_name, origin);
            if !self.cubemap_textures.contains(&texture) {
                self.cubemap_textures.push(texture);
            }
        }
        Some(patched)
    }

    /// A displacement brush's displacement sides, in map order. Displacements belong to the
    /// world: on any other entity they are reported and left out (Valve stops there).
    fn gather_displacements(&mut self, owner: EntityId, at: &Where, mb: &'a MapBrush, b: &Brush) {
        // Map order: the brush's sides as the map lists them (its built sides are reordered).
        let in_map_order = mb
            .sides
            .iter()
            .filter(|m| m.displacement.is_some())
            .filter_map(|m| b.sides.iter().find(|s| s.vmf_id == m.id && s.displacement));
        for s in in_map_order {
            let side_at = Where {
                brush: Some(mb.id),
                side: Some(s.vmf_id),
                ..at.clone()
            };
            if owner != EntityId::WORLD {
                self.diags.push(Diagnostic::error(
                    side_at,
                    "displacement on a brush entity is not supported (only the world and func_detail); left out",
                ));
                continue;
            }
            if let Some(side) = self.disp_side(mb, b, s, side_at) {
                self.disp_sides.push(side);
            }
        }
    }

    /// The side's base face as Valve's float clipping makes it, from the brush's planes in
    /// map order.
    fn float_winding(&self, mb: &MapBrush, b: &Brush, s: &BrushSide) -> Option<Vec<glam::Vec3>> {
        let planes: Vec<(DVec3, f64)> = mb
            .sides
            .iter()
            .filter_map(|m| b.sides.iter().find(|bs| bs.vmf_id == m.id && !bs.bevel))
            .map(|bs| {
                let p = self.planes.get(bs.plane);
                (p.normal, p.dist)
            })
            .collect();
        let own = self.planes.get(s.plane);
        displacement::float_side_winding(&planes, (own.normal, own.dist))
    }

    /// A displacement side of the world with its source, windings and contents; `None`
    /// (reported when it has no winding) when it cannot be one.
    fn disp_side(
        &mut self,
        mb: &'a MapBrush,
        b: &Brush,
        s: &BrushSide,
        side_at: Where,
    ) -> Option<DispSide<'a>> {
        let source = mb
            .sides
            .iter()
            .find(|m| m.id == s.vmf_id)
            .and_then(|m| m.displacement.as_deref())?;
        let Some(winding) = s.winding.clone() else {
            self.diags.push(Diagnostic::error(
                side_at,
                "displacement side has no winding; left out",
            ));
            return None;
        };
        let float_winding = self.float_winding(mb, b, s);
        Some(DispSide {
            at: side_at,
            plane: s.plane,
            texinfo: s.texinfo,
            winding,
            float_winding,
            contents: b.contents,
            hammer_id: s.vmf_id,
            source,
        })
    }

    /// Valve's EmitBrushes adds an axial side at the brush bounds wherever the brush has no
    /// side on exactly that plane (a redundant axial side elsewhere hides it from the bevel
    /// pass); such sides are written without the bevel flag, as Valve does.
    pub fn add_axial_sides(&mut self) {
        for b in &mut self.brushes {
            for axis in 0..3 {
                for dir in [-1.0, 1.0] {
                    let mut n = DVec3::ZERO;
                    n[axis] = dir;
                    let dist = if dir > 0.0 {
                        b.bounds.maxs[axis]
                    } else {
                        -b.bounds.mins[axis]
                    };
                    let Some(id) = self.planes.find_or_insert(srcmap_geom::Plane::new(n, dist)) else {
                        continue;
                    };
                    if b.sides.iter().all(|s| s.plane != id) {
                        let last = b.sides.last().cloned().expect("a brush has sides");
                        b.sides.push(BrushSide {
                            plane: id,
                            winding: None,
                            bevel: false,
                            vmf_id: -1,
                            ..last
                        });
                    }
                }
            }
        }
    }
}

/// A model brush's contents: an areaportal's are only that; a brush entity's are never
/// detail; a window's are translucent, not solid.
fn model_brush_contents(mut contents: u32, plan: &EntityPlan, owner: EntityId) -> u32 {
    if plan.areaportal.is_some() {
        contents = CONTENTS_AREAPORTAL;
    } else if owner != EntityId::WORLD {
        contents &= !CONTENTS_DETAIL;
    }
    if plan.window && plan.areaportal.is_none() {
        contents = (contents & !CONTENTS_SOLID) | CONTENTS_TRANSLUCENT | CONTENTS_WINDOW;
    }
    contents
}
