//! Compile stage 1 (VBSP): map brushes to a BSP tree, portals, faces and a BSP file.
//!
//! [`compile`] is a function from data to data: a [`MapInput`] (entities with brushes as
//! numbers, see [`input`]; [`input_from_vmf`] adapts the VMF crate's typed view and
//! [`instances::collapse`] merges `func_instance` files) and [`Options`] in, an [`Output`]
//! (the BSP as srcmap-bsp's [`Bsp`], the portal file's text, diagnostics naming VMF ids, a
//! [`Report`]) out, or a [`VbspError`] (a leak with its pointfile, an overflowed limit).
//!
//! The pipeline follows Valve's VBSP:
//! 1. planes from side points (snapped, deduplicated) and brushes with Valve's contents
//!    rules, bevels and validation (`brush`);
//! 2. the world in Valve's 1024-unit blocks, each block's brushes carved apart (CSG) and
//!    split into a brush BSP, hints honoured, detail left out (`tree`);
//! 3. portals, the flood from entities (leak → `.lin`), outside filled, visible sides
//!    marked; then a second tree preferring visible sides (`portals`);
//! 4. areas from `func_areaportal` (`areas`), clusters (3D skybox and `func_viscluster`
//!    merged), the PRT1 portal file (`prt`);
//! 5. faces from portals, merged and subdivided to the lightmap limit; detail faces clipped
//!    against each other and filed into the leaves they touch (`faces`);
//! 6. brush models the same way without the flood, and `func_occluder` brushes as one more
//!    such tree whose drawn faces become the occlusion lump (`occluders`); vertices welded
//!    (the occluders' first), T-junctions split, solid subtrees pruned, BSP records (`emit`),
//!    serialised by `srcmap-bsp`;
//! 7. displacements (`displacement`, geometry from `srcmap-disp`): their brushes left out of
//!    the tree at step 1, each displaced side written as a face of the world after its other
//!    faces, with its DISPINFO, vertices, triangle tags, lightmap size and sample positions,
//!    neighbours and allowed vertices;
//! 8. `env_cubemap`s: the CUBEMAPS lump, and each side whose material has `$envmap
//!    env_cubemap` moved (as its brush is built) to a patched copy naming its cubemap, whose
//!    `patch` VMT goes in the pakfile (`cubemap`); before that, each non-displacement side of
//!    a WorldVertexTransition (blend) material moved to its `_wvt_patch` copy, a
//!    single-texture VMT whose text the material resolver gives (`wvt`);
//! 9. water: each model's water leaves grouped into volumes that stop at their surface, one
//!    LEAFWATERDATA record per volume (the world's water leaves point at theirs), a `patch`
//!    VMT per surface material and depth in the pakfile, and a default `water_lod_control`
//!    when the map has water and none (`water`);
//! 10. props on the finished tree: `prop_static` → `sprp` ([`props`]), and detail props →
//!     `dprp` from `detail.vbsp` and each material's `%detailtype`, placed with Valve's
//!     seeded draws ([`detail_props`]).
//!
//! 11. the finishing passes, in the order of Valve's `EndBSPFile`: the BSP records
//!     (`emit`), then water, displacements, physics collision (PHYSCOLLIDE from
//!     [`physics`], PHYSDISP from [`phys_disp`]), overlays (`overlay`), cube maps, static
//!     props, detail props, the pakfile, the world's bounds (`world_mins`/`world_maxs`),
//!     the entity lump.
//!
//! [`compile`] runs these as passes over one state (`pipeline`): each a short method named
//! for what it does, listed in order in `compile_passes`:
//!
//! ```text
//! brushes       prepare_entities build_brushes verify_brushes number_models
//!               set_light_styles verify_light_styles gather_world
//! world         world_pass(First) world_pass(Second) flood_areas verify_areas
//! faces         make_world_faces verify_world_faces make_detail_faces merge_detail_faces
//!               verify_detail_faces number_clusters verify_clusters build_brush_models
//!               verify_brush_models make_occluder_faces
//! write         add_axial_sides find_water prepare_displacements add_overlay_texinfos
//!               emit_records assign_occluder_areas verify_records write_water verify_water
//!               write_displacements verify_displacements build_physics verify_physics
//!               write_overlays verify_overlays write_cubemaps verify_cubemaps
//!               write_static_props verify_static_props write_detail_props
//!               verify_detail_props write_pakfile verify_pakfile set_world_bounds
//!               write_entities verify_entities write
//! ```
//!
//! (`find_water`, `prepare_displacements` and `add_overlay_texinfos` run ahead of the
//! records because the records hold what they make.) Between passes a check of the
//! invariants the next pass relies on (`verify`: trees whole, portals two-sided, faces
//! convex with indices in range; `verify_bsp`: the records' indices in range of the lumps
//! they name) runs when [`srcmap_stage::verify_enabled`] says so (debug builds, tests,
//! `--verify`), and [`Options::dump`] keeps a deterministic text dump of each pass's
//! structures (`dump`), which the golden tests pin. The types these layers share
//! (`Clusters`, `Ent`) live in `types`, so `pipeline` imports `emit`, `verify`, `dump` and
//! `prt`, and none of those imports another.
//!
//! Not done here (other issues): vis (and the leaves' distance to water) and lighting; the
//! default cube map textures when the sky is unknown (they need the game's files or a
//! material table), and blend materials' `_wvt_patch` text for materials no material
//! table holds.

