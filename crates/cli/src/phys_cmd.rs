//! `physics dump` and `info` for VPhysics collision: a BSP's physcollide/physdisp lumps or a
//! `.phy` file.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::anyhow;
use serde::Serialize;
use srcmap_bsp::{BspFile, PhysCollide, PhysDisp, lump};
use srcmap_phys::{CompactSurface, KeyData, PackedHull, PhyFile, Solid, SolidBody};

#[derive(Debug, clap::Subcommand)]
pub enum PhysicsCommand {
    /// Show the collision of a BSP (physcollide, physdisp) or a `.phy` file: per model and
    /// solid the ledges, triangles, points, tree nodes, mass properties and the key data.
    Dump {
        file: PathBuf,
        /// Print a JSON report instead of text.
        #[arg(long)]
        json: bool,
        /// With `--json`: every record (ledges, triangles, edges, points, tree nodes).
        #[arg(long, requires = "json")]
        full: bool,
    },
}

pub fn run(cmd: PhysicsCommand) -> anyhow::Result<()> {
    match cmd {
        PhysicsCommand::Dump { file, json, full } => {
            let data = crate::input::read_file(&file)?;
            let report = if crate::detect::is_phy(&data) {
                phy_report(&file, &data, full)?
            } else {
                bsp_report(&file, &data, full)?
            };
            if json {
                crate::output::print_json(&report)
            } else {
                print_text(&report)
            }
        }
    }
}

/// `srcmap info` on a `.phy` file.
pub fn info(path: &Path, data: &[u8], json: bool) -> anyhow::Result<()> {
    let report = phy_report(path, data, false)?;
    if json {
        crate::output::print_json(&report)
    } else {
        print_text(&report)
    }
}

#[derive(Serialize)]
struct SolidReport {
    /// `VPHY 0x100`, `legacy`, or the header of a solid not read.
    form: String,
    bytes: usize,
    ledges: usize,
    convex_pieces: usize,
    triangles: usize,
    points: usize,
    tree_nodes: usize,
    /// Surface-property indices the triangles use.
    material_indices: Vec<u8>,
    mass_center: Option<[f32; 3]>,
    rotation_inertia: Option<[f32; 3]>,
    radius: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    records: Option<Solid>,
}

#[derive(Serialize)]
struct ModelReport {
    model_index: Option<i32>,
    solids: Vec<SolidReport>,
    key_data: KeyData,
}

#[derive(Serialize)]
struct HullReport {
    bytes: usize,
    triangles: usize,
    edges: usize,
    /// The displacement vertices the hull touches.
    vertices: Vec<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    records: Option<PackedHull>,
}

#[derive(Serialize)]
struct Report {
    file: String,
    format: &'static str,
    models: Vec<ModelReport>,
    /// physdisp: each displacement's packed outer hull (`null` for one without collision).
    #[serde(skip_serializing_if = "Option::is_none")]
    displacement_hulls: Option<Vec<Option<HullReport>>>,
}

fn solid_report(s: &Solid, full: bool) -> SolidReport {
    let bytes = s.to_bytes().len();
    let form = match &s.header {
        None => "legacy".to_string(),
        Some(h) => format!("VPHY {:#x} type {}", h.version, h.model_type),
    };
    let r = SolidReport {
        form,
        bytes,
        ledges: 0,
        convex_pieces: 0,
        triangles: 0,
        points: 0,
        tree_nodes: 0,
        material_indices: Vec::new(),
        mass_center: None,
        rotation_inertia: None,
        radius: None,
        records: full.then(|| s.clone()),
    };
    match &s.body {
        SolidBody::Surface(surface) => r.with_surface(surface),
        _ => r,
    }
}

impl SolidReport {
    /// The counts and mass properties of a solid read as an IVP compact surface.
    fn with_surface(self, surface: &CompactSurface) -> SolidReport {
        let mut m: Vec<u8> = surface
            .ledges
            .iter()
            .flat_map(|l| l.triangles.iter().map(|t| t.material_index))
            .collect();
        m.sort_unstable();
        m.dedup();
        SolidReport {
            ledges: surface.ledges.len(),
            convex_pieces: surface.terminal_ledges().count(),
            triangles: surface.triangle_count(),
            points: surface.points.iter().map(|p| p.points.len()).sum(),
            tree_nodes: surface.nodes.len(),
            material_indices: m,
            mass_center: Some(surface.header.mass_center),
            rotation_inertia: Some(surface.header.rotation_inertia),
            radius: Some(surface.header.upper_limit_radius),
            ..self
        }
    }
}

fn phy_report(path: &Path, data: &[u8], full: bool) -> anyhow::Result<Report> {
    let phy = PhyFile::parse(data).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    Ok(Report {
        file: path.display().to_string(),
        format: "phy",
        models: vec![ModelReport {
            model_index: None,
            solids: phy.solids.iter().map(|s| solid_report(s, full)).collect(),
            key_data: phy.key_data,
        }],
        displacement_hulls: None,
    })
}

