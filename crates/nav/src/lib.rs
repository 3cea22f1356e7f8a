//! Navigation meshes (.nav), every Source 1 version (1–16), byte-exact.
//!
//! [`NavMesh::read`] decodes a file into plain typed records ([`NavArea`], [`NavLadder`], …) that
//! keep every stored field, version-gated exactly as Valve's `CNavArea::Load` reads it, so
//! [`NavMesh::write`] on an unmodified mesh reproduces the input byte for byte. Edit the records
//! (move an area, add a connection) and `write` emits a file that reads back to the edit.
//!
//! Games append their own per-area data after the base record (§5 of the format notes). The
//! layout is chosen from the sub-version and confirmed by parsing to the end of the file:
//! TF2 attribute flags, CS approach lists, L4D2's replacement of the visibility block, and, for
//! unknown games, a fixed number of raw bytes per area found by trying lengths until the whole
//! file parses. Whatever layout is found is recorded in [`NavMesh::layout`] and reused on write.
//!
//! Source 2 files (version 30 and later) share the magic but are a different format; they are
//! refused with [`NavError::Source2`].

mod read;
mod stats;
mod write;

pub use srcmap_bytes::ReadError;
pub use stats::{AttributeCount, NavStats, PlaceCount};

/// `0xFEEDFACE`, stored little-endian (`CE FA ED FE`).
pub const NAV_MAGIC: u32 = 0xFEED_FACE;
/// The newest Source 1 version; Valve's loader rejects anything above it.
pub const MAX_SOURCE1_VERSION: u32 = 16;

/// Everything that can go wrong reading or writing a NAV file. Read errors carry the byte offset
/// and what was being read there.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NavError {
    #[error("not a NAV file: magic at byte 0 is {found:#010x}, expected 0xfeedface")]
    BadMagic { found: u32 },
    #[error(
        "NAV version {version} (sub-version {sub_version}) is a Source 2 (CS2) navigation mesh, a different format that srcmap does not read"
    )]
    Source2 { version: u32, sub_version: u32 },
    #[error("NAV version {version} is not a known version (Source 1 uses 1-16, Source 2 30 and later)")]
    UnknownVersion { version: u32 },
    #[error("{context}: {source}")]
    Read { context: String, source: ReadError },
    #[error(
        "version {version} sub-version {sub_version}: no known per-area layout fits this file (tried {tried}); first error: {first}"
    )]
    NoLayout {
        version: u32,
        sub_version: u32,
        tried: String,
        first: Box<NavError>,
    },
    #[error("cannot write {what}: {message}")]
    Write { what: String, message: String },
}

impl NavError {
    /// The byte offset the error refers to, when there is one.
    pub fn offset(&self) -> Option<u64> {
        match self {
            NavError::BadMagic { .. } => Some(0),
            NavError::Source2 { .. } | NavError::UnknownVersion { .. } => Some(4),
            NavError::Read { source, .. } => Some(source.offset()),
            NavError::NoLayout { first, .. } => first.offset(),
            NavError::Write { .. } => None,
        }
    }
}

/// Compass directions in the order areas store their connections.
pub const DIRECTIONS: [&str; 4] = ["north", "east", "south", "west"];

/// The game-specific layout of the data the base format leaves to derived classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameLayout {
    /// SDK base, GMod, HL2DM, and every file before version 10: nothing extra.
    Base,
    /// Team Fortress 2 (`CTFNavArea`): a u32 of TF attribute flags per area from sub-version 2.
    Tf2,
    /// Counter-Strike Source/GO (`CCSNavArea`): sub-version 1 adds a per-area approach list.
    CounterStrike,
    /// Left 4 Dead 2: a pre-area block, a per-area block replacing the v16 visibility fields and
    /// a trailing f32 (kept in [`NavMesh::post_mesh_data`]).
    L4d2,
    /// An unknown game whose per-area data has this fixed length, kept as raw bytes.
    UnknownFixed(u32),
}

impl GameLayout {
    pub fn name(self) -> String {
        match self {
            GameLayout::Base => "base".into(),
            GameLayout::Tf2 => "tf2".into(),
            GameLayout::CounterStrike => "counter-strike".into(),
            GameLayout::L4d2 => "l4d2".into(),
            GameLayout::UnknownFixed(n) => format!("unknown ({n} raw bytes per area)"),
        }
    }
}

/// A whole NAV file.
#[derive(Debug, Clone, PartialEq)]
pub struct NavMesh {
    pub version: u32,
    /// Present from version 10.
    pub sub_version: Option<u32>,
    /// Byte size of the BSP the mesh was built for; present from version 4.
    pub bsp_size: Option<u32>,
    /// Present from version 14 (kept as the stored byte).
    pub is_analyzed: Option<u8>,
    /// Place names as stored (with their trailing NUL); areas refer to them 1-based. From v5.
    pub places: Vec<PlaceName>,
    /// Present from version 12.
    pub has_unnamed_areas: Option<u8>,
    /// Game data between the place directory and the areas (L4D2), kept as raw bytes.
    pub pre_area_data: Vec<u8>,
    pub areas: Vec<NavArea>,
    /// Present from version 6.
    pub ladders: Option<Vec<NavLadder>>,
    /// Anything after the ladders (L4D2's view distance; unknown games' mesh data).
    pub post_mesh_data: Vec<u8>,
    /// Which game layout the per-area data follows.
    pub layout: GameLayout,
}

