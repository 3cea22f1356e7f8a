//! The contract the compile stages (vbsp, vvis, vrad) share, so that `srcmap compile` can run
//! them one after another on one in-memory `Bsp` and the CLI can draw one kind of progress and
//! print one kind of report:
//!
//! - [`Progress`]: the stages report named phases and work done; they never print.
//! - [`Threads`]: the one threads option (Valve's `-threads N`, 0 for all cores).
//! - [`Report`]: what a stage did, as counts, times and warnings, serialisable for `--json`.
//!
//! A stage's entry point has the shape `fn(input, &mut Bsp or &Input, &Options, &dyn Progress)
//! -> Result<Report, Error>`; stages never call each other.

use std::time::{Duration, Instant};

use serde::Serialize;

/// What a phase's work is counted in, so that a display can say "1,204 of 3,410 faces".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    Portals,
    Faces,
    Leaves,
    Clusters,
    /// Light bounces (a phase that may stop before its total, once the light settles).
    Bounces,
    /// Named steps of a phase.
    Steps,
    /// Directions of the sky (vrad's sky-visibility table).
    Directions,
    Bytes,
    /// An estimate of the work with no unit a person would know (vvis's portal flow weighs each
    /// portal by the square of what it might see): shown as a fraction done.
    Work,
}

impl Unit {
    /// The plural noun a count of this unit is printed with; `None` for [`Unit::Work`].
    pub fn noun(self) -> Option<&'static str> {
        Some(match self {
            Unit::Portals => "portals",
            Unit::Faces => "faces",
            Unit::Leaves => "leaves",
            Unit::Clusters => "clusters",
            Unit::Bounces => "bounces",
            Unit::Steps => "steps",
            Unit::Directions => "directions",
            Unit::Bytes => "bytes",
            Unit::Work => return None,
        })
    }
}

/// Progress of a stage's phases. `start` names a phase, its total work and the unit it is
/// counted in (total 0 when the stage cannot say), `advance` adds finished work, `finish` ends
/// the phase. Called from worker threads.
pub trait Progress: Sync {
    /// A stage (`vbsp`, `vvis`, `vrad`) begins; its phases follow.
    fn begin_stage(&self, _stage: &'static str) {}
    /// The stage is over; `report.seconds` is its whole time.
    fn end_stage(&self, _report: &Report) {}
    fn start(&self, _phase: &str, _total: u64, _unit: Unit) {}
    fn advance(&self, _done: u64) {}
    /// The phase started last is over.
    fn finish(&self) {}
}

/// What a stage's run gives back: its report, maybe beside or inside other results.
pub trait StageOutput {
    fn report_mut(&mut self) -> Option<&mut Report>;
}

impl StageOutput for Report {
    fn report_mut(&mut self) -> Option<&mut Report> {
        Some(self)
    }
}

/// A stage that may not run (vis on a leaked map).
impl StageOutput for Option<Report> {
    fn report_mut(&mut self) -> Option<&mut Report> {
        self.as_mut()
    }
}

/// A stage's result (the BSP's bytes) and its report.
impl<T> StageOutput for (T, Report) {
    fn report_mut(&mut self) -> Option<&mut Report> {
        Some(&mut self.1)
    }
}

/// Runs one stage between [`Progress::begin_stage`] and [`Progress::end_stage`], its wall time
/// in its report's `seconds`. Every command that runs a stage (`srcmap compile`, `vbsp`, `vvis`,
/// `vrad`) times it here, so the line a display prints when it ends and `--json`'s figure are
/// one measurement.
pub fn timed_stage<T: StageOutput, E>(
    stage: &'static str,
    progress: &dyn Progress,
    run: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    let started = Instant::now();
    progress.begin_stage(stage);
    let mut out = run()?;
    if let Some(report) = out.report_mut() {
        report.seconds = started.elapsed().as_secs_f64();
        progress.end_stage(report);
    }
    Ok(out)
}

/// The line that ends a command that wrote a BSP: `COMMAND: wrote PATH in N s total`, `seconds`
/// from the command's start (`compile` and each stage run alone end with it).
pub fn total_line(command: &str, out_path: &std::path::Path, seconds: f64) -> String {
    format!("{command}: wrote {} in {seconds:.2} s total", out_path.display())
}

/// A [`Progress`] that ignores everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;
impl Progress for NoProgress {}

/// Worker threads for a stage: Valve's `-threads N`; 0 means one per core.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Threads(pub usize);

/// The worker pool could not start.
#[derive(Debug, thiserror::Error)]
#[error("could not start {threads} worker threads: {message}")]
pub struct ThreadsError {
    pub threads: usize,
    pub message: String,
}

impl Threads {
    /// One per core.
    pub const ALL: Threads = Threads(0);

