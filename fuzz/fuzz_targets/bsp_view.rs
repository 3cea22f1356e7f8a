//! Fuzz target `bsp_view`: the body is `srcmap_fuzzing::bsp_view` (shared with the regression test that
//! replays `fuzz/regressions/bsp_view/` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::bsp_view(data));
