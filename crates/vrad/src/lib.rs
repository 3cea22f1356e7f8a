//! Compile stage 3: lightmaps with direct and bounced light, world lights and ambient cubes,
//! for any Source BSP (ours or Valve's).
//!
//! The pipeline follows Valve's VRAD where it shows in the result:
//! 1. lights from the entity lump ([`lights`]): `light`, `light_spot`, `light_environment`
//!    (sun + sky ambient; only the first, as VRAD), `_light`/`_lightHDR`/`_lightscaleHDR`,
//!    constant/linear/quadratic attenuation scaled for distance 100, `_fifty_percent_distance`
//!    and `_zero_percent_distance` (VRAD's monotonic fit, `_hardfalloff`), cones and
//!    `_exponent`, switchable (named) lights in styles 32-63; `light_dynamic` is skipped;
//!    texture lights ([`texlights`]: `lights.rad` values, a material table's `emit` facts, or
//!    values recovered from the input's own `emit_surface` world lights) become one
//!    `emit_surface` light per patch of each emitting face;
//! 2. with `-game`/`--materials` ([`materials`]): reflectivity, `$bumpmap` and see-through
//!    materials (no shadow) from the game or the table override the BSP's records;
//!    one sample per luxel, placed by the face's lightmap vectors and extents ([`faces`]),
//!    kept a quarter luxel inside the face and lifted 1 unit off it; a displacement's luxels
//!    laid over its grid, lit at samples between them and blended from those as VRAD does
//!    ([`displacement`]);
//! 3. direct light with shadows traced through a BVH ([`scene`], `srcmap-trace`) of the
//!    world's opaque brushes (`MASK_OPAQUE`; sky and displacement sides left out, as VRAD),
//!    displacements and `vrad_brush_cast_shadows` brush entities; sun and sky ambient count
//!    where a ray reaches a sky face, in clusters that see a cluster holding sky (continued through the 3D skybox of a `sky_camera`, whose
//!    geometry can still block it); point, spot and surface lights only reach clusters in
//!    their PVS; luxels on a sharp change are re-lit from four sub-samples (VRAD's
//!    supersampling; not with `-fast`);
//! 4. bounced light by gathering ([`bounce`]): cosine-weighted rays from a grid of points
//!    every 4 luxels per face (VRAD's patch size) record which luxel they hit (through solid
//!    brushes no light passes); each bounce is then lookups of reflectivity × light there,
//!    until a bounce adds little. Without visibility data VRAD does no bounce and adds a flat
//!    0.1 ambient; so do we;
//! 5. output ([`output`]): ColorRGBExp32 samples per style (and the three bump bases on
//!    `SURF_BUMPLIGHT` faces), each style's median colour stored before the face's samples,
//!    face offsets and styles rewritten; world lights; per-leaf ambient cubes.
//!
//! LDR and HDR (`-both`) share every ray: only intensities differ between them.
//!
//! Not modelled: static-prop shadows and `forcetextureshadow`/`noshadow` (they concern
//! static props; no model files), texture-light contributions added straight into ambient
//! cubes, phong smoothing.
//!
//! ```no_run
//! let bytes = std::fs::read("map.bsp").unwrap();
//! let (lit, report) = srcmap_vrad::relight(&bytes, &srcmap_vrad::Options::default(), &srcmap_vrad::NoProgress).unwrap();
//! println!("{} luxels, {} rays", report.luxels, report.rays);
//! # let _ = lit;
//! ```

pub mod ambient;
pub mod bounce;
pub mod color;
pub mod direct;
pub mod displacement;
pub mod faces;
pub mod lights;
pub mod materials;
pub mod output;
pub mod samples;
pub mod sampling;
pub mod scene;
pub mod sky;
pub mod texlights;
pub mod tree;
mod world;

use std::sync::atomic::Ordering;
use std::time::Instant;

use rayon::prelude::*;
use srcmap_bsp::{Bsp, BspDocument, BspFile};

pub use lights::{Light, LightKind, Range};
pub use materials::MaterialSource;
pub use texlights::TexLights;
pub use world::FaceLight;
use world::{Counters, World};

