//! The physics collision lump (physcollide): VPhysics' IVP compact surfaces built from the BSP's
//! own brushes, as Valve's vbsp groups them.
//!
//! - The world (model 0): one static solid per contents group — the solid brushes
//!   (`MASK_SOLID`; from BSP 21 on the grates apart, [`world_solid_masks`]), the player clips,
//!   the NPC clips — unshrunk, each triangle carrying the index of its side's surface property
//!   (the target game's, [`build_for_version`]) in the world's material table.
//! - Each brush entity: one solid of its solid, clip and water brushes, every visible side
//!   (one its other brushes do not cover all over) pulled in by half a unit (unless that would
//!   swallow the brush), with its mass, volume and surface property in the key data.
//!
//! Each brush becomes one convex ledge: the brush's side polygons (clipped by every other
//! side), their corners welded, fanned into triangles whose edges find their twins. The ledges
//! hang in a binary tree of bounding spheres split along the longest axis.
//!
//! - The world's water: one fluid solid per water volume (leaf water data entry), its surface
//!   plane at the volume's surface height.
//! - Power-4 terrain (then there is no physdisp): polysoup static solids of flat triangle
//!   ledges, between the clip solids and the fluids ([`terrain_soups`]).
//!
//! Displacement collision (physdisp) is built by [`crate::phys_disp`].
//!
//! Brush entities weigh as Valve's vbsp weighs them: the surface property's density times the
//! convexes' volume, or for a shell material its density × thickness times the surface area;
//! both learned by the material table from Valve's maps, VPhysics' default density otherwise.
//!
//! A brush entity of several convexes also gets their outer convex hull as a ledge on the tree's
//! root (VPhysics' `buildOuterConvexHull`); its key data's volume stays the convexes' sum, as in
//! Valve's lumps.
//!
//! Not done (reported, not faked): a displacement's `surfaceprop2` (Valve's choice by alpha),
//! and the game's own `surfaceproperties*.txt` densities with `-game`.

use srcmap_bsp::{Bsp, PhysCollide, PhysModel, flags::Contents};
use srcmap_geom::DVec3;
use srcmap_geom::{Plane, Winding};
use srcmap_materials::{CUBIC_METRES_PER_CUBIC_INCH, SurfaceMass, VPHYSICS_MAX_MASS};
use srcmap_phys::surface::{NODE_SIZE, RECORD_SIZE, SURFACE_HEADER_SIZE};
use srcmap_phys::{
    CollideHeader, CompactSurface, DragAxes, Edge, Ledge, LedgeTreeNode, PointRun, Solid, SolidBody,
    SurfaceHeader, Triangle,
};

/// Valve's `VPHYSICS_SHRINK`: brush entities' visible sides move in by this much.
const SHRINK: f64 = 0.5;
/// Valve's `VPHYSICS_MERGE`: corners closer than this are one point.
const MERGE: f64 = 0.01;
/// `METERS_PER_INCH`.
const METERS_PER_INCH: f64 = 0.0254;
/// VPhysics' default density (kg/m³), that of the `default` surface property, for surface
/// properties whose weight is unknown.
const DEFAULT_DENSITY: f64 = 2000.0;
/// `TEXINFO_NODE`.
const NO_TEXINFO: i32 = -1;

const MASK_SOLID: u32 =
    Contents::SOLID.0 | Contents::MOVEABLE.0 | Contents::WINDOW.0 | Contents::MONSTER.0 | Contents::GRATE.0;
/// `CONTENTS_SOLID` up to `LAST_VISIBLE_CONTENTS` (`CONTENTS_OPAQUE`).
const LAST_VISIBLE_CONTENTS_MASK: u32 = 0xff;
const MASK_WATER: u32 = Contents::WATER.0 | Contents::MOVEABLE.0 | Contents::SLIME.0;

/// The lump and the brushes it left out.
#[derive(Debug, Default)]
pub struct PhysicsBuild {
    pub collide: PhysCollide,
    /// (BSP brush index, why it was skipped).
    pub skipped: Vec<(usize, String)>,
}

/// One brush as a closed convex mesh (Hammer units, counter-clockwise seen from outside).
struct ConvexMesh {
    brush: usize,
    points: Vec<DVec3>,
    triangles: Vec<[u32; 3]>,
    /// Per triangle: the surface-property slot (world) or 0.
    materials: Vec<u8>,
}

/// Builds physcollide for every model of `bsp`, as the vbsp of its BSP version groups the
/// world ([`build_for_version`]).
pub fn build(
    bsp: &Bsp,
    surfaceprop: &dyn Fn(&str) -> Option<String>,
    surface_mass: &dyn Fn(&str) -> Option<SurfaceMass>,
) -> PhysicsBuild {
    build_for_version(bsp, bsp.version, surfaceprop, surface_mass)
}

/// Builds physcollide for every model of `bsp`, the world's solids grouped as the vbsp of
/// BSP `version` groups them ([`world_solid_masks`]). `surfaceprop` names a material's surface
/// property (`None`: the material is unknown, `default` is used as Valve does);
/// `surface_mass` tells how a surface property weighs (`None`: VPhysics' default density).
pub fn build_for_version(
    bsp: &Bsp,
    version: i32,
    surfaceprop: &dyn Fn(&str) -> Option<String>,
    surface_mass: &dyn Fn(&str) -> Option<SurfaceMass>,
) -> PhysicsBuild {
    let mut out = PhysicsBuild::default();
    for mi in 0..bsp.models.len() {
        let made = if mi == 0 {
            world_collision(bsp, version, surfaceprop, &mut out.skipped)
        } else {
            brush_model_collision(bsp, mi, surfaceprop, surface_mass, &mut out.skipped)
        };
        let Some((solids, key)) = made else {
            continue;
        };
        let mut key_data = key.into_bytes();
        key_data.push(0); // CTextBuffer::Terminate
        out.collide.models.push(PhysModel {
            model_index: mi as i32,
            solids: solids.iter().map(Solid::to_bytes).collect(),
            key_data,
        });
    }
    out.collide.terminator = [-1, 0, 0];
    out
}

/// The world's solids and key data: one `staticsolid` per contents group of
/// [`world_solid_masks`], power-4 terrain, water volumes as fluids, and the material table.
/// `None` when it has no solid at all.
fn world_collision(
    bsp: &Bsp,
    version: i32,
    surfaceprop: &dyn Fn(&str) -> Option<String>,
    skipped: &mut Vec<(usize, String)>,
) -> Option<(Vec<Solid>, String)> {
    let mut solids = Vec::new();
    let mut key = String::new();
    let mut world_props: Vec<String> = Vec::new();
    for mask in world_solid_masks(version) {
        let meshes = world_meshes(bsp, mask, surfaceprop, &mut world_props, skipped);
        if meshes.is_empty() {
            continue;
        }
        let contents = [("contents", (mask as i32).to_string())];
        add_static_solid(&mut solids, &mut key, &meshes, &contents);
    }
    // Power-4 terrain does not fit physdisp's packed hulls: Valve's vbsp stores it here
    // instead, one polysoup solid per grid cell (`Disp_AddCollisionModels`).
    if bsp.disp_info.iter().any(|d| d.power > 3) {
        for soup in terrain_soups(bsp, surfaceprop, &mut world_props) {
            add_static_solid(&mut solids, &mut key, &soup, &[]);
        }
    }
    fluids(bsp, skipped, &mut solids, &mut key);
    if solids.is_empty() {
        return None;
    }
    world_key_tail(bsp, &world_props, &mut key);
    Some((solids, key))
}

