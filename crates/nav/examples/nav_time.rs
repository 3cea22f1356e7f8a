//! Times `NavMesh::read` on each file: `nav_time REPS FILE...` prints `file<TAB>bytes<TAB>best_ms<TAB>median_ms`.
//! Used by `scripts/bench_dmx.sh`.

fn main() {
    srcmap_corpus::time_files(srcmap_nav::NavMesh::read);
}
