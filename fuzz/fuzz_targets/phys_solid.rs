//! Fuzz target `phys_solid` (one collision solid): the body is `srcmap_fuzzing::phys_solid` (shared with the
//! regression test that replays `fuzz/regressions/phys_solid/` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::phys_solid(data));
