#![no_main]
//! NAV reader: never panics or over-allocates; whatever parses writes back byte-identical.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(mesh) = srcmap_nav::NavMesh::read(data) {
        let out = mesh.write().expect("a parsed mesh must encode");
        assert_eq!(out, data);
        let _ = mesh.stats();
    }
});
