//! Water volumes (Valve's `EmitWaterVolumesForBSP`): the world's water leaves grouped into
//! connected volumes that stop at their surface, each described by one LEAFWATERDATA record
//! (surface height, lowest point, surface texinfo) that its leaves point at.

use std::collections::{HashMap, HashSet};

use srcmap_bsp::LeafWaterData;
use srcmap_geom::{DVec3, PlaneSet, Side};

use crate::brush::Brush;
use crate::contents::*;
use crate::portals::Portals;
use crate::texinfo::Texinfos;
use crate::tree::{NodeId, Tree};

/// Valve's `MAX_COORD_INTEGER`: the height of a surface not found, and the start of the
/// search for the lowest point.
const NO_HEIGHT: f32 = 16384.0;
/// Valve's `ON_EPSILON` for telling whether a portal lies above a surface.
const ON_EPSILON: f64 = 0.1;
const MASK_WATER: u32 = CONTENTS_WATER | CONTENTS_SLIME;

/// The records and which leaf belongs to which.
#[derive(Debug, Default)]
pub(crate) struct WaterVolumes {
    pub data: Vec<LeafWaterData>,
    pub of_leaf: HashMap<NodeId, i32>,
}

/// One water leaf and the best surface among its portals into open air.
struct WaterLeaf {
    node: NodeId,
    contents: u32,
    /// The surface's plane (normal, dist), when the leaf touches air from below.
    surface: Option<(DVec3, f64)>,
    texinfo: Option<u32>,
}

impl WaterLeaf {
    /// Valve's ordering for the flood: leaves with a surface first, the most upward-facing
    /// surface first; among equal normals the later leaf goes in front.
    fn goes_before(&self, other: &WaterLeaf) -> bool {
        match (self.surface, other.surface) {
            (Some((n, _)), Some((m, _))) => m.z <= n.z,
            (Some(_), None) => true,
            _ => false,
        }
    }
}

fn water_leaves(tree: &Tree, n: NodeId, out: &mut Vec<NodeId>) {
    let node = tree.node(n);
    if node.is_leaf() {
        if n != tree.outside && node.contents & MASK_WATER != 0 && node.contents & CONTENTS_SOLID == 0 {
            out.push(n);
        }
        return;
    }
    for c in node.children {
        water_leaves(tree, c, out);
    }
}