/// A place name exactly as stored: its bytes including the trailing NUL.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PlaceName(pub Vec<u8>);

impl PlaceName {
    /// A name stored the way Valve writes it (with a trailing NUL).
    pub fn new(name: &str) -> Self {
        let mut v = name.as_bytes().to_vec();
        v.push(0);
        PlaceName(v)
    }
    /// The name without its NUL (lossy for non-UTF-8 bytes).
    pub fn as_str(&self) -> std::borrow::Cow<'_, str> {
        let b = self.0.strip_suffix(&[0]).unwrap_or(&self.0);
        String::from_utf8_lossy(b)
    }
}

/// One walkable rectangle (`CNavArea`).
#[derive(Debug, Clone, PartialEq)]
pub struct NavArea {
    pub id: u32,
    /// `NavAttributeType` flags; stored as u8 (v≤8), u16 (v9–12) or i32 (v≥13).
    pub attributes: u32,
    /// (min x, min y, z) corner. +y is south.
    pub nw_corner: [f32; 3],
    /// (max x, max y, z) corner.
    pub se_corner: [f32; 3],
    pub ne_z: f32,
    pub sw_z: f32,
    /// Connected area ids per direction (north, east, south, west).
    pub connections: [Vec<u32>; 4],
    pub hiding_spots: Vec<HidingSpot>,
    /// Approach areas stored in the base record before version 15.
    pub approaches: Vec<Approach>,
    pub encounter_paths: EncounterPaths,
    /// 1-based index into [`NavMesh::places`]; 0 = none. From v5.
    pub place: u16,
    /// Ladder ids going up and down. From v7.
    pub ladder_connections: [Vec<u32>; 2],
    /// From v8 (team 2 at index 0, team 3 at index 1).
    pub earliest_occupy_time: [f32; 2],
    /// NW, NE, SE, SW. From v11.
    pub light_intensity: [f32; 4],
    /// From v16 (base layout).
    pub visible_areas: Vec<VisibleArea>,
    /// From v16 (base layout); 0 = none.
    pub inherit_visibility_from: u32,
    pub custom: AreaCustom,
}

impl NavArea {
    /// An area with every field empty or zero (a reader fills it in; a writer sets what it knows).
    pub fn blank() -> NavArea {
        NavArea {
            id: 0,
            attributes: 0,
            nw_corner: [0.0; 3],
            se_corner: [0.0; 3],
            ne_z: 0.0,
            sw_z: 0.0,
            connections: [Vec::new(), Vec::new(), Vec::new(), Vec::new()],
            hiding_spots: Vec::new(),
            approaches: Vec::new(),
            encounter_paths: EncounterPaths::New(Vec::new()),
            place: 0,
            ladder_connections: [Vec::new(), Vec::new()],
            earliest_occupy_time: [0.0; 2],
            light_intensity: [0.0; 4],
            visible_areas: Vec::new(),
            inherit_visibility_from: 0,
            custom: AreaCustom::None,
        }
    }

    /// Moves the area (all four corners) by `delta`.
    pub fn translate(&mut self, delta: [f32; 3]) {
        for (i, d) in delta.iter().enumerate() {
            self.nw_corner[i] += d;
            self.se_corner[i] += d;
        }
        self.ne_z += delta[2];
        self.sw_z += delta[2];
    }

    /// Axis-aligned bounds (min, max) over the four stored corners.
    pub fn bounds(&self) -> ([f32; 3], [f32; 3]) {
        let zs = [self.nw_corner[2], self.se_corner[2], self.ne_z, self.sw_z];
        let zmin = zs.iter().copied().fold(f32::INFINITY, f32::min);
        let zmax = zs.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        (
            [
                self.nw_corner[0].min(self.se_corner[0]),
                self.nw_corner[1].min(self.se_corner[1]),
                zmin,
            ],
            [
                self.nw_corner[0].max(self.se_corner[0]),
                self.nw_corner[1].max(self.se_corner[1]),
                zmax,
            ],
        )
    }
}

/// A point where bots can hide. Version 1 stores only the position (id and flags read as 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HidingSpot {
    pub id: u32,
    pub position: [f32; 3],
    /// IN_COVER 0x01, GOOD_SNIPER_SPOT 0x02, IDEAL_SNIPER_SPOT 0x04, EXPOSED 0x08.
    pub flags: u8,
}

/// `ApproachInfo` (14 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Approach {
    pub here: u32,
    pub prev: u32,
    pub prev_to_here: u8,
    pub next: u32,
    pub here_to_next: u8,
}

