//! What the CLI's integration tests share: running the binary, a fresh folder.

use std::path::PathBuf;
use std::process::{Command, Output};

/// `srcmap ARGS`, run to the end.
pub fn srcmap(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_srcmap"));
    for a in args {
        cmd.arg(a);
    }
    cmd.output().unwrap()
}

/// An empty folder of this test process: `srcmap-{suite}-{name}-{pid}` in the temp folder.
pub fn fresh_dir(suite: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("srcmap-{suite}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}
