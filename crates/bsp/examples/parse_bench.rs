//! Parses the given BSP files `SRCMAP_ITERS` times each (default 1): a fixed workload for
//! profilers (`valgrind --tool=callgrind target/release/examples/parse_bench FILE`).

fn main() {
    let iters: usize = std::env::var("SRCMAP_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    for path in std::env::args().skip(1) {
        let data = std::fs::read(&path).expect("read");
        let mut times = Vec::with_capacity(iters);
        for _ in 0..iters {
            let t = std::time::Instant::now();
            std::hint::black_box(srcmap_bsp::Bsp::parse(std::hint::black_box(&data)).ok());
            times.push(t.elapsed().as_secs_f64() * 1e6);
        }
        times.sort_by(|a, b| a.total_cmp(b));
        eprintln!(
            "{path}: median {:.1} us, min {:.1} us per parse (open, parse, drop)",
            times[times.len() / 2],
            times[0]
        );
    }
}
