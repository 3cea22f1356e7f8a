//! The compile's passes over one state, [`Compile`]: each pass a method named for what it
//! does, called in order by [`crate::compile`]. The passes live by subject: entities and
//! model numbers (`entities`), brushes (`brushes`), the world tree, areas and clusters
//! (`world`), faces (`faces`), the BSP records and what they need first (`records`), and
//! the finishing passes of Valve's EndBSPFile (`finish`).

mod brushes;
mod entities;
mod faces;
mod finish;
mod records;
mod unseen;
mod update;
mod world;

use std::collections::HashMap;
use std::time::Instant;

use srcmap_geom::{Bounds, PlaneSet};

use crate::areas::Areas;
use crate::brush::Brush;
use crate::cubemap::Cubemaps;
use crate::diag::{Diagnostic, VbspError};
use crate::displacement::{Disp, DispSide};
use crate::dump::PassDump;
use crate::faces::Face;
use crate::ids::BrushId;
use crate::input::MapInput;
use crate::occluders::OccluderFaces;
use crate::overlay::MapOverlay;
use crate::portals::{FloodSource, Portals};
use crate::texinfo::Texinfos;
use crate::tree::{NodeId, Tree};
use crate::types::{Clusters, Ent};
use crate::water::WaterVolumes;
use crate::{Options, Progress, Report};
use entities::EntityPlan;

/// A brush model's tree and faces.
struct SubModel {
    tree: Tree,
    faces: Vec<Face>,
    /// Its water volumes' records (Valve makes them for brush models too, but points no
    /// leaf at them).
    water: Vec<srcmap_bsp::LeafWaterData>,
}

/// Everything the compile knows, pass by pass.
pub(crate) struct Compile<'a> {
    input: &'a MapInput,
    opts: &'a Options<'a>,
    progress: &'a dyn Progress,
    /// Check the invariants between passes ([`srcmap_stage::verify_enabled`]).
    verify: bool,
    /// The dump after each pass, when asked for.
    dumps: Option<Vec<PassDump>>,
    planes: PlaneSet,
    tex: Texinfos,
    /// The `env_cubemap` samples and the sides they were given by hand.
    cubemaps: Cubemaps,
    /// Per texdata: whether its material has `$envmap env_cubemap`.
    shiny_texdata: HashMap<u32, bool>,
    /// Per texdata: its `_wvt_patch` copy, when its material is a WorldVertexTransition one
    /// the resolver knows the patch of.
    wvt_texdata: HashMap<u32, Option<u32>>,
    /// The patched materials' pakfile files (path, text), in the order they were made.
    patch_files: Vec<(String, Vec<u8>)>,
    /// The cube map textures (`maps/<map>/c<x>_<y>_<z>`) patched materials name, in the order
    /// their first patch was made: each gets a copy of the default cube map.
    cubemap_textures: Vec<String>,
    /// The brush lump, in order.
    brushes: Vec<Brush>,
    /// The entity lump, in order.
    ents: Vec<Ent>,
    /// One per input entity.
    plans: Vec<EntityPlan>,
    /// func_viscluster brushes: (input entity index, bounds).
    viscluster_bounds: Vec<(usize, Bounds)>,
    /// Areaportal brush (index) -> its entity's portal number.
    portal_number: HashMap<BrushId, u32>,
    /// Each func_occluder's brushes, in map order.
    occluder_brushes: Vec<Vec<BrushId>>,
    /// Each func_occluder's input entity index, in map order.
    occluder_entities: Vec<usize>,
    /// Each func_occluder's index in the entity lump, in map order.
    occluder_ents: Vec<usize>,
    /// The occluders' own tree's faces and polygons.
    occluder_faces: OccluderFaces,
    /// Displacement sides in map order: their brushes leave the tree and the brush lump (as
    /// in Valve's loader); each side becomes a displacement face of the world.
    disp_sides: Vec<DispSide<'a>>,
    /// The world's brushes split by detail.
    structural: Vec<BrushId>,
    detail: Vec<BrushId>,
    world_bounds: Bounds,
    /// Flood sources: every entity with an origin but the world.
    origins: Vec<FloodSource>,
    tree: Tree,
    portals: Portals,
    /// The flood of the first pass found the inside: the outside is filled.
    outside_sealed: bool,
    leak: Option<VbspError>,
    areas: Areas,
    world_faces: Vec<Face>,
    detail_faces: Vec<Face>,
    /// Areas of the 3D skybox.
    sky_areas: Vec<u32>,
    clusters: Clusters,
    prt: String,
    sub_models: Vec<SubModel>,
    diags: Vec<Diagnostic>,
    /// The map's `info_overlay`s in entity order (an overlay's id is its index).
    overlays: Vec<MapOverlay>,
    /// The overlays on each VMF side they name: faces only merge within one set.
    overlays_by_side: HashMap<i64, Vec<u32>>,
    /// Some brush material makes water or slime.
    has_water: bool,
    /// Leaves the last world pass filled.
    outside_filled: usize,
    report: Report,
    /// The phase running, and since when.
    current_phase: Option<(&'static str, Instant)>,
    /// What the finishing passes made so far.
    finish: Finish,
}

