//! What the driver's test suites share: fresh folders and the project's maps compiled.
#![allow(dead_code)] // each suite uses its own part

use std::path::{Path, PathBuf};

use srcmap_stage::NoProgress;

/// The project's small maps the sharding suites compile (features, terrain, a plain room).
pub const SMALL_MAPS: [&str; 3] = [
    "testdata/maps/features.vmf",
    "examples/terrain.vmf",
    "examples/box_room.vmf",
];

/// An empty folder for one test: `srcmap-SUITE-NAME-PID` under the system's temp folder.
pub fn fresh_dir(suite: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("srcmap-{suite}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A file of the project (`examples/…`, `testdata/…`).
pub fn project_file(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(path)
}

/// `map` (a VMF of the project) compiled by vbsp into `dir`: the BSP, with its portal file.
pub fn compiled(map: &str, dir: &Path) -> PathBuf {
    let src = project_file(map);
    let vmf = dir.join(src.file_name().unwrap());
    std::fs::copy(&src, &vmf).unwrap();
    let job = srcmap_driver::VbspJob {
        map: vmf.clone(),
        ..Default::default()
    };
    srcmap_driver::vbsp(&job, &NoProgress, &srcmap_driver::NoMessages).unwrap();
    vmf.with_extension("bsp")
}
