//! Vis spread over machines (`srcmap vvis MAP.bsp --shard I/N -o PART`, then `srcmap vvis merge
//! MAP.bsp PART...`): each shard computes its share of the portal flow and writes a partial file
//! (`srcmap_shard::Part`: stage, input hash, options, shard I/N, the flow results); the merge
//! checks that the parts are one whole run of this input and options, and writes the BSP
//! `srcmap vvis` would have written, byte for byte.
//!
//! Lighting the same way (`srcmap vrad MAP.bsp --shard I/N --pass direct -o PART`, then
//! `srcmap vrad merge MAP.bsp PART...`): each shard lights its share of the faces
//! (`srcmap_vrad::shard`: direct light and the bounce gather rays); the merge puts them
//! together and runs the rest (the bounce passes, which trace no ray, ambient cubes, the
//! lightmaps), writing the BSP `srcmap vrad` would have written. Lighting shards need no
//! exchange: each face's light is computed from the map alone.
//!
//! The vis shards of a run exchange results while they run (see [`crate::exchange`]); a shard that
//! runs alone still finishes (taking the others' positions over), so a run is never stuck on a
//! shard the scheduler has not started.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use srcmap_bsp::{Bsp, BspFile};
use srcmap_shard::{Header, Part, Shard, ShardError};
use srcmap_stage::{Progress, Report};
use srcmap_vvis::{FlowRecord, ShardOf};

use crate::error::DriverError;
use crate::exchange::{FileExchange, remove_run_files};
use crate::files::{read, refuse_overwriting, write_output};
use crate::messages::Messages;
use crate::vrad::VradJob;
use crate::vvis::{VisSettings, read_text};

/// The stage name vis parts carry.
pub const VIS_STAGE: &str = "vvis";

/// What a vis shard or merge reads: the BSP, its portal file (if any) and the settings.
#[derive(Debug, Clone, Default)]
pub struct VisInput {
    pub bsp: PathBuf,
    /// The portal file to read, if any (the CLI resolves `MAP.prt` beside the BSP).
    pub prt: Option<PathBuf>,
    pub settings: VisSettings,
}

/// `srcmap vvis MAP.bsp --shard I/N -o PART`.
#[derive(Debug, Clone)]
pub struct VisShardJob {
    pub input: VisInput,
    pub shard: Shard,
    /// The partial file to write.
    pub part: PathBuf,
    /// Where the shards exchange results (default: the part's folder).
    pub exchange: Option<PathBuf>,
    /// How long a shard that gives no sign of life is waited for before its positions are
    /// computed here.
    pub patience: Duration,
}

/// `srcmap vvis merge MAP.bsp PART...`.
#[derive(Debug, Clone)]
pub struct VisMergeJob {
    pub input: VisInput,
    pub parts: Vec<PathBuf>,
    /// The BSP to write (default: the input, rewritten).
    pub output: Option<PathBuf>,
}

/// What a shard or a merge did.
pub struct ShardRun {
    pub report: Report,
    pub output: PathBuf,
    /// Shard: flow results written, and how many were other shards' positions.
    pub records: usize,
    pub taken_over: usize,
    pub seconds: f64,
}

/// The inputs read, and the header every part of this run carries (its shard aside).
struct Loaded {
    bsp_bytes: Vec<u8>,
    prt: Option<String>,
    header: Header,
}

impl VisInput {
    fn load(&self, count: u32) -> Result<Loaded, DriverError> {
        let bsp_bytes = read(&self.bsp)?;
        let prt = self.prt.as_deref().map(read_text).transpose()?;
        let prt_bytes = prt.as_deref().map_or(&b""[..], str::as_bytes);
        let input = srcmap_shard::hash(&[&bsp_bytes, &[u8::from(prt.is_some())], prt_bytes]);
        let header = run_header(VIS_STAGE, input, options_text(&self.settings), count);
        Ok(Loaded {
            bsp_bytes,
            prt,
            header,
        })
    }

