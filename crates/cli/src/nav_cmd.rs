//! `info`, `convert` and `nav` subcommands for NAV files.

use std::path::{Path, PathBuf};

#[derive(Debug, clap::Subcommand)]
pub enum NavCommand {
    /// Per-place and per-attribute counts and bounds of a NAV file.
    Info {
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
}

pub fn info(path: &Path, _data: &[u8], _json: bool) -> anyhow::Result<()> {
    anyhow::bail!("{}: NAV support is under construction", path.display())
}
pub fn convert(args: &crate::ConvertArgs, _data: &[u8]) -> anyhow::Result<()> {
    anyhow::bail!("{}: NAV support is under construction", args.input.display())
}
pub fn run(_cmd: NavCommand) -> anyhow::Result<()> {
    anyhow::bail!("NAV support is under construction")
}
