#![no_main]
//! `.phy` files (header, solids, key data): never panics; whatever parses writes back byte-identical.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(phy) = srcmap_phys::PhyFile::parse(data) {
        assert_eq!(phy.to_bytes(), data);
    }
});
