//! Full-vis benchmark on the corpus BSPs with the most portals: our flow against a straight
//! reimplementation of Valve's (the reference), in the same run, with the results compared.
//! Portals are rebuilt from each BSP's tree.
//!
//! `SRCMAP_CORPUS=/path/to/corpus cargo bench -p srcmap-vvis --bench flow`
//! Environment: `VIS_BENCH_MAPS` (how many of the largest maps, default 3), `VIS_BENCH_THREADS`
//! (default: all cores), `VIS_BENCH_REFERENCE=0` to skip the reference, `VIS_BENCH_ONLY`
//! (comma-separated substrings of the map paths to run).
//!
//! Columns: `flow_s`/`ref_s` wall seconds of our flow and of the reference, `flow_cpu`/`ref_cpu`
//! CPU seconds of the whole computation (all threads), `x_wall`/`x_cpu` the speed-ups, `same`
//! `true` when both PVS/PAS are identical, else how many ordered cluster pairs of the PVS
//! differ, `busy` our CPU time over flow wall time × threads (the
//! work split over the cores; other processes on a shared machine lower it too).

use std::path::PathBuf;
use std::time::Instant;

use srcmap_bsp::Bsp;
use srcmap_vvis::{FlowKind, NoProgress, Options, Threads, compute, tree, vis_radius};

/// CPU seconds this process has used (user + system, all threads), from /proc on Linux; the
/// machine may be shared, so CPU time measures the work where wall time measures the wait.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return f64::NAN;
    };
    // Fields after the parenthesised command name; utime and stime are the 12th and 13th.
    let Some(rest) = stat.rsplit_once(')').map(|r| r.1) else {
        return f64::NAN;
    };
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(f64::NAN);
    (ticks(11) + ticks(12)) / 100.0
}

fn main() {
    let Some(root) = std::env::var_os("SRCMAP_CORPUS") else {
        println!("SRCMAP_CORPUS is not set; nothing to benchmark");
        return;
    };
    let env = |k: &str| std::env::var(k).ok();
    let count: usize = env("VIS_BENCH_MAPS").and_then(|s| s.parse().ok()).unwrap_or(3);
    let threads = Threads(env("VIS_BENCH_THREADS").and_then(|s| s.parse().ok()).unwrap_or(0));
    let reference = env("VIS_BENCH_REFERENCE").is_none_or(|s| s != "0");
    let only = env("VIS_BENCH_ONLY");
    let mut maps = Vec::new();
    let dir = PathBuf::from(root).join("bsp");
    for owner in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        for f in std::fs::read_dir(owner.path()).into_iter().flatten().flatten() {
            let path = f.path();
            if path.extension().is_none_or(|e| e != "bsp") {
                continue;
            }
            let name = path.to_string_lossy();
            if only
                .as_ref()
                .is_some_and(|o| !o.split(',').any(|o| name.contains(o)))
            {
                continue;
            }
            let Ok(bytes) = std::fs::read(&path) else { continue };
            let Ok(bsp) = Bsp::parse(&bytes) else { continue };
            if bsp.visibility.as_ref().is_none_or(|v| v.num_clusters == 0) {
                continue;
            }
            let t = Instant::now();
            let Ok(portals) = tree::portals_from_bsp(&bsp) else {
                continue;
            };
            maps.push((
                portals.portals.len(),
                path,
                portals,
                vis_radius(&bsp),
                t.elapsed().as_secs_f64(),
            ));
        }
    }
    maps.sort_by_key(|m| std::cmp::Reverse(m.0));
    maps.truncate(count);
    println!(
        "{:<26} {:>7} {:>8} {:>7} {:>7} {:>8} {:>8} {:>8} {:>8} {:>7} {:>7} {:>7} {:>7} {:>5}",
        "map",
        "portals",
        "clusters",
        "tree_s",
        "base_s",
        "flow_s",
        "flow_cpu",
        "ref_s",
        "ref_cpu",
        "x_wall",
        "x_cpu",
        "same",
        "threads",
        "busy"
    );
    for (n, path, portals, radius, tree_s) in maps {
        let name = path.file_stem().unwrap_or_default().to_string_lossy().to_string();
        let opts = Options {
            threads,
            ..Default::default()
        };
        let cpu = cpu_seconds();
        let (ours, report) = compute(&portals, true, radius, &opts, &NoProgress).expect("vis");
        let flow_cpu = cpu_seconds() - cpu;
        let (mut ref_s, mut ref_cpu, mut same, mut ref_report) =
            (f64::NAN, f64::NAN, String::from("-"), None);
        if reference {
            let opts = Options {
                threads,
                flow: FlowKind::Reference,
                ..Default::default()
            };
            let cpu = cpu_seconds();
            let (r, rr) = compute(&portals, true, radius, &opts, &NoProgress).expect("vis");
            ref_cpu = cpu_seconds() - cpu;
            ref_s = rr.seconds("flow");
            // Ordered cluster pairs where the two PVS differ ("true": none, and the PAS agree).
            let differ: u32 = r
                .pvs
                .iter()
                .zip(&ours.pvs)
                .map(|(a, b)| {
                    a.words
                        .iter()
                        .zip(&b.words)
                        .map(|(x, y)| (x ^ y).count_ones())
                        .sum::<u32>()
                })
                .sum();
            same = if differ == 0 && r.pas == ours.pas {
                "true".to_string()
            } else {
                format!("{differ}pairs")
            };
            ref_report = Some(rr);
        }
        let flow_s = report.seconds("flow");
        println!(
            "{:<26} {:>7} {:>8} {:>7.3} {:>7.3} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>7.2} {:>7.2} {:>7} {:>7} {:>4.0}%",
            name,
            n,
            report.count("clusters"),
            tree_s,
            report.seconds("base"),
            flow_s,
            flow_cpu,
            ref_s,
            ref_cpu,
            ref_s / flow_s,
            ref_cpu / flow_cpu,
            same,
            report.count("threads"),
            // How much of the threads' wall time was work (the split over the cores; on a shared
            // machine other processes' load lowers it too).
            100.0 * flow_cpu / (flow_s * report.count("threads") as f64)
        );
        println!(
            "    ours:      {}",
            srcmap_vvis::flow::Counters::describe(&report)
        );
        if let Some(rr) = ref_report {
            println!("    reference: {}", srcmap_vvis::flow::Counters::describe(&rr));
        }
    }
}
