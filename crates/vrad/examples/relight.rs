//! Relights a BSP without the CLI: `cargo run --release -p srcmap-vrad --example relight --
//! IN.bsp OUT.bsp [-fast|-final] [-bounce N] [-ldr|-hdr|-both] [-noambient]`. Prints the run's
//! report as one JSON-like line (used by scripts/rad_report.py).

use std::time::Instant;

use srcmap_vrad::{NoProgress, Options, Quality, Threads, counts};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: relight IN.bsp OUT.bsp [-fast|-final] [-bounce N] [-ldr|-hdr|-both] [-noambient]");
        std::process::exit(2);
    }
    let mut options = Options::default();
    let mut i = 2;
    while i < args.len() {
        match args[i].trim_start_matches('-') {
            "fast" => options.quality = Quality::Fast,
            "final" => options.quality = Quality::Final,
            "hdr" => (options.ldr, options.hdr) = (false, true),
            "ldr" => (options.ldr, options.hdr, options.hdr_if_present) = (true, false, false),
            "both" => (options.ldr, options.hdr) = (true, true),
            "noambient" => options.ambient_cubes = false,
            "bounce" => {
                i += 1;
                options.bounces = args.get(i).and_then(|v| v.parse().ok()).unwrap_or(100);
            }
            "threads" => {
                i += 1;
                options.threads = Threads(args.get(i).and_then(|v| v.parse().ok()).unwrap_or(0));
            }
            other => eprintln!("ignoring unknown option {other}"),
        }
        i += 1;
    }
    let input = match std::fs::read(&args[0]) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{}: {e}", args[0]);
            std::process::exit(1);
        }
    };
    let start = Instant::now();
    match srcmap_vrad::relight(&input, &options, &NoProgress) {
        Ok((bytes, report)) => {
            let secs = start.elapsed().as_secs_f64();
            if let Err(e) = std::fs::write(&args[1], bytes) {
                eprintln!("{}: {e}", args[1]);
                std::process::exit(1);
            }
            let phases: Vec<String> = report
                .times
                .iter()
                .map(|t| format!("\"{}\": {:.3}", t.phase, t.seconds))
                .collect();
            println!(
                "{{\"seconds\": {secs:.3}, \"lit_faces\": {}, \"luxels\": {}, \"lights\": {}, \"rays\": {}, \"mrays_per_s\": {:.3}, \"bounces\": {}, \"ambient_leaves\": {}, \"phases\": {{{}}}}}",
                report.count(counts::LIT_FACES),
                report.count(counts::LUXELS),
                report.count(counts::LIGHTS),
                report.count(counts::RAYS),
                srcmap_vrad::rays_per_second(&report) / 1e6,
                report.count(counts::BOUNCES_DONE),
                report.count(counts::LEAVES_WITH_AMBIENT),
                phases.join(", ")
            );
        }
        Err(e) => {
            eprintln!("{}: {e}", args[0]);
            std::process::exit(1);
        }
    }
}
