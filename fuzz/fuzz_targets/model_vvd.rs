//! Fuzz the VVD reader and its LOD lists: any input gives a value or an error.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(vvd) = srcmap_model::Vvd::parse(data) {
        for lod in 0..vvd.lod_count as usize {
            assert!(vvd.lod_vertex_indices(lod).iter().all(|&i| (i as usize) < vvd.vertices.len()));
        }
    }
});
