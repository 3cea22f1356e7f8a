//! Compile VMFs with the vbsp stage alone (no CLI), for benchmarks and the corpus
//! comparison: `vbsp_compile [--allowleak] [--times] MAP.vmf OUT.bsp [MAP2.vmf OUT2.bsp ...]`.
//! Instances are looked up beside the map (also flat, without their folder).

use std::path::Path;

use srcmap_vbsp::Progress;
use std::time::Instant;

struct Timer {
    start: Instant,
    last: std::sync::Mutex<(Instant, String)>,
    show: bool,
}

impl srcmap_vbsp::Progress for Timer {
    fn start(&self, name: &str, _total: u64, _unit: srcmap_stage::Unit) {
        let mut last = self.last.lock().unwrap();
        if self.show && !last.1.is_empty() {
            eprintln!("  {:<24} {:>8.3}s", last.1, last.0.elapsed().as_secs_f64());
        }
        *last = (Instant::now(), name.to_string());
    }
}

fn load(path: &Path) -> Option<srcmap_vmf::Vmf> {
    let bytes = std::fs::read(path).ok()?;
    srcmap_vmf::Vmf::parse_bytes(&bytes)
        .or_else(|_| srcmap_vmf::Vmf::parse_lenient(&bytes))
        .ok()
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let allow_leak = args.iter().any(|a| a == "--allowleak");
    let times = args.iter().any(|a| a == "--times");
    args.retain(|a| !a.starts_with("--"));
    let mut failed = false;
    for pair in args.chunks(2) {
        let map = Path::new(&pair[0]);
        let t0 = Instant::now();
        let Some(vmf) = load(map) else {
            eprintln!("{}: cannot read or parse", map.display());
            failed = true;
            continue;
        };
        let parse = t0.elapsed().as_secs_f64();
        let mut input = srcmap_vbsp::input_from_vmf(&vmf);
        let dir = map.parent().unwrap_or(Path::new(".")).to_path_buf();
        let loader = |name: &str| {
            let p = dir.join(name);
            let p = if p.is_file() {
                p
            } else {
                dir.join(Path::new(name).file_name()?)
            };
            load(&p).map(|v| srcmap_vbsp::input_from_vmf(&v))
        };
        match srcmap_vbsp::instances::collapse(&mut input, &loader) {
            Ok(problems) => {
                for p in problems {
                    eprintln!("{}: warning: {p}", map.display());
                }
            }
            Err(e) => {
                eprintln!("{}: {e}", map.display());
                failed = true;
                continue;
            }
        }
        let opts = srcmap_vbsp::Options {
            allow_leak,
            ..Default::default()
        };
        let timer = Timer {
            start: Instant::now(),
            last: std::sync::Mutex::new((Instant::now(), String::new())),
            show: times,
        };
        let res = srcmap_vbsp::compile(&input, &opts, &timer);
        timer.start("", 0, srcmap_stage::Unit::Steps);
        let total = t0.elapsed().as_secs_f64();
        match res {
            Ok(out) => {
                let bsp = &out.bsp;
                let violations = srcmap_bsp::check::check(bsp);
                for v in violations.iter().take(5) {
                    eprintln!("  check: {v:?}");
                }
                let bytes = bsp.to_bytes().expect("serialise");
                if let Some(o) = pair.get(1) {
                    std::fs::write(o, &bytes).expect("write");
                    if out.leak.is_none() {
                        std::fs::write(Path::new(o).with_extension("prt"), &out.prt).expect("write");
                    }
                }
                let errors = out
                    .diagnostics
                    .iter()
                    .filter(|d| d.severity == srcmap_vbsp::Severity::Error)
                    .count();
                for d in out
                    .diagnostics
                    .iter()
                    .filter(|d| d.severity == srcmap_vbsp::Severity::Error)
                    .take(5)
                {
                    eprintln!("  {d}");
                }
                println!(
                    "{}\tok\tparse {:.3}s compile {:.3}s total {:.3}s\tleak={} brushes={} faces={} leaves={} clusters={} errors={} check_violations={}",
                    map.display(),
                    parse,
                    timer.start.elapsed().as_secs_f64(),
                    total,
                    out.leak.is_some(),
                    out.report.count("brushes"),
                    out.report.count("faces"),
                    out.report.count("world_leaves"),
                    out.report.count("clusters"),
                    errors,
                    violations.len()
                );
            }
            Err(e) => {
                if let (srcmap_vbsp::VbspError::Leak { pointfile, .. }, Some(o)) = (&e, pair.get(1)) {
                    std::fs::write(Path::new(o).with_extension("lin"), pointfile).expect("write");
                }
                failed = true;
                println!("{}\terror\t{e}", map.display());
            }
        }
    }
    std::process::exit(if failed { 1 } else { 0 });
}
