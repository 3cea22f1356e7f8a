//! The finishing passes, in the order of Valve's EndBSPFile: water, displacements, physics
//! collision, overlays, cube maps, static props, detail props, the pakfile, the world's
//! bounds, the entity lump; then the output.

use super::Compile;
use crate::Output;
use crate::cubemap;
use crate::diag::{Diagnostic, VbspError, Where};
use crate::displacement;
use crate::dump::{self, PassDump};
use crate::emit;
use crate::overlay;
use crate::types::set_kv;
use crate::verify_bsp;

impl<'a> Compile<'a> {
    /// The world's water leaves point at their volume's record; the records.
    pub fn write_water(&mut self) {
        let bsp = &mut self.finish.bsp;
        let water = std::mem::take(&mut self.finish.water);
        for &(leaf, node) in &self.finish.world_leaves {
            if let Some(&id) = water.of_leaf.get(&node) {
                bsp.leafs[leaf].leaf_water_data = id;
            }
        }
        bsp.leaf_water_data = water.data;
    }

    /// Every leaf's water record exists.
    pub fn verify_water(&mut self) -> Result<(), VbspError> {
        self.checkpoint(
            "water",
            |c| verify_bsp::water(&c.finish.bsp),
            |c| dump::water(&c.finish.bsp),
        )
    }

    /// The displacement records (DISPINFO, vertices, triangle tags, lightmap samples) for
    /// the displacement faces the records hold.
    pub fn write_displacements(&mut self) {
        displacement::write_records(&mut self.finish.bsp, &mut self.finish.disps);
    }

    /// Each DISPINFO's face, vertices, triangles and samples are in range, and its face
    /// names it back.
    pub fn verify_displacements(&mut self) -> Result<(), VbspError> {
        self.checkpoint(
            "displacements",
            |c| verify_bsp::displacements(&c.finish.bsp),
            |c| dump::displacements(&c.finish.bsp),
        )
    }

    /// PHYSCOLLIDE (each model's solids) and PHYSDISP (the displacements' hulls); brushes
    /// and displacements left without collision are reported.
    pub fn build_physics(&mut self) {
        self.build_phys_collide();
        self.build_phys_disp();
    }

    fn build_phys_collide(&mut self) {
        let bsp = &self.finish.bsp;
        let materials = self.opts.materials;
        let version = self.opts.target.bsp_version;
        let guessed = std::cell::RefCell::new(std::collections::BTreeSet::new());
        let surfaceprop = |name: &str| {
            if !materials.knows_surfaceprop(name, version) {
                guessed
                    .borrow_mut()
                    .insert(srcmap_materials::unpatched_name(name));
            }
            materials.surfaceprop_for(name, version)
        };
        let physics = crate::physics::build_for_version(bsp, version, &surfaceprop, &|prop| {
            materials.surface_mass(prop)
        });
        // Materials that are unknown altogether were named once already, by the resolver's warning.
        let unknown: std::collections::BTreeSet<String> = materials
            .unknown_materials()
            .iter()
            .map(|m| m.to_ascii_lowercase())
            .collect();
        let mut guessed = guessed.into_inner();
        guessed.retain(|m| !unknown.contains(&m.to_ascii_lowercase()));
        if let Some(why) = crate::physics::guessed_surfaceprops_message(&guessed) {
            self.diags.push(Diagnostic::warning(Where::default(), why));
        }
        for (b, why) in physics.skipped {
            let brush = &self.brushes[b];
            let at = Where {
                brush: Some(brush.vmf_id),
                ..Default::default()
            };
            self.diags.push(Diagnostic::warning(at, why));
        }
        self.finish.bsp.phys_collide = Some(physics.collide);
    }

