//! The `srcmap` binary on VMF input: reports, byte-identical convert, and bad input that must
//! fail with `file:line:col: message`, exit code 1 and no output file.

use std::path::{Path, PathBuf};
use std::process::Command;

fn srcmap() -> Command {
    Command::new(env!("CARGO_BIN_EXE_srcmap"))
}

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/box_room.vmf")
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("srcmap-cli-test-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn info_json_reports_the_example_map() {
    let out = srcmap().args(["info", "--json"]).arg(example()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["solids"], 6);
    assert_eq!(v["sides"], 36);
    assert_eq!(v["entities"], 2);
    assert_eq!(v["entities_by_class"]["light"], 1);
    assert_eq!(v["bounds"]["mins"], serde_json::json!([-272.0, -272.0, -16.0]));
}

#[test]
fn convert_is_byte_identical() {
    let dir = temp_dir("convert");
    let out = dir.join("copy.vmf");
    let st = srcmap().arg("convert").arg(example()).arg(&out).status().unwrap();
    assert!(st.success());
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(example()).unwrap());
}

/// Writes `text` as a VMF, runs `info` and `convert` on it, and returns stderr of `info`.
fn fails(name: &str, text: &[u8]) -> String {
    let dir = temp_dir(name);
    let input = dir.join(format!("{name}.vmf"));
    std::fs::write(&input, text).unwrap();
    let out = srcmap().arg("info").arg(&input).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{name}: exit code");
    let target = dir.join("out.vmf");
    let conv = srcmap().arg("convert").arg(&input).arg(&target).output().unwrap();
    assert_eq!(conv.status.code(), Some(1));
    assert!(
        !target.exists(),
        "{name}: a failed convert must not leave an output"
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(&format!("{}:", input.display())),
        "{name}: error names the file: {err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    err
}

const SOLID: &str = "world\n{\n\t\"id\" \"1\"\n\t\"classname\" \"worldspawn\"\n\tsolid\n\t{\n\t\t\"id\" \"2\"\n\t\tside\n\t\t{\n\t\t\t\"id\" \"3\"\n\t\t\t\"plane\" \"PLANE\"\n\t\t\t\"material\" \"X\"\n\t\t}\n\t}\n}\n";

#[test]
fn bad_input_names_file_line_and_column() {
    assert!(fails("unterminated", b"world\n{\n\t\"id\" \"1\n}\n").contains(":3:7: unterminated string"));
    assert!(fails("unbalanced", b"world\n{\n\t\"id\" \"1\"\n").contains(":2:1: unbalanced braces"));
    let plane = SOLID.replace("PLANE", "(0 0 0) (1 1 1)");
    assert!(fails("plane", plane.as_bytes()).contains(":11:12: solid 2 side 3: plane must be three points"));
    let nonutf8 = b"world\n{\n\t\"id\" \"\xff\"\n}\n";
    assert!(fails("utf8", nonutf8).contains(":3:8: invalid UTF-8"));
    let disp = SOLID.replace(
        "\"material\" \"X\"",
        "\"material\" \"X\"\n\t\t\tdispinfo\n\t\t\t{\n\t\t\t\t\"power\" \"2\"\n\t\t\t\tdistances\n\t\t\t\t{\n\t\t\t\t\t\"row0\" \"1 2 3 4\"\n\t\t\t\t}\n\t\t\t}",
    );
    let disp = disp.replace("PLANE", "(0 0 0) (0 1 0) (1 1 0)");
    let err = fails("disprow", disp.as_bytes());
    assert!(
        err.contains(":18:13: solid 2 side 3: dispinfo distances row0 has 4 numbers, expected 5"),
        "{err}"
    );
}

#[test]
fn corpus_vmfs_report_and_convert() {
    let Some(root) = srcmap_corpus::root("the corpus CLI test") else {
        return;
    };
    let invalid = root.join("vmf/IaVashik+vmf-forge/invalid.vmf");
    let out = srcmap().arg("info").arg(&invalid).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid.vmf:4:16:"));
}
