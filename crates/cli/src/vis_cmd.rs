//! `vvis`: visibility (PVS/PAS) for a BSP, from `MAP.prt` beside it or from the BSP's own tree;
//! `--shard I/N -o PART` computes one shard's share of the flow, `vvis merge` joins the parts.

use std::path::PathBuf;
use std::time::Duration;

use srcmap_driver::{VisInput, VisMergeJob, VisSettings, VisShardJob, VvisJob};
use srcmap_shard::Shard;
use srcmap_stage::total_line;
use srcmap_vvis::Report;

use crate::output::{print_json, print_warnings};
use crate::progress::{Bar, print_line};

#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct VvisArgs {
    #[command(subcommand)]
    pub merge: Option<VvisCommand>,
    /// The BSP to compute visibility for (rewritten in place unless --output is given).
    #[arg(required = true)]
    pub bsp: Option<PathBuf>,
    /// Write the result here instead (with --shard: the partial file).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Compute only shard I of N (0-based) of the portal flow and write a partial file
    /// (--output PART) for `srcmap vvis merge`. The shards of a run run side by side and
    /// exchange results through files; one that runs alone still finishes.
    #[arg(long, requires = "output", value_parser = parse_shard)]
    pub shard: Option<Shard>,
    /// With --shard: the folder where the shards of a run exchange results (default: the
    /// part's folder; on a farm, one every shard reaches).
    #[arg(long, requires = "shard")]
    pub exchange: Option<PathBuf>,
    /// With --shard: seconds a shard that gives no sign of life is waited for before its
    /// share is computed here.
    #[arg(long, requires = "shard", default_value_t = 20.0, value_parser = crate::usage::finite_f64)]
    pub patience: f64,
    /// Game directory (Valve's -game, -vproject): accepted for Valve's command lines; vis
    /// reads nothing from the game.
    #[arg(long, alias = "vproject")]
    pub game: Option<PathBuf>,
    #[command(flatten)]
    pub run: VisRunArgs,
}

/// The flags of a vis run, the same for `srcmap vvis`, its shards and `vvis merge` (a merge
/// must be given the flags its shards had).
#[derive(Debug, clap::Args)]
pub struct VisRunArgs {
    /// Only the quick first pass (a looser, conservative PVS), like vvis -fast.
    #[arg(long)]
    pub fast: bool,
    #[command(flatten)]
    pub vis: VisFlags,
    /// Worker threads (0 = all cores).
    #[arg(long)]
    pub threads: Option<usize>,
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
    /// Bound the full pass to N walk states in all (default: 6000 per one-way portal, which
    /// only open maps whose flow explodes reach): walks past their share stop, and the PVS
    /// shows more than full vis (never less) where they did; vvis says how many at the end.
    /// 0: no bound, the exact PVS (its time can explode on open maps).
    #[arg(long, value_name = "N")]
    pub flow_states: Option<u64>,
    /// A portal's walk narrows by the finished results of the portals at least N places
    /// before it in vvis's order (default 3: vvis -threads 2's PVS, the same at any
    /// --threads). 1 gives vvis -threads 1's PVS; Valve's own PVS moves a few pairs with its
    /// thread count.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub lockstep: Option<u64>,
}

impl VisFlags {
    /// The driver's settings for these flags and the run's.
    pub fn settings(&self, fast: bool, threads: Option<usize>, verify: bool) -> VisSettings {
        VisSettings {
            fast,
            siblings: self.siblings,
            threads: threads.unwrap_or(0),
            radius_override: self.radius_override,
            flow_states: self.flow_states,
            lockstep: self.lockstep.map(|n| n as usize),
            verify,
        }
    }
}

/// `srcmap vvis merge`.
#[derive(Debug, clap::Subcommand)]
pub enum VvisCommand {
    /// Joins the partial files of a sharded vis (`srcmap vvis --shard I/N -o PART`) into the
    /// BSP's visibility: the BSP `srcmap vvis` writes, byte for byte. Give the same vis flags
    /// as the shards had; a part missing, damaged or of another run is refused by name.
    Merge(VvisMergeArgs),
}

