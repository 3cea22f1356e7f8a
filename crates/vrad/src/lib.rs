//! Compile stage 3: lightmaps with direct and bounced light, world lights and ambient cubes,
//! for any Source BSP (ours or Valve's).
//!
//! [`light`] runs the passes of [`pipeline`] over one map in memory; [`relight`] does the same
//! on a file's bytes. The passes follow Valve's VRAD where it shows in the result:
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
//!    one sample per luxel ([`samples`]), placed by the face's lightmap vectors and extents
//!    ([`faces`]), kept a quarter luxel inside the face and lifted 1 unit off it, its cluster
//!    found in the world tree ([`tree`]); a displacement's luxels
//!    laid over its grid, lit at samples between them and blended from those as VRAD does
//!    ([`displacement`]);
//! 3. direct light with shadows traced through a BVH ([`scene`], `srcmap-trace`) of the
//!    world's opaque brushes (`MASK_OPAQUE`; sky and displacement sides left out, as VRAD),
//!    displacements and `vrad_brush_cast_shadows` brush entities; sun and sky ambient count
//!    where a ray reaches a sky face, in clusters that see a cluster holding sky ([`sky`]:
//!    continued through the 3D skybox of a `sky_camera`, whose geometry can still block it);
//!    sky ambient's 162 directions are traced coarse to fine over the luxels of a face
//!    (`refine`) and over the directions (`skydirs`: a fine direction only where the coarse
//!    ones around it do not settle it);
//!    point, spot and surface lights only reach clusters in
//!    their PVS; luxels on a sharp change are re-lit from a 4 × 4 grid of sub-samples
//!    (VRAD's supersampling; not with `-fast`), where the face fills the luxel's cell only in
//!    part just those VRAD's winding test keeps (`samples::Cell::keeps`);
//! 4. bounced light by gathering ([`bounce`]): cosine-weighted rays from a grid of points
//!    every 4 luxels per face (VRAD's patch size) record which patch they hit (through solid
//!    brushes no light passes, and none from the face itself: VRAD makes no transfer within
//!    a face, which only matters on a curved displacement; a patch close by takes VRAD's
//!    polygon form factor); each bounce is then lookups of reflectivity × the patch's mean
//!    light, until a bounce adds less than VRAD's one unit summed over
//!    patches. Without visibility data VRAD does no bounce and adds a flat 0.1 ambient; so do
//!    we;
//! 5. per-leaf ambient cubes ([`ambient`]);
//! 6. output ([`output`]): ColorRGBExp32 samples per style (and the three bump bases on
//!    `SURF_BUMPLIGHT` faces), each style's median colour stored before the face's samples,
//!    face offsets and styles rewritten; world lights; per-leaf ambient cubes;
//! 7. detail props ([`detail`]): each one's colour and switchable-style entries, from the
//!    lightmaps just written;
//! 8. static props ([`vertexlight`], [`texel`]; `Options::static_prop_lighting`): per-vertex
//!    `.vhv` and per-texel `.ppl` files packed into the pakfile.
//!
//! Steps 4 to 8 run once per range (LDR, then HDR), after the ambient-occlusion factors
//! ([`occlusion`]) are traced once for all.
//!
//! [`dump`] prints the light list, each face's lightmap, the detail props' lighting and the
//! static props' `.vhv` meshes as text (the golden tests pin them).
//!
//! LDR and HDR (`-both`) share every ray: only intensities differ between them.
//!
//! Static props ([`props`]) cast shadows when their models can be read (`Options::models`).
//!
//! Ambient occlusion ([`occlusion`]) is an option, off by default.
//!
//! Texture shadows of props ([`alpha`]) with `-textureshadows -StaticPropPolys`.
//!
//! Not modelled: `forcetextureshadow` lines of `lights.rad`, texture-light contributions added straight into ambient
//! cubes, phong smoothing.
//!
//! ```no_run
//! let bytes = std::fs::read("map.bsp").unwrap();
//! let (lit, report) = srcmap_vrad::relight(&bytes, &srcmap_vrad::Options::default(), &srcmap_vrad::NoProgress).unwrap();
//! println!("{} luxels, {} rays", report.count("luxels"), report.count("rays"));
//! # let _ = lit;
//! ```

