//! Fuzz target `material_table`: the body is `srcmap_fuzzing::material_table` (shared with the regression test that
//! replays `fuzz/regressions/material_table/` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::material_table(data));
