//! Fuzz target `model_mdl` (the MDL reader): the body is `srcmap_fuzzing::model_mdl` (shared with the
//! regression test that replays `fuzz/regressions/model_mdl/` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::model_mdl(data));
