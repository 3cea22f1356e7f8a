//! Fuzz target `model_vvd` (the VVD reader): the body is `srcmap_fuzzing::model_vvd` (shared with the
//! regression test that replays `fuzz/regressions/model_vvd/` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::model_vvd(data));