/// What the BSP-writing passes make, each for the passes after it.
#[derive(Default)]
struct Finish {
    /// The world's and the brush models' water volumes (`find_water`).
    water: WaterVolumes,
    /// The displacements, checked, with their grids (`prepare_displacements`).
    disps: Vec<Disp>,
    /// Each overlay's texinfo (`add_overlay_texinfos`).
    overlay_texinfos: Vec<u32>,
    /// The BSP being written (from `emit_records` on).
    bsp: srcmap_bsp::Bsp,
    /// The VMF side id of each face, unclamped (`emit_records`).
    face_sides: Vec<i64>,
    /// The world's leaves as written: (leaf index, tree node) (`emit_records`).
    world_leaves: crate::emit::WorldLeaves,
}

impl<'a> Compile<'a> {
    /// A compile of `input`, which must start with its worldspawn.
    pub fn new(
        input: &'a MapInput,
        opts: &'a Options<'a>,
        progress: &'a dyn Progress,
    ) -> Result<Self, VbspError> {
        let world = input.entities.first().ok_or(VbspError::NoWorld)?;
        if !world.classname.eq_ignore_ascii_case("worldspawn") {
            return Err(VbspError::NoWorld);
        }
        entities_within_limit(input, opts)?;
        Ok(Compile {
            input,
            opts,
            progress,
            verify: srcmap_stage::verify_enabled(opts.verify),
            dumps: opts.dump.then(Vec::new),
            planes: PlaneSet::new(),
            tex: Texinfos::new(),
            cubemaps: Cubemaps::gather(input),
            shiny_texdata: HashMap::new(),
            wvt_texdata: HashMap::new(),
            patch_files: Vec::new(),
            cubemap_textures: Vec::new(),
            brushes: Vec::new(),
            ents: Vec::new(),
            plans: Vec::new(),
            occluder_brushes: Vec::new(),
            occluder_entities: Vec::new(),
            occluder_ents: Vec::new(),
            occluder_faces: OccluderFaces::default(),
            viscluster_bounds: Vec::new(),
            portal_number: HashMap::new(),
            disp_sides: Vec::new(),
            structural: Vec::new(),
            detail: Vec::new(),
            world_bounds: Bounds::EMPTY,
            origins: Vec::new(),
            tree: Tree {
                nodes: Vec::new(),
                head: NodeId(0),
                outside: NodeId(0),
                bounds: Bounds::EMPTY,
            },
            portals: Portals::default(),
            outside_sealed: false,
            leak: None,
            areas: Areas::default(),
            world_faces: Vec::new(),
            detail_faces: Vec::new(),
            sky_areas: Vec::new(),
            clusters: Clusters::default(),
            prt: String::new(),
            sub_models: Vec::new(),
            diags: Vec::new(),
            overlays: Vec::new(),
            overlays_by_side: HashMap::new(),
            has_water: false,
            outside_filled: 0,
            report: Report::new("vbsp"),
            current_phase: None,
            finish: Finish::default(),
        })
    }

    /// Starts a phase of the log (and ends the one before, timing it).
    pub fn phase(&mut self, name: &'static str) {
        self.end_phase();
        self.progress.start(name, 0, srcmap_stage::Unit::Steps);
        self.current_phase = Some((name, Instant::now()));
    }

    fn end_phase(&mut self) {
        if let Some((name, since)) = self.current_phase.take() {
            self.progress.finish();
            self.report.time(name, since.elapsed());
        }
    }

    /// Between two passes: runs `check` on the state when verifying (a violation is an
    /// error naming `pass`), and keeps `dump`'s text when dumping.
    fn checkpoint(
        &mut self,
        pass: &'static str,
        check: impl FnOnce(&Self) -> Result<(), String>,
        dump: impl FnOnce(&Self) -> String,
    ) -> Result<(), VbspError> {
        if self.verify {
            check(self).map_err(|message| VbspError::Verify { pass, message })?;
        }
        if self.dumps.is_some() {
            let text = dump(self);
            self.dumps.get_or_insert_default().push(PassDump { pass, text });
        }
        Ok(())
    }
}

/// Adds a file to the pakfile's list unless one of that path is there already.
fn add_pak_file(files: &mut Vec<(String, Vec<u8>)>, path: String, data: Vec<u8>) {
    if !files.iter().any(|(p, _)| *p == path) {
        files.push((path, data));
    }
}

/// Refuses a map with more entities than its target's BSP may hold before any work: a VMF of
/// 10⁶ entities would take gigabytes to compile into a map the engine refuses.
fn entities_within_limit(input: &MapInput, opts: &Options<'_>) -> Result<(), VbspError> {
    let version = opts.target.bsp_version;
    let limit = srcmap_bsp::check::limits(version)
        .into_iter()
        .find(|(lump, ..)| *lump == srcmap_bsp::lump::ENTITIES);
    match limit {
        Some((_, max, name)) if input.entities.len() > max => Err(VbspError::OverLimit(format!(
            "{} entities exceed {name} ({max})",
            input.entities.len()
        ))),
        _ => Ok(()),
    }
}
