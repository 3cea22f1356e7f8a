//! The material table: a JSON file, name → facts, with the maps each entry was learned from and
//! the conflicts found between them.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::flags::{Contents, SurfaceFlags};

/// One material's learned facts. `contents` is unknown when the material was never on a brush
/// side (displacements, overlays); `surface_flags` when it was on no texinfo.
#[derive(Debug, Clone, PartialEq)]
pub struct TableEntry {
    pub contents: Option<u32>,
    pub surface_flags: Option<u32>,
    pub width: u32,
    pub height: u32,
    pub reflectivity: [f32; 3],
    /// Texture light: the colour × brightness it emits, linear 0-255 as a `lights.rad` line
    /// gives it after gamma (`None`: emits nothing). Learned from the `emit_surface` world
    /// lights of maps Valve lit.
    pub emit: Option<[f32; 3]>,
    /// The maps it was learned from.
    pub maps: Vec<String>,
    /// How many brush sides and texinfos backed it up (decides conflicts).
    pub evidence: u32,
}

/// Two maps disagree about a material.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Conflict {
    pub material: String,
    pub field: String,
    pub values: Vec<ConflictValue>,
    /// The map whose value the table keeps (the one with the most evidence).
    pub kept: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConflictValue {
    pub map: String,
    pub value: String,
}

/// A material table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MaterialTable {
    entries: BTreeMap<String, TableEntry>,
    /// Materials whose `$envmap` is `env_cubemap` (normalised names, each also in `entries`):
    /// vbsp gives their sides a patched copy that names the nearest cubemap.
    env_cubemap: BTreeSet<String>,
    /// WorldVertexTransition materials (normalised names, each also in `entries`) → the text
    /// of the `_wvt_patch` VMT vbsp writes for their non-displacement sides.
    wvt_patch: BTreeMap<String, String>,
    /// Water materials (normalised names) → their `$bottommaterial`.
    bottom_material: BTreeMap<String, String>,
    /// Materials (normalised names, each also in `entries`) → their `%detailtype`, the
    /// `detail.vbsp` type vbsp places detail props with on their faces.
    detail_type: BTreeMap<String, String>,
    /// Sky names (lower case) → the default cube map Valve's vbsp made from that sky.
    skies: BTreeMap<String, crate::SkyCubemap>,
    /// Surface properties (`$surfaceprop`) learned from maps' physics collision.
    surfaceprop: BTreeMap<String, String>,
    /// Per material, the surface property the maps of each BSP version showed (the file keeps
    /// them where versions disagree): a `$surfaceprop` is the game's VMT's, and games differ
    /// (Desolation's `tools/toolsnodraw` is `default_silent`, Source 2013's has none, so
    /// `default`).
    surfaceprop_by_version: PropsByVersion,
    /// Surface property (lower case) → what its brush entities in Valve's maps weighed
    /// ([`crate::surfaceprop_mass_samples`]).
    mass_samples: BTreeMap<String, Vec<crate::MassSample>>,
    pub conflicts: Vec<Conflict>,
}

/// How Valve's vbsp weighs a brush entity of a surface property.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SurfaceMass {
    /// Solid: kg per cubic metre of its volume.
    Density(f64),
    /// Hollow (a `thickness` in the game's surface properties): mass is the surface area (in²)
    /// × this (density × thickness) × cubic inches to metres.
    Shell(f64),
}

/// Whether the per-version surface properties name more than one property.
fn disagree(by_version: &BTreeMap<i32, String>) -> bool {
    let mut props = by_version.values();
    props.next().is_some_and(|first| props.any(|p| p != first))
}

/// Material → BSP version → the surface property its maps showed. Two are equal when they
/// disagree alike: where a material's versions agree they say nothing the table's one
/// property does not (and the file leaves them out).
#[derive(Debug, Clone, Default)]
struct PropsByVersion(BTreeMap<String, BTreeMap<i32, String>>);

impl PropsByVersion {
    /// The material's (normalised name) per-version properties, where they disagree.
    fn disagreeing(&self, key: &str) -> Option<&BTreeMap<i32, String>> {
        self.0.get(key).filter(|v| disagree(v))
    }

    /// Every material's per-version properties, where they disagree.
    fn all_disagreeing(&self) -> BTreeMap<&String, &BTreeMap<i32, String>> {
        self.0.iter().filter(|(_, v)| disagree(v)).collect()
    }
}

impl PartialEq for PropsByVersion {
    fn eq(&self, other: &Self) -> bool {
        self.all_disagreeing() == other.all_disagreeing()
    }
}

