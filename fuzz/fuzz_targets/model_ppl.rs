//! Fuzz target `model_ppl` (the `.ppl` per-texel prop lighting reader): the body is
//! `srcmap_fuzzing::model_ppl` (shared with the regression test that replays
//! `fuzz/regressions/model_ppl/` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::model_ppl(data));
