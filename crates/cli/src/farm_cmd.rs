//! `farm`: a compile spread over a build farm's scheduler (Slurm).

use std::path::PathBuf;
use std::time::Duration;

use srcmap_driver::farm::SlurmJob;

#[derive(Debug, clap::Subcommand)]
pub enum FarmCommand {
    /// Compiles MAP.vmf as Slurm jobs: vbsp, then vis in N array tasks (`srcmap vvis --shard`)
    /// and their merge, then lighting in N array tasks (`srcmap vrad --shard`) and their merge,
    /// chained by `afterok` dependencies; waits for the chain. The binary and the run folder
    /// must be at the same paths on every node.
    Slurm(SlurmArgs),
}

#[derive(Debug, clap::Args)]
pub struct SlurmArgs {
    pub vmf: PathBuf,
    /// Vis and lighting shards (array tasks of each).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub shards: u32,
    /// The Slurm partition to submit to (default: the cluster's default).
    #[arg(long)]
    pub partition: Option<String>,
    /// The run folder: scripts, logs, parts and the BSP (default: MAP.farm beside the map).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// The srcmap binary the nodes run (default: this one).
    #[arg(long)]
    pub srcmap: Option<PathBuf>,
    /// Runs a failing step may have in all (Slurm requeues it in between).
    #[arg(long, default_value_t = 3)]
    pub tries: u32,
    /// Give up (cancelling the chain) after this many seconds.
    #[arg(long, value_parser = crate::usage::finite_f64)]
    pub timeout: Option<f64>,
    /// Extra arguments for vbsp, vvis and vrad (shards and merge), one string each
    /// (`--rad-args "--fast --bounce 2"`).
    #[arg(long, allow_hyphen_values = true)]
    pub vbsp_args: Option<String>,
    #[arg(long, allow_hyphen_values = true)]
    pub vis_args: Option<String>,
    #[arg(long, allow_hyphen_values = true)]
    pub rad_args: Option<String>,
}

fn words(text: &Option<String>) -> Vec<String> {
    text.iter()
        .flat_map(|t| t.split_whitespace().map(String::from))
        .collect()
}

impl SlurmArgs {
    fn job(&self) -> anyhow::Result<SlurmJob> {
        let srcmap = match &self.srcmap {
            Some(p) => p.clone(),
            None => std::env::current_exe()?,
        };
        let vmf = std::path::absolute(&self.vmf)?;
        let dir = std::path::absolute(self.dir.clone().unwrap_or_else(|| vmf.with_extension("farm")))?;
        Ok(SlurmJob {
            vmf,
            shards: self.shards,
            partition: self.partition.clone(),
            dir,
            srcmap,
            vbsp_args: words(&self.vbsp_args),
            vis_args: words(&self.vis_args),
            rad_args: words(&self.rad_args),
            tries: self.tries.max(1),
            poll: Duration::from_secs(2),
            timeout: self.timeout.map(|s| Duration::from_secs_f64(s.max(0.0))),
        })
    }
}

/// `srcmap farm slurm`: submits the chain, waits, prints the jobs and the BSP.
pub fn run(cmd: FarmCommand) -> anyhow::Result<()> {
    let FarmCommand::Slurm(args) = cmd;
    let run = srcmap_driver::farm::submit(&args.job()?)?;
    for (step, id) in &run.jobs {
        eprintln!("{step}: job {id}");
    }
    eprintln!("{}: compiled on Slurm in {:.1}s", run.bsp.display(), run.seconds);
    Ok(())
}
