//! Compile stage 1 (VBSP): map brushes to a BSP tree, portals, faces and a BSP file.
//!
//! [`compile`] is a function from data to data: a [`MapInput`] (entities with brushes as
//! numbers, see [`input`]; [`input_from_vmf`] adapts the VMF crate's typed view and
//! [`instances::collapse`] merges `func_instance` files) and [`Options`] in, an [`Output`]
//! (the BSP as srcmap-bsp's records in a [`BspData`], the portal file's text, diagnostics
//! naming VMF ids) out, or a [`CompileError`] (a leak with its pointfile, an overflowed limit).
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
//! 6. brush models the same way without the flood; vertices welded, T-junctions split,
//!    solid subtrees pruned, BSP records (`emit`), serialised by `srcmap-bsp`.
//!
//! Not done here (other issues): displacement surfaces (their base face is kept), static
//! props, overlays, cubemaps, physics collision, leaf water data, vis and lighting.

mod areas;
mod brush;
mod bspdata;
pub mod contents;
mod diag;
mod emit;
mod faces;
mod from_vmf;
pub mod input;
pub mod instances;

mod portals;
mod prt;
pub mod tree;

use std::collections::HashMap;

use srcmap_bsp::{TexData, TexInfo};
use srcmap_geom::{Bounds, DVec3, PlaneSet};

pub use brush::{Brush, BrushSide};
pub use bspdata::BspData;
pub use contents::{MaterialFacts, Resolver};
pub use diag::{CompileError, Diagnostic, Severity, Where};
pub use from_vmf::{entity_from_vmf, input_from_vmf};
pub use input::{MapBrush, MapEntity, MapInput, MapSide, TexAxis};

use contents::*;
use tree::{Pass, Tree};

pub use srcmap_stage::{NoProgress, Progress};

pub struct Options<'a> {
    /// Material facts (contents, size, reflectivity); unknown ones use the built-in rules.
    /// What each material is: `-game` content, a material table, built-in rules, default.
    pub materials: &'a Resolver,
    /// Leave out `func_detail` brushes (Valve's `-nodetail`).
    pub no_detail: bool,
    /// On a leak, go on as Valve's VBSP does (the outside stays unfilled, the leak is a
    /// diagnostic and [`Output::leak`] holds it) instead of failing.
    pub allow_leak: bool,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            materials: Resolver::builtin_only(),
            no_detail: false,
            allow_leak: false,
        }
    }
}

/// Counts for reports and tests.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    pub brushes: usize,
    pub world_leaves: usize,
    pub clusters: usize,
    pub portals: usize,
    pub faces: usize,
    pub models: usize,
    pub outside_filled: usize,
}

pub struct Output {
    pub bsp: BspData,
    /// Valve's PRT1 portal file.
    pub prt: String,
    pub diagnostics: Vec<Diagnostic>,
    pub stats: Stats,
    /// The leak, when [`Options::allow_leak`] let the compile go on past one.
    pub leak: Option<CompileError>,
}

/// A brush model's tree, faces, and the brush sides its portals showed.
type SubModel = (Tree, Vec<faces::Face>, Vec<(u32, u32)>);

/// Entities removed from the entity lump (their data goes elsewhere or nowhere).
const INTERNAL_CLASSES: &[&str] = &[
    "func_detail",
    "func_viscluster",
    "info_overlay",
    "info_overlay_transition",
    "env_cubemap",
    "prop_static",
    "prop_detail",
    "func_instance",
    "func_instance_parms",
    "func_instance_origin",
    "info_no_dynamic_shadow",
];

/// An entity after preprocessing: what goes in the entity lump and which brushes it owns.
struct Ent {
    keyvalues: Vec<(String, String)>,
    /// Brushes (indices into the compile's brush table).
    brushes: Vec<u32>,
    model: Option<u32>,
}

