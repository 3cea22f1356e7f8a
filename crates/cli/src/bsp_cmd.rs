//! `info`, `convert`, `check`, `lump` and `pak` for BSP files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, anyhow, bail};
use serde::Serialize;
use srcmap_bsp::pak::Pak;
use srcmap_bsp::state::{LeakState, LightmapState, MapState, VisPass, VisState};
use srcmap_bsp::{Bsp, BspDocument, BspFile, HEADER_LUMPS, LumpFile, lump, lump_name};

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

fn read(path: &Path) -> anyhow::Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| anyhow!("{}: cannot read: {e}", path.display()))
}

fn open<'a>(path: &Path, data: &'a [u8]) -> anyhow::Result<BspFile<'a>> {
    BspFile::parse(data).map_err(|e| anyhow!("{}: {e}", path.display()))
}

fn parse(path: &Path, file: &BspFile<'_>) -> anyhow::Result<Bsp> {
    Bsp::from_file(file).map_err(|e| anyhow!("{}: {e}", path.display()))
}

#[derive(Serialize)]
struct LumpReport {
    index: usize,
    name: &'static str,
    version: u32,
    offset: u32,
    stored_bytes: u32,
    bytes: usize,
    compressed: bool,
    records: Option<usize>,
}

#[derive(Serialize)]
struct GameLumpReport {
    id: String,
    version: u16,
    flags: u16,
    bytes: usize,
    compressed: bool,
}

#[derive(Serialize)]
struct PakReport {
    name: String,
    size: u32,
    stored_size: u32,
    method: &'static str,
}

/// One report line per pakfile entry (shared by `info` and `pak list`).
fn pak_reports(pak: &Pak<'_>) -> Vec<PakReport> {
    pak.entries
        .iter()
        .map(|e| PakReport {
            name: e.name.clone(),
            size: e.size,
            stored_size: e.compressed_size,
            method: method_name(e.method),
        })
        .collect()
}

#[derive(Serialize)]
struct InfoReport {
    file: String,
    format: &'static str,
    version: i32,
    revision: i32,
    endian: &'static str,
    lump_order: &'static str,
    file_bytes: usize,
    /// Visibility, lighting, leak and feature counts (`srcmap_bsp::state`).
    state: MapState,
    lumps: Vec<LumpReport>,
    game_lumps: Vec<GameLumpReport>,
    static_prop_layout: Option<String>,
    entities: usize,
    entities_by_class: BTreeMap<String, usize>,
    static_props: usize,
    static_props_by_model: BTreeMap<String, usize>,
    displacements: DispReport,
    cubemaps: CubemapReport,
    overlays: OverlayReport,
    occluders: OccluderReport,
    water: WaterReport,
    pakfile: Vec<PakReport>,
    materials: Vec<String>,
}

#[derive(Serialize)]
struct DispReport {
    dispinfos: usize,
    /// Dispinfos per power (2, 3 and 4 in valid maps).
    by_power: BTreeMap<i32, usize>,
    verts: usize,
    tris: usize,
    sample_position_bytes: usize,
}

#[derive(Serialize)]
struct CubemapReport {
    /// CUBEMAPS samples (one per `env_cubemap`).
    samples: usize,
    /// Texdata `maps/<map>/<material>_<x>_<y>_<z>`: materials patched to name a cubemap.
    patched_materials: usize,
    /// Of those, the ones whose patch VMT is in the pakfile.
    patched_in_pakfile: usize,
}

#[derive(Serialize)]
struct OverlayReport {
    /// OVERLAYS records (one per `info_overlay`).
    overlays: usize,
    /// The faces they list, all overlays together.
    faces: usize,
    /// WATEROVERLAYS records and the faces they list.
    water_overlays: usize,
    water_overlay_faces: usize,
}

impl OverlayReport {
    fn of(bsp: &Bsp) -> OverlayReport {
        // A corrupt count never claims more faces than the record has slots for.
        let listed = |list: &[srcmap_bsp::Overlay]| -> usize {
            list.iter().map(|o| o.face_count().min(o.faces.len())).sum()
        };
        OverlayReport {
            overlays: bsp.overlays.len(),
            faces: listed(&bsp.overlays),
            water_overlays: bsp.water_overlays.len(),
            water_overlay_faces: listed(&bsp.water_overlays),
        }
    }
}

