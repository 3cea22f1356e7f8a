//! KeyValues files that name other files: a server's resource list (`maps/<map>.res`), UI
//! `.res` layouts, MvM `.pop` population files, and the soundscripts and soundscapes' waves.

use srcmap_content::kv::{self, KvNode};

use crate::refs::{Ref, by_extension, plausible_name};

/// Calls `f(key, value)` for every text entry below `nodes`, keys in lower case.
pub fn each_text(nodes: &[KvNode], f: &mut dyn FnMut(&str, &str)) {
    for n in nodes {
        match n.text() {
            Some(v) => f(&n.key.to_ascii_lowercase(), v),
            None => each_text(n.children(), f),
        }
    }
}

/// `#base "file"` entries: other files of the same kind, in the same folder, whose content
/// this one takes in.
fn base_refs(nodes: &[KvNode], folder: &str) -> Vec<Ref> {
    nodes
        .iter()
        .filter(|n| n.key.eq_ignore_ascii_case("#base"))
        .filter_map(KvNode::text)
        .map(|v| Ref::to(format!("{folder}/{}", v.replace('\\', "/")), "#base").including())
        .collect()
}

/// The folder of a game path.
fn folder_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// A `.res` file: a resource list's `"resources" { "path" "file" }` entries name files; a UI
/// layout's `image` keys name `vgui/` materials; both may `#base` another.
pub fn res_refs(text: &[u8], path: &str) -> Result<Vec<Ref>, srcmap_content::ContentError> {
    let nodes = kv::parse(text, path)?;
    let mut out = base_refs(&nodes, folder_of(path));
    for root in &nodes {
        if root.key.eq_ignore_ascii_case("resources") {
            let files = root.children().iter().filter(|n| plausible_name(&n.key));
            out.extend(files.map(|n| Ref::to(n.key.replace('\\', "/"), "resource list")));
        } else {
            each_text(root.children(), &mut |k, v| {
                if ["image", "fgimage", "bgimage", "icon"].contains(&k) && plausible_name(v) {
                    out.push(Ref::to(
                        crate::path::material(&format!("vgui/{v}")),
                        k.to_string(),
                    ));
                } else if let Some(r) = by_extension(v, k) {
                    out.push(r);
                }
            });
        }
    }
    Ok(out)
}

/// A `.pop` file: each `ClassIcon` is a HUD icon material (and its giant version, when one is
/// there), sounds by file name, and `#base` population files.
pub fn pop_refs(text: &[u8], path: &str) -> Result<Vec<Ref>, srcmap_content::ContentError> {
    let nodes = kv::parse(text, path)?;
    let mut out = base_refs(&nodes, folder_of(path));
    each_text(&nodes, &mut |k, v| {
        if k == "classicon" && plausible_name(v) {
            let icon = format!("hud/leaderboard_class_{v}");
            out.push(Ref::to(crate::path::material(&icon), "ClassIcon"));
            out.push(
                Ref::to(
                    crate::path::material(&format!("{icon}_giant")),
                    "ClassIcon (giant)",
                )
                .optional(),
            );
        } else if k != "#base" {
            out.extend(by_extension(v, k));
        }
    });
    Ok(out)
}

/// A soundscript (`maps/<map>_level_sounds.txt`) or soundscape file: every `wave` that names a
/// file (a soundscape's `wave` may name a soundscript entry instead).
pub fn wave_refs(text: &[u8], path: &str) -> Result<Vec<Ref>, srcmap_content::ContentError> {
    let nodes = kv::parse(text, path)?;
    let mut out = Vec::new();
    each_text(&nodes, &mut |k, v| {
        if k == "wave" && ["wav", "mp3", "ogg"].contains(&crate::path::extension(&v.to_ascii_lowercase())) {
            out.push(Ref::to(crate::path::sound(v), "wave"));
        }
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(refs: Vec<Ref>) -> Vec<String> {
        refs.into_iter().map(|r| r.candidates[0].clone()).collect()
    }

    #[test]
    fn pop_icons_sounds_and_bases() {
        let pop = br#"#base robot_giant.pop
WaveSchedule { Wave { WaveSpawn { TFBot { ClassIcon heavy_grapple } }
  StartWaveWarningSound "mvm/x.wav" } Wave { WaveSpawn { Tank { ClassIcon tank } } } }"#;
        let got = pop_refs(pop, "scripts/population/m_adv.pop").unwrap();
        assert!(got[0].include);
        assert_eq!(
            names(got),
            [
                "scripts/population/robot_giant.pop",
                "materials/hud/leaderboard_class_heavy_grapple.vmt",
                "materials/hud/leaderboard_class_heavy_grapple_giant.vmt",
                "sound/mvm/x.wav",
                "materials/hud/leaderboard_class_tank.vmt",
                "materials/hud/leaderboard_class_tank_giant.vmt",
            ]
        );
    }

    #[test]
    fn resource_lists_ui_layouts_and_waves() {
        let list = br#""resources" { "materials/a.vmt" "file" "sound/b.wav" "file" }"#;
        assert_eq!(
            names(res_refs(list, "maps/m.res").unwrap()),
            ["materials/a.vmt", "sound/b.wav"]
        );
        let ui = br#""x.res" { Panel { image "maps/pic" fgcolor "255 0 0" } }"#;
        assert_eq!(
            names(res_refs(ui, "resource/ui/x.res").unwrap()),
            ["materials/vgui/maps/pic.vmt"]
        );
        let sounds = br#"M.Loop { wave ")amb/a.wav" rndwave { wave amb/b.mp3 wave amb/c.wav } } S { playsoundscape { name other } playlooping { wave Some.Script } }"#;
        assert_eq!(
            names(wave_refs(sounds, "s.txt").unwrap()),
            ["sound/amb/a.wav", "sound/amb/b.mp3", "sound/amb/c.wav"]
        );
    }
}
