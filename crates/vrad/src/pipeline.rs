//! The passes of a lighting run, in the order [`crate::light`] runs them, over one
//! [`Lighting`] state:
//!
//! 1. [`Lighting::read_lights`]: the light entities, per range (LDR, HDR);
//! 2. [`Lighting::apply_materials`]: reflectivity, bump flags and see-through brushes from
//!    game content or a material table;
//! 3. [`Lighting::build_geometry`]: each face's lighting geometry and samples, displacements,
//!    the occluder and surface BVHs, the tree and what sees the sky;
//! 4. [`Lighting::add_texture_lights`]: texture-light patches appended to every range's lights;
//! 5. [`Lighting::light_direct`]: direct light of every range in one pass of shadow rays;
//! 6. [`Lighting::trace_bounce_rays`]: the gather rays, traced once for every range;
//! 7. [`Lighting::trace_occlusion`]: ambient-occlusion factors per luxel (when asked for);
//! 8. per range: [`Lighting::bounce`], [`Lighting::apply_occlusion`],
//!    [`Lighting::ambient_cubes`], [`Lighting::write_output`] (lightmaps, world lights,
//!    ambient cubes), [`Lighting::light_detail_props`] (the `dprp` colours and the style
//!    lump, from the lightmaps just written) and [`Lighting::light_static_props`] (`.vhv`
//!    and `.ppl` files packed into the pakfile).
//!
//! Between passes the `verify_*` checks (the invariants the next pass relies on) run when
//! [`srcmap_stage::verify_enabled`] says so.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use srcmap_bsp::Bsp;
use srcmap_stage::{Report, Warning};

use crate::ambient::{LeafCubes, LeafRays};
use crate::bounce::FacePatches;
use crate::counts;
use crate::lights::{Light, Range};
use crate::materials::Applied;
use crate::texlights::TexLights;
use crate::{
    Counters, FaceLight, Options, Progress, Quality, VradError, World, ambient, bounce, detail, direct,
    displacement, faces, lights, materials, occlusion, output, props, samples, scene, sky, texlights, tree,
    verify, vertexlight,
};

/// The state the passes share.
pub struct Lighting<'a> {
    bsp: &'a mut Bsp,
    options: &'a Options,
    progress: &'a dyn Progress,
    /// Whether to check invariants between passes.
    verify: bool,
    report: Report,
    counters: Counters,
    /// Seconds in the tracing passes.
    trace_seconds: f64,
    /// The ranges lit, in order (LDR first).
    pub ranges: Vec<Range>,
    /// The map has visibility data: lights are culled by the PVS and light bounces.
    has_vis: bool,
    /// Per range: the lights (the same lights in the same order; intensities differ).
    lights: Vec<Vec<Light>>,
    /// What `Options::materials` changed (see-through brushes cast no shadow).
    applied: Applied,
    /// Built by [`Lighting::build_geometry`].
    world: Option<World>,
    /// Per range, per face: the light gathered so far.
    face_lights: Vec<Vec<FaceLight>>,
    /// The bounce gather rays (empty without visibility data).
    patches: Vec<FacePatches>,
    /// Per face, per luxel: the ambient-occlusion factor (empty when it is off).
    occlusion: Vec<Vec<f32>>,
    /// Per leaf, the ambient-cube rays traced by a sharded run's shards (empty: traced in
    /// [`Lighting::ambient_cubes`]).
    cube_rays: Vec<LeafRays>,
    /// The bounce gather rays as each bounce reads them, built at the first range's bounce
    /// and kept for the next.
    transfers: Option<bounce::Transfers>,
    /// The faces whose samples need their visibility cluster (direct light culls by it, no
    /// later pass reads it): `None`, every face; a shard, its own; a merge, none.
    cluster_faces: Option<ClusterFaces>,
    /// What the passes of the range being lit left for the next.
    current: RangeResults,
}

/// Whether face `f`'s samples need their cluster (see [`Lighting::only_clusters_of`]).
pub(crate) type ClusterFaces = Box<dyn Fn(usize) -> bool + Send + Sync>;

