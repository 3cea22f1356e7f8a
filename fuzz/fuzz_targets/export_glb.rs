//! Fuzz target `export_glb`: the body is `srcmap_fuzzing::export_glb` (shared with the regression test that
//! replays `fuzz/regressions/export_glb/` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::export_glb(data));
