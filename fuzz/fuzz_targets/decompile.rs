//! Fuzz target `decompile`: the body is `srcmap_fuzzing::decompile` (shared with the regression test that
//! replays `fuzz/regressions/decompile/` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::decompile(data));