pub(crate) struct Texinfos {
    pub list: Vec<TexInfo>,
    map: HashMap<[u32; 18], u32>,
    pub texdata: Vec<TexData>,
    pub strings: Vec<String>,
    texdata_map: HashMap<String, u32>,
}

impl Texinfos {
    fn new() -> Texinfos {
        Texinfos {
            list: Vec::new(),
            map: HashMap::new(),
            texdata: Vec::new(),
            strings: Vec::new(),
            texdata_map: HashMap::new(),
        }
    }

    fn texdata(&mut self, name: &str, info: &MaterialFacts) -> u32 {
        let key = name.to_ascii_lowercase();
        if let Some(&i) = self.texdata_map.get(&key) {
            return i;
        }
        let i = self.texdata.len() as u32;
        self.strings.push(name.to_string());
        self.texdata.push(TexData {
            reflectivity: info.reflectivity,
            name_id: i as i32,
            width: info.width as i32,
            height: info.height as i32,
            view_width: info.width as i32,
            view_height: info.height as i32,
        });
        self.texdata_map.insert(key, i);
        i
    }

    fn add(&mut self, t: TexInfo) -> u32 {
        let mut key = [0u32; 18];
        for (i, row) in t.texture_vecs.iter().chain(&t.lightmap_vecs).enumerate() {
            for (j, x) in row.iter().enumerate() {
                key[i * 4 + j] = x.to_bits();
            }
        }
        key[16] = t.flags as u32;
        key[17] = t.texdata as u32;
        *self.map.entry(key).or_insert_with(|| {
            self.list.push(t);
            (self.list.len() - 1) as u32
        })
    }
}

impl faces::TexinfoLookup for Texinfos {
    fn flags(&self, texinfo: u32) -> u32 {
        self.list[texinfo as usize].flags as u32
    }
    fn lightmap_vecs(&self, texinfo: u32) -> [DVec3; 2] {
        let l = &self.list[texinfo as usize].lightmap_vecs;
        [0, 1].map(|i| DVec3::new(l[i][0] as f64, l[i][1] as f64, l[i][2] as f64))
    }
}

fn texinfo_for(side: &MapSide, offset: DVec3, flags: u32, texdata: u32) -> TexInfo {
    let lm = if side.lightmap_scale > 0.0 {
        side.lightmap_scale
    } else {
        16.0
    };
    let mut t = TexInfo {
        flags: flags as i32,
        texdata: texdata as i32,
        ..Default::default()
    };
    for (i, ax) in [side.uaxis, side.vaxis].iter().enumerate() {
        let scale = if ax.scale.abs() > 1e-6 { ax.scale } else { 1.0 };
        let tv = ax.axis / scale;
        // Geometry moved by -offset keeps its texture: shift by the offset's projection.
        let shift = ax.shift + tv.dot(offset);
        t.texture_vecs[i] = [tv.x as f32, tv.y as f32, tv.z as f32, shift as f32];
        let lv = ax.axis / lm;
        t.lightmap_vecs[i] = [lv.x as f32, lv.y as f32, lv.z as f32, (shift * scale / lm) as f32];
    }
    t
}

