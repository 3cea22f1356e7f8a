//! Fuzz target `view_lin`: the body is `srcmap_fuzzing::view_lin` (shared with the regression test that
//! replays `fuzz/regressions/view_lin/` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::view_lin(data));