/// The contents groups the world's static solids are made of, in order, as the vbsp of BSP
/// `version` makes them: Source 2013's (BSP 19-20) `MASK_SOLID`, player clips, NPC clips; the
/// later branches' (BSP 21 on: Left 4 Dead 2, CS:GO, Strata, Desolation) give grates their own
/// solid after the rest of `MASK_SOLID` (their maps' key data: contents 33570819, 8, 65536,
/// 131072; Garry's Mod's BSP 20 vbsp does too, but no target is Garry's Mod).
pub fn world_solid_masks(version: i32) -> Vec<u32> {
    let clips = [Contents::PLAYERCLIP.0, Contents::MONSTERCLIP.0];
    let solid: &[u32] = if version >= 21 {
        &[MASK_SOLID & !Contents::GRATE.0, Contents::GRATE.0]
    } else {
        &[MASK_SOLID]
    };
    solid.iter().chain(&clips).copied().collect()
}

/// Add a `staticsolid` of the meshes: its key block (its index, then `extra`) and solid.
fn add_static_solid(
    solids: &mut Vec<Solid>,
    key: &mut String,
    meshes: &[ConvexMesh],
    extra: &[(&str, String)],
) {
    let mut pairs = vec![("index", solids.len().to_string())];
    pairs.extend_from_slice(extra);
    key_block(key, "staticsolid", &pairs);
    solids.push(solid(meshes, false).0);
}

/// The meshes of the world's brushes whose contents meet `mask`, each triangle with its
/// material-table slot.
fn world_meshes(
    bsp: &Bsp,
    mask: u32,
    surfaceprop: &dyn Fn(&str) -> Option<String>,
    world_props: &mut Vec<String>,
    skipped: &mut Vec<(usize, String)>,
) -> Vec<ConvexMesh> {
    let brushes = model_brushes(bsp, 0, mask);
    let mut slots = TexinfoSlots::default();
    brushes
        .iter()
        .filter_map(|&b| brush_mesh(bsp, b, 0.0, &[], skipped))
        .map(|mut m| {
            m.materials = world_materials(bsp, &m, surfaceprop, world_props, &mut slots);
            m
        })
        .collect()
}

/// The end of the world's key data: `virtualterrain` unless a displacement is of power 4
/// (Valve's vbsp then stores terrain as a virtual mesh, physdisp), and the material table.
fn world_key_tail(bsp: &Bsp, world_props: &[String], key: &mut String) {
    if bsp.disp_info.iter().all(|d| d.power <= 3) {
        key.push_str("virtualterrain {}\n");
    }
    if !world_props.is_empty() {
        let pairs: Vec<(&str, String)> = (world_props.iter())
            .enumerate()
            .map(|(i, p)| (p.as_str(), (i + 1).to_string()))
            .collect();
        key_block(key, "materialtable", &pairs);
    }
}

/// Appends a block of the collision key data (VPhysics KeyValues text): `name {`, one
/// `"key" "value"` line per pair, `}`.
fn key_block(key: &mut String, name: &str, pairs: &[(&str, String)]) {
    key.push_str(name);
    key.push_str(" {\n");
    for (k, v) in pairs {
        key.push_str(&format!("\"{k}\" \"{v}\"\n"));
    }
    key.push_str("}\n");
}

/// One fluid per water volume (leaf water data entry): its water brushes, unshrunk.
fn fluids(bsp: &Bsp, skipped: &mut Vec<(usize, String)>, solids: &mut Vec<Solid>, key: &mut String) {
    for (k, water) in bsp.leaf_water_data.iter().enumerate() {
        let brushes = water_brushes(bsp, k);
        let meshes: Vec<ConvexMesh> = brushes
            .iter()
            .filter_map(|&b| brush_mesh(bsp, b, 0.0, &[], skipped))
            .collect();
        if meshes.is_empty() {
            continue;
        }
        let contents =
            brushes.iter().fold(0, |c, &b| c | bsp.brushes[b].contents as u32) & !Contents::TESTFOGVOLUME.0;
        key_block(
            key,
            "fluid",
            &fluid_pairs(solids.len(), contents, water.surface_z),
        );
        solids.push(solid(&meshes, false).0);
    }
}