    fn vvis_error(&self, error: srcmap_vvis::VvisError) -> DriverError {
        DriverError::Vvis {
            path: self.bsp.clone(),
            error: Box::new(error),
        }
    }
}

/// The header every part of a run carries (shard `0/count`: the shard aside).
fn run_header(stage: &str, input: u64, options: String, count: u32) -> Header {
    Header {
        stage: stage.to_string(),
        input,
        options,
        shard: Shard { index: 0, count },
    }
}

/// The settings that change vis's result, as a part's options text (threads and checks do
/// not change it).
fn options_text(s: &VisSettings) -> String {
    let budget = s.flow_states.map(|n| format!(" flow_states={n}"));
    let lockstep = s.lockstep.map(|n| format!(" lockstep={n}"));
    format!(
        "fast={} siblings={} radius_override={:?}{}{}",
        s.fast,
        s.siblings,
        s.radius_override,
        budget.unwrap_or_default(),
        lockstep.unwrap_or_default()
    )
}

/// The name run files of this input, options and shard count share (see [`crate::exchange`]).
fn run_tag(header: &Header) -> String {
    let options = srcmap_shard::hash(&[header.options.as_bytes()]);
    format!(
        "srcmap-vvis-{:016x}-{:08x}-n{}",
        header.input, options as u32, header.shard.count
    )
}

