//! `info` and `convert` for VMF files.

use std::path::Path;

pub fn info(path: &Path, _data: &[u8], _json: bool) -> anyhow::Result<()> {
    anyhow::bail!("{}: VMF support is under construction", path.display())
}
pub fn convert(args: &crate::ConvertArgs, _data: &[u8]) -> anyhow::Result<()> {
    anyhow::bail!("{}: VMF support is under construction", args.input.display())
}