pub mod alpha;
pub mod ambient;
pub mod bounce;
pub mod color;
pub mod detail;
pub mod direct;
pub mod displacement;
pub mod dump;
pub mod faces;
pub mod lights;
pub mod materials;
pub mod occlusion;
pub mod output;
mod patches;
pub mod pipeline;
pub mod props;
mod radial;
mod refine;
pub mod samples;
pub mod sampling;
pub mod scene;
pub mod shard;
pub mod sky;
mod skydirs;
pub mod texel;
pub mod texlights;
pub mod tree;
mod verify;
pub mod vertexlight;
mod world;

use srcmap_bsp::{Bsp, BspDocument, BspFile};
pub use srcmap_stage::{NoProgress, Progress, Report, Threads};

pub use lights::{Light, LightKind, Range};
pub use materials::MaterialSource;
pub use occlusion::AmbientOcclusion;
pub use props::ModelSource;
pub use texlights::TexLights;
pub use world::FaceLight;
use world::{Counters, World};

/// Errors of the lighting stage.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VradError {
    #[error(transparent)]
    Bsp(#[from] srcmap_bsp::BspError),
    #[error("the map has no faces to light")]
    NoFaces,
    #[error(transparent)]
    Threads(#[from] srcmap_stage::ThreadsError),
    /// An invariant a pass relies on does not hold after the pass named.
    #[error("after {pass}: {message}")]
    Verify { pass: &'static str, message: String },
    /// The map exceeds a limit of its BSP version (`srcmap check` lists them): lighting it
    /// would cost without bound (10⁵ lights) for a map the engine refuses anyway.
    #[error("limit exceeded: {0} (the engine refuses this map; `srcmap check` lists every problem)")]
    OverLimit(String),
    /// A sharded run's part holds what this map's merge cannot use.
    #[error("bad part payload: {0}")]
    Part(String),
}

pub type Result<T> = std::result::Result<T, VradError>;

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
    /// adds less than one unit of light summed over patches, as VRAD).
    pub bounces: u32,
    /// Write the LDR lumps (lighting 8, faces 7, world lights 15, ambient 52/56).
    pub ldr: bool,
    /// Write the HDR lumps (53, 58, 54, 51/55).
    pub hdr: bool,
    /// Worker threads (0: all cores).
    pub threads: Threads,
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
    /// Game files for static props (`-game`): their models cast shadows ([`props`]). Without
    /// it props cast none, and the report says so.
    pub models: Option<ModelSource>,
    /// Static props cast the shadow of their render triangles instead of their collision
    /// model (VRAD's `-StaticPropPolys`).
    pub static_prop_polys: bool,
    /// With `static_prop_polys`, triangles of `$casttextureshadows` models whose material is
    /// `$translucent` or `$alphatest` let light through where their base texture's alpha is
    /// low (VRAD's `-textureshadows`; [`alpha`]).
    pub texture_shadows: bool,
    /// Per-vertex static-prop lighting: `sp_N.vhv` / `sp_hdr_N.vhv` files in the pakfile
    /// ([`vertexlight`]; VRAD's `-StaticPropLighting`, off by default and skipped with
    /// `-fast` as there), and `texelslighting_N.ppl` for lightmapped props ([`texel`]).
    pub static_prop_lighting: bool,
    /// No prop shadows its own vertices (VRAD's `-disablepropselfshadowing`; per prop the
    /// `STATIC_PROP_NO_SELF_SHADOWING` flag).
    pub disable_prop_self_shadowing: bool,
    /// Ambient occlusion ([`occlusion`]; off by default): luxels and prop vertices darkened
    /// by the share of short hemisphere rays that hit geometry nearby.
    pub ambient_occlusion: Option<AmbientOcclusion>,
    /// No supersampling of direct light at sharp changes (VRAD's `-noextra`).
    pub no_extra: bool,
    /// Sky-ambient directions per sample are 162 × this (VRAD's `-extrasky N`; `None`: the
    /// quality's own count).
    pub extra_sky: Option<u32>,
    /// Luxels between bounce gather points (VRAD's `-chop`, its patch size in luxels; `None`:
    /// the quality's own spacing).
    pub chop: Option<u32>,
    /// Check the invariants each pass relies on between passes, also in release builds
    /// (they are always checked in debug builds; see [`srcmap_stage::verify_enabled`]).
    pub verify: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            quality: Quality::Normal,
            bounces: 100,
            ldr: true,
            hdr: false,
            threads: Threads::ALL,
            ambient_cubes: true,
            hdr_if_present: true,
            texlights: TexLights::default(),
            harvest_texlights: true,
            materials: None,
            models: None,
            static_prop_polys: false,
            texture_shadows: false,
            static_prop_lighting: false,
            disable_prop_self_shadowing: false,
            ambient_occlusion: None,
            no_extra: false,
            extra_sky: None,
            chop: None,
            verify: false,
        }
    }
}

