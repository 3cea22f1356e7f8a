//! Which game a compile is for, as Valve's tools know it from `-game`: the game folder's
//! `gameinfo.txt` (its Steam app id, its `game` title, its folder and search path names), or a
//! `--target` naming one. The game decides the BSP's version and layout ([`Target`]).

use std::path::{Path, PathBuf};

use srcmap_bsp::Target;
use srcmap_content::KvNode;

/// A game that cannot be told: wrong usage, found before any work.
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("--target {name}: unknown game; known: {}", Target::names())]
    Unknown { name: String },
    #[error(
        "{}: no game srcmap knows (game \"{game}\", SteamAppId {app_id}); name it with --target (known: {})",
        path.display(), Target::names()
    )]
    Unrecognised {
        path: PathBuf,
        game: String,
        app_id: String,
    },
    #[error("{}: cannot read: {error}", path.display())]
    Unreadable { path: PathBuf, error: String },
}

impl TargetError {
    /// The gameinfo.txt at fault, when a file is.
    pub fn file(&self) -> Option<&Path> {
        match self {
            TargetError::Unknown { .. } => None,
            TargetError::Unrecognised { path, .. } | TargetError::Unreadable { path, .. } => Some(path),
        }
    }
}

/// The target of a run and how it was chosen, for the line that tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chosen {
    pub target: &'static Target,
    pub by: ChosenBy,
}

/// How a target was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChosenBy {
    /// `--target NAME`.
    Name,
    /// The game folder's gameinfo.txt.
    GameInfo,
    /// Neither a name nor a gameinfo.txt: the default.
    Default,
}

impl Chosen {
    /// The line a run tells once: which game the BSP is for and what that means.
    pub fn line(&self) -> String {
        let why = match self.by {
            ChosenBy::Name => "--target",
            ChosenBy::GameInfo => "from gameinfo.txt",
            ChosenBy::Default => "the default; name the game with -game DIR or --target NAME",
        };
        format!("target: {} [{why}]", self.target.summary())
    }
}

/// The target named by `name`, else the one `game`'s gameinfo.txt is for, else the default.
/// A name overrides the game folder (a mod whose gameinfo.txt names no known game).
pub fn choose(game: Option<&Path>, name: Option<&str>) -> Result<Chosen, TargetError> {
    if let Some(name) = name {
        let target = Target::by_name(name).ok_or_else(|| TargetError::Unknown { name: name.into() })?;
        return Ok(Chosen {
            target,
            by: ChosenBy::Name,
        });
    }
    let info = game.map(|g| g.join("gameinfo.txt")).filter(|p| p.is_file());
    match info {
        Some(path) => Ok(Chosen {
            target: from_game_info(&path)?,
            by: ChosenBy::GameInfo,
        }),
        None => Ok(Chosen {
            target: Target::DEFAULT,
            by: ChosenBy::Default,
        }),
    }
}

/// The target of the game `path` (a gameinfo.txt) describes.
fn from_game_info(path: &Path) -> Result<&'static Target, TargetError> {
    let unreadable = |error: String| TargetError::Unreadable {
        path: path.to_path_buf(),
        error,
    };
    let text = std::fs::read(path).map_err(|e| unreadable(e.to_string()))?;
    let nodes = srcmap_content::kv::parse(&text, &path.display().to_string())
        .map_err(|e| unreadable(e.to_string()))?;
    let info = nodes.iter().find(|n| n.key.eq_ignore_ascii_case("gameinfo"));
    let facts = info.map(GameFacts::of).unwrap_or_default();
    let folder = path
        .parent()
        .and_then(Path::file_name)
        .map(|f| f.to_string_lossy().into_owned());
    facts
        .target(folder.as_deref())
        .ok_or_else(|| TargetError::Unrecognised {
            path: path.to_path_buf(),
            game: facts.title.clone(),
            app_id: facts.app_id.clone(),
        })
}