fn bsp_report(path: &Path, data: &[u8], full: bool) -> anyhow::Result<Report> {
    let err = |e: &dyn std::fmt::Display| anyhow!("{}: {e}", path.display());
    let file = BspFile::parse(data).map_err(|e| err(&e))?;
    let collide_lump = file.lump(lump::PHYSCOLLIDE).map_err(|e| err(&e))?;
    let base = file.entry(lump::PHYSCOLLIDE).offset as u64;
    let pc = PhysCollide::parse(&collide_lump, file.endian(), base).map_err(|e| err(&e))?;
    let models = pc
        .read_models(base)
        .map_err(|e| anyhow!("{}: lump PHYSCOLLIDE: {e}", path.display()))?;
    let displacement_hulls = hull_reports(path, &file, full)?;
    Ok(Report {
        file: path.display().to_string(),
        format: "bsp",
        models: models
            .into_iter()
            .map(|m| ModelReport {
                model_index: Some(m.model_index),
                solids: m.solids.iter().map(|s| solid_report(s, full)).collect(),
                key_data: m.key_data,
            })
            .collect(),
        displacement_hulls,
    })
}

/// physdisp's packed hulls, one per displacement (`None` without the lump).
fn hull_reports(
    path: &Path,
    file: &BspFile<'_>,
    full: bool,
) -> anyhow::Result<Option<Vec<Option<HullReport>>>> {
    let err = |e: &dyn std::fmt::Display| anyhow!("{}: {e}", path.display());
    let disp_lump = file.lump(lump::PHYSDISP).map_err(|e| err(&e))?;
    if disp_lump.is_empty() {
        return Ok(None);
    }
    let base = file.entry(lump::PHYSDISP).offset as u64;
    let pd = PhysDisp::parse(&disp_lump, file.endian(), base).map_err(|e| err(&e))?;
    let hulls = pd
        .read_hulls(base)
        .map_err(|e| anyhow!("{}: lump PHYSDISP: {e}", path.display()))?;
    Ok(Some(
        hulls
            .into_iter()
            .map(|h| {
                h.map(|h| HullReport {
                    bytes: h.to_bytes().len(),
                    triangles: h.triangles.len(),
                    edges: h.edges.len(),
                    vertices: h.vertices(),
                    records: full.then(|| h.clone()),
                })
            })
            .collect(),
    ))
}

fn print_text(r: &Report) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    let solids: usize = r.models.iter().map(|m| m.solids.len()).sum();
    writeln!(
        out,
        "{}: {} collision, {} models, {solids} solids",
        r.file,
        r.format,
        r.models.len()
    )?;
    for m in &r.models {
        print_model(&mut out, m)?;
    }
    if let Some(d) = &r.displacement_hulls {
        print_hulls(&mut out, d)?;
    }
    Ok(())
}

/// One model: its solids, then its key data's blocks.
fn print_model(out: &mut impl Write, m: &ModelReport) -> std::io::Result<()> {
    match m.model_index {
        Some(i) => writeln!(out, "model *{i}: {} solids", m.solids.len())?,
        None => writeln!(out, "{} solids", m.solids.len())?,
    }
    for (i, s) in m.solids.iter().enumerate() {
        print_solid(out, i, s)?;
    }
    for b in &m.key_data.blocks {
        let pairs: Vec<String> = b.pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let children = if b.children.is_empty() {
            String::new()
        } else {
            format!(" (+{} blocks)", b.children.len())
        };
        writeln!(out, "  {} {{ {} }}{children}", b.name, pairs.join(" "))?;
    }
    Ok(())
}

/// One solid's line: form, size, counts, materials and mass properties.
fn print_solid(out: &mut impl Write, i: usize, s: &SolidReport) -> std::io::Result<()> {
    let mass = s
        .mass_center
        .map(|c| format!(", mass centre {c:?}, radius {}", s.radius.unwrap_or(0.0)));
    writeln!(
        out,
        "  solid {i}: {}, {} bytes, {} convex pieces ({} ledges), {} triangles, {} points, {} tree nodes, materials {:?}{}",
        s.form,
        s.bytes,
        s.convex_pieces,
        s.ledges,
        s.triangles,
        s.points,
        s.tree_nodes,
        s.material_indices,
        mass.unwrap_or_default()
    )
}

/// physdisp: how many displacements collide, then each one's hull.
fn print_hulls(out: &mut impl Write, d: &[Option<HullReport>]) -> std::io::Result<()> {
    let with = d.iter().flatten().count();
    let total: usize = d.iter().flatten().map(|h| h.bytes).sum();
    writeln!(
        out,
        "physdisp: {} displacements, {with} with collision, {total} bytes of packed hulls",
        d.len()
    )?;
    for (i, h) in d.iter().enumerate() {
        match h {
            None => writeln!(out, "  displacement {i}: no collision")?,
            Some(h) => writeln!(
                out,
                "  displacement {i}: hull of {} triangles, {} edges, {} vertices {:?}",
                h.triangles,
                h.edges,
                h.vertices.len(),
                h.vertices
            )?,
        }
    }
    Ok(())
}
