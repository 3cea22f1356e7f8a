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
pub fn read_bsp(path: &Path) -> anyhow::Result<Bsp> {
    let data = read_file(path)?;
    Bsp::parse(&data).map_err(|e| anyhow!("{}: {e}", path.display()))
}

/// A note about `map` on stderr (`MAP: note: ...`).
pub fn print_note(map: &Path, note: &str) {
    eprintln!("{}: note: {note}", map.display());
}