/// The key data of fluid solid `index`: water at rest, its surface at `surface_z`.
fn fluid_pairs(index: usize, contents: u32, surface_z: f32) -> [(&'static str, String); 6] {
    [
        ("index", index.to_string()),
        ("surfaceprop", "water".to_string()),
        ("damping", format!("{:.6}", 0.01f32)),
        ("contents", (contents as i32).to_string()),
        (
            "surfaceplane",
            format!("{:.6} {:.6} {:.6} {:.6} ", 0.0f32, 0.0f32, 1.0f32, surface_z),
        ),
        (
            "currentvelocity",
            format!("{:.6} {:.6} {:.6} ", 0.0f32, 0.0f32, 0.0f32),
        ),
    ]
}

/// A brush model's one solid (the outer hull of its shrunk brushes) and its key data: mass
/// from its surface property, volume. `None` when it has no brush that collides.
fn brush_model_collision(
    bsp: &Bsp,
    mi: usize,
    surfaceprop: &dyn Fn(&str) -> Option<String>,
    surface_mass: &dyn Fn(&str) -> Option<SurfaceMass>,
    skipped: &mut Vec<(usize, String)>,
) -> Option<(Vec<Solid>, String)> {
    let mut key = String::new();
    let mask = MASK_SOLID | Contents::PLAYERCLIP.0 | Contents::MONSTERCLIP.0 | MASK_WATER;
    let brushes = model_brushes(bsp, mi, mask);
    let meshes = shrunk_meshes(bsp, &brushes, skipped);
    if meshes.is_empty() {
        return None;
    }
    // Valve's `buildOuterConvexHull` for a model of several convexes.
    let (s, volume) = solid(&meshes, true);
    let (prop, area) = model_surfaceprop(bsp, mi, &brushes, surfaceprop);
    let mass = model_mass(surface_mass(&prop), volume, area);
    let mut pairs = vec![
        ("index", "0".to_string()),
        ("mass", format!("{:.6}", mass as f32)),
        ("surfaceprop", prop),
    ];
    if volume != 0.0 {
        pairs.push(("volume", format!("{:.6}", volume as f32)));
    }
    key_block(&mut key, "solid", &pairs);
    Some((vec![s], key))
}

/// A brush entity's brushes as meshes, shrunk on the sides its other brushes do not wholly
/// cover.
fn shrunk_meshes(bsp: &Bsp, brushes: &[usize], skipped: &mut Vec<(usize, String)>) -> Vec<ConvexMesh> {
    let sides: Vec<Vec<BrushSide>> = brushes
        .iter()
        .map(|&b| brush_sides(&brush_planes(bsp, b)))
        .collect();
    brushes
        .iter()
        .enumerate()
        .filter_map(|(i, &b)| {
            let others: Vec<&BrushSide> = (sides.iter().enumerate())
                .filter(|&(j, _)| j != i)
                .flat_map(|(_, s)| s)
                .collect();
            brush_mesh(bsp, b, SHRINK, &others, skipped)
        })
        .collect()
}

/// Valve's mass of a brush entity: a shell material by its surface `area`, else by the
/// convexes' `volume`; capped at VPhysics' maximum.
fn model_mass(mass: Option<SurfaceMass>, volume: f64, area: f64) -> f64 {
    let mass = match mass {
        Some(SurfaceMass::Shell(density_thickness)) => area * density_thickness,
        Some(SurfaceMass::Density(density)) => volume * density,
        None => volume * DEFAULT_DENSITY,
    } * CUBIC_METRES_PER_CUBIC_INCH;
    mass.min(VPHYSICS_MAX_MASS)
}

/// The brushes in the leaves under model `mi`'s head node whose contents meet `mask`, in
/// brush order (Valve's `VisitLeaves_r` + `AddBrushes`).
fn model_brushes(bsp: &Bsp, mi: usize, mask: u32) -> Vec<usize> {
    brushes_in_leaves(bsp, bsp.models[mi].head_node, mask, |_| true)
}

/// The water brushes in the world's leaves of water volume `k` (leaf water data entry), in
/// brush order (Valve's `ConvertWaterModelToPhysCollide` over one water model's leaves).
fn water_brushes(bsp: &Bsp, k: usize) -> Vec<usize> {
    brushes_in_leaves(bsp, bsp.models[0].head_node, MASK_WATER, |leaf| {
        leaf.leaf_water_data == k as i32
    })
}

/// The brushes of contents in `mask` filed in the leaves under `head` that `keep` accepts,
/// each once, in brush order.
fn brushes_in_leaves(
    bsp: &Bsp,
    head: i32,
    mask: u32,
    keep: impl Fn(&srcmap_bsp::Leaf) -> bool,
) -> Vec<usize> {
    let mut used = vec![false; bsp.brushes.len()];
    let mut stack = vec![head];
    while let Some(n) = stack.pop() {
        if n < 0 {
            let Some(leaf) = bsp.leafs.get((-1 - n) as usize) else {
                continue;
            };
            if keep(leaf) {
                mark_leaf_brushes(bsp, leaf, mask, &mut used);
            }
        } else if let Some(node) = bsp.nodes.get(n as usize) {
            stack.extend(node.children);
        }
    }
    (0..used.len()).filter(|&b| used[b]).collect()
}

/// Mark the brushes of `leaf` whose contents meet `mask` as used.
fn mark_leaf_brushes(bsp: &Bsp, leaf: &srcmap_bsp::Leaf, mask: u32, used: &mut [bool]) {
    let first = leaf.first_leaf_brush as usize;
    for &b in bsp
        .leaf_brushes
        .iter()
        .skip(first)
        .take(leaf.num_leaf_brushes as usize)
    {
        if let Some(brush) = bsp.brushes.get(b as usize)
            && brush.contents as u32 & mask != 0
        {
            used[b as usize] = true;
        }
    }
}

/// The side planes of brush `b` (bevels left out).
fn brush_planes(bsp: &Bsp, b: usize) -> Vec<Plane> {
    let mut out: Vec<Plane> = Vec::new();
    for side in bsp.sides_of(&bsp.brushes[b]) {
        if side.bevel & 0xff != 0 {
            continue;
        }
        let Some(p) = bsp.planes.get(side.plane as usize) else {
            continue;
        };
        let plane = Plane::new(DVec3::from(p.normal.map(f64::from)), p.dist as f64);
        // Two sides on one plane make one face.
        if !out.iter().any(|q| same_plane(q, &plane)) {
            out.push(plane);
        }
    }
    out
}

fn same_plane(a: &Plane, b: &Plane) -> bool {
    a.normal.abs_diff_eq(b.normal, 1e-6) && (a.dist - b.dist).abs() < 1e-4
}

/// A side of a brush: its plane and its polygon.
type BrushSide = (Plane, Winding);

/// The sides of the convex region behind `planes` that have a polygon.
fn brush_sides(planes: &[Plane]) -> Vec<BrushSide> {
    (polygons(planes).into_iter())
        .map(|(i, w)| (planes[i], w))
        .collect()
}

/// Whether `side` (a polygon on `plane`) lies wholly under the polygons of `others` back to
/// back with it: what Valve's vbsp calls a side with no visible part (no portal sees it).
fn wholly_covered(plane: &Plane, side: &Winding, others: &[&BrushSide]) -> bool {
    let back_to_back = (others.iter()).filter(|(p, _)| same_plane(p, &plane.flipped()));
    let mut left = vec![side.clone()];
    for (_, cover) in back_to_back {
        left = left
            .into_iter()
            .flat_map(|piece| outside_of(piece, cover, plane))
            .collect();
    }
    left.iter().all(|piece| piece.area() < UNCOVERED_AREA)
}

/// Less uncovered area than this (square units) is a side covered all over (slivers of
/// rounding where two brushes meet).
const UNCOVERED_AREA: f64 = 0.01;

/// The parts of `piece` outside the convex polygon `cover`, both on `plane`.
fn outside_of(piece: Winding, cover: &Winding, plane: &Plane) -> Vec<Winding> {
    let mut out = Vec::new();
    let mut inside = Some(piece);
    let center = cover.center();
    for (i, &a) in cover.points.iter().enumerate() {
        let Some(rest) = inside.take() else { break };
        let b = cover.points[(i + 1) % cover.points.len()];
        let normal = (b - a).cross(plane.normal).normalize_or_zero();
        if normal == DVec3::ZERO {
            // A repeated corner bounds nothing.
            inside = Some(rest);
            continue;
        }
        // Each edge's plane faces away from the cover's centre: its front is outside.
        let normal = if normal.dot(center - a) > 0.0 {
            -normal
        } else {
            normal
        };
        let (front, back) =
            (rest.into_split(&Plane::new(normal, normal.dot(a)), 1e-6)).unwrap_or((None, None));
        out.extend(front);
        inside = back;
    }
    out
}

/// The polygons of the convex region behind every plane.
fn polygons(planes: &[Plane]) -> Vec<(usize, Winding)> {
    let mut out = Vec::new();
    for (i, p) in planes.iter().enumerate() {
        let mut w = Some(Winding::base_for_plane(p));
        for (j, q) in planes.iter().enumerate() {
            if i == j {
                continue;
            }
            w = w.and_then(|w| w.into_back(q, 1e-6, true));
        }
        if let Some(w) = w {
            out.push((i, w));
        }
    }
    out
}

/// Brush `b` as a closed convex mesh, its visible sides moved in by `shrink` where the brush is
/// thick enough (three times `shrink` across that side, as Valve); `None` with a warning when it
/// encloses no volume. Valve shrinks only sides a portal saw: none of a brush whose contents
/// do not draw (clips), nor a side that the sides of `others` (the model's other brushes)
/// cover wholly ([`wholly_covered`]); one they cover in part is seen, and shrinks.
fn brush_mesh(
    bsp: &Bsp,
    b: usize,
    shrink: f64,
    others: &[&BrushSide],
    skipped: &mut Vec<(usize, String)>,
) -> Option<ConvexMesh> {
    let unshrunk = brush_planes(bsp, b);
    // Only contents that draw (up to CONTENTS_OPAQUE; clips do not) have sides a portal sees.
    let seen = bsp.brushes[b].contents as u32 & LAST_VISIBLE_CONTENTS_MASK != 0;
    let planes: Vec<Plane> = if shrink == 0.0 || !seen {
        unshrunk.clone()
    } else {
        shrunk_planes(&unshrunk, shrink, others)
    };
    let (points, triangles) = fan_polygons(&planes);
    closed_mesh(b, points, triangles, skipped)
}

/// The mesh of brush `b`, when it is closed and encloses a volume; else `None`, noted in
/// `skipped`.
fn closed_mesh(
    b: usize,
    points: Vec<DVec3>,
    triangles: Vec<[u32; 3]>,
    skipped: &mut Vec<(usize, String)>,
) -> Option<ConvexMesh> {
    let mesh = ConvexMesh {
        brush: b,
        points,
        triangles,
        materials: Vec::new(),
    };
    let volume = mass_properties(&mesh).0;
    if mesh.triangles.len() < 4 || twins(&mesh.triangles).is_none() || volume < 1e-3 {
        skipped.push((
            b,
            format!(
                "degenerate brush left out of the physics collision ({} triangles, volume {volume:.3})",
                mesh.triangles.len()
            ),
        ));
        return None;
    }
    Some(ConvexMesh {
        materials: vec![0; mesh.triangles.len()],
        ..mesh
    })
}

/// The brush's planes with each visible one (a side with a polygon that `others` do not
/// wholly cover) moved in by `shrink`, where the brush is at least three times `shrink` thick
/// across it.
fn shrunk_planes(unshrunk: &[Plane], shrink: f64, others: &[&BrushSide]) -> Vec<Plane> {
    let sides = polygons(unshrunk);
    let corners: Vec<DVec3> = sides.iter().flat_map(|(_, w)| w.points.iter().copied()).collect();
    let thick = |p: &Plane| {
        let (lo, hi) = (corners.iter())
            .map(|c| p.normal.dot(*c))
            .fold((f64::MAX, f64::MIN), |(lo, hi), d| (lo.min(d), hi.max(d)));
        hi - lo >= 3.0 * shrink
    };
    let visible = |i: usize| (sides.iter()).any(|(j, w)| *j == i && !wholly_covered(&unshrunk[i], w, others));
    (unshrunk.iter().enumerate())
        .map(|(i, p)| {
            if visible(i) && thick(p) {
                Plane::new(p.normal, p.dist - shrink)
            } else {
                *p
            }
        })
        .collect()
}

/// The convex region behind `planes` as welded points (corners within [`MERGE`] are one)
/// and triangles fanned from each side polygon, counter-clockwise seen from outside.
fn fan_polygons(planes: &[Plane]) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let mut points: Vec<DVec3> = Vec::new();
    let mut triangles = Vec::new();
    for (i, w) in &polygons(planes) {
        let mut idx: Vec<u32> = w.points.iter().map(|&p| weld(&mut points, p)).collect();
        idx.dedup();
        while idx.len() > 1 && idx.first() == idx.last() {
            idx.pop();
        }
        if idx.len() < 3 {
            continue;
        }
        // Counter-clockwise seen from outside (along the side's normal).
        let newell = (0..w.points.len()).fold(DVec3::ZERO, |n, k| {
            n + w.points[k].cross(w.points[(k + 1) % w.points.len()])
        });
        if newell.dot(planes[*i].normal) < 0.0 {
            idx.reverse();
        }
        for k in 1..idx.len() - 1 {
            triangles.push([idx[0], idx[k], idx[k + 1]]);
        }
    }
    (points, triangles)
}

