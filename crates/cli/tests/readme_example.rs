//! The README's first command, as written there: the example box room compiles with no warning
//! at all, and `srcmap info` on the result tells a sealed, vised and lit map.

use std::path::{Path, PathBuf};
use std::process::Command;

fn srcmap() -> Command {
    Command::new(env!("CARGO_BIN_EXE_srcmap"))
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The arguments of the README's `cargo run ... -- compile ...` command (its lines joined at
/// the trailing backslashes, up to the `&&` that runs `info`).
fn readme_compile_args() -> Vec<String> {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    let joined = readme.replace("\\\n", " ");
    let line = joined
        .lines()
        .find(|l| l.contains("cargo run --release -p srcmap-cli -- compile"))
        .expect("the README's compile command");
    let command = line.split("&&").next().unwrap();
    let args = command.split_once(" -- ").expect("cargo run ... -- ARGS").1;
    args.split_whitespace().map(str::to_string).collect()
}

#[test]
fn readme_example_compiles_without_a_warning() {
    let mut args = readme_compile_args();
    assert_eq!(args[0], "compile");
    let dir = std::env::temp_dir().join(format!("srcmap-readme-example-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("box_room.bsp");
    // The README writes into target/; the test writes its own copy.
    let o = args
        .iter()
        .position(|a| a == "-o")
        .expect("the README names the output with -o");
    args[o + 1] = out.display().to_string();

    let run = srcmap().current_dir(repo_root()).args(&args).output().unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(
        !stderr.to_ascii_lowercase().contains("warning"),
        "the README example warns:\n{stderr}"
    );
    // The progress lines name what they count.
    assert!(!stderr.contains(" items"), "progress without a unit:\n{stderr}");

    let info = srcmap().arg("info").arg("--json").arg(&out).output().unwrap();
    assert!(info.status.success(), "{}", String::from_utf8_lossy(&info.stderr));
    let report: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    let state = &report["state"];
    assert_eq!(state["visibility"]["present"], true, "{state}");
    assert!(state["visibility"]["clusters"].as_u64().unwrap() >= 1, "{state}");
    assert!(
        state["lighting"]["ldr"]["samples"].as_u64().unwrap() > 0,
        "{state}"
    );
    assert_eq!(state["leak"], "sealed", "{state}");
    assert_eq!(state["counts"]["brush_models"], 0, "{state}");
    std::fs::remove_dir_all(&dir).ok();
}