#[derive(Serialize)]
struct OccluderReport {
    /// Occluders in the OCCLUSION lump (one per `func_occluder`).
    occluders: usize,
    polygons: usize,
    vertex_indices: usize,
}

impl OccluderReport {
    fn of(bsp: &Bsp) -> OccluderReport {
        let o = bsp.occlusion.as_ref();
        OccluderReport {
            occluders: o.map_or(0, |o| o.occluders.len()),
            polygons: o.map_or(0, |o| o.polys.len()),
            vertex_indices: o.map_or(0, |o| o.vertex_indices.len()),
        }
    }
}

#[derive(Serialize)]
struct WaterReport {
    /// LEAFWATERDATA entries: one per water volume.
    volumes: usize,
    /// Leaves that name one of them.
    leaves: usize,
}

impl WaterReport {
    fn of(bsp: &Bsp) -> WaterReport {
        WaterReport {
            volumes: bsp.leaf_water_data.len(),
            leaves: bsp.leafs.iter().filter(|l| l.leaf_water_data != -1).count(),
        }
    }
}

/// Whether a texdata name is a cubemap-patched material (`maps/<map>/<material>_<x>_<y>_<z>`).
fn is_cubemap_patch(name: &str) -> bool {
    let name = name.replace('\\', "/");
    if !name.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("maps/")) {
        return false;
    }
    let parts: Vec<&str> = name.rsplitn(4, '_').collect();
    parts.len() == 4 && parts[..3].iter().all(|p| p.parse::<i32>().is_ok())
}

fn method_name(m: u16) -> &'static str {
    match m {
        0 => "stored",
        14 => "lzma",
        8 => "deflate",
        _ => "other",
    }
}

/// One row per stored lump: where it is, its size, and its record count where it has records.
fn lump_reports(file: &BspFile<'_>, bsp: &srcmap_bsp::Bsp) -> Vec<LumpReport> {
    let h = &file.header;
    let mut lumps = Vec::new();
    for i in 0..HEADER_LUMPS {
        let e = h.lumps[i];
        if e.len == 0 {
            continue;
        }
        // Lumps that are byte streams rather than record arrays show no record count.
        let bytes_only = [
            lump::PAKFILE,
            lump::TEXDATA_STRING_DATA,
            lump::DISP_LIGHTMAP_SAMPLE_POSITIONS,
            lump::MAP_FLAGS,
        ];
        let typed = !bsp.raw.contains_key(&i) && !bytes_only.contains(&i);
        lumps.push(LumpReport {
            index: i,
            name: lump_name(i),
            version: e.version,
            offset: e.offset,
            stored_bytes: e.len,
            bytes: srcmap_bsp::lzma::uncompressed_size(file.stored(i))
                .filter(|_| file.is_compressed(i))
                .map_or(e.len as usize, |n| n as usize),
            compressed: file.is_compressed(i),
            records: typed.then(|| srcmap_bsp::check::count(bsp, i)),
        });
    }
    lumps
}

impl DispReport {
    fn of(bsp: &srcmap_bsp::Bsp) -> DispReport {
        DispReport {
            dispinfos: bsp.disp_info.len(),
            by_power: bsp.disp_info.iter().fold(BTreeMap::new(), |mut m, d| {
                *m.entry(d.power).or_insert(0) += 1;
                m
            }),
            verts: bsp.disp_verts.len(),
            tris: bsp.disp_tris.len(),
            sample_position_bytes: bsp.disp_lightmap_sample_positions.len(),
        }
    }
}