/// Errors of the lighting stage.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error(transparent)]
    Bsp(#[from] srcmap_bsp::Error),
    #[error("the map has no faces to light")]
    NoFaces,
    #[error("could not start worker threads: {0}")]
    Threads(String),
}

pub type Result<T> = std::result::Result<T, Error>;

/// Sampling quality, as VRAD's `-fast` / default / `-final`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Quality {
    Fast,
    #[default]
    Normal,
    Final,
}

/// Options of a lighting run.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub quality: Quality,
    /// Maximum number of bounces (VRAD's `-bounce`, default 100; stops early once a bounce
    /// adds little).
    pub bounces: u32,
    /// Write the LDR lumps (lighting 8, faces 7, world lights 15, ambient 52/56).
    pub ldr: bool,
    /// Write the HDR lumps (53, 58, 54, 51/55).
    pub hdr: bool,
    /// Worker threads; 0 = all cores.
    pub threads: usize,
    /// Compute per-leaf ambient cubes.
    pub ambient_cubes: bool,
    /// Also relight HDR when the input already has HDR lighting and `hdr` is off, so no
    /// stale lighting from an earlier compile stays in the file.
    pub hdr_if_present: bool,
    /// Texture lights (`lights.rad` files, a material table's `emit` facts); they override
    /// what [`Options::harvest_texlights`] recovers.
    pub texlights: TexLights,
    /// Recover texture-light values from the `emit_surface` world lights already in the
    /// input (a map Valve lit), for materials `texlights` does not name.
    pub harvest_texlights: bool,
    /// Game content or a material table (`-game`, `--materials`): reflectivity, `$bumpmap`
    /// and see-through materials from there override the BSP's records ([`materials`]).
    pub materials: Option<MaterialSource>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            quality: Quality::Normal,
            bounces: 100,
            ldr: true,
            hdr: false,
            threads: 0,
            ambient_cubes: true,
            hdr_if_present: true,
            texlights: TexLights::default(),
            harvest_texlights: true,
            materials: None,
        }
    }
}

impl Options {
    /// Sky-ambient directions per sample (VRAD: 162, a quarter with `-fast`, ×4 with `-final`
    /// here where VRAD uses ×16).
    pub fn sky_samples(&self) -> usize {
        match self.quality {
            Quality::Fast => 40,
            Quality::Normal => 162,
            Quality::Final => 648,
        }
    }
    /// Gather rays per bounce point.
    pub fn bounce_rays(&self) -> usize {
        match self.quality {
            Quality::Fast => 32,
            Quality::Normal => 96,
            Quality::Final => 384,
        }
    }
    /// Luxels between bounce gather points (VRAD's default patch chop of 4 luxels).
    pub fn bounce_spacing(&self) -> usize {
        match self.quality {
            Quality::Fast => 4,
            Quality::Normal => 4,
            Quality::Final => 2,
        }
    }
}

pub use srcmap_stage::{NoProgress, Progress};

/// What a run did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    pub lit_faces: usize,
    pub luxels: usize,
    pub lights: usize,
    /// Rays traced in all phases.
    pub rays: u64,
    /// Seconds spent in tracing phases (direct + bounce + ambient), for rays per second.
    pub trace_seconds: f64,
    /// `(phase, seconds)` in order.
    pub phases: Vec<(String, f64)>,
    pub bounces_done: u32,
    pub leaves_with_ambient: usize,
    /// Texdata records whose reflectivity came from `Options::materials`.
    pub materials_reflectivity: usize,
    /// Texinfos whose `SURF_BUMPLIGHT` `Options::materials` set or cleared.
    pub materials_bump_changed: usize,
    /// Brushes the BSP calls opaque that cast no shadow since a side's material is
    /// see-through (`$translucent`, `$alphatest`, ...) per `Options::materials`.
    pub see_through_brushes: usize,
    /// Texture-light patches (`emit_surface` lights) among `lights`.
    pub surface_lights: usize,
    /// Materials whose texture-light value was recovered from the input's world lights.
    pub texlights_harvested: usize,
    pub warnings: Vec<String>,
}

