//! `vbsp` and `compile`: the map compiler's stages.

use std::path::{Path, PathBuf};

use anyhow::Context;
use srcmap_vbsp::{CompileError, MaterialInfo, MaterialSource, Severity};

#[derive(Debug, clap::Args)]
pub struct VbspArgs {
    /// The map source.
    pub map: PathBuf,
    /// Output BSP (default: the map's path with `.bsp`).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Game directory for materials (loose `materials/*.vmt` files are read).
    #[arg(long)]
    pub game: Option<PathBuf>,
    /// Leave out func_detail brushes.
    #[arg(long)]
    pub nodetail: bool,
    /// On a leak, write the pointfile and still write the BSP (unfilled, no portal file),
    /// as Valve's VBSP does; the exit status is 0.
    #[arg(long)]
    pub allowleak: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Debug, clap::Args)]
pub struct CompileArgs {
    #[command(flatten)]
    pub vbsp: VbspArgs,
}

struct Steps {
    quiet: bool,
}

impl srcmap_vbsp::Progress for Steps {
    fn step(&self, name: &str) {
        if !self.quiet {
            eprintln!("vbsp: {name}");
        }
    }
}

/// Materials from a game directory's loose `.vmt` files: `%compile*` keys, `$translucent`,
/// `$basetexture` size left at the default (VTF headers are read once the content crate
/// can find them in VPKs).
struct LooseMaterials {
    root: PathBuf,
}

impl MaterialSource for LooseMaterials {
    fn material(&self, name: &str) -> Option<MaterialInfo> {
        let rel = format!("materials/{}.vmt", name.to_ascii_lowercase().replace('\\', "/"));
        let text = std::fs::read_to_string(self.root.join(rel)).ok()?.to_ascii_lowercase();
        let flag = |key: &str| {
            text.lines().any(|l| {
                let l = l.trim().replace('"', "");
                let mut it = l.split_whitespace();
                it.next() == Some(key) && it.next().is_some_and(|v| v != "0")
            })
        };
        use srcmap_vbsp::contents::*;
        let mut info = builtin_material(name);
        if flag("%compilewater") {
            info.contents = CONTENTS_WATER;
            info.surface_flags |= SURF_WARP | SURF_NOLIGHT;
        }
        if flag("%compilenodraw") {
            info.surface_flags |= SURF_NODRAW | SURF_NOLIGHT;
        }
        if flag("%compilesky") {
            info.surface_flags |= SURF_SKY | SURF_NOLIGHT;
        }
        if flag("%compiledetail") {
            info.contents |= CONTENTS_DETAIL;
        }
        if flag("%compilenonsolid") {
            info.contents &= !CONTENTS_SOLID;
        }
        if flag("%compileclip") {
            info.contents = CONTENTS_PLAYERCLIP | CONTENTS_MONSTERCLIP;
        }
        if flag("$translucent") || flag("$alphatest") {
            info.surface_flags |= SURF_TRANS;
        }
        Some(info)
    }
}

fn read_map(path: &Path) -> anyhow::Result<srcmap_vmf::Vmf> {
    let bytes = std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
    srcmap_vmf::Vmf::parse_bytes(&bytes)
        .or_else(|_| srcmap_vmf::Vmf::parse_lenient(&bytes))
        .map_err(|e| anyhow::anyhow!("{}:{e}", path.display()))
}

pub fn vbsp(args: &VbspArgs) -> anyhow::Result<()> {
    let vmf = read_map(&args.map)?;
    let mut input = srcmap_vbsp::input_from_vmf(&vmf);
    let loader = |name: &str| -> Option<srcmap_vbsp::MapInput> {
        let path = find_instance(&args.map, args.game.as_deref(), name)?;
        read_map(&path).ok().map(|v| srcmap_vbsp::input_from_vmf(&v))
    };
    for problem in srcmap_vbsp::instances::collapse(&mut input, &loader) {
        eprintln!("{}: warning: {problem}", args.map.display());
    }
    let game = args.game.as_ref().map(|g| LooseMaterials { root: g.clone() });
    let opts = srcmap_vbsp::Options {
        materials: game.as_ref().map(|g| g as &dyn MaterialSource).unwrap_or(&srcmap_vbsp::BuiltinMaterials),
        no_detail: args.nodetail,
        allow_leak: args.allowleak,
    };
    let out_path = args.output.clone().unwrap_or_else(|| args.map.with_extension("bsp"));
    let result = srcmap_vbsp::compile(&input, &opts, &Steps { quiet: args.quiet });
    let out = match result {
        Ok(o) => o,
        Err(CompileError::Leak { entity_id, classname, origin, pointfile }) => {
            let lin = out_path.with_extension("lin");
            crate::write_output(&lin, pointfile.as_bytes())?;
            anyhow::bail!(
                "{}: leak: entity {entity_id} '{classname}' at ({} {} {}) can reach the void; pointfile {}",
                args.map.display(),
                origin.x,
                origin.y,
                origin.z,
                lin.display()
            );
        }
        Err(e) => anyhow::bail!("{}: {e}", args.map.display()),
    };
    for d in &out.diagnostics {
        if !args.quiet || d.severity == Severity::Error {
            eprintln!("{}: {d}", args.map.display());
        }
    }
    let revision = vmf.version_info.as_ref().map(|v| v.map_version as i32).unwrap_or(0);
    crate::write_output(&out_path, &out.bsp.to_bytes(revision)?)?;
    if let Some(CompileError::Leak { pointfile, .. }) = &out.leak {
        // Valve writes no portal file for a leaked map: vis cannot run on it.
        crate::write_output(&out_path.with_extension("lin"), pointfile.as_bytes())?;
        let _ = std::fs::remove_file(out_path.with_extension("prt"));
    } else {
        crate::write_output(&out_path.with_extension("prt"), out.prt.as_bytes())?;
        // A stale pointfile from an earlier leak would mislead.
        let _ = std::fs::remove_file(out_path.with_extension("lin"));
    }
    if !args.quiet {
        let s = &out.stats;
        eprintln!(
            "vbsp: wrote {} ({} brushes, {} models, {} faces, {} leaves, {} clusters, {} portals)",
            out_path.display(),
            s.brushes,
            s.models,
            s.faces,
            s.world_leaves,
            s.clusters,
            s.portals
        );
    }
    Ok(())
}

/// An instance file: relative to the map's folder, then under `-game`'s `maps/` and
/// `mapsrc/` (as Hammer and VBSP look for them).
fn find_instance(map: &Path, game: Option<&Path>, name: &str) -> Option<PathBuf> {
    let name = name.replace('\\', "/");
    let mut roots = vec![map.parent().unwrap_or(Path::new(".")).to_path_buf()];
    if let Some(g) = game {
        roots.push(g.join("maps"));
        roots.push(g.join("mapsrc"));
        roots.push(g.join("../sdk_content/maps"));
        roots.push(g.to_path_buf());
    }
    let base = Path::new(&name).file_name()?.to_owned();
    let found = roots.iter().map(|r| r.join(&name)).find(|p| p.is_file());
    // Instances copied flat beside the map (their folder dropped) are found too.
    found.or_else(|| roots.iter().map(|r| r.join(&base)).find(|p| p.is_file()))
}

pub fn compile(args: &CompileArgs) -> anyhow::Result<()> {
    vbsp(&args.vbsp)
}