/// `srcmap info`'s text form of the report.
fn print_info(report: &InfoReport) -> anyhow::Result<()> {
    use std::io::Write;
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
    print_state(&mut o, &report.state)?;
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
    if !report.game_lumps.is_empty() {
        writeln!(o, "game lumps:")?;
        for g in &report.game_lumps {
            writeln!(
                o,
                "  {} v{} {} bytes{}",
                g.id,
                g.version,
                g.bytes,
                if g.compressed { " (lzma)" } else { "" }
            )?;
        }
    }
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
    print_map_features(&mut o, report)?;
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

/// The map's state: what vvis, vrad and vbsp left in it, and its feature counts.
fn print_state(o: &mut impl std::io::Write, state: &MapState) -> std::io::Result<()> {
    let v = &state.visibility;
    if v.present {
        let pass = match v.pass {
            VisPass::Full => "full vis (the PVS is inside the portal flood: the exact pass culled it)",
            VisPass::Fast => {
                "vvis -fast (the PVS is the portal flood, which a full pass culls by more than 1%)"
            }
            VisPass::Either => "-fast and full give this same PVS (the portal flood, nothing to cull)",
            VisPass::PortalFlood => {
                "the PVS is the portal flood: vvis -fast, or a full pass with (almost) nothing to cull (not told apart)"
            }
            VisPass::None | VisPass::Unknown => {
                "-fast or full: not told (a PVS too big to compare here, or portals rebuilt from the tree that disagree with the lump)"
            }
        };
        writeln!(
            o,
            "visibility: {} clusters, PVS density {:.1}%, {pass}",
            v.clusters,
            v.pvs_density * 100.0
        )?;
    } else if state.leak == LeakState::Leaked {
        writeln!(
            o,
            "visibility: none (the map leaked: vbsp wrote no portal file for vvis)"
        )?;
    } else {
        writeln!(
            o,
            "visibility: none (vvis has not run; vbsp numbered {} clusters)",
            v.clusters
        )?;
    }
    let l = &state.lighting;
    let set = |s: &LightmapState| {
        if s.present() {
            format!("{} luxels on {} faces", s.samples, s.lit_faces)
        } else {
            "none".to_string()
        }
    };
    writeln!(
        o,
        "lighting: LDR {}; HDR {}; world lights: {} LDR, {} HDR",
        set(&l.ldr),
        set(&l.hdr),
        l.world_lights,
        l.world_lights_hdr
    )?;
    writeln!(
        o,
        "leak: {}",
        match state.leak {
            LeakState::Sealed => "none (sealed)",
            LeakState::Leaked =>
                "leaked (no vis data, and every world leaf, solid ones too, in cluster 0: vbsp wrote no portal file)",
            LeakState::Unknown => "unknown (no vis data and no world leaves)",
        }
    )?;
    let c = &state.counts;
    writeln!(
        o,
        "features: {} entities, {} brush models, {} static props, {} detail props, {} displacements, {} overlays ({} water), {} cubemaps, {} leaves",
        c.entities,
        c.brush_models,
        c.static_props,
        c.detail_props,
        c.displacements,
        c.overlays,
        c.water_overlays,
        c.cubemaps,
        c.leaves
    )?;
    let versions: Vec<String> = state
        .game_lumps
        .iter()
        .map(|g| format!("{} v{}", g.id, g.version))
        .collect();
    writeln!(
        o,
        "game lump versions: {}",
        if versions.is_empty() {
            "none".to_string()
        } else {
            versions.join(", ")
        }
    )
}

/// The compiled features' lines: displacements, cubemaps, overlays, occluders, water.
fn print_map_features(o: &mut impl std::io::Write, report: &InfoReport) -> std::io::Result<()> {
    let d = &report.displacements;
    let powers: Vec<String> = d
        .by_power
        .iter()
        .map(|(p, n)| format!("power {p}: {n}"))
        .collect();
    writeln!(
        o,
        "displacements: {}{}, {} disp verts, {} disp tris, {} sample-position bytes",
        d.dispinfos,
        if powers.is_empty() {
            String::new()
        } else {
            format!(" ({})", powers.join(", "))
        },
        d.verts,
        d.tris,
        d.sample_position_bytes
    )?;
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
    )?;
    Ok(())
}

