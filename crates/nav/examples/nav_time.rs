//! Times `NavMesh::read` on each file: `nav_time REPS FILE...` prints `file<TAB>bytes<TAB>best_ms<TAB>median_ms`.
//! Used by `scripts/bench_dmx.sh`.
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let reps: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(10).max(1);
    for path in args {
        let data = std::fs::read(&path).expect("read file");
        let mut times = Vec::with_capacity(reps);
        for _ in 0..reps {
            let t = Instant::now();
            let doc = srcmap_nav::NavMesh::read(&data);
            times.push(t.elapsed().as_secs_f64() * 1e3);
            if let Err(e) = doc {
                eprintln!("{path}: {e}");
                break;
            }
        }
        times.sort_by(f64::total_cmp);
        println!(
            "{path}\t{}\t{:.3}\t{:.3}",
            data.len(),
            times[0],
            times[times.len() / 2]
        );
    }
}
