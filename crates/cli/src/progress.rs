//! The progress display shared by the compile stages: a line when a stage starts and when it
//! ends (with the report's time), and per phase a bar with the phase name, work done in the
//! phase's own unit (faces, portals, bounces, ...), percentage, elapsed time and an estimate of
//! the time left on a terminal, one line per finished phase; and never a second of silence: a
//! heartbeat redraws the bar, or off a terminal prints a status line with the same figures. Workers on every thread call `advance`, so it counts with an atomic and redraws at
//! most every half percent. Big numbers are printed as a person reads them (`1.23 M faces`,
//! `3 min 20 s`).

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use srcmap_stage::{Report, Unit};

/// The phase being shown.
struct Phase {
    name: String,
    total: u64,
    unit: Unit,
    started: Instant,
    /// Started and not yet finished.
    running: bool,
}

/// The stage being run.
struct Stage {
    name: &'static str,
    started: Instant,
    running: bool,
}

/// What the display shows, one for the process: stages run one after another, so every
/// [`Bar`] shares it, and the heartbeat thread reads it.
struct Display {
    tty: bool,
    stage: Mutex<Stage>,
    phase: Mutex<Phase>,
    done: AtomicU64,
    last_drawn: AtomicU64,
    /// When stderr last had something from us.
    last_output: Mutex<Instant>,
    /// A bar is on the terminal's current line (a line printed now must clear it first).
    bar_shown: AtomicBool,
}

/// Silence longer than this gets a status line (a redrawn bar on a terminal).
const HEARTBEAT: Duration = Duration::from_millis(1000);

fn display() -> &'static Display {
    static DISPLAY: OnceLock<Display> = OnceLock::new();
    DISPLAY.get_or_init(|| Display {
        tty: std::io::stderr().is_terminal(),
        stage: Mutex::new(Stage {
            name: "",
            started: Instant::now(),
            running: false,
        }),
        phase: Mutex::new(Phase {
            name: String::new(),
            total: 0,
            unit: Unit::Steps,
            started: Instant::now(),
            running: false,
        }),
        done: AtomicU64::new(0),
        last_drawn: AtomicU64::new(0),
        last_output: Mutex::new(Instant::now()),
        bar_shown: AtomicBool::new(false),
    })
}

/// Starts (once) the thread that breaks silences: while a stage or phase runs and nothing
/// was printed for [`HEARTBEAT`], it redraws the bar on a terminal, or prints a status line
/// (`vrad: direct light 1,204/3,410 faces (35%), 12.3 s, 22.8 s left`) elsewhere.
fn start_heartbeat() {
    static STARTED: OnceLock<()> = OnceLock::new();
    STARTED.get_or_init(|| {
        std::thread::spawn(|| {
            loop {
                std::thread::sleep(HEARTBEAT / 5);
                display().beat();
            }
        });
    });
}

/// Prints a line on stderr, first clearing a bar drawn on the terminal's line; every line
/// the CLI prints while a compile runs goes through here, so that the heartbeat knows.
pub fn print_line(text: &str) {
    display().line(text);
}

impl Display {
    fn line(&self, text: &str) {
        let mut err = std::io::stderr().lock();
        if self.bar_shown.swap(false, Ordering::Relaxed) {
            let _ = write!(err, "\r{}\r", " ".repeat(100));
        }
        let _ = writeln!(err, "{text}");
        self.touch();
    }

    fn touch(&self) {
        if let Ok(mut t) = self.last_output.lock() {
            *t = Instant::now();
        }
    }

    fn silent_for(&self) -> Duration {
        self.last_output.lock().map(|t| t.elapsed()).unwrap_or_default()
    }

    fn beat(&self) {
        if self.silent_for() < HEARTBEAT {
            return;
        }
        let phase_running = self.phase.lock().is_ok_and(|p| p.running);
        let stage_running = self.stage.lock().is_ok_and(|s| s.running);
        if self.tty && phase_running {
            self.draw(self.done.load(Ordering::Relaxed));
        } else if phase_running || stage_running {
            let status = self.status();
            self.line(&status);
        }
    }

    /// `STAGE: PHASE DONE/TOTAL (P%), ELAPSED, ETA left`, or `STAGE: working, ELAPSED` between
    /// phases.
    fn status(&self) -> String {
        let (stage, stage_secs) = self
            .stage
            .lock()
            .map(|s| (s.name, s.started.elapsed().as_secs_f64()))
            .unwrap_or(("", 0.0));
        let prefix = if stage.is_empty() {
            String::new()
        } else {
            format!("{stage}: ")
        };
        let Ok(p) = self.phase.lock() else {
            return String::new();
        };
        if !p.running {
            return format!("{prefix}working, {}", human_duration(stage_secs));
        }
        let done = self.done.load(Ordering::Relaxed);
        format!("{prefix}{}", phase_status(&p, done))
    }

