//! Times `Dmx::read` on each file: `dmx_time REPS FILE...` prints `file<TAB>bytes<TAB>best_ms<TAB>median_ms`.
//! Used by `scripts/bench_dmx.sh`.

fn main() {
    srcmap_corpus::time_files(srcmap_dmx::Dmx::read);
}
