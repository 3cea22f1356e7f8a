//! What the stages know of materials, read from files: the material table, the resolver over
//! `-game` content and the table, the detail file, the table's texture lights.

use std::path::Path;

use srcmap_content::detail_vbsp::DetailTypes;
use srcmap_materials::{Conflict, MaterialTable, Resolved, Resolver};

use crate::error::DriverError;

/// Loads a material table (`srcmap materials extract`), with the name its facts are told by.
pub fn load_table(path: &Path) -> Result<(String, MaterialTable), DriverError> {
    let text = std::fs::read_to_string(path).map_err(|source| DriverError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let table = MaterialTable::from_json(&text).map_err(|error| DriverError::Table {
        path: path.to_path_buf(),
        error: Box::new(error),
    })?;
    Ok((path.display().to_string(), table))
}

/// The resolver every stage uses: `-game` content, then `--materials`, then built-in rules.
pub fn resolver(game: Option<&Path>, materials: Option<&Path>) -> Result<Resolver, DriverError> {
    let game = game
        .map(|g| srcmap_content::GameDir::open(g).map_err(DriverError::Game))
        .transpose()?;
    let table = materials.map(load_table).transpose()?;
    Ok(Resolver::new(game, table))
}

/// What `srcmap materials show` tells of one material: the resolver's facts and where each came
/// from, the table's texture light and conflicts, and the resolver's warnings.
#[derive(Debug)]
pub struct Explanation {
    /// The name as the engine compares it.
    pub material: String,
    pub resolved: Resolved,
    /// The table's texture light (lights.rad files are vrad's, not told here).
    pub emit: Option<[f32; 3]>,
    /// Where the maps the table was learnt from disagree about this material.
    pub conflicts: Vec<Conflict>,
    pub warnings: Vec<String>,
}

/// Explains one material as the resolver over `game` and the `materials` table sees it.
pub fn explain(
    name: &str,
    materials: Option<&Path>,
    game: Option<&Path>,
) -> Result<Explanation, DriverError> {
    let resolver = resolver(game, materials)?;
    let material = srcmap_materials::normalise_name(name);
    let table = materials.map(load_table).transpose()?.map(|(_, t)| t);
    let conflicts = table
        .as_ref()
        .map(|t| {
            t.conflicts
                .iter()
                .filter(|c| c.material == material)
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let emit = table.as_ref().and_then(|t| t.get(&material)).and_then(|e| e.emit);
    let resolved = resolver.resolve(name);
    Ok(Explanation {
        material,
        resolved,
        emit,
        conflicts,
        warnings: resolver.warnings(),
    })
}

/// Reads a `detail.vbsp` (`--detail-file`).
pub fn load_detail_file(path: &Path) -> Result<DetailTypes, DriverError> {
    let bytes = crate::files::read(path)?;
    Ok(DetailTypes::parse(&bytes, &path.display().to_string())?)
}

/// The `emit` facts of a material table as texture lights (both ranges).
pub fn table_texlights(table: &MaterialTable) -> srcmap_vrad::TexLights {
    let mut out = srcmap_vrad::TexLights::new();
    for (name, entry) in table.iter() {
        if let Some(v) = entry.emit {
            out.set_rgb(name, None, v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_table_is_named_with_the_read_error_as_its_source() {
        let err = load_table(Path::new("/nonexistent/table.json")).unwrap_err();
        assert_eq!(err.to_string(), "/nonexistent/table.json: cannot read");
        assert!(std::error::Error::source(&err).is_some());
    }
}
