//! `srcmap convert`'s arguments, shared by each format's converter.

use std::path::PathBuf;

use srcmap_dmx::Encoding;

#[derive(Debug, clap::Args)]
pub struct ConvertArgs {
    /// Input file.
    pub input: PathBuf,
    /// Output file (written atomically).
    pub output: PathBuf,
    /// BSP: LZMA-compress every lump on write.
    #[arg(long, conflicts_with = "decompress")]
    pub compress: bool,
    /// BSP: write every lump uncompressed.
    #[arg(long)]
    pub decompress: bool,
    /// DMX: the output encoding (`binary9`, `keyvalues2`, ...); default keeps the input's.
    #[arg(long, value_parser = parse_encoding)]
    pub encoding: Option<String>,
}

/// `--encoding`'s value parser: a name [`Encoding::parse`] knows, so a misspelt one is a usage
/// error before any file is read.
pub fn parse_encoding(name: &str) -> Result<String, String> {
    match Encoding::parse(name) {
        Some(_) => Ok(name.to_string()),
        None => Err(format!(
            "unknown DMX encoding `{name}` (expected binary, binary1-5, binary9, keyvalues2, keyvalues2_1-4)"
        )),
    }
}
