//! Hostile and odd inputs a new user might try (issue 22): each gets a clear error and the exit
//! status the CLI contract gives (1 bad input, 2 wrong usage), and no file is damaged.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::srcmap;

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn temp_dir(name: &str) -> PathBuf {
    common::fresh_dir("hostile", name)
}

fn example_map() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/box_room.vmf");
    std::fs::read_to_string(path).unwrap()
}

/// The example map with the first line holding `key` replaced by `"key" "value"`.
fn example_with(key: &str, value: &str, after: Option<&str>) -> String {
    let map = example_map();
    let from = after.map_or(0, |a| map.find(a).unwrap());
    let start = from + map[from..].find(&format!("\"{key}\"")).unwrap();
    let end = start + map[start..].find('\n').unwrap();
    format!("{}\"{key}\" \"{value}\"{}", &map[..start], &map[end..])
}

/// The compiled example room, `a.bsp`, in `dir`.
fn compiled(dir: &Path) -> PathBuf {
    let vmf = dir.join("a.vmf");
    std::fs::write(&vmf, example_map()).unwrap();
    let bsp = dir.join("a.bsp");
    let run = srcmap(&[&"vbsp", &vmf, &"-o", &bsp, &"-q"]);
    assert!(run.status.success(), "{}", stderr(&run));
    bsp
}

