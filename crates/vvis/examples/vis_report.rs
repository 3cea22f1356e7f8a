//! Judges srcmap's vis against Valve's on real BSPs: for each BSP given (or every `.bsp` under a
//! folder), rebuild portals from its tree, compute the PVS, and compare with the BSP's own
//! visibility lump; optionally time Valve's flow (the reference) in the same run.
//!
//! `cargo run --release -p srcmap-vvis --example vis_report -- [--reference] [--threads N]
//! [--sight N] [--json] [--lockstep N] PATH...`
//!
//! `--lockstep N`: walks reuse finished results `N` places back ([`Options::lockstep`]; 1 is
//! vvis `-threads 1`).

use std::path::{Path, PathBuf};
use std::time::Instant;

use srcmap_bsp::Bsp;
use srcmap_vvis::{FlowKind, NoProgress, Options, Threads, check, compute, tree, vis_radius};

fn collect(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<_> = std::fs::read_dir(path)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for e in entries {
            collect(&e, out);
        }
    } else if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("bsp")) {
        out.push(path.to_path_buf());
    }
}

/// What the command line asks.
struct Args {
    reference: bool,
    threads: Threads,
    sight: usize,
    json: bool,
    show: usize,
    lockstep: Option<usize>,
    paths: Vec<PathBuf>,
}

fn main() {
    let Some(args) = parse_args() else { return };
    if !args.json {
        println!(
            "{:<48} {:>6} {:>6} {:>9} {:>9} {:>8} {:>9} {:>9} {:>7} {:>6}",
            "map", "clust", "portal", "agree", "ratio", "hidden", "fast_s", "ref_s", "speedup", "sight"
        );
    }
    for path in &args.paths {
        report_map(path, &args);
    }
}

/// The flags and paths; `None` once `--pair OURS VALVE` has run its own report.
fn parse_args() -> Option<Args> {
    let mut args = std::env::args().skip(1);
    let mut out = Args {
        reference: false,
        threads: Threads::ALL,
        sight: 0,
        json: false,
        show: 20,
        lockstep: None,
        paths: Vec::new(),
    };
    while let Some(a) = args.next() {
        match a.as_str() {
            "--pair" => {
                // A BSP from srcmap's own vbsp + vvis (PRT portals) beside Valve's of the map.
                if let (Some(ours), Some(valve)) = (args.next(), args.next()) {
                    pair_report(Path::new(&ours), Path::new(&valve));
                }
                return None;
            }
            "--reference" => out.reference = true,
            "--threads" => out.threads = Threads(args.next().and_then(|s| s.parse().ok()).unwrap_or(0)),
            "--sight" => out.sight = args.next().and_then(|s| s.parse().ok()).unwrap_or(0),
            "--show" => out.show = args.next().and_then(|s| s.parse().ok()).unwrap_or(20),
            "--json" => out.json = true,
            "--lockstep" => out.lockstep = args.next().and_then(|s| s.parse().ok()),
            _ => collect(Path::new(&a), &mut out.paths),
        }
    }
    Some(out)
}