    /// A rayon pool of this many threads.
    pub fn pool(self) -> Result<rayon::ThreadPool, ThreadsError> {
        rayon::ThreadPoolBuilder::new()
            .num_threads(self.0)
            .build()
            .map_err(|e| ThreadsError {
                threads: self.0,
                message: e.to_string(),
            })
    }

    /// `None` for "all cores", as options that predate this type spell it.
    pub fn as_option(self) -> Option<usize> {
        (self.0 > 0).then_some(self.0)
    }
}

/// One named figure of a report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Count {
    pub name: &'static str,
    pub value: f64,
}

/// One timed phase of a report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Time {
    pub phase: String,
    pub seconds: f64,
}

/// How bad a [`Warning`] is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    #[default]
    Warning,
    /// Something was left out (a bad brush, a leak let through); the compile went on.
    Error,
    /// Not a problem: what the stage did where the mapper may need to know it (which file
    /// gave the figures an output follows).
    Note,
}

/// One thing a stage tells the mapper: what (`code`, stable, `stage.what`; `message`, for a
/// person) and where, each place `None` when it does not apply or is unknown. Printed as text
/// (`Display`) without `--json`, as an object with it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Warning {
    pub severity: Severity,
    pub code: &'static str,
    /// The VMF id of the entity (Hammer's `id`).
    pub entity: Option<i64>,
    pub classname: Option<String>,
    /// VMF ids of the brush (solid) and its side.
    pub brush: Option<i64>,
    pub side: Option<i64>,
    /// A point in map units (an entity's origin).
    pub position: Option<[f64; 3]>,
    pub message: String,
}

impl Warning {
    /// A warning about the map as a whole.
    pub fn new(code: &'static str, message: impl Into<String>) -> Warning {
        Warning {
            code,
            message: message.into(),
            ..Default::default()
        }
    }

    /// The place as text: `brush 4 side 20 (entity 2 'func_detail')`, `entity 7 'light' at (0 0 64)`.
    pub fn place(&self) -> String {
        let out = map_place(self.brush, self.side, self.entity, self.classname.as_deref());
        match (self.position, self.brush.is_none()) {
            (Some([x, y, z]), true) => {
                let at = format!("({x:.0} {y:.0} {z:.0})");
                if out.is_empty() {
                    at
                } else {
                    format!("{out} at {at}")
                }
            }
            _ => out,
        }
    }
}

/// A place in a map by its ids, as every stage names it: `brush 4 side 20 (entity 2
/// 'func_detail')`, `entity 7 'light'`, or empty.
pub fn map_place(
    brush: Option<i64>,
    side: Option<i64>,
    entity: Option<i64>,
    classname: Option<&str>,
) -> String {
    let parts: Vec<String> = [
        brush.map(|b| format!("brush {b}")),
        side.map(|s| format!("side {s}")),
    ]
    .into_iter()
    .flatten()
    .collect();
    let ids = parts.join(" ");
    let Some(e) = entity else { return ids };
    let entity = format!("entity {e} '{}'", classname.unwrap_or("?"));
    if ids.is_empty() {
        entity
    } else {
        format!("{ids} ({entity})")
    }
}

