//! Fuzz target `nav`: the body is `srcmap_fuzzing::nav` (shared with the regression test that
//! replays `fuzz/regressions/nav/` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::nav(data));
