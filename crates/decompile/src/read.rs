//! Reading a BSP for decompiling: only the lumps the map's source is rebuilt from (lighting,
//! visibility and collision are the compiler's own and skipped unread), leniently: a lump
//! that does not parse (stripped, truncated, a layout we do not know) is left empty and
//! named, so the rest still decompiles. The pakfile is read only for the patch VMTs of
//! materials the compiler renamed.

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
    // Hammer's side ids: which displacements were sides of one brush.
    FACEIDS,
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
    let mut notes = Vec::new();
    let mut bsp = match Bsp::parse_only(data, &|l| NEEDED.contains(&l)) {
        Ok(bsp) => bsp,
        Err(_) => lump_by_lump(data, &mut notes)?,
    };
    if has_patched_materials(&bsp) {
        match Bsp::parse_only(data, &|l| l == PAKFILE) {
            Ok(pak) => bsp.pakfile = pak.pakfile,
            Err(e) => notes.push(format!(
                "lump PAKFILE unreadable, patched materials named by their suffixes: {e}"
            )),
        }
    }
    Ok((bsp, notes))
}

/// The needed lumps that parse, each that does not named in `notes`.
fn lump_by_lump(data: &[u8], notes: &mut Vec<String>) -> Result<Bsp, DecompileError> {
    let mut bad = Vec::new();
    for &lump in NEEDED {
        if let Err(e) = Bsp::parse_only(data, &|l| l == lump) {
            notes.push(format!(
                "lump {} ({lump}) unreadable, left out: {e}",
                lump_name(lump)
            ));
            bad.push(lump);
        }
    }
    Ok(Bsp::parse_only(data, &|l| {
        NEEDED.contains(&l) && !bad.contains(&l)
    })?)
}

/// The compiler renamed some material (`maps/<map>/…`): only then is the pakfile, often the
/// biggest lump and compressed, worth reading for the patch VMTs.
fn has_patched_materials(bsp: &Bsp) -> bool {
    (0..bsp.texdata.len()).any(|i| {
        bsp.texdata_name(i)
            .and_then(|n| n.get(..5))
            .is_some_and(|p| p.eq_ignore_ascii_case("maps/") || p.eq_ignore_ascii_case("maps\\"))
    })
}