pub fn info(path: &Path, data: &[u8], json: bool) -> anyhow::Result<()> {
    let file = open(path, data)?;
    let bsp = parse(path, &file)?;
    let h = &file.header;
    let lumps = lump_reports(&file, &bsp);
    let doc = BspDocument::from_file(&file);
    let raw_gl = doc
        .raw_game_lumps()
        .map_err(|e| anyhow!("{}: {e}", path.display()))?;
    let game_lumps = raw_gl
        .entries
        .iter()
        .filter(|g| g.id != 0 || !g.data.is_empty())
        .map(|g| GameLumpReport {
            id: srcmap_bsp::gamelump::id_name(g.id),
            version: g.version,
            flags: g.flags,
            bytes: g.len as usize,
            compressed: g.is_compressed(),
        })
        .collect();
    let mut entities_by_class = BTreeMap::new();
    for e in &bsp.entities {
        *entities_by_class
            .entry(e.classname().unwrap_or("(none)").to_string())
            .or_insert(0) += 1;
    }
    let mut static_props_by_model = BTreeMap::new();
    let sp = bsp.game_lumps.static_props();
    if let Some(sp) = sp {
        for p in &sp.props {
            *static_props_by_model
                .entry(sp.model_of(p).unwrap_or("(bad index)").to_string())
                .or_insert(0) += 1;
        }
    }
    let pak = Pak::parse(&bsp.pakfile, h.lumps[lump::PAKFILE].offset as u64)
        .map_err(|e| anyhow!("{}: {e}", path.display()))?;
    let pakfile = pak_reports(&pak);
    let mut materials: Vec<String> = (0..bsp.texdata.len())
        .filter_map(|i| bsp.texdata_name(i).map(str::to_string))
        .collect();
    materials.sort_by_key(|m| m.to_ascii_lowercase());
    materials.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
    let patched: Vec<&String> = materials.iter().filter(|m| is_cubemap_patch(m)).collect();
    let cubemaps = CubemapReport {
        samples: bsp.cubemaps.len(),
        patched_materials: patched.len(),
        patched_in_pakfile: patched
            .iter()
            .filter(|m| pak.find(&format!("materials/{m}.vmt")).is_some())
            .count(),
    };
    let state = MapState::of(&bsp);
    let report = InfoReport {
        file: path.display().to_string(),
        format: "bsp",
        version: h.version,
        revision: h.revision,
        endian: if h.endian == srcmap_bsp::Endian::Little {
            "little (VBSP)"
        } else {
            "big (PSBV, console)"
        },
        lump_order: if h.order == srcmap_bsp::LumpOrder::L4d2 {
            "l4d2"
        } else {
            "standard"
        },
        file_bytes: data.len(),
        state: MapState {
            visibility: VisState {
                pass: srcmap_vvis::vis_pass(&bsp, srcmap_vvis::pass::FULL_PASS_MAX_PAIRS),
                ..state.visibility
            },
            ..state
        },
        lumps,
        game_lumps,
        static_prop_layout: sp.map(|s| format!("{:?}", s.layout)),
        entities: bsp.entities.len(),
        entities_by_class,
        static_props: sp.map_or(0, |s| s.props.len()),
        static_props_by_model,
        displacements: DispReport::of(&bsp),
        cubemaps,
        overlays: OverlayReport::of(&bsp),
        occluders: OccluderReport::of(&bsp),
        water: WaterReport::of(&bsp),
        pakfile,
        materials,
    };
    if json {
        return crate::output::print_json(&report);
    }
    print_info(&report)
}

pub fn convert(args: &crate::convert::ConvertArgs, data: &[u8]) -> anyhow::Result<()> {
    let file = open(&args.input, data)?;
    let mut doc = BspDocument::from_file(&file);
    if args.compress {
        doc.compress()
            .map_err(|e| anyhow!("{}: {e}", args.input.display()))?;
    }
    if args.decompress {
        doc.decompress()
            .map_err(|e| anyhow!("{}: {e}", args.input.display()))?;
    }
    let out = doc
        .to_bytes()
        .map_err(|e| anyhow!("{}: {e}", args.output.display()))?;
    crate::output::write_output(&args.output, &out)
}

