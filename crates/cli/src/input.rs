//! Reading the files a command is given, naming them in errors.

use std::path::Path;

use anyhow::anyhow;
use srcmap_bsp::Bsp;

/// A file's bytes (an error `--json` reports as kind `read`, naming the file).
pub fn read_file(path: &Path) -> anyhow::Result<Vec<u8>> {
    std::fs::read(path).map_err(|source| {
        srcmap_driver::DriverError::Read {
            path: path.to_path_buf(),
            source,
        }
        .into()
    })
}

/// A BSP file, parsed.
/// A BSP to draw (export, render, view): refused when it exceeds its version's limits or holds
/// values no writer could store (NaN vertices), which the engine refuses too and which would
/// cost without bound (10⁶ entities) or draw as NaN.
pub fn read_bsp(path: &Path) -> anyhow::Result<Bsp> {
    let data = read_file(path)?;
    let bsp = Bsp::parse(&data).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    let refused = srcmap_bsp::check::limit_violations(&bsp)
        .into_iter()
        .chain(srcmap_bsp::check::unwritable(&bsp));
    if let Some(v) = refused.into_iter().next() {
        anyhow::bail!(
            "{}: {v} (the engine refuses this map; `srcmap check` lists every problem)",
            path.display()
        );
    }
    Ok(bsp)
}

/// A note about `map` on stderr (`MAP: note: ...`).
pub fn print_note(map: &Path, note: &str) {
    eprintln!("{}: note: {note}", map.display());
}
