//! Fuzz target `export_vtf`: the body is `srcmap_fuzzing::export_vtf` (shared with the regression test that
//! replays `fuzz/regressions/export_vtf/` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::export_vtf(data));
