//! Counts and bounds for `srcmap info` / `srcmap nav info`.

use std::collections::BTreeMap;

use crate::NavMesh;

/// Names of the base `NavAttributeType` bits (`nav.h`).
pub const ATTRIBUTE_NAMES: [(u32, &str); 19] = [
    (0x1, "CROUCH"),
    (0x2, "JUMP"),
    (0x4, "PRECISE"),
    (0x8, "NO_JUMP"),
    (0x10, "STOP"),
    (0x20, "RUN"),
    (0x40, "WALK"),
    (0x80, "AVOID"),
    (0x100, "TRANSIENT"),
    (0x200, "DONT_HIDE"),
    (0x400, "STAND"),
    (0x800, "NO_HOSTAGES"),
    (0x1000, "STAIRS"),
    (0x2000, "NO_MERGE"),
    (0x4000, "OBSTACLE_TOP"),
    (0x8000, "CLIFF"),
    (0x20000000, "FUNC_COST"),
    (0x40000000, "HAS_ELEVATOR"),
    (0x80000000, "NAV_BLOCKER"),
];

/// TF2's persistent per-area attribute bits (`tf_nav_area.h`); other bits are recomputed at
/// run time and named `TF_0x…`.
pub const TF2_ATTRIBUTE_NAMES: [(u32, &str); 17] = [
    (0x800, "BLUE_SETUP_GATE"),
    (0x1000, "RED_SETUP_GATE"),
    (0x2000, "BLOCKED_AFTER_POINT_CAPTURE"),
    (0x4000, "BLOCKED_UNTIL_POINT_CAPTURE"),
    (0x8000, "BLUE_ONE_WAY_DOOR"),
    (0x10000, "RED_ONE_WAY_DOOR"),
    (0x20000, "WITH_SECOND_POINT"),
    (0x40000, "WITH_THIRD_POINT"),
    (0x80000, "WITH_FOURTH_POINT"),
    (0x100000, "WITH_FIFTH_POINT"),
    (0x200000, "SNIPER_SPOT"),
    (0x400000, "SENTRY_SPOT"),
    (0x2000000, "NO_SPAWNING"),
    (0x4000000, "RESCUE_CLOSET"),
    (0x10000000, "DOOR_NEVER_BLOCKS"),
    (0x20000000, "DOOR_ALWAYS_BLOCKS"),
    (0x40000000, "UNBLOCKABLE"),
];

/// The name of one attribute bit (`CUSTOM_0x…` for game bits).
pub fn attribute_name(bit: u32) -> String {
    ATTRIBUTE_NAMES
        .iter()
        .find(|(b, _)| *b == bit)
        .map(|(_, n)| n.to_string())
        .unwrap_or_else(|| format!("CUSTOM_{bit:#x}"))
}

#[derive(Debug, Clone, PartialEq)]
pub struct PlaceCount {
    /// `None` for areas without a place.
    pub place: Option<String>,
    pub areas: usize,
    pub min: [f32; 3],
    pub max: [f32; 3],
}

#[derive(Debug, Clone, PartialEq)]
pub struct AttributeCount {
    pub bit: u32,
    pub name: String,
    pub areas: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct NavStats {
    pub areas: usize,
    pub ladders: usize,
    pub places: usize,
    pub connections: usize,
    pub hiding_spots: usize,
    pub encounter_paths: usize,
    pub approaches: usize,
    pub visible_area_entries: usize,
    /// Bounds over all areas; `None` when there are none.
    pub bounds: Option<([f32; 3], [f32; 3])>,
    pub per_place: Vec<PlaceCount>,
    pub per_attribute: Vec<AttributeCount>,
    /// Game attribute bits: TF2's per-area flags, or L4D2's spawn attributes.
    pub per_game_attribute: Vec<AttributeCount>,
}

type Bounds = Option<([f32; 3], [f32; 3])>;

fn grow(b: &mut Bounds, (lo, hi): ([f32; 3], [f32; 3])) {
    match b {
        None => *b = Some((lo, hi)),
        Some((l, h)) => {
            for i in 0..3 {
                l[i] = l[i].min(lo[i]);
                h[i] = h[i].max(hi[i]);
            }
        }
    }
}

pub(crate) fn stats(mesh: &NavMesh) -> NavStats {
    let mut bounds = None;
    let mut places: BTreeMap<u16, (usize, Bounds)> = BTreeMap::new();
    let mut attrs: BTreeMap<u32, usize> = BTreeMap::new();
    let mut game_attrs: BTreeMap<u32, usize> = BTreeMap::new();
    let (mut connections, mut spots, mut paths, mut approaches, mut vis) = (0, 0, 0, 0, 0);
    for a in &mesh.areas {
        let b = a.bounds();
        grow(&mut bounds, b);
        let e = places.entry(a.place).or_default();
        e.0 += 1;
        grow(&mut e.1, b);
        for bit in 0..32 {
            if a.attributes & (1 << bit) != 0 {
                *attrs.entry(1 << bit).or_default() += 1;
            }
        }
        connections += a.connections.iter().map(Vec::len).sum::<usize>();
        spots += a.hiding_spots.len();
        paths += a.encounter_paths.len();
        approaches += a.approaches.len();
        if let crate::AreaCustom::CsApproaches(l) = &a.custom {
            approaches += l.len();
        }
        let game_bits = match &a.custom {
            crate::AreaCustom::Tf2 { attributes } => *attributes,
            crate::AreaCustom::L4d2(l) => l.spawn_attributes.unwrap_or(0),
            _ => 0,
        };
        for bit in 0..32 {
            if game_bits & (1 << bit) != 0 {
                *game_attrs.entry(1 << bit).or_default() += 1;
            }
        }
        vis += a.visible_areas.len();
        if let crate::AreaCustom::L4d2(l) = &a.custom {
            vis += l.visible_areas.as_ref().map_or(0, Vec::len);
        }
    }
    let per_place = places
        .into_iter()
        .map(|(idx, (areas, b))| {
            let (min, max) = b.unwrap_or(([0.0; 3], [0.0; 3]));
            let place = if idx == 0 {
                None
            } else {
                Some(
                    mesh.places
                        .get(idx as usize - 1)
                        .map(|p| p.as_str().into_owned())
                        .unwrap_or_else(|| format!("#{idx} (missing)")),
                )
            };
            PlaceCount {
                place,
                areas,
                min,
                max,
            }
        })
        .collect();
    let per_attribute = attrs
        .into_iter()
        .map(|(bit, areas)| AttributeCount {
            bit,
            name: attribute_name(bit),
            areas,
        })
        .collect();
    let game_name = |bit: u32| match mesh.layout {
        crate::GameLayout::Tf2 => TF2_ATTRIBUTE_NAMES
            .iter()
            .find(|(b, _)| *b == bit)
            .map(|(_, n)| n.to_string())
            .unwrap_or_else(|| format!("TF_{bit:#x}")),
        _ => format!("SPAWN_{bit:#x}"),
    };
    let per_game_attribute = game_attrs
        .into_iter()
        .map(|(bit, areas)| AttributeCount {
            bit,
            name: game_name(bit),
            areas,
        })
        .collect();
    NavStats {
        areas: mesh.areas.len(),
        ladders: mesh.ladders.as_ref().map_or(0, Vec::len),
        places: mesh.places.len(),
        connections,
        hiding_spots: spots,
        encounter_paths: paths,
        approaches,
        visible_area_entries: vis,
        bounds,
        per_place,
        per_attribute,
        per_game_attribute,
    }
}
