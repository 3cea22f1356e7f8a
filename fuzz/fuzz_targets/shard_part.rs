//! Fuzz target `shard_part`: the body is `srcmap_fuzzing::shard_part` (shared with the regression
//! test that replays `fuzz/regressions/shard_part/` on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::shard_part(data));
