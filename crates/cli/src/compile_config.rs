//! The layers of a `srcmap compile`'s flags: CompilePal's preset, under the map's config file
//! (`MAP.srcmap.toml` beside the VMF, or `--config FILE`), under the flags given on the command
//! line. Each layer is parsed as command-line flags, so each is checked as they are (an unknown
//! key or two conflicting flags in the file is an error naming them); a flag set in a higher
//! layer replaces the same flag below and clears the flags it conflicts with there
//! (`-fast` given over the final preset's `-final`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::{CommandFactory, Parser};
use serde_json::{Map, Value};

use crate::compile_cmd::CompileArgs;
use crate::usage::usage_error;

/// The flags of a compile: `given` over its config file over its preset.
pub fn layered(given: &CompileArgs) -> anyhow::Result<CompileArgs> {
    let config = config_layer(given)?;
    let preset = given.preset.or(config.as_ref().and_then(|c| c.preset));
    let preset_flags = preset.map_or(&[][..], |p| p.flags());
    let flags: Vec<OsString> = preset_flags.iter().map(OsString::from).collect();
    let mut merged = as_object(&parse_layer(&given.vbsp.map, flags)?)?;
    if let Some(config) = &config {
        overlay(&mut merged, &as_object(config)?);
    }
    overlay(&mut merged, &as_object(given)?);
    Ok(serde_json::from_value(Value::Object(merged))?)
}

/// The config file's flags, when there is one: `--config`, else `MAP.srcmap.toml` beside the
/// map. Its relative paths are relative to its own directory.
fn config_layer(given: &CompileArgs) -> anyhow::Result<Option<CompileArgs>> {
    let path = match &given.config {
        Some(path) => path.clone(),
        None => config_beside(&given.vbsp.map),
    };
    if given.config.is_none() && !path.is_file() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&path).with_context(|| format!("{}: cannot read", path.display()))?;
    let flags = config_flags(&text).map_err(|e| usage_error(format!("{}: {e}", path.display())))?;
    let mut layer = parse_layer(&given.vbsp.map, flags)
        .map_err(|e| usage_error(format!("{}: {}", path.display(), clap_message(&e))))?;
    rebase_paths(&mut layer, path.parent().unwrap_or(Path::new("")));
    Ok(Some(layer))
}

/// `MAP.srcmap.toml` beside `MAP.vmf`.
pub fn config_beside(map: &Path) -> PathBuf {
    map.with_extension("srcmap.toml")
}

/// A config file's keys as flags: `key = true` is `-key`, `key = "value"` (or a number) is
/// `-key value`, `key = [a, b]` is `-key a -key b`; `key = false` is left out.
fn config_flags(text: &str) -> Result<Vec<OsString>, String> {
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| e.message().to_string())?;
    let mut flags = Vec::new();
    for (key, value) in &table {
        let values = match value {
            toml::Value::Array(items) => items.iter().collect(),
            one => vec![one],
        };
        for value in values {
            add_flag(&mut flags, key, value)?;
        }
    }
    Ok(flags)
}

/// One key's flag (and its value) added to `flags`.
fn add_flag(flags: &mut Vec<OsString>, key: &str, value: &toml::Value) -> Result<(), String> {
    let flag = OsString::from(format!("-{key}"));
    match value {
        toml::Value::Boolean(true) => flags.push(flag),
        toml::Value::Boolean(false) => {}
        toml::Value::String(s) => flags.extend([flag, s.into()]),
        toml::Value::Integer(n) => flags.extend([flag, n.to_string().into()]),
        toml::Value::Float(x) => flags.extend([flag, x.to_string().into()]),
        _ => {
            return Err(format!(
                "key '{key}': a flag's value is true, a string, a number or a list of them"
            ));
        }
    }
    Ok(())
}

/// One layer's flags parsed as `srcmap compile FLAGS MAP` is, Valve's spellings included.
fn parse_layer(map: &Path, flags: Vec<OsString>) -> Result<CompileArgs, clap::Error> {
    let mut argv: Vec<OsString> = vec!["srcmap".into(), "compile".into()];
    argv.extend(flags);
    argv.extend(["--".into(), map.as_os_str().to_owned()]);
    let argv = crate::valve_flags::normalise_valve_flags(argv.into_iter())?;
    match crate::Cli::try_parse_from(argv)?.command {
        crate::Command::Compile(args) => Ok(args),
        _ => unreachable!("the layer is parsed as a compile"),
    }
}

/// clap's message without its `error: ` and usage lines.
fn clap_message(e: &clap::Error) -> String {
    let text = e.to_string();
    let first = text.lines().next().unwrap_or_default();
    first.strip_prefix("error: ").unwrap_or(first).to_string()
}

