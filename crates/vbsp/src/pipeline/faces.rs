//! Faces: the world's, the detail brushes', the brush models' and the occluders'.

use std::collections::HashMap;

use srcmap_geom::{Bounds, PlaneSet};

use crate::brush::Brush;
use crate::texinfo::Texinfos;

use super::{Compile, SubModel};
use crate::diag::{Diagnostic, VbspError, Where};
use crate::dump;
use crate::faces::{self, Face};
use crate::ids::{SideRef, TexinfoId};
use crate::occluders;
use crate::portals;
use crate::tree::{self, Pass, Tree};
use crate::types::Ent;
use crate::verify;
use crate::water;

impl<'a> Compile<'a> {
    /// The world's faces are convex polygons naming what exists.
    pub fn verify_world_faces(&mut self) -> Result<(), VbspError> {
        self.checkpoint(
            "faces",
            |c| verify::faces(&c.world_faces, &c.planes, &c.tex, &c.tree),
            |c| dump::faces(&c.world_faces, &c.planes),
        )
    }

    /// The detail faces (and the tree they were filed into).
    pub fn verify_detail_faces(&mut self) -> Result<(), VbspError> {
        self.checkpoint(
            "detail faces",
            |c| {
                verify::tree(&c.tree, &c.planes, c.brushes.len())?;
                verify::faces(&c.detail_faces, &c.planes, &c.tex, &c.tree)
            },
            |c| dump::faces(&c.detail_faces, &c.planes),
        )
    }

    /// The brush models' trees and faces.
    pub fn verify_brush_models(&mut self) -> Result<(), VbspError> {
        self.checkpoint(
            "brush models",
            |c| {
                c.sub_models.iter().try_for_each(|m| {
                    verify::tree(&m.tree, &c.planes, c.brushes.len())?;
                    verify::faces(&m.faces, &c.planes, &c.tex, &m.tree)
                })
            },
            |c| {
                let mut out = String::new();
                for (i, m) in c.sub_models.iter().enumerate() {
                    out += &format!("model {}\n", i + 1);
                    out += &dump::tree(&m.tree, &c.planes);
                    out += &dump::faces(&m.faces, &c.planes);
                }
                out
            },
        )
    }

    /// The world's faces from its portals, merged and subdivided.
    pub fn make_world_faces(&mut self) {
        let faces = faces::make_faces(&self.tree, &self.portals, &self.brushes, true);
        let faces = self.draw_water_undersides(faces);
        let faces = faces::merge_faces(faces, &self.planes, &self.overlays_by_side);
        self.world_faces = faces::subdivide_faces(faces, &self.tex);
    }

    /// Valve's `AssignBottomWaterMaterialToFace`: a water surface seen from below shows the
    /// water material's `$bottommaterial` (same axes and flags); without one it is not drawn,
    /// with a warning unless the water side is nodraw or skip.
    fn draw_water_undersides(&mut self, faces: Vec<Face>) -> Vec<Face> {
        let mut bottoms: HashMap<TexinfoId, Option<TexinfoId>> = HashMap::new();
        let mut out = Vec::with_capacity(faces.len());
        for mut f in faces {
            if !f.water_underside {
                out.push(f);
                continue;
            }
            let bottom = match bottoms.get(&f.texinfo) {
                Some(&known) => known,
                None => {
                    let bottom = self.bottom_texinfo(f.texinfo);
                    bottoms.insert(f.texinfo, bottom);
                    bottom
                }
            };
            if let Some(texinfo) = bottom {
                f.texinfo = texinfo;
                out.push(f);
            }
        }
        out
    }

    /// The texinfo of a water surface seen from below: its material's `$bottommaterial`
    /// with the same axes and flags; `None` without one (reported unless the water side
    /// is nodraw or skip).
    fn bottom_texinfo(&mut self, texinfo: TexinfoId) -> Option<TexinfoId> {
        let texinfo = self.tex.list[texinfo.idx()];
        let material = u32::try_from(texinfo.texdata)
            .map(|td| self.tex.original_material(td).to_string())
            .unwrap_or_default();
        let Some(name) = self.opts.materials.bottom_material(&material) else {
            let lower = material.to_ascii_lowercase();
            if !lower.contains("nodraw") && !lower.contains("toolsskip") {
                self.diags.push(Diagnostic::warning(
                    Where::default(),
                    format!(
                        "material {material} has no $bottommaterial (give -game DIR or --materials TABLE): \
                         its water surface is not drawn from below"
                    ),
                ));
            }
            return None;
        };
        let facts = self.opts.materials.resolve(&name).facts;
        let td = self.tex.texdata(&name, &facts);
        Some(self.tex.add(srcmap_bsp::TexInfo {
            texdata: td as i32,
            ..texinfo
        }))
    }

