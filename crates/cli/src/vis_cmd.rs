//! `vvis`: visibility (PVS/PAS) for a BSP, from `MAP.prt` beside it or from the BSP's own tree.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use srcmap_vvis::{Options, PortalSource, Progress, Report};

#[derive(Debug, clap::Args)]
pub struct VvisArgs {
    /// The BSP to compute visibility for (rewritten in place unless --output is given).
    pub bsp: PathBuf,
    /// Write the result here instead.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Only the quick first pass (a looser, conservative PVS), like vvis -fast.
    #[arg(long)]
    pub fast: bool,
    /// Worker threads (0 = all cores).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Portal file to read (default: MAP.prt beside the BSP; without one, portals are rebuilt
    /// from the BSP's tree).
    #[arg(long)]
    pub prt: Option<PathBuf>,
    /// Ignore any .prt file and rebuild portals from the BSP's tree.
    #[arg(long)]
    pub no_prt: bool,
    /// A vis radius regardless of env_fog_controller's farz (vvis -radius_override).
    #[arg(long)]
    pub radius_override: Option<f64>,
    /// No progress output.
    #[arg(long, short)]
    pub quiet: bool,
    /// Print the run's report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Visibility for a BSP held in memory (for `srcmap compile`): `prt` is the portal file's text
/// when the compiler wrote one; without it portals are rebuilt from the tree.
#[allow(dead_code)]
pub fn run_vis(
    bsp_bytes: &[u8],
    prt: Option<&str>,
    fast: bool,
    threads: Option<usize>,
) -> anyhow::Result<Vec<u8>> {
    let options = Options {
        fast,
        threads,
        ..Default::default()
    };
    let progress = BarProgress::new(false);
    let (bytes, _report) = srcmap_vvis::vis_bsp(bsp_bytes, prt, &options, &progress)?;
    Ok(bytes)
}

pub fn vvis(args: &VvisArgs) -> anyhow::Result<()> {
    let input =
        std::fs::read(&args.bsp).map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", args.bsp.display()))?;
    let prt_path = match (&args.prt, args.no_prt) {
        (_, true) => None,
        (Some(p), false) => Some(p.clone()),
        (None, false) => Some(args.bsp.with_extension("prt")).filter(|p| p.is_file()),
    };
    let prt_text = match &prt_path {
        Some(p) => Some(
            std::fs::read_to_string(p).map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", p.display()))?,
        ),
        None => None,
    };
    let options = Options {
        fast: args.fast,
        threads: (args.threads > 0).then_some(args.threads),
        radius_override: args.radius_override,
        ..Default::default()
    };
    let progress = BarProgress::new(args.quiet || args.json);
    let start = Instant::now();
    let (bytes, report) =
        srcmap_vvis::vis_bsp(&input, prt_text.as_deref(), &options, &progress).map_err(|e| {
            let source = prt_path
                .as_ref()
                .filter(|_| matches!(e, srcmap_vvis::VisError::Prt { .. }));
            anyhow::anyhow!("{}: {e}", source.unwrap_or(&args.bsp).display())
        })?;
    let out = args.output.as_ref().unwrap_or(&args.bsp);
    crate::write_output(out, &bytes)?;
    let total = start.elapsed().as_secs_f64();
    if args.json {
        crate::print_json(&json_report(&report, total))?;
    } else if !args.quiet {
        let source = match report.source {
            PortalSource::PrtFile => format!(
                "portals from {}",
                prt_path
                    .as_ref()
                    .map_or(String::new(), |p| p.display().to_string())
            ),
            PortalSource::RebuiltFromTree => "portals rebuilt from the BSP tree".to_string(),
        };
        eprintln!(
            "{}: {} clusters, {} portals ({source}){}{}",
            out.display(),
            report.clusters,
            report.portals,
            if report.fast { ", fast vis" } else { "" },
            report
                .radius
                .map_or(String::new(), |r| format!(", vis radius {r}")),
        );
        eprintln!(
            "average clusters visible {:.1}, visibility lump {} bytes, {} threads, {total:.2} s",
            report.visible_pairs as f64 / report.clusters.max(1) as f64,
            report.vis_bytes,
            report.threads
        );
    }
    Ok(())
}

fn json_report(r: &Report, total: f64) -> serde_json::Value {
    serde_json::json!({
        "clusters": r.clusters,
        "portals": r.portals,
        "portal_source": match r.source { PortalSource::PrtFile => "prt", PortalSource::RebuiltFromTree => "tree" },
        "fast": r.fast,
        "radius": r.radius,
        "threads": r.threads,
        "visible_pairs": r.visible_pairs,
        "crosscheck_dropped": r.optimized,
        "might_see": r.might_see,
        "chains": r.counters.chains,
        "vis_bytes": r.vis_bytes,
        "seconds": {
            "portals": r.portal_time.as_secs_f64(),
            "base": r.base_time.as_secs_f64(),
            "flow": r.flow_time.as_secs_f64(),
            "clusters": r.cluster_time.as_secs_f64(),
            "total": total,
        },
    })
}

/// A bar per stage with an estimate of the time left on a terminal; one line per stage when
/// piped. The library weights work units by expected cost, so the estimate is a plain rate.
struct BarProgress {
    quiet: bool,
    tty: bool,
    state: Mutex<(String, u64, Instant)>,
    done: AtomicU64,
    last_drawn: AtomicU64,
}

impl BarProgress {
    fn new(quiet: bool) -> Self {
        BarProgress {
            quiet,
            tty: std::io::stderr().is_terminal(),
            state: Mutex::new((String::new(), 0, Instant::now())),
            done: AtomicU64::new(0),
            last_drawn: AtomicU64::new(0),
        }
    }