impl Report {
    pub fn rays_per_second(&self) -> f64 {
        if self.trace_seconds > 0.0 {
            self.rays as f64 / self.trace_seconds
        } else {
            0.0
        }
    }
}

/// Lights `bsp` in place: lightmaps, face offsets and styles, world lights and ambient cubes
/// of the ranges chosen in `options`.
pub fn light_bsp(bsp: &mut Bsp, options: &Options, progress: &dyn Progress) -> Result<Report> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads)
        .build()
        .map_err(|e| Error::Threads(e.to_string()))?;
    pool.install(|| light_bsp_inner(bsp, options, progress))
}

fn light_bsp_inner(bsp: &mut Bsp, options: &Options, progress: &dyn Progress) -> Result<Report> {
    let mut report = Report::default();
    let counters = Counters::default();
    if bsp.faces.is_empty() {
        return Err(Error::NoFaces);
    }
    let t = Instant::now();
    let applied = match &options.materials {
        Some(m) => materials::apply(bsp, &m.0),
        None => materials::Applied::default(),
    };
    report.materials_reflectivity = applied.reflectivity;
    report.materials_bump_changed = applied.bump_changed;
    report.see_through_brushes = applied.see_through_brushes.iter().filter(|&&b| b).count();
    progress.start("geometry", 3);
    let face_geoms = faces::build_faces(bsp);
    let disps: Vec<_> = face_geoms
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
    progress.advance(1);
    let occluders = scene::occluders_with(bsp, &face_geoms, &disps, &applied.see_through_brushes);
    progress.advance(1);
    let surfaces = scene::surfaces(&face_geoms, &disps);
    progress.advance(1);
    let tree = tree::Tree::new(bsp);
    let samples: Vec<samples::FaceSamples> = face_geoms
        .par_iter()
        .enumerate()
        .map(|(i, g)| {
            let mut s = samples::FaceSamples::build(g, disps[i].as_ref());
            s.cluster = s.pos.iter().map(|&p| tree.cluster_at(p)).collect();
            s
        })
        .collect();
    progress.finish();
    report
        .phases
        .push(("geometry+bvh".into(), t.elapsed().as_secs_f64()));
    let sky_visible = sky::sky_visible_clusters(bsp, &tree);
    let world = World {
        faces: face_geoms,
        disps,
        samples,
        occluders,
        surfaces,
        pvs: bsp.visibility.clone(),
        tree,
        sky3d: sky::Sky3d::new(bsp),
        sky_visible,
    };
    report.lit_faces = world.faces.iter().filter(|f| f.lit).count();
    report.luxels = world
        .faces
        .iter()
        .filter(|f| f.lit)
        .map(|f| f.luxel_count())
        .sum();

    let mut ranges = Vec::new();
    if options.ldr {
        ranges.push(Range::Ldr);
    }
    if options.hdr || (options.hdr_if_present && !bsp.lighting_hdr.is_empty()) {
        ranges.push(Range::Hdr);
    }
    let mut trace_seconds = 0.0;
    let has_vis = bsp
        .visibility
        .as_ref()
        .is_some_and(|v| v.num_clusters > 0 && !v.pvs.is_empty());
    if !has_vis && options.bounces > 0 {
        report
            .warnings
            .push("no visibility data: direct lighting only (as VRAD), no bounce".into());
    }
    // Parse the lights of every range (same lights, same order; intensities differ).
    let mut light_sets = Vec::new();
    for &range in &ranges {
        let (lights, scan) = lights::parse_lights(&bsp.entities, range);
        if light_sets.is_empty() {
            report.lights = lights.len();
            for u in &scan.unsupported {
                report
                    .warnings
                    .push(format!("unsupported light entity '{u}' skipped"));
            }
            if scan.styles_exhausted > 0 {
                report.warnings.push(format!(
                    "{} named lights left in style 0: all 32 switchable styles are taken",
                    scan.styles_exhausted
                ));
            }
        }
        light_sets.push(lights);
    }
    if ranges.is_empty() {
        return Ok(report);
    }
    // Texture lights: harvested values (read before the world lights are rewritten), then
    // the given ones on top; their patches are appended to every range's list alike.
    let tex_sets: Vec<TexLights> = ranges
        .iter()
        .map(|&range| {
            let mut t = if options.harvest_texlights {
                texlights::harvest_bsp(bsp, &world.faces, range)
            } else {
                TexLights::default()
            };
            if !t.is_empty() {
                report.texlights_harvested = report.texlights_harvested.max(t.len());
            }
            t.extend(&options.texlights);
            t
        })
        .collect();
    let pairs: Vec<(&TexLights, Range)> = tex_sets.iter().zip(ranges.iter().copied()).collect();
    let surface = texlights::surface_lights(bsp, &world.faces, &pairs, options.quality != Quality::Fast);
    report.surface_lights = surface.first().map_or(0, |s| s.len());
    texlights::mark_light_texinfos(bsp, &pairs);
    for (lights, extra) in light_sets.iter_mut().zip(surface) {
        lights.extend(extra);
    }
    report.lights = light_sets.first().map_or(0, |l| l.len());

    // Direct light: one pass of shadow rays serves every range.
    let t = Instant::now();
    let refs: Vec<&[Light]> = light_sets.iter().map(|l| l.as_slice()).collect();
    let mut all_facelights = direct::direct_lighting(&world, &refs, options, progress, &counters);
    let dt = t.elapsed().as_secs_f64();
    trace_seconds += dt;
    report.phases.push(("direct".into(), dt));

    // Bounce rays are traced once; each range then iterates on its own light.
    let t = Instant::now();
    let patches = if has_vis {
        bounce::trace(&world, &all_facelights[0], options, progress, &counters)
    } else {
        Vec::new()
    };
    let dt = t.elapsed().as_secs_f64();
    trace_seconds += dt;
    report.phases.push(("bounce rays".into(), dt));

    for ((range, lights), facelights) in ranges.iter().zip(&light_sets).zip(all_facelights.iter_mut()) {
        let range = *range;
        let tag = if range == Range::Hdr { " (hdr)" } else { "" };
        let t = Instant::now();
        if has_vis {
            report.bounces_done = bounce::bounce(&world, &patches, facelights, options, progress, tag);
        } else {
            // VRAD without visibility data: "direct lighting only", plus a flat ambient of
            // 0.1 on style 0 so unlit corners are not pitch black.
            for (g, fl) in world.faces.iter().zip(facelights.iter_mut()) {
                if let (true, Some(s0)) = (g.lit, fl.samples.first_mut()) {
                    s0.iter_mut().for_each(|v| *v += glam::Vec3::splat(0.1));
                }
            }
        }
        report
            .phases
            .push((format!("bounce{tag}"), t.elapsed().as_secs_f64()));

        let t = Instant::now();
        let cubes = if options.ambient_cubes {
            ambient::leaf_ambient(bsp, &world, facelights, lights, options, progress, &counters)
        } else {
            Vec::new()
        };
        let dt = t.elapsed().as_secs_f64();
        trace_seconds += dt;
        report.phases.push((format!("ambient{tag}"), dt));

        let t = Instant::now();
        output::write_lighting(bsp, &world, facelights, range);
        output::write_world_lights(bsp, &world.tree, lights, range, options.ambient_cubes);
        if options.ambient_cubes {
            report.leaves_with_ambient = output::write_ambient(bsp, &cubes, range);
        }
        report
            .phases
            .push((format!("write{tag}"), t.elapsed().as_secs_f64()));
    }
    report.rays = counters.rays.load(Ordering::Relaxed);
    report.trace_seconds = trace_seconds;
    Ok(report)
}

/// Lights a BSP file's bytes and returns the new file: only the lumps lighting changes are
/// rewritten; every other lump keeps its stored bytes.
pub fn relight(bytes: &[u8], options: &Options, progress: &dyn Progress) -> Result<(Vec<u8>, Report)> {
    let file = BspFile::parse(bytes)?;
    let mut bsp = Bsp::from_file(&file)?;
    let mut doc = BspDocument::from_file(&file);
    let report = light_bsp(&mut bsp, options, progress)?;
    bsp.update_document(&mut doc)?;
    Ok((doc.to_bytes()?, report))
}
