//! Fuzz target `surface_properties`: the body is `srcmap_fuzzing::surface_properties`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| srcmap_fuzzing::surface_properties(data));
