//! `vvis`: visibility for a BSP.

use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct VvisArgs {
    /// The BSP to compute visibility for (rewritten in place).
    pub bsp: PathBuf,
}

pub fn vvis(args: &VvisArgs) -> anyhow::Result<()> {
    anyhow::bail!("{}: vvis is not built yet", args.bsp.display())
}