/// The index of `p` among `points`: the first within [`MERGE`] of it, or `p` added.
fn weld(points: &mut Vec<DVec3>, p: DVec3) -> u32 {
    if let Some(i) = points.iter().position(|q| q.distance(p) < MERGE) {
        return i as u32;
    }
    points.push(p);
    (points.len() - 1) as u32
}

/// For each triangle edge (slot `4t + 1 + e`), the slot of the edge running the other way;
/// `None` when the mesh is not closed.
fn twins(triangles: &[[u32; 3]]) -> Option<Vec<[i32; 3]>> {
    // Each directed edge with its slot, sorted by edge: meshes are small, and a sorted list
    // beats hashing them.
    let mut at: Vec<((u32, u32), usize)> = Vec::with_capacity(3 * triangles.len());
    for (t, tri) in triangles.iter().enumerate() {
        at.extend((0..3).map(|e| ((tri[e], tri[(e + 1) % 3]), 4 * t + 1 + e)));
    }
    at.sort_unstable();
    if at.windows(2).any(|w| w[0].0 == w[1].0) {
        return None;
    }
    let slot_of = |edge: (u32, u32)| at.binary_search_by_key(&edge, |&(e, _)| e).ok().map(|i| at[i].1);
    let mut out = Vec::with_capacity(triangles.len());
    for (t, tri) in triangles.iter().enumerate() {
        let mut row = [0i32; 3];
        for e in 0..3 {
            let twin = slot_of((tri[(e + 1) % 3], tri[e]))?;
            row[e] = twin as i32 - (4 * t + 1 + e) as i32;
        }
        out.push(row);
    }
    Some(out)
}

