#![no_main]
//! VMF typed view: never panics, strict or lenient; an unedited parse writes back byte-identical.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(vmf) = srcmap_vmf::Vmf::parse_bytes(data) {
        assert_eq!(vmf.to_bytes(), data);
        let _ = vmf.stats();
    }
    let _ = srcmap_vmf::Vmf::parse_lenient(data);
});
