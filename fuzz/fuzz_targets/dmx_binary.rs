//! Fuzz target `dmx_binary`: the body is `srcmap_fuzzing::dmx_binary` (shared with the regression test that
//! replays `fuzz/regressions/dmx_binary/` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::dmx_binary(data));