/// Encounter paths: the layout changed in version 3.
#[derive(Debug, Clone, PartialEq)]
pub enum EncounterPaths {
    /// Versions 1–2 (read and discarded by the engine; kept here).
    Old(Vec<OldEncounterPath>),
    /// Version 3 and later.
    New(Vec<EncounterPath>),
}

impl EncounterPaths {
    pub fn len(&self) -> usize {
        match self {
            EncounterPaths::Old(v) => v.len(),
            EncounterPaths::New(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct OldEncounterPath {
    pub from: u32,
    pub to: u32,
    pub path_from: [f32; 3],
    pub path_to: [f32; 3],
    /// Each spot is 4 floats.
    pub spots: Vec<[f32; 4]>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct EncounterPath {
    pub from_area: u32,
    pub from_dir: u8,
    pub to_area: u32,
    pub to_dir: u8,
    pub spots: Vec<EncounterSpot>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncounterSpot {
    pub hiding_spot: u32,
    /// Parametric position along the path × 255.
    pub t: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VisibleArea {
    pub area: u32,
    /// NOT_VISIBLE 0, POTENTIALLY_VISIBLE 1, COMPLETELY_VISIBLE 2.
    pub attributes: u8,
}

/// Game data after the base area record.
#[derive(Debug, Clone, PartialEq)]
pub enum AreaCustom {
    None,
    /// TF2 persistent attribute flags (sub-version ≥ 2).
    Tf2 {
        attributes: u32,
    },
    /// CS sub-version 1 (v≥15): the approach list moved here.
    CsApproaches(Vec<Approach>),
    L4d2(L4d2Area),
    /// Unknown game data, kept verbatim.
    Raw(Vec<u8>),
}

/// L4D2's per-area block (reverse-engineered; fields gated by sub-version as the game reads them).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct L4d2Area {
    /// TERROR spawn attribute flags (absent when sub-version is 0).
    pub spawn_attributes: Option<u32>,
    /// Up to three u32 words whose presence depends on the sub-version.
    pub extra_words: Vec<u32>,
    pub fog_place: Option<u16>,
    /// Five raw words stored when `spawn_attributes & 8` and sub-version < 10.
    pub spawn_extra: Option<[u32; 5]>,
    /// Sub-versions 3–9: a u8-counted id list.
    pub old_list: Option<Vec<u32>>,
    /// Sub-version ≥ 5: visible areas (attributes only from sub-version 9).
    pub visible_areas: Option<Vec<(u32, Option<u8>)>>,
    /// Sub-version > 10.
    pub inherit_visibility_from: Option<u32>,
}

/// A ladder (`CNavLadder`, v≥6).
#[derive(Debug, Clone, PartialEq)]
pub struct NavLadder {
    pub id: u32,
    pub width: f32,
    pub top: [f32; 3],
    pub bottom: [f32; 3],
    pub length: f32,
    pub direction: u32,
    /// Stored only in version 6.
    pub is_dangling: Option<u8>,
    pub top_forward_area: u32,
    pub top_left_area: u32,
    pub top_right_area: u32,
    pub top_behind_area: u32,
    pub bottom_area: u32,
}

impl NavMesh {
    /// Reads a NAV file, choosing the game layout automatically.
    pub fn read(data: &[u8]) -> Result<NavMesh, NavError> {
        read::read(data, None)
    }

    /// Reads a NAV file with a given game layout (no guessing).
    pub fn read_with_layout(data: &[u8], layout: GameLayout) -> Result<NavMesh, NavError> {
        read::read(data, Some(layout))
    }

    /// Encodes the mesh in its own version and layout.
    pub fn write(&self) -> Result<Vec<u8>, NavError> {
        write::write(self)
    }

    /// The place name of an area, if it has one.
    pub fn place_name(&self, area: &NavArea) -> Option<std::borrow::Cow<'_, str>> {
        let idx = area.place as usize;
        if idx == 0 {
            None
        } else {
            self.places.get(idx - 1).map(|p| p.as_str())
        }
    }

    /// Counts and bounds for reports.
    pub fn stats(&self) -> NavStats {
        stats::stats(self)
    }
}

/// Reads just the header fields (magic, version, sub-version) without parsing areas.
pub fn peek_version(data: &[u8]) -> Result<(u32, Option<u32>), NavError> {
    let mut r = srcmap_bytes::Reader::new(data, srcmap_bytes::Endian::Little);
    let ctx = |e| NavError::Read {
        context: "header".into(),
        source: e,
    };
    let magic = r.u32().map_err(ctx)?;
    if magic != NAV_MAGIC {
        return Err(NavError::BadMagic { found: magic });
    }
    let version = r.u32().map_err(ctx)?;
    let sub = if version >= 10 {
        Some(r.u32().map_err(ctx)?)
    } else {
        None
    };
    Ok((version, sub))
}
