//! Fuzz target `vmf_compile`: the body is `srcmap_fuzzing::vmf_compile` (shared with the regression test that
//! replays `fuzz/regressions/vmf_compile/` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::vmf_compile(data));
