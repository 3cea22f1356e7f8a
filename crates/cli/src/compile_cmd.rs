//! `vbsp` and `compile`: the map compiler's stages.

use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct VbspArgs {
    /// The map source.
    pub map: PathBuf,
    /// Output BSP (default: the map's path with `.bsp`).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Game directory for materials (gameinfo.txt search paths).
    #[arg(long)]
    pub game: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct CompileArgs {
    #[command(flatten)]
    pub vbsp: VbspArgs,
}

pub fn vbsp(args: &VbspArgs) -> anyhow::Result<()> {
    anyhow::bail!("{}: the compiler is under construction", args.map.display())
}
pub fn compile(args: &CompileArgs) -> anyhow::Result<()> {
    vbsp(&args.vbsp)
}
