//! A game directory resolved through `gameinfo.txt`: its `SearchPaths` with the `game` path ID,
//! in order, loose directories and VPK archives alike.

use std::path::{Path, PathBuf};

use crate::kv::{self, KvNode};
use crate::vmt::Vmt;
use crate::vpk::Vpk;
use crate::vtf::VtfHeader;
use crate::{ContentError, Result, io_err};

/// One place files are looked up.
#[derive(Debug)]
pub enum SearchPath {
    Dir(PathBuf),
    Vpk(Box<Vpk>, PathBuf),
}

/// A game directory (the folder holding `gameinfo.txt`).
#[derive(Debug)]
pub struct GameDir {
    pub root: PathBuf,
    /// The `game` value of gameinfo.txt.
    pub name: Option<String>,
    pub search_paths: Vec<SearchPath>,
    /// Search path entries that could not be opened (missing VPKs), with why.
    pub skipped: Vec<String>,
}

impl GameDir {
    /// Opens `root/gameinfo.txt` and every search path with the `game` ID. Without a
    /// gameinfo.txt, the directory alone is searched.
    pub fn open(root: &Path) -> Result<GameDir> {
        let gi = root.join("gameinfo.txt");
        if !gi.exists() {
            return GameDir::bare(root);
        }
        let text = std::fs::read(&gi).map_err(|e| io_err(&gi, e))?;
        let nodes = kv::parse(&text, &gi.display().to_string())?;
        let game_info = nodes
            .iter()
            .find(|n| n.key.eq_ignore_ascii_case("gameinfo"))
            .ok_or_else(|| ContentError::Syntax {
                path: gi.display().to_string(),
                line: 1,
                message: "no GameInfo block".into(),
            })?;
        let mut dir = GameDir {
            root: root.to_path_buf(),
            name: game_info.get_text("game").map(str::to_string),
            search_paths: Vec::new(),
            skipped: Vec::new(),
        };
        let paths = game_info.get("filesystem").and_then(|f| f.get("searchpaths"));
        match paths {
            Some(p) => dir.add_search_paths(p),
            None => dir.search_paths.push(SearchPath::Dir(root.to_path_buf())),
        }
        Ok(dir)
    }

    /// A directory without gameinfo.txt: searched alone.
    fn bare(root: &Path) -> Result<GameDir> {
        if !root.is_dir() {
            return Err(io_err(
                root,
                std::io::Error::new(std::io::ErrorKind::NotFound, "not a directory"),
            ));
        }
        Ok(GameDir {
            root: root.to_path_buf(),
            name: None,
            search_paths: vec![SearchPath::Dir(root.to_path_buf())],
            skipped: Vec::new(),
        })
    }

    fn add_search_paths(&mut self, block: &KvNode) {
        // Relative paths count from the folder above the game dir (the engine's base dir).
        let base = self.root.parent().map(Path::to_path_buf).unwrap_or_default();
        for entry in block.children() {
            let ids = entry.key.to_ascii_lowercase();
            if !ids.split('+').any(|id| id == "game") {
                continue;
            }
            let Some(value) = entry.text() else { continue };
            let path = self.search_path(&base, &value.replace('\\', "/"));
            let text = path.to_string_lossy().into_owned();
            if let Some(dir) = text.strip_suffix("/*") {
                // `custom/*`: every subfolder (and VPK) of it.
                let mut subs: Vec<PathBuf> = std::fs::read_dir(dir)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .map(|e| e.path())
                    .collect();
                subs.sort();
                for s in subs {
                    self.add_one(&s);
                }
            } else {
                self.add_one(&path);
            }
        }
    }

    /// A search path's value (`/`-separated) as a path: `|gameinfo_path|` is the game dir,
    /// `|all_source_engine_paths|` and relative paths count from `base`.
    fn search_path(&self, base: &Path, value: &str) -> PathBuf {
        if let Some(rest) = value.strip_prefix("|gameinfo_path|") {
            self.root.join(rest)
        } else if let Some(rest) = value.strip_prefix("|all_source_engine_paths|") {
            base.join(rest)
        } else if Path::new(value).is_absolute() {
            PathBuf::from(value)
        } else {
            base.join(value)
        }
    }

    fn add_one(&mut self, path: &Path) {
        if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("vpk")) {
            match Vpk::open(path) {
                Ok(v) => self
                    .search_paths
                    .push(SearchPath::Vpk(Box::new(v), path.to_path_buf())),
                Err(e) => self.skipped.push(e.to_string()),
            }
        } else if path.is_dir() {
            self.search_paths.push(SearchPath::Dir(path.to_path_buf()));
        } else {
            self.skipped.push(format!("{}: not found", path.display()));
        }
    }

    /// A file by its game path (`materials/x.vmt`), first match in search order.
    pub fn read(&self, path: &str) -> Result<Option<Vec<u8>>> {
        let rel = path.replace('\\', "/").trim_start_matches('/').to_string();
        for sp in &self.search_paths {
            match sp {
                SearchPath::Dir(d) => {
                    let p = d.join(&rel);
                    if p.is_file() {
                        return std::fs::read(&p).map(Some).map_err(|e| io_err(&p, e));
                    }
                    // Case-insensitive fallback, as the engine's file system on Windows.
                    if let Some(found) = find_case_insensitive(d, &rel) {
                        return std::fs::read(&found).map(Some).map_err(|e| io_err(&found, e));
                    }
                }
                SearchPath::Vpk(vpk, _) => {
                    if let Some(e) = vpk.find(&rel) {
                        return vpk.read(e).map(Some);
                    }
                }
            }
        }
        Ok(None)
    }

    /// A material by name (`tools/toolsnodraw`, with or without `materials/` and `.vmt`),
    /// `patch` materials resolved.
    pub fn material(&self, name: &str) -> Result<Option<Vmt>> {
        let path = material_path(name, "vmt");
        let Some(bytes) = self.read(&path)? else {
            return Ok(None);
        };
        let vmt = Vmt::parse(&bytes, &path)?;
        let mut load = |p: &str| self.read(&material_path(p, "vmt")).ok().flatten();
        vmt.resolve(&mut load).map(Some)
    }

    /// A texture's header by name (`brick/brickwall001a`).
    pub fn texture_header(&self, name: &str) -> Result<Option<VtfHeader>> {
        let path = material_path(name, "vtf");
        match self.read(&path)? {
            Some(bytes) => VtfHeader::parse(&bytes, &path).map(Some),
            None => Ok(None),
        }
    }
}

/// `materials/<name>.<ext>`, lowercase, whatever the caller passed.
pub fn material_path(name: &str, ext: &str) -> String {
    let mut n = name.replace('\\', "/").to_ascii_lowercase();
    if !n.starts_with("materials/") {
        n = format!("materials/{n}");
    }
    if !n.ends_with(&format!(".{ext}")) {
        n = format!("{n}.{ext}");
    }
    n
}

fn find_case_insensitive(root: &Path, rel: &str) -> Option<PathBuf> {
    let mut cur = root.to_path_buf();
    for part in rel.split('/') {
        let next = std::fs::read_dir(&cur)
            .ok()?
            .flatten()
            .find(|e| e.file_name().to_string_lossy().eq_ignore_ascii_case(part))?;
        cur = next.path();
    }
    cur.is_file().then_some(cur)
}
