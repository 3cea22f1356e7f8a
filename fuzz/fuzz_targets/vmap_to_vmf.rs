//! Fuzz target `vmap_to_vmf`: the body is `srcmap_fuzzing::vmap_to_vmf` (shared with the regression test that
//! replays `fuzz/regressions/vmap_to_vmf/` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::vmap_to_vmf(data));