/// What the per-range passes leave for the next ones.
#[derive(Default)]
struct RangeResults {
    /// The ambient cubes ([`Lighting::ambient_cubes`]).
    cubes: Vec<LeafCubes>,
    /// The lightmaps as [`Lighting::write_output`] wrote them.
    lightmaps: Vec<Option<detail::WrittenLightmap>>,
    /// The time spent writing (output, detail props, packing).
    write_time: Duration,
    /// The static-prop lighting files (`None` when not asked for).
    prop_lighting: Option<vertexlight::VertexLighting>,
}

const NO_WORLD: &str = "build_geometry runs before the passes that light";

impl<'a> Lighting<'a> {
    /// The state of a run over `bsp`; an error when the map has nothing to light.
    pub fn new(
        bsp: &'a mut Bsp,
        options: &'a Options,
        progress: &'a dyn Progress,
    ) -> Result<Self, VradError> {
        if bsp.faces.is_empty() {
            return Err(VradError::NoFaces);
        }
        let mut report = initial_report(options);
        let ranges = ranges_lit(bsp, options);
        if !ranges.contains(&Range::Hdr) && !srcmap_bsp::Target::version_draws_ldr(bsp.version) {
            report.warn(format!(
                "BSP v{}'s games draw only HDR lightmaps: lit LDR alone (-ldr), the map is unlit there",
                bsp.version
            ));
        }
        Ok(Lighting {
            ranges,
            has_vis: has_visibility(bsp),
            bsp,
            options,
            progress,
            verify: srcmap_stage::verify_enabled(options.verify),
            report,
            counters: Counters::default(),
            trace_seconds: 0.0,
            lights: Vec::new(),
            applied: Applied::default(),
            world: None,
            face_lights: Vec::new(),
            patches: Vec::new(),
            occlusion: Vec::new(),
            cube_rays: Vec::new(),
            transfers: None,
            cluster_faces: None,
            current: RangeResults::default(),
        })
    }

    /// Finds the samples' clusters on the faces `faces` names alone (before
    /// [`Lighting::build_geometry`]); the others' read -1. For a sharded run, which lights its
    /// own faces (a shard) or none (the merge): a cluster is a walk down the tree per luxel.
    pub(crate) fn only_clusters_of(&mut self, faces: ClusterFaces) {
        self.cluster_faces = Some(faces);
    }

    /// The light entities of every range.
    pub fn read_lights(&mut self) {
        if !self.has_vis && self.options.bounces > 0 {
            self.report.warn(Warning::new(
                "vrad.no_vis",
                "no visibility data: direct lighting only (as VRAD), no bounce",
            ));
        }
        for &range in &self.ranges {
            let (lights, scan) = lights::parse_lights(&self.bsp.entities, range);
            if self.lights.is_empty() {
                for u in &scan.unsupported {
                    self.report.warn(Warning::new(
                        "vrad.light_unsupported",
                        format!("unsupported light entity '{u}' skipped"),
                    ));
                }
            }
            self.lights.push(lights);
        }
        self.count_lights();
    }

    fn count_lights(&mut self) {
        let n = self.lights.first().map_or(0, |l| l.len());
        self.report.set(counts::LIGHTS, n as f64);
    }

    /// Reflectivity, bump flags and see-through brushes from `Options::materials`.
    pub fn apply_materials(&mut self) {
        let t = Instant::now();
        if let Some(m) = &self.options.materials {
            self.applied = materials::apply(self.bsp, &m.0);
        }
        let see_through = self.applied.see_through_brushes.iter().filter(|&&b| b).count();
        self.report
            .set(counts::MATERIALS_REFLECTIVITY, self.applied.reflectivity as f64);
        self.report
            .set(counts::MATERIALS_BUMP_CHANGED, self.applied.bump_changed as f64);
        self.report.set(counts::SEE_THROUGH_BRUSHES, see_through as f64);
        self.report.time("materials", t.elapsed());
    }

