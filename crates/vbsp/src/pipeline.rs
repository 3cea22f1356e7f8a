//! The compile's passes over one state, [`Compile`]: each pass a method named for what it
//! does, called in order by [`crate::compile`].

use std::collections::HashMap;
use std::time::Instant;

use srcmap_geom::{Bounds, DVec3, PlaneSet};

use crate::areas::{self, Areas};
use crate::brush::{self, Brush, BrushSide};
use crate::contents::*;
use crate::cubemap::{self, Cubemaps};
use crate::diag::{Diagnostic, Severity, VbspError, Where};
use crate::displacement::{self, DispSide};
use crate::dump::{self, PassDump};
use crate::emit::{self, Clusters};
use crate::faces::{self, Face};
use crate::ids::{BrushId, EntityId, SideRef, TexinfoId};
use crate::input::MapInput;
use crate::occluders::{self, OccluderFaces};
use crate::overlay::{self, MapOverlay};
use crate::portals::{self, FloodSource, Portals};
use crate::texinfo::{Texinfos, texinfo_for};
use crate::tree::{self, NodeId, Pass, Tree};
use crate::water;
use crate::wvt;
use crate::{Options, Output, Progress, Report, check_limit, prt, verify};

/// Entities removed from the entity lump (their data goes elsewhere or nowhere).
const INTERNAL_CLASSES: &[&str] = &[
    "func_detail",
    "func_viscluster",
    "info_overlay",
    "info_overlay_transition",
    "env_cubemap",
    "prop_static",
    "static_prop",
    "info_lighting",
    "prop_detail",
    "detail_prop",
    "prop_detail_sprite",
    "func_instance",
    "func_instance_parms",
    "func_instance_origin",
    "info_no_dynamic_shadow",
];

/// An entity after preprocessing: what goes in the entity lump and which brushes it owns.
pub(crate) struct Ent {
    pub keyvalues: Vec<(String, String)>,
    pub brushes: Vec<BrushId>,
    pub model: Option<u32>,
}

/// Who an input entity's brushes go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owner {
    /// The world model (worldspawn, func_detail, areaportals, ladders, visclusters).
    World,
    /// The entity's own model.
    Own(EntityId),
    /// Nowhere: the brushes are not built.
    Dropped,
}