mod areas;
mod brush;
pub mod contents;
mod cubemap;
pub mod detail_props;
mod diag;
mod displacement;
mod dump;
mod emit;
mod faces;
mod from_vmf;
mod ids;
pub mod input;
pub mod instances;
pub mod light_styles;
mod not_compiled;
mod occluders;
mod overlay;
pub mod phys_disp;
pub mod physics;

mod pipeline;
mod portals;
pub mod props;
mod prt;
mod texinfo;
pub mod tree;
mod types;
mod verify;
mod verify_bsp;
mod water;
mod wvt;

pub use brush::{Brush, BrushSide};
pub use contents::{MaterialFacts, Resolver};
pub use diag::{Diagnostic, Severity, VbspError, Where};
pub use dump::PassDump;
pub use from_vmf::{entity_from_vmf, input_from_vmf};
pub use ids::{BrushId, EntityId, SideRef, TexinfoId};
pub use input::{MapBrush, MapEntity, MapInput, MapSide, TexAxis};

use pipeline::Compile;
use tree::Pass;

pub use srcmap_bsp::Bsp;
pub use srcmap_stage::{NoProgress, Progress, Report, Threads};

/// How to compile.
pub struct Options<'a> {
    /// Material facts (contents, size, reflectivity); unknown ones use the built-in rules.
    /// What each material is: `-game` content, a material table, built-in rules, default.
    pub materials: &'a Resolver,
    /// Leave out `func_detail` brushes (Valve's `-nodetail`).
    pub no_detail: bool,
    /// `func_detail` brushes are structural: they split the tree and block vis (Valve's
    /// `-fulldetail`).
    pub full_detail: bool,
    /// On a leak, go on as Valve's VBSP does (the outside stays unfilled, the leak is a
    /// diagnostic and [`Output::leak`] holds it) instead of failing.
    pub allow_leak: bool,
    /// Check the invariants each pass leaves for the next (always on in debug builds); a
    /// violation is [`VbspError::Verify`].
    pub verify: bool,
    /// Keep a text dump of the main structures after each pass in [`Output::dumps`].
    pub dump: bool,
    /// The map's revision (the VMF's `mapversion`), written in the BSP's header.
    pub map_revision: i32,
    /// The map's name, as the BSP's file stem: patched materials are `maps/<name>/…`.
    pub map_name: String,
    /// Worker threads for the passes that run in parallel (the compile runs in a pool of
    /// this size).
    pub threads: Threads,
    /// Reads the game's files (`-game` search paths): models for static and detail props, the
    /// detail file for detail props; `None` compiles without them (see [`props`],
    /// [`detail_props`]).
    pub models: Option<props::ModelReader<'a>>,
    /// The detail file to use instead of the one the map names (`detailvbsp`) among the
    /// game's files: detail props without `-game`.
    pub detail_types: Option<&'a srcmap_content::detail_vbsp::DetailTypes>,
    /// The game the BSP is for: its version, lump layout and game lump versions.
    pub target: &'static srcmap_bsp::Target,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            materials: Resolver::builtin_only(),
            no_detail: false,
            full_detail: false,
            allow_leak: false,
            verify: false,
            dump: false,
            map_revision: 0,
            map_name: String::new(),
            threads: Threads::ALL,
            target: srcmap_bsp::Target::DEFAULT,
            models: None,
            detail_types: None,
        }
    }
}

/// What a compile produced.
pub struct Output {
    /// The BSP, with [`Options::map_revision`].
    pub bsp: Bsp,
    /// Valve's PRT1 portal file.
    pub prt: String,
    pub diagnostics: Vec<Diagnostic>,
    /// Stage `vbsp`: the counts `brushes`, `models`, `faces`, `world_leaves`, `clusters`,
    /// `portals`, `outside_filled`; the time of each phase; the diagnostics as warnings.
    pub report: Report,
    /// The leak, when [`Options::allow_leak`] let the compile go on past one.
    pub leak: Option<VbspError>,
    /// The dump after each pass, when [`Options::dump`] asked for them.
    pub dumps: Vec<PassDump>,
}

/// Compile a map. Map problems that Valve tolerates (bad brushes, unknown materials) are
/// diagnostics in the output; a leak or an overflowed limit is an error.
pub fn compile(input: &MapInput, opts: &Options<'_>, progress: &dyn Progress) -> Result<Output, VbspError> {
    opts.threads
        .pool()?
        .install(|| compile_passes(input, opts, progress))
}