/// Volume, centroid and the inertia tensor's diagonal per unit mass about the centroid
/// (Hammer units), from tetrahedra fanned from the mesh's first point.
fn mass_properties(m: &ConvexMesh) -> (f64, DVec3, DVec3) {
    let Some(&o) = m.points.first() else {
        return (0.0, DVec3::ZERO, DVec3::ZERO);
    };
    let (mut vol, mut first, mut second) = (0.0, DVec3::ZERO, DVec3::ZERO);
    for t in &m.triangles {
        let [a, b, c] = t.map(|i| m.points[i as usize] - o);
        let v = a.dot(b.cross(c)) / 6.0;
        vol += v;
        first += v * (a + b + c) / 4.0;
        // ∫x² over a tetrahedron with a corner at the origin: V/10 (Σ aᵢ² + Σ aᵢaⱼ).
        second += v / 10.0 * (a * a + b * b + c * c + a * b + a * c + b * c);
    }
    if vol.abs() < 1e-12 {
        return (0.0, o, DVec3::ZERO);
    }
    let centroid = first / vol;
    let sq = second / vol - centroid * centroid; // per unit volume, about the centroid
    let inertia = DVec3::new(sq.y + sq.z, sq.x + sq.z, sq.x + sq.y);
    (vol, centroid + o, inertia)
}

/// Hammer units to IVP's: metres, y down (x, -z, y).
fn to_ivp(p: DVec3) -> [f32; 3] {
    [
        (p.x * METERS_PER_INCH) as f32,
        (-p.z * METERS_PER_INCH) as f32,
        (p.y * METERS_PER_INCH) as f32,
    ]
}

fn inertia_to_ivp(i: DVec3) -> [f32; 3] {
    let s = METERS_PER_INCH * METERS_PER_INCH;
    [(i.x * s) as f32, (i.z * s) as f32, (i.y * s) as f32]
}

/// Each texinfo's material-table slot, once found: the slot of a surface property never
/// changes once it has one, and a full table stays full.
type TexinfoSlots = std::collections::HashMap<i32, u8>;

/// Per triangle of a world brush: the material-table slot of the side facing most its way
/// (Valve's `FindBrushSide`, `RemapWorldMaterial`); 0 for clip brushes.
fn world_materials(
    bsp: &Bsp,
    m: &ConvexMesh,
    surfaceprop: &dyn Fn(&str) -> Option<String>,
    props: &mut Vec<String>,
    slots: &mut TexinfoSlots,
) -> Vec<u8> {
    let brush = &bsp.brushes[m.brush];
    // Valve's vbsp sets every side of a world clip brush to no texinfo (`TEXINFO_NODE`) as it
    // loads the map, so their triangles carry no material.
    let clip = brush.contents as u32 & (Contents::PLAYERCLIP.0 | Contents::MONSTERCLIP.0) != 0;
    let sides: Vec<_> = bsp.sides_of(brush).collect();
    m.triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| m.points[i as usize]);
            let n = (b - a).cross(c - a).normalize_or_zero();
            let best = facing_side(bsp, &sides, n);
            let Some(side) = best.filter(|s| s.texinfo != NO_TEXINFO) else {
                return 0;
            };
            if clip {
                return 0;
            }
            *(slots.entry(side.texinfo))
                .or_insert_with(|| world_slot(props, side_surfaceprop(bsp, side.texinfo, surfaceprop)))
        })
        .collect()
}

/// The side facing most along `n` (the last of equals); sides without a plane count as
/// facing away.
fn facing_side<'a>(
    bsp: &Bsp,
    sides: &[&'a srcmap_bsp::BrushSide],
    n: DVec3,
) -> Option<&'a srcmap_bsp::BrushSide> {
    let facing = |s: &srcmap_bsp::BrushSide| {
        bsp.planes
            .get(s.plane as usize)
            .map_or(-2.0, |p| n.dot(DVec3::from(p.normal.map(f64::from))))
    };
    sides
        .iter()
        .max_by(|x, y| facing(x).total_cmp(&facing(y)))
        .copied()
}

/// The world material table's slot of `prop` (Valve's `RemapWorldMaterial`: 1-based, in order
/// of first use, 0 once the 7-bit index runs out).
fn world_slot(props: &mut Vec<String>, prop: String) -> u8 {
    match props.iter().position(|p| *p == prop) {
        Some(i) => (i + 1) as u8,
        None if props.len() < 126 => {
            props.push(prop);
            props.len() as u8
        }
        None => 0,
    }
}

/// The world's terrain as polysoup (Valve's `Disp_AddCollisionModels`, used when a
/// displacement is of power 4): the displacements whose contents collide are hashed into
/// cells of 4096 × 4096 × 8192 units by their bounds' centre, in order of first use; each
/// cell's tessellated triangles (the engine's tessellation, honouring the allowed vertices)
/// become one solid, split where it would reach 65,536 triangles. Each triangle is a flat
/// ledge of two faces, one each way, carrying its displacement's surface property.
/// Triangles without area are dropped (they close no face).
fn terrain_soups(
    bsp: &Bsp,
    surfaceprop: &dyn Fn(&str) -> Option<String>,
    props: &mut Vec<String>,
) -> Vec<Vec<ConvexMesh>> {
    const MAX_SOUP_TRIANGLES: usize = 65536;
    let grids = srcmap_disp::grids_of(bsp);
    let mut soups = Vec::new();
    for (_, list) in terrain_cells(bsp, &grids) {
        let mut soup: Vec<ConvexMesh> = Vec::new();
        let mut count = 0;
        for d in list {
            let (info, grid) = (
                &bsp.disp_info[d],
                grids[d].as_ref().expect("cells hold rebuilt grids"),
            );
            let triangles = srcmap_disp::tesselate::tesselate(grid.power, &info.allowed_verts);
            count += triangles.len();
            if count >= MAX_SOUP_TRIANGLES {
                // As Valve's: the soup so far becomes a solid before this displacement.
                soups.push(std::mem::take(&mut soup));
                count = triangles.len();
            }
            let slot = disp_slot(bsp, info, surfaceprop, props);
            soup.extend(triangle_ledges(grid, &triangles, slot));
        }
        soups.extend((!soup.is_empty()).then_some(soup));
    }
    soups
}

/// The material-table slot of a displacement's face's surface property.
fn disp_slot(
    bsp: &Bsp,
    info: &srcmap_bsp::DispInfo,
    surfaceprop: &dyn Fn(&str) -> Option<String>,
    props: &mut Vec<String>,
) -> u8 {
    let texinfo = bsp
        .faces
        .get(info.map_face as usize)
        .map_or(NO_TEXINFO, |f| f.texinfo);
    world_slot(props, side_surfaceprop(bsp, texinfo, surfaceprop))
}

