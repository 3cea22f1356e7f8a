//! Fuzz target `view_request`: the body is `srcmap_fuzzing::view_request` (shared with the regression test that
//! replays `fuzz/regressions/view_request/` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::view_request(data));
