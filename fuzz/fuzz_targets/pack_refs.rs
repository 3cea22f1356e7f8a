//! Fuzz target `pack_refs`: the body is `srcmap_fuzzing::pack_refs` (shared with the regression
//! test that replays `fuzz/regressions/pack_refs/` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::pack_refs(data));