/// The VMF ids of the world's sides that face only the void or solid once the first world
/// tree is flooded (see `pipeline::unseen`), for converters that drop faces no one sees. A
/// leak is an error (without a sealed world nothing is outside).
pub fn unseen_sides(
    input: &MapInput,
    opts: &Options<'_>,
    progress: &dyn Progress,
) -> Result<Vec<i64>, VbspError> {
    opts.threads.pool()?.install(|| {
        let mut c = Compile::new(input, opts, progress)?;
        brush_passes(&mut c)?;
        c.world_pass(Pass::First)?;
        Ok(c.unseen_sides())
    })
}

/// What [`update`] rewrites in a BSP compiled earlier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Only {
    /// The entity lump and the static props (Valve's `-onlyents`); `stale.txt` is added to
    /// the pakfile, as lighting may no longer match the entities.
    Entities,
    /// The static props and the detail props (Valve's `-onlyprops`).
    Props,
}

/// Valve's `-onlyents` / `-onlyprops`: `existing`, the map's BSP compiled earlier, with only
/// what `only` names rewritten from `input` by the compile's own passes (entities numbered,
/// brush models counted, props placed in the existing tree's leaves); every other lump is
/// kept. The map's brush entities must be those the BSP was compiled from (Valve: "won't
/// reimport brush models").
pub fn update(
    input: &MapInput,
    existing: Bsp,
    only: Only,
    opts: &Options<'_>,
    progress: &dyn Progress,
) -> Result<Output, VbspError> {
    opts.threads
        .pool()?
        .install(|| update_passes(input, existing, only, opts, progress))
}

/// [`update`]'s passes: the brush passes (entity plans, model numbers), then the lumps
/// `only` names written over the existing BSP.
fn update_passes(
    input: &MapInput,
    existing: Bsp,
    only: Only,
    opts: &Options<'_>,
    progress: &dyn Progress,
) -> Result<Output, VbspError> {
    let mut c = Compile::new(input, opts, progress)?;
    brush_passes(&mut c)?;
    c.phase("write");
    c.adopt(existing);
    c.write_static_props();
    c.verify_static_props()?;
    match only {
        Only::Entities => {
            c.ensure_water_lod_control();
            c.keep_world_bounds();
            c.mark_lighting_stale()?;
            c.write_entities();
            c.verify_entities()?;
        }
        Only::Props => {
            c.write_detail_props();
            c.verify_detail_props()?;
        }
    }
    c.write()
}

/// [`compile`]'s passes, in order.
fn compile_passes(
    input: &MapInput,
    opts: &Options<'_>,
    progress: &dyn Progress,
) -> Result<Output, VbspError> {
    let mut c = Compile::new(input, opts, progress)?;
    brush_passes(&mut c)?;
    world_passes(&mut c)?;
    face_passes(&mut c)?;
    write_passes(&mut c)?;
    c.write()
}

/// Entities and their brushes; the world's brushes gathered.
fn brush_passes(c: &mut Compile<'_>) -> Result<(), VbspError> {
    c.phase("brushes");
    c.prepare_entities();
    c.build_brushes()?;
    c.verify_brushes()?;
    c.number_models();
    c.set_light_styles()?;
    c.verify_light_styles()?;
    c.gather_world()
}

/// The world's tree (twice), portals, flood and areas.
fn world_passes(c: &mut Compile<'_>) -> Result<(), VbspError> {
    c.world_pass(Pass::First)?;
    c.world_pass(Pass::Second)?;
    c.phase("areas");
    c.flood_areas();
    c.verify_areas()
}

/// The world's faces, clusters, the brush models and the occluders.
fn face_passes(c: &mut Compile<'_>) -> Result<(), VbspError> {
    c.phase("faces");
    c.make_world_faces();
    c.verify_world_faces()?;
    c.phase("detail faces");
    c.make_detail_faces();
    c.phase("detail merge");
    c.merge_detail_faces();
    c.verify_detail_faces()?;
    c.number_clusters();
    c.verify_clusters()?;
    c.phase("brush models");
    c.build_brush_models();
    c.verify_brush_models()?;
    c.make_occluder_faces();
    Ok(())
}

/// Valve's EndBSPFile. Three steps run ahead of the records because the records hold what
/// they make: the water_lod_control entity, the displacements' base faces, the overlays'
/// texinfos.
fn write_passes(c: &mut Compile<'_>) -> Result<(), VbspError> {
    c.phase("write");
    c.add_axial_sides();
    c.find_water();
    c.prepare_displacements();
    c.add_overlay_texinfos();
    c.emit_records()?;
    c.assign_occluder_areas();
    c.verify_records()?;
    c.write_water();
    c.verify_water()?;
    c.write_displacements();
    c.verify_displacements()?;
    finishing_passes(c)
}

/// The finishing passes after the displacements, in Valve's order.
fn finishing_passes(c: &mut Compile<'_>) -> Result<(), VbspError> {
    c.build_physics();
    c.verify_physics()?;
    c.write_overlays();
    c.verify_overlays()?;
    c.write_cubemaps();
    c.verify_cubemaps()?;
    c.write_static_props();
    c.verify_static_props()?;
    c.write_detail_props();
    c.verify_detail_props()?;
    c.write_pakfile()?;
    c.verify_pakfile()?;
    c.set_world_bounds();
    c.write_entities();
    c.verify_entities()
}
