//! `info`, `convert`, `check`, `lump` and `pak` for BSP files.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, anyhow, bail};
use srcmap_bsp::info::{InfoReport, pak_reports};
use srcmap_bsp::pak::Pak;
use srcmap_bsp::{Bsp, BspDocument, BspFile, LumpFile, lump_name};

use crate::input::read_file as read;
use crate::output::{print_json, write_output};
use crate::usage::{refuse_overwriting, usage_error};

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The BSP to check.
    pub file: PathBuf,
    /// Print a JSON report instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Subcommand)]
pub enum LumpCommand {
    /// Write one lump to a Valve `.lmp` lump file (as stored: compressed lumps stay compressed).
    Extract {
        bsp: PathBuf,
        /// Lump number or name (`40`, `pakfile`, `LUMP_ENTITIES`).
        lump: String,
        out: PathBuf,
    },
    /// Replace one lump from a Valve `.lmp` file (its header names the lump).
    Replace {
        bsp: PathBuf,
        lmp: PathBuf,
        /// Output BSP (default: rewrite BSP in place, atomically).
        out: Option<PathBuf>,
    },
}

#[derive(Debug, clap::Subcommand)]
pub enum PakCommand {
    /// List the pakfile's entries.
    List {
        bsp: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Extract entries (all, or those named) into a directory.
    Extract {
        bsp: PathBuf,
        dir: PathBuf,
        /// Entry names to extract (default: all).
        names: Vec<String>,
    },
    /// Add files (or directories, recursively) to the pakfile, as bspzip -addfile does.
    Add {
        bsp: PathBuf,
        /// Files or directories to add; the entry name is the path relative to `--base`.
        paths: Vec<PathBuf>,
        /// Directory the entry names are relative to (default: the current directory).
        #[arg(long)]
        base: Option<PathBuf>,
        /// Store new entries LZMA-compressed instead of uncompressed.
        #[arg(long)]
        lzma: bool,
        /// Output BSP (default: rewrite BSP in place, atomically).
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

fn open<'a>(path: &Path, data: &'a [u8]) -> anyhow::Result<BspFile<'a>> {
    BspFile::parse(data).map_err(|e| anyhow!("{}: {e}", path.display()))
}

fn parse(path: &Path, file: &BspFile<'_>) -> anyhow::Result<Bsp> {
    Bsp::from_file(file).map_err(|e| anyhow!("{}: {e}", path.display()))
}

/// A library error about the file at `path`, naming it.
fn at(path: &Path) -> impl FnOnce(srcmap_bsp::BspError) -> anyhow::Error + '_ {
    move |e| anyhow!("{}: {e}", path.display())
}

/// `srcmap info` on a BSP: the report as text or JSON.
pub fn info(path: &Path, data: &[u8], json: bool) -> anyhow::Result<()> {
    let report = InfoReport::of(path.display().to_string(), data, |bsp| {
        srcmap_vvis::vis_pass(bsp, srcmap_vvis::pass::FULL_PASS_MAX_PAIRS)
    })
    .map_err(at(path))?;
    if json {
        return print_json(&report);
    }
    print_info(&report)
}

/// `srcmap info`'s text form of the report.
fn print_info(report: &InfoReport) -> anyhow::Result<()> {
    let mut o = std::io::stdout().lock();
    writeln!(
        o,
        "{}: Source BSP v{}, map revision {}, {} bytes",
        report.file, report.version, report.revision, report.file_bytes
    )?;
    writeln!(
        o,
        "byte order: {}, lump_t order: {}",
        report.endian, report.lump_order
    )?;
    write!(o, "{}", report.state)?;
    print_lumps(&mut o, report)?;
    print_entities_and_props(&mut o, report)?;
    print_map_features(&mut o, report)?;
    print_pak_and_materials(&mut o, report)?;
    Ok(())
}

/// The lump table, then the game lumps.
fn print_lumps(o: &mut impl Write, report: &InfoReport) -> std::io::Result<()> {
    writeln!(o, "lumps:")?;
    writeln!(
        o,
        "  {:>3} {:<30} {:>3} {:>10} {:>10} {:>10}  compression",
        "#", "name", "ver", "offset", "bytes", "records"
    )?;
    for l in &report.lumps {
        let records = l.records.map_or("-".to_string(), |r| r.to_string());
        let comp = if l.compressed {
            format!("lzma ({} stored)", l.stored_bytes)
        } else {
            "none".into()
        };
        writeln!(
            o,
            "  {:>3} {:<30} {:>3} {:>10} {:>10} {:>10}  {}",
            l.index, l.name, l.version, l.offset, l.bytes, records, comp
        )?;
    }
    print_game_lumps(o, report)
}

