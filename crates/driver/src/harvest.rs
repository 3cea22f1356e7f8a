//! `srcmap materials extract`: a material table learnt from compiled maps.

use std::path::{Path, PathBuf};

use srcmap_content::detail_vbsp::DetailTypes;
use srcmap_materials::MaterialTable;
use srcmap_vrad::Range;

use crate::error::DriverError;
use crate::files::{read, refuse_overwriting};
use crate::messages::Messages;

/// Every map's facts merged into one table (its `conflicts` listing where maps disagree); with
/// `detail_file`, each material's detail type learnt from the maps' detail props. None of the
/// inputs may be `output`.
pub fn extract_table(
    bsps: &[PathBuf],
    output: &Path,
    detail_file: Option<&Path>,
    messages: &dyn Messages,
) -> Result<MaterialTable, DriverError> {
    let detail_types = detail_file.map(crate::materials::load_detail_file).transpose()?;
    for path in bsps.iter().map(|p| p.as_path()).chain(detail_file) {
        refuse_overwriting(path, output)?;
    }
    let mut table = MaterialTable::new();
    for path in bsps {
        let data = read(path)?;
        let bsp = srcmap_bsp::Bsp::parse(&data).map_err(|error| DriverError::Bsp {
            path: path.clone(),
            error: Box::new(error),
        })?;
        learn_map(&mut table, path, &bsp, detail_types.as_ref(), messages);
    }
    Ok(table)
}

/// What one compiled map teaches the table: its materials' facts with the texture-light values
/// Valve's VRAD used, its patched materials and sky, and (given the detail file) detail types.
fn learn_map(
    table: &mut MaterialTable,
    path: &Path,
    bsp: &srcmap_bsp::Bsp,
    detail_types: Option<&DetailTypes>,
    messages: &dyn Messages,
) {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut entries = srcmap_materials::harvest_bsp(&name, bsp);
    let emits = texture_lights(bsp);
    for (material, entry) in entries.iter_mut() {
        entry.emit = emits
            .get(material, Range::Ldr)
            .or_else(|| emits.get(material, Range::Hdr))
            .map(|v| v.to_array());
    }
    table.merge(entries);
    table.learn_patches(&name, bsp);
    if let Some(types) = detail_types {
        learn_detail_types(table, path, &name, bsp, types, messages);
    }
}

/// Texture lights: the values Valve's VRAD used, recovered from the map's emit_surface world
/// lights (LDR lump, else HDR).
fn texture_lights(bsp: &srcmap_bsp::Bsp) -> srcmap_vrad::TexLights {
    let faces = srcmap_vrad::faces::build_faces(bsp);
    let emits = srcmap_vrad::texlights::harvest_bsp(bsp, &faces, Range::Ldr);
    if emits.is_empty() {
        return srcmap_vrad::texlights::harvest_bsp(bsp, &faces, Range::Hdr);
    }
    emits
}

/// Each material's `%detailtype`, from the detail props the map holds.
fn learn_detail_types(
    table: &mut MaterialTable,
    path: &Path,
    name: &str,
    bsp: &srcmap_bsp::Bsp,
    types: &DetailTypes,
    messages: &dyn Messages,
) {
    let stem = path
        .file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    for (material, ty) in srcmap_vbsp::detail_props::infer_detail_types(bsp, types, &stem) {
        if !table.set_detail_type(&material, &ty) {
            messages.line(&format!(
                "{name}: {material} has detail type {ty} but is not in the table"
            ));
        }
    }
}