/// Samples of one property agree when each is within this fraction of their median.
const MASS_AGREEMENT: f64 = 0.005;

/// What the samples agree on: one density, else one shell measure, else nothing.
fn agreed_mass(samples: &[crate::MassSample]) -> Option<SurfaceMass> {
    let agreed = |values: Vec<f64>| {
        let mut sorted = values;
        sorted.sort_by(f64::total_cmp);
        let median = *sorted.get(sorted.len() / 2)?;
        sorted
            .iter()
            .all(|v| (v - median).abs() <= MASS_AGREEMENT * median.abs())
            .then_some(median)
    };
    agreed(samples.iter().map(|s| f64::from(s.per_volume)).collect())
        .map(SurfaceMass::Density)
        .or_else(|| agreed(samples.iter().map(|s| f64::from(s.per_area)).collect()).map(SurfaceMass::Shell))
}

/// Why a material table cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum MaterialsError {
    #[error("{line}:{column}: {message}")]
    Json {
        line: usize,
        column: usize,
        message: String,
    },
    /// An entry names a contents or surface flag that does not exist.
    #[error("material {material}: {flag}")]
    UnknownFlag {
        material: String,
        flag: crate::flags::UnknownFlag,
    },
    #[error("not a srcmap material table (format is {0:?}, expected \"srcmap-materials\")")]
    Format(String),
    /// A colour component that is not a finite number (JSON allows numbers too large for f32,
    /// which read as infinity) or out of its range (reflectivity 0..1, emit not negative).
    #[error("material {material}: {field} {value:?} is out of range (reflectivity 0..1, emit >= 0)")]
    NotFinite {
        material: String,
        field: &'static str,
        value: [f32; 3],
    },
}

#[derive(Serialize, Deserialize)]
struct FileEntry {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    contents: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    surface: Option<Vec<String>>,
    width: u32,
    height: u32,
    reflectivity: [f32; 3],
    #[serde(default, skip_serializing_if = "Option::is_none")]
    emit: Option<[f32; 3]>,
    #[serde(default)]
    from: Vec<String>,
    #[serde(default)]
    evidence: u32,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    env_cubemap: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    wvt_patch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bottom_material: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    surfaceprop: Option<String>,
    /// BSP version (as text) → the surface property its maps showed, where versions disagree.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    surfaceprop_by_version: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    detail_type: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct File {
    format: String,
    version: u32,
    materials: BTreeMap<String, FileEntry>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    skies: BTreeMap<String, crate::SkyCubemap>,
    /// Surface property → `[per_volume, per_area]` per brush entity measured.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    surfaceprop_mass: BTreeMap<String, Vec<[f32; 2]>>,
    #[serde(default)]
    conflicts: Vec<Conflict>,
}

impl MaterialTable {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Looks a material up by any spelling of its name.
    pub fn get(&self, name: &str) -> Option<&TableEntry> {
        self.entries.get(&crate::normalise_name(name))
    }

    /// Sets the texture-light value of a material already in the table (any spelling of its
    /// name); false when the table does not hold it.
    pub fn set_emit(&mut self, name: &str, emit: Option<[f32; 3]>) -> bool {
        match self.entries.get_mut(&crate::normalise_name(name)) {
            Some(e) => {
                e.emit = emit;
                true
            }
            None => false,
        }
    }

    /// Whether the material's `$envmap` is `env_cubemap` (any spelling of its name).
    pub fn uses_env_cubemap(&self, name: &str) -> bool {
        self.env_cubemap.contains(&crate::normalise_name(name))
    }

    /// Records that a material's `$envmap` is `env_cubemap`; `entry` is its entry when the
    /// table does not hold one yet (a map may show the material only in patched copies).
    pub fn add_env_cubemap(&mut self, name: &str, entry: TableEntry) {
        let key = crate::normalise_name(name);
        self.entries.entry(key.clone()).or_insert(entry);
        self.env_cubemap.insert(key);
    }

    /// Records the materials a compiled map shows to use `env_cubemap`
    /// ([`crate::env_cubemap_materials`]); call after merging the map's entries.
    fn learn_env_cubemaps(&mut self, map: &str, bsp: &srcmap_bsp::Bsp) {
        for (material, patched, entry) in crate::env_cubemap_materials(map, bsp) {
            // The patched copy's own entry carries the contents and flags its sides showed.
            let entry = self.get(&patched).cloned().unwrap_or(entry);
            self.add_env_cubemap(&material, entry);
        }
    }