fn print_game_lumps(o: &mut impl Write, report: &InfoReport) -> std::io::Result<()> {
    if report.game_lumps.is_empty() {
        return Ok(());
    }
    writeln!(o, "game lumps:")?;
    for g in &report.game_lumps {
        let lzma = if g.compressed { " (lzma)" } else { "" };
        writeln!(o, "  {} v{} {} bytes{lzma}", g.id, g.version, g.bytes)?;
    }
    Ok(())
}

/// Entities by class, static props by model.
fn print_entities_and_props(o: &mut impl Write, report: &InfoReport) -> std::io::Result<()> {
    writeln!(o, "entities: {}", report.entities)?;
    for (class, n) in &report.entities_by_class {
        writeln!(o, "  {n:>5} {class}")?;
    }
    writeln!(
        o,
        "static props: {} ({})",
        report.static_props,
        report.static_prop_layout.as_deref().unwrap_or("no sprp")
    )?;
    for (model, n) in &report.static_props_by_model {
        writeln!(o, "  {n:>5} {model}")?;
    }
    Ok(())
}

/// The compiled features' lines: displacements, cubemaps, overlays, occluders, water.
fn print_map_features(o: &mut impl Write, report: &InfoReport) -> std::io::Result<()> {
    print_displacements(o, report)?;
    let c = &report.cubemaps;
    writeln!(
        o,
        "cubemaps: {}, {} cubemap-patched materials ({} with a patch VMT in the pakfile)",
        c.samples, c.patched_materials, c.patched_in_pakfile
    )?;
    let ov = &report.overlays;
    writeln!(
        o,
        "overlays: {} listing {} faces, {} water overlays listing {} faces",
        ov.overlays, ov.faces, ov.water_overlays, ov.water_overlay_faces
    )?;
    let oc = &report.occluders;
    writeln!(
        o,
        "occluders: {}, {} polygons, {} vertex indices",
        oc.occluders, oc.polygons, oc.vertex_indices
    )?;
    let w = &report.water;
    writeln!(
        o,
        "water volumes: {} leaf water data entries, {} leaves in water",
        w.volumes, w.leaves
    )
}

fn print_displacements(o: &mut impl Write, report: &InfoReport) -> std::io::Result<()> {
    let d = &report.displacements;
    let powers: Vec<String> = d
        .by_power
        .iter()
        .map(|(p, n)| format!("power {p}: {n}"))
        .collect();
    let powers = if powers.is_empty() {
        String::new()
    } else {
        format!(" ({})", powers.join(", "))
    };
    writeln!(
        o,
        "displacements: {}{powers}, {} disp verts, {} disp tris, {} sample-position bytes",
        d.dispinfos, d.verts, d.tris, d.sample_position_bytes
    )
}

fn print_pak_and_materials(o: &mut impl Write, report: &InfoReport) -> std::io::Result<()> {
    writeln!(o, "pakfile: {} entries", report.pakfile.len())?;
    for p in &report.pakfile {
        writeln!(o, "  {:>10} {:<6} {}", p.size, p.method, p.name)?;
    }
    writeln!(o, "materials: {}", report.materials.len())?;
    for m in &report.materials {
        writeln!(o, "  {m}")?;
    }
    Ok(())
}

pub fn convert(args: &crate::convert::ConvertArgs, data: &[u8]) -> anyhow::Result<()> {
    crate::convert::require_extension(
        args,
        "BSP",
        &["bsp"],
        "a .vmf output decompiles it (as `srcmap decompile`)",
    )?;
    let file = open(&args.input, data)?;
    let mut doc = BspDocument::from_file(&file);
    if args.compress {
        doc.compress().map_err(at(&args.input))?;
    }
    if args.decompress {
        doc.decompress().map_err(at(&args.input))?;
    }
    let out = doc.to_bytes().map_err(at(&args.output))?;
    write_output(&args.output, &out)
}