pub fn check(args: &CheckArgs) -> anyhow::Result<()> {
    let data = read(&args.file)?;
    let file = open(&args.file, &data)?;
    let bsp = parse(&args.file, &file)?;
    let violations = srcmap_bsp::check::check(&bsp);
    let warnings = srcmap_bsp::check::quirks(&bsp);
    if args.json {
        let list: Vec<String> = violations.iter().map(|v| v.to_string()).collect();
        let warning_list: Vec<String> = warnings.iter().map(|v| v.to_string()).collect();
        crate::output::print_json(&serde_json::json!({
            "file": args.file.display().to_string(),
            "ok": violations.is_empty(),
            "violations": list,
            "warnings": warning_list,
        }))?;
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
        Some(first) => {
            if !args.json {
                for v in violations.iter().skip(1).take(20) {
                    eprintln!("{}: {v}", args.file.display());
                }
            }
            bail!(
                "{}: {first} ({} violation{} in all)",
                args.file.display(),
                violations.len(),
                if violations.len() == 1 { "" } else { "s" }
            )
        }
    }
}

pub fn lump(cmd: LumpCommand) -> anyhow::Result<()> {
    match cmd {
        LumpCommand::Extract { bsp, lump, out } => {
            crate::usage::refuse_overwriting(&bsp, &out)?;
            let id = srcmap_bsp::lump_by_name(&lump).ok_or_else(|| {
                crate::usage::usage_error(format!(
                    "no lump named '{lump}' (a number 0-63 or a name such as ENTITIES, PLANES)"
                ))
            })?;
            let data = read(&bsp)?;
            let file = open(&bsp, &data)?;
            let lmp = LumpFile {
                id,
                version: file.entry(id).version,
                revision: file.header.revision,
                data: file.stored(id),
            };
            crate::output::write_output(&out, &lmp.to_bytes(file.endian()))?;
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
        LumpCommand::Replace { bsp, lmp, out } => {
            // The BSP is edited in place by default; the lump file is only read.
            crate::usage::refuse_overwriting(&lmp, out.as_ref().unwrap_or(&bsp))?;
            let data = read(&bsp)?;
            let file = open(&bsp, &data)?;
            let lmp_data = read(&lmp)?;
            let lump_file =
                LumpFile::parse(&lmp_data, file.endian()).map_err(|e| anyhow!("{}: {e}", lmp.display()))?;
            let mut doc = BspDocument::from_file(&file);
            doc.set_lump_file(&lump_file)
                .with_context(|| format!("{}", lmp.display()))?;
            let bytes = doc.to_bytes().map_err(|e| anyhow!("{}: {e}", bsp.display()))?;
            let target = out.unwrap_or(bsp.clone());
            crate::output::write_output(&target, &bytes)?;
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
    }
}

/// The pakfile lump's bytes (decompressed when stored LZMA).
fn pak_lump<'d>(bsp: &Path, file: &BspFile<'d>) -> anyhow::Result<std::borrow::Cow<'d, [u8]>> {
    file.lump(lump::PAKFILE)
        .map_err(|e| anyhow!("{}: {e}", bsp.display()))
}

/// The pakfile zip over [`pak_lump`]'s bytes.
fn parse_pak<'a>(bsp: &Path, file: &BspFile<'_>, lumpdata: &'a [u8]) -> anyhow::Result<Pak<'a>> {
    Pak::parse(lumpdata, file.entry(lump::PAKFILE).offset as u64)
        .map_err(|e| anyhow!("{}: {e}", bsp.display()))
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
    let lumpdata = pak_lump(bsp, &file)?;
    let pak = parse_pak(bsp, &file, &lumpdata)?;
    if json {
        let list = pak_reports(&pak);
        return crate::output::print_json(&list);
    }
    for e in &pak.entries {
        println!(
            "{:>10} {:>10} {:<6} {}",
            e.size,
            e.compressed_size,
            method_name(e.method),
            e.name
        );
    }
    Ok(())
}