#[test]
fn an_output_naming_the_input_is_refused_even_through_links() {
    let dir = temp_dir("same");
    let bsp = compiled(&dir);
    let vmf = dir.join("a.vmf");
    let (vmf_bytes, bsp_bytes) = (std::fs::read(&vmf).unwrap(), std::fs::read(&bsp).unwrap());
    let vmf_link = dir.join("link.vmf");
    let bsp_hard = dir.join("hard.bsp");
    std::fs::hard_link(&bsp, &bsp_hard).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&vmf, &vmf_link).unwrap();
    #[cfg(not(unix))]
    std::fs::copy(&vmf, &vmf_link).unwrap();
    let mut runs: Vec<Vec<&dyn AsRef<std::ffi::OsStr>>> = vec![
        vec![&"vbsp", &vmf, &"-o", &vmf, &"-q"],
        vec![&"convert", &vmf, &vmf],
        vec![&"lump", &"extract", &bsp, &"0", &bsp],
        vec![&"lump", &"extract", &bsp, &"planes", &bsp_hard],
        vec![&"materials", &"extract", &bsp, &"-o", &bsp],
        vec![&"convert", &bsp, &bsp_hard, &"--compress"],
    ];
    if cfg!(unix) {
        runs.push(vec![&"compile", &vmf, &"-o", &vmf_link, &"-q"]);
    }
    for args in runs {
        let run = srcmap(&args);
        let err = stderr(&run);
        assert_eq!(run.status.code(), Some(2), "{err}");
        assert!(err.contains("the output is the input file"), "{err}");
        assert_eq!(std::fs::read(&vmf).unwrap(), vmf_bytes);
        assert_eq!(std::fs::read(&bsp).unwrap(), bsp_bytes);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn usage_errors_exit_2_and_float_flags_refuse_nan() {
    let dir = temp_dir("usage");
    let bsp = compiled(&dir);
    let lmp = dir.join("o.lmp");
    let (other, vmf) = (dir.join("b.bsp"), dir.join("a.vmf"));
    let runs: Vec<Vec<&dyn AsRef<std::ffi::OsStr>>> = vec![
        vec![&"lump", &"extract", &bsp, &"999", &lmp],
        vec![&"convert", &bsp, &other, &"--encoding", &"bogus9"],
        vec![&"vvis", &bsp, &"--radius-override", &"nan", &"-q"],
        vec![&"vvis", &bsp, &"--radius-override", &"inf", &"-q"],
        vec![&"compile", &vmf, &"--fast", &"--final"],
        vec![&"vrad", &bsp, &"--fast", &"--final"],
    ];
    for args in runs {
        let run = srcmap(&args);
        let shown: Vec<_> = args.iter().map(|a| a.as_ref().to_string_lossy()).collect();
        assert_eq!(run.status.code(), Some(2), "{shown:?}: {}", stderr(&run));
    }
    assert!(!lmp.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_leak_names_the_sides_left_out_before_it() {
    let dir = temp_dir("leak");
    // Solid 2's first side: empty, collinear, NaN plane points, and a NaN texture axis.
    let cases = [
        ("plane", "", "solid 2 side 3"),
        ("plane", "(0 0 0) (0 0 0) (0 0 0)", "brush 2 side 3"),
        ("plane", "(nan 0 0) (0 nan 0) (0 0 1)", "brush 2 side 3"),
        ("uaxis", "[nan 0 0 0] 0.25", "brush 2 side 3"),
    ];
    for (key, value, named) in cases {
        let vmf = dir.join("hole.vmf");
        std::fs::write(&vmf, example_with(key, value, None)).unwrap();
        let run = srcmap(&[&"vbsp", &vmf, &"-q"]);
        let err = stderr(&run);
        assert_eq!(run.status.code(), Some(1), "{err}");
        let leak = err.lines().find(|l| l.contains("leak:")).unwrap_or_default();
        assert!(
            leak.contains(named) && leak.contains("may be the hole"),
            "{value:?}: {err}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_non_finite_light_origin_is_refused_naming_the_entity() {
    let dir = temp_dir("nanlight");
    let vmf = dir.join("nan.vmf");
    std::fs::write(&vmf, example_with("origin", "nan 0 64", Some("\"light\""))).unwrap();
    let bsp = dir.join("nan.bsp");
    let run = srcmap(&[&"compile", &vmf, &"-o", &bsp, &"-q"]);
    let err = stderr(&run);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert!(err.contains("'light' origin \"nan 0 64\" is not finite"), "{err}");
    assert!(!bsp.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn control_characters_in_a_dmx_header_are_escaped() {
    let dir = temp_dir("dmx");
    let dmx = dir.join("ctl.dmx");
    std::fs::write(
        &dmx,
        "<!-- dmx encoding keyvalues2 1 format mo\u{1b}]0;title\u{7}\u{1b}[2Jdel 22 -->\n\
         \"DmElement\"\n{\n\t\"id\" \"elementid\" \"d3b4e5f6-0000-4000-8000-000000000001\"\n\
         \t\"name\" \"string\" \"ro\u{1b}[31mot\"\n}\n",
    )
    .unwrap();
    let run = srcmap(&[&"info", &dmx]);
    assert!(run.status.success(), "{}", stderr(&run));
    let out = String::from_utf8(run.stdout).unwrap();
    assert!(!out.chars().any(|c| c.is_control() && c != '\n'), "{out:?}");
    assert!(out.contains("mo\\u{1b}]0;title\\u{7}\\u{1b}[2Jdel"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `srcmap … | head`: the reader goes away; the writer exits quietly, without a panic.
#[test]
fn a_closed_output_pipe_ends_the_command_quietly() {
    let vmf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/box_room.vmf");
    let commands: [Vec<&std::ffi::OsStr>; 3] = [
        vec!["completions".as_ref(), "bash".as_ref()],
        vec!["man".as_ref()],
        vec!["info".as_ref(), vmf.as_os_str()],
    ];
    for args in commands {
        let mut child = Command::new(env!("CARGO_BIN_EXE_srcmap"))
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    }
}

/// Maps over the engine's entity limit (8192 in BSP 20) are refused by the commands that would
/// pay for them, before the work: vbsp on the VMF, vrad, export and render on the BSP.
#[test]
fn maps_over_the_entity_limit_are_refused_before_the_work() {
    let dir = temp_dir("limits");
    let bsp_path = compiled(&dir);
    let mut bsp = srcmap_bsp::Bsp::parse(&std::fs::read(&bsp_path).unwrap()).unwrap();
    let mut target = srcmap_bsp::Entity::default();
    target.set("classname", "info_target");
    bsp.entities.extend(std::iter::repeat_n(target, 9000));
    let crowded = dir.join("crowded.bsp");
    std::fs::write(&crowded, bsp.to_bytes().unwrap()).unwrap();
    let before = std::fs::read(&crowded).unwrap();
    for args in [
        vec!["vrad", "-fast"],
        vec!["export", "-o", "x.glb"],
        vec!["render", "-o", "x.png"],
    ] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_srcmap"));
        let out = cmd.current_dir(&dir).args(&args).arg(&crowded).output().unwrap();
        let text = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {text}");
        assert!(text.contains("MAX_MAP_ENTITIES"), "{args:?}: {text}");
    }
    assert_eq!(std::fs::read(&crowded).unwrap(), before, "the input is untouched");
    assert!(!dir.join("x.glb").exists() && !dir.join("x.png").exists());
    // The VMF: 9000 point entities after the room's world.
    let mut vmf = example_map();
    for i in 0..9000 {
        vmf.push_str(&format!(
            "entity\n{{\n\t\"id\" \"{}\"\n\t\"classname\" \"info_target\"\n\t\"origin\" \"0 0 64\"\n}}\n",
            100_000 + i
        ));
    }
    let vmf_path = dir.join("crowded.vmf");
    std::fs::write(&vmf_path, vmf).unwrap();
    let out = srcmap(&[&"vbsp", &vmf_path, &"-q"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("entities exceed MAX_MAP_ENTITIES"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.join("crowded.bsp.tmp").exists());
}