/// The other leaf of each of `leaf`'s portals, with the portal, newest portal first as in
/// Valve's linked lists.
fn neighbours<'p>(
    tree: &Tree,
    portals: &'p Portals,
    leaf: NodeId,
) -> impl Iterator<Item = (&'p crate::portals::Portal, NodeId)> + 'p {
    let list: Vec<u32> = tree.node(leaf).portals.iter().rev().copied().collect();
    list.into_iter().map(move |pi| {
        let p = &portals.portals[pi as usize];
        let other = if p.nodes[0] == leaf {
            p.nodes[1]
        } else {
            p.nodes[0]
        };
        (p, other)
    })
}

fn describe_leaf(
    tree: &Tree,
    portals: &Portals,
    planes: &PlaneSet,
    brushes: &[Brush],
    leaf: NodeId,
) -> WaterLeaf {
    let mut w = WaterLeaf {
        node: leaf,
        contents: tree.node(leaf).contents,
        surface: None,
        texinfo: None,
    };
    for (p, other) in neighbours(tree, portals, leaf) {
        let Some(side_ref) = p.side else { continue };
        if tree.node(other).contents & (MASK_WATER | CONTENTS_SOLID) != 0 {
            continue;
        }
        let side = &brushes[side_ref.brush.idx()].sides[side_ref.side as usize];
        let plane = planes.get(side.plane);
        if !improves_surface(w.surface, plane) {
            continue;
        }
        w.surface = Some((plane.normal, plane.dist));
        w.texinfo = Some(side.texinfo.0);
    }
    w
}

/// Whether `plane` is a better surface than `surface` (the one found so far): more level,
/// or as level and higher; a surface has to face at least somewhat up.
fn improves_surface(surface: Option<(DVec3, f64)>, plane: &srcmap_geom::Plane) -> bool {
    if let Some((n, d)) = surface
        && (n.z > plane.normal.z || (n.z == plane.normal.z && d >= plane.dist))
    {
        return false;
    }
    // A surface has to face at least somewhat up.
    if plane.normal.z <= 0.0 {
        return false;
    }
    true
}

/// A texinfo for a volume whose surface was not found (the map leaks): the first water side
/// of the leaf's brushes.
fn any_water_texinfo(tree: &Tree, brushes: &[Brush], tex: &Texinfos, leaf: NodeId, contents: u32) -> u32 {
    let mut fallback = None;
    for b in &tree.node(leaf).brushes {
        let brush = &brushes[b.idx()];
        if brush.contents & contents == 0 {
            continue;
        }
        for s in &brush.sides {
            if tex.list[s.texinfo.idx()].flags as u32 & SURF_WARP != 0 {
                return s.texinfo.0;
            }
            fallback.get_or_insert(s.texinfo.0);
        }
    }
    fallback.unwrap_or(0)
}

impl WaterLeaf {
    /// The record of the volume this leaf starts, whose lowest height is `min_z`.
    fn record(&self, min_z: f32, texinfo: u32) -> LeafWaterData {
        LeafWaterData {
            surface_z: self.surface.map_or(NO_HEIGHT, |(_, d)| d as f32),
            min_z,
            surface_texinfo: texinfo as i32,
            pad: 0,
        }
    }
}

/// Groups the water leaves of a model's tree into volumes.
pub(crate) fn find_volumes(
    tree: &Tree,
    portals: &Portals,
    planes: &PlaneSet,
    brushes: &[Brush],
    tex: &Texinfos,
) -> WaterVolumes {
    let sorted = sorted_water_leaves(tree, portals, planes, brushes);
    let mut out = WaterVolumes::default();
    let mut visited: HashSet<NodeId> = HashSet::new();
    for base in &sorted {
        let (volume, min_z) = flood_volume(tree, portals, base, &mut visited);
        if volume.is_empty() {
            continue;
        }
        let texinfo = base
            .texinfo
            .unwrap_or_else(|| any_water_texinfo(tree, brushes, tex, base.node, base.contents));
        let id = add_record(&mut out.data, base.record(min_z, texinfo));
        for leaf in volume {
            out.of_leaf.insert(leaf, id as i32);
        }
    }
    out
}

/// The tree's water leaves with their surfaces, in the order volumes start from.
fn sorted_water_leaves(
    tree: &Tree,
    portals: &Portals,
    planes: &PlaneSet,
    brushes: &[Brush],
) -> Vec<WaterLeaf> {
    let mut found = Vec::new();
    water_leaves(tree, tree.head, &mut found);
    let mut sorted: Vec<WaterLeaf> = Vec::with_capacity(found.len());
    for leaf in found {
        let w = describe_leaf(tree, portals, planes, brushes, leaf);
        let at = sorted
            .iter()
            .position(|s| w.goes_before(s))
            .unwrap_or(sorted.len());
        sorted.insert(at, w);
    }
    sorted
}

/// The volume from `base`: the leaves of its water reached through portals, not yet
/// `visited`, stopping at leaves that reach above its surface; and its lowest height.
fn flood_volume(
    tree: &Tree,
    portals: &Portals,
    base: &WaterLeaf,
    visited: &mut HashSet<NodeId>,
) -> (Vec<NodeId>, f32) {
    let same_water = base.contents & MASK_WATER;
    let mut volume = Vec::new();
    let mut min_z = NO_HEIGHT;
    let mut stack = vec![base.node];
    while let Some(leaf) = stack.pop() {
        let node = tree.node(leaf);
        if leaf == tree.outside
            || !node.is_leaf()
            || visited.contains(&leaf)
            || node.contents & same_water == 0
            || node.contents & CONTENTS_SOLID != 0
            || crosses_surface(tree, portals, base, leaf)
        {
            continue;
        }
        visited.insert(leaf);
        volume.push(leaf);
        min_z = min_z.min(node.bounds.mins.z as f32);
        stack.extend(neighbours(tree, portals, leaf).map(|(_, other)| other));
    }
    (volume, min_z)
}

/// Whether a portal of `leaf` reaches above `base`'s surface (never, without one).
fn crosses_surface(tree: &Tree, portals: &Portals, base: &WaterLeaf, leaf: NodeId) -> bool {
    let Some((normal, dist)) = base.surface else {
        return false;
    };
    let plane = srcmap_geom::Plane { normal, dist };
    neighbours(tree, portals, leaf)
        .any(|(p, _)| matches!(p.winding.classify(&plane, ON_EPSILON), Side::Cross | Side::Front))
}

/// The index of `record` in `data`, added when new (volumes of equal surface, bottom and
/// texinfo share one record, across models too).
pub(crate) fn add_record(data: &mut Vec<LeafWaterData>, record: LeafWaterData) -> usize {
    let same = |d: &LeafWaterData| {
        d.surface_z == record.surface_z
            && d.min_z == record.min_z
            && d.surface_texinfo == record.surface_texinfo
    };
    data.iter().position(same).unwrap_or_else(|| {
        data.push(record);
        data.len() - 1
    })
}

/// The patched copy of each volume's surface material that tells the shader the water's
/// depth (Valve's `FindOrCreateWaterTexInfo`): pakfile path and text, one per name, in record
/// order. The depth is the whole units from the bottom to the surface.
pub(crate) fn depth_patches(map: &str, data: &[LeafWaterData], tex: &Texinfos) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    for d in data {
        let Some(info) = tex.list.get(d.surface_texinfo as usize) else {
            continue;
        };
        let Some(material) = tex.strings.get(info.texdata as usize) else {
            continue;
        };
        let material = material.replace('\\', "/").to_ascii_lowercase();
        let depth = (d.surface_z - d.min_z) as i32;
        let path = format!("materials/maps/{map}/{material}_depth_{depth}.vmt").to_ascii_lowercase();
        if out.iter().any(|(p, _)| *p == path) {
            continue;
        }
        let text = format!(
            "\"patch\"\r\n{{\r\n\t\"include\"\t\t\"materials/{material}.vmt\"\r\n\t\"insert\"\r\n\t{{\r\n\
             \t\t\"$waterdepth\"\t\t\"{depth}\"\r\n\t}}\r\n}}\r\n"
        );
        out.push((path, text.into_bytes()));
    }
    out
}

/// The keys of the default `water_lod_control` Valve adds to a map with water and none.
pub(crate) fn water_lod_control() -> Vec<(String, String)> {
    [
        ("classname", "water_lod_control"),
        ("cheapwaterstartdistance", "1000"),
        ("cheapwaterenddistance", "2000"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}