/// `pak extract`: every entry, or those named, under `dir`.
fn pak_extract(bsp: &Path, dir: &Path, names: &[String]) -> anyhow::Result<()> {
    let data = read(bsp)?;
    let file = open(bsp, &data)?;
    let lumpdata = pak_lump(bsp, &file)?;
    let pak = parse_pak(bsp, &file, &lumpdata)?;
    for want in names {
        if pak.find(want).is_none() {
            bail!("{}: pakfile has no entry '{want}'", bsp.display());
        }
    }
    // Every name is checked and every entry read before anything is written: a bad
    // entry leaves no partial extraction behind.
    let mut chosen = Vec::new();
    for e in &pak.entries {
        if !names.is_empty()
            && !names.iter().any(|w| {
                w.replace('\\', "/")
                    .eq_ignore_ascii_case(&e.name.replace('\\', "/"))
            })
        {
            continue;
        }
        let rel = safe_relative(&e.name).ok_or_else(|| {
            anyhow!(
                "{}: pakfile entry '{}' has an unsafe path; nothing extracted",
                bsp.display(),
                e.name
            )
        })?;
        let target = dir.join(rel);
        crate::usage::refuse_overwriting(bsp, &target)?;
        let bytes = pak.read(e).map_err(|err| anyhow!("{}: {err}", bsp.display()))?;
        chosen.push((target, bytes));
    }
    let mut n = 0;
    for (target, bytes) in chosen {
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|err| anyhow!("{}: cannot create: {err}", parent.display()))?;
        }
        crate::output::write_output(&target, &bytes)?;
        n += 1;
    }
    eprintln!("{}: extracted {n} entries into {}", bsp.display(), dir.display());
    Ok(())
}

/// `pak add`: files and directories added to the pakfile, in place or into `out`.
fn pak_add(
    bsp: &Path,
    paths: &[PathBuf],
    base: Option<PathBuf>,
    lzma: bool,
    out: Option<PathBuf>,
) -> anyhow::Result<()> {
    let data = read(bsp)?;
    let file = open(bsp, &data)?;
    let base = base.unwrap_or_else(|| PathBuf::from("."));
    let target = out.unwrap_or_else(|| bsp.to_path_buf());
    // The BSP is edited in place by default; the files added are only read.
    for p in paths {
        crate::usage::refuse_overwriting(p, &target)?;
    }
    let mut files = Vec::new();
    for p in paths {
        collect_files(p, &base, &mut files)?;
    }
    let lumpdata = pak_lump(bsp, &file)?;
    let pak = parse_pak(bsp, &file, &lumpdata)?;
    let zip = pak
        .with_files(&files, lzma)
        .map_err(|e| anyhow!("{}: {e}", bsp.display()))?;
    let mut doc = BspDocument::from_file(&file);
    let version = doc.lumps[lump::PAKFILE].version;
    doc.set_lump(lump::PAKFILE, zip, version);
    let bytes = doc.to_bytes().map_err(|e| anyhow!("{}: {e}", bsp.display()))?;
    crate::output::write_output(&target, &bytes)?;
    eprintln!(
        "{}: added {} files -> {}",
        bsp.display(),
        files.len(),
        target.display()
    );
    Ok(())
}

/// A zip entry name as a relative path without `..` or roots.
fn safe_relative(name: &str) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for part in name.split(['/', '\\']) {
        match part {
            "" | "." => continue,
            ".." => return None,
            p if p.contains(':') => return None,
            p => out.push(p),
        }
    }
    (!out.as_os_str().is_empty()).then_some(out)
}

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
        };
        convert(&args, &data).unwrap();
        let pdata = std::fs::read(&packed).unwrap();
        assert!(BspFile::parse(&pdata).unwrap().is_compressed(lump::VERTEXES));
        let plain = dir.join("plain.bsp");
        let args = crate::convert::ConvertArgs {
            input: packed,
            output: plain.clone(),
            compress: false,
            decompress: true,
            encoding: None,
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
        assert!(safe_relative("../../etc/passwd").is_none());
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
