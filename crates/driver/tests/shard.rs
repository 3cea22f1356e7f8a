//! Sharded vis on files: for N = 1, 2, 4, 7 shards, run side by side (exchanging results) or
//! one after another (each taking over the stopped ones' share), the merged BSP is the BSP
//! `srcmap vvis` writes, byte for byte; on the project's small maps always, and on every corpus
//! BSP with visibility (Valve's, portals rebuilt from the tree) when `SRCMAP_CORPUS` is set.
//! A merge with a part missing, damaged, of another run or given twice is refused naming it,
//! and writes nothing.

use std::path::{Path, PathBuf};
use std::time::Duration;

use srcmap_driver::{DriverError, VisInput, VisMergeJob, VisSettings, VisShardJob, VvisJob};
mod common;
use common::compiled;
use srcmap_shard::Shard;
use srcmap_stage::NoProgress;

fn temp(name: &str) -> PathBuf {
    common::fresh_dir("shard", name)
}

/// `srcmap vvis BSP -o OUT`'s bytes.
fn unsharded(input: &VisInput, dir: &Path) -> Vec<u8> {
    let out = dir.join("whole.bsp");
    let job = VvisJob {
        bsp: input.bsp.clone(),
        output: Some(out.clone()),
        prt: input.prt.clone(),
        no_prt: input.prt.is_none(),
        settings: input.settings,
    };
    srcmap_driver::vvis(&job, &NoProgress).unwrap();
    std::fs::read(out).unwrap()
}

fn shard_job(input: &VisInput, dir: &Path, shard: Shard, patience: Duration) -> VisShardJob {
    VisShardJob {
        input: input.clone(),
        shard,
        part: dir.join(format!("vis.{}.part", shard.index)),
        exchange: None,
        patience,
    }
}

/// The parts of `n` shards, run side by side (`together`) or one after another.
fn run_shards(input: &VisInput, dir: &Path, n: u32, together: bool) -> Vec<PathBuf> {
    // Side by side, no shard should be taken for stopped; one after another, the first takes
    // every share over at once.
    let patience = if together {
        Duration::from_secs(60)
    } else {
        Duration::ZERO
    };
    let jobs: Vec<VisShardJob> = (0..n)
        .map(|index| shard_job(input, dir, Shard { index, count: n }, patience))
        .collect();
    if together {
        std::thread::scope(|s| {
            for job in &jobs {
                s.spawn(move || srcmap_driver::vis_shard(job, &NoProgress).unwrap());
            }
        });
    } else {
        for job in &jobs {
            srcmap_driver::vis_shard(job, &NoProgress).unwrap();
        }
    }
    jobs.into_iter().map(|j| j.part).collect()
}

fn merge(input: &VisInput, parts: Vec<PathBuf>, out: &Path) -> Result<Vec<u8>, DriverError> {
    let job = VisMergeJob {
        input: input.clone(),
        parts,
        output: Some(out.to_path_buf()),
    };
    srcmap_driver::vis_merge(&job, &NoProgress)?;
    Ok(std::fs::read(out).unwrap())
}

/// For each N and both ways of running, the merge equals the unsharded BSP.
fn check_identical(input: &VisInput, dir: &Path, counts: &[u32]) {
    let whole = unsharded(input, dir);
    for &n in counts {
        for together in [true, false] {
            let run = dir.join(format!("n{n}-{together}"));
            std::fs::create_dir_all(&run).unwrap();
            let parts = run_shards(input, &run, n, together);
            let merged = merge(input, parts, &run.join("merged.bsp")).unwrap();
            assert!(
                merged == whole,
                "{}: {n} shards ({}) differ from one run",
                input.bsp.display(),
                if together {
                    "side by side"
                } else {
                    "one after another"
                }
            );
        }
    }
}

fn input(bsp: &Path, prt: bool) -> VisInput {
    VisInput {
        bsp: bsp.to_path_buf(),
        prt: prt.then(|| bsp.with_extension("prt")),
        settings: VisSettings {
            threads: 2,
            ..Default::default()
        },
    }
}

#[test]
fn merged_shards_equal_one_run_on_the_small_maps() {
    for map in common::SMALL_MAPS {
        let dir = temp(Path::new(map).file_stem().unwrap().to_str().unwrap());
        let bsp = compiled(map, &dir);
        check_identical(&input(&bsp, true), &dir, &[1, 2, 4, 7]);
    }
}

#[test]
fn a_merge_refuses_missing_damaged_foreign_and_doubled_parts_and_writes_nothing() {
    let dir = temp("refuse");
    let bsp = compiled("testdata/maps/features.vmf", &dir);
    let input = input(&bsp, true);
    let parts = run_shards(&input, &dir, 3, true);
    let out = dir.join("merged.bsp");
    let refused = |parts: Vec<PathBuf>, input: &VisInput, names: &Path, says: &str| {
        let e = merge(input, parts, &out).unwrap_err().to_string();
        assert!(
            e.contains(&names.display().to_string()) && e.contains(says),
            "{e}"
        );
        assert!(!out.exists(), "{e}: wrote the output");
    };
    refused(parts[..2].to_vec(), &input, &dir, "shard 2/3 is missing");
    let gone = dir.join("gone.part");
    refused(
        vec![parts[0].clone(), parts[1].clone(), gone.clone()],
        &input,
        &gone,
        "cannot read",
    );
    let damaged = dir.join("damaged.part");
    let mut bytes = std::fs::read(&parts[1]).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 1;
    std::fs::write(&damaged, bytes).unwrap();
    refused(
        vec![parts[0].clone(), damaged.clone(), parts[2].clone()],
        &input,
        &damaged,
        "damaged",
    );
    let twice = vec![parts[0].clone(), parts[1].clone(), parts[1].clone()];
    refused(twice, &input, &parts[1], "given twice");
    let mut other = input.clone();
    other.settings.siblings = true;
    refused(parts.clone(), &other, &parts[0], "options");
    merge(&input, parts, &out).unwrap();
}

/// Corpus BSPs with visibility, smallest first, up to `max` one-way-portal-ish bytes.
fn corpus_bsps() -> Option<Vec<PathBuf>> {
    let root = srcmap_corpus::root("the sharded vis corpus test")?;
    Some(srcmap_corpus::files(&root, "bsp", |p| {
        srcmap_corpus::has_extension(p, "bsp")
    }))
}

/// Portals rebuilt from the tree of each corpus BSP with visibility and few enough portals
/// for a test; N = 1, 2, 4, 7.
#[test]
fn merged_shards_equal_one_run_on_the_corpus() {
    let Some(paths) = corpus_bsps() else { return };
    let max_portals: usize = std::env::var("SRCMAP_SHARD_MAX_PORTALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    let mut judged = 0;
    for (i, path) in paths.iter().enumerate() {
        let Ok(bsp) = srcmap_bsp::Bsp::parse(&std::fs::read(path).unwrap()) else {
            continue;
        };
        if bsp.visibility.as_ref().is_none_or(|v| v.num_clusters == 0) {
            continue;
        }
        let Ok(portals) = srcmap_vvis::tree::portals_from_bsp(&bsp) else {
            continue;
        };
        if portals.portals.len() > max_portals {
            continue;
        }
        let dir = temp(&format!("corpus{i}"));
        check_identical(&input(path, false), &dir, &[1, 2, 4, 7]);
        judged += 1;
        let _ = std::fs::remove_dir_all(&dir);
    }
    eprintln!("sharded vis identical on {judged} corpus maps");
    assert!(judged > 0, "no corpus BSP with visibility");
}
