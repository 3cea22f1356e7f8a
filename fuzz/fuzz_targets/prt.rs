//! Fuzz target `prt`: the body is `srcmap_fuzzing::prt` (shared with the regression test that
//! replays `fuzz/regressions/prt/` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::prt(data));
