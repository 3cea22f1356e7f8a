//! Fuzz target `dmx_text`: the body is `srcmap_fuzzing::dmx_text` (shared with the regression test that
//! replays `fuzz/regressions/dmx_text/` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::dmx_text(data));