/// The colliding displacements (with rebuilt grids) hashed into cells by their bounds'
/// centre, cells in order of first use.
fn terrain_cells(bsp: &Bsp, grids: &[Option<srcmap_disp::DispGrid>]) -> Vec<([i32; 3], Vec<usize>)> {
    /// `MAX_COORD_INTEGER`: moves every centre to positive cell numbers.
    const MAX_COORD: f32 = 16384.0;
    const CELL: [f32; 3] = [4096.0, 4096.0, 8192.0];
    let mut cells: Vec<([i32; 3], Vec<usize>)> = Vec::new();
    for (d, (info, grid)) in bsp.disp_info.iter().zip(grids).enumerate() {
        let Some(grid) = grid else { continue };
        if info.contents as u32 & MASK_SOLID == 0 {
            continue;
        }
        let (lo, hi) = grid.bounds();
        let centre = ((lo + hi) * 0.5).to_array();
        let cell = [0, 1, 2].map(|k| ((centre[k] + MAX_COORD) / CELL[k]) as i32 & 0xff);
        match cells.iter_mut().find(|(c, _)| *c == cell) {
            Some((_, list)) => list.push(d),
            None => cells.push((cell, vec![d])),
        }
    }
    cells
}

/// A displacement's triangles with area as flat two-faced ledges of material `slot`.
fn triangle_ledges<'a>(
    grid: &'a srcmap_disp::DispGrid,
    triangles: &'a [[u16; 3]],
    slot: u8,
) -> impl Iterator<Item = ConvexMesh> + 'a {
    triangles.iter().filter_map(move |t| {
        let points = t.map(|i| {
            let v = grid.verts[i as usize];
            DVec3::new(v.x.into(), v.y.into(), v.z.into())
        });
        if (points[1] - points[0]).cross(points[2] - points[0]).length() < 1e-6 {
            return None;
        }
        Some(ConvexMesh {
            // Valve's polysoup ledges carry no client data.
            brush: 0,
            points: points.to_vec(),
            triangles: vec![[0, 1, 2], [1, 0, 2]],
            materials: vec![slot; 2],
        })
    })
}

/// The surface property of a texinfo's material, `default` when it names none.
fn side_surfaceprop(bsp: &Bsp, texinfo: i32, surfaceprop: &dyn Fn(&str) -> Option<String>) -> String {
    texinfo_surfaceprop(bsp, texinfo, surfaceprop).unwrap_or_else(|| "default".to_string())
}

/// A brush entity's surface property, as Valve's `proplist`: face area summed per property, the
/// largest wins (the first listed on a tie). Faces whose material names none (Valve's -1)
/// share the first entry, which starts at area 1 and stands for `default`; a model without
/// faces lists its first brush's first side at area 2, so that side decides. With the list's
/// total area (square units), which weighs a shell material.
fn model_surfaceprop(
    bsp: &Bsp,
    mi: usize,
    brushes: &[usize],
    surfaceprop: &dyn Fn(&str) -> Option<String>,
) -> (String, f64) {
    let prop_of = |texinfo: i32| texinfo_surfaceprop(bsp, texinfo, surfaceprop);
    let model = &bsp.models[mi];
    let mut area: Vec<(Option<String>, f64)> = vec![(None, 1.0)];
    if model.num_faces <= 0 {
        let first_side = brushes
            .first()
            .and_then(|&b| bsp.sides_of(&bsp.brushes[b]).find(|s| s.bevel & 0xff == 0));
        if let Some(side) = first_side {
            area.push((prop_of(side.texinfo), 2.0));
        }
    }
    let faces = bsp
        .faces
        .iter()
        .skip(model.first_face.max(0) as usize)
        .take(model.num_faces.max(0) as usize);
    for f in faces {
        add_area(&mut area, prop_of(f.texinfo), f.area as f64);
    }
    largest_area(area)
}

/// Add `a` to the area of `prop` in the list (a new entry at its end when not there).
fn add_area(area: &mut Vec<(Option<String>, f64)>, prop: Option<String>, a: f64) {
    match area.iter_mut().find(|(p, _)| *p == prop) {
        Some(e) => e.1 += a,
        None => area.push((prop, a)),
    }
}

/// The property of the largest area (the first listed on a tie; `default` for none) and
/// the total area.
fn largest_area(area: Vec<(Option<String>, f64)>) -> (String, f64) {
    let total: f64 = area.iter().map(|e| e.1).sum();
    let prop = area
        .into_iter()
        .fold((None, 0.0), |best, e| if e.1 > best.1 { e } else { best })
        .0
        .unwrap_or_else(|| "default".to_string());
    (prop, total)
}

/// The warning for the collision materials whose surface property nothing known gives (no
/// game VMT, nothing learned in the material table): Valve's vbsp writes each VMT's
/// `$surfaceprop` into the collision's key data, and here they say `default`. `None` when
/// every one was known.
pub fn guessed_surfaceprops_message(names: &std::collections::BTreeSet<String>) -> Option<String> {
    const SHOWN: usize = 12;
    if names.is_empty() {
        return None;
    }
    let shown: Vec<&str> = names.iter().take(SHOWN).map(String::as_str).collect();
    let rest = names.len() - shown.len();
    let more = if rest > 0 {
        format!(", and {rest} more")
    } else {
        String::new()
    };
    Some(format!(
        "collision: the surface property of {} material{} is not known (no VMT from -game, none \
         learned in the material table): their solids say \"default\", where Valve's vbsp writes \
         each VMT's $surfaceprop: {}{more}",
        names.len(),
        if names.len() == 1 { "" } else { "s" },
        shown.join(", ")
    ))
}

/// The surface property of a texinfo's material; `None` for no texinfo or a material that
/// names none.
fn texinfo_surfaceprop(
    bsp: &Bsp,
    texinfo: i32,
    surfaceprop: &dyn Fn(&str) -> Option<String>,
) -> Option<String> {
    bsp.texinfo
        .get(usize::try_from(texinfo).ok()?)
        .and_then(|t| bsp.texdata_name(usize::try_from(t.texdata).ok()?))
        .and_then(surfaceprop)
}

/// A solid from the meshes: the compact surface and its collide headers, and the total volume
/// in cubic units (the convexes' sum, as Valve's key data has it). With `outer_hull` and more
/// than one mesh, the convex hull of them all is an extra ledge hung on the tree's root, as
/// VPhysics' `buildOuterConvexHull` does (flagged as having children; its client data is the
/// root node's offset from it).
fn solid(meshes: &[ConvexMesh], outer_hull: bool) -> (Solid, f64) {
    let (volume, center, inertia) = combined_mass_properties(meshes);
    let hull = (outer_hull && meshes.len() > 1)
        .then(|| hull_mesh(meshes))
        .flatten();
    let pieces = meshes.len();
    let meshes: Vec<&ConvexMesh> = meshes.iter().chain(hull.as_ref()).collect();
    let layout = surface_layout(&meshes);
    let ivp_points: Vec<Vec<DVec3>> = meshes.iter().map(|m| ivp_points(m)).collect();
    let nodes = ledge_tree(&ivp_points, pieces, hull.is_some(), &layout);
    let len = layout.nodes_at + NODE_SIZE * nodes.len();
    let compact_ledges = meshes
        .iter()
        .enumerate()
        .map(|(li, m)| compact_ledge(m, li, li == pieces, &layout))
        .collect();
    let header = surface_header(center, inertia, &ivp_points, len, layout.nodes_at);
    let surface = CompactSurface {
        header,
        ledges: compact_ledges,
        nodes,
        points: vec![PointRun {
            offset: layout.points_at as u32,
            points: layout.pool,
        }],
        gaps: Vec::new(),
        len: len as u32,
    };
    (surface_solid(surface), volume)
}