    /// Faces, displacements, the two BVHs, the tree, every luxel's sample and cluster, and
    /// the clusters that see sky.
    pub fn build_geometry(&mut self) {
        let t = Instant::now();
        let bsp = &*self.bsp;
        self.progress.start("geometry", 3, srcmap_stage::Unit::Steps);
        let faces = faces::build_faces(bsp);
        let disps = displacements(bsp, &faces);
        self.progress.advance(1);
        let (occluders, sky_faces, props) = self.shadow_scenes(&faces, &disps);
        self.progress.advance(1);
        let (surfaces, disp_triangles) = scene::surfaces(&faces, &disps);
        self.progress.advance(1);
        let tree = tree::Tree::new(bsp);
        let all = |_: usize| true;
        let samples = face_samples(
            &faces,
            &disps,
            &tree,
            self.cluster_faces.as_deref().unwrap_or(&all),
        );
        self.progress.finish();
        self.report.time("geometry+bvh", t.elapsed());
        let world = World {
            sky_visible: sky::sky_visible_clusters(bsp, &tree),
            faces,
            disps,
            samples,
            occluders,
            sky_faces,
            surfaces,
            disp_triangles,
            pvs: bsp.visibility.clone(),
            tree,
            sky3d: sky::Sky3d::new(bsp),
            only_faces: None,
        };
        self.set_world(world, &props);
    }

    /// The world, counted in the report with the props' shadows.
    fn set_world(&mut self, world: World, props: &props::PropShadows) {
        self.count_faces(&world);
        self.world = Some(world);
        self.count_props(props);
    }

    /// The occluder scene (opaque brushes but the see-through ones, displacements and the
    /// static props' shadows), its sky faces alone, and the props' shadows (for their
    /// counts).
    fn shadow_scenes(
        &self,
        faces: &[faces::FaceGeom],
        disps: &[Option<displacement::DispSurface>],
    ) -> (crate::alpha::Occluders, srcmap_trace::Scene, props::PropShadows) {
        let props = props::prop_shadows(
            self.bsp,
            self.options.models.as_ref(),
            self.options.static_prop_polys,
            self.options.texture_shadows,
        );
        let see_through = &self.applied.see_through_brushes;
        let occluders = scene::occluders_with(self.bsp, faces, disps, see_through, &props);
        (occluders, scene::sky_faces(self.bsp, faces), props)
    }

    fn count_faces(&mut self, world: &World) {
        let lit = world.faces.iter().filter(|f| f.lit);
        self.report.set(counts::LIT_FACES, lit.clone().count() as f64);
        self.report
            .set(counts::LUXELS, lit.map(|f| f.luxel_count()).sum::<usize>() as f64);
    }

    fn count_props(&mut self, props: &props::PropShadows) {
        self.report.set(counts::STATIC_PROPS, props.props as f64);
        self.report.set(counts::PROP_SHADOW_CASTERS, props.casters as f64);
        self.report
            .set(counts::PROP_SHADOW_TRIANGLES, props.triangles.len() as f64);
        self.report
            .set(counts::TEXTURE_SHADOW_TRIANGLES, props.textured.len() as f64);
        if self.options.texture_shadows && !self.options.static_prop_polys {
            self.report.warn(Warning::new(
                "vrad.flags",
                "-textureshadows needs -StaticPropPolys (as VRAD: textures are sampled on render triangles only)",
            ));
        }
        for (model, n) in &props.unusable {
            self.report.warn(Warning::new(
                "vrad.prop_model_unusable",
                format!("{n} static props cast no shadow: {model} has vertices that are not finite or lie beyond ±{}", props::MAX_MODEL_COORD),
            ));
        }
        let without: usize = props.missing.iter().map(|(_, n)| n).sum();
        self.report.set(counts::PROPS_WITHOUT_MODEL, without as f64);
        if without > 0 {
            self.report.warn(Warning::new(
                "vrad.prop_models_missing",
                format!(
                    "{without} static props cast no shadow: {} models not found{} ({})",
                    props.missing.len(),
                    if self.options.models.is_none() {
                        " (no game directory)"
                    } else {
                        ""
                    },
                    props.missing_summary(8),
                ),
            ));
        }
    }

