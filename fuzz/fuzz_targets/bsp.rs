//! Fuzz target `bsp`: the body is `srcmap_fuzzing::bsp` (shared with the regression test that
//! replays `fuzz/regressions/bsp/` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::bsp(data));
