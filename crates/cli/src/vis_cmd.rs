//! `vvis`: visibility (PVS/PAS) for a BSP, from `MAP.prt` beside it or from the BSP's own tree.

use std::path::PathBuf;
use std::time::Instant;

use srcmap_vvis::{Options, PortalSource, Report};

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
    #[arg(long)]
    pub radius_override: Option<f64>,
    /// No progress output.
    #[arg(long, short)]
    pub quiet: bool,
    /// Print the run's report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Visibility for a BSP held in memory (for `srcmap compile`): `prt` is the portal file's text
/// when the compiler wrote one; without it portals are rebuilt from the tree.
pub fn run_vis(
    bsp_bytes: &[u8],
    prt: Option<&str>,
    fast: bool,
    threads: Option<usize>,
    quiet: bool,
) -> anyhow::Result<Vec<u8>> {
    let options = Options {
        fast,
        threads,
        ..Default::default()
    };
    let progress = crate::progress::Bar::new(quiet);
    let (bytes, _report) = srcmap_vvis::vis_bsp(bsp_bytes, prt, &options, &progress)?;
    Ok(bytes)
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
    let options = Options {
        fast: args.fast,
        threads: (args.threads > 0).then_some(args.threads),
        radius_override: args.radius_override,
        ..Default::default()
    };
    let progress = crate::progress::Bar::new(args.quiet || args.json);
    let start = Instant::now();
    let (bytes, report) =
        srcmap_vvis::vis_bsp(&input, prt_text.as_deref(), &options, &progress).map_err(|e| {
            let source = prt_path
                .as_ref()
                .filter(|_| matches!(e, srcmap_vvis::VisError::Prt { .. }));
            anyhow::anyhow!("{}: {e}", source.unwrap_or(&args.bsp).display())
        })?;
    let out = args.output.as_ref().unwrap_or(&args.bsp);
    crate::write_output(out, &bytes)?;
    let total = start.elapsed().as_secs_f64();
    if args.json {
        crate::print_json(&json_report(&report, total))?;
    } else if !args.quiet {
        let source = match report.source {
            PortalSource::PrtFile => format!(
                "portals from {}",
                prt_path
                    .as_ref()
                    .map_or(String::new(), |p| p.display().to_string())
            ),
            PortalSource::RebuiltFromTree => "portals rebuilt from the BSP tree".to_string(),
        };
        eprintln!(
            "{}: {} clusters, {} portals ({source}){}{}",
            out.display(),
            report.clusters,
            report.portals,
            if report.fast { ", fast vis" } else { "" },
            report
                .radius
                .map_or(String::new(), |r| format!(", vis radius {r}")),
        );
        eprintln!(
            "average clusters visible {:.1}, visibility lump {} bytes, {} threads, {total:.2} s",
            report.visible_pairs as f64 / report.clusters.max(1) as f64,
            report.vis_bytes,
            report.threads
        );
    }
    Ok(())
}

fn json_report(r: &Report, total: f64) -> serde_json::Value {
    serde_json::json!({
        "clusters": r.clusters,
        "portals": r.portals,
        "portal_source": match r.source { PortalSource::PrtFile => "prt", PortalSource::RebuiltFromTree => "tree" },
        "fast": r.fast,
        "radius": r.radius,
        "threads": r.threads,
        "visible_pairs": r.visible_pairs,
        "crosscheck_dropped": r.optimized,
        "might_see": r.might_see,
        "chains": r.counters.chains,
        "vis_bytes": r.vis_bytes,
        "seconds": {
            "portals": r.portal_time.as_secs_f64(),
            "base": r.base_time.as_secs_f64(),
            "flow": r.flow_time.as_secs_f64(),
            "clusters": r.cluster_time.as_secs_f64(),
            "total": total,
        },
    })
}
