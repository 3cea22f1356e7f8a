//! Fuzz the MDL reader and what callers ask of it: any input gives a value or an error.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(mdl) = srcmap_model::Mdl::parse(data) {
        let _ = mdl.static_use();
        let _ = mdl.lod_vertex_count(0);
    }
});