/// VRAD's sky-ambient directions at scale 1 (its table of vertex normals).
const VERTEX_NORMALS: usize = 162;

impl Options {
    /// Sky-ambient directions per sample (VRAD: 162, a quarter with `-fast`, ×4 with `-final`
    /// here where VRAD uses ×16).
    pub fn sky_samples(&self) -> usize {
        if let Some(n) = self.extra_sky {
            return VERTEX_NORMALS * n.max(1) as usize;
        }
        match self.quality {
            Quality::Fast => 40,
            Quality::Normal => VERTEX_NORMALS,
            Quality::Final => 4 * VERTEX_NORMALS,
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
        if let Some(chop) = self.chop {
            return chop.max(1) as usize;
        }
        match self.quality {
            Quality::Fast => 4,
            Quality::Normal => 4,
            Quality::Final => 2,
        }
    }
}

/// The names of the figures in a lighting [`Report`], in the order it gives them.
pub mod counts {
    pub const LIT_FACES: &str = "lit_faces";
    pub const LUXELS: &str = "luxels";
    /// Direct lights, texture-light patches included.
    pub const LIGHTS: &str = "lights";
    /// Texture-light patches (`emit_surface` lights) among [`LIGHTS`].
    pub const SURFACE_LIGHTS: &str = "surface_lights";
    /// Materials whose texture-light value was recovered from the input's world lights.
    pub const TEXLIGHTS_HARVESTED: &str = "texlights_harvested";
    /// Texdata records whose reflectivity came from `Options::materials`.
    pub const MATERIALS_REFLECTIVITY: &str = "materials_reflectivity";
    /// Texinfos whose `SURF_BUMPLIGHT` `Options::materials` set or cleared.
    pub const MATERIALS_BUMP_CHANGED: &str = "materials_bump_changed";
    /// Brushes the BSP calls opaque that cast no shadow since a side's material is
    /// see-through (`$translucent`, `$alphatest`, ...) per `Options::materials`.
    pub const SEE_THROUGH_BRUSHES: &str = "see_through_brushes";
    /// Detail props lit (`dprp` lighting).
    pub const DETAIL_PROPS_LIT: &str = "detail_props_lit";
    /// Entries of the detail-prop style lump (`dplt`, or `dplh` when only HDR is lit).
    pub const DETAIL_STYLE_ENTRIES: &str = "detail_style_entries";
    /// `.vhv` files packed (per-vertex static-prop lighting, every range).
    pub const VHV_FILES: &str = "vhv_files";
    /// `texelslighting_N.ppl` files packed (per-texel lighting of lightmapped props).
    pub const PPL_FILES: &str = "ppl_files";
    /// Static props in the map.
    pub const STATIC_PROPS: &str = "static_props";
    /// Static props that cast shadows.
    pub const PROP_SHADOW_CASTERS: &str = "prop_shadow_casters";
    /// Shadow triangles the static props added to the occluders.
    pub const PROP_SHADOW_TRIANGLES: &str = "prop_shadow_triangles";
    /// Prop shadow triangles whose texture lets light through (`-textureshadows`).
    pub const TEXTURE_SHADOW_TRIANGLES: &str = "texture_shadow_triangles";
    /// Static props whose model was not found (they cast no shadow).
    pub const PROPS_WITHOUT_MODEL: &str = "props_without_model";
    /// Luxels that ambient occlusion darkened (0 when it is off).
    pub const OCCLUDED_LUXELS: &str = "occluded_luxels";
    pub const BOUNCES_DONE: &str = "bounces_done";
    pub const LEAVES_WITH_AMBIENT: &str = "leaves_with_ambient";
    /// Rays traced in all passes.
    pub const RAYS: &str = "rays";
    /// Of [`RAYS`]: direct light's sky ambient rays (outside supersampling).
    pub const SKY_AMBIENT_RAYS: &str = "sky_ambient_rays";
    /// Of [`RAYS`]: the rays of direct light's supersampling.
    pub const SUPERSAMPLE_RAYS: &str = "supersample_rays";
    /// Luxels on a sharp change that direct light re-lit from sub-samples.
    pub const SUPERSAMPLED_LUXELS: &str = "supersampled_luxels";
    /// Of [`RAYS`]: the bounce gather rays, with VRAD's patch-to-patch tests of the cells they
    /// land on.
    pub const BOUNCE_RAYS: &str = "bounce_rays";
    /// Of [`RAYS`]: the ambient cubes' rays.
    pub const AMBIENT_RAYS: &str = "ambient_rays";
    /// Of [`RAYS`]: the rays lighting detail props and static props.
    pub const PROP_RAYS: &str = "prop_rays";
    /// Seconds spent in the tracing passes (direct, bounce rays, ambient cubes), for rays per
    /// second.
    pub const TRACE_SECONDS: &str = "trace_seconds";

