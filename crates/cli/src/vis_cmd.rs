//! `vvis`: visibility (PVS/PAS) for a BSP, from `MAP.prt` beside it or from the BSP's own tree.

use std::path::PathBuf;

use srcmap_driver::{VisSettings, VvisJob};
use srcmap_stage::total_line;
use srcmap_vvis::Report;

use crate::output::print_json;
use crate::progress::{Bar, print_line};

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
    #[command(flatten)]
    pub vis: VisFlags,
    /// Worker threads (0 = all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Game directory (Valve's -game, -vproject): accepted for Valve's command lines; vis
    /// reads nothing from the game.
    #[arg(long, alias = "vproject")]
    pub game: Option<PathBuf>,
    /// Portal file to read (default: MAP.prt beside the BSP; without one, portals are rebuilt
    /// from the BSP's tree).
    #[arg(long)]
    pub prt: Option<PathBuf>,
    /// Ignore any .prt file and rebuild portals from the BSP's tree.
    #[arg(long)]
    pub no_prt: bool,
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

/// Vis's own flags, shared by `srcmap vvis` and `srcmap compile`.
#[derive(Debug, Default, Clone, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct VisFlags {
    /// A quicker full pass: what a cluster's other finished portals see counts as already
    /// seen (about a third fewer walk states). The PVS may gain a few pairs, never loses one,
    /// so it differs slightly from vvis's.
    #[arg(long, conflicts_with = "fast")]
    pub siblings: bool,
    /// A vis radius regardless of env_fog_controller's farz (vvis -radius_override).
    #[arg(long, value_parser = crate::usage::finite_f64)]
    pub radius_override: Option<f64>,
}

impl VisFlags {
    /// The driver's settings for these flags and the run's.
    pub fn settings(&self, fast: bool, threads: Option<usize>, verify: bool) -> VisSettings {
        VisSettings {
            fast,
            siblings: self.siblings,
            threads: threads.unwrap_or(0),
            radius_override: self.radius_override,
            verify,
        }
    }
}

impl VvisArgs {
    fn job(&self) -> VvisJob {
        VvisJob {
            bsp: self.bsp.clone(),
            output: self.output.clone(),
            prt: self.prt.clone(),
            no_prt: self.no_prt,
            settings: self.vis.settings(self.fast, self.threads, self.verify),
        }
    }
}

/// `srcmap vvis`: the BSP's visibility computed and written, then the report printed.
pub fn vvis(args: &VvisArgs) -> anyhow::Result<()> {
    let progress = Bar::new(args.quiet);
    let run = srcmap_driver::vvis(&args.job(), &progress)?;
    if args.json {
        print_json(&run.report)?;
    } else if !args.quiet {
        print_summary(&run.report, &run.output, run.prt.as_deref());
    }
    if !args.quiet {
        print_line(&total_line("vvis", &run.output, run.seconds));
    }
    Ok(())
}

/// The two lines `srcmap vvis` prints after a run.
fn print_summary(report: &Report, out: &std::path::Path, prt_path: Option<&std::path::Path>) {
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
        "average clusters visible {:.1}, visibility lump {} bytes, {} threads",
        report.count("visible_pairs") as f64 / clusters.max(1) as f64,
        report.count("vis_bytes"),
        report.count("threads")
    );
}
