//! `vbsp` and `compile`: the map compiler's stages; the flags of each stage, and CompilePal's
//! presets.

use std::path::PathBuf;

use srcmap_driver::{CompileJob, CompileProgress, VbspJob};
use srcmap_vbsp::Only;

use crate::output::{Stderr, print_json};
use crate::progress::Bar;
use crate::rad_cmd::{RadFlags, RunFlags};
use crate::vis_cmd::VisFlags;

#[derive(Debug, Clone, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct VbspArgs {
    /// The map source.
    pub map: PathBuf,
    /// Output BSP (default: the map's path with `.bsp`).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Game directory (with gameinfo.txt): materials' compile flags, texture sizes and
    /// reflectivity from its VPKs and loose files (Valve's -game, -vproject).
    #[arg(long, alias = "vproject")]
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
    #[arg(long, conflicts_with = "fulldetail")]
    pub nodetail: bool,
    /// func_detail brushes are structural: they split the tree and block vis (Valve's
    /// -fulldetail).
    #[arg(long)]
    pub fulldetail: bool,
    /// Rewrite only the entity lump (and static props) of the BSP compiled earlier at the
    /// output path, from the map; its geometry, vis and lighting stay (Valve's -onlyents; the
    /// map's brush entities must be the ones it was compiled with). stale.txt is added to its
    /// pakfile.
    #[arg(long, conflicts_with = "onlyprops")]
    pub onlyents: bool,
    /// Rewrite only the static and detail props of the BSP compiled earlier at the output
    /// path, from the map (Valve's -onlyprops).
    #[arg(long)]
    pub onlyprops: bool,
    /// A detail.vbsp to place detail props with, instead of the one the map names among the
    /// game's files (with a material table that knows `%detailtype`, detail props without -game)
    #[arg(long)]
    pub detail_file: Option<PathBuf>,
    /// On a leak, write the pointfile and still write the BSP (unfilled, no portal file),
    /// as Valve's VBSP does; the exit status is 0.
    #[arg(long, conflicts_with = "leaktest")]
    pub allowleak: bool,
    /// A leak stops the compile (Valve's -leaktest; srcmap's default without --allowleak).
    #[arg(long)]
    pub leaktest: bool,
    /// Check the compiler's invariants between its passes (always on in debug builds).
    #[arg(long)]
    pub verify: bool,
    /// Worker threads for every stage (0 = all cores), Valve's -threads.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print each stage's report (counts, times, warnings) as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
    /// List every unknown material (by default the warning names the first few); Valve's -v.
    #[arg(long)]
    pub verbose: bool,
}

/// CompilePal's presets: what each adds under the flags given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Preset {
    /// Quick vis and light: -fast.
    Fast,
    /// Each stage's defaults.
    Normal,
    /// A release compile: -final -both -StaticPropLighting -StaticPropPolys -textureshadows.
    Final,
}

impl Preset {
    /// The flags the preset stands for.
    pub fn flags(self) -> &'static [&'static str] {
        match self {
            Preset::Fast => &["-fast"],
            Preset::Normal => &[],
            Preset::Final => &[
                "-final",
                "-both",
                "-StaticPropLighting",
                "-StaticPropPolys",
                "-textureshadows",
            ],
        }
    }
}

#[derive(Debug, Clone, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct CompileArgs {
    #[command(flatten)]
    #[serde(flatten)]
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
    #[command(flatten)]
    #[serde(flatten)]
    pub vis: VisFlags,
    #[command(flatten)]
    #[serde(flatten)]
    pub light: RadFlags,
    /// Flags laid under the others, as CompilePal's presets: fast, normal, or final (a release
    /// compile: -final -both -StaticPropLighting -StaticPropPolys -textureshadows).
    #[arg(long, value_enum)]
    pub preset: Option<Preset>,
    /// Pack the map's custom content into the compiled BSP (`srcmap pack` with the flags below).
    #[arg(long)]
    #[serde(default)]
    pub pack: bool,
    #[command(flatten)]
    #[serde(flatten)]
    pub pack_flags: Box<crate::pack_cmd::PackFlags>,
    /// A config file of flags for this map (default: MAP.srcmap.toml beside the VMF, when
    /// there is one); flags given on the command line win over it, and it over the preset.
    #[arg(long)]
    pub config: Option<PathBuf>,
}

impl VbspArgs {
    fn job(&self) -> VbspJob {
        VbspJob {
            map: self.map.clone(),
            output: self.output.clone(),
            game: self.game.clone(),
            materials: self.materials.clone(),
            no_detail: self.nodetail,
            full_detail: self.fulldetail,
            only: self.only(),
            detail_file: self.detail_file.clone(),
            allow_leak: self.allowleak,
            verify: self.verify,
            threads: self.threads.unwrap_or(0),
            quiet: self.quiet,
            verbose: self.verbose,
            target: self.target.clone(),
        }
    }

    /// -onlyents or -onlyprops.
    fn only(&self) -> Option<Only> {
        match (self.onlyents, self.onlyprops) {
            (true, _) => Some(Only::Entities),
            (_, true) => Some(Only::Props),
            _ => None,
        }
    }
}

impl CompileArgs {
    fn job(&self) -> CompileJob {
        let run = RunFlags {
            fast: self.fast,
            final_: self.final_,
            threads: self.vbsp.threads,
            verify: self.vbsp.verify,
        };
        CompileJob {
            vbsp: self.vbsp.job(),
            vis: (!self.no_vis).then(|| self.vis.settings(self.fast, run.threads, run.verify)),
            rad: (!self.no_rad).then(|| self.light.settings(&run)),
            lights: self.light.lights.clone(),
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

/// `srcmap compile` with its flags already layered over the preset and the map's config file
/// (`compile_config::layered`): vbsp, vvis and vrad in one process on one map in memory; the
/// BSP is written once, at the end. The driver tells every stage's warnings as text.
pub fn compile(args: &CompileArgs) -> anyhow::Result<()> {
    let quiet = args.vbsp.quiet;
    let (vbsp, vvis, vrad) = (Bar::steps("vbsp", quiet), Bar::new(quiet), Bar::new(quiet));
    let progress = CompileProgress {
        vbsp: &vbsp,
        vvis: &vvis,
        vrad: &vrad,
    };
    if args.pack {
        return compile_and_pack(args, &progress);
    }
    let reports = srcmap_driver::compile(&args.job(), &progress, &Stderr)?;
    if args.vbsp.json {
        print_json(&reports)?;
    }
    Ok(())
}

/// `srcmap compile --pack`: the compile, then its BSP packed.
fn compile_and_pack(args: &CompileArgs, progress: &CompileProgress<'_>) -> anyhow::Result<()> {
    let pack = args
        .pack_flags
        .job(PathBuf::new(), args.vbsp.game.clone(), None, false);
    let (reports, packed) = srcmap_driver::compile_and_pack(&args.job(), &pack, progress, &Stderr)?;
    if args.vbsp.json {
        return print_json(&(reports, packed));
    }
    if !args.vbsp.quiet {
        crate::pack_cmd::print_report(&packed, false, false);
    }
    Ok(())
}
