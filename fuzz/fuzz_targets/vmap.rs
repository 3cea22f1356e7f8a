//! Fuzz target `vmap`: the body is `srcmap_fuzzing::vmap` (shared with the regression test that
//! replays `fuzz/regressions/vmap/` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::vmap(data));