/// A free-text warning (code `warning`), for messages not yet given a code of their own.
impl From<String> for Warning {
    fn from(message: String) -> Warning {
        Warning::new("warning", message)
    }
}

impl From<&str> for Warning {
    fn from(message: &str) -> Warning {
        Warning::from(message.to_string())
    }
}

/// `PLACE: warning: MESSAGE` (no place: `warning: MESSAGE`), as compilers print.
impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let severity = match self.severity {
            Severity::Warning => "warning",
            Severity::Error => "error",
            Severity::Note => "note",
        };
        match self.place() {
            place if place.is_empty() => write!(f, "{severity}: {}", self.message),
            place => write!(f, "{place}: {severity}: {}", self.message),
        }
    }
}

/// What a stage did: its figures (in the order the stage gives them), the time of each phase,
/// and the warnings it has for the mapper. The same shape for every stage; `--json` prints it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Report {
    /// `vbsp`, `vvis` or `vrad`.
    pub stage: &'static str,
    /// The stage's whole time, wall clock, as the driver measured it (0 when run without
    /// the driver); the line printed when the stage ends shows this same figure.
    pub seconds: f64,
    /// In JSON: an object, figure name → number (whole numbers without a fraction).
    #[serde(serialize_with = "counts_as_object")]
    pub counts: Vec<Count>,
    /// In JSON: an object, phase → seconds (a phase run more than once: the sum).
    #[serde(serialize_with = "times_as_object")]
    pub times: Vec<Time>,
    pub warnings: Vec<Warning>,
}

impl Report {
    pub fn new(stage: &'static str) -> Report {
        Report {
            stage,
            ..Default::default()
        }
    }

    /// Adds (or replaces) a figure.
    pub fn set(&mut self, name: &'static str, value: impl Into<f64>) {
        let value = value.into();
        match self.counts.iter_mut().find(|c| c.name == name) {
            Some(c) => c.value = value,
            None => self.counts.push(Count { name, value }),
        }
    }

    /// A figure by name.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.counts.iter().find(|c| c.name == name).map(|c| c.value)
    }

    /// A whole-number figure by name (0 when absent).
    pub fn count(&self, name: &str) -> u64 {
        self.get(name).map_or(0, |v| v as u64)
    }

    /// Records a phase's time.
    pub fn time(&mut self, phase: impl Into<String>, elapsed: Duration) {
        self.times.push(Time {
            phase: phase.into(),
            seconds: elapsed.as_secs_f64(),
        });
    }

    /// Seconds of a phase (0 when absent).
    pub fn seconds(&self, phase: &str) -> f64 {
        self.times
            .iter()
            .filter(|t| t.phase == phase)
            .map(|t| t.seconds)
            .sum()
    }

    pub fn warn(&mut self, warning: impl Into<Warning>) {
        self.warnings.push(warning.into());
    }

    /// Runs one phase, timing it and telling `progress` when it starts and ends.
    pub fn phase<T>(
        &mut self,
        progress: &dyn Progress,
        name: &str,
        total: u64,
        unit: Unit,
        f: impl FnOnce() -> T,
    ) -> T {
        let t = Instant::now();
        progress.start(name, total, unit);
        let out = f();
        progress.finish();
        self.time(name, t.elapsed());
        out
    }
}

fn counts_as_object<S: serde::Serializer>(counts: &[Count], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut map = s.serialize_map(Some(counts.len()))?;
    for c in counts {
        if c.value.fract() == 0.0 && c.value.abs() < 9.0e15 {
            map.serialize_entry(c.name, &(c.value as i64))?;
        } else {
            map.serialize_entry(c.name, &c.value)?;
        }
    }
    map.end()
}

fn times_as_object<S: serde::Serializer>(times: &[Time], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut phases: Vec<(&str, f64)> = Vec::new();
    for t in times {
        match phases.iter_mut().find(|(p, _)| *p == t.phase) {
            Some((_, secs)) => *secs += t.seconds,
            None => phases.push((&t.phase, t.seconds)),
        }
    }
    let mut map = s.serialize_map(Some(phases.len()))?;
    for (phase, secs) in phases {
        map.serialize_entry(phase, &secs)?;
    }
    map.end()
}

