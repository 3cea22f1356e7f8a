#![no_main]
//! DMX keyvalues2 decoder: never panics; whatever parses writes back byte-identical.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut file = b"<!-- dmx encoding keyvalues2 4 format dmx 1 -->\n".to_vec();
    file.extend_from_slice(data);
    if let Ok(doc) = srcmap_dmx::Dmx::read(&file) {
        assert_eq!(doc.write().expect("a parsed document must encode"), file);
    }
    // Also the raw input, header included.
    if let Ok(doc) = srcmap_dmx::Dmx::read(data) {
        let _ = doc.write();
        if let Ok(map) = srcmap_vmap::Vmap::from_dmx(doc) {
            for m in map.polygon_mesh_elements() {
                if let Ok(mesh) = map.polygon_mesh(m) {
                    let _ = mesh.check();
                    for f in 0..mesh.face_count() {
                        let _ = mesh.face_corners(f);
                    }
                }
            }
        }
    }
});
