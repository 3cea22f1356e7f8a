//! Fuzz target `content_detail_vbsp` (the detail.vbsp reader): the body is
//! `srcmap_fuzzing::content_detail_vbsp` (shared with the regression test that replays
//! `fuzz/regressions/content_detail_vbsp/` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::content_detail_vbsp(data));
