//! `vbsp` and `compile`: the map compiler's stages.

use std::path::PathBuf;

use srcmap_driver::{CompileJob, CompileProgress, RadSettings, VbspJob, VisSettings};

use crate::output::{Stderr, print_json};
use crate::progress::Bar;

#[derive(Debug, clap::Args)]
pub struct VbspArgs {
    /// The map source.
    pub map: PathBuf,
    /// Output BSP (default: the map's path with `.bsp`).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Game directory (with gameinfo.txt): materials' compile flags, texture sizes and
    /// reflectivity from its VPKs and loose files.
    #[arg(long)]
    pub game: Option<PathBuf>,
    /// The game to write the BSP for (its version, lump layout, static prop version), when no
    /// -game folder names it: tf (the default), hl2, mapbase, csgo, portal2, left4dead2, ...
    /// (docs/targets.md).
    #[arg(long)]
    pub target: Option<String>,
    /// A material table (`srcmap materials extract`), consulted after -game content and before
    /// the built-in tool-texture rules.
    #[arg(long)]
    pub materials: Option<PathBuf>,
    /// Leave out func_detail brushes.
    #[arg(long)]
    pub nodetail: bool,
    /// A detail.vbsp to place detail props with, instead of the one the map names among the
    /// game's files (with a material table that knows `%detailtype`, detail props without -game)
    #[arg(long)]
    pub detail_file: Option<PathBuf>,
    /// On a leak, write the pointfile and still write the BSP (unfilled, no portal file),
    /// as Valve's VBSP does; the exit status is 0.
    #[arg(long)]
    pub allowleak: bool,
    /// Check the compiler's invariants between its passes (always on in debug builds).
    #[arg(long)]
    pub verify: bool,
    /// Worker threads for every stage (0 = all cores), Valve's -threads.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Print each stage's report (counts, times, warnings) as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
    /// List every unknown material (by default the warning names the first few).
    #[arg(long)]
    pub verbose: bool,
}

#[derive(Debug, clap::Args)]
pub struct CompileArgs {
    #[command(flatten)]
    pub vbsp: VbspArgs,
    /// Skip visibility (every cluster then sees every other).
    #[arg(long)]
    pub no_vis: bool,
    /// Skip lighting.
    #[arg(long)]
    pub no_rad: bool,
    /// Quick vis and light (vvis -fast, vrad -fast).
    #[arg(long, conflicts_with = "final_")]
    pub fast: bool,
    /// Release-quality light (vrad -final).
    #[arg(long = "final")]
    pub final_: bool,
    /// Maximum light bounces.
    #[arg(long)]
    pub bounce: Option<u32>,
}

impl VbspArgs {
    fn job(&self) -> VbspJob {
        VbspJob {
            map: self.map.clone(),
            output: self.output.clone(),
            game: self.game.clone(),
            materials: self.materials.clone(),
            no_detail: self.nodetail,
            detail_file: self.detail_file.clone(),
            allow_leak: self.allowleak,
            verify: self.verify,
            threads: self.threads,
            quiet: self.quiet,
            verbose: self.verbose,
            target: self.target.clone(),
        }
    }
}

impl CompileArgs {
    fn job(&self) -> CompileJob {
        CompileJob {
            vbsp: self.vbsp.job(),
            vis: (!self.no_vis).then_some(VisSettings {
                fast: self.fast,
                threads: self.vbsp.threads,
                verify: self.vbsp.verify,
                ..Default::default()
            }),
            rad: (!self.no_rad).then_some(RadSettings {
                fast: self.fast,
                final_: self.final_,
                bounce: self.bounce,
                threads: self.vbsp.threads,
                verify: self.vbsp.verify,
                ..Default::default()
            }),
        }
    }
}

/// `srcmap vbsp`: stage 1, the BSP and its side files written.
pub fn vbsp(args: &VbspArgs) -> anyhow::Result<()> {
    let report = srcmap_driver::vbsp(&args.job(), &Bar::steps("vbsp", args.quiet), &Stderr)?;
    if args.json {
        print_json(&report)?;
    }
    Ok(())
}

/// `srcmap compile`: vbsp, then vvis, then vrad, in one process on one map in memory; the BSP
/// is written once, at the end.
pub fn compile(args: &CompileArgs) -> anyhow::Result<()> {
    let quiet = args.vbsp.quiet;
    let (vbsp, vvis, vrad) = (Bar::steps("vbsp", quiet), Bar::new(quiet), Bar::new(quiet));
    let progress = CompileProgress {
        vbsp: &vbsp,
        vvis: &vvis,
        vrad: &vrad,
    };
    let reports = srcmap_driver::compile(&args.job(), &progress, &Stderr)?;
    if args.vbsp.json {
        print_json(&reports)?;
    }
    Ok(())
}