/// One map's vis, computed and judged against its own lump (and the reference flow, with
/// `--reference`), as a table row or a JSON line. Files that are not BSPs with a
/// visibility lump are passed over.
fn report_map(path: &Path, args: &Args) {
    let name = path
        .strip_prefix(path.ancestors().nth(2).unwrap_or(Path::new("")))
        .unwrap_or(path)
        .display()
        .to_string();
    let Ok(bytes) = std::fs::read(path) else { return };
    let Ok(bsp) = Bsp::parse(&bytes) else { return };
    let Some(valve) = bsp.visibility.as_ref().filter(|v| v.num_clusters > 0) else {
        return;
    };
    let t = Instant::now();
    let portals = match tree::portals_from_bsp(&bsp) {
        Ok(p) => p,
        Err(e) => {
            println!("{name}: {e}");
            return;
        }
    };
    let portal_s = t.elapsed().as_secs_f64();
    let radius = vis_radius(&bsp);
    let run = |flow: FlowKind, fast: bool| {
        let opts = Options {
            threads: args.threads,
            flow,
            fast,
            lockstep: args.lockstep,
            ..Default::default()
        };
        let t = Instant::now();
        let out = compute(&portals, true, radius, &opts, &NoProgress).expect("vis");
        (out, t.elapsed().as_secs_f64())
    };
    let ((ours, report), fast_s) = run(FlowKind::Fast, false);
    let ours_vis = ours.to_visibility();
    let (ref_s, same) = if args.reference {
        let ((r, _), ref_s) = run(FlowKind::Reference, false);
        (ref_s, r.pvs == ours.pvs)
    } else {
        (f64::NAN, true)
    };
    let sight = (args.sight > 0)
        .then(|| check::line_of_sight(&bsp, &ours_vis, args.sight, 1).ok())
        .flatten();
    let mut mode = "full";
    let mut compared = check::compare(&ours_vis, valve);
    if compared.as_ref().is_some_and(|a| a.fraction() < 0.99) {
        // Some maps were shipped with `vvis -fast`: judge those against our -fast.
        let quick = run(FlowKind::Fast, true).0.0.to_visibility();
        let q = check::compare(&quick, valve);
        if q.as_ref().map(|q| q.fraction()) > compared.as_ref().map(|a| a.fraction()) {
            (compared, mode) = (q, "fast");
        }
    }
    let Some(a) = compared else {
        println!(
            "{name}: cluster counts differ: ours {} Valve {}",
            ours_vis.num_clusters, valve.num_clusters
        );
        return;
    };
    let row = Row {
        name: &name,
        mode,
        agreement: &a,
        report: &report,
        sight: sight.as_ref(),
        times: (portal_s, fast_s, ref_s),
        same,
        radius,
    };
    if args.json {
        row.print_json();
    } else {
        row.print_table(args.show);
    }
}

/// One map's figures, as [`report_map`] prints them.
struct Row<'a> {
    name: &'a str,
    /// Which of our runs Valve's lump was judged against: "full" or "fast".
    mode: &'a str,
    agreement: &'a check::Agreement,
    report: &'a srcmap_stage::Report,
    sight: Option<&'a check::SightCheck>,
    /// Seconds: portals rebuilt, our flow, the reference flow (NaN when not run).
    times: (f64, f64, f64),
    /// The reference flow's PVS equals ours (true when not run).
    same: bool,
    radius: Option<f64>,
}

impl Row<'_> {
    fn print_json(&self) {
        let (a, report, sight) = (self.agreement, self.report, self.sight);
        let (portal_s, fast_s, ref_s) = self.times;
        println!(
            "{{\"map\":\"{}\",\"valve_mode\":\"{}\",\"clusters\":{},\"portals\":{},\"agree\":{:.6},\"ratio\":{:.4},\"ours_pairs\":{},\"valve_pairs\":{},\"hidden_by_us\":{},\"portal_s\":{portal_s:.3},\"base_s\":{:.3},\"flow_s\":{:.3},\"total_s\":{fast_s:.3},\"reference_s\":{},\"same_as_reference\":{},\"counters\":\"{}\",\"threads\":{},\"radius\":{},\"sight_violations\":{},\"sight_clear\":{}}}",
            self.name,
            self.mode,
            a.clusters,
            report.count("portals"),
            a.fraction(),
            a.ratio(),
            a.ours_visible,
            a.theirs_visible,
            a.hidden_by_us(),
            report.seconds("base"),
            report.seconds("flow"),
            if ref_s.is_nan() {
                "null".into()
            } else {
                format!("{ref_s:.3}")
            },
            self.same,
            srcmap_vvis::flow::Counters::describe(report),
            report.count("threads"),
            self.radius.map_or("null".into(), |r| r.to_string()),
            sight.map_or(0, |s| s.violations.len()),
            sight.map_or(0, |s| s.clear),
        );
    }

    fn print_table(&self, show: usize) {
        let (a, report) = (self.agreement, self.report);
        let (_, fast_s, ref_s) = self.times;
        let sight_txt = self
            .sight
            .map_or("-".to_string(), |s| format!("{}/{}", s.violations.len(), s.clear));
        println!(
            "{:<48} {:>6} {:>6} {:>9.5} {:>9.4} {:>8} {:>9.3} {:>9.3} {:>7.2} {:>6}{}{}",
            self.name,
            a.clusters,
            report.count("portals"),
            a.fraction(),
            a.ratio(),
            a.hidden_by_us(),
            fast_s,
            ref_s,
            ref_s / fast_s,
            sight_txt,
            if self.same {
                ""
            } else {
                "  (DIFFERS FROM REFERENCE)"
            },
            if self.mode == "fast" {
                "  (Valve's lump matches -fast)"
            } else {
                ""
            }
        );
        println!(
            "    {} base {:.3}s flow {:.3}s",
            srcmap_vvis::flow::Counters::describe(report),
            report.seconds("base"),
            report.seconds("flow")
        );
        for d in a.differences.iter().take(show) {
            println!(
                "    cluster {} -> {}: ours {} Valve {}",
                d.0, d.1, d.2 as u8, !d.2 as u8
            );
        }
        if a.differences.len() > show {
            println!("    ... {} more differences", a.differences.len() - show);
        }
    }
}

