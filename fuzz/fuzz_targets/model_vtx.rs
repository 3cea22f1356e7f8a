//! Fuzz target `model_vtx` (the VTX reader): the body is `srcmap_fuzzing::model_vtx` (shared with the
//! regression test that replays `fuzz/regressions/model_vtx/` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::model_vtx(data));
