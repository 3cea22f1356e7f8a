//! Per lump, the median time of `BspView::parse_only` with just that lump, minus the time
//! with no lump (open + header): where a view parse spends its time.
//! `cargo run --release --example view_lump_times FILE...`
use srcmap_bsp::{BspView, HEADER_LUMPS, lump_name};

fn median(mut f: impl FnMut()) -> f64 {
    let mut v: Vec<f64> = (0..2001)
        .map(|_| {
            let t = std::time::Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    for path in std::env::args().skip(1) {
        let data = std::fs::read(&path).expect("read");
        let none = median(|| {
            std::hint::black_box(BspView::parse_only(std::hint::black_box(&data), &|_| false).is_ok());
        });
        let all = median(|| {
            std::hint::black_box(BspView::parse(std::hint::black_box(&data)).is_ok());
        });
        let mut times: Vec<(f64, usize)> = (0..HEADER_LUMPS)
            .map(|l| {
                let t = median(|| {
                    std::hint::black_box(
                        BspView::parse_only(std::hint::black_box(&data), &|x| x == l).is_ok(),
                    );
                });
                (t - none, l)
            })
            .collect();
        times.sort_by(|a, b| b.0.total_cmp(&a.0));
        println!(
            "{path}: all {all:.2} us, none {none:.2} us, sum of lumps {:.2} us",
            times.iter().map(|t| t.0).sum::<f64>()
        );
        for (us, l) in times.iter().take(10) {
            println!("  {us:8.3} us  lump {l} {}", lump_name(*l));
        }
    }
}