/// Our compile of a map against Valve's: their clusters differ, so the PVS is judged by what
/// does not depend on numbering: the visible fraction of cluster pairs, a sampled line of sight
/// that the PVS must not deny, and our PRT-based lump against portals rebuilt from our tree.
fn pair_report(ours: &Path, valve: &Path) {
    let load = |p: &Path| std::fs::read(p).ok().and_then(|b| Bsp::parse(&b).ok());
    let (Some(o), Some(v)) = (load(ours), load(valve)) else {
        println!("{}: cannot read", ours.display());
        return;
    };
    let Some(ovis) = o.visibility.as_ref().filter(|x| x.num_clusters > 0) else {
        println!("{}: no visibility", ours.display());
        return;
    };
    let frac = |vis: &srcmap_bsp::Visibility| {
        let n = vis.num_clusters as usize;
        let seen: usize = (0..n)
            .map(|i| (0..n).filter(|&j| vis.can_see(i, j)).count())
            .sum();
        seen as f64 / (n * n).max(1) as f64
    };
    let vfrac = v.visibility.as_ref().filter(|x| x.num_clusters > 0).map(frac);
    let sight = check::line_of_sight(&o, ovis, 2000, 3).ok();
    let rebuilt = tree::portals_from_bsp(&o)
        .ok()
        .and_then(|p| compute(&p, true, vis_radius(&o), &Options::default(), &NoProgress).ok())
        .map(|(c, _)| c.to_visibility());
    let self_agree = rebuilt
        .as_ref()
        .and_then(|r| check::compare(r, ovis))
        .map(|a| a.fraction());
    // Where the cluster counts match, numbering usually does too (same tree order): the judge.
    let judge = v.visibility.as_ref().and_then(|x| check::compare(ovis, x));
    println!(
        "{:<40} clusters ours/Valve {}/{}  visible fraction ours/Valve {:.4}/{}  sight violations {}/{}  PRT vs tree agree {}  judge agree/ratio {}",
        ours.file_name().unwrap_or_default().to_string_lossy(),
        ovis.num_clusters,
        v.visibility.as_ref().map_or(0, |x| x.num_clusters),
        frac(ovis),
        vfrac.map_or("-".into(), |f| format!("{f:.4}")),
        sight.as_ref().map_or(0, |s| s.violations.len()),
        sight.as_ref().map_or(0, |s| s.clear),
        self_agree.map_or("-".into(), |a| format!("{a:.5}")),
        judge.map_or("- (clusters differ)".into(), |a| format!(
            "{:.5}/{:.4}",
            a.fraction(),
            a.ratio()
        )),
    );
}
