//! `srcmap info` on game model files: recognised by content whatever the extension, the three
//! files of one model reporting one checksum, and a cut file failing with exit code 1.

use std::path::PathBuf;
use std::process::Command;

fn srcmap() -> Command {
    Command::new(env!("CARGO_BIN_EXE_srcmap"))
}

fn chair() -> Option<PathBuf> {
    let root = srcmap_corpus::root("srcmap info on corpus models")?;
    Some(root.join("model/kane8kki+whohl2mod/models/bluechaire"))
}

fn info(path: &std::path::Path) -> serde_json::Value {
    let out = srcmap().args(["info", "--json"]).arg(path).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn info_reads_the_three_files_of_a_model() {
    let Some(dir) = chair() else { return };
    let mdl = info(&dir.join("bluewoodnchair.mdl"));
    let vvd = info(&dir.join("bluewoodnchair.vvd"));
    let vtx = info(&dir.join("bluewoodnchair.dx90.vtx"));
    assert_eq!(mdl["format"], "MDL v48");
    assert_eq!(mdl["static_prop"], true);
    assert_eq!(mdl["materials"], serde_json::json!(["painted_wooden_chair_02"]));
    assert_eq!(vvd["format"], "VVD v4");
    assert_eq!(vtx["format"], "VTX v7");
    assert_eq!(mdl["checksum"], vvd["checksum"]);
    assert_eq!(mdl["checksum"], vtx["checksum"]);
    assert_eq!(vvd["lod_vertices"], serde_json::json!([986]));
}

#[test]
fn a_cut_model_fails_with_exit_code_1() {
    let Some(dir) = chair() else { return };
    let data = std::fs::read(dir.join("bluewoodnchair.mdl")).unwrap();
    let tmp = std::env::temp_dir().join(format!("srcmap-cli-model-{}.bin", std::process::id()));
    std::fs::write(&tmp, &data[..300]).unwrap();
    let out = srcmap().arg("info").arg(&tmp).output().unwrap();
    std::fs::remove_file(&tmp).ok();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("MDL") && err.contains("byte"), "{err}");
}