/// What a gameinfo.txt says about its game.
#[derive(Debug, Default)]
struct GameFacts {
    title: String,
    app_id: String,
    /// The folder names of its `game` search paths, in order (`|all_source_engine_paths|hl2`
    /// gives `hl2`; `tf/tf2_misc.vpk` gives `tf`).
    folders: Vec<String>,
}

/// Steam app ids of the games and SDK bases each target is for.
const APP_IDS: &[(&str, &str)] = &[
    ("440", "tf"),
    ("320", "tf"),
    ("300", "tf"),
    ("243750", "tf"),
    ("220", "hl2"),
    ("380", "hl2"),
    ("420", "hl2"),
    ("400", "hl2"),
    ("340", "hl2"),
    ("218", "hl2"),
    ("243730", "hl2"),
    ("215", "source2006"),
    ("240", "cstrike"),
    ("730", "csgo"),
    ("620", "portal2"),
    ("550", "left4dead2"),
];

/// `game` titles of Valve's own gameinfo.txt files.
const TITLES: &[(&str, &str)] = &[
    ("team fortress 2", "tf"),
    ("half-life 2", "hl2"),
    ("half-life 2: episode two", "hl2"),
    ("portal", "hl2"),
    ("counter-strike source", "cstrike"),
    ("counter-strike: source", "cstrike"),
    ("counter-strike: global offensive", "csgo"),
    ("portal 2", "portal2"),
    ("left 4 dead 2", "left4dead2"),
    ("momentum mod", "strata"),
    ("portal 2: community edition", "strata"),
    ("portal: revolution", "strata"),
    ("desolation", "desolation"),
];

impl GameFacts {
    fn of(info: &KvNode) -> GameFacts {
        let fs = info.get("filesystem");
        let paths = fs.and_then(|f| f.get("searchpaths"));
        let folders = paths.map(|p| p.children().iter().filter_map(search_folder).collect());
        GameFacts {
            title: info.get_text("game").unwrap_or_default().trim().to_string(),
            app_id: fs
                .and_then(|f| f.get_text("steamappid"))
                .unwrap_or_default()
                .trim()
                .to_string(),
            folders: folders.unwrap_or_default(),
        }
    }

    /// Mapbase first (its mods carry the singleplayer SDK's app id), then the app id, the
    /// title, the game's own folder, and the first search path folder that names a game.
    fn target(&self, folder: Option<&str>) -> Option<&'static Target> {
        let named = |n: &str| Target::by_name(n);
        let mapbase = self
            .folders
            .iter()
            .any(|f| f.to_ascii_lowercase().starts_with("mapbase"));
        let table = |table: &[(&str, &'static str)], key: &str| {
            let key = key.to_ascii_lowercase();
            table.iter().find(|(k, _)| *k == key).and_then(|(_, n)| named(n))
        };
        mapbase
            .then(|| named("mapbase"))
            .flatten()
            .or_else(|| table(APP_IDS, &self.app_id))
            .or_else(|| table(TITLES, &self.title))
            .or_else(|| folder.and_then(named))
            .or_else(|| self.folders.iter().find_map(|f| named(f)))
    }
}

