//! Entities both ways (vmap.md §4.9, §5.7): key values as strings, `origin`/`angles` on the
//! node, model paths `.mdl` ↔ `.vmdl`, outputs ↔ `DmeConnectionData`, and the `editor` block's
//! colour, visgroup flags and logical position as the key values kristiker's importer writes.

use srcmap_kv::values::vector;
use srcmap_vmap::{Connection, Placement};
use srcmap_vmf::Entity;

use crate::texture::swap_model_extension;

/// Keys the node holds instead of `entity_properties`.
const TRANSFORM_KEYS: [&str; 3] = ["id", "origin", "angles"];
/// `editor` block values kept as key values (kristiker/source1import's spelling).
pub const EDITOR_KEYS: [&str; 4] = ["color", "visgroupshown", "visgroupautoshown", "logicalpos"];

/// Class names changed on the way to a game's Source 2 version (a game rule, not a format one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClassRenames {
    #[default]
    None,
    /// Counter-Strike 2: both teams' spawns become `info_player_spawn` (as kristiker's
    /// importer writes them).
    Cs2,
}

impl ClassRenames {
    fn rename(self, class: &str) -> &str {
        match (self, class) {
            (ClassRenames::Cs2, "info_player_counterterrorist" | "info_player_terrorist") => {
                "info_player_spawn"
            }
            _ => class,
        }
    }
}

/// A VMF entity's node placement.
pub fn placement(e: &Entity) -> Placement {
    let v = |key: &str, d: [f32; 3]| e.get(key).and_then(vector).map_or(d, |x| x.map(|c| c as f32));
    Placement {
        origin: v("origin", [0.0; 3]),
        angles: v("angles", [0.0; 3]),
        scales: [1.0; 3],
    }
}

/// A VMF entity's key values for `entity_properties`: classname first, transform keys left to
/// the node, models renamed, then the editor block's values.
pub fn vmap_keys(e: &Entity, renames: ClassRenames) -> Vec<(String, String)> {
    let mut keys = vec![("classname".to_string(), renames.rename(&e.classname).to_string())];
    for (k, v) in &e.keyvalues {
        let lower = k.to_ascii_lowercase();
        if lower == "classname" || TRANSFORM_KEYS.contains(&lower.as_str()) {
            continue;
        }
        let v = if lower == "model" {
            swap_model_extension(v, ".mdl", ".vmdl")
        } else {
            v.clone()
        };
        keys.push((k.clone(), v));
    }
    if let Some(ed) = &e.editor {
        let flag = |b: bool| if b { "1" } else { "0" }.to_string();
        let [r, g, b] = ed.color;
        keys.push(("color".into(), format!("{r} {g} {b}")));
        keys.push(("visgroupshown".into(), flag(ed.visgroup_shown)));
        keys.push(("visgroupautoshown".into(), flag(ed.visgroup_auto_shown)));
        if let Some([x, y]) = ed.logical_pos {
            keys.push(("logicalpos".into(), format!("[{x} {y}]")));
        }
    }
    keys
}

/// A VMF output as connection data; `!activator` and `!caller` get their own target types.
pub fn vmap_connection(c: &srcmap_vmf::Connection) -> Connection {
    let target_type = match c.target.to_ascii_lowercase().as_str() {
        "!activator" => 4,
        "!caller" => 5,
        _ => 7,
    };
    Connection {
        output: c.output.clone(),
        target_type,
        target: c.target.clone(),
        input: c.input.clone(),
        param: c.parameter.clone(),
        delay: c.delay as f32,
        times_to_fire: c.times_to_fire as i32,
    }
}

/// A connection as a VMF output value: comma-separated as every Source 1 game reads it, or
/// ESC-separated when a field holds a comma.
pub fn vmf_output(c: &Connection) -> String {
    let fields = [
        c.target.clone(),
        c.input.clone(),
        c.param.clone(),
        format_f32(c.delay),
        c.times_to_fire.to_string(),
    ];
    let sep = if fields.iter().any(|f| f.contains(',')) {
        "\x1b"
    } else {
        ","
    };
    fields.join(sep)
}

/// A float as its shortest exact text (`115.818`, `0`), as Hammer writes key values.
pub fn format_f32(x: f32) -> String {
    if x == x.trunc() && x.abs() < 1e9 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

/// Three floats as a VMF vector value.
pub fn format_vec3(v: [f32; 3]) -> String {
    v.map(format_f32).join(" ")
}

/// A VMAP entity's key values for the VMF (classname first, models back to `.mdl`), without
/// the editor keys, which [`editor_keys`] picks out.
pub fn vmf_keys(props: &[(&str, String)]) -> Vec<(String, String)> {
    let class = props
        .iter()
        .find(|(k, _)| *k == "classname")
        .map(|(_, v)| v.clone());
    let mut keys = vec![(
        "classname".to_string(),
        class.unwrap_or_else(|| "info_null".into()),
    )];
    for (k, v) in props {
        let lower = k.to_ascii_lowercase();
        if lower == "classname"
            || EDITOR_KEYS.contains(&lower.as_str())
            || TRANSFORM_KEYS.contains(&lower.as_str())
        {
            continue;
        }
        let v = if lower == "model" {
            swap_model_extension(v, ".vmdl", ".mdl")
        } else {
            v.clone()
        };
        keys.push((k.to_string(), v));
    }
    keys
}

/// The editor keys among a VMAP entity's key values, in the form Hammer's reader takes
/// (`color` three integers, the flags integers); a value of another form is left out.
pub fn editor_keys(props: &[(&str, String)]) -> Vec<(String, String)> {
    props
        .iter()
        .filter_map(|(k, v)| {
            let key = k.to_ascii_lowercase();
            let numbers: Vec<f64> = srcmap_kv::values::numbers(v.trim_matches(['[', ']'])).collect();
            let value = match key.as_str() {
                "color" if numbers.len() >= 3 => numbers[..3]
                    .iter()
                    .map(|c| (c.clamp(0.0, 255.0) as u8).to_string())
                    .collect::<Vec<_>>()
                    .join(" "),
                "visgroupshown" | "visgroupautoshown" if numbers.len() == 1 => {
                    (numbers[0] as i64).to_string()
                }
                "logicalpos" if numbers.len() == 2 => format!("[{} {}]", numbers[0], numbers[1]),
                _ => return None,
            };
            Some((key, value))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_pick_their_separator() {
        let c = Connection {
            output: "OnTrigger".into(),
            target_type: 7,
            target: "door".into(),
            input: "Open".into(),
            param: String::new(),
            delay: 0.5,
            times_to_fire: -1,
        };
        assert_eq!(vmf_output(&c), "door,Open,,0.5,-1");
        let c = Connection {
            param: "a,b".into(),
            ..c
        };
        assert_eq!(vmf_output(&c), "door\x1bOpen\x1ba,b\x1b0.5\x1b-1");
        assert_eq!(format_vec3([-1408.0, 392.0, -115.818]), "-1408 392 -115.818");
    }
}
