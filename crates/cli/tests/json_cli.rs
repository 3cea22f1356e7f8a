//! `--json` on failure and success (issue 36): one JSON document on stdout either way, errors as
//! `{"error": {kind, message, file, line, col, entity, position}}` with the exit status text
//! mode gives; warnings as objects; honest leak state; stage lines whose times are the report's.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

mod common;
use common::srcmap;

fn temp_dir(name: &str) -> PathBuf {
    common::fresh_dir("json", name)
}

/// The example room, with `\n` line ends (the file has Hammer's `\r\n`).
fn example_map() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/box_room.vmf");
    std::fs::read_to_string(path).unwrap().replace("\r\n", "\n")
}

/// stdout as exactly one JSON document.
fn one_document(run: &Output) -> Value {
    let text = String::from_utf8_lossy(&run.stdout);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not one JSON document ({e}):\n{text}"))
}

/// The `error` object of a failed run's stdout, every field of the schema present.
fn error_of(run: &Output) -> Value {
    let doc = one_document(run);
    let error = doc["error"].clone();
    for field in ["kind", "message", "file", "line", "col", "entity", "position"] {
        assert!(error.get(field).is_some(), "no {field} in {error}");
    }
    assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()));
    error
}

/// `map` written as `name.vmf` in `dir` and compiled (vbsp only) with `extra` flags.
fn compile(dir: &Path, name: &str, map: &str, extra: &[&str]) -> Output {
    let vmf = dir.join(format!("{name}.vmf"));
    std::fs::write(&vmf, map).unwrap();
    let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"vbsp", &vmf];
    for e in extra {
        args.push(e);
    }
    srcmap(&args)
}

/// The example map with its entities (all but the world) removed.
fn without_entities(map: &str) -> String {
    let start = map.find("\nentity\n").expect("the example has entities");
    let end = map.rfind("\ncameras").unwrap_or(map.len());
    format!("{}{}", &map[..start], &map[end..])
}

/// The example map with a light far outside its room.
fn with_entity_outside(map: &str) -> String {
    let light = "entity\n{\n\t\"id\" \"9001\"\n\t\"classname\" \"light\"\n\t\"origin\" \"400 0 64\"\n}\n";
    let at = map.find("\nentity\n").unwrap() + 1;
    format!("{}{light}{}", &map[..at], &map[at..])
}

/// The example map plus `n` small boxes inside the room, each side with a material of its
/// own (6n materials).
fn with_many_materials(map: &str, n: usize) -> String {
    let mut solids = String::new();
    for i in 0..n {
        let (x, y) = ((i % 20) as i64 * 24 - 240, (i / 20) as i64 * 24 - 240);
        let (x2, y2, z, z2) = (x + 8, y + 8, 8, 16);
        let planes = [
            format!("({x} {y2} {z2}) ({x2} {y2} {z2}) ({x2} {y} {z2})"),
            format!("({x} {y} {z}) ({x2} {y} {z}) ({x2} {y2} {z})"),
            format!("({x} {y2} {z2}) ({x} {y} {z2}) ({x} {y} {z})"),
            format!("({x2} {y2} {z}) ({x2} {y} {z}) ({x2} {y} {z2})"),
            format!("({x2} {y2} {z2}) ({x} {y2} {z2}) ({x} {y2} {z})"),
            format!("({x2} {y} {z}) ({x} {y} {z}) ({x} {y} {z2})"),
        ];
        solids += &format!("\tsolid\n\t{{\n\t\t\"id\" \"{}\"\n", 100_000 + i);
        for (k, plane) in planes.iter().enumerate() {
            solids += &format!(
                "\t\tside\n\t\t{{\n\t\t\t\"id\" \"{}\"\n\t\t\t\"plane\" \"{plane}\"\n\t\t\t\"material\" \"LIMIT/M{i}_{k}\"\n\t\t\t\"uaxis\" \"[1 0 0 0] 0.25\"\n\t\t\t\"vaxis\" \"[0 -1 0 0] 0.25\"\n\t\t\t\"lightmapscale\" \"16\"\n\t\t}}\n",
                200_000 + i * 6 + k
            );
        }
        solids += "\t}\n";
    }
    let at = map.find("\tsolid\n").unwrap();
    format!("{}{solids}{}", &map[..at], &map[at..])
}

#[test]
fn a_missing_file_is_a_read_error_naming_it() {
    let run = srcmap(&[&"compile", &"/no/such/map.vmf", &"--json"]);
    assert_eq!(run.status.code(), Some(1));
    let e = error_of(&run);
    assert_eq!(e["kind"], "read");
    assert_eq!(e["file"], "/no/such/map.vmf");
    let info = srcmap(&[&"info", &"/no/such/map.bsp", &"--json"]);
    assert_eq!(info.status.code(), Some(1));
    assert_eq!(error_of(&info)["kind"], "read");
}

