//! Fuzz the `detail.vbsp` reader.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = srcmap_content::detail_vbsp::DetailTypes::parse(data, "fuzz.vbsp");
});
