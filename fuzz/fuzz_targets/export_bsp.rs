//! Fuzz target `export_bsp`: the body is `srcmap_fuzzing::export_bsp` (shared with the regression test that
//! replays `fuzz/regressions/export_bsp/` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::export_bsp(data));