/// The ledge tree over the first `pieces` ledges; the outer hull's ledge (the last, when
/// `has_hull`) hangs on its root.
fn ledge_tree(
    ivp_points: &[Vec<DVec3>],
    pieces: usize,
    has_hull: bool,
    layout: &SurfaceLayout,
) -> Vec<LedgeTreeNode> {
    let mut nodes = Vec::new();
    let order: Vec<usize> = (0..pieces).collect();
    tree(&order, ivp_points, &layout.ledges, layout.nodes_at, &mut nodes);
    if has_hull {
        nodes[0].offset_compact_ledge = layout.ledges[pieces] as i32 - layout.nodes_at as i32;
    }
    nodes
}

/// The distance of the farthest point (IVP units) from the mass centre.
fn upper_limit_radius(ivp_points: &[Vec<DVec3>], center: DVec3) -> f64 {
    ivp_points
        .iter()
        .flatten()
        .map(|p| p.distance(DVec3::from(to_ivp(center).map(f64::from))))
        .fold(0.0f64, f64::max)
}

/// A mesh's points in IVP's units (rounded to f32 as stored).
fn ivp_points(m: &ConvexMesh) -> Vec<DVec3> {
    m.points
        .iter()
        .map(|&p| DVec3::from(to_ivp(p).map(f64::from)))
        .collect()
}

/// The compact surface's header: mass centre, inertia and the radius enclosing the points
/// (IVP units), its size and where its ledge tree starts.
fn surface_header(
    center: DVec3,
    inertia: DVec3,
    ivp_points: &[Vec<DVec3>],
    len: usize,
    nodes_at: usize,
) -> SurfaceHeader {
    SurfaceHeader {
        mass_center: to_ivp(center),
        rotation_inertia: inertia_to_ivp(inertia),
        upper_limit_radius: upper_limit_radius(ivp_points, center) as f32,
        // Not derived from the geometry: Valve's values vary (205..250); 250 is the most common.
        max_factor_surface_deviation: 250,
        byte_size: len as u32,
        offset_ledgetree_root: nodes_at as i32,
        dummy: [0, 0, srcmap_phys::surface::IVPS],
    }
}

/// Mass properties of the meshes as one body: the total volume (cubic units), the centre of
/// mass, and the inertia tensor's diagonal per unit mass about it: volume-weighted over the
/// pieces.
fn combined_mass_properties(meshes: &[ConvexMesh]) -> (f64, DVec3, DVec3) {
    let props: Vec<(f64, DVec3, DVec3)> = meshes.iter().map(mass_properties).collect();
    let volume: f64 = props.iter().map(|p| p.0).sum();
    let center = if volume > 1e-9 {
        props.iter().map(|p| p.1 * p.0).sum::<DVec3>() / volume
    } else {
        // Flat ledges (polysoup) enclose nothing: the centre of their bounds, as Valve's.
        let (lo, hi) = point_bounds(meshes.iter().flat_map(|m| m.points.iter().copied()));
        (lo + hi) / 2.0
    };
    // Parallel axis theorem per piece, about the common centre.
    let inertia = props
        .iter()
        .map(|(v, c, i)| {
            let d = *c - center;
            (*i + DVec3::new(
                d.y * d.y + d.z * d.z,
                d.x * d.x + d.z * d.z,
                d.x * d.x + d.y * d.y,
            )) * *v
        })
        .sum::<DVec3>()
        / volume.max(1e-12);
    (volume, center, inertia)
}

/// Where a compact surface's parts lie, in bytes from its start: the header, the ledges (the
/// hull's last), the points (each ledge's own, back to back), then the tree nodes.
struct SurfaceLayout {
    /// Each ledge's offset.
    ledges: Vec<usize>,
    /// Each ledge's first point's offset.
    ledge_points: Vec<usize>,
    points_at: usize,
    /// Every ledge's points in IVP's units, back to back (the fourth coordinate 0).
    pool: Vec<[f32; 4]>,
    nodes_at: usize,
}

/// The layout of a compact surface of the meshes' ledges, one after the other.
fn surface_layout(meshes: &[&ConvexMesh]) -> SurfaceLayout {
    let mut ledges = Vec::with_capacity(meshes.len());
    let mut at = SURFACE_HEADER_SIZE;
    for m in meshes {
        ledges.push(at);
        at += RECORD_SIZE * (1 + m.triangles.len());
    }
    let points_at = at;
    let mut ledge_points = Vec::with_capacity(meshes.len());
    let mut pool: Vec<[f32; 4]> = Vec::new();
    for m in meshes {
        ledge_points.push(points_at + RECORD_SIZE * pool.len());
        pool.extend(m.points.iter().map(|&p| {
            let [x, y, z] = to_ivp(p);
            [x, y, z, 0.0]
        }));
    }
    let nodes_at = points_at + RECORD_SIZE * pool.len();
    SurfaceLayout {
        ledges,
        ledge_points,
        points_at,
        pool,
        nodes_at,
    }
}

/// Ledge `li` of the layout, of mesh `m`: its client data is the brush, or for the outer hull
/// (`is_hull`) the tree root's offset from it.
fn compact_ledge(m: &ConvexMesh, li: usize, is_hull: bool, layout: &SurfaceLayout) -> Ledge {
    let at = layout.ledges[li];
    Ledge {
        offset: at as u32,
        c_point_offset: layout.ledge_points[li] as i32 - at as i32,
        client_data: if is_hull {
            layout.nodes_at as i32 - at as i32
        } else {
            m.brush as i32
        },
        has_children_flag: is_hull as u8,
        is_compact_flag: 1,
        dummy: 0,
        size_div_16: (1 + m.triangles.len() + m.points.len()) as u32,
        for_future_use: 0,
        triangles: compact_triangles(m),
    }
}

/// A closed mesh's triangles as IVP's: each edge with the offset to its twin, each triangle
/// with its "pierce" neighbour, the triangle facing most away from it.
fn compact_triangles(m: &ConvexMesh) -> Vec<Triangle> {
    let twin = twins(&m.triangles).expect("closed meshes only");
    let normals: Vec<DVec3> = m
        .triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| m.points[i as usize]);
            (b - a).cross(c - a).normalize_or_zero()
        })
        .collect();
    m.triangles
        .iter()
        .enumerate()
        .map(|(t, tri)| {
            let pierce = pierce_index(&normals, t);
            Triangle {
                tri_index: t as u16,
                pierce_index: pierce as u16,
                material_index: m.materials[t],
                is_virtual: false,
                edges: [0, 1, 2].map(|e| Edge {
                    start_point_index: tri[e] as u16,
                    opposite_index: twin[t][e] as i16,
                    is_virtual: false,
                }),
            }
        })
        .collect()
}

