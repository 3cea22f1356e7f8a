//! A reference from one file (or the map) to another, and the rule every reader shares: a
//! value that ends in a file extension names a file under that kind's root.

use crate::path;

/// One file that a map or file needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ref {
    /// Game paths tried in order (a model's material in each `$cdmaterials` folder); the first
    /// one the game, the content folders or the pakfile has is the file. Not yet normalised:
    /// the walk refuses one that escapes its root.
    pub candidates: Vec<String>,
    /// What names it in the referrer: a key (`$basetexture`), a block, an entity.
    pub via: String,
    /// A file that may well not exist (a `.phy` beside a model, the HDR sky): not reported
    /// when nothing has it.
    pub optional: bool,
    /// The referrer takes this file's content into its own (a patch material's `include`,
    /// `$includemodel`, `#base`, `IncludeScript`): a circle of these is an error.
    pub include: bool,
    /// The name it is packed under, when not its own (the nav as `maps/embed.nav`).
    pub rename: Option<String>,
}

impl Ref {
    /// A required reference to one path.
    pub fn to(path: String, via: impl Into<String>) -> Ref {
        Ref {
            candidates: vec![path],
            via: via.into(),
            optional: false,
            include: false,
            rename: None,
        }
    }

    /// The first of several paths.
    pub fn first_of(candidates: Vec<String>, via: impl Into<String>) -> Ref {
        Ref {
            candidates,
            ..Ref::to(String::new(), via)
        }
    }

    /// This reference, not reported when missing.
    pub fn optional(mut self) -> Ref {
        self.optional = true;
        self
    }

    /// This reference as an inclusion.
    pub fn including(mut self) -> Ref {
        self.include = true;
        self
    }
}

/// The file a value names by its extension: models, materials and sprites, textures, sounds,
/// particle files and scripts; `None` for any other value.
pub fn by_extension(value: &str, via: &str) -> Option<Ref> {
    let v = value.trim();
    let body = v.trim_start_matches(path::SOUND_CHARS);
    if body.is_empty() || v.len() > 260 || body.contains(['"', '\n', '*', '?', '<', '>', '|']) {
        return None;
    }
    let p = match path::extension(&v.replace('\\', "/").to_ascii_lowercase()) {
        "mdl" => path::under("models", v, ""),
        "vmt" | "spr" | "vtf" => path::under("materials", v, ""),
        "wav" | "mp3" | "ogg" => path::sound(v),
        "pcf" => path::under("particles", v, ""),
        "nut" => path::script(v),
        _ => return None,
    };
    Some(Ref::to(p, via))
}

/// Whether a value could be a file name at all (not a number, vector, or empty).
pub fn plausible_name(value: &str) -> bool {
    let v = value.trim();
    !v.is_empty()
        && !v.starts_with(['[', '{', '-', '.'])
        && v.parse::<f64>().is_err()
        && !v.contains(char::is_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_name_files_by_extension() {
        let path = |v: &str| by_extension(v, "k").map(|r| r.candidates[0].clone());
        assert_eq!(path("props/a.MDL").as_deref(), Some("models/props/a.mdl"));
        assert_eq!(path("models/props/a.mdl").as_deref(), Some("models/props/a.mdl"));
        assert_eq!(
            path("sprites/glow.vmt").as_deref(),
            Some("materials/sprites/glow.vmt")
        );
        assert_eq!(path("#music/x.mp3").as_deref(), Some("sound/music/x.mp3"));
        assert_eq!(path("particles/fx.pcf").as_deref(), Some("particles/fx.pcf"));
        assert_eq!(path("logic.nut").as_deref(), Some("scripts/vscripts/logic.nut"));
        assert_eq!(path("targetname"), None);
        assert_eq!(path("a.txt"), None);
        assert!(plausible_name("a/b"));
        assert!(!plausible_name("0.5"));
        assert!(!plausible_name("[1 1 1]"));
        assert!(!plausible_name("center .5 .5"));
    }
}
