//! Fuzz the VTX reader: any input gives a value or an error, and every strip's triangles
//! index its strip group's vertices.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(vtx) = srcmap_model::Vtx::parse(data) {
        for lod in vtx.body_parts.iter().flatten().flatten() {
            for (_, groups) in &lod.meshes {
                for g in groups {
                    assert!(g.triangles().flatten().all(|i| (i as usize) < g.vertices.len()));
                }
            }
        }
    }
});
