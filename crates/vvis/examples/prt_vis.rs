//! Full vis of a PRT1 portal file alone, no BSP: the benchmark mode that runs our flow on
//! another compiler's portals (ericw-tools' `qbsp -q2bsp` writes PRT1 with clusters), so that
//! both vis tools can be timed on the same portals (`scripts/bench_ericw.sh`).
//!
//! `cargo run --release -p srcmap-vvis --example prt_vis -- [--threads N] [--rows OUT] [--siblings] [--shadow]
//! [--reference] [--flow-states N] [--lockstep N] FILE.prt`
//!
//! Given a `.bsp` instead, the portals are rebuilt from its tree (as `srcmap vvis --no-prt`).
//!
//! Prints one line of `key=value` figures: clusters, portals, the visible cluster pairs before
//! and after vvis's symmetry cross-check (each cluster counted as seeing itself), the flow's
//! seconds, a hash of the PVS rows (FNV-1a over their words) to compare runs bit for bit, and the
//! states the walk expanded (`chains`, a measure of work that does not depend on the load) and
//! the most bytes of states one walk held.
//! `--rows OUT` also writes the PVS, one line per cluster listing the clusters it sees;
//! `--siblings` runs [`FlowKind::FastSiblings`], `--shadow` [`FlowKind::FastShadow`], `--reference`
//! [`FlowKind::Reference`]; `--flow-states N` bounds the whole flow at `N` states, 0 not at all
//! ([`Options::flow_budget`]; by default per one-way portal); `--lockstep N` lets walks reuse
//! finished results `N` places back ([`Options::lockstep`]; 1 is vvis `-threads 1`).

use std::time::Instant;

use srcmap_vvis::{FlowBudget, FlowKind, NoProgress, Options, Portals, Threads, compute};

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut threads, mut rows, mut path) = (Threads::ALL, None, None);
    let mut flow = FlowKind::Fast;
    let (mut flow_states, mut lockstep) = (None, None);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--threads" => threads = Threads(args.next().and_then(|s| s.parse().ok()).unwrap_or(0)),
            "--rows" => rows = args.next(),
            "--siblings" => flow = FlowKind::FastSiblings,
            "--shadow" => flow = FlowKind::FastShadow,
            "--reference" => flow = FlowKind::Reference,
            "--lockstep" => lockstep = args.next().and_then(|s| s.parse().ok()),
            "--flow-states" => flow_states = args.next().and_then(|s| s.parse().ok()),
            _ => path = Some(a),
        }
    }
    let Some(path) = path else {
        eprintln!(
            "usage: prt_vis [--threads N] [--rows OUT] [--siblings] [--shadow] [--reference] [--flow-states N] [--lockstep N] FILE.prt"
        );
        std::process::exit(2);
    };
    let (portals, from_tree, radius) = read_portals(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1);
    });
    let options = Options {
        threads,
        flow,
        flow_budget: FlowBudget::from_flag(flow_states),
        lockstep,
        ..Options::default()
    };
    let start = Instant::now();
    let (vis, report) = compute(&portals, from_tree, radius, &options, &NoProgress).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1);
    });
    let seconds = start.elapsed().as_secs_f64();
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for row in &vis.pvs {
        for w in &row.words {
            hash = (hash ^ w).wrapping_mul(0x0100_0000_01b3);
        }
    }
    if let Some(out) = rows {
        let text: String = vis
            .pvs
            .iter()
            .map(|row| {
                let seen: Vec<String> = row.ones().map(|c| c.to_string()).collect();
                seen.join(" ") + "\n"
            })
            .collect();
        std::fs::write(&out, text).unwrap_or_else(|e| {
            eprintln!("{out}: cannot write: {e}");
            std::process::exit(1);
        });
    }
    println!(
        "clusters={} portals={} pairs_before_crosscheck={} pairs={} threads={} flow_s={:.3} total_s={seconds:.3} pvs_hash={hash:016x} states={} walks_cut={} state_bytes_peak={}",
        report.count("clusters"),
        report.count("portals"),
        vis.total_visible,
        report.count("visible_pairs"),
        report.count("threads"),
        report.seconds("flow"),
        report.count("chains"),
        report.count("walks_cut"),
        report.count("state_bytes_peak"),
    );
}

/// The portals of a PRT file, or of a BSP's tree (then rounded as a PRT would be, with the
/// map's vis radius).
fn read_portals(path: &str) -> Result<(Portals, bool, Option<f64>), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read: {e}"))?;
    if !path.to_ascii_lowercase().ends_with(".bsp") {
        let text = String::from_utf8_lossy(&bytes);
        return Ok((Portals::parse_prt(&text).map_err(|e| e.to_string())?, false, None));
    }
    let bsp = srcmap_bsp::Bsp::parse(&bytes).map_err(|e| e.to_string())?;
    let portals = srcmap_vvis::tree::portals_from_bsp(&bsp).map_err(|e| e.to_string())?;
    Ok((portals, true, srcmap_vvis::vis_radius(&bsp)))
}