/// Whether a stage checks its invariants between passes: always in debug builds and tests,
/// and in release builds when asked (`--verify`).
pub fn verify_enabled(asked: bool) -> bool {
    asked || cfg!(debug_assertions)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a run told its progress: the stages begun, and the ends with their seconds.
    #[derive(Default)]
    struct Told(std::sync::Mutex<Vec<String>>);
    impl Progress for Told {
        fn begin_stage(&self, stage: &'static str) {
            self.0.lock().unwrap().push(format!("begin {stage}"));
        }
        fn end_stage(&self, report: &Report) {
            let line = format!("end {} {}", report.stage, report.seconds > 0.0);
            self.0.lock().unwrap().push(line);
        }
    }

    /// A stage is begun, then ended with its wall time in its report; a failed one is not ended.
    #[test]
    fn a_timed_stage_is_told_with_its_time_and_a_failed_one_is_not_ended() {
        let told = Told::default();
        let run = || {
            std::thread::sleep(Duration::from_millis(20));
            Ok::<_, ()>((vec![1u8], Report::new("vvis")))
        };
        let (_, report) = timed_stage("vvis", &told, run).unwrap();
        assert!(report.seconds >= 0.02, "{}", report.seconds);
        let failed = timed_stage("vrad", &told, || Err::<Report, _>("no light"));
        assert_eq!(failed.unwrap_err(), "no light");
        assert_eq!(
            *told.0.lock().unwrap(),
            ["begin vvis", "end vvis true", "begin vrad"]
        );
    }

    #[test]
    fn report_figures_and_times() {
        let mut r = Report::new("vvis");
        r.set("clusters", 4u32);
        r.set("clusters", 5u32);
        r.set("radius", 2500.5);
        r.time("flow", Duration::from_millis(1500));
        r.time("flow", Duration::from_millis(500));
        r.warn("leaked");
        assert_eq!(r.count("clusters"), 5);
        assert_eq!(r.counts.len(), 2);
        assert_eq!(r.seconds("flow"), 2.0);
        assert_eq!(r.get("missing"), None);
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["stage"], "vvis");
        assert_eq!(json["counts"]["clusters"], 5);
        assert!(json["counts"]["clusters"].is_u64());
        assert_eq!(json["counts"]["radius"], 2500.5);
        assert_eq!(json["times"]["flow"], 2.0);
        assert_eq!(json["warnings"][0]["message"], "leaked");
        assert_eq!(json["warnings"][0]["code"], "warning");
        assert_eq!(json["warnings"][0]["severity"], "warning");
        assert!(json["warnings"][0]["entity"].is_null());
    }

    #[test]
    fn warnings_print_their_place() {
        let mut w = Warning::new("vbsp.bad_side", "side plane is degenerate");
        assert_eq!(w.to_string(), "warning: side plane is degenerate");
        w.entity = Some(2);
        w.classname = Some("func_detail".into());
        w.brush = Some(4);
        w.side = Some(20);
        w.severity = Severity::Error;
        assert_eq!(
            w.to_string(),
            "brush 4 side 20 (entity 2 'func_detail'): error: side plane is degenerate"
        );
        let light = Warning {
            entity: Some(7),
            classname: Some("light".into()),
            position: Some([0.0, 16.0, 64.5]),
            ..Warning::new("vrad.light", "no brightness")
        };
        assert_eq!(
            light.to_string(),
            "entity 7 'light' at (0 16 64): warning: no brightness"
        );
        let json = serde_json::to_value(&light).unwrap();
        assert_eq!(json["position"][2], 64.5);
        assert!(json["brush"].is_null());
    }

    #[test]
    fn threads_pool() {
        assert_eq!(Threads(2).pool().unwrap().current_num_threads(), 2);
        assert_eq!(Threads::ALL.as_option(), None);
        assert_eq!(Threads(3).as_option(), Some(3));
    }
}
