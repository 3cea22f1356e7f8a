//! Fuzz target `phys_phy` (a .phy file): the body is `srcmap_fuzzing::phys_phy` (shared with the
//! regression test that replays `fuzz/regressions/phys_phy/` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::phys_phy(data));
