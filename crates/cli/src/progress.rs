//! The progress display shared by the long-running stages (vvis, vrad): a bar with the phase
//! name, items done, elapsed time and an estimate of the time left on a terminal; one line per
//! finished phase when stderr is not a terminal. Workers on every thread call `advance`, so it
//! counts with an atomic and redraws at most every half percent.

use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

pub struct Bar {
    quiet: bool,
    /// A stage whose phases are short: one line `STAGE: phase` as each starts, no bar.
    steps_of: Option<&'static str>,
    tty: bool,
    /// (phase name, total items, start time)
    state: Mutex<(String, u64, Instant)>,
    done: AtomicU64,
    last_drawn: AtomicU64,
}

impl Bar {
    pub fn new(quiet: bool) -> Self {
        Bar {
            quiet,
            steps_of: None,
            tty: std::io::stderr().is_terminal(),
            state: Mutex::new((String::new(), 0, Instant::now())),
            done: AtomicU64::new(0),
            last_drawn: AtomicU64::new(0),
        }
    }

    /// Progress as a line per phase, `STAGE: phase` (vbsp's phases are quick).
    pub fn steps(stage: &'static str, quiet: bool) -> Self {
        Bar {
            steps_of: Some(stage),
            ..Bar::new(quiet)
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
            "\r{name:<22} [{}{}] {done}/{total} {elapsed:.0} s, {eta}   ",
            "#".repeat(filled),
            "-".repeat(width - filled),
        );
        let _ = err.flush();
    }

    pub fn start(&self, phase: &str, total: u64) {
        if self.quiet {
            return;
        }
        if let Some(stage) = self.steps_of {
            eprintln!("{stage}: {phase}");
            return;
        }
        if let Ok(mut s) = self.state.lock() {
            *s = (phase.to_string(), total, Instant::now());
        }
        self.done.store(0, Ordering::Relaxed);
        self.last_drawn.store(0, Ordering::Relaxed);
        if self.tty {
            self.draw(0);
        }
    }

    pub fn advance(&self, n: u64) {
        if self.quiet || !self.tty || self.steps_of.is_some() {
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

    pub fn finish(&self) {
        if self.quiet || self.steps_of.is_some() {
            return;
        }
        let Ok(state) = self.state.lock() else { return };
        let (name, total, started) = &*state;
        let secs = started.elapsed().as_secs_f64();
        if self.tty {
            eprintln!(
                "\r{name:<22} [{}] {total}/{total} {secs:.2} s{}",
                "#".repeat(30),
                " ".repeat(16)
            );
        } else {
            eprintln!("{name}: {total} items, {secs:.2} s");
        }
    }
}

impl srcmap_stage::Progress for Bar {
    fn start(&self, phase: &str, total: u64) {
        Bar::start(self, phase, total)
    }
    fn advance(&self, n: u64) {
        Bar::advance(self, n)
    }
    fn finish(&self) {
        Bar::finish(self)
    }
}