/// Runs one vis shard and writes its part (atomically: a shard that fails writes nothing).
pub fn vis_shard(job: &VisShardJob, progress: &dyn Progress) -> Result<ShardRun, DriverError> {
    let started = Instant::now();
    refuse_overwriting(&job.input.bsp, &job.part)?;
    let loaded = job.input.load(job.shard.count)?;
    let bsp = parse_bsp(&job.input.bsp, &loaded.bsp_bytes)?;
    let dir = job.exchange.clone().unwrap_or_else(|| parent(&job.part));
    let tag = run_tag(&loaded.header);
    let exchange =
        FileExchange::open(&dir, &tag, job.shard.index, job.shard.count, job.patience).map_err(|error| {
            DriverError::Write {
                path: dir.clone(),
                error,
            }
        })?;
    let shard = ShardOf {
        index: job.shard.index,
        count: job.shard.count,
    };
    let options = job.input.settings.options();
    let out = srcmap_vvis::vis_shard(&bsp, loaded.prt.as_deref(), &options, shard, &exchange, progress);
    exchange
        .close()
        .map_err(|error| DriverError::Write { path: dir, error })?;
    let out = out.map_err(|e| job.input.vvis_error(e))?;
    let part = Part {
        header: Header {
            shard: job.shard,
            ..loaded.header
        },
        payload: srcmap_vvis::part::payload(out.portals, out.words, &out.records),
    };
    write_output(&job.part, &part.to_bytes())?;
    Ok(ShardRun {
        report: out.report,
        output: job.part.clone(),
        records: out.records.len(),
        taken_over: out.taken_over,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Merges the parts of a sharded vis into the BSP; refuses, naming the part, a part that is
/// missing, damaged, of another run or given twice, and writes nothing then.
pub fn vis_merge(job: &VisMergeJob, progress: &dyn Progress) -> Result<ShardRun, DriverError> {
    let started = Instant::now();
    let out_path = job.output.clone().unwrap_or_else(|| job.input.bsp.clone());
    for p in &job.parts {
        refuse_overwriting(p, &out_path)?;
    }
    let parts = read_parts(&job.parts)?;
    let loaded = job.input.load(shard_count(&parts))?;
    check_parts(&job.parts, &parts, &loaded.header)?;
    let records = part_records(&job.parts, &parts)?;
    let options = job.input.settings.options();
    let (bytes, report) = srcmap_vvis::merge_bsp(
        &loaded.bsp_bytes,
        loaded.prt.as_deref(),
        &options,
        &records,
        progress,
    )
    .map_err(|e| job.input.vvis_error(e))?;
    write_output(&out_path, &bytes)?;
    for p in &job.parts {
        remove_run_files(&parent(p), &run_tag(&loaded.header), loaded.header.shard.count);
    }
    Ok(ShardRun {
        report,
        output: out_path,
        records: records.len(),
        taken_over: 0,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// How many shards the run of `parts` had (as the first part says).
fn shard_count(parts: &[Part]) -> u32 {
    parts.first().map_or(1, |p| p.header.shard.count)
}

/// Each part file read and parsed; the first that cannot be names itself.
fn read_parts(paths: &[PathBuf]) -> Result<Vec<Part>, DriverError> {
    if paths.is_empty() {
        let error = ShardError::Missing { index: 0, count: 1 };
        return Err(part_error(Path::new("."), error));
    }
    paths
        .iter()
        .map(|p| Part::parse(&read(p)?).map_err(|error| part_error(p, error)))
        .collect()
}

/// The parts are one whole run of `expected`'s input and options.
fn check_parts(paths: &[PathBuf], parts: &[Part], expected: &Header) -> Result<(), DriverError> {
    let headers: Vec<Header> = parts.iter().map(|p| p.header.clone()).collect();
    srcmap_shard::check_set(expected, &headers).map_err(|(at, error)| match at {
        Some(i) => part_error(&paths[i], error),
        None => DriverError::Shard {
            path: parent(&paths[0]),
            error: Box::new(error),
        },
    })
}

/// The flow records of every part.
fn part_records(paths: &[PathBuf], parts: &[Part]) -> Result<Vec<FlowRecord>, DriverError> {
    let mut records = Vec::new();
    for (path, part) in paths.iter().zip(parts) {
        let (_, _, mut r) = srcmap_vvis::part::read_payload(&part.payload)
            .map_err(|e| part_error(path, ShardError::Payload(e.to_string())))?;
        records.append(&mut r);
    }
    Ok(records)
}

fn part_error(path: &Path, error: ShardError) -> DriverError {
    DriverError::Shard {
        path: path.to_path_buf(),
        error: Box::new(error),
    }
}

fn parse_bsp(path: &Path, bytes: &[u8]) -> Result<Bsp, DriverError> {
    let bsp_error = |error| DriverError::Bsp {
        path: path.to_path_buf(),
        error: Box::new(error),
    };
    let file = BspFile::parse(bytes).map_err(bsp_error)?;
    Bsp::from_file(&file).map_err(bsp_error)
}

/// The folder a file is in (`.` for a bare name).
fn parent(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The stage name lighting's direct-light parts carry.
pub const RAD_DIRECT_STAGE: &str = "vrad direct";

/// `srcmap vrad MAP.bsp --shard I/N --pass direct -o PART`: `job`'s BSP, settings and sources
/// (its output unused).
#[derive(Debug, Clone)]
pub struct RadShardJob {
    pub job: VradJob,
    pub shard: Shard,
    /// The partial file to write.
    pub part: PathBuf,
}

/// `srcmap vrad merge MAP.bsp PART...`: `job` as the shards had it, its output the BSP to write.
#[derive(Debug, Clone)]
pub struct RadMergeJob {
    pub job: VradJob,
    pub parts: Vec<PathBuf>,
}

/// A lighting run's inputs read: the BSP, the options, and the header of its parts.
struct RadLoaded {
    bsp_bytes: Vec<u8>,
    options: srcmap_vrad::Options,
    header: Header,
}

/// Reads what `job` lights with; the header's input hash covers the BSP and the texture lights
/// read from every source (`.rad` files, the material table), its options the settings that
/// change the result (not threads nor checks) and the game and table named.
fn rad_load(job: &VradJob, count: u32, messages: &dyn Messages) -> Result<RadLoaded, DriverError> {
    let bsp_bytes = read(&job.bsp)?;
    let options = job.options(messages)?;
    let texlights = format!("{:?}", options.texlights);
    let input = srcmap_shard::hash(&[&bsp_bytes, texlights.as_bytes()]);
    let settings = crate::vrad::RadSettings {
        threads: 0,
        verify: false,
        ..job.settings
    };
    let text = format!(
        "{settings:?} game={:?} materials={:?}",
        job.sources.game, job.sources.materials
    );
    Ok(RadLoaded {
        bsp_bytes,
        options,
        header: run_header(RAD_DIRECT_STAGE, input, text, count),
    })
}

fn vrad_error(job: &VradJob, error: srcmap_vrad::VradError) -> DriverError {
    DriverError::Vrad {
        path: job.bsp.clone(),
        error: Box::new(error),
    }
}

/// Lights one shard's faces and writes its part (atomically: a shard that fails writes
/// nothing).
pub fn rad_shard(
    job: &RadShardJob,
    progress: &dyn Progress,
    messages: &dyn Messages,
) -> Result<ShardRun, DriverError> {
    let started = Instant::now();
    refuse_overwriting(&job.job.bsp, &job.part)?;
    let loaded = rad_load(&job.job, job.shard.count, messages)?;
    let shard = srcmap_vrad::shard::FaceShard {
        index: job.shard.index,
        count: job.shard.count,
    };
    let (payload, report) =
        srcmap_vrad::shard::light_shard(&loaded.bsp_bytes, &loaded.options, shard, progress)
            .map_err(|e| vrad_error(&job.job, e))?;
    let header = Header {
        shard: job.shard,
        ..loaded.header
    };
    write_output(&job.part, &Part { header, payload }.to_bytes())?;
    Ok(ShardRun {
        report,
        output: job.part.clone(),
        records: 0,
        taken_over: 0,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Merges the parts of a sharded lighting into the lit BSP; refuses, naming the part, a part
/// that is missing, damaged, of another run or given twice, and writes nothing then.
pub fn rad_merge(
    job: &RadMergeJob,
    progress: &dyn Progress,
    messages: &dyn Messages,
) -> Result<ShardRun, DriverError> {
    let started = Instant::now();
    let out_path = job.job.out_path().to_path_buf();
    for p in &job.parts {
        refuse_overwriting(p, &out_path)?;
    }
    let parts = read_parts(&job.parts)?;
    let loaded = rad_load(&job.job, shard_count(&parts), messages)?;
    check_parts(&job.parts, &parts, &loaded.header)?;
    let payloads: Vec<&[u8]> = parts.iter().map(|p| p.payload.as_slice()).collect();
    let (bytes, report) =
        srcmap_vrad::shard::relight_merged(&loaded.bsp_bytes, &loaded.options, &payloads, progress)
            .map_err(|e| vrad_error(&job.job, e))?;
    write_output(&out_path, &bytes)?;
    Ok(ShardRun {
        report,
        output: out_path,
        records: parts.len(),
        taken_over: 0,
        seconds: started.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flow_budget_is_part_of_the_options_parts_must_share() {
        let plain = VisSettings::default();
        let budget = |n| VisSettings {
            flow_states: Some(n),
            ..Default::default()
        };
        assert_eq!(
            options_text(&plain),
            "fast=false siblings=false radius_override=None"
        );
        assert_ne!(options_text(&budget(10)), options_text(&plain));
        assert_ne!(options_text(&budget(10)), options_text(&budget(20)));
    }

    #[test]
    fn a_lockstep_is_part_of_the_options_parts_must_share() {
        let lockstep = |n| VisSettings {
            lockstep: Some(n),
            ..Default::default()
        };
        assert_ne!(options_text(&lockstep(1)), options_text(&VisSettings::default()));
        assert_ne!(options_text(&lockstep(1)), options_text(&lockstep(3)));
    }
}