/// `srcmap check`: the engine-level invariants; warnings on stderr (or in the JSON), the first
/// violation the error.
pub fn check(args: &CheckArgs) -> anyhow::Result<()> {
    let data = read(&args.file)?;
    let file = open(&args.file, &data)?;
    let bsp = parse(&args.file, &file)?;
    let violations = srcmap_bsp::check::check(&bsp);
    let warnings = srcmap_bsp::check::quirks(&bsp);
    if args.json {
        print_check_json(&args.file, &violations, &warnings)?;
    } else {
        for w in &warnings {
            eprintln!("{}: warning: {w}", args.file.display());
        }
    }
    match violations.first() {
        None => {
            if !args.json {
                println!(
                    "{}: ok (BSP v{}, every index in range, displacement records consistent, within limits)",
                    args.file.display(),
                    bsp.version
                );
            }
            Ok(())
        }
        Some(first) => Err(check_failure(args, first, &violations)),
    }
}

fn print_check_json<V: ToString, W: ToString>(
    file: &Path,
    violations: &[V],
    warnings: &[W],
) -> anyhow::Result<()> {
    let list: Vec<String> = violations.iter().map(|v| v.to_string()).collect();
    let warning_list: Vec<String> = warnings.iter().map(|v| v.to_string()).collect();
    print_json(&serde_json::json!({
        "file": file.display().to_string(),
        "ok": violations.is_empty(),
        "violations": list,
        "warnings": warning_list,
    }))
}

/// A failed check: the violations after the first (up to 20) on stderr, the first one the error.
fn check_failure<V: std::fmt::Display>(args: &CheckArgs, first: &V, violations: &[V]) -> anyhow::Error {
    if !args.json {
        for v in violations.iter().skip(1).take(20) {
            eprintln!("{}: {v}", args.file.display());
        }
    }
    anyhow!(
        "{}: {first} ({} violation{} in all)",
        args.file.display(),
        violations.len(),
        if violations.len() == 1 { "" } else { "s" }
    )
}

pub fn lump(cmd: LumpCommand) -> anyhow::Result<()> {
    match cmd {
        LumpCommand::Extract { bsp, lump, out } => lump_extract(&bsp, &lump, &out),
        LumpCommand::Replace { bsp, lmp, out } => lump_replace(&bsp, &lmp, out),
    }
}

/// `lump extract`: one lump, as stored, into a `.lmp` file.
fn lump_extract(bsp: &Path, lump: &str, out: &Path) -> anyhow::Result<()> {
    refuse_overwriting(bsp, out)?;
    let id = srcmap_bsp::lump_by_name(lump).ok_or_else(|| {
        usage_error(format!(
            "no lump named '{lump}' (a number 0-63 or a name such as ENTITIES, PLANES)"
        ))
    })?;
    let data = read(bsp)?;
    let file = open(bsp, &data)?;
    let lmp = LumpFile::of(&file, id);
    write_output(out, &lmp.to_bytes(file.endian()))?;
    eprintln!(
        "{}: lump {id} ({}) v{}, {} bytes -> {}",
        bsp.display(),
        lump_name(id),
        lmp.version,
        lmp.data.len(),
        out.display()
    );
    Ok(())
}

/// The edit lock on `bsp` when the command writes its result over it (`target` is `bsp`).
fn in_place_lock(bsp: &Path, target: &Path) -> anyhow::Result<Option<srcmap_driver::EditLock>> {
    let in_place = target == bsp || std::fs::canonicalize(target).ok() == std::fs::canonicalize(bsp).ok();
    Ok(if in_place {
        Some(srcmap_driver::lock_for_edit(bsp)?)
    } else {
        None
    })
}

/// `lump replace`: the lump a `.lmp` file names replaced, in place or into `out`.
fn lump_replace(bsp: &Path, lmp: &Path, out: Option<PathBuf>) -> anyhow::Result<()> {
    // The BSP is edited in place by default; the lump file is only read.
    refuse_overwriting(lmp, out.as_deref().unwrap_or(bsp))?;
    let _lock = in_place_lock(bsp, out.as_deref().unwrap_or(bsp))?;
    let data = read(bsp)?;
    let file = open(bsp, &data)?;
    let lmp_data = read(lmp)?;
    let lump_file =
        LumpFile::parse(&lmp_data, file.endian()).map_err(|e| anyhow!("{}: {e}", lmp.display()))?;
    let bytes = srcmap_bsp::lmp::replaced(&data, &file, &lump_file)
        .with_context(|| format!("{}: {}", bsp.display(), lmp.display()))?;
    let target = out.unwrap_or(bsp.to_path_buf());
    write_output(&target, &bytes)?;
    eprintln!(
        "{}: replaced lump {} ({}) with {} bytes -> {}",
        bsp.display(),
        lump_file.id,
        lump_name(lump_file.id),
        lump_file.data.len(),
        target.display()
    );
    Ok(())
}