    /// Texture lights: values harvested from the input's world lights (read before they are
    /// rewritten), then the given ones on top; their patches are appended to every range's
    /// lights alike, and the emitting faces' texinfos flagged `SURF_LIGHT`.
    pub fn add_texture_lights(&mut self) {
        let world = self.world.as_ref().expect(NO_WORLD);
        let (tex_sets, harvested) = self.texture_light_sets(world);
        let pairs: Vec<(&TexLights, Range)> = tex_sets.iter().zip(self.ranges.iter().copied()).collect();
        let surface = texlights::surface_lights(
            self.bsp,
            &world.faces,
            &pairs,
            self.options.quality != Quality::Fast,
        );
        self.report.set(
            counts::SURFACE_LIGHTS,
            surface.first().map_or(0, |s| s.len()) as f64,
        );
        self.report.set(counts::TEXLIGHTS_HARVESTED, harvested as f64);
        texlights::mark_light_texinfos(self.bsp, &pairs);
        for (lights, extra) in self.lights.iter_mut().zip(surface) {
            lights.extend(extra);
        }
        self.count_lights();
    }

    /// Per range, the texture-light values: harvested from the input's world lights, the
    /// given ones on top; and the most harvested in a range.
    fn texture_light_sets(&self, world: &World) -> (Vec<TexLights>, usize) {
        let mut harvested = 0;
        let sets = self
            .ranges
            .iter()
            .map(|&range| {
                let mut t = if self.options.harvest_texlights {
                    texlights::harvest_bsp(self.bsp, &world.faces, range)
                } else {
                    TexLights::default()
                };
                harvested = harvested.max(t.len());
                t.extend(&self.options.texlights);
                t
            })
            .collect();
        (sets, harvested)
    }

    /// Direct light: one pass of shadow rays serves every range.
    pub fn light_direct(&mut self) {
        let world = self.world.as_ref().expect(NO_WORLD);
        let t = Instant::now();
        let refs: Vec<&[Light]> = self.lights.iter().map(|l| l.as_slice()).collect();
        let (lights, sky_table) =
            direct::direct_lighting(world, &refs, self.options, self.progress, &self.counters);
        self.face_lights = lights;
        // The sky table is timed apart, as the progress shows it: both are tracing.
        self.trace_seconds += sky_table.as_secs_f64();
        if !sky_table.is_zero() {
            self.report.time("sky table", sky_table);
        }
        self.traced("direct", t + sky_table);
    }

    /// A shard's share of direct light: the faces `owned` names lit (not blended across
    /// faces: the merge does that) and their bounce gather rays (when the map has visibility
    /// data), per face `[face][range]` and per face its patches (the others' empty).
    pub(crate) fn light_direct_shard(&mut self, owned: Vec<bool>) -> (Vec<Vec<FaceLight>>, Vec<FacePatches>) {
        self.world.as_mut().expect(NO_WORLD).only_faces = Some(owned);
        let world = self.world.as_ref().expect(NO_WORLD);
        let t = Instant::now();
        let refs: Vec<&[Light]> = self.lights.iter().map(|l| l.as_slice()).collect();
        let (per_face, sky_table) =
            direct::direct_per_face(world, &refs, self.options, self.progress, &self.counters);
        let direct = t.elapsed();
        let t = Instant::now();
        let first: Vec<FaceLight> = (per_face.iter())
            .map(|f| f.first().cloned().unwrap_or_default())
            .collect();
        let patches = if self.has_vis {
            bounce::trace(world, &first, self.options, self.progress, &self.counters)
        } else {
            Vec::new()
        };
        let rays = t.elapsed();
        for (phase, took) in [
            ("sky table", sky_table),
            ("direct", direct.saturating_sub(sky_table)),
            ("bounce rays", rays),
        ] {
            self.trace_seconds += took.as_secs_f64();
            self.report.time(phase, took);
        }
        (per_face, patches)
    }

    /// Direct light and bounce gather rays put together from every shard's share
    /// ([`Lighting::light_direct_shard`]): blended across faces as [`Lighting::light_direct`]
    /// does, the rays kept as [`Lighting::trace_bounce_rays`] would.
    pub(crate) fn set_direct(&mut self, per_face: Vec<Vec<FaceLight>>, patches: Vec<FacePatches>) {
        let world = self.world.as_ref().expect(NO_WORLD);
        self.face_lights = direct::blended_by_range(world, per_face, self.ranges.len());
        // As `bounce::trace`: no rays at all when no bounce is asked for.
        if self.bounces_anything() && self.options.bounces > 0 {
            self.patches = patches;
        }
    }

