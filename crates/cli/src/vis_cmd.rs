//! `vvis`: visibility (PVS/PAS) for a BSP, from `MAP.prt` beside it or from the BSP's own tree.

use std::path::PathBuf;
use std::time::Instant;

use srcmap_vvis::{Options, Report, Threads};

#[derive(Debug, clap::Args)]
pub struct VvisArgs {
    /// The BSP to compute visibility for (rewritten in place unless --output is given).
    pub bsp: PathBuf,
    /// Write the result here instead.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Only the quick first pass (a looser, conservative PVS), like vvis -fast.
    #[arg(long)]
    pub fast: bool,
    /// A quicker full pass: what a cluster's other finished portals see counts as already
    /// seen (about a third fewer walk states). The PVS may gain a few pairs, never loses one,
    /// so it differs slightly from vvis's.
    #[arg(long, conflicts_with = "fast")]
    pub siblings: bool,
    /// Worker threads (0 = all cores).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Portal file to read (default: MAP.prt beside the BSP; without one, portals are rebuilt
    /// from the BSP's tree).
    #[arg(long)]
    pub prt: Option<PathBuf>,
    /// Ignore any .prt file and rebuild portals from the BSP's tree.
    #[arg(long)]
    pub no_prt: bool,
    /// A vis radius regardless of env_fog_controller's farz (vvis -radius_override).
    #[arg(long, value_parser = crate::finite_f64)]
    pub radius_override: Option<f64>,
    /// No progress output.
    #[arg(long, short)]
    pub quiet: bool,
    /// Print the run's report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Check the invariants between passes (always on in debug builds).
    #[arg(long)]
    pub verify: bool,
}

pub fn vvis(args: &VvisArgs) -> anyhow::Result<()> {
    let input =
        std::fs::read(&args.bsp).map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", args.bsp.display()))?;
    let prt_path = match (&args.prt, args.no_prt) {
        (_, true) => None,
        (Some(p), false) => Some(p.clone()),
        (None, false) => Some(args.bsp.with_extension("prt")).filter(|p| p.is_file()),
    };
    let prt_text = match &prt_path {
        Some(p) => Some(
            std::fs::read_to_string(p).map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", p.display()))?,
        ),
        None => None,
    };
    // The BSP is lit in place by default; the portal file is only read.
    if let Some(prt) = &prt_path {
        crate::refuse_overwriting(prt, args.output.as_ref().unwrap_or(&args.bsp))?;
    }
    let options = Options {
        fast: args.fast,
        threads: Threads(args.threads),
        radius_override: args.radius_override,
        verify: args.verify,
        flow: if args.siblings {
            srcmap_vvis::FlowKind::FastSiblings
        } else {
            srcmap_vvis::FlowKind::Fast
        },
        ..Default::default()
    };
    let progress = crate::progress::Bar::new(args.quiet || args.json);
    let start = Instant::now();
    let (bytes, mut report) = srcmap_vvis::vis_bsp(&input, prt_text.as_deref(), &options, &progress)
        .map_err(|e| {
            let source = prt_path
                .as_ref()
                .filter(|_| matches!(e, srcmap_vvis::VvisError::Prt { .. }));
            anyhow::anyhow!("{}: {e}", source.unwrap_or(&args.bsp).display())
        })?;
    let out = args.output.as_ref().unwrap_or(&args.bsp);
    crate::write_output(out, &bytes)?;
    let total = start.elapsed().as_secs_f64();
    if args.json {
        report.time("total", start.elapsed());
        crate::print_json(&report)?;
    } else if !args.quiet {
        print_summary(&report, out, prt_path.as_deref(), total);
    }
    Ok(())
}

/// The two lines `srcmap vvis` prints after a run.
fn print_summary(report: &Report, out: &std::path::Path, prt_path: Option<&std::path::Path>, total: f64) {
    let source = if report.count("portals_from_prt") == 1 {
        format!(
            "portals from {}",
            prt_path.map_or(String::new(), |p| p.display().to_string())
        )
    } else {
        "portals rebuilt from the BSP tree".to_string()
    };
    let clusters = report.count("clusters");
    eprintln!(
        "{}: {clusters} clusters, {} portals ({source}){}{}",
        out.display(),
        report.count("portals"),
        if report.count("fast") == 1 {
            ", fast vis"
        } else {
            ""
        },
        report
            .get("radius")
            .map_or(String::new(), |r| format!(", vis radius {r}")),
    );
    eprintln!(
        "average clusters visible {:.1}, visibility lump {} bytes, {} threads, {total:.2} s",
        report.count("visible_pairs") as f64 / clusters.max(1) as f64,
        report.count("vis_bytes"),
        report.count("threads")
    );
}