/// The triangle facing most away from triangle `t` (the first of equals).
fn pierce_index(normals: &[DVec3], t: usize) -> usize {
    (0..normals.len())
        .min_by(|&x, &y| normals[t].dot(normals[x]).total_cmp(&normals[t].dot(normals[y])))
        .unwrap_or(t)
}

/// The solid of a compact surface: its collide header (the surface's size, unit drag axes)
/// and the surface.
fn surface_solid(surface: CompactSurface) -> Solid {
    Solid {
        header: Some(CollideHeader {
            version: srcmap_phys::solid::COLLIDE_VERSION,
            model_type: srcmap_phys::solid::MODEL_TYPE_COMPACT_SURFACE,
            surface_size: surface.len as i32,
            drag: Some(DragAxes {
                drag_axis_areas: [1.0; 3],
                axis_map_size: 0,
            }),
        }),
        body: SolidBody::Surface(surface),
    }
}

/// The convex hull of the meshes' points (corners only) as one more mesh, or `None` when it
/// spans no volume.
fn hull_mesh(meshes: &[ConvexMesh]) -> Option<ConvexMesh> {
    let all: Vec<DVec3> = meshes.iter().flat_map(|m| m.points.iter().copied()).collect();
    let candidates: Vec<usize> = (0..all.len()).collect();
    let triangles = crate::phys_disp::convex_hull(&all, &candidates)?;
    let mut corners: Vec<usize> = triangles.iter().flatten().copied().collect();
    corners.sort_unstable();
    corners.dedup();
    let index = |p: usize| corners.binary_search(&p).expect("a corner") as u32;
    let triangles: Vec<[u32; 3]> = triangles.iter().map(|t| t.map(index)).collect();
    // A flat hull (two-sided polygon) encloses nothing: no hull ledge.
    let mesh = ConvexMesh {
        brush: 0,
        points: corners.iter().map(|&p| all[p]).collect(),
        materials: vec![0; triangles.len()],
        triangles,
    };
    (mass_properties(&mesh).0 > 1e-9 && twins(&mesh.triangles).is_some()).then_some(mesh)
}

/// Appends the subtree over `items` (ledge indices) in preorder: node, left subtree, right.
fn tree(
    items: &[usize],
    points: &[Vec<DVec3>],
    ledges: &[usize],
    nodes_at: usize,
    nodes: &mut Vec<LedgeTreeNode>,
) {
    let all = || items.iter().flat_map(|&i| points[i].iter().copied());
    let (lo, hi) = point_bounds(all());
    let me = nodes.len();
    let offset = nodes_at + NODE_SIZE * me;
    nodes.push(sphere_node(all, lo, hi, offset));
    if items.len() == 1 {
        nodes[me].offset_compact_ledge = ledges[items[0]] as i32 - offset as i32;
        return;
    }
    let sorted = sorted_along_longest_axis(items, points, hi - lo);
    let (left, right) = sorted.split_at(sorted.len() / 2);
    tree(left, points, ledges, nodes_at, nodes);
    nodes[me].offset_right_node = (NODE_SIZE * (nodes.len() - me)) as i32;
    tree(right, points, ledges, nodes_at, nodes);
}

/// The smallest box around the points, as its low and high corners.
fn point_bounds(points: impl Iterator<Item = DVec3>) -> (DVec3, DVec3) {
    points.fold((DVec3::splat(f64::MAX), DVec3::splat(f64::MIN)), |(lo, hi), p| {
        (lo.min(p), hi.max(p))
    })
}

/// A ledge tree node at `offset` over the points `all` gives (bounds `lo..hi`): a sphere
/// around the box's centre holding every point, and the box's half sizes in 250ths of it.
fn sphere_node<I: Iterator<Item = DVec3>>(
    all: impl Fn() -> I,
    lo: DVec3,
    hi: DVec3,
    offset: usize,
) -> LedgeTreeNode {
    let center = (lo + hi) / 2.0;
    // Rounded to f32 first, so the stored sphere holds the stored points.
    let center32 = center.as_vec3().as_dvec3();
    let radius = all().map(|p| p.distance(center32)).fold(0.0f64, f64::max) * (1.0 + 1e-6) + 1e-6;
    let half = (hi - lo) / 2.0;
    let box_size = |h: f64| ((h / radius * 250.0).ceil()).clamp(1.0, 250.0) as u8;
    LedgeTreeNode {
        offset: offset as u32,
        offset_right_node: 0,
        offset_compact_ledge: 0,
        center: center32.as_vec3().to_array(),
        radius: radius as f32,
        box_sizes: [box_size(half.x), box_size(half.y), box_size(half.z)],
        free_0: 0,
    }
}

/// The items sorted by their pieces' centres along the longest axis of `extent`, to split
/// at the median.
fn sorted_along_longest_axis(items: &[usize], points: &[Vec<DVec3>], extent: DVec3) -> Vec<usize> {
    let centre_of = |i: usize| {
        let (a, b) = point_bounds(points[i].iter().copied());
        (a + b) / 2.0
    };
    let axis = if extent.x >= extent.y && extent.x >= extent.z {
        0
    } else if extent.y >= extent.z {
        1
    } else {
        2
    };
    let mut sorted = items.to_vec();
    sorted.sort_by(|&a, &b| centre_of(a)[axis].total_cmp(&centre_of(b)[axis]));
    sorted
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rectangular side at height `z` spanning `x0..x1`, `y0..y1`, facing up (`up`) or down.
    fn side(x0: f64, x1: f64, y0: f64, y1: f64, z: f64, up: bool) -> BrushSide {
        let corners = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]].map(|[x, y]| DVec3::new(x, y, z));
        let plane = if up {
            Plane::new(DVec3::Z, z)
        } else {
            Plane::new(-DVec3::Z, -z)
        };
        let mut points = corners.to_vec();
        if !up {
            points.reverse();
        }
        (plane, Winding::new(points))
    }

    /// A side is covered when the back-to-back sides cover it together, not when they cover
    /// part of it, nor when they face the same way.
    #[test]
    fn covered_by_the_union_of_back_to_back_sides() {
        let (plane, top) = side(0.0, 4.0, 0.0, 2.0, 8.0, true);
        let left = side(-1.0, 2.0, -1.0, 3.0, 8.0, false);
        let right = side(2.0, 5.0, 0.0, 2.0, 8.0, false);
        let right_up = side(2.0, 5.0, 0.0, 2.0, 8.0, true);
        assert!(wholly_covered(&plane, &top, &[&left, &right]));
        assert!(!wholly_covered(&plane, &top, &[&left]));
        assert!(!wholly_covered(&plane, &top, &[&left, &right_up]));
        assert!(!wholly_covered(&plane, &top, &[]));
    }
}