    /// A shard's share of the ambient-cube rays: those of the leaves `owned` names, traced
    /// once for every range (per leaf, its index and rays; none when cubes are off).
    pub(crate) fn trace_ambient_shard(
        &mut self,
        owned: impl Fn(usize) -> bool + Sync + Send,
    ) -> Vec<(u32, LeafRays)> {
        if !self.options.ambient_cubes {
            return Vec::new();
        }
        let world = self.world.as_ref().expect(NO_WORLD);
        let t = Instant::now();
        let rays = ambient::trace_leaves(self.bsp, world, &self.lights, self.options, owned, &self.counters);
        self.traced("ambient rays", t);
        rays
    }

    /// The ambient-cube rays of every leaf, put together from the shards' shares
    /// ([`Lighting::trace_ambient_shard`]).
    pub(crate) fn set_ambient_rays(&mut self, per_leaf: Vec<LeafRays>) {
        self.cube_rays = per_leaf;
    }

    /// The number of leaves and of lights (per range) of the map lit.
    pub(crate) fn leaves_and_lights(&self) -> (usize, usize) {
        (self.bsp.leafs.len(), self.lights.first().map_or(0, Vec::len))
    }

    /// The lights of the first range read by [`Lighting::read_lights`].
    #[cfg(test)]
    pub(crate) fn first_lights(&self) -> &[Light] {
        self.lights.first().map_or(&[], Vec::as_slice)
    }

    /// The world built by [`Lighting::build_geometry`].
    pub(crate) fn world(&self) -> &World {
        self.world.as_ref().expect(NO_WORLD)
    }

    /// Whether bounce has anything to do: the map has visibility data and some light.
    fn bounces_anything(&self) -> bool {
        // A map no light reaches (an unlit blockout) has nothing to bounce: its gather rays
        // would only carry zeros.
        let lit = self
            .face_lights
            .iter()
            .flatten()
            .any(|f| f.samples.iter().flatten().any(|v| *v != glam::Vec3::ZERO));
        self.has_vis && lit
    }

    /// The bounce gather rays, traced once; each range then bounces its own light.
    pub fn trace_bounce_rays(&mut self) {
        let world = self.world.as_ref().expect(NO_WORLD);
        let t = Instant::now();
        if self.bounces_anything() {
            self.patches = bounce::trace(
                world,
                &self.face_lights[0],
                self.options,
                self.progress,
                &self.counters,
            );
        }
        self.traced("bounce rays", t);
    }

    /// Ambient-occlusion rays from every luxel (`Options::ambient_occlusion`), traced once
    /// for every range.
    pub fn trace_occlusion(&mut self) {
        let Some(ao) = &self.options.ambient_occlusion else {
            return;
        };
        let world = self.world.as_ref().expect(NO_WORLD);
        let t = Instant::now();
        self.occlusion = occlusion::luxel_factors(world, ao, &self.counters);
        let darkened = self.occlusion.iter().flatten().filter(|&&f| f < 1.0).count();
        self.report.set(counts::OCCLUDED_LUXELS, darkened as f64);
        self.traced("ambient occlusion", t);
    }

    /// Darkens `range`'s light by the ambient-occlusion factors (after bouncing, so the
    /// light surfaces send each other is not darkened).
    pub fn apply_occlusion(&mut self, range: Range) {
        if self.occlusion.is_empty() {
            return;
        }
        let r = self.range_index(range);
        occlusion::darken(&mut self.face_lights[r], &self.occlusion);
    }

    /// Bounced light of `range` (VRAD without visibility data: none, and a flat 0.1 on
    /// style 0 instead so unlit corners are not pitch black).
    pub fn bounce(&mut self, range: Range) {
        let world = self.world.as_ref().expect(NO_WORLD);
        let t = Instant::now();
        let r = self.range_index(range);
        let face_lights = &mut self.face_lights[r];
        if self.has_vis {
            let transfers = (self.transfers)
                .get_or_insert_with(|| bounce::Transfers::new(&self.patches, self.options.bounce_rays()));
            let done = bounce::bounce(
                world,
                &self.patches,
                transfers,
                face_lights,
                self.options,
                self.progress,
                tag(range),
            );
            self.report.set(counts::BOUNCES_DONE, done);
        } else {
            for (g, fl) in world.faces.iter().zip(face_lights.iter_mut()) {
                if let (true, Some(s0)) = (g.lit, fl.samples.first_mut()) {
                    s0.iter_mut().for_each(|v| *v += glam::Vec3::splat(0.1));
                }
            }
        }
        self.report.time(format!("bounce{}", tag(range)), t.elapsed());
    }