    fn build_phys_disp(&mut self) {
        let (phys_disp, no_hull) = crate::phys_disp::build(&self.finish.bsp);
        match phys_disp {
            crate::phys_disp::PhysDispBuild::Lump(lump) => self.finish.bsp.phys_disp = Some(lump),
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
    }

    /// Each physics model names a model that exists, once.
    pub fn verify_physics(&mut self) -> Result<(), VbspError> {
        self.checkpoint(
            "physics",
            |c| verify_bsp::physics(&c.finish.bsp),
            |c| dump::physics(&c.finish.bsp),
        )
    }

    /// The overlay records, on the faces made from the sides each overlay names.
    pub fn write_overlays(&mut self) {
        overlay::write_records(
            &mut self.finish.bsp,
            &self.overlays,
            &self.finish.overlay_texinfos,
            &self.finish.face_sides,
            &mut self.diags,
        );
    }

    /// Each overlay's texinfo and faces exist.
    pub fn verify_overlays(&mut self) -> Result<(), VbspError> {
        self.checkpoint(
            "overlays",
            |c| verify_bsp::overlays(&c.finish.bsp),
            |c| dump::overlays(&c.finish.bsp),
        )
    }

    /// The CUBEMAPS lump (a sample outside the world is reported), then the default cube
    /// map textures in the pakfile.
    pub fn write_cubemaps(&mut self) {
        if !self.cubemaps.is_empty() {
            self.finish.bsp.cubemaps = (self.cubemaps.samples.iter())
                .map(|s| srcmap_bsp::Cubemap {
                    origin: s.origin,
                    size: s.size,
                })
                .collect();
            let outside = self.cubemaps.outside_world(&self.finish.bsp);
            self.diags.extend(outside);
        }
        self.add_default_cubemaps();
    }

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
        self.add_cubemap_copies(sky.ldr_vtf(), ".vtf");
        self.add_cubemap_copies(sky.hdr_vtf(), ".hdr.vtf");
    }

    /// `vtf` (when there is one) as the default cube map and under each patched cube map
    /// name, with `suffix`.
    fn add_cubemap_copies(&mut self, vtf: Option<Vec<u8>>, suffix: &str) {
        let Some(vtf) = vtf else { return };
        let default = cubemap::texture_name(&self.opts.map_name, None);
        for texture in std::iter::once(&default).chain(&self.cubemap_textures) {
            let path = format!("materials/{texture}{suffix}");
            super::add_pak_file(&mut self.patch_files, path, vtf.clone());
        }
    }

    /// The texdata's names are in the string table, and the patched materials' texdata too.
    pub fn verify_cubemaps(&mut self) -> Result<(), VbspError> {
        self.checkpoint(
            "cubemaps",
            |c| verify_bsp::texdata(&c.finish.bsp),
            |c| dump::cubemaps(&c.finish.bsp, &c.patch_files),
        )
    }

    /// The `sprp` game lump from the map's `prop_static`s.
    pub fn write_static_props(&mut self) {
        crate::props::emit(
            self.input,
            &mut self.finish.bsp,
            self.opts.models,
            &mut self.diags,
        );
    }

    /// Each static prop's model and leaves are in range.
    pub fn verify_static_props(&mut self) -> Result<(), VbspError> {
        self.checkpoint(
            "static props",
            |c| verify_bsp::static_props(&c.finish.bsp),
            |c| dump::static_props(&c.finish.bsp),
        )
    }

    /// The `dprp` game lump: detail props placed on the faces of detail materials.
    pub fn write_detail_props(&mut self) {
        let detail = crate::detail_props::DetailInputs {
            input: self.input,
            materials: self.opts.materials,
            files: self.opts.models,
            map_name: &self.opts.map_name,
            face_hammer_ids: &self.finish.face_sides,
            detail_types: self.opts.detail_types,
        };
        crate::detail_props::emit(&detail, &mut self.finish.bsp, &mut self.diags);
    }

    /// Each detail prop's model or sprite and leaf are in range.
    pub fn verify_detail_props(&mut self) -> Result<(), VbspError> {
        self.checkpoint(
            "detail props",
            |c| verify_bsp::detail_props(&c.finish.bsp),
            |c| dump::detail_props(&c.finish.bsp),
        )
    }

    /// The patched materials and cube maps added to the pakfile.
    pub fn write_pakfile(&mut self) -> Result<(), VbspError> {
        if !self.patch_files.is_empty() {
            let bsp = &mut self.finish.bsp;
            bsp.pakfile =
                srcmap_bsp::pak::Pak::parse(&bsp.pakfile, 0)?.with_files(&self.patch_files, false)?;
        }
        Ok(())
    }

