//! Where tests, benchmarks and timing examples find the corpus of real files.
//!
//! The corpus lives outside the repository (it is never copied in); `SRCMAP_CORPUS` names its
//! root, laid out as `<kind>/<owner+repo>/<file>` (kind: `bsp`, `vmf`, `nav`, `dmx`, `vmap`).
//! Without the variable every caller skips with a message, so a fresh clone still passes.

use std::path::{Path, PathBuf};
use std::time::Instant;

/// The corpus root from `SRCMAP_CORPUS`, or `None` after printing that `what` is skipped.
pub fn root(what: &str) -> Option<PathBuf> {
    match std::env::var_os("SRCMAP_CORPUS") {
        Some(root) => Some(PathBuf::from(root)),
        None => {
            eprintln!("SRCMAP_CORPUS is not set: skipping {what}");
            None
        }
    }
}

/// Every file under `root/<kind>/*/` that `keep` accepts, sorted by path.
///
/// Panics when `root/<kind>` is not a folder: a set variable that points at the wrong place
/// must fail the test, not skip it.
pub fn files(root: &Path, kind: &str, keep: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    let dir = root.join(kind);
    let repos = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("corpus folder {}: {e}", dir.display()));
    let mut out = Vec::new();
    for repo in repos {
        let repo = repo.expect("corpus folder entry").path();
        let Ok(entries) = std::fs::read_dir(&repo) else {
            continue;
        };
        for f in entries {
            let path = f.expect("corpus folder entry").path();
            if path.is_file() && keep(&path) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Whether `path` ends in `.ext`, ignoring case.
pub fn has_extension(path: &Path, ext: &str) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

/// The bytes of `root/rel` from `SRCMAP_CORPUS`, or `None` when unset or missing.
pub fn read(rel: impl AsRef<Path>) -> Option<Vec<u8>> {
    let root = std::env::var_os("SRCMAP_CORPUS")?;
    std::fs::read(PathBuf::from(root).join(rel)).ok()
}

/// The timing examples' main: `NAME REPS FILE...` runs `parse` REPS times on each file and
/// prints `file<TAB>bytes<TAB>best_ms<TAB>median_ms` (read by the `scripts/bench_*.sh` scripts).
/// A file that fails to parse is reported on stderr and timed on its attempts so far.
pub fn time_files<T, E: std::fmt::Display>(parse: impl Fn(&[u8]) -> Result<T, E>) {
    let mut args = std::env::args().skip(1);
    let reps: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(10).max(1);
    for path in args {
        let data = match std::fs::read(&path) {
            Ok(data) => data,
            Err(e) => {
                eprintln!("{path}: {e}");
                continue;
            }
        };
        let mut times = Vec::with_capacity(reps);
        for _ in 0..reps {
            let start = Instant::now();
            let parsed = parse(&data);
            times.push(start.elapsed().as_secs_f64() * 1e3);
            if let Err(e) = parsed {
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

/// A fixed pseudo-random sequence in `0.0..1.0` (xorshift64): test inputs that are arbitrary
/// but the same on every run. `seed` must not be zero.
pub fn unit_random(seed: u64) -> impl FnMut() -> f64 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Golden files: text a test pins under its crate's `tests/golden/`. `SRCMAP_BLESS=1` writes
/// `actual` as the new golden text instead of comparing.
pub mod golden {
    use std::path::Path;

    /// Whether this run rewrites golden files (`SRCMAP_BLESS=1`).
    pub fn blessing() -> bool {
        std::env::var_os("SRCMAP_BLESS").is_some_and(|v| v == "1")
    }

    /// Compares `actual` with the golden file at `path` (or writes it when blessing); panics
    /// naming the first line that differs.
    pub fn check(path: &Path, actual: &str) {
        if blessing() {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
            }
            std::fs::write(path, actual).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            return;
        }
        let expected = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("{}: {e} (SRCMAP_BLESS=1 writes it)", path.display()));
        if expected != actual {
            let first = expected
                .lines()
                .zip(actual.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(expected.lines().count().min(actual.lines().count()));
            panic!(
                "{} differs from the golden text at line {}:\n  golden: {:?}\n  now:    {:?}\n(SRCMAP_BLESS=1 rewrites it)",
                path.display(),
                first + 1,
                expected.lines().nth(first),
                actual.lines().nth(first)
            );
        }
    }
}