    /// The per-leaf ambient cubes of `range` (none when `Options::ambient_cubes` is off).
    pub fn ambient_cubes(&mut self, range: Range) {
        let world = self.world.as_ref().expect(NO_WORLD);
        let t = Instant::now();
        let r = self.range_index(range);
        self.current.cubes = if self.options.ambient_cubes {
            ambient::leaf_ambient(
                self.bsp,
                world,
                &self.face_lights[r],
                &self.lights[r],
                Some(&self.cube_rays).filter(|t| !t.is_empty()).map(Vec::as_slice),
                self.options,
                self.progress,
                &self.counters,
            )
        } else {
            Vec::new()
        };
        self.traced(&format!("ambient{}", tag(range)), t);
    }

    /// Writes `range`'s lighting lump, face offsets and styles, world lights and ambient
    /// cubes into the map, then reads the lightmaps back as written (detail-prop and
    /// static-prop lighting sample them).
    pub fn write_output(&mut self, range: Range) {
        let world = self.world.as_ref().expect(NO_WORLD);
        let t = Instant::now();
        let r = self.range_index(range);
        output::write_lighting(self.bsp, world, &self.face_lights[r], range);
        output::write_world_lights(
            self.bsp,
            &world.tree,
            &self.lights[r],
            range,
            self.options.ambient_cubes,
        );
        if self.options.ambient_cubes {
            let leaves = output::write_ambient(self.bsp, &self.current.cubes, range);
            self.report.set(counts::LEAVES_WITH_AMBIENT, leaves as f64);
        }
        self.current.lightmaps = detail::written_lightmaps(self.bsp, world, range == Range::Hdr);
        self.current.write_time = t.elapsed();
    }

    /// Each detail prop's colour and `range`'s style lump (`dplt`, `dplh`), from the
    /// lightmaps just written. Its time counts as writing, as the lumps it fills.
    pub fn light_detail_props(&mut self, range: Range) {
        let world = self.world.as_ref().expect(NO_WORLD);
        let t = Instant::now();
        let r = self.range_index(range);
        let detail = detail::light_detail_props(
            self.bsp,
            world,
            &self.lights[r],
            range,
            self.options.models.as_ref(),
            &self.current.lightmaps,
            &self.counters,
        );
        self.report.set(counts::DETAIL_PROPS_LIT, detail.props as f64);
        if range == Range::Ldr || !self.ranges.contains(&Range::Ldr) {
            self.report
                .set(counts::DETAIL_STYLE_ENTRIES, detail.style_entries as f64);
        }
        self.current.write_time += t.elapsed();
    }

    /// Per-vertex (`.vhv`) and per-texel (`.ppl`) lighting of static props, packed into the
    /// pakfile (`Options::static_prop_lighting`, not with `-fast`); then the range's write
    /// time. Prop vertices and texels trace rays: their time counts as tracing, not writing.
    pub fn light_static_props(&mut self, range: Range) {
        self.current.prop_lighting = None;
        if self.options.static_prop_lighting && self.options.quality != Quality::Fast {
            let started = Instant::now();
            let vertex = self.light_prop_vertices(range);
            let elapsed = started.elapsed();
            let packing = Instant::now();
            self.pack_prop_lighting(&vertex, range);
            self.current.write_time += packing.elapsed();
            self.current.prop_lighting = Some(vertex);
            self.trace_seconds += elapsed.as_secs_f64();
            if !elapsed.is_zero() {
                self.report.time(format!("prop lighting{}", tag(range)), elapsed);
            }
        }
        self.report
            .time(format!("write{}", tag(range)), self.current.write_time);
    }

