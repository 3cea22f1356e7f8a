//! Counts and bounds for `srcmap info` / `srcmap nav info`.

use std::collections::BTreeMap;

use crate::{AreaCustom, GameLayout, NavArea, NavMesh};

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

/// Counts each set bit of `bits` under its own value.
fn count_bits(counts: &mut BTreeMap<u32, usize>, bits: u32) {
    for bit in 0..32 {
        if bits & (1 << bit) != 0 {
            *counts.entry(1 << bit).or_default() += 1;
        }
    }
}

/// The game's per-area attribute bits: TF2's flags, or L4D2's spawn attributes.
fn game_bits(a: &NavArea) -> u32 {
    match &a.custom {
        AreaCustom::Tf2 { attributes } => *attributes,
        AreaCustom::L4d2(l) => l.spawn_attributes.unwrap_or(0),
        _ => 0,
    }
}

/// What [`stats`] adds up over the areas.
#[derive(Default)]
struct Tally {
    bounds: Bounds,
    places: BTreeMap<u16, (usize, Bounds)>,
    attrs: BTreeMap<u32, usize>,
    game_attrs: BTreeMap<u32, usize>,
    connections: usize,
    spots: usize,
    paths: usize,
    approaches: usize,
    vis: usize,
}

impl Tally {
    fn add(&mut self, a: &NavArea) {
        let b = a.bounds();
        grow(&mut self.bounds, b);
        let e = self.places.entry(a.place).or_default();
        e.0 += 1;
        grow(&mut e.1, b);
        count_bits(&mut self.attrs, a.attributes);
        self.connections += a.connections.iter().map(Vec::len).sum::<usize>();
        self.spots += a.hiding_spots.len();
        self.paths += a.encounter_paths.len();
        self.approaches += a.approaches.len();
        if let AreaCustom::CsApproaches(l) = &a.custom {
            self.approaches += l.len();
        }
        count_bits(&mut self.game_attrs, game_bits(a));
        self.vis += a.visible_areas.len();
        if let AreaCustom::L4d2(l) = &a.custom {
            self.vis += l.visible_areas.as_ref().map_or(0, Vec::len);
        }
    }
}

/// Areas and bounds per place index (0: no place), named from the mesh's place directory.
fn per_place(mesh: &NavMesh, places: BTreeMap<u16, (usize, Bounds)>) -> Vec<PlaceCount> {
    places
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
        .collect()
}

/// The name of a game attribute bit: TF2's own names (`TF_0x…` otherwise), `SPAWN_0x…` for
/// other games.
fn game_attribute_name(layout: GameLayout, bit: u32) -> String {
    match layout {
        GameLayout::Tf2 => TF2_ATTRIBUTE_NAMES
            .iter()
            .find(|(b, _)| *b == bit)
            .map(|(_, n)| n.to_string())
            .unwrap_or_else(|| format!("TF_{bit:#x}")),
        _ => format!("SPAWN_{bit:#x}"),
    }
}

fn attribute_counts(counts: BTreeMap<u32, usize>, name: impl Fn(u32) -> String) -> Vec<AttributeCount> {
    counts
        .into_iter()
        .map(|(bit, areas)| AttributeCount {
            bit,
            name: name(bit),
            areas,
        })
        .collect()
}

pub(crate) fn stats(mesh: &NavMesh) -> NavStats {
    let mut t = Tally::default();
    for a in &mesh.areas {
        t.add(a);
    }
    NavStats {
        areas: mesh.areas.len(),
        ladders: mesh.ladders.as_ref().map_or(0, Vec::len),
        places: mesh.places.len(),
        connections: t.connections,
        hiding_spots: t.spots,
        encounter_paths: t.paths,
        approaches: t.approaches,
        visible_area_entries: t.vis,
        bounds: t.bounds,
        per_place: per_place(mesh, t.places),
        per_attribute: attribute_counts(t.attrs, attribute_name),
        per_game_attribute: attribute_counts(t.game_attrs, |bit| game_attribute_name(mesh.layout, bit)),
    }
}
