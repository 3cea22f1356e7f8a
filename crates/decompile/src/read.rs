//! Reading a BSP for decompiling: only the lumps the map's source is rebuilt from (lighting,
//! visibility and collision are the compiler's own and skipped unread), leniently: a lump
//! that does not parse (stripped, truncated, a layout we do not know) is left empty and
//! named, so the rest still decompiles.

use srcmap_bsp::lump::*;
use srcmap_bsp::{Bsp, BspFile, lump_name};

use crate::DecompileError;

/// The lumps a decompile reads.
const NEEDED: &[usize] = &[
    ENTITIES,
    PLANES,
    TEXDATA,
    VERTEXES,
    NODES,
    TEXINFO,
    FACES,
    OCCLUSION,
    LEAFS,
    EDGES,
    SURFEDGES,
    MODELS,
    LEAFBRUSHES,
    BRUSHES,
    BRUSHSIDES,
    AREAPORTALS,
    DISPINFO,
    DISP_VERTS,
    GAME_LUMP,
    PAKFILE,
    CLIPPORTALVERTS,
    CUBEMAPS,
    TEXDATA_STRING_DATA,
    TEXDATA_STRING_TABLE,
    OVERLAYS,
    DISP_TRIS,
    FACES_HDR,
    OVERLAY_FADES,
];

/// The BSP with every needed lump that parses, and one note per lump that does not.
pub(crate) fn read_lenient(data: &[u8]) -> Result<(Bsp, Vec<String>), DecompileError> {
    BspFile::parse(data)?;
    if let Ok(bsp) = Bsp::parse_only(data, &|l| NEEDED.contains(&l)) {
        return Ok((bsp, Vec::new()));
    }
    let mut bad = Vec::new();
    let mut notes = Vec::new();
    for &lump in NEEDED {
        if let Err(e) = Bsp::parse_only(data, &|l| l == lump) {
            notes.push(format!(
                "lump {} ({lump}) unreadable, left out: {e}",
                lump_name(lump)
            ));
            bad.push(lump);
        }
    }
    let bsp = Bsp::parse_only(data, &|l| NEEDED.contains(&l) && !bad.contains(&l))?;
    Ok((bsp, notes))
}
