//! Prints how long (best of 20) each lump of a BSP takes to parse: `cargo run --release --example lump_times FILE`.
use srcmap_bsp::{Bsp, BspFile, HEADER_LUMPS, lump_name};

fn main() {
    for path in std::env::args().skip(1) {
        let data = std::fs::read(&path).expect("read");
        let file = BspFile::parse(&data).expect("parse");
        let mut bsp = Bsp::new(file.version());
        bsp.endian = file.endian();
        for (i, e) in file.header.lumps.iter().enumerate() {
            bsp.lump_versions[i] = e.version;
        }
        let mut times: Vec<(f64, usize)> = (0..HEADER_LUMPS)
            .filter(|&l| l != srcmap_bsp::lump::GAME_LUMP)
            .map(|l| {
                let d = file.lump(l).unwrap();
                let mut best = f64::MAX;
                for _ in 0..20 {
                    let t = std::time::Instant::now();
                    bsp.parse_lump(l, &d, 0).unwrap();
                    best = best.min(t.elapsed().as_secs_f64() * 1e3);
                }
                (best, l)
            })
            .collect();
        times.sort_by(|a, b| b.0.total_cmp(&a.0));
        println!("{path}");
        for (ms, l) in times.iter().take(9) {
            println!("  {ms:8.3} ms  lump {l} {}", lump_name(*l));
        }
    }
}