#[derive(Debug, clap::Args)]
pub struct VvisMergeArgs {
    /// The BSP the shards read (rewritten in place unless --output is given).
    pub bsp: PathBuf,
    /// Every shard's partial file.
    #[arg(required = true)]
    pub parts: Vec<PathBuf>,
    /// Write the result here instead.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub run: VisRunArgs,
}

/// `I/N` as a shard.
fn parse_shard(text: &str) -> Result<Shard, String> {
    Shard::parse(text).map_err(|e| e.to_string())
}

impl VisRunArgs {
    /// The one-machine job these flags ask for, on `bsp`.
    fn job(&self, bsp: PathBuf, output: Option<PathBuf>) -> VvisJob {
        VvisJob {
            bsp,
            output,
            prt: self.prt.clone(),
            no_prt: self.no_prt,
            settings: self.vis.settings(self.fast, self.threads, self.verify),
        }
    }

    /// What a shard and a merge both read: the BSP, its portals and the settings.
    fn input(&self, bsp: PathBuf) -> VisInput {
        let job = self.job(bsp, None);
        VisInput {
            prt: job.prt_path(),
            bsp: job.bsp,
            settings: job.settings,
        }
    }
}

impl VvisArgs {
    fn job(&self) -> VvisJob {
        self.run
            .job(self.bsp.clone().unwrap_or_default(), self.output.clone())
    }

    fn shard_job(&self, shard: Shard) -> VisShardJob {
        VisShardJob {
            input: self.run.input(self.bsp.clone().unwrap_or_default()),
            shard,
            part: self.output.clone().unwrap_or_default(),
            exchange: self.exchange.clone(),
            patience: Duration::from_secs_f64(self.patience.max(0.0)),
        }
    }
}

impl VvisMergeArgs {
    fn job(&self) -> VisMergeJob {
        VisMergeJob {
            input: self.run.input(self.bsp.clone()),
            parts: self.parts.clone(),
            output: self.output.clone(),
        }
    }
}

/// `srcmap vvis`: the BSP's visibility computed and written, then the report printed (or one
/// shard's part, or the merge of the parts).
pub fn vvis(args: &VvisArgs) -> anyhow::Result<()> {
    if let Some(VvisCommand::Merge(merge)) = &args.merge {
        return vvis_merge(merge);
    }
    if let Some(shard) = args.shard {
        return vvis_shard(args, shard);
    }
    let progress = Bar::new(args.run.quiet);
    let run = srcmap_driver::vvis(&args.job(), &progress)?;
    if args.run.json {
        print_json(&run.report)?;
    } else if !args.run.quiet {
        print_summary(&run.report, &run.output, run.prt.as_deref());
    }
    if !args.run.quiet {
        // Last, where a mapper sees it: walks cut by the flow's budget (issue 44).
        print_warnings(&run.report);
        print_line(&total_line("vvis", &run.output, run.seconds));
    }
    Ok(())
}

/// `srcmap vvis --shard I/N -o PART`.
fn vvis_shard(args: &VvisArgs, shard: Shard) -> anyhow::Result<()> {
    let progress = Bar::new(args.run.quiet);
    let run = srcmap_driver::vis_shard(&args.shard_job(shard), &progress)?;
    if args.run.json {
        print_json(&run.report)?;
    } else if !args.run.quiet {
        eprintln!(
            "{}: shard {shard}: {} flow results ({} taken over from stopped shards, {} walks run again)",
            run.output.display(),
            run.records,
            run.taken_over,
            run.report.count("walks_redone")
        );
        print_warnings(&run.report);
        print_line(&total_line("vvis", &run.output, run.seconds));
    }
    Ok(())
}

/// `srcmap vvis merge MAP.bsp PART...`.
fn vvis_merge(args: &VvisMergeArgs) -> anyhow::Result<()> {
    let progress = Bar::new(args.run.quiet);
    let run = srcmap_driver::vis_merge(&args.job(), &progress)?;
    if args.run.json {
        print_json(&run.report)?;
    } else if !args.run.quiet {
        print_summary(&run.report, &run.output, None);
        print_warnings(&run.report);
        print_line(&total_line("vvis merge", &run.output, run.seconds));
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
