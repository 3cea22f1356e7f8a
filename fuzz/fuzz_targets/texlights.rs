//! Fuzz target `texlights`: the body is `srcmap_fuzzing::texlights` (shared with the regression test that
//! replays `fuzz/regressions/texlights/` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::texlights(data));
