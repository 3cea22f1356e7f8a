//! Stage 2 on files: a BSP's visibility from the portal file beside it or from its own tree.

use std::path::{Path, PathBuf};
use std::time::Instant;

use srcmap_stage::{Progress, Report, Threads, timed_stage};
use srcmap_vvis::{FlowKind, VvisError};

use crate::error::DriverError;
use crate::files::{read, refuse_overwriting, write_output};

/// How vis runs, whether on its own or inside `compile`.
#[derive(Debug, Clone, Copy, Default)]
pub struct VisSettings {
    /// Only the quick first pass (vvis -fast).
    pub fast: bool,
    /// The full pass that counts what a cluster's other finished portals see as seen.
    pub siblings: bool,
    /// Worker threads (0 = all cores).
    pub threads: usize,
    /// A vis radius regardless of env_fog_controller's farz.
    pub radius_override: Option<f64>,
    /// A bound on the whole flow's walk states (`None`: the default, per one-way portal; 0:
    /// none but each walk's own, the exact PVS).
    pub flow_states: Option<u64>,
    /// How many places back in vvis's portal order a walk reuses finished results
    /// (`None`: [`srcmap_vvis::Options::lockstep`]'s default; 1: vvis `-threads 1`).
    pub lockstep: Option<usize>,
    pub verify: bool,
}

impl VisSettings {
    /// The library options these stand for.
    pub fn options(&self) -> srcmap_vvis::Options {
        srcmap_vvis::Options {
            fast: self.fast,
            threads: Threads(self.threads),
            radius_override: self.radius_override,
            flow_budget: srcmap_vvis::FlowBudget::from_flag(self.flow_states),
            lockstep: self.lockstep,
            verify: self.verify,
            flow: if self.siblings {
                FlowKind::FastSiblings
            } else {
                FlowKind::Fast
            },
            ..Default::default()
        }
    }
}

/// `srcmap vvis`: a BSP's visibility, rewritten in place or to `output`.
#[derive(Debug, Clone, Default)]
pub struct VvisJob {
    pub bsp: PathBuf,
    pub output: Option<PathBuf>,
    /// Portal file to read (default: MAP.prt beside the BSP, when there is one).
    pub prt: Option<PathBuf>,
    /// Ignore any portal file and rebuild portals from the BSP's tree.
    pub no_prt: bool,
    pub settings: VisSettings,
}

/// What a `srcmap vvis` run did.
pub struct VvisRun {
    pub report: Report,
    /// The BSP written.
    pub output: PathBuf,
    /// The portal file read, if one was.
    pub prt: Option<PathBuf>,
    /// Seconds from the start of the command to the BSP written.
    pub seconds: f64,
}

impl VvisJob {
    /// The BSP written: `output`, else the input itself.
    pub fn out_path(&self) -> &Path {
        self.output.as_deref().unwrap_or(&self.bsp)
    }

    /// The portal file to read, if any.
    pub fn prt_path(&self) -> Option<PathBuf> {
        match (&self.prt, self.no_prt) {
            (_, true) => None,
            (Some(p), false) => Some(p.clone()),
            (None, false) => Some(self.bsp.with_extension("prt")).filter(|p| p.is_file()),
        }
    }

    /// The error of a failed vis, naming the portal file when it is at fault.
    fn error(&self, prt: Option<&Path>, error: VvisError) -> DriverError {
        let source = prt.filter(|_| matches!(error, VvisError::Prt { .. }));
        DriverError::Vvis {
            path: source.unwrap_or(&self.bsp).to_path_buf(),
            error: Box::new(error),
        }
    }
}

/// Runs `srcmap vvis`: the BSP read, its portal file read (it must not be the output), vis run
/// and the BSP written. The stage (reading and vis) is timed and told to `progress` as in
/// `srcmap compile`; the run's `seconds` go on to the BSP written.
pub fn vvis(job: &VvisJob, progress: &dyn Progress) -> Result<VvisRun, DriverError> {
    let started = Instant::now();
    let prt = job.prt_path();
    // The BSP is rewritten in place by default; the portal file is only read.
    if let Some(p) = &prt {
        refuse_overwriting(p, job.out_path())?;
    }
    let (bytes, mut report) = timed_stage("vvis", progress, || job.run(prt.as_deref(), progress))?;
    write_output(job.out_path(), &bytes)?;
    report.time("total", started.elapsed());
    Ok(VvisRun {
        report,
        output: job.out_path().to_path_buf(),
        prt,
        seconds: started.elapsed().as_secs_f64(),
    })
}

impl VvisJob {
    /// Vis on the BSP read, with the portal file `prt` when there is one: the new BSP's bytes.
    fn run(&self, prt: Option<&Path>, progress: &dyn Progress) -> Result<(Vec<u8>, Report), DriverError> {
        let input = read(&self.bsp)?;
        let prt_text = prt.map(read_text).transpose()?;
        srcmap_vvis::vis_bsp(&input, prt_text.as_deref(), &self.settings.options(), progress)
            .map_err(|e| self.error(prt, e))
    }
}

/// A text file's contents, naming it in the error.
pub(crate) fn read_text(path: &Path) -> Result<String, DriverError> {
    std::fs::read_to_string(path).map_err(|source| DriverError::Read {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_choose_the_flow_and_keep_the_rest() {
        let plain = VisSettings {
            fast: true,
            threads: 3,
            radius_override: Some(512.0),
            flow_states: Some(1_000_000),
            ..Default::default()
        }
        .options();
        assert!(plain.fast && plain.flow == FlowKind::Fast);
        assert_eq!(plain.threads, Threads(3));
        assert_eq!(plain.radius_override, Some(512.0));
        assert_eq!(plain.flow_budget, srcmap_vvis::FlowBudget::Total(1_000_000));
        let exact = VisSettings {
            flow_states: Some(0),
            ..Default::default()
        };
        assert_eq!(exact.options().flow_budget, srcmap_vvis::FlowBudget::Unbounded);
        assert_eq!(
            VisSettings::default().options().flow_budget,
            srcmap_vvis::FlowBudget::default()
        );
        let siblings = VisSettings {
            siblings: true,
            ..Default::default()
        };
        assert!(siblings.options().flow == FlowKind::FastSiblings);
        let serial = VisSettings {
            lockstep: Some(1),
            ..Default::default()
        };
        assert_eq!(
            (
                serial.options().lockstep(),
                VisSettings::default().options().lockstep()
            ),
            (1, 3)
        );
    }

    #[test]
    fn the_portal_file_is_the_one_named_else_the_one_beside_the_bsp_when_there_is_one() {
        let job = VvisJob {
            bsp: PathBuf::from("/nonexistent/a.bsp"),
            prt: Some(PathBuf::from("b.prt")),
            ..Default::default()
        };
        assert_eq!(job.prt_path(), Some(PathBuf::from("b.prt")));
        assert_eq!(
            VvisJob {
                no_prt: true,
                ..job.clone()
            }
            .prt_path(),
            None
        );
        assert_eq!(
            VvisJob {
                prt: None,
                ..job.clone()
            }
            .prt_path(),
            None
        );
        assert_eq!(job.out_path(), Path::new("/nonexistent/a.bsp"));
    }
}