/// A config file's relative paths made relative to its directory.
fn rebase_paths(layer: &mut CompileArgs, dir: &Path) {
    let rebase = |p: &mut PathBuf| {
        if p.is_relative() {
            *p = dir.join(&*p);
        }
    };
    let v = &mut layer.vbsp;
    [&mut v.output, &mut v.game, &mut v.materials, &mut v.detail_file]
        .into_iter()
        .flatten()
        .for_each(rebase);
    layer.light.lights.iter_mut().for_each(rebase);
}

/// A layer's flags as a JSON object keyed by the flags' ids.
fn as_object(layer: &CompileArgs) -> anyhow::Result<Map<String, Value>> {
    match serde_json::to_value(layer)? {
        Value::Object(map) => Ok(map),
        _ => anyhow::bail!("a compile's flags are an object"),
    }
}

/// `over`'s flags set over `base`: each replaces the same flag there and clears the flags it
/// conflicts with.
fn overlay(base: &mut Map<String, Value>, over: &Map<String, Value>) {
    for (id, value) in over.iter().filter(|(_, v)| is_set(v)) {
        for other in conflicts_of(id) {
            if let Some(old) = base.get_mut(&other) {
                *old = unset_like(old);
            }
        }
        base.insert(id.clone(), value.clone());
    }
}

/// A flag given: true, a value, or a non-empty list.
fn is_set(v: &Value) -> bool {
    !matches!(v, Value::Null | Value::Bool(false)) && v.as_array().is_none_or(|a| !a.is_empty())
}

/// The unset value of a flag of `v`'s kind.
fn unset_like(v: &Value) -> Value {
    match v {
        Value::Bool(_) => Value::Bool(false),
        Value::Array(_) => Value::Array(Vec::new()),
        _ => Value::Null,
    }
}

/// The ids of the compile flags that conflict with `id`, either way round (clap's own
/// definitions: `conflicts_with`).
fn conflicts_of(id: &str) -> Vec<String> {
    let root = crate::Cli::command();
    let Some(cmd) = root.find_subcommand("compile") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for arg in cmd.get_arguments() {
        let others: Vec<&str> = cmd
            .get_arg_conflicts_with(arg)
            .iter()
            .map(|a| a.get_id().as_str())
            .collect();
        if arg.get_id() == id {
            out.extend(others.iter().map(|s| s.to_string()));
        } else if others.contains(&id) {
            out.push(arg.get_id().to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn given(args: &[&str]) -> CompileArgs {
        let argv: Vec<OsString> = ["srcmap", "compile"]
            .iter()
            .chain(args)
            .map(OsString::from)
            .collect();
        let argv = crate::valve_flags::normalise_valve_flags(argv.into_iter()).unwrap();
        match crate::Cli::try_parse_from(argv).unwrap().command {
            crate::Command::Compile(a) => a,
            _ => unreachable!(),
        }
    }

    #[test]
    fn the_command_line_wins_over_the_config_file_which_wins_over_the_preset() {
        let dir = std::env::temp_dir().join(format!("srcmap-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let map = dir.join("m.vmf");
        std::fs::write(
            config_beside(&map),
            "preset = \"final\"\nthreads = 3\nbounce = 5\ngame = \"tf\"\nldr = true\n",
        )
        .unwrap();
        let map = map.to_str().unwrap();
        // The file's -ldr clears the final preset's -both; its threads and bounce hold.
        let plain = layered(&given(&[map])).unwrap();
        assert!(plain.final_ && plain.light.static_prop_lighting && plain.light.ldr && !plain.light.both);
        assert_eq!((plain.vbsp.threads, plain.light.bounce), (Some(3), Some(5)));
        assert_eq!(plain.vbsp.game, Some(dir.join("tf")));
        // -fast on the command line clears the preset's -final; -threads replaces the file's.
        let over = layered(&given(&["-fast", "-threads", "8", "--preset", "normal", map])).unwrap();
        assert!(over.fast && !over.final_ && !over.light.static_prop_lighting);
        assert_eq!(over.vbsp.threads, Some(8));
        // Conflicting flags within the file, or a key that is no flag, are named.
        std::fs::write(config_beside(Path::new(map)), "hdr = true\nboth = true\n").unwrap();
        let err = layered(&given(&[map])).unwrap_err().to_string();
        assert!(
            err.contains("m.srcmap.toml") && err.contains("--hdr") && err.contains("--both"),
            "{err}"
        );
        std::fs::write(config_beside(Path::new(map)), "notaflag = 1\n").unwrap();
        let err = layered(&given(&[map])).unwrap_err();
        assert!(
            crate::usage::is_usage(&err) && err.to_string().contains("-notaflag"),
            "{err}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
