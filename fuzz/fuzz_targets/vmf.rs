//! Fuzz target `vmf`: the body is `srcmap_fuzzing::vmf` (shared with the regression test that
//! replays `fuzz/regressions/vmf/` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::vmf(data));
