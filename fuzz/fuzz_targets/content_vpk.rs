//! Fuzz target `content_vpk`: the body is `srcmap_fuzzing::content_vpk` (shared with the regression test that
//! replays `fuzz/regressions/content_vpk/` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::content_vpk(data));