    /// The `_wvt_patch` VMT text of a WorldVertexTransition material (any spelling of its
    /// name); `None` for any other material, or one whose patch was never seen.
    pub fn wvt_patch(&self, name: &str) -> Option<&str> {
        self.wvt_patch
            .get(&crate::normalise_name(name))
            .map(String::as_str)
    }

    /// Records that a material is a WorldVertexTransition one whose `_wvt_patch` VMT is `text`
    /// (the first text seen is kept); `entry` is its entry when the table does not hold one.
    pub fn add_wvt_patch(&mut self, name: &str, text: String, entry: TableEntry) {
        let key = crate::normalise_name(name);
        self.entries.entry(key.clone()).or_insert(entry);
        self.wvt_patch.entry(key).or_insert(text);
    }

    /// Learns what a compiled map shows beyond its materials' own entries: env_cubemap and
    /// WorldVertexTransition materials, and its sky's default cube map. Call after merging the
    /// map's entries ([`crate::harvest_bsp`]).
    pub fn learn_patches(&mut self, map: &str, bsp: &srcmap_bsp::Bsp) {
        self.learn_env_cubemaps(map, bsp);
        self.learn_wvt_patches(map, bsp);
        self.learn_surfaceprops(bsp);
        self.learn_sky(bsp);
        // Only for water materials the table holds (the water surface's own entry), and not
        // a bottom that is a patched copy of the map's own.
        for (water, bottom) in crate::water_bottom_materials(bsp) {
            let patched = bottom.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("maps/"));
            if self.entries.contains_key(&water) && !patched {
                self.bottom_material.entry(water).or_insert(bottom);
            }
        }
    }

    /// The material's `%detailtype` (any spelling of its name).
    pub fn detail_type(&self, name: &str) -> Option<&str> {
        self.detail_type
            .get(&crate::normalise_name(name))
            .map(String::as_str)
    }

    /// Records a material's `%detailtype`; `false` (nothing recorded) when the table does
    /// not hold the material.
    pub fn set_detail_type(&mut self, name: &str, detail_type: &str) -> bool {
        let key = crate::normalise_name(name);
        if !self.entries.contains_key(&key) {
            return false;
        }
        self.detail_type.insert(key, detail_type.to_owned());
        true
    }

    /// A water material's `$bottommaterial` (any spelling of its name).
    pub fn bottom_material(&self, water_material: &str) -> Option<&str> {
        self.bottom_material
            .get(&crate::normalise_name(water_material))
            .map(String::as_str)
    }

    /// Records the default cube map a compiled map made from its sky ([`crate::sky::harvest`]).
    fn learn_sky(&mut self, bsp: &srcmap_bsp::Bsp) {
        if let Some((skyname, sky)) = crate::sky::harvest(bsp) {
            self.add_sky(&skyname, sky);
        }
    }

    /// Records the WorldVertexTransition materials a compiled map shows
    /// ([`crate::wvt_patch_materials`]); call after merging the map's entries.
    fn learn_wvt_patches(&mut self, map: &str, bsp: &srcmap_bsp::Bsp) {
        for (material, patched, text, entry) in crate::wvt_patch_materials(map, bsp) {
            let entry = self.get(&patched).cloned().unwrap_or(entry);
            self.add_wvt_patch(&material, text, entry);
        }
    }

    /// The default cube map of a sky (any case of its name).
    pub fn sky(&self, skyname: &str) -> Option<crate::SkyCubemap> {
        self.skies.get(&skyname.to_ascii_lowercase()).copied()
    }

    /// Records the default cube map a map made from its sky (the first seen is kept).
    pub fn add_sky(&mut self, skyname: &str, sky: crate::SkyCubemap) {
        self.skies.entry(skyname.to_ascii_lowercase()).or_insert(sky);
    }

    /// The surface property learned for a material (any spelling of its name).
    pub fn surfaceprop(&self, name: &str) -> Option<&str> {
        self.surfaceprop
            .get(&crate::normalise_name(name))
            .map(String::as_str)
    }

    /// The surface property learned for a material from maps of BSP `version` (a game's
    /// branch), else from any map.
    pub fn surfaceprop_for(&self, name: &str, version: i32) -> Option<&str> {
        let key = crate::normalise_name(name);
        let own = (self.surfaceprop_by_version.0.get(&key)).and_then(|v| v.get(&version));
        own.or_else(|| self.surfaceprop.get(&key)).map(String::as_str)
    }

    /// Where maps of different BSP versions showed different surface properties for a
    /// material: each version's; empty where they agree.
    pub fn surfaceprop_versions(&self, name: &str) -> Vec<(i32, &str)> {
        self.disagreeing_versions(&crate::normalise_name(name))
            .map(|(v, p)| (*v, p.as_str()))
            .collect()
    }

    /// The per-version surface properties of a material (normalised name), where they disagree.
    fn disagreeing_versions(&self, key: &str) -> impl Iterator<Item = (&i32, &String)> {
        self.surfaceprop_by_version.disagreeing(key).into_iter().flatten()
    }

    /// How a surface property weighs, where every map that shows it agrees.
    pub fn surface_mass(&self, prop: &str) -> Option<SurfaceMass> {
        agreed_mass(self.mass_samples.get(&prop.to_ascii_lowercase())?)
    }

    /// Records the surface properties a compiled map's physics collision shows
    /// ([`crate::surfaceprop_materials`]); the first map to name a material's wins, and the
    /// first of each BSP version for that version. Only materials the table holds are
    /// recorded (their entry carries them in the file).
    fn learn_surfaceprops(&mut self, bsp: &srcmap_bsp::Bsp) {
        for (material, prop) in crate::surfaceprop_materials(bsp) {
            if self.entries.contains_key(&material) {
                let by_version = self.surfaceprop_by_version.0.entry(material.clone());
                by_version.or_default().entry(bsp.version).or_insert(prop.clone());
                self.surfaceprop.entry(material).or_insert(prop);
            }
        }
        for (prop, sample) in crate::surfaceprop_mass_samples(bsp) {
            self.mass_samples.entry(prop).or_default().push(sample);
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &TableEntry)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// Adds one map's entries, recording a conflict wherever the map disagrees with what the
    /// table already holds. The value with more evidence is kept.
    pub fn merge(&mut self, map_entries: BTreeMap<String, TableEntry>) {
        for (name, new) in map_entries {
            let Some(old) = self.entries.get_mut(&name) else {
                self.entries.insert(name, new);
                continue;
            };
            let new_wins = new.evidence > old.evidence;
            let sides = MergeSides::new(old, &new, new_wins);
            for (field, a, b) in disagreements(old, &new) {
                self.conflicts.push(sides.conflict(&name, field, a, b));
            }
            *old = merged_entry(old, new, new_wins);
        }
    }

    /// A table from compiled maps: `(name for reports, parsed BSP)`.
    pub fn harvest<'a>(maps: impl IntoIterator<Item = (String, &'a srcmap_bsp::Bsp)>) -> MaterialTable {
        let mut table = MaterialTable::new();
        for (name, bsp) in maps {
            table.merge(crate::harvest_bsp(&name, bsp));
            table.learn_env_cubemaps(&name, bsp);
            table.learn_wvt_patches(&name, bsp);
            table.learn_surfaceprops(bsp);
        }
        table
    }

    pub fn to_json(&self) -> String {
        let file = File {
            format: "srcmap-materials".into(),
            version: 1,
            materials: self
                .entries
                .iter()
                .map(|(k, e)| (k.clone(), self.file_entry(k, e)))
                .collect(),
            skies: self.skies.clone(),
            surfaceprop_mass: self
                .mass_samples
                .iter()
                .map(|(k, v)| (k.clone(), v.iter().map(|s| [s.per_volume, s.per_area]).collect()))
                .collect(),
            conflicts: self.conflicts.clone(),
        };
        let mut s = serde_json::to_string_pretty(&file).unwrap_or_default();
        s.push('\n');
        s
    }

    /// A material's entry as the file writes it, with what the table knows of it beside.
    fn file_entry(&self, k: &String, e: &TableEntry) -> FileEntry {
        FileEntry {
            contents: e.contents.map(|c| Contents(c).names()),
            surface: e.surface_flags.map(|s| SurfaceFlags(s).names()),
            width: e.width,
            height: e.height,
            reflectivity: e.reflectivity,
            emit: e.emit,
            from: e.maps.clone(),
            evidence: e.evidence,
            env_cubemap: self.env_cubemap.contains(k),
            wvt_patch: self.wvt_patch.get(k).cloned(),
            bottom_material: self.bottom_material.get(k).cloned(),
            surfaceprop: self.surfaceprop.get(k).cloned(),
            surfaceprop_by_version: (self.disagreeing_versions(k))
                .map(|(v, p)| (v.to_string(), p.clone()))
                .collect(),
            detail_type: self.detail_type.get(k).cloned(),
        }
    }

    pub fn from_json(text: &str) -> Result<MaterialTable, MaterialsError> {
        let file: File = serde_json::from_str(text).map_err(|e| MaterialsError::Json {
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        if file.format != "srcmap-materials" {
            return Err(MaterialsError::Format(file.format));
        }
        let mut table = MaterialTable::new();
        for (name, e) in file.materials {
            table.add_file_entry(&name, e)?;
        }
        table.skies = file.skies;
        table.mass_samples = mass_samples_from_file(file.surfaceprop_mass);
        table.conflicts = file.conflicts;
        Ok(table)
    }

    /// Records what a file entry says of its material beside its facts.
    fn add_file_extras(&mut self, key: &str, e: &mut FileEntry) {
        if e.env_cubemap {
            self.env_cubemap.insert(key.to_owned());
        }
        if let Some(text) = e.wvt_patch.take() {
            self.wvt_patch.insert(key.to_owned(), text);
        }
        if let Some(bottom) = e.bottom_material.take() {
            self.bottom_material.insert(key.to_owned(), bottom);
        }
        if let Some(prop) = e.surfaceprop.take() {
            self.surfaceprop.insert(key.to_owned(), prop);
        }
        let by_version: BTreeMap<i32, String> = std::mem::take(&mut e.surfaceprop_by_version)
            .into_iter()
            .filter_map(|(v, p)| Some((v.parse().ok()?, p)))
            .collect();
        if disagree(&by_version) {
            self.surfaceprop_by_version.0.insert(key.to_owned(), by_version);
        }
        if let Some(ty) = e.detail_type.take() {
            self.detail_type.insert(key.to_owned(), ty);
        }
    }

    /// Adds a material's entry as the file gives it, and what the file says of it beside.
    fn add_file_entry(&mut self, name: &str, mut e: FileEntry) -> Result<(), MaterialsError> {
        let (contents, surface_flags) = file_flags(name, &e)?;
        check_finite(name, &e)?;
        let key = crate::normalise_name(name);
        self.add_file_extras(&key, &mut e);
        let entry = TableEntry {
            contents,
            surface_flags,
            width: e.width,
            height: e.height,
            reflectivity: e.reflectivity,
            emit: e.emit,
            maps: e.from,
            evidence: e.evidence,
        };
        self.entries.insert(key, entry);
        Ok(())
    }
}

/// Who a conflict is between: the maps the table's entry came from, the map's name, and the
/// map whose value is kept.
struct MergeSides {
    old_maps: String,
    new_map: String,
    kept: String,
}

impl MergeSides {
    fn new(old: &TableEntry, new: &TableEntry, new_wins: bool) -> MergeSides {
        let old_map = old.maps.first().cloned().unwrap_or_default();
        let new_map = new.maps.first().cloned().unwrap_or_default();
        MergeSides {
            old_maps: old.maps.join(", "),
            kept: if new_wins { new_map.clone() } else { old_map },
            new_map,
        }
    }

    fn conflict(&self, material: &str, field: &str, old_value: String, new_value: String) -> Conflict {
        Conflict {
            material: material.to_owned(),
            field: field.to_owned(),
            values: vec![
                ConflictValue {
                    map: self.old_maps.clone(),
                    value: old_value,
                },
                ConflictValue {
                    map: self.new_map.clone(),
                    value: new_value,
                },
            ],
            kept: self.kept.clone(),
        }
    }
}

/// The fields on which a map's entry disagrees with the table's: (field, table's value, map's
/// value), in the order the conflicts are reported.
fn disagreements(old: &TableEntry, new: &TableEntry) -> Vec<(&'static str, String, String)> {
    [
        flags_disagreement("contents", old.contents, new.contents, |c| Contents(c).names()),
        flags_disagreement("surface", old.surface_flags, new.surface_flags, |s| {
            SurfaceFlags(s).names()
        }),
        size_disagreement(old, new),
        reflectivity_disagreement(old, new),
        emit_disagreement(old, new),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Two known flag sets that differ, each as its names joined by `|`.
fn flags_disagreement(
    field: &'static str,
    old: Option<u32>,
    new: Option<u32>,
    names: impl Fn(u32) -> Vec<String>,
) -> Option<(&'static str, String, String)> {
    let (a, b) = (old?, new?);
    (a != b).then(|| (field, names(a).join("|"), names(b).join("|")))
}

fn size_disagreement(old: &TableEntry, new: &TableEntry) -> Option<(&'static str, String, String)> {
    ((old.width, old.height) != (new.width, new.height)).then(|| {
        (
            "size",
            format!("{}x{}", old.width, old.height),
            format!("{}x{}", new.width, new.height),
        )
    })
}

fn reflectivity_disagreement(old: &TableEntry, new: &TableEntry) -> Option<(&'static str, String, String)> {
    old.reflectivity
        .iter()
        .zip(new.reflectivity)
        .any(|(a, b)| (a - b).abs() > 1e-3)
        .then(|| {
            (
                "reflectivity",
                format!("{:?}", old.reflectivity),
                format!("{:?}", new.reflectivity),
            )
        })
}

fn emit_disagreement(old: &TableEntry, new: &TableEntry) -> Option<(&'static str, String, String)> {
    let (a, b) = (old.emit?, new.emit?);
    emits_differ(a, b).then(|| ("emit", format!("{a:?}"), format!("{b:?}")))
}

/// Whether two texture-light values differ by more than 1% (plus a little).
fn emits_differ(a: [f32; 3], b: [f32; 3]) -> bool {
    a.iter()
        .zip(b)
        .any(|(x, y)| (x - y).abs() > 0.01 * x.abs().max(y.abs()) + 1e-3)
}

/// The table's entry merged with a map's: the winner's values, the loser's where the winner
/// knows none, both's maps and evidence.
fn merged_entry(old: &TableEntry, new: TableEntry, new_wins: bool) -> TableEntry {
    let keep_option = |a: Option<u32>, b: Option<u32>| if new_wins { b.or(a) } else { a.or(b) };
    TableEntry {
        contents: keep_option(old.contents, new.contents),
        surface_flags: keep_option(old.surface_flags, new.surface_flags),
        width: if new_wins { new.width } else { old.width },
        height: if new_wins { new.height } else { old.height },
        reflectivity: if new_wins {
            new.reflectivity
        } else {
            old.reflectivity
        },
        emit: if new_wins {
            new.emit.or(old.emit)
        } else {
            old.emit.or(new.emit)
        },
        maps: old.maps.iter().chain(&new.maps).cloned().collect(),
        evidence: old.evidence + new.evidence,
    }
}

/// A file entry's contents and surface flags, read from their names.
fn file_flags(name: &str, e: &FileEntry) -> Result<(Option<u32>, Option<u32>), MaterialsError> {
    let err = |flag| MaterialsError::UnknownFlag {
        material: name.to_owned(),
        flag,
    };
    let contents = e
        .contents
        .as_ref()
        .map(|c| Contents::parse_names(c).map(|c| c.0))
        .transpose()
        .map_err(err)?;
    let surface_flags = e
        .surface
        .as_ref()
        .map(|s| SurfaceFlags::parse_names(s).map(|s| s.0))
        .transpose()
        .map_err(err)?;
    Ok((contents, surface_flags))
}

/// Fails on a file entry's colour that is not finite or out of its range: reflectivity is a
/// fraction (0..1), emitted light is not negative.
fn check_finite(name: &str, e: &FileEntry) -> Result<(), MaterialsError> {
    // Valve's own TEXDATA holds 1.0000001 (rounding of a texture's average colour).
    let fraction = |c: &f32| (0.0..=1.001).contains(c);
    let not_negative = |c: &f32| c.is_finite() && *c >= 0.0;
    let fields = [
        ("reflectivity", Some(e.reflectivity), fraction as fn(&f32) -> bool),
        ("emit", e.emit, not_negative),
    ];
    for (field, value, ok) in fields {
        if let Some(value) = value.filter(|v| !v.iter().all(ok)) {
            return Err(MaterialsError::NotFinite {
                material: name.to_owned(),
                field,
                value,
            });
        }
    }
    Ok(())
}

/// The file's mass samples by surface property (lower case), each measured one kept.
fn mass_samples_from_file(
    surfaceprop_mass: BTreeMap<String, Vec<[f32; 2]>>,
) -> BTreeMap<String, Vec<crate::MassSample>> {
    surfaceprop_mass
        .into_iter()
        .map(|(k, v)| {
            // A number out of f32's range reads as infinite: not a measurement.
            let samples = v
                .into_iter()
                .filter(|s| s.iter().all(|x| x.is_finite()))
                .map(|[per_volume, per_area]| crate::MassSample { per_volume, per_area })
                .collect();
            (k.to_ascii_lowercase(), samples)
        })
        .collect()
}