/// What preprocessing decided for one input entity.
struct EntityPlan {
    /// Lower-case classname.
    class: String,
    owner: Owner,
    /// Contents added to every side (detail for func_detail).
    base_contents: u32,
    /// A `func_areaportal*`'s portal number.
    areaportal: Option<u32>,
    /// A `func_occluder`'s number.
    occluder: Option<usize>,
    /// Named by a `func_areaportalwindow`: its brushes become windows.
    window: bool,
}

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

    /// The brushes' sides name planes and texinfos that exist.
    pub fn verify_brushes(&mut self) -> Result<(), VbspError> {
        self.checkpoint(
            "brushes",
            |c| verify::brushes(&c.brushes, &c.planes, &c.tex),
            |c| dump::brushes(&c.brushes, &c.planes),
        )
    }

    /// The world tree is whole (while a world pass runs).
    fn verify_world_tree(&self, pass: &'static str) -> Result<(), VbspError> {
        if !self.verify {
            return Ok(());
        }
        verify::tree(&self.tree, &self.planes, self.brushes.len())
            .map_err(|message| VbspError::Verify { pass, message })
    }

    /// The world's portals are two-sided and on their leaves' lists (while a world pass
    /// runs).
    fn verify_world_portals(&self, pass: &'static str) -> Result<(), VbspError> {
        if !self.verify {
            return Ok(());
        }
        verify::portals(&self.tree, &self.portals).map_err(|message| VbspError::Verify { pass, message })
    }

    /// After a world pass: the tree is whole, its portals two-sided and on their leaves'
    /// lists.
    fn verify_world_pass(&mut self, pass: &'static str) -> Result<(), VbspError> {
        self.checkpoint(
            pass,
            |c| {
                verify::tree(&c.tree, &c.planes, c.brushes.len())?;
                verify::portals(&c.tree, &c.portals)
            },
            |c| {
                let visible: Vec<String> = c
                    .brushes
                    .iter()
                    .enumerate()
                    .flat_map(|(bi, b)| {
                        b.sides
                            .iter()
                            .enumerate()
                            .filter(|(_, s)| s.visible)
                            .map(move |(si, _)| format!("{bi}:{si}"))
                    })
                    .collect();
                format!(
                    "{}{}visible sides {}\n",
                    dump::tree(&c.tree, &c.planes),
                    dump::portals(&c.portals),
                    visible.join(" ")
                )
            },
        )
    }

    /// The areas: the tree still whole without the areaportal brushes.
    pub fn verify_areas(&mut self) -> Result<(), VbspError> {
        self.checkpoint(
            "areas",
            |c| verify::tree(&c.tree, &c.planes, c.brushes.len()),
            |c| {
                format!(
                    "{} areas, {} area portals\n{}",
                    c.areas.areas.len(),
                    c.areas.portals.len(),
                    dump::open_leaves(&c.tree, &c.areas.of_node, None)
                )
            },
        )
    }

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

    /// Every open leaf has a cluster in range; the portal file.
    pub fn verify_clusters(&mut self) -> Result<(), VbspError> {
        self.checkpoint(
            "clusters",
            |c| verify::clusters(&c.tree, &c.clusters),
            |c| {
                format!(
                    "{} clusters\n{}{}",
                    c.clusters.count,
                    dump::open_leaves(&c.tree, &c.areas.of_node, Some(&c.clusters)),
                    c.prt
                )
            },
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

    /// Decides each entity's fate: kept in the entity lump (renamed, numbered) or not, and
    /// who owns its brushes.
    pub fn prepare_entities(&mut self) {
        let mut occluders = 0;
        let mut areaportals = 0;
        let mut overlays = 0;
        for (ei, e) in self.input.entities.iter().enumerate() {
            let class = e.classname.to_ascii_lowercase();
            // (who gets the brushes; base contents; kept in the lump). An entity with its own
            // model is always kept: it will be the next in the lump.
            let (owner, base_contents, keep) = match class.as_str() {
                _ if ei == 0 => (Owner::World, 0, true),
                "func_detail" if self.opts.no_detail => (Owner::Dropped, 0, false),
                "func_detail" => (Owner::World, CONTENTS_DETAIL, false),
                c if c.starts_with("func_areaportal") => (Owner::World, 0, true),
                "func_ladder" => (Owner::World, 0, true),
                // Its brushes only merge clusters; they are built, then set aside.
                "func_viscluster" => (Owner::World, 0, false),
                "info_overlay" => {
                    overlays += 1;
                    self.overlays.push(MapOverlay::from_entity(e, &mut self.diags));
                    let named = e.get("targetname").is_some_and(|t| !t.is_empty());
                    (Owner::Dropped, 0, named)
                }
                c if INTERNAL_CLASSES.contains(&c) => (Owner::Dropped, 0, false),
                _ => (Owner::Own(EntityId(self.ents.len() as u32)), 0, true),
            };
            let mut kv = e.keyvalues.clone();
            kv.extend(e.outputs.iter().cloned());
            let mut areaportal = None;
            if class.starts_with("func_areaportal") {
                areaportals += 1;
                areaportal = Some(areaportals);
                set_kv(&mut kv, "portalnumber", areaportals.to_string());
            }
            let mut occluder = None;
            if class == "func_occluder" {
                set_kv(&mut kv, "occludernumber", occluders.to_string());
                occluder = Some(occluders);
                self.occluder_entities.push(ei);
                self.occluder_ents.push(self.ents.len());
                occluders += 1;
            }
            if class == "func_ladder" {
                set_kv(&mut kv, "classname", "info_ladder".to_string());
            }
            if class == "info_overlay" && keep {
                set_kv(&mut kv, "classname", "info_overlay_accessor".to_string());
                set_kv(&mut kv, "OverlayID", (overlays - 1).to_string());
            }
            if keep {
                self.ents.push(Ent {
                    keyvalues: kv,
                    brushes: Vec::new(),
                    model: None,
                });
            }
            self.plans.push(EntityPlan {
                class,
                owner,
                base_contents,
                areaportal,
                occluder,
                window: false,
            });
        }
        self.overlays_by_side = overlay::overlays_by_side(&self.overlays);
        self.occluder_brushes = vec![Vec::new(); occluders];
        self.mark_areaportal_windows();
    }

    /// Valve's ForceFuncAreaPortalWindowContents: the brush entities a
    /// func_areaportalwindow names (`target`, `BackgroundBModel`) fade or stand behind
    /// it, so their brushes are windows rather than solid.
    fn mark_areaportal_windows(&mut self) {
        let entities = &self.input.entities;
        for (wi, w) in entities.iter().enumerate() {
            if self.plans[wi].class != "func_areaportalwindow" {
                continue;
            }
            for key in ["target", "BackgroundBModel"] {
                let name = w.get(key).unwrap_or("");
                let at = Where {
                    entity_id: Some(w.id),
                    classname: Some(w.classname.clone()),
                    ..Default::default()
                };
                if name.is_empty() {
                    if key == "target" {
                        self.diags.push(Diagnostic::warning(
                            at,
                            "func_areaportalwindow names no fade brush (target)",
                        ));
                    }
                    continue;
                }
                let named = entities
                    .iter()
                    .position(|e| e.get("targetname").is_some_and(|t| t.eq_ignore_ascii_case(name)));
                match named {
                    Some(i) => self.plans[i].window = true,
                    None => self.diags.push(Diagnostic::warning(
                        at,
                        format!("func_areaportalwindow's {key} \"{name}\" names no entity"),
                    )),
                }
            }
        }
    }

    /// Builds every kept entity's brushes: planes, texinfos, windings, contents, bevels.
    pub fn build_brushes(&mut self) -> Result<(), VbspError> {
        let mut material_cache: HashMap<String, MaterialFacts> = HashMap::new();
        let plans = std::mem::take(&mut self.plans);
        for ((ei, e), plan) in self.input.entities.iter().enumerate().zip(&plans) {
            let owner = match plan.owner {
                Owner::Dropped => continue,
                Owner::World => EntityId::WORLD,
                Owner::Own(id) => id,
            };
            let (class, base_contents, areaportal) =
                (plan.class.as_str(), plan.base_contents, plan.areaportal);
            // Brush entities with an origin are built around it (the engine moves the model).
            let offset = if owner != EntityId::WORLD {
                e.origin().unwrap_or(DVec3::ZERO)
            } else {
                DVec3::ZERO
            };
            let at = Where {
                entity_id: Some(e.id),
                classname: Some(e.classname.clone()),
                ..Default::default()
            };
            for mb in &e.brushes {
                let mut raw = Vec::with_capacity(mb.sides.len());
                let mut bad = false;
                for s in &mb.sides {
                    let pts = s.points.map(|p| p - offset);
                    let side_at = || Where {
                        brush: Some(mb.id),
                        side: Some(s.id),
                        ..at.clone()
                    };
                    let axes_finite = [&s.uaxis, &s.vaxis]
                        .iter()
                        .all(|a| a.axis.is_finite() && a.shift.is_finite() && a.scale.is_finite());
                    if !pts.iter().all(|p| p.is_finite()) || !axes_finite || !s.lightmap_scale.is_finite() {
                        self.diags.push(Diagnostic::error(
                            side_at(),
                            "plane points, texture axes or lightmap scale are not finite numbers \
                             (NaN or infinite), brush skipped",
                        ));
                        bad = true;
                        break;
                    }
                    let Some(plane) = srcmap_geom::Plane::from_points_snapped(pts[0], pts[1], pts[2]) else {
                        self.diags.push(Diagnostic::error(
                            side_at(),
                            "bad plane points (collinear), brush skipped",
                        ));
                        bad = true;
                        break;
                    };
                    let Some(pid) = self.planes.find_or_insert(plane) else {
                        self.diags.push(Diagnostic::error(
                            side_at(),
                            "plane points span no usable plane, brush skipped",
                        ));
                        bad = true;
                        break;
                    };
                    // Unknown materials are warned about once each by the resolver itself.
                    let info = *material_cache
                        .entry(s.material.clone())
                        .or_insert_with(|| self.opts.materials.resolve(&s.material).facts);
                    self.has_water |= info.contents & (CONTENTS_WATER | CONTENTS_SLIME) != 0;
                    let td = self.tex.texdata(&s.material, &info);
                    let ti = self.tex.add(texinfo_for(s, offset, info.surface_flags, td));
                    raw.push(brush::RawSide {
                        plane: pid,
                        contents: side_contents(info.contents, base_contents, info.surface_flags),
                        surf: info.surface_flags,
                        texinfo: ti,
                        vmf_id: s.id,
                        displacement: s.displacement.is_some(),
                    });
                }
                if bad {
                    continue;
                }
                let Some(mut b) = brush::build_brush(&mut self.planes, owner, &at, mb, raw, &mut self.diags)
                else {
                    continue;
                };
                // Valve patches blend materials before cubemaps: a shiny blend side gets a
                // cubemap patch of its `_wvt_patch` copy.
                self.patch_wvt_sides(&mut b, &at);
                if !self.cubemaps.is_empty() {
                    self.attach_cubemaps(&mut b, offset, &at);
                }
                if b.contents & CONTENTS_ORIGIN != 0 {
                    // Origin brushes only place the entity.
                    if owner != EntityId::WORLD && e.get("origin").is_none() {
                        let c = b.bounds.center();
                        let v = format!("{} {} {}", c.x as i64, c.y as i64, c.z as i64);
                        set_kv(&mut self.ents[owner.idx()].keyvalues, "origin", v);
                    }
                    continue;
                }
                if b.sides.iter().any(|s| s.displacement) {
                    self.gather_displacements(owner, &at, mb, &b);
                    continue;
                }
                if class == "func_viscluster" {
                    self.viscluster_bounds.push((ei, b.bounds));
                    continue;
                }
                if let Some(n) = plan.occluder {
                    // Occluder brushes stay in the brush lump but belong to no model.
                    self.occluder_brushes[n].push(BrushId(self.brushes.len() as u32));
                    self.brushes.push(b);
                    continue;
                }
                if let Some(number) = areaportal {
                    b.contents = CONTENTS_AREAPORTAL;
                    self.portal_number
                        .insert(BrushId(self.brushes.len() as u32), number);
                } else if owner != EntityId::WORLD {
                    // Brush entities are never detail.
                    b.contents &= !CONTENTS_DETAIL;
                }
                if plan.window && areaportal.is_none() {
                    b.contents = (b.contents & !CONTENTS_SOLID) | CONTENTS_TRANSLUCENT | CONTENTS_WINDOW;
                }
                self.ents[owner.idx()]
                    .brushes
                    .push(BrushId(self.brushes.len() as u32));
                self.brushes.push(b);
            }
        }
        check_limit("brushes", self.brushes.len(), 8192)
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
                    let material = self.tex.strings[texdata as usize].clone();
                    let patched = match self.opts.materials.wvt_patch(&material) {
                        // A copy already patched is not patched again.
                        Some(_) if wvt::is_patched(&material) => None,
                        Some(text) => match wvt::patched_name(&self.opts.map_name, &material) {
                            Some(name) => {
                                let (patched, new) = self.tex.clone_texdata(texdata, &name);
                                if new {
                                    // The cubemap step reads the patched copy's own `$envmap`.
                                    let shiny = srcmap_materials::vmt_text_uses_env_cubemap(&text);
                                    self.shiny_texdata.insert(patched, shiny);
                                    self.patch_files.push(wvt::patch_file(&name, text));
                                }
                                Some(patched)
                            }
                            None => {
                                self.diags.push(Diagnostic::warning(
                                    at.clone(),
                                    format!(
                                        "the WorldVertexTransition patch of {material} would have too long a name; not patched"
                                    ),
                                ));
                                None
                            }
                        },
                        None => None,
                    };
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
            let origin = self.cubemaps.samples[chosen].origin;
            let material = material.clone();
            let Some(name) = cubemap::patched_name(&self.opts.map_name, &material, origin) else {
                self.diags.push(Diagnostic::warning(
                    Where {
                        brush: Some(brush.vmf_id),
                        side: Some(side.vmf_id),
                        ..at.clone()
                    },
                    format!("the env_cubemap patch of {material} would have too long a name; not patched"),
                ));
                continue;
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
            side.texinfo = self.tex.add(srcmap_bsp::TexInfo {
                texdata: patched as i32,
                ..texinfo
            });
        }
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

    /// A displacement brush's displacement sides, in map order. Displacements belong to the
    /// world: on any other entity they are reported and left out (Valve stops there).
    fn gather_displacements(
        &mut self,
        owner: EntityId,
        at: &Where,
        mb: &'a crate::input::MapBrush,
        b: &Brush,
    ) {
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
            let Some(source) = mb
                .sides
                .iter()
                .find(|m| m.id == s.vmf_id)
                .and_then(|m| m.displacement.as_deref())
            else {
                continue;
            };
            let Some(winding) = s.winding.clone() else {
                self.diags.push(Diagnostic::error(
                    side_at,
                    "displacement side has no winding; left out",
                ));
                continue;
            };
            // The brush's planes in map order, for the base face as Valve's float clipping
            // makes it.
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
            let float_winding = displacement::float_side_winding(&planes, (own.normal, own.dist));
            self.disp_sides.push(DispSide {
                at: side_at,
                plane: s.plane,
                texinfo: s.texinfo,
                winding,
                float_winding,
                contents: b.contents,
                hammer_id: s.vmf_id,
                source,
            });
        }
    }

    /// Model numbers: the world is *0, then each kept entity with brushes in order.
    pub fn number_models(&mut self) {
        let mut next_model = 1;
        for e in self.ents.iter_mut().skip(1) {
            if !e.brushes.is_empty() {
                e.model = Some(next_model);
                set_kv(&mut e.keyvalues, "model", format!("*{next_model}"));
                next_model += 1;
            }
        }
        self.ents[0].model = Some(0);
        // Valve gives an occluder with brushes an empty model key, set before (in our key
        // order: ahead of) its occluder number.
        for (brushes, &ent) in self.occluder_brushes.iter().zip(&self.occluder_ents) {
            let kv = &mut self.ents[ent].keyvalues;
            if !brushes.is_empty() && !kv.iter().any(|(k, _)| k.eq_ignore_ascii_case("model")) {
                let at = kv
                    .iter()
                    .position(|(k, _)| k == "occludernumber")
                    .unwrap_or(kv.len());
                kv.insert(at, ("model".to_string(), String::new()));
            }
        }
    }

    /// The world's structural and detail brushes, its bounds (and block planes), and the
    /// entities the flood starts from.
    pub fn gather_world(&mut self) -> Result<(), VbspError> {
        let world_ids = &self.ents[0].brushes;
        let brushes = &self.brushes;
        self.structural = world_ids
            .iter()
            .copied()
            .filter(|&b| brushes[b.idx()].contents & CONTENTS_DETAIL == 0)
            .collect();
        self.detail = world_ids
            .iter()
            .copied()
            .filter(|&b| brushes[b.idx()].contents & CONTENTS_DETAIL != 0)
            .collect();
        if self.structural.is_empty() {
            return Err(VbspError::NoBrushes);
        }
        let mut world_bounds = Bounds::EMPTY;
        for &b in world_ids {
            world_bounds = world_bounds.union(&brushes[b.idx()].bounds);
        }
        self.world_bounds = world_bounds;
        tree::add_block_planes(&mut self.planes, &world_bounds);

        // Flood sources: every entity with an origin but the world.
        for (ei, e) in self.input.entities.iter().enumerate().skip(1) {
            let class = e.classname.to_ascii_lowercase();
            if class.starts_with("info_overlay") || class.starts_with("func_instance") {
                continue;
            }
            if let Some(o) = e.origin()
                && o != DVec3::ZERO
            {
                self.origins.push(FloodSource {
                    entity: ei as u32,
                    origin: o,
                    player_start: class == "info_player_start",
                });
            }
        }
        Ok(())
    }

    /// One pass over the world: its tree, portals, the flood from the entities, the outside
    /// filled, the sides the portals show marked visible. The first pass finds the inside
    /// and the visible sides; the second builds the tree the BSP keeps, preferring those
    /// sides. (The second pass's steps have no log lines of their own.)
    pub fn world_pass(&mut self, pass: Pass) -> Result<(), VbspError> {
        let name = match pass {
            Pass::First => "world tree (pass 1)",
            Pass::Second => "world tree (pass 2)",
        };
        self.phase(name);
        self.build_world_tree(pass);
        self.verify_world_tree(name)?;
        self.first_pass_phase(pass, "portals");
        self.make_world_portals();
        self.verify_world_portals(name)?;
        self.first_pass_phase(pass, "flood");
        self.flood(pass)?;
        self.fill_outside();
        self.find_portal_sides();
        self.verify_world_pass(name)
    }

    /// A step of the world pass that has a log line in the first pass only.
    fn first_pass_phase(&mut self, pass: Pass, name: &'static str) {
        if pass == Pass::First {
            self.phase(name);
        }
    }

    fn build_world_tree(&mut self, pass: Pass) {
        self.tree = tree::build_tree(
            &self.planes,
            &self.brushes,
            &self.structural,
            pass,
            self.world_bounds,
            true,
        );
    }

    fn make_world_portals(&mut self) {
        self.portals = portals::make_portals(&mut self.tree, &self.planes);
    }

    /// The flood from the entities. The first pass decides whether the outside is sealed
    /// (a leak is an error unless allowed); the second only marks the leaves again.
    fn flood(&mut self, pass: Pass) -> Result<(), VbspError> {
        let flood = portals::flood_entities(&mut self.tree, &self.planes, &self.portals, &self.origins);
        if pass == Pass::Second {
            return Ok(());
        }
        self.outside_sealed = match flood {
            portals::Flood::Leak { entity, path } => {
                let e = &self.input.entities[entity as usize];
                let mut pointfile = String::new();
                for p in &path {
                    pointfile += &format!("{:.6} {:.6} {:.6}\n", p.x, p.y, p.z);
                }
                let err = VbspError::Leak {
                    entity_id: e.id,
                    classname: e.classname.clone(),
                    origin: e.origin().unwrap_or_default(),
                    pointfile,
                    skipped_brushes: self
                        .diags
                        .iter()
                        .filter(|d| d.severity == Severity::Error && d.at.brush.is_some())
                        .cloned()
                        .collect(),
                };
                if !self.opts.allow_leak {
                    return Err(err);
                }
                self.diags
                    .push(Diagnostic::error(Where::default(), err.to_string()));
                self.leak = Some(err);
                false
            }
            portals::Flood::NoEntities => {
                self.diags.push(Diagnostic::warning(
                    Where::default(),
                    "no entities in open space: the outside is not filled",
                ));
                false
            }
            portals::Flood::Sealed => true,
        };
        Ok(())
    }

    fn fill_outside(&mut self) {
        if self.outside_sealed {
            self.outside_filled = portals::fill_outside(&mut self.tree);
        }
    }

    fn find_portal_sides(&mut self) {
        portals::find_portal_sides(&self.tree, &self.planes, &mut self.portals, &mut self.brushes);
    }

    /// Areas split at the areaportals; areaportal brushes then leave the leaves' brush
    /// lists (their contents flag stays).
    pub fn flood_areas(&mut self) {
        let planes = &self.planes;
        self.areas = areas::flood_areas(
            &self.tree,
            &self.portals,
            &self.brushes,
            &self.portal_number,
            &|p| planes.find(p).map(|id| id.0),
            &mut self.diags,
        );
        for n in &mut self.tree.nodes {
            n.brushes.retain(|b| !self.portal_number.contains_key(b));
        }
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
                    let texinfo = self.tex.list[f.texinfo.idx()];
                    let material = u32::try_from(texinfo.texdata)
                        .map(|td| self.tex.original_material(td).to_string())
                        .unwrap_or_default();
                    let bottom = match self.opts.materials.bottom_material(&material) {
                        Some(name) => {
                            let facts = self.opts.materials.resolve(&name).facts;
                            let td = self.tex.texdata(&name, &facts);
                            Some(self.tex.add(srcmap_bsp::TexInfo {
                                texdata: td as i32,
                                ..texinfo
                            }))
                        }
                        None => {
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
                            None
                        }
                    };
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

    /// Clusters of the world's leaves (the 3D skybox and func_visclusters merged) and the
    /// portal file between them.
    pub fn number_clusters(&mut self) {
        // The 3D skybox: the areas holding a sky_camera become one cluster.
        self.sky_areas = self
            .input
            .entities
            .iter()
            .filter(|e| e.classname.eq_ignore_ascii_case("sky_camera"))
            .filter_map(|e| e.origin())
            .map(|o| self.areas.of_node[self.tree.leaf_at(&self.planes, o).idx()])
            .filter(|&a| a != 0)
            .collect();
        let viscluster_bounds = &self.viscluster_bounds;
        // func_viscluster: a leaf mostly inside one (10% of its volume, as Valve) joins its
        // cluster. Volumes are measured on bounding boxes.
        let visclusters = |leaf: &Bounds| -> Option<usize> {
            let vol = |b: &Bounds| {
                let s = b.size();
                if b.is_empty() {
                    0.0
                } else {
                    s.x.max(0.0) * s.y.max(0.0) * s.z.max(0.0)
                }
            };
            let need = vol(leaf) * 0.1;
            let mut ids: Vec<usize> = viscluster_bounds.iter().map(|v| v.0).collect();
            ids.dedup();
            ids.into_iter().find(|&id| {
                let inside: f64 = viscluster_bounds
                    .iter()
                    .filter(|v| v.0 == id)
                    .map(|v| {
                        let i = Bounds::new(v.1.mins.max(leaf.mins), v.1.maxs.min(leaf.maxs));
                        if i.mins.cmplt(i.maxs).all() { vol(&i) } else { 0.0 }
                    })
                    .sum();
                inside > need
            })
        };
        let sky_areas = &self.sky_areas;
        self.clusters = emit::assign_clusters(
            &self.tree,
            &self.areas.of_node,
            &|a| sky_areas.contains(&a),
            &visclusters,
        );
        self.prt = prt::write_prt(&self.tree, &self.portals, &self.clusters);
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
        let brushes = &self.brushes;
        let planes = &self.planes;
        let tex = &self.tex;
        let built: Vec<(Tree, Vec<Face>, Vec<SideRef>, water::WaterVolumes)> = sub
            .par_iter()
            .map(|e| {
                let mut b = Bounds::EMPTY;
                for &i in &e.brushes {
                    b = b.union(&brushes[i.idx()].bounds);
                }
                let mut t = tree::build_tree(planes, brushes, &e.brushes, Pass::First, b, false);
                let mut p = portals::make_portals(&mut t, planes);
                // Sides found here are visible for the brush lump; gather them.
                let vis = portals::portal_sides(&t, planes, &mut p, brushes);
                let f = faces::make_faces(&t, &p, brushes, false);
                let w = water::find_volumes(&t, &p, planes, brushes, tex);
                (t, f, vis, w)
            })
            .collect();
        let mut sides_visible: Vec<SideRef> = Vec::new();
        for (tree, f, vis, w) in built {
            sides_visible.extend(vis);
            let f = self.draw_water_undersides(f);
            let f = faces::merge_faces(f, &self.planes, &self.overlays_by_side);
            let faces = faces::subdivide_faces(f, &self.tex);
            self.sub_models.push(SubModel {
                tree,
                faces,
                water: w.data,
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

fn set_kv(kv: &mut Vec<(String, String)>, key: &str, value: String) {
    match kv.iter_mut().find(|(k, _)| k.eq_ignore_ascii_case(key)) {
        Some(e) => e.1 = value,
        None => kv.push((key.to_string(), value)),
    }
}
