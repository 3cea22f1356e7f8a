//! The finishing passes (Valve's EndBSPFile).

use super::Compile;
use crate::Output;
use crate::cubemap;
use crate::diag::{Diagnostic, VbspError, Where};
use crate::displacement;
use crate::dump::{self, PassDump};
use crate::emit;
use crate::occluders;
use crate::overlay;
use crate::types::{Ent, set_kv};
use crate::water;

impl<'a> Compile<'a> {
    /// The default cube map from the sky, and a copy under each cube map name patched
    /// materials use, LDR files then HDR ones, as Valve's vbsp adds them last to the pakfile.
    fn add_default_cubemaps(&mut self) {
        let skyname = self.ents[0]
            .keyvalues
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("skyname"))
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        let sky = (!skyname.is_empty())
            .then(|| self.opts.materials.sky_cubemap(&skyname))
            .flatten();
        let Some(sky) = sky else {
            if !self.cubemap_textures.is_empty() {
                self.diags.push(Diagnostic::warning(
                    Where::default(),
                    format!(
                        "no default cubemap: the sky {skyname:?} is unknown (give -game DIR or --materials TABLE); \
                         shiny surfaces show a checkerboard until buildcubemaps"
                    ),
                ));
            }
            return;
        };
        let mut add = |vtf: Option<Vec<u8>>, suffix: &str| {
            let Some(vtf) = vtf else { return };
            let default = cubemap::texture_name(&self.opts.map_name, None);
            for texture in std::iter::once(&default).chain(&self.cubemap_textures) {
                let path = format!("materials/{texture}{suffix}");
                if !self.patch_files.iter().any(|(p, _)| *p == path) {
                    self.patch_files.push((path, vtf.clone()));
                }
            }
        };
        add(sky.ldr_vtf(), ".vtf");
        add(sky.hdr_vtf(), ".hdr.vtf");
    }

    /// The BSP records: models, brushes, faces, the entity lump; the report.
    pub fn write(mut self) -> Result<Output, VbspError> {
        let mut models = vec![emit::ModelIn {
            tree: &self.tree,
            faces: std::mem::take(&mut self.world_faces),
            detail_faces: std::mem::take(&mut self.detail_faces),
            disp_faces: Vec::new(),
            clusters: Some(&self.clusters),
        }];
        for m in &self.sub_models {
            models.push(emit::ModelIn {
                tree: &m.tree,
                faces: m.faces.clone(),
                detail_faces: Vec::new(),
                disp_faces: Vec::new(),
                clusters: None,
            });
        }
        // As Valve: Hammer's "id" becomes "hammerid"; the world records its bounds.
        for e in &mut self.ents {
            for (k, _) in e.keyvalues.iter_mut() {
                if k.eq_ignore_ascii_case("id") {
                    *k = "hammerid".to_string();
                }
            }
        }
        let mut water =
            water::find_volumes(&self.tree, &self.portals, &self.planes, &self.brushes, &self.tex);
        for m in &self.sub_models {
            for &record in &m.water {
                water::add_record(&mut water.data, record);
            }
        }
        for (path, text) in water::depth_patches(&self.opts.map_name, &water.data, &self.tex) {
            if !self.patch_files.iter().any(|(p, _)| *p == path) {
                self.patch_files.push((path, text));
            }
        }
        let has_lod_control = self.ents.iter().any(|e| {
            e.keyvalues.iter().any(|(k, v)| {
                k.eq_ignore_ascii_case("classname") && v.eq_ignore_ascii_case("water_lod_control")
            })
        });
        if self.has_water && !has_lod_control {
            self.ents.push(Ent {
                keyvalues: water::water_lod_control(),
                brushes: Vec::new(),
                model: None,
            });
        }
        let mut disps = displacement::prepare(std::mem::take(&mut self.disp_sides), &mut self.diags);
        models[0].disp_faces = disps.iter().map(|d| d.base.clone()).collect();
        let area_of_node = self.areas.of_node.clone();
        let entity_text = emit::entity_lump(&self.ents);
        // After every face's texinfo, as Valve makes them when it writes the overlays.
        let overlay_texinfos: Vec<u32> = (0..self.overlays.len())
            .map(|i| {
                let material = self.overlays[i].material.clone();
                let info = self.opts.materials.resolve(&material).facts;
                let td = self.tex.texdata(&material, &info);
                self.tex.add(overlay::overlay_texinfo(td)).0
            })
            .collect();
        let (mut bsp, face_sides, world_leaves) = emit::emit(
            &self.planes,
            &self.brushes,
            &self.tex,
            models,
            entity_text,
            std::mem::take(&mut self.areas),
            &self.occluder_faces,
        )?;
        if let Some(occlusion) = &mut bsp.occlusion {
            let straddling = occluders::assign_areas(
                occlusion,
                &bsp.vertexes,
                &self.tree,
                &self.portals,
                &self.planes,
                &area_of_node,
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
        for (leaf, node) in world_leaves {
            if let Some(&id) = water.of_leaf.get(&node) {
                bsp.leafs[leaf].leaf_water_data = id;
            }
        }
        bsp.leaf_water_data = water.data;
        displacement::write_records(&mut bsp, &mut disps);
        let physics = crate::physics::build(&bsp, &|name| self.opts.materials.surfaceprop(name), &|prop| {
            self.opts.materials.surface_mass(prop)
        });
        for (b, why) in physics.skipped {
            let brush = &self.brushes[b];
            let at = Where {
                brush: Some(brush.vmf_id),
                ..Default::default()
            };
            self.diags.push(Diagnostic::warning(at, why));
        }
        bsp.phys_collide = Some(physics.collide);
        let (phys_disp, no_hull) = crate::phys_disp::build(&bsp);
        match phys_disp {
            crate::phys_disp::PhysDispBuild::Lump(lump) => bsp.phys_disp = Some(lump),
            crate::phys_disp::PhysDispBuild::NotWritten(why) => {
                self.diags.push(Diagnostic::warning(Where::default(), why))
            }
        }
        for i in no_hull {
            self.diags.push(Diagnostic::warning(
                Where::default(),
                format!("displacement {i} spans no area (its points on a line): left without collision"),
            ));
        }
        overlay::write_records(
            &mut bsp,
            &self.overlays,
            &overlay_texinfos,
            &face_sides,
            &mut self.diags,
        );
        if !self.cubemaps.is_empty() {
            bsp.cubemaps = (self.cubemaps.samples.iter())
                .map(|s| srcmap_bsp::Cubemap {
                    origin: s.origin,
                    size: s.size,
                })
                .collect();
            let outside = self.cubemaps.outside_world(&bsp);
            self.diags.extend(outside);
        }
        self.add_default_cubemaps();
        crate::props::emit(self.input, &mut bsp, self.opts.models, &mut self.diags);
        let detail = crate::detail_props::DetailInputs {
            input: self.input,
            materials: self.opts.materials,
            files: self.opts.models,
            map_name: &self.opts.map_name,
            face_hammer_ids: &face_sides,
            detail_types: self.opts.detail_types,
        };
        crate::detail_props::emit(&detail, &mut bsp, &mut self.diags);
        if !self.patch_files.is_empty() {
            bsp.pakfile =
                srcmap_bsp::pak::Pak::parse(&bsp.pakfile, 0)?.with_files(&self.patch_files, false)?;
        }
        // Valve's `ComputeBoundsNoSkybox`: the drawn faces of the open leaves outside the 3D
        // skybox and the displacements in open leaves, as worldspawn's world_mins / world_maxs.
        let disp_boxes: Vec<_> = disps.iter().map(|d| d.grid.bounds()).collect();
        if let Some(b) = emit::world_bounds_no_skybox(&bsp, &self.sky_areas, &disp_boxes) {
            let fmt = |v: [f32; 3]| format!("{} {} {}", v[0] as i32, v[1] as i32, v[2] as i32);
            set_kv(&mut self.ents[0].keyvalues, "world_mins", fmt(b.0));
            set_kv(&mut self.ents[0].keyvalues, "world_maxs", fmt(b.1));
            bsp.entities = emit::entity_lump(&self.ents);
        }
        bsp.revision = self.opts.map_revision;
        self.end_phase();
        if let Some(dumps) = &mut self.dumps {
            dumps.push(PassDump {
                pass: "write",
                text: dump::bsp(&bsp),
            });
        }
        let portals: usize = self.prt.lines().nth(2).and_then(|l| l.parse().ok()).unwrap_or(0);
        let r = &mut self.report;
        r.set("brushes", self.brushes.len() as f64);
        r.set("models", bsp.models.len() as f64);
        r.set("faces", bsp.faces.len() as f64);
        r.set("world_leaves", self.tree.leaves().count() as f64);
        r.set("clusters", self.clusters.count as f64);
        r.set("portals", portals as f64);
        r.set("outside_filled", self.outside_filled as f64);
        self.diags
            .extend(crate::not_compiled::diagnostics(self.input, &bsp));
        for d in &self.diags {
            r.warn(d.to_string());
        }
        Ok(Output {
            bsp,
            prt: self.prt,
            diagnostics: self.diags,
            report: self.report,
            leak: self.leak,
            dumps: self.dumps.unwrap_or_default(),
        })
    }
}
