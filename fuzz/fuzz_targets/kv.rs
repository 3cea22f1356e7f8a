//! Fuzz target `kv`: the body is `srcmap_fuzzing::kv` (shared with the regression test that
//! replays `fuzz/regressions/kv/` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::kv(data));