pub fn pak(cmd: PakCommand) -> anyhow::Result<()> {
    match cmd {
        PakCommand::List { bsp, json } => pak_list(&bsp, json),
        PakCommand::Extract { bsp, dir, names } => pak_extract(&bsp, &dir, &names),
        PakCommand::Add {
            bsp,
            paths,
            base,
            lzma,
            out,
        } => pak_add(&bsp, &paths, base, lzma, out),
    }
}

/// `pak list`: each entry's sizes, method and name (or JSON).
fn pak_list(bsp: &Path, json: bool) -> anyhow::Result<()> {
    let data = read(bsp)?;
    let file = open(bsp, &data)?;
    let lumpdata = srcmap_bsp::pak::pak_lump(&file).map_err(at(bsp))?;
    let pak = Pak::of_lump(&file, &lumpdata).map_err(at(bsp))?;
    if json {
        return print_json(&pak_reports(&pak));
    }
    for e in &pak.entries {
        println!(
            "{:>10} {:>10} {:<6} {}",
            e.size,
            e.compressed_size,
            e.method_name(),
            e.name
        );
    }
    Ok(())
}

/// `pak extract`: every entry, or those named, under `dir`.
fn pak_extract(bsp: &Path, dir: &Path, names: &[String]) -> anyhow::Result<()> {
    let data = read(bsp)?;
    let file = open(bsp, &data)?;
    let lumpdata = srcmap_bsp::pak::pak_lump(&file).map_err(at(bsp))?;
    let pak = Pak::of_lump(&file, &lumpdata).map_err(at(bsp))?;
    for want in names {
        if pak.find(want).is_none() {
            bail!("{}: pakfile has no entry '{want}'", bsp.display());
        }
    }
    let chosen = read_chosen(bsp, dir, &pak, names)?;
    let n = chosen.len();
    srcmap_driver::write_outputs(&chosen).with_context(|| format!("{}: nothing extracted", bsp.display()))?;
    eprintln!("{}: extracted {n} entries into {}", bsp.display(), dir.display());
    Ok(())
}

/// Every entry `pak extract` writes, with its target under `dir`: every name is checked and
/// every entry read before anything is written, so a bad entry leaves no partial extraction.
fn read_chosen(
    bsp: &Path,
    dir: &Path,
    pak: &Pak<'_>,
    names: &[String],
) -> anyhow::Result<Vec<(PathBuf, Vec<u8>)>> {
    let mut chosen = Vec::new();
    let mut targets = std::collections::HashSet::new();
    for e in pak.selected(names) {
        let rel = e.relative_path().ok_or_else(|| {
            anyhow!(
                "{}: pakfile entry '{}' has an unsafe path; nothing extracted",
                bsp.display(),
                e.name
            )
        })?;
        let target = dir.join(rel);
        refuse_overwriting(bsp, &target)?;
        if !targets.insert(target.clone()) {
            // Extracting both would silently keep whichever came last.
            eprintln!(
                "{}: warning: pakfile holds '{}' more than once; the first is extracted",
                bsp.display(),
                e.name
            );
            continue;
        }
        let bytes = pak.read(e).map_err(at(bsp))?;
        chosen.push((target, bytes));
    }
    Ok(chosen)
}

/// `pak add`: files and directories added to the pakfile, in place or into `out`.
fn pak_add(
    bsp: &Path,
    paths: &[PathBuf],
    base: Option<PathBuf>,
    lzma: bool,
    out: Option<PathBuf>,
) -> anyhow::Result<()> {
    let target = out.unwrap_or_else(|| bsp.to_path_buf());
    let _lock = in_place_lock(bsp, &target)?;
    let data = read(bsp)?;
    let file = open(bsp, &data)?;
    let base = base.unwrap_or_else(|| PathBuf::from("."));
    // The BSP is edited in place by default; the files added are only read.
    for p in paths {
        refuse_overwriting(p, &target)?;
    }
    let mut files = Vec::new();
    for p in paths {
        collect_files(p, &base, &mut files)?;
    }
    let bytes = srcmap_bsp::pak::add_files(&file, &files, lzma).map_err(at(bsp))?;
    write_output(&target, &bytes)?;
    eprintln!(
        "{}: added {} files -> {}",
        bsp.display(),
        files.len(),
        target.display()
    );
    Ok(())
}

