//! Where a file is found: the game (its VPKs and loose folders: never packed), the loose
//! content folders (packed), or the map's own pakfile (kept; read to follow its references).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use srcmap_bsp::pak::Pak;
use srcmap_content::{GameDir, SearchPath};

use crate::error::PackError;

/// Where a game path was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// In the game's VPKs or loose folders: the game has it, so it is not packed.
    Game,
    /// In content folder `dir` at `file`: packed.
    Content { dir: usize, file: PathBuf },
    /// Already in the map's pakfile.
    Pak,
}

/// The largest sizes the pakfile can hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// One file (zip's 32-bit sizes).
    pub file: u64,
    /// The whole pakfile lump (the lump table's signed 32-bit offsets and lengths).
    pub pakfile: u64,
    /// Entries (zip's 16-bit directory count).
    pub entries: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            file: u32::MAX as u64,
            pakfile: i32::MAX as u64,
            entries: u16::MAX as usize,
        }
    }
}

/// One loose content folder, indexed once by lower-case game path.
#[derive(Debug)]
struct ContentDir {
    root: PathBuf,
    files: HashMap<String, PathBuf>,
}

/// Folders deeper than this are not indexed (a link circle would otherwise never end).
const MAX_DEPTH: usize = 32;

impl ContentDir {
    fn index(root: &Path) -> Result<ContentDir, PackError> {
        let root = root.canonicalize().map_err(|e| PackError::io(root, e))?;
        let mut files = HashMap::new();
        walk_dir(&root, "", 0, &mut files)?;
        Ok(ContentDir { root, files })
    }
}

/// Adds every file below `dir` (game path prefix `prefix`) to `files`; folder links are not
/// followed.
fn walk_dir(
    dir: &Path,
    prefix: &str,
    depth: usize,
    files: &mut HashMap<String, PathBuf>,
) -> Result<(), PackError> {
    if depth > MAX_DEPTH {
        return Ok(());
    }
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| PackError::io(dir, e))?
        .flatten()
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name().to_string_lossy().to_ascii_lowercase();
        let game_path = format!("{prefix}{name}");
        let kind = entry.file_type().map_err(|e| PackError::io(&entry.path(), e))?;
        if kind.is_dir() {
            walk_dir(&entry.path(), &format!("{game_path}/"), depth + 1, files)?;
        } else if !kind.is_dir() && entry.path().is_file() {
            files.entry(game_path).or_insert_with(|| entry.path());
        }
    }
    Ok(())
}

/// The game's files: VPK entries by name, loose folders looked into.
#[derive(Debug, Default)]
struct GameFiles {
    vpk: HashSet<String>,
    dirs: Vec<PathBuf>,
}

impl GameFiles {
    /// The game's search paths, leaving out loose folders that are content folders.
    fn of(game: &GameDir, content: &[ContentDir]) -> GameFiles {
        let mut files = GameFiles::default();
        for sp in &game.search_paths {
            match sp {
                SearchPath::Vpk(vpk, _) => files.vpk.extend(vpk.entries.iter().map(|e| e.path.clone())),
                SearchPath::Dir(d) => {
                    let canonical = d.canonicalize().unwrap_or_else(|_| d.clone());
                    if !content.iter().any(|c| c.root == canonical) {
                        files.dirs.push(d.clone());
                    }
                }
            }
        }
        files
    }

    fn has(&self, path: &str) -> bool {
        self.vpk.contains(path) || self.dirs.iter().any(|d| d.join(path).is_file())
    }
}

/// Every place a file may come from.
#[derive(Debug)]
pub struct Sources<'p> {
    content: Vec<ContentDir>,
    game: GameFiles,
    pak: &'p Pak<'p>,
    pak_names: HashMap<String, usize>,
    pub limits: Limits,
}

impl<'p> Sources<'p> {
    /// Indexes the content folders and the game's files; `pak` is the map's pakfile.
    pub fn new(
        content: &[PathBuf],
        game: Option<&GameDir>,
        pak: &'p Pak<'p>,
        limits: Limits,
    ) -> Result<Sources<'p>, PackError> {
        let content = content
            .iter()
            .map(|c| ContentDir::index(c))
            .collect::<Result<Vec<_>, _>>()?;
        let game = game.map(|g| GameFiles::of(g, &content)).unwrap_or_default();
        let pak_names = pak
            .entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| Some((crate::path::normalise(&e.name)?, i)))
            .collect();
        Ok(Sources {
            content,
            game,
            pak,
            pak_names,
            limits,
        })
    }

    /// Where `path` (normalised) is: the game first, then the content folders in order, then
    /// the pakfile.
    pub fn locate(&self, path: &str) -> Option<Location> {
        if self.game.has(path) {
            return Some(Location::Game);
        }
        for (dir, c) in self.content.iter().enumerate() {
            if let Some(file) = c.files.get(path) {
                return Some(Location::Content {
                    dir,
                    file: file.clone(),
                });
            }
        }
        self.pak_names.contains_key(path).then_some(Location::Pak)
    }

    /// Content files whose game path starts with `prefix` and ends with `suffix`, sorted.
    pub fn content_matching(&self, prefix: &str, suffix: &str) -> Vec<String> {
        let mut out: Vec<String> = self
            .content
            .iter()
            .flat_map(|c| c.files.keys())
            .filter(|k| k.starts_with(prefix) && k.ends_with(suffix))
            .cloned()
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// The bytes of `path` where it was found (`None` for the game's files, which are not
    /// read). A content file must lie inside its folder and fit the pakfile.
    pub fn read(&self, path: &str, at: &Location) -> Result<Option<Vec<u8>>, PackError> {
        match at {
            Location::Game => Ok(None),
            Location::Pak => self.read_pak(path),
            Location::Content { dir, file } => {
                self.read_content(path, &self.content[*dir].root, file).map(Some)
            }
        }
    }

    /// The pakfile entry `path`'s uncompressed bytes.
    pub fn read_pak(&self, path: &str) -> Result<Option<Vec<u8>>, PackError> {
        let Some(&i) = self.pak_names.get(path) else {
            return Ok(None);
        };
        Ok(Some(self.pak.read(&self.pak.entries[i])?))
    }

    fn read_content(&self, path: &str, root: &Path, file: &Path) -> Result<Vec<u8>, PackError> {
        let real = file.canonicalize().map_err(|e| PackError::io(file, e))?;
        if !real.starts_with(root) {
            return Err(PackError::Escape {
                path: path.to_string(),
                referrer: format!("a link in {} to {}", root.display(), real.display()),
            });
        }
        let size = std::fs::metadata(&real)
            .map_err(|e| PackError::io(&real, e))?
            .len();
        if size > self.limits.file {
            return Err(PackError::TooLarge {
                path: file.display().to_string(),
                size,
                limit: self.limits.file,
            });
        }
        std::fs::read(&real).map_err(|e| PackError::io(&real, e))
    }
}