    fn draw(&self, done: u64) {
        let Ok(phase) = self.phase.lock() else { return };
        let frac = fraction(done, phase.total);
        let width = 30;
        let filled = ((frac.unwrap_or(0.0) * width as f64) as usize).min(width);
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r{:<22} [{}{}] {}   ",
            phase.name,
            "#".repeat(filled),
            "-".repeat(width - filled),
            progress_text(&phase, done),
        );
        let _ = err.flush();
        self.bar_shown.store(true, Ordering::Relaxed);
        self.touch();
    }
}

/// The share of a phase done, when its total is known.
fn fraction(done: u64, total: u64) -> Option<f64> {
    (total > 0).then(|| (done as f64 / total as f64).min(1.0))
}

/// `1,204/3,410 faces (35%), 12.3 s, 22.8 s left`: how far, how long, how long to go
/// (`35%, ...` for work without a unit; the elapsed time alone when the total is unknown).
fn progress_text(p: &Phase, done: u64) -> String {
    let elapsed = p.started.elapsed().as_secs_f64();
    let Some(frac) = fraction(done, p.total) else {
        return human_duration(elapsed);
    };
    let percent = format!("{:.0}%", 100.0 * frac);
    let how_far = match amount(p.total, p.unit) {
        Some(_) => format!("{} ({percent})", so_far(done, p.total, p.unit)),
        None => percent,
    };
    if frac > 0.0 {
        let left = human_duration(elapsed * (1.0 - frac) / frac);
        format!("{how_far}, {}, {left} left", human_duration(elapsed))
    } else {
        format!("{how_far}, {}", human_duration(elapsed))
    }
}

/// A running phase as a status line: `direct light 1,204/3,410 faces (35%), ...`.
fn phase_status(p: &Phase, done: u64) -> String {
    format!("{} {}", p.name, progress_text(p, done))
}

pub struct Bar {
    quiet: bool,
    /// A stage whose phases are short: one line `STAGE: phase` as each starts, no bar.
    steps_of: Option<&'static str>,
}

/// A count as a person reads it: digits grouped in thousands up to 99,999, then three
/// significant digits and a suffix (`312 k`, `1.23 M`, `31.5 G`).
pub fn human_count(n: u64) -> String {
    if n < 100_000 {
        let digits = n.to_string();
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        return out;
    }
    significant(n as f64, 1000.0, &["", " k", " M", " G", " T", " P", " E"])
}

/// A byte count in binary units (`512 B`, `1.50 KiB`, `23.4 MiB`).
pub fn human_bytes(n: u64) -> String {
    if n < 1024 {
        return format!("{n} B");
    }
    significant(
        n as f64,
        1024.0,
        &[" B", " KiB", " MiB", " GiB", " TiB", " PiB", " EiB"],
    )
}

/// `value` divided by `base` until under `base`, with three significant digits and the
/// suffix of that power.
fn significant(mut value: f64, base: f64, suffixes: &[&str]) -> String {
    let mut power = 0;
    while value >= base && power + 1 < suffixes.len() {
        value /= base;
        power += 1;
    }
    // Rounding may carry into the next power (999.7 k is 1.00 M).
    if value >= 999.5 && power + 1 < suffixes.len() {
        value /= base;
        power += 1;
    }
    let digits = if value >= 99.95 {
        0
    } else if value >= 9.995 {
        1
    } else {
        2
    };
    format!("{value:.digits$}{}", suffixes[power])
}

/// A duration as a person reads it: `0.42 s`, `12.3 s`, `3 min 20 s`, `2 h 05 min`.
pub fn human_duration(secs: f64) -> String {
    if secs < 10.0 {
        format!("{secs:.2} s")
    } else if secs < 60.0 {
        format!("{secs:.1} s")
    } else if secs < 3600.0 {
        let s = secs.round() as u64;
        format!("{} min {:02} s", s / 60, s % 60)
    } else {
        let m = (secs / 60.0).round() as u64;
        format!("{} h {:02} min", m / 60, m % 60)
    }
}

/// `n` of `unit` (`1 face`, `12,345 faces`, `1.50 MiB`); `None` for [`Unit::Work`], which has
/// no unit to count in.
pub fn amount(n: u64, unit: Unit) -> Option<String> {
    if unit == Unit::Bytes {
        return Some(human_bytes(n));
    }
    let plural = unit.noun()?;
    let noun = if n == 1 {
        match unit {
            Unit::Leaves => "leaf",
            _ => plural.strip_suffix('s').unwrap_or(plural),
        }
    } else {
        plural
    };
    Some(format!("{} {noun}", human_count(n)))
}