/// The files under `path` (itself, or a directory's files in name order, recursively), each
/// named by its path relative to `base`, lower case, with forward slashes.
fn collect_files(path: &Path, base: &Path, out: &mut Vec<(String, Vec<u8>)>) -> anyhow::Result<()> {
    let meta = std::fs::metadata(path).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    if meta.is_dir() {
        let mut entries: Vec<_> = std::fs::read_dir(path)
            .map_err(|e| anyhow!("{}: {e}", path.display()))?
            .flatten()
            .collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            collect_files(&e.path(), base, out)?;
        }
        return Ok(());
    }
    let rel = path.strip_prefix(base).unwrap_or(path);
    let name: Vec<String> = rel
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    if name.is_empty() {
        bail!("{}: cannot derive an entry name", path.display());
    }
    out.push((name.join("/").to_ascii_lowercase(), read(path)?));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("srcmap-bspcmd-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn fixture() -> Vec<u8> {
        let mut bsp = Bsp::new(20);
        bsp.planes = (0..4)
            .map(|i| srcmap_bsp::Plane {
                normal: [1.0, 0.0, 0.0],
                dist: i as f32,
                kind: 0,
            })
            .collect();
        bsp.vertexes = vec![[1.0, 2.0, 3.0]; 40];
        let mut world = srcmap_bsp::Entity::default();
        world.set("classname", "worldspawn");
        bsp.entities.push(world);
        bsp.to_bytes().unwrap()
    }

    #[test]
    fn lump_extract_then_replace_is_identity() {
        let dir = temp("lump");
        let bsp = dir.join("a.bsp");
        std::fs::write(&bsp, fixture()).unwrap();
        let lmp = dir.join("planes.lmp");
        lump(LumpCommand::Extract {
            bsp: bsp.clone(),
            lump: "planes".into(),
            out: lmp.clone(),
        })
        .unwrap();
        let out = dir.join("b.bsp");
        lump(LumpCommand::Replace {
            bsp: bsp.clone(),
            lmp,
            out: Some(out.clone()),
        })
        .unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&bsp).unwrap());
        // The game lump survives a trip through a .lmp file too.
        let glmp = dir.join("game.lmp");
        lump(LumpCommand::Extract {
            bsp: bsp.clone(),
            lump: "35".into(),
            out: glmp.clone(),
        })
        .unwrap();
        lump(LumpCommand::Replace {
            bsp: bsp.clone(),
            lmp: glmp,
            out: Some(out.clone()),
        })
        .unwrap();
        let back = Bsp::parse(&std::fs::read(&out).unwrap()).unwrap();
        assert!(back.game_lumps.static_props().is_some());
        let err = lump(LumpCommand::Extract {
            bsp,
            lump: "nosuch".into(),
            out: dir.join("x"),
        })
        .unwrap_err();
        assert!(err.to_string().contains("no lump named"));
        // A lump that is not there is wrong usage (exit 2), found before anything is read.
        assert!(err.downcast_ref::<crate::usage::UsageError>().is_some());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn convert_compress_and_back() {
        let dir = temp("convert");
        let data = fixture();
        let input = dir.join("a.bsp");
        std::fs::write(&input, &data).unwrap();
        let packed = dir.join("packed.bsp");
        let args = crate::convert::ConvertArgs {
            input: input.clone(),
            output: packed.clone(),
            compress: true,
            decompress: false,
            encoding: None,
            game_classes: None,
            game: None,
            materials: None,
            cull: false,
            json: false,
        };
        convert(&args, &data).unwrap();
        let pdata = std::fs::read(&packed).unwrap();
        assert!(
            BspFile::parse(&pdata)
                .unwrap()
                .is_compressed(srcmap_bsp::lump::VERTEXES)
        );
        let plain = dir.join("plain.bsp");
        let args = crate::convert::ConvertArgs {
            input: packed,
            output: plain.clone(),
            compress: false,
            decompress: true,
            encoding: None,
            game_classes: None,
            game: None,
            materials: None,
            cull: false,
            json: false,
        };
        convert(&args, &pdata).unwrap();
        let back = Bsp::parse(&std::fs::read(&plain).unwrap()).unwrap();
        assert_eq!(back.vertexes, Bsp::parse(&data).unwrap().vertexes);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn pak_add_list_extract() {
        let dir = temp("pak");
        let bsp = dir.join("a.bsp");
        std::fs::write(&bsp, fixture()).unwrap();
        let content = dir.join("content");
        std::fs::create_dir_all(content.join("materials/test")).unwrap();
        std::fs::write(content.join("materials/test/a.vmt"), "UnlitGeneric { }").unwrap();
        std::fs::write(content.join("materials/test/b.txt"), vec![b'x'; 3000]).unwrap();
        pak(PakCommand::Add {
            bsp: bsp.clone(),
            paths: vec![content.join("materials")],
            base: Some(content.clone()),
            lzma: true,
            out: None,
        })
        .unwrap();
        let data = std::fs::read(&bsp).unwrap();
        let parsed = Bsp::parse(&data).unwrap();
        let zip = Pak::parse(&parsed.pakfile, 0).unwrap();
        let names: Vec<&str> = zip.entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["materials/test/a.vmt", "materials/test/b.txt"]);
        let out = dir.join("out");
        pak(PakCommand::Extract {
            bsp: bsp.clone(),
            dir: out.clone(),
            names: vec![],
        })
        .unwrap();
        assert_eq!(
            std::fs::read(out.join("materials/test/b.txt")).unwrap(),
            vec![b'x'; 3000]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn pak_extract_writes_nothing_when_any_name_is_unsafe() {
        let dir = temp("pakunsafe");
        let mut map = Bsp::parse(&fixture()).unwrap();
        let files: Vec<(String, Vec<u8>)> = ["materials/a.vmt", "../../x", "materials/c.vmt"]
            .iter()
            .map(|n| (n.to_string(), n.as_bytes().to_vec()))
            .collect();
        map.pakfile = Pak::parse(&[], 0).unwrap().with_files(&files, false).unwrap();
        let bsp = dir.join("a.bsp");
        std::fs::write(&bsp, map.to_bytes().unwrap()).unwrap();
        let out = dir.join("out/deeper");
        let err = pak(PakCommand::Extract {
            bsp,
            dir: out.clone(),
            names: vec![],
        })
        .unwrap_err();
        assert!(err.to_string().contains("'../../x' has an unsafe path"), "{err}");
        // Not the entry before it, and not the one it would have escaped to.
        assert!(!out.join("materials/a.vmt").exists());
        assert!(!dir.join("x").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn pak_extract_keeps_the_first_of_duplicate_names() {
        let dir = temp("pakdup");
        let mut map = Bsp::parse(&fixture()).unwrap();
        let files = vec![
            ("materials/a.vmt".to_string(), b"first".to_vec()),
            ("materials/a.vmt".to_string(), b"second".to_vec()),
        ];
        map.pakfile = Pak::parse(&[], 0).unwrap().with_files(&files, false).unwrap();
        let bsp = dir.join("a.bsp");
        std::fs::write(&bsp, map.to_bytes().unwrap()).unwrap();
        let out = dir.join("out");
        pak(PakCommand::Extract {
            bsp,
            dir: out.clone(),
            names: vec![],
        })
        .unwrap();
        assert_eq!(std::fs::read(out.join("materials/a.vmt")).unwrap(), b"first");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn check_fails_naming_the_violation() {
        let dir = temp("check");
        let mut bsp = Bsp::parse(&fixture()).unwrap();
        bsp.edges.push(srcmap_bsp::Edge([0, 99]));
        let path = dir.join("bad.bsp");
        std::fs::write(&path, bsp.to_bytes().unwrap()).unwrap();
        let err = check(&CheckArgs {
            file: path.clone(),
            json: false,
        })
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("bad.bsp") && err.contains("EDGES") && err.contains("vertex 99"),
            "{err}"
        );
        let good = dir.join("good.bsp");
        std::fs::write(&good, fixture()).unwrap();
        check(&CheckArgs {
            file: good,
            json: false,
        })
        .unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
