//! Sharded lighting on files: for N = 1, 2, 4, 7 shards, the merged BSP is the BSP
//! `srcmap vrad` writes, byte for byte; on the project's small maps (compiled with vbsp and
//! vvis, so light bounces) with LDR and HDR, and on corpus BSPs when `SRCMAP_CORPUS` is set.
//! A merge with a part missing, damaged, of another run or given twice is refused naming it,
//! and writes nothing.

use std::path::{Path, PathBuf};

use srcmap_driver::{
    DriverError, NoMessages, RadMergeJob, RadSettings, RadShardJob, VisSettings, VradJob, VvisJob,
};
mod common;
use srcmap_shard::Shard;
use srcmap_stage::NoProgress;

fn temp(name: &str) -> PathBuf {
    common::fresh_dir("radshard", name)
}

/// `map` (a VMF of the project) compiled by vbsp and vvis into `dir`.
fn compiled(map: &str, dir: &Path) -> PathBuf {
    let bsp = common::compiled(map, dir);
    let vis = VvisJob {
        bsp: bsp.clone(),
        output: None,
        prt: None,
        no_prt: false,
        settings: VisSettings::default(),
    };
    srcmap_driver::vvis(&vis, &NoProgress).unwrap();
    bsp
}

fn job(bsp: &Path, settings: RadSettings) -> VradJob {
    VradJob {
        bsp: bsp.to_path_buf(),
        settings,
        quiet: true,
        ..Default::default()
    }
}

/// `srcmap vrad BSP -o OUT`'s bytes.
fn unsharded(job: &VradJob, dir: &Path) -> Vec<u8> {
    let out = dir.join("whole.bsp");
    let whole = VradJob {
        output: Some(out.clone()),
        ..job.clone()
    };
    srcmap_driver::vrad(&whole, &NoProgress, &NoMessages).unwrap();
    std::fs::read(out).unwrap()
}

/// The parts of `n` shards, one after another.
fn run_shards(job: &VradJob, dir: &Path, n: u32) -> Vec<PathBuf> {
    (0..n)
        .map(|index| {
            let shard = RadShardJob {
                job: job.clone(),
                shard: Shard { index, count: n },
                part: dir.join(format!("rad.{index}.part")),
            };
            srcmap_driver::rad_shard(&shard, &NoProgress, &NoMessages).unwrap();
            shard.part
        })
        .collect()
}

fn merge(job: &VradJob, parts: Vec<PathBuf>, out: &Path) -> Result<Vec<u8>, DriverError> {
    let merge = RadMergeJob {
        job: VradJob {
            output: Some(out.to_path_buf()),
            ..job.clone()
        },
        parts,
    };
    srcmap_driver::rad_merge(&merge, &NoProgress, &NoMessages)?;
    Ok(std::fs::read(out).unwrap())
}

/// For each N, the merge equals the unsharded BSP.
fn check_identical(job: &VradJob, dir: &Path, counts: &[u32]) {
    let whole = unsharded(job, dir);
    for &n in counts {
        let run = dir.join(format!("n{n}"));
        std::fs::create_dir_all(&run).unwrap();
        let parts = run_shards(job, &run, n);
        let merged = merge(job, parts, &run.join("merged.bsp")).unwrap();
        assert!(
            merged == whole,
            "{}: {n} shards differ from one run",
            job.bsp.display()
        );
    }
}

fn settings() -> RadSettings {
    RadSettings {
        threads: 2,
        both: true,
        ..Default::default()
    }
}

#[test]
fn merged_shards_equal_one_run_on_the_small_maps() {
    for map in common::SMALL_MAPS {
        let dir = temp(Path::new(map).file_stem().unwrap().to_str().unwrap());
        let bsp = compiled(map, &dir);
        check_identical(&job(&bsp, settings()), &dir, &[1, 2, 4, 7]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_merge_refuses_missing_damaged_foreign_and_doubled_parts_and_writes_nothing() {
    let dir = temp("refuse");
    let bsp = compiled("testdata/maps/features.vmf", &dir);
    let job = job(&bsp, settings());
    let parts = run_shards(&job, &dir, 3);
    let out = dir.join("merged.bsp");
    let refused = |parts: Vec<PathBuf>, job: &VradJob, names: &Path, says: &str| {
        let e = merge(job, parts, &out).unwrap_err().to_string();
        assert!(
            e.contains(&names.display().to_string()) && e.contains(says),
            "{e}"
        );
        assert!(!out.exists(), "{e}: wrote the output");
    };
    refused(parts[..2].to_vec(), &job, &dir, "shard 2/3 is missing");
    let gone = dir.join("gone.part");
    let with_gone = vec![parts[0].clone(), parts[1].clone(), gone.clone()];
    refused(with_gone, &job, &gone, "cannot read");
    let damaged = dir.join("damaged.part");
    let mut bytes = std::fs::read(&parts[1]).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 1;
    std::fs::write(&damaged, bytes).unwrap();
    let with_damaged = vec![parts[0].clone(), damaged.clone(), parts[2].clone()];
    refused(with_damaged, &job, &damaged, "damaged");
    let twice = vec![parts[0].clone(), parts[1].clone(), parts[1].clone()];
    refused(twice, &job, &parts[1], "given twice");
    let mut other = job.clone();
    other.settings.fast = true;
    refused(parts.clone(), &other, &parts[0], "options");
    let vis_part = dir.join("vis.part");
    let foreign = Shard { index: 0, count: 3 };
    std::fs::write(&vis_part, foreign_part(foreign)).unwrap();
    refused(
        vec![vis_part.clone(), parts[1].clone(), parts[2].clone()],
        &job,
        &vis_part,
        "stage",
    );
    merge(&job, parts, &out).unwrap();
}

/// A part of another stage (vis) for shard `shard`.
fn foreign_part(shard: Shard) -> Vec<u8> {
    let header = srcmap_shard::Header {
        stage: "vvis".into(),
        input: 0,
        options: String::new(),
        shard,
    };
    srcmap_shard::Part {
        header,
        payload: Vec::new(),
    }
    .to_bytes()
}

/// Corpus BSPs with visibility data and at most `SRCMAP_RAD_SHARD_MAX_FACES` faces (default
/// 3000), fast lighting; N = 1, 2, 4, 7.
#[test]
fn merged_shards_equal_one_run_on_the_corpus() {
    let Some(root) = srcmap_corpus::root("the sharded vrad corpus test") else {
        return;
    };
    let max_faces: usize = std::env::var("SRCMAP_RAD_SHARD_MAX_FACES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    let paths = srcmap_corpus::files(&root, "bsp", |p| srcmap_corpus::has_extension(p, "bsp"));
    let mut judged = 0;
    for (i, path) in paths.iter().enumerate() {
        let Ok(bsp) = srcmap_bsp::Bsp::parse(&std::fs::read(path).unwrap()) else {
            continue;
        };
        let has_vis = bsp.visibility.as_ref().is_some_and(|v| v.num_clusters > 0);
        if !has_vis || bsp.faces.is_empty() || bsp.faces.len() > max_faces {
            continue;
        }
        let dir = temp(&format!("corpus{i}"));
        let fast = RadSettings {
            fast: true,
            threads: 2,
            ..Default::default()
        };
        check_identical(&job(path, fast), &dir, &[1, 2, 4, 7]);
        judged += 1;
        let _ = std::fs::remove_dir_all(&dir);
    }
    eprintln!("sharded vrad identical on {judged} corpus maps");
    assert!(judged > 0, "no corpus BSP with visibility and few enough faces");
}
