//! `info`, `convert`, `check`, `lump` and `pak` for BSP files.

use std::path::{Path, PathBuf};

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The BSP to check.
    pub file: PathBuf,
}

#[derive(Debug, clap::Subcommand)]
pub enum LumpCommand {
    /// Write one lump to a Valve `.lmp` file.
    Extract { bsp: PathBuf, lump: String, out: PathBuf },
    /// Replace one lump from a Valve `.lmp` file.
    Replace { bsp: PathBuf, lmp: PathBuf, out: Option<PathBuf> },
}

#[derive(Debug, clap::Subcommand)]
pub enum PakCommand {
    /// List the pakfile's entries.
    List { bsp: PathBuf },
}

pub fn info(path: &Path, _data: &[u8], _json: bool) -> anyhow::Result<()> {
    anyhow::bail!("{}: BSP support is under construction", path.display())
}
pub fn convert(args: &crate::ConvertArgs, _data: &[u8]) -> anyhow::Result<()> {
    anyhow::bail!("{}: BSP support is under construction", args.input.display())
}
pub fn check(args: &CheckArgs) -> anyhow::Result<()> {
    anyhow::bail!("{}: BSP support is under construction", args.file.display())
}
pub fn lump(_cmd: LumpCommand) -> anyhow::Result<()> {
    anyhow::bail!("BSP support is under construction")
}
pub fn pak(_cmd: PakCommand) -> anyhow::Result<()> {
    anyhow::bail!("BSP support is under construction")
}
