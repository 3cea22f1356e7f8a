//! Valve's `-onlyents` and `-onlyprops`: the entity passes run on the map, then the entity
//! lump or the props are written into the BSP compiled earlier, whose other lumps (tree,
//! faces, visibility, lighting) stay as they are.

use super::Compile;
use crate::diag::VbspError;
use crate::types::set_kv;

/// What Valve's VBSP puts in the pakfile of a map whose entities changed after lighting:
/// the engine then knows the lighting may be stale.
const STALE_FILE: (&str, &[u8]) = ("stale.txt", b"stale\0");

impl Compile<'_> {
    /// The earlier BSP becomes the one being written.
    pub fn adopt(&mut self, existing: srcmap_bsp::Bsp) {
        self.finish.bsp = existing;
    }

    /// The world's bounds of the earlier compile kept in worldspawn: the faces they come from
    /// are that compile's (Valve recomputes the same bounds from the same faces).
    pub fn keep_world_bounds(&mut self) {
        let Some(old) = self.finish.bsp.entities.first() else {
            return;
        };
        for key in ["world_mins", "world_maxs"] {
            if let Some(value) = old.get(key) {
                set_kv(&mut self.ents[0].keyvalues, key, value.to_string());
            }
        }
    }

    /// Valve's `EnsurePresenceOfWaterLODControlEntity` for `-onlyents`.
    pub fn ensure_water_lod_control(&mut self) {
        self.add_water_lod_control();
    }

    /// `stale.txt` added to the pakfile, as Valve's `-onlyents` does.
    pub fn mark_lighting_stale(&mut self) -> Result<(), VbspError> {
        let bsp = &mut self.finish.bsp;
        let file = [(STALE_FILE.0.to_string(), STALE_FILE.1.to_vec())];
        bsp.pakfile = srcmap_bsp::pak::Pak::parse(&bsp.pakfile, 0)?.with_files(&file, false)?;
        Ok(())
    }
}