#[test]
fn a_vmf_syntax_error_has_its_line_and_column() {
    let dir = temp_dir("syntax");
    let run = compile(&dir, "bad", "world\n{\n\t\"id\" \"1\"\n\tsolid\n", &["--json"]);
    assert_eq!(run.status.code(), Some(1));
    let e = error_of(&run);
    assert_eq!(e["kind"], "vmf_syntax", "{e}");
    assert!(e["file"].as_str().unwrap().ends_with("bad.vmf"));
    assert!(e["line"].as_u64().is_some_and(|l| l >= 1), "{e}");
    assert!(e["col"].as_u64().is_some_and(|c| c >= 1), "{e}");
}

#[test]
fn a_leak_names_the_entity_its_place_and_how_to_see_the_line() {
    let dir = temp_dir("leak");
    let run = compile(&dir, "leaky", &with_entity_outside(&example_map()), &["--json"]);
    assert_eq!(run.status.code(), Some(1));
    let e = error_of(&run);
    assert_eq!(e["kind"], "leak");
    assert_eq!(e["entity"], 9001);
    assert_eq!(e["position"], serde_json::json!([400.0, 0.0, 64.0]));
    let message = e["message"].as_str().unwrap();
    assert!(
        message.contains("--allowleak") && message.contains("srcmap view"),
        "{message}"
    );
}

