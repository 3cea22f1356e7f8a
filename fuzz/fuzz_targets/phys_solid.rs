#![no_main]
//! One collision solid (VPHY or legacy IVP compact surface): never panics; whatever parses
//! writes back byte-identical, and its invariant check runs to the end.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(solid) = srcmap_phys::Solid::parse(data, 0) {
        assert_eq!(solid.to_bytes(), data);
        if let Some(s) = solid.surface() {
            let _ = s.verify(1e-3);
        }
    }
});