/// The game folder a `game` search path entry names: its first component after the
/// `|...|` prefix, `.` (the game itself) and VPK file names left out.
fn search_folder(entry: &KvNode) -> Option<String> {
    let ids = entry.key.to_ascii_lowercase();
    if !ids.split('+').any(|id| id == "game") {
        return None;
    }
    let value = entry.text()?.replace('\\', "/");
    let rest = value.rsplit('|').next().unwrap_or(&value);
    let first = rest.split('/').find(|c| !matches!(*c, "" | "." | ".."))?;
    (!first.to_ascii_lowercase().ends_with(".vpk")).then(|| first.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A temporary game folder `name` holding `gameinfo`.
    fn game_dir(name: &str, gameinfo: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("srcmap-target-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("gameinfo.txt"), gameinfo).unwrap();
        dir
    }

    fn gameinfo(game: &str, app_id: &str, paths: &[&str]) -> String {
        let paths: String = paths.iter().map(|p| format!("\t\t\tgame \"{p}\"\n")).collect();
        format!(
            "\"GameInfo\"\n{{\n\tgame \"{game}\"\n\tFileSystem\n\t{{\n\t\tSteamAppId {app_id}\n\
             \t\tSearchPaths\n\t\t{{\n{paths}\t\t}}\n\t}}\n}}\n"
        )
    }

    fn chosen(dir: &Path) -> &'static str {
        choose(Some(dir), None).unwrap().target.name
    }

    #[test]
    fn games_are_told_by_app_id_title_folder_and_search_paths() {
        let csgo = game_dir(
            "csgo",
            &gameinfo("Counter-Strike: Global Offensive", "730", &["|gameinfo_path|."]),
        );
        assert_eq!(chosen(&csgo), "csgo");
        let l4d2 = game_dir(
            "l4d2",
            &gameinfo("Left 4 Dead 2", "0", &["left4dead2_dlc1", "left4dead2"]),
        );
        assert_eq!(chosen(&l4d2), "left4dead2");
        let mod_dir = game_dir(
            "mymod",
            &gameinfo(
                "My Mod",
                "243730",
                &["|gameinfo_path|.", "|all_source_engine_paths|hl2"],
            ),
        );
        assert_eq!(chosen(&mod_dir), "hl2");
        let mapbase = game_dir(
            "ez2",
            &gameinfo(
                "EZ2",
                "243730",
                &[
                    "|gameinfo_path|.",
                    "|gameinfo_path|../mapbase_shared/shared_misc_dir.vpk",
                ],
            ),
        );
        assert_eq!(chosen(&mapbase), "mapbase");
        let tf = game_dir(
            "tf",
            &gameinfo(
                "Custom",
                "0",
                &["tf/tf2_misc.vpk", "|all_source_engine_paths|hl2"],
            ),
        );
        assert_eq!(chosen(&tf), "tf");
        let by_paths = game_dir(
            "x",
            &gameinfo("X", "0", &["|gameinfo_path|.", "portal2_dlc1", "portal2"]),
        );
        assert_eq!(chosen(&by_paths), "portal2");
        let momentum = game_dir("mm", &gameinfo("Momentum Mod", "0", &["|gameinfo_path|."]));
        assert_eq!(chosen(&momentum), "strata");
        let p2ce = game_dir(
            "p2ce",
            &gameinfo(
                "My P2CE Mod",
                "0",
                &["|gameinfo_path|.", "|all_source_engine_paths|p2ce"],
            ),
        );
        assert_eq!(chosen(&p2ce), "strata");
        let desolation = game_dir("des", &gameinfo("Desolation", "0", &["|gameinfo_path|."]));
        assert_eq!(chosen(&desolation), "desolation");
    }

    #[test]
    fn a_name_overrides_the_folder_and_unknowns_are_errors_naming_the_problem() {
        let unknown = game_dir("unknown", &gameinfo("Nothing", "12345", &["|gameinfo_path|."]));
        let err = choose(Some(&unknown), None).unwrap_err().to_string();
        assert!(
            err.contains("gameinfo.txt") && err.contains("Nothing") && err.contains("--target"),
            "{err}"
        );
        assert_eq!(
            choose(Some(&unknown), Some("L4D2")).unwrap().target.name,
            "left4dead2"
        );
        let err = choose(None, Some("quake")).unwrap_err().to_string();
        assert!(err.contains("quake") && err.contains("csgo"), "{err}");
        let default = choose(Some(&std::env::temp_dir()), None).unwrap();
        assert_eq!((default.target, default.by), (Target::DEFAULT, ChosenBy::Default));
        assert!(default.line().contains("BSP v20"));
    }
}
