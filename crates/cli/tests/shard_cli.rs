//! `srcmap vvis --shard I/N -o PART` and `srcmap vvis merge` end to end: three shards side by
//! side, merged, give the bytes `srcmap vvis` writes; a merge missing a part exits 1 naming the
//! shard and writes nothing; a shard outside `0..N` is a usage error (exit 2). The same for
//! `srcmap vrad --shard I/N --pass direct -o PART` and `srcmap vrad merge`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn srcmap(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_srcmap"));
    for a in args {
        cmd.arg(a);
    }
    cmd
}

fn ok(out: Output) -> Output {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    out
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("srcmap-shard-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `testdata/maps/features.vmf` compiled by `srcmap vbsp` into `dir` (BSP and portal file).
fn features_bsp(dir: &Path) -> PathBuf {
    let vmf = dir.join("features.vmf");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/maps/features.vmf");
    std::fs::copy(src, &vmf).unwrap();
    ok(srcmap(&[&"vbsp", &vmf, &"-q"]).output().unwrap());
    vmf.with_extension("bsp")
}

#[test]
fn shards_merged_on_the_command_line_equal_one_vvis_and_a_missing_part_is_refused() {
    let dir = temp_dir("merge");
    let bsp = features_bsp(&dir);
    let whole = dir.join("whole.bsp");
    ok(srcmap(&[&"vvis", &bsp, &"-o", &whole, &"-q"]).output().unwrap());
    let parts: Vec<PathBuf> = (0..3).map(|i| dir.join(format!("vis.{i}.part"))).collect();
    let children: Vec<_> = parts
        .iter()
        .enumerate()
        .map(|(i, part)| {
            let shard = format!("{i}/3");
            srcmap(&[&"vvis", &bsp, &"--shard", &shard, &"-o", part, &"-q"])
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        assert!(child.wait_with_output().unwrap().status.success());
    }
    let merged = dir.join("merged.bsp");
    let mut merge = srcmap(&[&"vvis", &"merge", &bsp, &"-o", &merged, &"-q"]);
    merge.args(&parts);
    ok(merge.output().unwrap());
    assert!(std::fs::read(&merged).unwrap() == std::fs::read(&whole).unwrap());

    let refused = dir.join("refused.bsp");
    let mut merge = srcmap(&[&"vvis", &"merge", &bsp, &"-o", &refused]);
    merge.args(&parts[..2]);
    let out = merge.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("shard 2/3 is missing"), "{err}");
    assert!(!refused.exists());
}

#[test]
fn a_shard_outside_its_count_is_a_usage_error() {
    let out = srcmap(&[&"vvis", &"x.bsp", &"--shard", &"3/3", &"-o", &"p"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("3/3"));
}

#[test]
fn vrad_shards_merged_on_the_command_line_equal_one_vrad_and_a_foreign_part_is_refused() {
    let dir = temp_dir("rad");
    let bsp = features_bsp(&dir);
    ok(srcmap(&[&"vvis", &bsp, &"-q"]).output().unwrap());
    let whole = dir.join("whole.bsp");
    ok(srcmap(&[&"vrad", &bsp, &"-o", &whole, &"-q", &"--both"])
        .output()
        .unwrap());
    let parts: Vec<PathBuf> = (0..3).map(|i| dir.join(format!("rad.{i}.part"))).collect();
    for (i, part) in parts.iter().enumerate() {
        let shard = format!("{i}/3");
        let args: [&dyn AsRef<std::ffi::OsStr>; 10] = [
            &"vrad", &bsp, &"--shard", &shard, &"--pass", &"direct", &"-o", part, &"-q", &"--both",
        ];
        ok(srcmap(&args).output().unwrap());
    }
    let merged = dir.join("merged.bsp");
    let mut merge = srcmap(&[&"vrad", &"merge", &bsp, &"-o", &merged, &"-q", &"--both"]);
    merge.args(&parts);
    ok(merge.output().unwrap());
    assert!(std::fs::read(&merged).unwrap() == std::fs::read(&whole).unwrap());

    let vis_part = dir.join("vis.0.part");
    // Alone, it takes the others' shares over at once.
    let vis: [&dyn AsRef<std::ffi::OsStr>; 9] = [
        &"vvis",
        &bsp,
        &"--shard",
        &"0/3",
        &"--patience",
        &"0",
        &"-o",
        &vis_part,
        &"-q",
    ];
    ok(srcmap(&vis).output().unwrap());
    let refused = dir.join("refused.bsp");
    let mut merge = srcmap(&[&"vrad", &"merge", &bsp, &"-o", &refused, &"--both"]);
    merge.args([&vis_part, &parts[1], &parts[2]]);
    let out = merge.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&vis_part.display().to_string()) && err.contains("stage"),
        "{err}"
    );
    assert!(!refused.exists());
}
