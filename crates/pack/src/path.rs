//! Game paths as the engine's file system reads them: `/`-separated, lower case, relative to a
//! search path's root; and the roots each kind of reference lives under.

/// `raw` as a game path: backslashes made slashes, lower case, `.` dropped and `..` applied.
/// `None` when the path climbs above the root or names a drive or an absolute path: it would
/// leave the content folder.
pub fn normalise(raw: &str) -> Option<String> {
    let text = raw.trim().replace('\\', "/").to_ascii_lowercase();
    if text.starts_with('/') && text.len() > 1 && text[1..].starts_with('/') || text.contains(':') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in text.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// Whether `raw` climbs above its root (and so would be refused by [`normalise`]).
pub fn escapes(raw: &str) -> bool {
    normalise(raw).is_none()
}

/// `name` under `root/` with extension `ext` (each added only when missing): `materials/` and
/// `.vmt` for a material named as the map names it.
pub fn under(root: &str, name: &str, ext: &str) -> String {
    let mut n = name.trim().replace('\\', "/").to_ascii_lowercase();
    while let Some(rest) = n.strip_prefix('/') {
        n = rest.to_string();
    }
    if !n.starts_with(&format!("{root}/")) {
        n = format!("{root}/{n}");
    }
    if !ext.is_empty() && !n.ends_with(ext) {
        n.push_str(ext);
    }
    n
}

/// A material's `.vmt`.
pub fn material(name: &str) -> String {
    under("materials", name, ".vmt")
}

/// A texture's `.vtf`.
pub fn texture(name: &str) -> String {
    under("materials", name, ".vtf")
}

/// The characters that prefix a sound name to tell the engine how to play it (`*`, `#`, `)`,
/// `^`...): not part of the file's name.
pub(crate) const SOUND_CHARS: &[char] = &[
    '*', '#', '@', '>', '<', '^', '(', ')', '}', '$', '!', '?', '&', '~', '`', '+', '%',
];

/// A sound file under `sound/`.
pub fn sound(name: &str) -> String {
    under("sound", name.trim().trim_start_matches(SOUND_CHARS), "")
}

/// A VScript under `scripts/vscripts/`, `.nut` added to a bare name.
pub fn script(name: &str) -> String {
    let n = under("scripts/vscripts", name, "");
    if n.rsplit('/').next().is_some_and(|f| f.contains('.')) {
        n
    } else {
        n + ".nut"
    }
}

/// The file's extension, lower case, without the dot (`vtx` for `a.dx90.vtx`).
pub fn extension(path: &str) -> &str {
    let file = path.rsplit('/').next().unwrap_or(path);
    file.rsplit_once('.').map_or("", |(_, e)| e)
}

/// Whether a glob (`*` any run within a folder, `**` any run across folders, `?` one
/// character; case ignored) matches the whole of `path`.
pub fn glob_matches(glob: &str, path: &str) -> bool {
    let glob = glob.replace('\\', "/").to_ascii_lowercase();
    matches_from(glob.as_bytes(), path.as_bytes())
}

fn matches_from(g: &[u8], p: &[u8]) -> bool {
    match g {
        [] => p.is_empty(),
        [b'*', b'*', rest @ ..] => (0..=p.len()).any(|i| matches_from(rest, &p[i..])),
        [b'*', rest @ ..] => (0..=p.len())
            .take_while(|&i| i == 0 || p[i - 1] != b'/')
            .any(|i| matches_from(rest, &p[i..])),
        [b'?', rest @ ..] => p.first().is_some_and(|&c| c != b'/') && matches_from(rest, &p[1..]),
        [c, rest @ ..] => p.first() == Some(c) && matches_from(rest, &p[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_normalise_and_escapes_are_refused() {
        assert_eq!(
            normalise("Materials\\A/./b/../C.VMT").as_deref(),
            Some("materials/a/c.vmt")
        );
        assert_eq!(normalise("/sound/x.wav").as_deref(), Some("sound/x.wav"));
        assert_eq!(normalise("../x"), None);
        assert_eq!(normalise("a/../../x"), None);
        assert_eq!(normalise("c:/windows/x"), None);
        assert_eq!(normalise("//server/share"), None);
        assert!(escapes("materials/../../etc/passwd"));
    }

    #[test]
    fn references_find_their_roots() {
        assert_eq!(material("Brick\\Wall01"), "materials/brick/wall01.vmt");
        assert_eq!(material("materials/a.vmt"), "materials/a.vmt");
        assert_eq!(texture("/a/b"), "materials/a/b.vtf");
        assert_eq!(sound(")ambient/Wind.wav"), "sound/ambient/wind.wav");
        assert_eq!(sound("*#music/x.mp3"), "sound/music/x.mp3");
        assert_eq!(script("maps/logic"), "scripts/vscripts/maps/logic.nut");
        assert_eq!(script("a.nut"), "scripts/vscripts/a.nut");
        assert_eq!(extension("models/a.dx90.vtx"), "vtx");
        assert_eq!(extension("maps/x"), "");
    }

    #[test]
    fn globs_match_within_and_across_folders() {
        assert!(glob_matches("sound/**", "sound/a/b.wav"));
        assert!(glob_matches("*.nav", "x.nav"));
        assert!(!glob_matches("*.nav", "maps/x.nav"));
        assert!(glob_matches("maps/*.NAV", "maps/x.nav"));
        assert!(glob_matches("materials/?/x.vmt", "materials/a/x.vmt"));
        assert!(!glob_matches("materials/?/x.vmt", "materials/ab/x.vmt"));
        assert!(glob_matches("**/*.vtf", "materials/a/b.vtf"));
    }
}