/// Compile a map. Map problems that Valve tolerates (bad brushes, unknown materials) are
/// diagnostics in the output; a leak or an overflowed limit is an error.
pub fn compile(
    input: &MapInput,
    opts: &Options<'_>,
    progress: &dyn Progress,
) -> Result<Output, CompileError> {
    let mut diags = Vec::new();
    let world_in = input.entities.first().ok_or(CompileError::NoWorld)?;
    if !world_in.classname.eq_ignore_ascii_case("worldspawn") {
        return Err(CompileError::NoWorld);
    }
    progress.start("brushes", 0);
    let mut planes = PlaneSet::new();
    let mut tex = Texinfos::new();
    let mut brushes: Vec<Brush> = Vec::new();
    let mut ents: Vec<Ent> = Vec::new();
    let mut material_cache: HashMap<String, MaterialFacts> = HashMap::new();
    let mut occluders = 0;
    let mut areaportals = 0;

    let mut overlays = 0;
    // func_viscluster brushes: (entity index, bounds).
    let mut viscluster_bounds: Vec<(usize, Bounds)> = Vec::new();
    // Areaportal brush (index) -> its entity's portal number.
    let mut portal_number: HashMap<u32, u32> = HashMap::new();
    // Displacement sides: their brushes leave the tree and the brush lump (as in Valve's
    // loader); the sides stay as flat faces of the world until displacements are built.
    let mut disp_faces: Vec<faces::Face> = Vec::new();

    for (ei, e) in input.entities.iter().enumerate() {
        let class = e.classname.to_ascii_lowercase();
        let is_world = ei == 0;
        // (owner: 0 = world, MAX = dropped, else own; base contents; kept in the lump)
        let (target, base_contents, keep) = match class.as_str() {
            _ if is_world => (0, 0, true),
            "func_detail" => (0, if opts.no_detail { u32::MAX } else { CONTENTS_DETAIL }, false),
            c if c.starts_with("func_areaportal") => (0, 0, true),
            "func_ladder" => (0, 0, true),
            // Its brushes only merge clusters; they are built, then set aside.
            "func_viscluster" => (0, 0, false),
            "info_overlay" => {
                overlays += 1;
                (usize::MAX, 0, e.get("targetname").is_some_and(|t| !t.is_empty()))
            }
            c if INTERNAL_CLASSES.contains(&c) => (usize::MAX, 0, false),
            _ => (ents.len(), 0, true),
        };
        let mut kv = e.keyvalues.clone();
        kv.extend(e.outputs.iter().cloned());
        let areaportal = class.starts_with("func_areaportal");
        if areaportal {
            areaportals += 1;
            set_kv(&mut kv, "portalnumber", areaportals.to_string());
        }
        if class == "func_occluder" {
            set_kv(&mut kv, "occludernumber", occluders.to_string());
            occluders += 1;
        }
        if class == "func_ladder" {
            set_kv(&mut kv, "classname", "info_ladder".to_string());
        }
        if class == "info_overlay" && keep {
            set_kv(&mut kv, "classname", "info_overlay_accessor".to_string());
            set_kv(&mut kv, "OverlayID", (overlays - 1).to_string());
        }
        let owner = if keep {
            ents.push(Ent {
                keyvalues: kv,
                brushes: Vec::new(),
                model: None,
            });
            if target == 0 && !is_world {
                0
            } else {
                ents.len() - 1
            }
        } else {
            target
        };
        if target == usize::MAX || base_contents == u32::MAX {
            continue;
        }
        // Brush entities with an origin are built around it (the engine moves the model).
        let offset = if owner != 0 {
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
                let Some(plane) = srcmap_geom::Plane::from_points_snapped(pts[0], pts[1], pts[2]) else {
                    diags.push(Diagnostic::error(
                        Where {
                            brush: Some(mb.id),
                            side: Some(s.id),
                            ..at.clone()
                        },
                        "bad plane points (collinear), brush skipped",
                    ));
                    bad = true;
                    break;
                };
                let Some(pid) = planes.find_or_insert(plane) else {
                    bad = true;
                    break;
                };
                // Unknown materials are warned about once each by the resolver itself.
                let info = *material_cache
                    .entry(s.material.clone())
                    .or_insert_with(|| opts.materials.resolve(&s.material).facts);
                let td = tex.texdata(&s.material, &info);
                let ti = tex.add(texinfo_for(s, offset, info.surface_flags, td));
                raw.push(brush::RawSide {
                    plane: pid,
                    contents: side_contents(info.contents, base_contents, info.surface_flags),
                    surf: info.surface_flags,
                    texinfo: ti,
                    vmf_id: s.id,
                    displacement: s.displacement,
                });
            }
            if bad {
                continue;
            }
            let Some(mut b) = brush::build_brush(&mut planes, owner as u32, &at, mb, raw, &mut diags) else {
                continue;
            };
            if b.contents & CONTENTS_ORIGIN != 0 {
                // Origin brushes only place the entity.
                if owner != 0 && e.get("origin").is_none() {
                    let c = b.bounds.center();
                    let v = format!("{} {} {}", c.x as i64, c.y as i64, c.z as i64);
                    set_kv(&mut ents[owner].keyvalues, "origin", v);
                }
                continue;
            }
            if b.sides.iter().any(|s| s.displacement) {
                for s in b.sides.iter().filter(|s| s.displacement) {
                    if let Some(w) = &s.winding {
                        disp_faces.push(faces::Face {
                            plane: s.plane,
                            texinfo: s.texinfo,
                            winding: w.clone(),
                            node: None,
                            contents: 0,
                            side: (u32::MAX, 0),
                            hammer_id: s.vmf_id,
                            leaves: Vec::new(),
                        });
                    }
                }
                continue;
            }
            if class == "func_viscluster" {
                viscluster_bounds.push((ei, b.bounds));
                continue;
            }
            if class == "func_occluder" {
                // Occluder brushes stay in the brush lump but belong to no model.
                brushes.push(b);
                continue;
            }
            if areaportal {
                b.contents = CONTENTS_AREAPORTAL;
                portal_number.insert(brushes.len() as u32, areaportals);
            } else if owner != 0 {
                // Brush entities are never detail.
                b.contents &= !CONTENTS_DETAIL;
            }
            ents[owner].brushes.push(brushes.len() as u32);
            brushes.push(b);
        }
    }
    check_limit("brushes", brushes.len(), 8192)?;

    // Model numbers: the world is *0, then each kept entity with brushes in order.
    let mut next_model = 1;
    for e in ents.iter_mut().skip(1) {
        if !e.brushes.is_empty() {
            e.model = Some(next_model);
            set_kv(&mut e.keyvalues, "model", format!("*{next_model}"));
            next_model += 1;
        }
    }
    ents[0].model = Some(0);

    // ---- the world ----
    let world_ids = &ents[0].brushes;
    let structural: Vec<u32> = world_ids
        .iter()
        .copied()
        .filter(|&b| brushes[b as usize].contents & CONTENTS_DETAIL == 0)
        .collect();
    let detail: Vec<u32> = world_ids
        .iter()
        .copied()
        .filter(|&b| brushes[b as usize].contents & CONTENTS_DETAIL != 0)
        .collect();
    if structural.is_empty() {
        return Err(CompileError::NoBrushes);
    }
    let mut world_bounds = Bounds::EMPTY;
    for &b in world_ids {
        world_bounds = world_bounds.union(&brushes[b as usize].bounds);
    }
    tree::add_block_planes(&mut planes, &world_bounds);

    // Flood sources: every entity with an origin but the world.
    let mut origins = Vec::new();
    for (ei, e) in input.entities.iter().enumerate().skip(1) {
        let class = e.classname.to_ascii_lowercase();
        if class.starts_with("info_overlay") || class.starts_with("func_instance") {
            continue;
        }
        if let Some(o) = e.origin()
            && o != DVec3::ZERO
        {
            origins.push((ei as u32, o, class == "info_player_start"));
        }
    }

    progress.start("world tree (pass 1)", 0);
    let mut stats = Stats {
        brushes: brushes.len(),
        ..Default::default()
    };
    let mut tree = tree::build_tree(&planes, &brushes, &structural, Pass::First, world_bounds, true);
    progress.start("portals", 0);
    let mut prt = portals::make_portals(&mut tree, &planes);
    progress.start("flood", 0);
    let flood = portals::flood_entities(&mut tree, &planes, &prt, &origins);
    let mut leak = None;
    let filled_ok = match flood {
        portals::Flood::Leak { entity, path } => {
            let e = &input.entities[entity as usize];
            let mut pointfile = String::new();
            for p in &path {
                pointfile += &format!("{:.6} {:.6} {:.6}\n", p.x, p.y, p.z);
            }
            let err = CompileError::Leak {
                entity_id: e.id,
                classname: e.classname.clone(),
                origin: e.origin().unwrap_or_default(),
                pointfile,
            };
            if !opts.allow_leak {
                return Err(err);
            }
            diags.push(Diagnostic::error(Where::default(), err.to_string()));
            leak = Some(err);
            false
        }
        portals::Flood::NoEntities => {
            diags.push(Diagnostic::warning(
                Where::default(),
                "no entities in open space: the outside is not filled",
            ));
            false
        }
        portals::Flood::Sealed => true,
    };
    if filled_ok {
        stats.outside_filled = portals::fill_outside(&mut tree);
    }
    portals::find_portal_sides(&tree, &planes, &mut prt, &mut brushes);

    progress.start("world tree (pass 2)", 0);
    let mut tree = tree::build_tree(&planes, &brushes, &structural, Pass::Second, world_bounds, true);
    debug_assert_eq!(tree.verify(), Ok(()));
    let mut prt = portals::make_portals(&mut tree, &planes);
    let _ = portals::flood_entities(&mut tree, &planes, &prt, &origins);
    if filled_ok {
        stats.outside_filled = portals::fill_outside(&mut tree);
    }
    portals::find_portal_sides(&tree, &planes, &mut prt, &mut brushes);

    progress.start("areas", 0);
    let area_info = areas::flood_areas(
        &tree,
        &prt,
        &brushes,
        &portal_number,
        &|p| planes.find(p).map(|id| id.0),
        &mut diags,
    );
    // Areaportal brushes leave the leaves' brush lists (their contents flag stays).
    for n in &mut tree.nodes {
        n.brushes.retain(|b| !portal_number.contains_key(b));
    }

    progress.start("faces", 0);
    let world_faces = faces::make_faces(&tree, &prt, &brushes, true);
    let world_faces = faces::merge_faces(world_faces, &planes);
    let world_faces = faces::subdivide_faces(world_faces, &tex);
    progress.start("detail faces", 0);
    let mut detail_faces = faces::detail_faces(&mut tree, &planes, &brushes, &detail);
    progress.start("detail merge", 0);
    detail_faces = faces::merge_faces(detail_faces, &planes);
    detail_faces = faces::subdivide_faces(detail_faces, &tex);
    faces::filter_into_leaves(&tree, &planes, &mut detail_faces);
    faces::filter_into_leaves(&tree, &planes, &mut disp_faces);
    detail_faces.extend(disp_faces);

    // The 3D skybox: the areas holding a sky_camera become one cluster.
    let sky_areas: Vec<u32> = input
        .entities
        .iter()
        .filter(|e| e.classname.eq_ignore_ascii_case("sky_camera"))
        .filter_map(|e| e.origin())
        .map(|o| area_info.of_node[tree.leaf_at(&planes, o).idx()])
        .filter(|&a| a != 0)
        .collect();
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
    let clusters = emit::assign_clusters(
        &tree,
        &area_info.of_node,
        &|a| sky_areas.contains(&a),
        &visclusters,
    );
    let prt_text = prt::write_prt(&tree, &prt, &clusters);
    stats.portals = prt_text.lines().nth(2).and_then(|l| l.parse().ok()).unwrap_or(0);

    // ---- brush entities ----
    progress.start("brush models", 0);
    let sub: Vec<&Ent> = ents.iter().filter(|e| e.model.is_some_and(|m| m > 0)).collect();
    let sub_results: Vec<(Tree, Vec<faces::Face>)> = {
        use rayon::prelude::*;
        let brushes_ref = &brushes;
        let planes_ref = &planes;
        let mut sides_visible: Vec<(u32, u32)> = Vec::new();
        let res: Vec<SubModel> = sub
            .par_iter()
            .map(|e| {
                let mut b = Bounds::EMPTY;
                for &i in &e.brushes {
                    b = b.union(&brushes_ref[i as usize].bounds);
                }
                let mut t = tree::build_tree(planes_ref, brushes_ref, &e.brushes, Pass::First, b, false);
                let mut p = portals::make_portals(&mut t, planes_ref);
                // Sides found here are visible for the brush lump; gather them.
                let vis = portals::portal_sides(&t, planes_ref, &mut p, brushes_ref);
                let f = faces::make_faces(&t, &p, brushes_ref, false);
                (t, f, vis)
            })
            .collect();
        let mut out = Vec::new();
        for (t, f, vis) in res {
            sides_visible.extend(vis);
            let f = faces::merge_faces(f, &planes);
            let f = faces::subdivide_faces(f, &tex);
            out.push((t, f));
        }
        for (b, s) in sides_visible {
            brushes[b as usize].sides[s as usize].visible = true;
        }
        out
    };

    progress.start("write", 0);
    // Valve's EmitBrushes adds an axial side at the brush bounds wherever the brush has no
    // side on exactly that plane (a redundant axial side elsewhere hides it from the bevel
    // pass); such sides are written without the bevel flag, as Valve does.
    for b in &mut brushes {
        for axis in 0..3 {
            for dir in [-1.0, 1.0] {
                let mut n = DVec3::ZERO;
                n[axis] = dir;
                let dist = if dir > 0.0 {
                    b.bounds.maxs[axis]
                } else {
                    -b.bounds.mins[axis]
                };
                let Some(id) = planes.find_or_insert(srcmap_geom::Plane::new(n, dist)) else {
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
    let mut models = vec![emit::ModelIn {
        tree: &tree,
        faces: world_faces,
        detail_faces,
        clusters: Some(&clusters),
    }];
    for (t, f) in &sub_results {
        models.push(emit::ModelIn {
            tree: t,
            faces: f.clone(),
            detail_faces: Vec::new(),
            clusters: None,
        });
    }
    // As Valve: Hammer's "id" becomes "hammerid"; the world records its bounds.
    for e in &mut ents {
        for (k, _) in e.keyvalues.iter_mut() {
            if k.eq_ignore_ascii_case("id") {
                *k = "hammerid".to_string();
            }
        }
    }
    let entity_text = emit::entity_lump(&ents);
    let mut bsp = emit::emit(
        &planes,
        &brushes,
        &tex,
        models,
        entity_text,
        clusters.count,
        area_info,
    )?;
    // Valve's `ComputeBoundsNoSkybox`: the drawn faces of the open leaves outside the 3D
    // skybox, as worldspawn's world_mins / world_maxs.
    if let Some(b) = bsp.world_bounds_no_skybox(&sky_areas) {
        let fmt = |v: [f32; 3]| format!("{} {} {}", v[0] as i32, v[1] as i32, v[2] as i32);
        set_kv(&mut ents[0].keyvalues, "world_mins", fmt(b.0));
        set_kv(&mut ents[0].keyvalues, "world_maxs", fmt(b.1));
        bsp.entities = emit::entity_lump(&ents);
    }
    stats.models = bsp.models.len();
    stats.faces = bsp.faces.len();
    stats.clusters = clusters.count;
    stats.world_leaves = tree.leaves().count();
    Ok(Output {
        bsp,
        prt: prt_text,
        diagnostics: diags,
        leak,
        stats,
    })
}

fn set_kv(kv: &mut Vec<(String, String)>, key: &str, value: String) {
    match kv.iter_mut().find(|(k, _)| k.eq_ignore_ascii_case(key)) {
        Some(e) => e.1 = value,
        None => kv.push((key.to_string(), value)),
    }
}

pub(crate) fn check_limit(what: &'static str, count: usize, max: usize) -> Result<(), CompileError> {
    if count > max {
        Err(CompileError::Limit { what, count, max })
    } else {
        Ok(())
    }
}
