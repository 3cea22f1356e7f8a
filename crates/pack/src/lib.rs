//! Packs a map's custom content into its BSP's pakfile, as CompilePal's packer, VIDE or
//! srctools' `PackList` do: the files the map needs that the game does not have.
//!
//! [`plan`] walks the map's references (brush materials, the sky, detail sprites, entity
//! keys, static props and their skins, files named after the map, population files) through
//! each file it reaches in the loose content folders: materials to textures and other
//! materials (`include`, `$fallbackmaterial`, `$bottommaterial`...), models to their sibling
//! files, materials (`$cdmaterials` × skin families), `$includemodel`s and `.phy` gibs,
//! particle manifests to `.pcf` files and the materials inside them, soundscripts and
//! soundscapes to sounds, VScripts to the scripts they include, `.res` files to theirs. A file
//! the game provides (its VPKs or loose folders) is never packed and not followed; a file only
//! the content folders have is packed; the map's own pakfile entries are kept and followed
//! (cubemap patches include the map's materials). [`pack`] writes the result through
//! `srcmap_bsp::pak`: existing entries byte for byte, new ones in name order, stored or LZMA
//! as the pakfile already is.
//!
//! Bad input stops the plan with a [`PackError`] naming it: a reference leaving its content
//! folder, files including each other in a circle, a file too large for a zip.

pub mod error;
pub mod kinds;
pub mod kvfiles;
pub mod map;
pub mod model;
pub mod particles;
pub mod path;
pub mod refs;
pub mod scripts;
pub mod sources;
pub mod vmt;
pub mod walk;

use std::path::PathBuf;

use srcmap_bsp::pak::{self, Pak};
use srcmap_bsp::{Bsp, BspFile, lump};
use srcmap_content::GameDir;

pub use error::PackError;
pub use refs::Ref;
pub use sources::{Limits, Location};
pub use walk::Unresolved;

/// How new entries are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    /// As most of the pakfile's entries are (stored when it has none).
    #[default]
    Auto,
    Stored,
    Lzma,
}

/// What to pack besides what the map names, and how.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The map's name (the BSP's file stem), for the files named after it.
    pub map: String,
    /// Pack `maps/<map>.nav` as `maps/embed.nav` (TF2 loads it from there).
    pub rename_nav: bool,
    /// Game paths packed (with what they need) whether the map names them or not.
    pub include: Vec<String>,
    /// Globs of game paths never packed nor followed.
    pub exclude: Vec<String>,
    /// Population files given (name, bytes): read for their references, not packed.
    pub pops: Vec<(String, Vec<u8>)>,
    pub compression: Compression,
    pub limits: Limits,
}

/// What a file's entry in the pakfile becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    Added,
    Replaced,
    Unchanged,
}

/// One file to pack.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Packed {
    /// Its name in the pakfile.
    pub name: String,
    /// Where it comes from.
    pub source: PathBuf,
    pub size: u64,
    pub change: Change,
    /// The references that brought it in, nearest first.
    pub chain: Vec<String>,
    #[serde(skip)]
    pub bytes: Vec<u8>,
}

/// The outcome of the walk.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Plan {
    /// The content files the map needs, by name.
    pub files: Vec<Packed>,
    /// Needed files the game provides (not packed).
    pub from_game: Vec<String>,
    /// Needed files nothing provides, each with what referred to it.
    pub unresolved: Vec<Unresolved>,
    /// Files `--exclude` left out.
    pub excluded: Vec<String>,
    /// Files whose references could not be read.
    pub problems: Vec<String>,
    /// Whether new entries are LZMA-compressed.
    pub lzma: bool,
}

impl Plan {
    /// The files whose pakfile entry changes.
    pub fn changes(&self) -> impl Iterator<Item = &Packed> {
        self.files.iter().filter(|f| f.change != Change::Unchanged)
    }
}

/// Walks the map `bsp` (a BSP file's bytes) through `content` and `game`.
pub fn plan(
    bsp: &[u8],
    content: &[PathBuf],
    game: Option<&GameDir>,
    options: &Options,
) -> Result<Plan, PackError> {
    let file = BspFile::parse(bsp)?;
    let lump_bytes = pak::pak_lump(&file)?;
    let zip = Pak::of_lump(&file, &lump_bytes)?;
    let map = Bsp::parse_only(bsp, &|l| REFERENCE_LUMPS.contains(&l))?;
    let sources = sources::Sources::new(content, game, &zip, options.limits)?;
    let name = options.map.to_ascii_lowercase();
    let found = map::map_refs(&map, &name, options.rename_nav);
    let roots = roots(found.roots, &sources, &name, options)?;
    let mut walk = walk::Walk::new(&sources, &name, &options.exclude, found.model_skins);
    walk.run(roots)?;
    let mut plan = outcome(&walk, &sources)?;
    plan.lzma = uses_lzma(options.compression, &zip);
    Ok(plan)
}

/// The lumps whose content names files.
const REFERENCE_LUMPS: [usize; 5] = [
    lump::ENTITIES,
    lump::TEXDATA,
    lump::GAME_LUMP,
    lump::TEXDATA_STRING_DATA,
    lump::TEXDATA_STRING_TABLE,
];

