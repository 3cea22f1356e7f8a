//! `info` and `convert` for VMF files.

use std::io::Write;
use std::path::Path;

use anyhow::Context as _;
use serde::Serialize;
use srcmap_vmf::{Stats as VmfStats, Vmf};

/// Parses a VMF, naming the file and `line:column` on failure.
pub fn load(path: &Path, data: &[u8]) -> anyhow::Result<Vmf> {
    Vmf::parse_bytes(data).map_err(|e| anyhow::anyhow!("{}:{e}", path.display()))
}

#[derive(Serialize)]
struct Report<'a> {
    file: String,
    format: &'static str,
    editor_version: Option<i64>,
    editor_build: Option<i64>,
    map_version: Option<i64>,
    solids: usize,
    sides: usize,
    entities: usize,
    entities_by_class: std::collections::BTreeMap<&'a str, usize>,
    displacements: usize,
    materials: std::collections::BTreeMap<&'a str, usize>,
    instances: usize,
    instance_files: &'a [String],
    hidden_solids: usize,
    hidden_entities: usize,
    visgroups: usize,
    bounds: Option<Bounds>,
}

#[derive(Serialize)]
struct Bounds {
    mins: [f64; 3],
    maxs: [f64; 3],
}

impl<'a> Report<'a> {
    fn of(path: &Path, stats: &'a VmfStats, vi: Option<&srcmap_vmf::VersionInfo>) -> Report<'a> {
        Report {
            file: path.display().to_string(),
            format: "vmf",
            editor_version: vi.map(|v| v.editor_version),
            editor_build: vi.map(|v| v.editor_build),
            map_version: vi.map(|v| v.map_version),
            solids: stats.solids,
            sides: stats.sides,
            entities: stats.entities,
            entities_by_class: stats
                .entities_by_class
                .iter()
                .map(|(k, v)| (k.as_str(), *v))
                .collect(),
            displacements: stats.displacements,
            materials: stats.materials.iter().map(|(k, v)| (k.as_str(), *v)).collect(),
            instances: stats.instances,
            instance_files: &stats.instance_files,
            hidden_solids: stats.hidden_solids,
            hidden_entities: stats.hidden_entities,
            visgroups: stats.visgroups,
            bounds: stats.bounds.map(|(mins, maxs)| Bounds { mins, maxs }),
        }
    }
}

pub fn info(path: &Path, data: &[u8], json: bool) -> anyhow::Result<()> {
    let vmf = load(path, data)?;
    let stats = vmf.stats();
    let vi = vmf.version_info.as_ref();
    let report = Report::of(path, &stats, vi);
    if json {
        crate::output::print_json(&report)?;
    } else {
        print_text(&report, vi)?;
    }
    // The process ends right after this report: freeing the hundreds of thousands of strings of
    // a large map one by one would only add to the run time.
    std::mem::forget(vmf);
    Ok(())
}

fn print_text(report: &Report<'_>, vi: Option<&srcmap_vmf::VersionInfo>) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}: VMF", report.file)?;
    if let Some(v) = vi {
        writeln!(
            out,
            "  hammer {} build {}, map version {}",
            v.editor_version, v.editor_build, v.map_version
        )?;
    }
    print_counts(&mut out, report)?;
    print_instances_and_bounds(&mut out, report)?;
    Ok(())
}

/// Solids, entities by class, materials with their uses.
fn print_counts(out: &mut impl Write, report: &Report<'_>) -> std::io::Result<()> {
    writeln!(
        out,
        "  solids {} ({} hidden), sides {}, displacements {}",
        report.solids, report.hidden_solids, report.sides, report.displacements
    )?;
    writeln!(
        out,
        "  entities {} ({} hidden), visgroups {}",
        report.entities, report.hidden_entities, report.visgroups
    )?;
    for (class, n) in &report.entities_by_class {
        writeln!(out, "    {n:6}  {class}")?;
    }
    writeln!(out, "  materials {}", report.materials.len())?;
    for (m, n) in &report.materials {
        writeln!(out, "    {n:6}  {m}")?;
    }
    Ok(())
}

fn print_instances_and_bounds(out: &mut impl Write, report: &Report<'_>) -> std::io::Result<()> {
    if report.instances > 0 {
        writeln!(
            out,
            "  instances {} ({} files)",
            report.instances,
            report.instance_files.len()
        )?;
        for f in report.instance_files {
            writeln!(out, "    {f}")?;
        }
    }
    if let Some(b) = &report.bounds {
        let f = |v: [f64; 3]| format!("({} {} {})", v[0], v[1], v[2]);
        writeln!(out, "  bounds {} to {}", f(b.mins), f(b.maxs))?;
    }
    Ok(())
}

pub fn convert(args: &crate::convert::ConvertArgs, data: &[u8]) -> anyhow::Result<()> {
    if crate::convert::output_is(args, "vmap") {
        return to_vmap(args);
    }
    crate::convert::require_extension(
        args,
        "VMF",
        &["vmf", "vmx", "vmm"],
        "name a .vmap output to convert to Source 2",
    )?;
    if args.compress || args.decompress || args.encoding.is_some() || args.game_classes.is_some() {
        anyhow::bail!("--compress, --decompress, --encoding and --game-classes do not apply to VMF");
    }
    let vmf = load(&args.input, data)?;
    crate::output::write_output(&args.output, &vmf.to_bytes()).context("writing the VMF")
}

/// `convert MAP.vmf MAP.vmap`: binary 9 unless `--encoding` names keyvalues2.
fn to_vmap(args: &crate::convert::ConvertArgs) -> anyhow::Result<()> {
    if args.compress || args.decompress {
        anyhow::bail!("--compress and --decompress apply to BSP files only");
    }
    let binary = match args.encoding.as_deref().and_then(srcmap_dmx::Encoding::parse) {
        Some((binary, Some(v))) if v != if binary { 9 } else { 4 } => {
            anyhow::bail!("a VMAP is written in binary 9 or keyvalues2 4 only")
        }
        Some((binary, _)) => binary,
        None => true,
    };
    crate::convert::convert_map(args, srcmap_driver::mapconv::vmf_to_vmap, binary)
}