    /// The `.vhv` and `.ppl` files of `range`.
    fn light_prop_vertices(&self, range: Range) -> vertexlight::VertexLighting {
        let world = self.world.as_ref().expect(NO_WORLD);
        let r = self.range_index(range);
        let inputs = vertexlight::RangeInputs {
            range,
            lights: &self.lights[r],
            lightmaps: &self.current.lightmaps,
            indirect: self.has_vis && self.options.bounces > 0,
            no_self_shadowing: self.options.disable_prop_self_shadowing,
            ambient_occlusion: self.options.ambient_occlusion.as_ref(),
            texels: self.ranges.last() == Some(&range),
        };
        vertexlight::light_prop_vertices(
            self.bsp,
            world,
            &inputs,
            self.options.models.as_ref(),
            &self.counters,
        )
    }

    /// Adds `vertex`'s files to the pakfile (a warning when the pakfile cannot be read).
    fn pack_prop_lighting(&mut self, vertex: &vertexlight::VertexLighting, range: Range) {
        if vertex.without_model > 0 {
            self.report.warn(format!(
                "{} static props without their model files (.mdl, .vvd, .vtx): no per-vertex lighting{}",
                vertex.without_model,
                tag(range)
            ));
        }
        let packed = self.report.count(counts::VHV_FILES) as usize + vertex.files.len();
        let texel_files = vertex.texel_files.len();
        let files = [vertex.files.as_slice(), vertex.texel_files.as_slice()].concat();
        match srcmap_bsp::pak::Pak::parse(&self.bsp.pakfile, 0).and_then(|pak| pak.with_files(&files, false))
        {
            Ok(bytes) => {
                self.bsp.pakfile = bytes;
                self.report.set(counts::VHV_FILES, packed as f64);
                self.report.set(counts::PPL_FILES, texel_files as f64);
            }
            Err(e) => self
                .report
                .warn(format!("per-vertex prop lighting not packed: the pakfile: {e}")),
        }
    }

    /// The report, with the rays traced and the time it took.
    pub fn finish(mut self) -> Report {
        self.report
            .set(counts::RAYS, self.counters.rays.load(Ordering::Relaxed) as f64);
        for (name, counter) in [
            (counts::SKY_AMBIENT_RAYS, &self.counters.sky_ambient_rays),
            (counts::SUPERSAMPLE_RAYS, &self.counters.supersample_rays),
            (counts::SUPERSAMPLED_LUXELS, &self.counters.supersampled_luxels),
            (counts::BOUNCE_RAYS, &self.counters.bounce_rays),
            (counts::AMBIENT_RAYS, &self.counters.ambient_rays),
            (counts::PROP_RAYS, &self.counters.prop_rays),
        ] {
            self.report.set(name, counter.load(Ordering::Relaxed) as f64);
        }
        self.report.set(counts::TRACE_SECONDS, self.trace_seconds);
        self.report
    }

    /// Faces, samples and displacements agree (checked when verifying).
    pub fn verify_geometry(&self) -> Result<(), VradError> {
        if !self.verify {
            return Ok(());
        }
        verify::geometry(self.world.as_ref().expect(NO_WORLD)).map_err(|message| VradError::Verify {
            pass: "geometry",
            message,
        })
    }

    /// Every light is finite and in a valid style (checked when verifying).
    pub fn verify_lights(&self) -> Result<(), VradError> {
        if !self.verify {
            return Ok(());
        }
        verify::lights(&self.lights).map_err(|message| VradError::Verify {
            pass: "texture lights",
            message,
        })
    }

    /// Every face's light has the shape its lightmap needs (checked when verifying).
    pub fn verify_face_lights(&self, pass: &'static str) -> Result<(), VradError> {
        if !self.verify {
            return Ok(());
        }
        let world = self.world.as_ref().expect(NO_WORLD);
        for face_lights in &self.face_lights {
            verify::face_lights(world, face_lights).map_err(|message| VradError::Verify { pass, message })?;
        }
        Ok(())
    }

    /// The lumps written for `range` point inside themselves (checked when verifying).
    pub fn verify_output(&self, range: Range) -> Result<(), VradError> {
        if !self.verify {
            return Ok(());
        }
        verify::output(self.bsp, range).map_err(|message| VradError::Verify {
            pass: "write",
            message,
        })
    }

    /// Every detail prop's style entries lie inside `range`'s style lump, which holds no
    /// other entries (checked when verifying).
    pub fn verify_detail_props(&self, range: Range) -> Result<(), VradError> {
        if !self.verify {
            return Ok(());
        }
        verify::detail_props(self.bsp, range).map_err(|message| VradError::Verify {
            pass: "detail props",
            message,
        })
    }

