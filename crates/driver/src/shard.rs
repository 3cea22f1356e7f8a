//! Vis spread over machines (`srcmap vvis MAP.bsp --shard I/N -o PART`, then `srcmap vvis merge
//! MAP.bsp PART...`): each shard computes its share of the portal flow and writes a partial file
//! (`srcmap_shard::Part`: stage, input hash, options, shard I/N, the flow results); the merge
//! checks that the parts are one whole run of this input and options, and writes the BSP
//! `srcmap vvis` would have written, byte for byte.
//!
//! The shards of a run exchange results while they run (see [`crate::exchange`]); a shard that
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
        let options = options_text(&self.settings);
        let input = srcmap_shard::hash(&[&bsp_bytes, &[u8::from(prt.is_some())], prt_bytes]);
        let header = Header {
            stage: VIS_STAGE.to_string(),
            input,
            options,
            shard: Shard { index: 0, count },
        };
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

/// The settings that change vis's result, as a part's options text (threads and checks do
/// not change it).
fn options_text(s: &VisSettings) -> String {
    format!(
        "fast={} siblings={} radius_override={:?}",
        s.fast, s.siblings, s.radius_override
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
    let count = parts.first().map_or(1, |p| p.header.shard.count);
    let loaded = job.input.load(count)?;
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
        remove_run_files(&parent(p), &run_tag(&loaded.header), count);
    }
    Ok(ShardRun {
        report,
        output: out_path,
        records: records.len(),
        taken_over: 0,
        seconds: started.elapsed().as_secs_f64(),
    })
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