    /// Detail brushes' faces (and the detail brushes filed into the leaves they touch).
    pub fn make_detail_faces(&mut self) {
        self.detail_faces = faces::detail_faces(&mut self.tree, &self.planes, &self.brushes, &self.detail);
    }

    /// Detail faces merged, subdivided and filed into the leaves that see them.
    pub fn merge_detail_faces(&mut self) {
        let faces = std::mem::take(&mut self.detail_faces);
        let faces = faces::merge_faces(faces, &self.planes, &self.overlays_by_side);
        let mut faces = faces::subdivide_faces(faces, &self.tex);
        faces::filter_into_leaves(&self.tree, &self.planes, &mut faces);
        self.detail_faces = faces;
    }

    /// Each brush entity's tree and faces, built in parallel; the sides their portals show
    /// are marked visible for the brush lump.
    pub fn build_brush_models(&mut self) {
        use rayon::prelude::*;
        let sub: Vec<&Ent> = self
            .ents
            .iter()
            .filter(|e| e.model.is_some_and(|m| m > 0))
            .collect();
        let (brushes, planes, tex) = (&self.brushes, &self.planes, &self.tex);
        let built: Vec<BuiltModel> = sub
            .par_iter()
            .map(|e| build_model(planes, brushes, tex, e))
            .collect();
        let mut sides_visible: Vec<SideRef> = Vec::new();
        for m in built {
            sides_visible.extend(m.visible);
            let f = self.draw_water_undersides(m.faces);
            let f = faces::merge_faces(f, &self.planes, &self.overlays_by_side);
            let faces = faces::subdivide_faces(f, &self.tex);
            self.sub_models.push(SubModel {
                tree: m.tree,
                faces,
                water: m.water.data,
            });
        }
        for s in sides_visible {
            self.brushes[s.brush.idx()].sides[s.side as usize].visible = true;
        }
    }

    /// The func_occluder brushes' own tree and faces (Valve's ClipOccluderBrushes); an
    /// occluder without brushes still gets its (empty) record, as in Valve's lump.
    pub fn make_occluder_faces(&mut self) {
        for (n, &ei) in self.occluder_entities.iter().enumerate() {
            if self.occluder_brushes[n].is_empty() {
                let e = &self.input.entities[ei];
                let at = Where {
                    entity_id: Some(e.id),
                    classname: Some(e.classname.clone()),
                    ..Default::default()
                };
                self.diags.push(Diagnostic::warning(
                    at,
                    "func_occluder has no brushes: it occludes nothing",
                ));
            }
        }
        self.occluder_faces =
            occluders::build(&self.planes, &self.brushes, &self.tex, &self.occluder_brushes);
    }
}

/// A brush model's tree, faces (not yet merged), visible sides and water volumes.
struct BuiltModel {
    tree: Tree,
    faces: Vec<Face>,
    /// The sides its portals show: visible for the brush lump.
    visible: Vec<SideRef>,
    water: water::WaterVolumes,
}

/// A brush entity's tree (without the flood), its portals, faces and water volumes.
fn build_model(planes: &PlaneSet, brushes: &[Brush], tex: &Texinfos, e: &Ent) -> BuiltModel {
    let mut b = Bounds::EMPTY;
    for &i in &e.brushes {
        b = b.union(&brushes[i.idx()].bounds);
    }
    let mut tree = tree::build_tree(planes, brushes, &e.brushes, Pass::First, b, false);
    let mut p = portals::make_portals(&mut tree, planes);
    let visible = portals::portal_sides(&tree, planes, &mut p, brushes);
    let faces = faces::make_faces(&tree, &p, brushes, false);
    let water = water::find_volumes(&tree, &p, planes, brushes, tex);
    BuiltModel {
        tree,
        faces,
        visible,
        water,
    }
}