    /// The pakfile reads back as a zip.
    pub fn verify_pakfile(&mut self) -> Result<(), VbspError> {
        self.checkpoint(
            "pakfile",
            |c| verify_bsp::pakfile(&c.finish.bsp),
            |c| dump::pakfile(&c.finish.bsp),
        )
    }

    /// Valve's `ComputeBoundsNoSkybox`: the drawn faces of the open leaves outside the 3D
    /// skybox and the displacements in open leaves, as worldspawn's world_mins / world_maxs.
    pub fn set_world_bounds(&mut self) {
        let disp_boxes: Vec<_> = self.finish.disps.iter().map(|d| d.grid.bounds()).collect();
        if let Some(b) = emit::world_bounds_no_skybox(&self.finish.bsp, &self.sky_areas, &disp_boxes) {
            let fmt = |v: [f32; 3]| format!("{} {} {}", v[0] as i32, v[1] as i32, v[2] as i32);
            set_kv(&mut self.ents[0].keyvalues, "world_mins", fmt(b.0));
            set_kv(&mut self.ents[0].keyvalues, "world_maxs", fmt(b.1));
        }
    }

    /// The entity lump, as Valve: Hammer's "id" becomes "hammerid".
    pub fn write_entities(&mut self) {
        for e in &mut self.ents {
            for (k, _) in e.keyvalues.iter_mut() {
                if k.eq_ignore_ascii_case("id") {
                    *k = "hammerid".to_string();
                }
            }
        }
        self.finish.bsp.entities = emit::entity_lump(&self.ents);
    }

    /// The entity lump reads back as it was written; the models it names exist.
    pub fn verify_entities(&mut self) -> Result<(), VbspError> {
        self.checkpoint(
            "entities",
            |c| verify_bsp::entities(&c.finish.bsp),
            |c| dump::entities(&c.finish.bsp),
        )
    }

    /// The BSP with the map's revision, the report, and the output.
    pub fn write(mut self) -> Result<Output, VbspError> {
        let mut bsp = std::mem::take(&mut self.finish.bsp);
        bsp.revision = self.opts.map_revision;
        self.end_phase();
        if let Some(dumps) = &mut self.dumps {
            dumps.push(PassDump {
                pass: "write",
                text: dump::bsp(&bsp),
            });
        }
        self.report_counts(&bsp);
        if let Some(v) = srcmap_bsp::check::limit_violations(&bsp).first() {
            return Err(VbspError::OverLimit(v.to_string()));
        }
        self.diags
            .extend(crate::not_compiled::diagnostics(self.input, &bsp));
        for d in &self.diags {
            let warning = self.placed(d.into());
            self.report.warn(warning);
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

    /// A warning about an entity (and not one of its brushes) placed at the entity's origin.
    fn placed(&self, mut w: srcmap_stage::Warning) -> srcmap_stage::Warning {
        if let (Some(id), None) = (w.entity, w.brush) {
            let entity = self.input.entities.iter().find(|e| e.id == id);
            w.position = entity.and_then(|e| e.origin()).map(|o| [o.x, o.y, o.z]);
        }
        w
    }

    /// The report's counts.
    fn report_counts(&mut self, bsp: &srcmap_bsp::Bsp) {
        let portals: usize = self.prt.lines().nth(2).and_then(|l| l.parse().ok()).unwrap_or(0);
        let r = &mut self.report;
        r.set("brushes", self.brushes.len() as f64);
        r.set("models", bsp.models.len() as f64);
        r.set("faces", bsp.faces.len() as f64);
        r.set("world_leaves", self.tree.leaves().count() as f64);
        // The BSP's leaf records (every model's, Valve's leaf 0 too): what `srcmap info` counts.
        r.set("leaves", bsp.leafs.len() as f64);
        r.set("clusters", self.clusters.count as f64);
        r.set("skybox_leaves", self.clusters.skybox_leaves as f64);
        r.set("portals", portals as f64);
        r.set("outside_filled", self.outside_filled as f64);
        // 0 when the outside was not filled (a leak let through, or no entity in open space).
        r.set("sealed", self.outside_sealed as u8);
    }
}