/// How far a phase is: `1,204/3,410 faces` (`1.20 M/3.41 M faces` when big), or a
/// percentage for work without a unit.
fn so_far(done: u64, total: u64, unit: Unit) -> String {
    let percent = if total > 0 {
        100.0 * (done as f64 / total as f64).min(1.0)
    } else {
        100.0
    };
    match (unit, amount(total, unit)) {
        (Unit::Bytes, Some(total)) => format!("{}/{total}", human_bytes(done)),
        (_, Some(total)) => format!("{}/{total}", human_count(done)),
        (_, None) => format!("{percent:.0}%"),
    }
}

/// The line a finished phase leaves when stderr is not a terminal: `direct light: 1,204
/// faces in 0.42 s`; a phase that stopped early (light settled after 12 of at most 100
/// bounces) counts what it did.
fn finished_line(name: &str, done: u64, total: u64, unit: Unit, secs: f64) -> String {
    let counted = if done == 0 { total } else { done };
    match amount(counted, unit) {
        Some(a) => format!("{name}: {a} in {}", human_duration(secs)),
        None => format!("{name}: done in {}", human_duration(secs)),
    }
}

impl Bar {
    pub fn new(quiet: bool) -> Self {
        if !quiet {
            start_heartbeat();
        }
        Bar {
            quiet,
            steps_of: None,
        }
    }

    /// Progress as a line per phase, `STAGE: phase` (vbsp's phases are quick).
    pub fn steps(stage: &'static str, quiet: bool) -> Self {
        Bar {
            steps_of: Some(stage),
            ..Bar::new(quiet)
        }
    }

    pub fn begin_stage(&self, stage: &'static str) {
        if self.quiet {
            return;
        }
        if let Ok(mut s) = display().stage.lock() {
            *s = Stage {
                name: stage,
                started: Instant::now(),
                running: true,
            };
        }
        print_line(&format!("{stage}: started"));
    }

    /// `STAGE: done in 12.3 s (2 warnings)`, the time being the report's own.
    pub fn end_stage(&self, report: &Report) {
        if self.quiet {
            return;
        }
        if let Ok(mut s) = display().stage.lock() {
            s.running = false;
        }
        print_line(&stage_done_line(report));
    }

    pub fn start(&self, name: &str, total: u64, unit: Unit) {
        if self.quiet {
            return;
        }
        let d = display();
        if let Ok(mut p) = d.phase.lock() {
            *p = Phase {
                name: name.to_string(),
                total,
                unit,
                started: Instant::now(),
                running: true,
            };
        }
        d.done.store(0, Ordering::Relaxed);
        d.last_drawn.store(0, Ordering::Relaxed);
        if let Some(stage) = self.steps_of {
            print_line(&format!("{stage}: {name}"));
        } else if d.tty {
            d.draw(0);
        }
    }

    pub fn advance(&self, n: u64) {
        if self.quiet {
            return;
        }
        let d = display();
        // Counted off a terminal too: the finished line says how much was done.
        let done = d.done.fetch_add(n, Ordering::Relaxed) + n;
        if !d.tty || self.steps_of.is_some() {
            return;
        }
        let total = d.phase.lock().map(|p| p.total).unwrap_or(0);
        let step = (total / 200).max(1);
        let last = d.last_drawn.load(Ordering::Relaxed);
        if done >= last + step
            && d.last_drawn
                .compare_exchange(last, done, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            d.draw(done);
        }
    }

    pub fn finish(&self) {
        if self.quiet {
            return;
        }
        let d = display();
        let Ok(mut p) = d.phase.lock() else { return };
        p.running = false;
        if self.steps_of.is_some() {
            return;
        }
        let done = d.done.load(Ordering::Relaxed);
        let line = finished_line(&p.name, done, p.total, p.unit, p.started.elapsed().as_secs_f64());
        drop(p);
        print_line(&line);
    }
}

/// The line a stage leaves when it ends: `vrad: done in 1 min 36 s (3 warnings)`, its time
/// the report's `seconds` (the figure `--json` prints).
pub fn stage_done_line(report: &Report) -> String {
    let notes = |w: &&srcmap_stage::Warning| w.severity == srcmap_stage::Severity::Note;
    let warnings = match report.warnings.iter().filter(|w| !notes(w)).count() {
        0 => String::new(),
        1 => " (1 warning)".to_string(),
        n => format!(" ({n} warnings)"),
    };
    format!(
        "{}: done in {}{warnings}",
        report.stage,
        human_duration(report.seconds)
    )
}

