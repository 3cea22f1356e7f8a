//! `vrad`: lighting for a BSP.

use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct VradArgs {
    /// The BSP to light (rewritten in place).
    pub bsp: PathBuf,
}

pub fn vrad(args: &VradArgs) -> anyhow::Result<()> {
    anyhow::bail!("{}: vrad is not built yet", args.bsp.display())
}