#[test]
fn an_exceeded_limit_is_kind_limit() {
    let dir = temp_dir("limit");
    // 2,058 materials: over Valve's 2,048 texdata.
    let run = compile(
        &dir,
        "many",
        &with_many_materials(&example_map(), 343),
        &["--json", "-q"],
    );
    assert_eq!(
        run.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let e = error_of(&run);
    assert_eq!(e["kind"], "limit", "{e}");
    assert!(e["message"].as_str().unwrap().contains("texdata"));
}

#[test]
fn bad_flags_are_usage_errors_in_json_with_exit_status_2() {
    for args in [
        vec!["compile", "map.vmf", "--no-such-flag", "--json"],
        vec!["vbsp", "--json"],
        vec!["info", "--json", "-json", "x"],
    ] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_srcmap"));
        let run = cmd.args(&args).output().unwrap();
        assert_eq!(run.status.code(), Some(2), "{args:?}");
        assert_eq!(error_of(&run)["kind"], "usage", "{args:?}");
    }
    // Found before any work: no stage is said to have started.
    let unknown = srcmap(&[&"compile", &"map.vmf", &"--target", &"quake", &"--json"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert_eq!(error_of(&unknown)["kind"], "usage");
    let err = String::from_utf8_lossy(&unknown.stderr);
    assert!(err.contains("quake") && !err.contains("started"), "{err}");
    // Without --json, stdout stays empty.
    let run = srcmap(&[&"compile", &"map.vmf", &"--no-such-flag"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(run.stdout.is_empty());
}

#[test]
fn a_gameinfo_naming_no_known_game_is_a_usage_error_naming_the_file() {
    let dir = temp_dir("gameinfo");
    let game = dir.join("game");
    std::fs::create_dir_all(&game).unwrap();
    let gameinfo = game.join("gameinfo.txt");
    let text = "\"GameInfo\"\n{\n game \"Nothing\"\n FileSystem\n {\n  SteamAppId 12345\n }\n}\n";
    std::fs::write(&gameinfo, text).unwrap();
    let run = compile(
        &dir,
        "room",
        &example_map(),
        &["--game", game.to_str().unwrap(), "--json"],
    );
    assert_eq!(run.status.code(), Some(2));
    let error = error_of(&run);
    assert_eq!(error["kind"], "usage");
    assert_eq!(error["file"].as_str(), gameinfo.to_str());
    assert!(error["message"].as_str().unwrap().contains("Nothing"), "{error}");
    assert!(!dir.join("room.bsp").exists());
}

#[test]
fn a_map_whose_outside_is_not_filled_is_told_leaked() {
    let dir = temp_dir("unfilled");
    let map = example_map();
    let cases = [
        ("allowed", with_entity_outside(&map), vec!["--allowleak"]),
        ("empty", without_entities(&map), vec![]),
    ];
    for (name, text, flags) in cases {
        let run = compile(&dir, name, &text, &flags);
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(run.status.success(), "{name}: {err}");
        assert!(
            err.contains("leak"),
            "{name}: the compile does not say it leaked:\n{err}"
        );
        let info = srcmap(&[&"info", &dir.join(format!("{name}.bsp")), &"--json"]);
        let doc = one_document(&info);
        assert_eq!(doc["state"]["leak"], "leaked", "{name}: {doc}");
    }
    let sealed = compile(&dir, "sealed", &map, &[]);
    assert!(sealed.status.success());
    let info = one_document(&srcmap(&[&"info", &dir.join("sealed.bsp"), &"--json"]));
    assert_eq!(info["state"]["leak"], "sealed");
}

/// `vbsp: done in 0.42 s` → 0.42 (seconds; minutes and hours as `human_duration` writes them).
fn seconds_in(line: &str) -> f64 {
    let t = line.split("done in ").nth(1).unwrap().split(" (").next().unwrap();
    let words: Vec<&str> = t.split_whitespace().collect();
    match words.as_slice() {
        [s, "s"] => s.parse().unwrap(),
        [m, "min", s, "s"] => m.parse::<f64>().unwrap() * 60.0 + s.parse::<f64>().unwrap(),
        _ => panic!("{line}"),
    }
}

/// `report`'s stage was told on `err` as it started and ended, the end line's time being the
/// report's `seconds` (within 1 %, or the rounding of the printed figure); its warnings are
/// structured.
fn assert_stage_told(err: &str, report: &Value) {
    let stage = report["stage"].as_str().unwrap();
    assert!(err.contains(&format!("{stage}: started")), "{stage}:\n{err}");
    let line = err
        .lines()
        .find(|l| l.starts_with(&format!("{stage}: done in")))
        .unwrap_or_else(|| panic!("no end line for {stage}:\n{err}"));
    let (text, json) = (seconds_in(line), report["seconds"].as_f64().unwrap());
    assert!(
        json > 0.0 && (text - json).abs() <= (json * 0.01).max(0.006),
        "{stage}: {text} vs {json}"
    );
    for w in report["warnings"].as_array().unwrap() {
        assert!(w["code"].is_string() && w["severity"].is_string() && w["message"].is_string());
    }
}

/// The last line on stderr is `COMMAND: wrote ... s total`.
fn assert_ends_with_total(command: &str, err: &str) {
    let last = err.lines().last().unwrap_or_default();
    assert!(
        last.starts_with(&format!("{command}: wrote")) && last.ends_with(" s total"),
        "{command}:\n{err}"
    );
}

#[test]
fn compile_tells_each_stage_and_its_time_as_the_json_report_does() {
    let dir = temp_dir("stages");
    let vmf = dir.join("room.vmf");
    std::fs::write(&vmf, example_map()).unwrap();
    let run = srcmap(&[&"compile", &vmf, &"--fast", &"--json"]);
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{err}");
    let reports = one_document(&run);
    for report in reports.as_array().unwrap() {
        assert_stage_told(&err, report);
    }
    assert_ends_with_total("compile", &err);
}

/// `srcmap vbsp`, `vvis` and `vrad` each tell their stage, its time and the total as
/// `srcmap compile` does.
#[test]
fn each_stage_alone_tells_its_stage_and_total_as_compile_does() {
    let dir = temp_dir("alone");
    let vmf = dir.join("room.vmf");
    std::fs::write(&vmf, example_map()).unwrap();
    let bsp = dir.join("room.bsp");
    let runs: [(&str, Vec<&dyn AsRef<std::ffi::OsStr>>); 3] = [
        ("vbsp", vec![&"vbsp", &vmf, &"--json"]),
        ("vvis", vec![&"vvis", &bsp, &"--json"]),
        ("vrad", vec![&"vrad", &bsp, &"-fast", &"--json"]),
    ];
    for (stage, args) in runs {
        let run = srcmap(&args);
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(run.status.success(), "{stage}: {err}");
        let report = one_document(&run);
        assert_eq!(report["stage"], stage);
        assert_stage_told(&err, &report);
        assert_ends_with_total(stage, &err);
    }
}

#[test]
fn an_entity_warning_names_the_entity_and_its_place() {
    let dir = temp_dir("warning");
    let prop = "entity\n{\n\t\"id\" \"777\"\n\t\"classname\" \"prop_static\"\n\t\"model\" \"models/no/such.mdl\"\n\t\"origin\" \"16 32 48\"\n}\n";
    let map = example_map();
    let at = map.find("\nentity\n").unwrap() + 1;
    let run = compile(
        &dir,
        "prop",
        &format!("{}{prop}{}", &map[..at], &map[at..]),
        &["--json"],
    );
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let report = one_document(&run);
    let warnings = report["warnings"].as_array().unwrap();
    let w = warnings
        .iter()
        .find(|w| w["entity"] == 777)
        .unwrap_or_else(|| panic!("no warning names the prop: {warnings:?}"));
    assert_eq!(w["code"], "vbsp.entity");
    assert_eq!(w["classname"], "prop_static");
    assert_eq!(w["position"], serde_json::json!([16.0, 32.0, 48.0]));
    assert!(w["brush"].is_null() && w["side"].is_null());
}
