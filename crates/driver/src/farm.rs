//! `srcmap farm slurm MAP.vmf --shards N`: a whole compile as Slurm jobs on a build farm.
//!
//! One `sbatch` script per step, written under the run folder (`MAP.farm/` beside the map) and
//! submitted with `afterok` dependencies, so Slurm runs them in order and the vis shards side
//! by side:
//!
//! ```text
//! vbsp ──▶ vis (array 0..N-1: srcmap vvis --shard I/N) ──▶ vismerge (srcmap vvis merge)
//!      ──▶ rad (array 0..N-1: srcmap vrad --shard I/N --pass direct) ──▶ radmerge (srcmap vrad merge)
//! ```
//!
//! A step that fails asks Slurm to run it again (`scontrol requeue` of its own array task, up to
//! [`SlurmJob::tries`] runs in all, `SLURM_RESTART_COUNT`); a shard that is not running yet or
//! died is waited for and then computed by the others (see [`crate::exchange`]), so the chain
//! never hangs on one. Each step that succeeds leaves `status/STEP[.TASK].ok`; [`submit`] waits
//! with `squeue` until the jobs are gone and then judges the run by those files. The map's BSP
//! is written to the run folder. The scripts need the `srcmap` binary and the run folder at the
//! same paths on every node (a shared file system, as farms have).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::error::DriverError;

/// A compile to submit to Slurm.
#[derive(Debug, Clone)]
pub struct SlurmJob {
    pub vmf: PathBuf,
    pub shards: u32,
    pub partition: Option<String>,
    /// The run folder: scripts, logs, parts, status and the BSP (default `MAP.farm/`).
    pub dir: PathBuf,
    /// The `srcmap` binary the nodes run.
    pub srcmap: PathBuf,
    /// Extra arguments of each stage (`-game DIR`, `--fast`, `-final`, ...).
    pub vbsp_args: Vec<String>,
    pub vis_args: Vec<String>,
    pub rad_args: Vec<String>,
    /// Runs a failing step may have in all before the chain stops.
    pub tries: u32,
    /// How often `squeue` is asked while waiting.
    pub poll: Duration,
    /// At most this long waiting (`None`: as long as it takes).
    pub timeout: Option<Duration>,
}

/// One step of the chain: its name, whether it is an array of `shards` tasks, its command.
struct Step {
    name: &'static str,
    array: bool,
    command: String,
}

/// What a farm run did.
#[derive(Debug, Clone)]
pub struct FarmRun {
    /// Each step's name and Slurm job id.
    pub jobs: Vec<(String, String)>,
    /// The BSP the chain wrote.
    pub bsp: PathBuf,
    pub seconds: f64,
}

impl SlurmJob {
    /// The map's name (`MAP` of `MAP.vmf`).
    fn map_name(&self) -> String {
        self.vmf
            .file_stem()
            .map_or_else(|| "map".into(), |s| s.to_string_lossy().into_owned())
    }

    /// The BSP the chain writes.
    pub fn bsp(&self) -> PathBuf {
        self.dir.join(format!("{}.bsp", self.map_name()))
    }

    /// Shard `i`'s part of `stage` (`vis`, `rad`).
    fn part(&self, stage: &str, i: u32) -> PathBuf {
        self.dir.join("parts").join(format!("{stage}.{i}.part"))
    }

    /// The steps, in order.
    fn steps(&self) -> Vec<Step> {
        let vbsp = Step {
            name: "vbsp",
            array: false,
            command: format!(
                "{} vbsp {} -o {} --quiet{}",
                quote_path(&self.srcmap),
                quote_path(&self.vmf),
                quote_path(&self.bsp()),
                args_text(&self.vbsp_args)
            ),
        };
        let [vis, vismerge] = self.sharded(["vis", "vismerge"], "vvis", "", &self.vis_args);
        let [rad, radmerge] = self.sharded(["rad", "radmerge"], "vrad", " --pass direct", &self.rad_args);
        vec![vbsp, vis, vismerge, rad, radmerge]
    }

