//! The driver on real files: the README's box room compiled, vis and light run on the result, a
//! leak told and its pointfile written, an output naming the input refused.

mod common;

use std::cell::RefCell;
use std::path::PathBuf;

use srcmap_driver::{
    CompileJob, CompileProgress, DriverError, Messages, RadSettings, VbspJob, VisSettings, VradJob, VvisJob,
};
use srcmap_stage::NoProgress;

/// The lines a run tells, kept.
#[derive(Default)]
struct Kept(RefCell<Vec<String>>);

impl Messages for Kept {
    fn line(&self, text: &str) {
        self.0.borrow_mut().push(text.to_string());
    }
}

fn box_room() -> String {
    std::fs::read_to_string(common::project_file("examples/box_room.vmf")).unwrap()
}

fn temp(name: &str) -> PathBuf {
    common::fresh_dir("driver", name)
}

const NO_PROGRESS: CompileProgress<'static> = CompileProgress {
    vbsp: &NoProgress,
    vvis: &NoProgress,
    vrad: &NoProgress,
};

#[test]
fn box_room_compiles_then_vis_and_light_run_on_the_file() {
    let dir = temp("box");
    let map = dir.join("box_room.vmf");
    std::fs::write(&map, box_room()).unwrap();
    let job = CompileJob {
        vbsp: VbspJob {
            map: map.clone(),
            ..Default::default()
        },
        vis: Some(VisSettings::default()),
        rad: Some(RadSettings {
            fast: true,
            ..Default::default()
        }),
        lights: Vec::new(),
    };
    let kept = Kept::default();
    let reports = srcmap_driver::compile(&job, &NO_PROGRESS, &kept).unwrap();
    let stages: Vec<&str> = reports.iter().map(|r| r.stage).collect();
    assert_eq!(stages, ["vbsp", "vvis", "vrad"]);
    let bsp = dir.join("box_room.bsp");
    let lines = kept.0.borrow();
    // The default target is said once; without -game or a table, the box's dev textures are
    // unknown: one warning names them.
    assert!(lines[0].starts_with("target: tf ("), "{lines:?}");
    assert!(lines[1].contains(": warning: 3 unknown materials"), "{lines:?}");
    assert!(
        lines[2].starts_with(&format!("vbsp: {} (", bsp.display())),
        "{lines:?}"
    );
    let last = lines.last().unwrap();
    assert!(
        last.starts_with(&format!("compile: wrote {} in ", bsp.display())),
        "{last}"
    );
    assert!(last.ends_with(" s total"), "{last}");
    assert!(dir.join("box_room.prt").is_file() && !dir.join("box_room.lin").exists());
    srcmap_bsp::Bsp::parse(&std::fs::read(&bsp).unwrap()).unwrap();

    let vis = VvisJob {
        bsp: bsp.clone(),
        output: Some(dir.join("vis.bsp")),
        ..Default::default()
    };
    let run = srcmap_driver::vvis(&vis, &NoProgress).unwrap();
    assert_eq!(run.prt.as_deref(), Some(dir.join("box_room.prt").as_path()));
    assert!(run.report.times.iter().any(|t| t.phase == "total"));
    let rad = VradJob {
        bsp: dir.join("vis.bsp"),
        settings: RadSettings {
            fast: true,
            ..Default::default()
        },
        quiet: true,
        ..Default::default()
    };
    let run = srcmap_driver::vrad(&rad, &NoProgress, &Kept::default()).unwrap();
    assert_eq!(run.output, dir.join("vis.bsp"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The box room without its last wall: the light sees the void.
fn holed_box() -> String {
    let text = box_room();
    // The last `solid` block of worldspawn: from its keyword to its closing brace (one tab in).
    let start = text.rfind("\tsolid").unwrap();
    let end = start + text[start..].find("\n\t}").unwrap() + 3;
    format!("{}{}", &text[..start], &text[end..])
}

#[test]
fn a_leak_writes_the_pointfile_and_names_the_entity() {
    let dir = temp("leak");
    let map = dir.join("holed.vmf");
    std::fs::write(&map, holed_box()).unwrap();
    let job = VbspJob {
        map: map.clone(),
        ..Default::default()
    };
    let err = srcmap_driver::vbsp(&job, &NoProgress, &Kept::default()).unwrap_err();
    assert!(matches!(err, DriverError::Leak { .. }), "{err}");
    let lin = dir.join("holed.lin");
    assert!(err.to_string().contains("can reach the void; pointfile"), "{err}");
    assert!(
        err.to_string().contains(&format!("pointfile {}", lin.display())),
        "{err}"
    );
    // And how to see the line: the BSP let through, then the viewer draws the pointfile.
    assert!(
        err.to_string().contains("--allowleak") && err.to_string().contains("srcmap view"),
        "{err}"
    );
    assert!(lin.is_file() && !dir.join("holed.bsp").exists());
    // With allow_leak the BSP is written too, and a compile skips vis with a warning.
    let job = CompileJob {
        vbsp: VbspJob {
            allow_leak: true,
            ..job
        },
        vis: Some(VisSettings::default()),
        rad: None,
        lights: Vec::new(),
    };
    let kept = Kept::default();
    let reports = srcmap_driver::compile(&job, &NO_PROGRESS, &kept).unwrap();
    assert_eq!(reports.len(), 1);
    assert!(kept.0.borrow().iter().any(|l| l.ends_with(
        "so vis was skipped (one cluster, no visibility data: the game draws every leaf from everywhere)"
    )));
    assert!(dir.join("holed.bsp").is_file() && !dir.join("holed.prt").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_output_naming_the_map_is_wrong_usage_and_nothing_is_read() {
    let dir = temp("usage");
    let map = dir.join("a.vmf");
    std::fs::write(&map, "not a map").unwrap();
    let job = VbspJob {
        map: map.clone(),
        output: Some(map.clone()),
        ..Default::default()
    };
    let err = srcmap_driver::vbsp(&job, &NoProgress, &Kept::default()).unwrap_err();
    assert!(err.is_usage(), "{err}");
    let missing = VbspJob {
        map: dir.join("missing.vmf"),
        ..Default::default()
    };
    let err = srcmap_driver::vbsp(&missing, &NoProgress, &Kept::default()).unwrap_err();
    assert!(
        !err.is_usage() && err.to_string().ends_with("missing.vmf: cannot read"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn onlyents_rewrites_the_entities_of_the_earlier_bsp_and_keeps_its_other_lumps() {
    let dir = temp("onlyents");
    let map = dir.join("box_room.vmf");
    std::fs::write(&map, box_room()).unwrap();
    let job = VbspJob {
        map: map.clone(),
        ..Default::default()
    };
    srcmap_driver::vbsp(&job, &NoProgress, &Kept::default()).unwrap();
    let bsp_path = dir.join("box_room.bsp");
    let before = srcmap_bsp::Bsp::parse(&std::fs::read(&bsp_path).unwrap()).unwrap();
    // The light's brightness changes in the map; its geometry does not.
    let edited = box_room().replace("\"_light\" \"255 240 220 300\"", "\"_light\" \"1 2 3 4\"");
    std::fs::write(&map, edited).unwrap();
    let only = VbspJob {
        only: Some(srcmap_vbsp::Only::Entities),
        ..job
    };
    srcmap_driver::vbsp(&only, &NoProgress, &Kept::default()).unwrap();
    let after = srcmap_bsp::Bsp::parse(&std::fs::read(&bsp_path).unwrap()).unwrap();
    assert_eq!(
        (after.faces.len(), after.planes.len()),
        (before.faces.len(), before.planes.len())
    );
    assert_eq!(after.nodes.len(), before.nodes.len());
    let light = |b: &srcmap_bsp::Bsp| {
        b.entities
            .iter()
            .find_map(|e| e.get("_light").map(str::to_string))
            .unwrap()
    };
    assert_eq!(light(&after), "1 2 3 4");
    assert_ne!(light(&before), "1 2 3 4");
    let pak = srcmap_bsp::pak::Pak::parse(&after.pakfile, 0).unwrap();
    assert!(pak.find("stale.txt").is_some());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Stage 1 writes nothing: the portal file goes beside the BSP only once the BSP is written,
/// so a compile that fails in vvis or vrad leaves no new `.prt` beside an old `.bsp`.
#[test]
fn the_portal_file_is_written_only_after_the_bsp() {
    let dir = temp("side");
    let map = dir.join("box_room.vmf");
    std::fs::write(&map, box_room()).unwrap();
    let job = VbspJob {
        map: map.clone(),
        quiet: true,
        ..Default::default()
    };
    let stage1 = srcmap_driver::vbsp::run_vbsp(&job, &NoProgress, &srcmap_driver::NoMessages).unwrap();
    assert!(!map.with_extension("prt").exists() && !map.with_extension("bsp").exists());
    std::fs::write(&stage1.out_path, &stage1.file).unwrap();
    stage1.side.write_beside(&stage1.out_path).unwrap();
    assert!(
        std::fs::read_to_string(map.with_extension("prt"))
            .unwrap()
            .starts_with("PRT1")
    );
}

/// The box room with no point entity: nothing in open space to flood from.
fn empty_box() -> String {
    let text = box_room();
    let start = text.find("\nentity").unwrap();
    let end = text.find("\ncameras").unwrap();
    format!("{}{}", &text[..start], &text[end..])
}

#[test]
fn a_map_with_no_entity_in_open_space_is_written_leaked_and_vis_is_skipped() {
    let dir = temp("empty");
    let map = dir.join("empty.vmf");
    std::fs::write(&map, empty_box()).unwrap();
    // A stale portal file from an earlier compile must not outlive this one.
    std::fs::write(dir.join("empty.prt"), "PRT1\n1\n0\n").unwrap();
    let job = CompileJob {
        vbsp: VbspJob {
            map: map.clone(),
            ..Default::default()
        },
        vis: Some(VisSettings::default()),
        rad: None,
        lights: Vec::new(),
    };
    let kept = Kept::default();
    let reports = srcmap_driver::compile(&job, &NO_PROGRESS, &kept).unwrap();
    assert_eq!(reports.len(), 1, "vis is skipped");
    let lines = kept.0.borrow();
    assert!(
        lines.iter().any(|l| l.contains("no entity in open space")),
        "{lines:?}"
    );
    assert!(!dir.join("empty.prt").exists() && !dir.join("empty.lin").exists());
    // As Valve's: no visibility, every leaf in cluster 0.
    let bsp = srcmap_bsp::Bsp::parse(&std::fs::read(dir.join("empty.bsp")).unwrap()).unwrap();
    assert!(bsp.visibility.is_none());
    assert!(bsp.leafs.iter().skip(1).all(|l| l.cluster == 0));
    let _ = std::fs::remove_dir_all(&dir);
}
