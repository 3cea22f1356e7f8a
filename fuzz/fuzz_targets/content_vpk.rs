//! Fuzz the VPK directory, VMT and VTF header readers.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(vpk) = srcmap_content::Vpk::parse(data.to_vec(), "fuzz.vpk") {
        for e in vpk.entries.iter().take(64) {
            let _ = vpk.read(e);
        }
    }
    let _ = srcmap_content::Vmt::parse(data, "fuzz.vmt").map(|v| v.compile_flags());
    let _ = srcmap_content::VtfHeader::parse(data, "fuzz.vtf");
});
