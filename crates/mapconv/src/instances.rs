//! Instances both ways: a VMF `func_instance` is a VMAP `CMapPrefab` (the node Valve's
//! importer writes for one), its `file` the prefab's `targetMapPath` with `.vmap` for `.vmf`.
//!
//! - `targetname` ↔ `targetName`; `fixup_style` 2 (none) ↔ `fixupEntityNames` false, 0 (prefix)
//!   ↔ true; 1 (postfix), which a prefab cannot say, is carried as `srcmapFixupStyle`.
//! - `replaceNN "$var value"` ↔ `variableOverrideNames`/`variableOverrideValues` ("$var",
//!   "value"), in order.
//! - Paths: an instance's `file` is relative to the folder of the map that places it, a
//!   prefab's `targetMapPath` to the content root (`maps/…`). [`InstancePaths`] says where the
//!   map's folder lies under the content root and where the instances of a nested instance
//!   map lie relative to the outermost map.

use srcmap_dmx::Value;
use srcmap_vmap::{Connection, Entity};
use srcmap_vmf::Entity as VmfEntity;

use crate::entities::format_vec3;
use crate::texture::swap_model_extension;
use crate::vmf_text::OutEntity;

/// The attribute that carries a postfix fixup style (Hammer does not read it).
pub const FIXUP_STYLE_ATTRIBUTE: &str = "srcmapFixupStyle";

/// Where instance paths are relative to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InstancePaths {
    /// The converted map's folder under the content root, with a trailing `/` (`maps/` for a
    /// map in `…/maps/`; empty when the map lies under no `maps` folder).
    pub content_folder: String,
    /// The folder (relative to the outermost map, `/`-separated, trailing `/` or empty) this
    /// map's own instance files are relative to: empty for the outermost map, the instance's
    /// folder for an instance map (vbsp joins nested instance paths so).
    pub base: String,
}

impl InstancePaths {
    /// An instance's `file` key as the path relative to the outermost map's folder.
    pub fn instance_file(&self, file: &str) -> String {
        format!("{}{}", self.base, file.replace('\\', "/"))
    }

    /// The prefab target of an instance's `file`.
    pub fn target(&self, file: &str) -> String {
        format!(
            "{}{}",
            self.content_folder,
            with_extension(&self.instance_file(file), ".vmf", ".vmap")
        )
    }

    /// The instance `file` of a prefab target (the content folder and base taken off when
    /// they start the path).
    pub fn file(&self, target: &str) -> String {
        let target = target.replace('\\', "/");
        let prefix = format!("{}{}", self.content_folder, self.base);
        let relative = match target.get(..prefix.len()) {
            Some(head) if !head.is_empty() && head.eq_ignore_ascii_case(&prefix) => &target[head.len()..],
            _ => target.as_str(),
        };
        with_extension(relative, ".vmap", ".vmf")
    }
}

/// `path` with `from` swapped for `to`, or `to` added when it has another extension.
pub fn with_extension(path: &str, from: &str, to: &str) -> String {
    let swapped = swap_model_extension(path, from, to);
    if swapped == path && !path.to_ascii_lowercase().ends_with(to) {
        format!("{path}{to}")
    } else {
        swapped
    }
}

/// A `func_instance`'s prefab attributes, in the order Hammer writes them.
pub fn prefab_attrs(e: &VmfEntity, paths: &InstancePaths) -> Vec<(&'static str, Value)> {
    let get = |k: &str| e.get(k).unwrap_or_default().to_string();
    let style = get("fixup_style");
    let (names, values): (Vec<String>, Vec<String>) = replacements(e).unzip();
    let mut attrs = vec![
        ("targetMapPath", Value::String(paths.target(&get("file")))),
        ("targetName", Value::String(get("targetname"))),
        ("variableOverrideNames", Value::StringArray(names)),
        ("variableOverrideValues", Value::StringArray(values)),
        ("fixupEntityNames", Value::Bool(style.trim() != "2")),
        ("loadIfNested", Value::Bool(true)),
        ("loadAtRuntime", Value::Bool(false)),
    ];
    if style.trim() == "1" {
        attrs.push((FIXUP_STYLE_ATTRIBUTE, Value::String(style)));
    }
    attrs
}