impl srcmap_stage::Progress for Bar {
    fn begin_stage(&self, stage: &'static str) {
        Bar::begin_stage(self, stage)
    }
    fn end_stage(&self, report: &Report) {
        Bar::end_stage(self, report)
    }
    fn start(&self, phase: &str, total: u64, unit: Unit) {
        Bar::start(self, phase, total, unit)
    }
    fn advance(&self, n: u64) {
        Bar::advance(self, n)
    }
    fn finish(&self) {
        Bar::finish(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_as_a_person_reads_them() {
        assert_eq!(human_count(0), "0");
        assert_eq!(human_count(999), "999");
        assert_eq!(human_count(1000), "1,000");
        assert_eq!(human_count(99_999), "99,999");
        assert_eq!(human_count(100_000), "100 k");
        assert_eq!(human_count(312_456), "312 k");
        assert_eq!(human_count(999_700), "1.00 M");
        assert_eq!(human_count(1_234_567), "1.23 M");
        // The figure issue 22 quotes: "31460071594 items".
        assert_eq!(human_count(31_460_071_594), "31.5 G");
        assert_eq!(human_count(u64::MAX), "18.4 E");
    }

    #[test]
    fn bytes_in_binary_units() {
        assert_eq!(human_bytes(0), "0 B");
        assert_eq!(human_bytes(1023), "1023 B");
        assert_eq!(human_bytes(1536), "1.50 KiB");
        assert_eq!(human_bytes(24_536_678), "23.4 MiB");
        assert_eq!(human_bytes(1 << 40), "1.00 TiB");
    }

    #[test]
    fn durations() {
        assert_eq!(human_duration(0.421), "0.42 s");
        assert_eq!(human_duration(12.34), "12.3 s");
        assert_eq!(human_duration(200.2), "3 min 20 s");
        assert_eq!(human_duration(7500.0), "2 h 05 min");
    }

    #[test]
    fn amounts_name_their_unit() {
        assert_eq!(amount(1, Unit::Faces).unwrap(), "1 face");
        assert_eq!(amount(1, Unit::Leaves).unwrap(), "1 leaf");
        assert_eq!(amount(2, Unit::Leaves).unwrap(), "2 leaves");
        assert_eq!(amount(12_345, Unit::Portals).unwrap(), "12,345 portals");
        assert_eq!(amount(3_000_000, Unit::Bytes).unwrap(), "2.86 MiB");
        assert_eq!(amount(5, Unit::Work), None);
        assert_eq!(so_far(1204, 3410, Unit::Faces), "1,204/3,410 faces");
        assert_eq!(so_far(15_730_035_797, 31_460_071_594, Unit::Work), "50%");
        assert_eq!(so_far(512, 2048, Unit::Bytes), "512 B/2.00 KiB");
    }

    #[test]
    fn status_lines_give_percentage_and_time_left() {
        let phase = |total, unit| Phase {
            name: "direct light".into(),
            total,
            unit,
            started: Instant::now() - Duration::from_secs(10),
            running: true,
        };
        let text = phase_status(&phase(4, Unit::Faces), 1);
        assert!(
            text.starts_with("direct light 1/4 faces (25%), 10.0 s, 30."),
            "{text}"
        );
        assert!(text.ends_with(" s left"), "{text}");
        let text = progress_text(&phase(0, Unit::Steps), 0);
        assert!(text.starts_with("10.0") && !text.contains('%'), "{text}");
        let text = progress_text(&phase(8, Unit::Work), 0);
        assert!(text.starts_with("0%, 10.0 s") && !text.contains("left"), "{text}");
    }

    #[test]
    fn a_stage_ends_with_the_reports_time() {
        let mut report = Report::new("vrad");
        report.seconds = 96.4;
        assert_eq!(stage_done_line(&report), "vrad: done in 1 min 36 s");
        report.warn("one");
        report.seconds = 0.424;
        assert_eq!(stage_done_line(&report), "vrad: done in 0.42 s (1 warning)");
    }

    #[test]
    fn finished_lines() {
        assert_eq!(
            finished_line("direct light", 16, 16, Unit::Faces, 0.004),
            "direct light: 16 faces in 0.00 s"
        );
        // The light settled after 3 of at most 100 bounces.
        assert_eq!(
            finished_line("bounce", 3, 100, Unit::Bounces, 0.02),
            "bounce: 3 bounces in 0.02 s"
        );
        // A phase that never advanced reports its total.
        assert_eq!(
            finished_line("base vis", 0, 8, Unit::Portals, 0.0),
            "base vis: 8 portals in 0.00 s"
        );
        assert_eq!(
            finished_line("portal flow", 31_460_071_594, 31_460_071_594, Unit::Work, 75.0),
            "portal flow: done in 1 min 15 s"
        );
    }
}
