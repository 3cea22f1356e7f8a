//! What the driver's navigation suites share: rooms of axis-aligned blocks written as VMF text
//! and compiled by srcmap's vbsp in a folder of their own.
#![allow(dead_code)] // each suite uses its own part

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::common;

/// The material of every block.
const WALL: &str = "DEV/DEV_MEASUREGENERIC01B";

/// One axis-aligned brush in VMF text.
pub fn block(id: &mut u32, min: [i32; 3], max: [i32; 3]) -> String {
    srcmap_vmf::block_solid(id, min, max, WALL)
}

/// The six walls (16 thick) around the inside `lo`..`hi`, floor first, then ceiling, then the
/// west, east, north and south walls.
pub fn shell([x0, y0, z0]: [i32; 3], [x1, y1, z1]: [i32; 3]) -> [([i32; 3], [i32; 3]); 6] {
    let t = 16;
    [
        ([x0 - t, y0 - t, z0 - t], [x1 + t, y1 + t, z0]),
        ([x0 - t, y0 - t, z1], [x1 + t, y1 + t, z1 + t]),
        ([x0 - t, y0 - t, z0], [x0, y1 + t, z1]),
        ([x1, y0 - t, z0], [x1 + t, y1 + t, z1]),
        ([x0, y0 - t, z0], [x1, y0, z1]),
        ([x0, y1, z0], [x1, y1 + t, z1]),
    ]
}

/// A map of the world `blocks` and the entities given as (classname, origin, other keys).
pub fn map_text(blocks: &[([i32; 3], [i32; 3])], entities: &[(&str, [i32; 3], &str)]) -> String {
    let mut id = 1;
    let world: String = blocks.iter().map(|&(lo, hi)| block(&mut id, lo, hi)).collect();
    let entities: String = (900..)
        .zip(entities)
        .map(|(id, (class, [x, y, z], keys))| {
            format!("entity\n{{\n\"id\" \"{id}\"\n\"classname\" \"{class}\"\n\"origin\" \"{x} {y} {z}\"\n{keys}}}\n")
        })
        .collect();
    format!("world\n{{\n\"id\" \"1\"\n\"classname\" \"worldspawn\"\n{world}}}\n{entities}")
}

/// `text` compiled by srcmap's vbsp (models found through `game`; a leak let through when
/// `allow_leak`) in a fresh folder of the suite `suite`: the BSP's path.
pub fn compile(suite: &str, text: &str, game: Option<&Path>, allow_leak: bool) -> PathBuf {
    // Tests run at once: each compile gets its own folder.
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let run = RUNS.fetch_add(1, Ordering::Relaxed);
    let dir = common::fresh_dir(suite, &format!("{run}"));
    let vmf = dir.join("room.vmf");
    std::fs::write(&vmf, text).unwrap();
    let job = srcmap_driver::VbspJob {
        map: vmf.clone(),
        game: game.map(Path::to_path_buf),
        allow_leak,
        ..Default::default()
    };
    srcmap_driver::vbsp(&job, &srcmap_stage::NoProgress, &srcmap_driver::NoMessages).unwrap();
    vmf.with_extension("bsp")
}