/// The instance's `replaceNN` values as (variable, value), in key order.
fn replacements(e: &VmfEntity) -> impl Iterator<Item = (String, String)> + '_ {
    e.keyvalues
        .iter()
        .filter(|(k, _)| is_replace_key(k))
        .map(|(_, v)| match v.trim().split_once(char::is_whitespace) {
            Some((name, value)) => (name.to_string(), value.trim_start().to_string()),
            None => (v.trim().to_string(), String::new()),
        })
}

/// `replace01` … `replace99` (any case).
fn is_replace_key(k: &str) -> bool {
    k.len() > 7 && k[..7].eq_ignore_ascii_case("replace") && k[7..].bytes().all(|b| b.is_ascii_digit())
}

/// A prefab as the `func_instance` that places its map, with its outputs.
pub fn instance_entity(
    prefab: &Entity<'_>,
    paths: &InstancePaths,
    outputs: Vec<(String, String)>,
) -> OutEntity {
    let el = prefab.element();
    let text = |name: &str| el.get(name).and_then(Value::to_text).unwrap_or_default();
    let strings = |name: &str| match el.get(name) {
        Some(Value::StringArray(v)) => v.clone(),
        _ => Vec::new(),
    };
    let style = match (
        el.get("fixupEntityNames").and_then(Value::as_bool),
        text(FIXUP_STYLE_ATTRIBUTE),
    ) {
        (Some(false), _) => "2".to_string(),
        (_, carried) if carried == "1" => carried,
        _ => "0".to_string(),
    };
    let (origin, angles, _) = prefab.transform();
    let mut keys = vec![
        ("classname".to_string(), "func_instance".to_string()),
        ("targetname".into(), text("targetName")),
        ("angles".into(), format_vec3(angles)),
        ("file".into(), paths.file(&text("targetMapPath"))),
        ("fixup_style".into(), style),
    ];
    keys.extend(replace_keys(
        &strings("variableOverrideNames"),
        &strings("variableOverrideValues"),
    ));
    keys.push(("origin".into(), format_vec3(origin)));
    OutEntity {
        keys,
        outputs,
        ..OutEntity::default()
    }
}

/// Variable overrides as `replaceNN "$var value"` keys.
fn replace_keys(names: &[String], values: &[String]) -> Vec<(String, String)> {
    (names.iter().enumerate())
        .map(|(i, name)| {
            let value = values.get(i).map_or("", String::as_str);
            let text = format!("{name} {value}").trim_end().to_string();
            (format!("replace{:02}", i + 1), text)
        })
        .collect()
}

/// Whether a VMF entity is an instance (it becomes a prefab).
pub fn is_instance(e: &VmfEntity) -> bool {
    e.classname.eq_ignore_ascii_case("func_instance")
}

/// The connections of a prefab node, as VMF outputs.
pub fn outputs(connections: &[Connection]) -> Vec<(String, String)> {
    connections
        .iter()
        .map(|c| (c.output.clone(), crate::entities::vmf_output(c)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_go_to_the_content_root_and_back() {
        let top = InstancePaths {
            content_folder: "maps/".into(),
            base: String::new(),
        };
        assert_eq!(top.target("instances\\door.vmf"), "maps/instances/door.vmap");
        assert_eq!(top.file("maps/instances/door.vmap"), "instances/door.vmf");
        // A prefab elsewhere under the content root keeps its whole path.
        assert_eq!(top.file("prefabs/x.vmap"), "prefabs/x.vmf");
        let nested = InstancePaths {
            content_folder: String::new(),
            base: "instances/".into(),
        };
        assert_eq!(nested.instance_file("part.vmf"), "instances/part.vmf");
        assert_eq!(nested.target("part"), "instances/part.vmap");
        assert_eq!(nested.file("instances/part.vmap"), "part.vmf");
    }
}
