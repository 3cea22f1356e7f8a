//! BSP → VMF: a compiled map back as a Hammer map that recompiles to the same BSP.
//!
//! [`decompile`] reads a parsed [`Bsp`]; [`decompile_bytes`] reads a file's bytes and keeps
//! going past lumps it cannot read (each named in [`Report::notes`]). What comes back:
//! - brushes from BRUSHES/BRUSHSIDES/PLANES (bevel sides skipped), each side's three plane
//!   points taken on the brush's own winding (integral where that names the same plane),
//!   its material and texture axes from its texinfo at full precision (scale `1/|vec|`, shift
//!   exact), or from the face on it, or a tool material chosen by contents;
//! - the world's brushes split back into `func_detail` (touching detail brushes grouped),
//!   area portals, ladders and occluders; brush entities' brushes moved back by their origin;
//! - displacements back on brushes (consecutive base quads that bound one convex solid share
//!   one, as Hammer's displaced boxes), every row and triangle tag bit;
//! - entities without the keys the compiler added, `prop_static` from the static-prop game
//!   lump, `info_overlay` from OVERLAYS (sides mapped back), `env_cubemap` from CUBEMAPS with
//!   the sides whose material it patched; patched materials named as their patch VMT includes;
//! - `func_viscluster` where a cluster's leaves lie in no one portal leaf's subtree.

mod brushes;
mod context;
mod cubemaps;
mod detail;
mod disp;
mod disp_brush;
mod entities;
mod error;
mod faces;
mod hidden;
mod ids;
mod instances;
mod map;
mod materials;
mod models;
mod overlays;
mod points;
mod props;
mod read;
mod texture;
mod tools;
mod types;
mod visclusters;
mod write;

pub use error::DecompileError;
pub use instances::InstanceFile;
pub use srcmap_vmf::Vmf;

use srcmap_bsp::Bsp;

/// A decompiled map and what was done.
#[derive(Debug)]
pub struct Decompiled {
    /// The VMF's text.
    pub text: String,
    pub report: Report,
    /// The instance files the map's `func_instance`s name (with [`Options::instances`]).
    pub instances: Vec<InstanceFile>,
}

/// What to decompile beyond the plain map.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Write repeated instance copies (the compiler's `InstanceAutoN-` names) as
    /// `func_instance`s of one instance file each.
    pub instances: bool,
    /// The map's name, for the instance files (`instances/{name}_N.vmf`).
    pub name: String,
}

impl Decompiled {
    /// The VMF parsed (the typed view; the text itself is [`Decompiled::text`]).
    pub fn vmf(&self) -> Result<Vmf, DecompileError> {
        Vmf::parse(self.text.as_str()).map_err(DecompileError::Written)
    }
}

/// Counts of what was written, and what could not be decompiled.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Report {
    pub solids: usize,
    pub sides: usize,
    /// Entities besides the world.
    pub entities: usize,
    pub displacements: usize,
    pub static_props: usize,
    pub overlays: usize,
    pub cubemaps: usize,
    /// Lumps that could not be read and records that could not be used, one line each.
    pub notes: Vec<String>,
}

/// Decompiles a BSP file's bytes: lumps that fail to parse are left out and named in the
/// report's notes. Fails only when the file is no Source BSP at all.
pub fn decompile_bytes(data: &[u8]) -> Result<Decompiled, DecompileError> {
    decompile_bytes_with(data, &Options::default())
}

/// [`decompile_bytes`] with options.
pub fn decompile_bytes_with(data: &[u8], options: &Options) -> Result<Decompiled, DecompileError> {
    let (bsp, notes) = read::read_lenient(data)?;
    let mut out = decompile_with(&bsp, options);
    out.report.notes.splice(0..0, notes);
    Ok(out)
}

/// Decompiles a parsed BSP; what cannot be used is named in the report's notes.
pub fn decompile(bsp: &Bsp) -> Decompiled {
    decompile_with(bsp, &Options::default())
}

/// [`decompile`] with options.
pub fn decompile_with(bsp: &Bsp, options: &Options) -> Decompiled {
    let mut map = map::build(bsp);
    let instances = match options.instances {
        true => instances::collapse(&mut map.entities, &options.name),
        false => Vec::new(),
    };
    Decompiled {
        text: write::text(&map),
        report: map.report(),
        instances,
    }
}