    fn draw(&self, done: u64) {
        let Ok(state) = self.state.lock() else { return };
        let (name, total, started) = &*state;
        let frac = if *total > 0 {
            (done as f64 / *total as f64).min(1.0)
        } else {
            1.0
        };
        let width = 30;
        let filled = ((frac * width as f64) as usize).min(width);
        let elapsed = started.elapsed().as_secs_f64();
        let eta = if frac > 0.0 {
            format!("{:.0} s left", elapsed * (1.0 - frac) / frac)
        } else {
            "…".into()
        };
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r{name:<12} [{}{}] {:5.1}% {elapsed:.0} s, {eta}   ",
            "#".repeat(filled),
            "-".repeat(width - filled),
            frac * 100.0
        );
        let _ = err.flush();
    }
}

impl Progress for BarProgress {
    fn start(&self, stage: &str, total: u64) {
        if self.quiet {
            return;
        }
        if let Ok(mut s) = self.state.lock() {
            *s = (stage.to_string(), total, Instant::now());
        }
        self.done.store(0, Ordering::Relaxed);
        self.last_drawn.store(0, Ordering::Relaxed);
        if self.tty {
            self.draw(0);
        }
    }

    fn advance(&self, n: u64) {
        if self.quiet || !self.tty {
            return;
        }
        let done = self.done.fetch_add(n, Ordering::Relaxed) + n;
        let total = self.state.lock().map(|s| s.1).unwrap_or(0);
        let step = (total / 200).max(1);
        let last = self.last_drawn.load(Ordering::Relaxed);
        if done >= last + step
            && self
                .last_drawn
                .compare_exchange(last, done, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            self.draw(done);
        }
    }

    fn finish(&self) {
        if self.quiet {
            return;
        }
        let Ok(state) = self.state.lock() else { return };
        let (name, _, started) = &*state;
        let secs = started.elapsed().as_secs_f64();
        if self.tty {
            eprintln!(
                "\r{name:<12} [{}] 100.0% {secs:.2} s{}",
                "#".repeat(30),
                " ".repeat(16)
            );
        } else {
            eprintln!("{name}: {secs:.2} s");
        }
    }
}
