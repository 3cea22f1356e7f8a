//! The BSP records (Valve's EmitBrushes, EmitPlanes, the faces, nodes, leaves and models),
//! and the finishing steps whose data they need first: the water volumes, the
//! displacements' faces and the overlays' texinfos.

use super::Compile;
use crate::diag::{Diagnostic, VbspError, Where};
use crate::displacement;
use crate::dump;
use crate::emit::{self, ModelIn};
use crate::faces::Face;
use crate::occluders;
use crate::overlay;
use crate::types::Ent;
use crate::verify_bsp;
use crate::water;

impl<'a> Compile<'a> {
    /// The water volumes of the world and of the brush models (their records after the
    /// world's), a depth patch per surface material, and a default `water_lod_control`
    /// when the map has water and none. Before the records: the entity lump holds the
    /// control, and the patches go in the pakfile ahead of the cube maps'.
    pub fn find_water(&mut self) {
        let mut water =
            water::find_volumes(&self.tree, &self.portals, &self.planes, &self.brushes, &self.tex);
        for m in &self.sub_models {
            for &record in &m.water {
                water::add_record(&mut water.data, record);
            }
        }
        for (path, text) in water::depth_patches(&self.opts.map_name, &water.data, &self.tex) {
            super::add_pak_file(&mut self.patch_files, path, text);
        }
        self.add_water_lod_control();
        self.finish.water = water;
    }

    /// Valve's default `water_lod_control`, when the map has water and names none.
    pub(super) fn add_water_lod_control(&mut self) {
        let has_lod_control = self.ents.iter().any(|e| {
            e.keyvalues.iter().any(|(k, v)| {
                k.eq_ignore_ascii_case("classname") && v.eq_ignore_ascii_case("water_lod_control")
            })
        });
        if self.has_water && !has_lod_control {
            self.ents.push(Ent {
                vmf_id: -1,
                keyvalues: water::water_lod_control(),
                brushes: Vec::new(),
                model: None,
            });
        }
    }

    /// Each displacement side checked and its grid built (a bad one is reported and left
    /// out). Before the records: their base faces are the world's last faces.
    pub fn prepare_displacements(&mut self) {
        let sides = std::mem::take(&mut self.disp_sides);
        self.finish.disps = displacement::prepare(sides, &mut self.diags);
    }

    /// A texinfo for each overlay's material, after every face's texinfo as Valve makes
    /// them when it writes the overlays. Before the records: the texinfo lump holds them.
    pub fn add_overlay_texinfos(&mut self) {
        self.finish.overlay_texinfos = (0..self.overlays.len())
            .map(|i| {
                let material = self.overlays[i].material.clone();
                let info = self.opts.materials.resolve(&material).facts;
                let td = self.tex.texdata(&material, &info);
                self.tex.add(overlay::overlay_texinfo(td)).0
            })
            .collect();
    }

    /// The BSP records: planes, texinfos, brushes, areas, vertices, faces, the models'
    /// nodes and leaves, the occluders.
    pub fn emit_records(&mut self) -> Result<(), VbspError> {
        let world_faces = std::mem::take(&mut self.world_faces);
        let detail_faces = std::mem::take(&mut self.detail_faces);
        let models = self.models_to_emit(world_faces, detail_faces);
        let emitted = emit::emit(
            &self.planes,
            &self.brushes,
            &self.tex,
            models,
            &self.areas,
            &self.occluder_faces,
        )?;
        self.finish.bsp = emitted.bsp;
        self.opts.target.apply(&mut self.finish.bsp);
        self.finish.face_sides = emitted.face_sides;
        self.finish.world_leaves = emitted.world_leaves;
        Ok(())
    }

    /// The world (with its displacements' base faces) and each brush model, in order.
    fn models_to_emit(&self, world_faces: Vec<Face>, detail_faces: Vec<Face>) -> Vec<ModelIn<'_>> {
        let world = ModelIn {
            tree: &self.tree,
            faces: world_faces,
            detail_faces,
            disp_faces: self.finish.disps.iter().map(|d| d.base.clone()).collect(),
            clusters: Some(&self.clusters),
        };
        let sub_models = self.sub_models.iter().map(|m| ModelIn {
            tree: &m.tree,
            faces: m.faces.clone(),
            detail_faces: Vec::new(),
            disp_faces: Vec::new(),
            clusters: None,
        });
        std::iter::once(world).chain(sub_models).collect()
    }

    /// Each occluder's area; one that straddles areas is reported.
    pub fn assign_occluder_areas(&mut self) {
        let Some(occlusion) = &mut self.finish.bsp.occlusion else {
            return;
        };
        let straddling = occluders::assign_areas(
            occlusion,
            &self.finish.bsp.vertexes,
            &self.tree,
            &self.portals,
            &self.planes,
            &self.areas.of_node,
        );
        for (i, &ei) in self.occluder_entities.iter().enumerate() {
            let e = &self.input.entities[ei];
            if straddling.contains(&i) {
                let at = Where {
                    entity_id: Some(e.id),
                    classname: Some(e.classname.clone()),
                    ..Default::default()
                };
                let name = e.get("targetname").unwrap_or("<no name>");
                self.diags.push(Diagnostic::warning(
                    at,
                    format!("occluder \"{name}\" straddles multiple areas, which is invalid"),
                ));
            }
        }
    }

    /// The records' indices are in range: faces' edges and vertices, nodes' children,
    /// leaves' faces and brushes, models' faces and heads.
    pub fn verify_records(&mut self) -> Result<(), VbspError> {
        self.checkpoint(
            "records",
            |c| verify_bsp::records(&c.finish.bsp),
            |c| dump::records(&c.finish.bsp),
        )
    }
}