    /// Every static prop has its `.vhv` file or a reason for none, and each file's mesh
    /// headers count and place its vertices inside it (checked when verifying).
    pub fn verify_static_props(&self) -> Result<(), VradError> {
        let (true, Some(vertex)) = (self.verify, &self.current.prop_lighting) else {
            return Ok(());
        };
        verify::static_props(self.bsp, vertex).map_err(|message| VradError::Verify {
            pass: "static props",
            message,
        })
    }

    fn range_index(&self, range: Range) -> usize {
        self.ranges.iter().position(|&r| r == range).unwrap_or(0)
    }

    /// Records a tracing pass's time (rays per second count these).
    fn traced(&mut self, phase: &str, started: Instant) {
        let elapsed = started.elapsed();
        self.trace_seconds += elapsed.as_secs_f64();
        self.report.time(phase, elapsed);
    }
}

/// A report with every figure at zero, and the warnings `options` call for at once.
fn initial_report(options: &Options) -> Report {
    let mut report = Report::new("vrad");
    for name in counts::ALL {
        report.set(name, 0u32);
    }
    if options.static_prop_lighting && options.quality == Quality::Fast {
        report.warn("per-vertex static-prop lighting is skipped with -fast (as VRAD)");
    }
    report
}

/// Whether `bsp` has visibility data (lights are culled by the PVS, and light bounces).
fn has_visibility(bsp: &Bsp) -> bool {
    bsp.visibility
        .as_ref()
        .is_some_and(|v| v.num_clusters > 0 && !v.pvs.is_empty())
}

/// The ranges `options` light in `bsp`, LDR first. Asked for neither range, a BSP of a game
/// that draws only HDR lightmaps is lit HDR (and LDR only where it already has LDR lighting,
/// so none stays stale): what Valve's VRAD for those games must be asked for with `-hdr`.
fn ranges_lit(bsp: &Bsp, options: &Options) -> Vec<Range> {
    let asked_neither = options.ldr && !options.hdr && options.hdr_if_present;
    if asked_neither && !srcmap_bsp::Target::version_draws_ldr(bsp.version) {
        let stale_ldr = (!bsp.lighting.is_empty()).then_some(Range::Ldr);
        return stale_ldr.into_iter().chain([Range::Hdr]).collect();
    }
    let mut ranges = Vec::new();
    if options.ldr {
        ranges.push(Range::Ldr);
    }
    if options.hdr || (options.hdr_if_present && !bsp.lighting_hdr.is_empty()) {
        ranges.push(Range::Hdr);
    }
    ranges
}

/// Per face, its displacement surface (displacement faces alone), with shading normals
/// blended across neighbouring displacements.
fn displacements(bsp: &Bsp, faces: &[faces::FaceGeom]) -> Vec<Option<displacement::DispSurface>> {
    let mut surfaces: Vec<_> = faces
        .iter()
        .enumerate()
        .map(|(i, g)| {
            if g.is_displacement {
                displacement::DispSurface::build(bsp, i, g)
            } else {
                None
            }
        })
        .collect();
    displacement::smooth_neighbor_normals(bsp, &mut surfaces);
    surfaces
}

/// Per face, its samples with the cluster of each (-1 on the faces `clusters` does not name).
fn face_samples(
    faces: &[faces::FaceGeom],
    disps: &[Option<displacement::DispSurface>],
    tree: &tree::Tree,
    clusters: &(dyn Fn(usize) -> bool + Sync),
) -> Vec<samples::FaceSamples> {
    faces
        .par_iter()
        .enumerate()
        .map(|(i, g)| {
            let mut s = samples::FaceSamples::build(g, disps[i].as_ref());
            s.cluster = match clusters(i) {
                true => s.pos.iter().map(|&p| tree.cluster_at(p)).collect(),
                false => vec![-1; s.pos.len()],
            };
            s
        })
        .collect()
}

/// The suffix of a range's phase names (`bounce (hdr)`).
fn tag(range: Range) -> &'static str {
    if range == Range::Hdr { " (hdr)" } else { "" }
}
