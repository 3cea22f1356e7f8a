//! Reading a BSP leniently: a lump that does not parse (stripped, truncated, a layout we do not
//! know) is left empty and named, so the rest still decompiles.

use srcmap_bsp::{Bsp, BspFile, HEADER_LUMPS, lump_name};

use crate::DecompileError;

/// The BSP with every lump that parses, and one note per lump that does not.
pub(crate) fn read_lenient(data: &[u8]) -> Result<(Bsp, Vec<String>), DecompileError> {
    let file = BspFile::parse(data)?;
    if let Ok(bsp) = Bsp::from_file(&file) {
        return Ok((bsp, Vec::new()));
    }
    let mut bad = Vec::new();
    let mut notes = Vec::new();
    for lump in 0..HEADER_LUMPS {
        if let Err(e) = Bsp::parse_only(data, &|l| l == lump) {
            notes.push(format!(
                "lump {} ({lump}) unreadable, left out: {e}",
                lump_name(lump)
            ));
            bad.push(lump);
        }
    }
    let bsp = Bsp::parse_only(data, &|l| !bad.contains(&l))?;
    Ok((bsp, notes))
}
