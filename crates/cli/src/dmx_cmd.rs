//! `info` and `convert` for DMX and VMAP files.

use std::path::Path;

pub fn info(path: &Path, _data: &[u8], _json: bool) -> anyhow::Result<()> {
    anyhow::bail!("{}: DMX support is under construction", path.display())
}
pub fn convert(args: &crate::ConvertArgs, _data: &[u8]) -> anyhow::Result<()> {
    anyhow::bail!("{}: DMX support is under construction", args.input.display())
}