    /// Every figure, in report order.
    pub const ALL: [&str; 28] = [
        LIT_FACES,
        LUXELS,
        LIGHTS,
        SURFACE_LIGHTS,
        TEXLIGHTS_HARVESTED,
        MATERIALS_REFLECTIVITY,
        MATERIALS_BUMP_CHANGED,
        SEE_THROUGH_BRUSHES,
        STATIC_PROPS,
        PROP_SHADOW_CASTERS,
        PROP_SHADOW_TRIANGLES,
        TEXTURE_SHADOW_TRIANGLES,
        PROPS_WITHOUT_MODEL,
        OCCLUDED_LUXELS,
        DETAIL_PROPS_LIT,
        DETAIL_STYLE_ENTRIES,
        VHV_FILES,
        PPL_FILES,
        BOUNCES_DONE,
        LEAVES_WITH_AMBIENT,
        RAYS,
        SKY_AMBIENT_RAYS,
        SUPERSAMPLE_RAYS,
        SUPERSAMPLED_LUXELS,
        BOUNCE_RAYS,
        AMBIENT_RAYS,
        PROP_RAYS,
        TRACE_SECONDS,
    ];
}

/// Rays per second of the tracing passes of a lighting report (0 when nothing was traced).
pub fn rays_per_second(report: &Report) -> f64 {
    let seconds = report.get(counts::TRACE_SECONDS).unwrap_or(0.0);
    if seconds > 0.0 {
        report.count(counts::RAYS) as f64 / seconds
    } else {
        0.0
    }
}

/// Lights `bsp` in place: lightmaps, face offsets and styles, world lights and ambient cubes
/// of the ranges chosen in `options`. The passes are [`pipeline::Lighting`]'s, in this order.
pub fn light(bsp: &mut Bsp, options: &Options, progress: &dyn Progress) -> Result<Report> {
    light_with(bsp, options, progress, None, |run| {
        run.light_direct();
        run.trace_bounce_rays();
        Ok(())
    })
}

/// The passes of [`light`], direct light and the bounce gather rays given by `direct`
/// (computed here, or put together from a sharded run's parts, which need no sample's
/// cluster outside `cluster_faces`: see [`pipeline::Lighting::only_clusters_of`]).
fn light_with(
    bsp: &mut Bsp,
    options: &Options,
    progress: &dyn Progress,
    cluster_faces: Option<pipeline::ClusterFaces>,
    direct: impl FnOnce(&mut pipeline::Lighting<'_>) -> Result<()> + Send,
) -> Result<Report> {
    if bsp.faces.is_empty() {
        return Ok(nothing_to_light(bsp));
    }
    options.threads.pool()?.install(|| {
        let mut run = pipeline::Lighting::new(bsp, options, progress)?;
        if let Some(faces) = cluster_faces {
            run.only_clusters_of(faces);
        }
        if !prepare(&mut run)? {
            return Ok(run.finish());
        }
        direct(&mut run)?;
        run.verify_face_lights("direct light")?;
        run.trace_occlusion();
        for range in run.ranges.clone() {
            light_range(&mut run, range)?;
        }
        Ok(run.finish())
    })
}

/// The passes before direct light: lights, materials, geometry, texture lights. False when
/// no range is lit (nothing more to do).
fn prepare(run: &mut pipeline::Lighting<'_>) -> Result<bool> {
    run.read_lights();
    run.apply_materials();
    run.build_geometry();
    run.verify_geometry()?;
    if run.ranges.is_empty() {
        return Ok(false);
    }
    run.add_texture_lights();
    run.verify_lights()?;
    Ok(true)
}

/// The passes run once per range, in order.
fn light_range(run: &mut pipeline::Lighting<'_>, range: Range) -> Result<()> {
    run.bounce(range);
    run.apply_occlusion(range);
    run.verify_face_lights("bounce")?;
    run.ambient_cubes(range);
    run.write_output(range);
    run.verify_output(range)?;
    run.light_detail_props(range);
    run.verify_detail_props(range)?;
    run.light_static_props(range);
    run.verify_static_props()
}

/// The report of a map with no (LDR) faces: nothing this stage lights; the map stays as it
/// is, and the report says why.
fn nothing_to_light(bsp: &Bsp) -> Report {
    let mut report = Report::new("vrad");
    report.warn(if bsp.faces_hdr.is_empty() {
        "the map has no faces: nothing to light; the map is unchanged"
    } else {
        "the map's faces are HDR-only (FACES_HDR, as console builds store them): not lit \
         (not supported yet); the map is unchanged"
    });
    report
}

/// Lights a BSP file's bytes and returns the new file: only the lumps lighting changes are
/// rewritten; every other lump keeps its stored bytes.
pub fn relight(bytes: &[u8], options: &Options, progress: &dyn Progress) -> Result<(Vec<u8>, Report)> {
    relight_with(bytes, |bsp| light(bsp, options, progress))
}

/// A BSP file's bytes lit by `light`: the new file, and the report.
fn relight_with(bytes: &[u8], light: impl FnOnce(&mut Bsp) -> Result<Report>) -> Result<(Vec<u8>, Report)> {
    let file = BspFile::parse(bytes)?;
    let mut bsp = parse_within_limits(&file)?;
    let mut doc = BspDocument::from_file(&file);
    let compressed = compressed_lumps(&bsp, &doc)?;
    let report = light(&mut bsp)?;
    // Whether lighting changed a compressed lump is told by its bytes before and after: it
    // need not be decoded again to be compared (a tenth of a merge on an LZMA map).
    let known: Vec<Option<bool>> = (compressed.iter().enumerate())
        .map(|(l, before)| match before {
            Some(b) if doc.lumps[l].version == bsp.lump_versions[l] => Ok(Some(*b != bsp.lump_bytes(l)?)),
            _ => Ok(None),
        })
        .collect::<Result<_>>()?;
    bsp.update_document_knowing(&mut doc, |l| known[l])?;
    Ok((doc.to_bytes()?, report))
}

/// Per lump, its bytes as `bsp` serialises them before lighting when `doc` stores it LZMA
/// compressed (`None` for the others).
fn compressed_lumps(bsp: &Bsp, doc: &BspDocument<'_>) -> Result<Vec<Option<Vec<u8>>>> {
    (doc.lumps.iter().enumerate())
        .map(|(l, slot)| {
            let stored_compressed = l != srcmap_bsp::lump::GAME_LUMP && slot.is_compressed();
            Ok(if stored_compressed {
                Some(bsp.lump_bytes(l)?)
            } else {
                None
            })
        })
        .collect()
}

/// The map of a BSP file, refused when it exceeds a limit of its BSP version.
fn parse_within_limits(file: &BspFile<'_>) -> Result<Bsp> {
    let bsp = Bsp::from_file(file)?;
    if let Some(v) = srcmap_bsp::check::limit_violations(&bsp).first() {
        return Err(VradError::OverLimit(v.to_string()));
    }
    Ok(bsp)
}