/// Whether new entries are LZMA: as asked, or as most of the pakfile's entries are.
fn uses_lzma(compression: Compression, zip: &Pak<'_>) -> bool {
    match compression {
        Compression::Auto => {
            2 * zip
                .entries
                .iter()
                .filter(|e| e.method == pak::METHOD_LZMA)
                .count()
                > zip.entries.len()
        }
        c => c == Compression::Lzma,
    }
}

/// The map's references, then `--include`d files, population files for the map in the
/// content folders, and the references of population files given.
fn roots(
    mut roots: Vec<Ref>,
    sources: &sources::Sources<'_>,
    map: &str,
    options: &Options,
) -> Result<Vec<Ref>, PackError> {
    roots.extend(options.include.iter().map(|p| Ref::to(p.clone(), "--include")));
    let pops = sources.content_matching(&format!("scripts/population/{map}"), ".pop");
    roots.extend(pops.into_iter().map(|p| Ref::to(p, "population file of the map")));
    for (name, bytes) in &options.pops {
        let refs = kinds::references(name, bytes, &None)?;
        roots.extend(refs.into_iter().map(|mut r| {
            r.via = format!("{} in {name}", r.via);
            r
        }));
    }
    Ok(roots)
}

/// The walk's nodes sorted into what is packed, what the game has, what was excluded.
fn outcome(walk: &walk::Walk<'_, '_>, sources: &sources::Sources<'_>) -> Result<Plan, PackError> {
    let mut plan = Plan {
        unresolved: walk.unresolved.clone(),
        problems: walk.problems.clone(),
        ..Plan::default()
    };
    for (id, node) in walk.nodes.iter().enumerate() {
        match &node.location {
            _ if node.excluded => plan.excluded.push(node.path.clone()),
            Location::Game => plan.from_game.push(node.path.clone()),
            Location::Content { file, .. } if !kinds::is_read_only(&node.path) => {
                plan.files.push(packed(walk, id, file, sources)?);
            }
            _ => {}
        }
    }
    plan.files.sort_by(|a, b| a.name.cmp(&b.name));
    plan.files.dedup_by(|a, b| a.name == b.name);
    plan.from_game.sort();
    Ok(plan)
}

/// A content node as the file to pack, compared with the pakfile's entry of its name.
fn packed(
    walk: &walk::Walk<'_, '_>,
    id: usize,
    file: &std::path::Path,
    sources: &sources::Sources<'_>,
) -> Result<Packed, PackError> {
    let node = &walk.nodes[id];
    let name = node.rename.clone().unwrap_or_else(|| node.path.clone());
    let bytes = sources.read(&node.path, &node.location)?.unwrap_or_default();
    let change = match sources.read_pak(&name)? {
        Some(old) if old == bytes => Change::Unchanged,
        Some(_) => Change::Replaced,
        None => Change::Added,
    };
    let (source, size, chain) = (file.to_path_buf(), bytes.len() as u64, walk.chain(id));
    Ok(Packed {
        name,
        source,
        size,
        change,
        chain,
        bytes,
    })
}

/// The BSP `bsp` with the plan's new and changed files in its pakfile (the same bytes when
/// nothing changes). Refuses a pakfile past the limits.
pub fn pack(bsp: &[u8], plan: &Plan, limits: &Limits) -> Result<Vec<u8>, PackError> {
    let changes: Vec<(String, Vec<u8>)> = plan
        .changes()
        .map(|f| (f.name.clone(), f.bytes.clone()))
        .collect();
    if changes.is_empty() {
        return Ok(bsp.to_vec());
    }
    let file = BspFile::parse(bsp)?;
    check_limits(&file, plan, limits)?;
    Ok(pak::add_files(&file, &changes, plan.lzma)?)
}

/// The entry count and an upper bound of the new pakfile's size against the limits.
fn check_limits(file: &BspFile<'_>, plan: &Plan, limits: &Limits) -> Result<(), PackError> {
    let lump_bytes = pak::pak_lump(file)?;
    let zip = Pak::of_lump(file, &lump_bytes)?;
    let count = zip.entries.len() + plan.files.iter().filter(|f| f.change == Change::Added).count();
    if count > limits.entries {
        return Err(PackError::TooManyEntries {
            count,
            limit: limits.entries,
        });
    }
    if let Some(f) = plan.changes().find(|f| f.size > limits.file) {
        return Err(PackError::TooLarge {
            path: f.name.clone(),
            size: f.size,
            limit: limits.file,
        });
    }
    check_pakfile_size(lump_bytes.len() as u64, plan, limits)
}

/// An upper bound of the new pakfile's size (each new entry stored, with its local header,
/// central record and the name twice) against the lump table's limit.
fn check_pakfile_size(old: u64, plan: &Plan, limits: &Limits) -> Result<(), PackError> {
    let size = old
        + plan
            .changes()
            .map(|f| 76 + 2 * f.name.len() as u64 + f.size)
            .sum::<u64>();
    if size <= limits.pakfile {
        return Ok(());
    }
    let largest = plan
        .changes()
        .max_by_key(|f| f.size)
        .map_or(String::new(), |f| f.name.clone());
    Err(PackError::TooLarge {
        path: format!("the pakfile (largest new file {largest})"),
        size,
        limit: limits.pakfile,
    })
}