    /// A sharded stage's two steps: the array of shards (`srcmap COMMAND BSP --shard I/N -o
    /// PART PASS ARGS`) and the merge of their parts (`srcmap COMMAND merge BSP PARTS ARGS`).
    fn sharded(&self, names: [&'static str; 2], command: &str, pass: &str, extra: &[String]) -> [Step; 2] {
        let (exe, bsp) = (quote_path(&self.srcmap), quote_path(&self.bsp()));
        let stage = names[0];
        let part =
            quote_path(&self.dir.join("parts").join(format!("{stage}."))) + "\"$SLURM_ARRAY_TASK_ID\".part";
        let parts: String = (0..self.shards)
            .map(|i| format!(" {}", quote_path(&self.part(stage, i))))
            .collect();
        let extra = args_text(extra);
        [
            Step {
                name: names[0],
                array: true,
                command: format!(
                    "{exe} {command} {bsp} --quiet --shard \"$SLURM_ARRAY_TASK_ID/{}\"{pass} -o {part}{extra}",
                    self.shards
                ),
            },
            Step {
                name: names[1],
                array: false,
                command: format!("{exe} {command} merge {bsp} --quiet{parts}{extra}"),
            },
        ]
    }

    /// The `sbatch` script of `step`.
    fn script(&self, step: &Step) -> String {
        let dir = &self.dir;
        let task = if step.array { ".$SLURM_ARRAY_TASK_ID" } else { "" };
        let pattern = if step.array { "%A_%a" } else { "%j" };
        let log = dir.join("logs").join(format!("{}-{pattern}.out", step.name));
        let mut s = String::from("#!/bin/sh\n");
        let _ = writeln!(s, "#SBATCH --job-name=srcmap-{}-{}", self.map_name(), step.name);
        let _ = writeln!(s, "#SBATCH --output={}", log.display());
        // Appended: a requeued task's log keeps the failed run's lines before the new run's.
        s.push_str(
            "#SBATCH --requeue\n#SBATCH --open-mode=append\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n",
        );
        if let Some(p) = &self.partition {
            let _ = writeln!(s, "#SBATCH --partition={p}");
        }
        if step.array {
            let _ = writeln!(s, "#SBATCH --array=0-{}", self.shards - 1);
        }
        let ok = quote_path(&dir.join("status").join(step.name)) + &format!("\"{task}\".ok");
        let _ = writeln!(s, "if {}; then\n  touch {ok}\n  exit 0\nfi", step.command);
        let tries = (self.tries.max(1) - 1).to_string();
        s.push_str(&REQUEUE_ON_FAILURE.replace("{tries}", &tries));
        s.push('\n');
        s
    }

    /// Every step's script: (file name, text).
    pub fn scripts(&self) -> Vec<(String, String)> {
        self.steps()
            .iter()
            .map(|step| (format!("{}.sbatch", step.name), self.script(step)))
            .collect()
    }
}

/// The end of every script: a failed run asks Slurm to run its task again while it has runs
/// left (the requeued task goes back to pending; the steps after it wait, as `afterok` says).
const REQUEUE_ON_FAILURE: &str = r#"echo "srcmap: step failed (run $((${SLURM_RESTART_COUNT:-0} + 1)))" >&2
if [ "${SLURM_RESTART_COUNT:-0}" -lt {tries} ]; then
  scontrol requeue "${SLURM_ARRAY_JOB_ID:-$SLURM_JOB_ID}${SLURM_ARRAY_TASK_ID:+_$SLURM_ARRAY_TASK_ID}"
  sleep 30
fi
exit 1"#;

/// Each of `args` quoted for `sh`, each after a space.
fn args_text(args: &[String]) -> String {
    args.iter().map(|s| format!(" {}", quote(s))).collect()
}

/// `path` in double quotes for `sh` (`"`, `\`, `$` and `` ` `` escaped).
fn quote_path(path: &Path) -> String {
    quote(&path.display().to_string())
}

fn quote(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// Writes the scripts, submits them in order with `afterok` dependencies and waits for the
/// chain; an error names the step that did not finish and its logs.
pub fn submit(job: &SlurmJob) -> Result<FarmRun, DriverError> {
    let started = Instant::now();
    prepare_dir(&job.dir)?;
    let mut jobs: Vec<(String, String)> = Vec::new();
    for (step, (name, text)) in job.steps().iter().zip(job.scripts()) {
        let path = job.dir.join(&name);
        crate::files::write_output(&path, text.as_bytes())?;
        let after = jobs.last().map(|(_, id)| id.as_str());
        let id = sbatch(&path, after)?;
        jobs.push((step.name.to_string(), id));
    }
    wait_for(job, &jobs)?;
    check_status(job, &jobs)?;
    Ok(FarmRun {
        jobs,
        bsp: job.bsp(),
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The run folder with its `parts`, `logs` and `status` folders; old status files removed
/// (each run's own say whether it finished).
fn prepare_dir(dir: &Path) -> Result<(), DriverError> {
    for sub in ["parts", "logs", "status"] {
        let path = dir.join(sub);
        std::fs::create_dir_all(&path).map_err(|error| DriverError::Write { path, error })?;
    }
    let status = dir.join("status");
    for entry in std::fs::read_dir(&status).into_iter().flatten().flatten() {
        let _ = std::fs::remove_file(entry.path());
    }
    Ok(())
}

/// `sbatch --parsable [--dependency=afterok:AFTER] SCRIPT`: the job id.
fn sbatch(script: &Path, after: Option<&str>) -> Result<String, DriverError> {
    let mut cmd = Command::new("sbatch");
    cmd.arg("--parsable");
    if let Some(id) = after {
        cmd.arg(format!("--dependency=afterok:{id}"));
    }
    let out = run(cmd.arg(script))?;
    let id = out.trim().split(';').next().unwrap_or("").to_string();
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
        return Err(DriverError::Farm(format!(
            "{}: sbatch answered '{}', not a job id",
            script.display(),
            out.trim()
        )));
    }
    Ok(id)
}

/// A command's standard output; an error with its standard error when it fails.
fn run(cmd: &mut Command) -> Result<String, DriverError> {
    let name = format!("{:?}", cmd.get_program());
    let out = cmd
        .output()
        .map_err(|e| DriverError::Farm(format!("{name}: cannot run: {e} (is Slurm installed here?)")))?;
    if !out.status.success() {
        return Err(DriverError::Farm(format!(
            "{name} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Waits until no job of the chain is queued or running; stops early (cancelling the chain)
/// when Slurm says a dependency can never be met, or past the job's timeout.
fn wait_for(job: &SlurmJob, jobs: &[(String, String)]) -> Result<(), DriverError> {
    let ids: Vec<&str> = jobs.iter().map(|(_, id)| id.as_str()).collect();
    let started = Instant::now();
    loop {
        let mut cmd = Command::new("squeue");
        cmd.args(["-h", "-o", "%i %T %r", "-j", &ids.join(",")]);
        // squeue fails on ids it no longer knows: they are all done.
        let queued = run(&mut cmd).unwrap_or_default();
        if queued.trim().is_empty() {
            return Ok(());
        }
        let stuck = queued.lines().find(|l| l.contains("DependencyNeverSatisfied"));
        let late = job.timeout.is_some_and(|t| started.elapsed() > t);
        if stuck.is_some() || late {
            let _ = Command::new("scancel").args(&ids).output();
            let why = stuck.map_or_else(|| "timed out".to_string(), |l| format!("job {l}"));
            return Err(DriverError::Farm(format!(
                "{}: {why}; chain cancelled",
                job.dir.display()
            )));
        }
        std::thread::sleep(job.poll);
    }
}

/// Every step left its status files; else the first that did not, with its logs' folder.
fn check_status(job: &SlurmJob, jobs: &[(String, String)]) -> Result<(), DriverError> {
    for (step, id) in job.steps().iter().zip(jobs) {
        let tasks: Vec<String> = if step.array {
            (0..job.shards).map(|i| format!("{}.{i}.ok", step.name)).collect()
        } else {
            vec![format!("{}.ok", step.name)]
        };
        if let Some(missing) = tasks.iter().find(|t| !job.dir.join("status").join(t).is_file()) {
            return Err(DriverError::Farm(format!(
                "step {} (job {}) did not finish: no {missing}; see {}",
                step.name,
                id.1,
                job.dir.join("logs").display()
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job() -> SlurmJob {
        SlurmJob {
            vmf: PathBuf::from("/maps/my map.vmf"),
            shards: 4,
            partition: Some("build".into()),
            dir: PathBuf::from("/maps/my map.farm"),
            srcmap: PathBuf::from("/opt/srcmap"),
            vbsp_args: vec![],
            vis_args: vec!["--siblings".into()],
            rad_args: vec!["--fast".into()],
            tries: 3,
            poll: Duration::from_secs(1),
            timeout: None,
        }
    }

    #[test]
    fn scripts_chain_vbsp_then_vis_and_vrad_shards_each_with_a_merge() {
        let scripts = job().scripts();
        let names: Vec<&str> = scripts.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "vbsp.sbatch",
                "vis.sbatch",
                "vismerge.sbatch",
                "rad.sbatch",
                "radmerge.sbatch"
            ]
        );
        for (at, stage, command, extra) in [
            (1, "vis", "vvis", "\"--siblings\""),
            (3, "rad", "vrad", "\"--fast\""),
        ] {
            let shards = &scripts[at].1;
            assert!(shards.contains("#SBATCH --array=0-3\n"), "{shards}");
            assert!(shards.contains("#SBATCH --partition=build\n"));
            assert!(
                shards.contains(&format!(
                    "{command} \"/maps/my map.farm/my map.bsp\" --quiet --shard \"$SLURM_ARRAY_TASK_ID/4\""
                )),
                "{shards}"
            );
            let part = format!("\"/maps/my map.farm/parts/{stage}.\"\"$SLURM_ARRAY_TASK_ID\".part {extra}");
            assert!(shards.contains(&part), "{shards}");
            assert!(shards.contains("-lt 2 ]"), "three runs: two requeues\n{shards}");
            let merge = &scripts[at + 1].1;
            assert!(
                merge.contains(&format!("{command} merge \"/maps/my map.farm/my map.bsp\"")),
                "{merge}"
            );
            for i in 0..4 {
                assert!(merge.contains(&format!("{stage}.{i}.part\"")), "{merge}");
            }
            assert!(merge.contains(extra) && !merge.contains("--array"), "{merge}");
        }
        assert!(scripts[3].1.contains("--pass direct"));
    }

    #[test]
    fn quoting_keeps_shell_characters_literal() {
        assert_eq!(quote("a\"$b`c\\"), "\"a\\\"\\$b\\`c\\\\\"");
    }
}
