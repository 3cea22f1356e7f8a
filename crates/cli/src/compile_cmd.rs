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
    /// Game directory (with gameinfo.txt): materials' compile flags, texture sizes and
    /// reflectivity from its VPKs and loose files.
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

/// Materials from a game directory (`gameinfo.txt` search paths, VPKs, loose files): the
/// VMT's `%compile*` keys and `$translucent`, the base texture's size and reflectivity.
struct GameMaterials {
    game: srcmap_content::GameDir,
}

impl MaterialSource for GameMaterials {
    fn material(&self, name: &str) -> Option<MaterialInfo> {
        use srcmap_vbsp::contents::*;
        let vmt = self.game.material(name).ok()??;
        let f = vmt.compile_flags();
        let mut info = builtin_material(name);
        let nodraw = SURF_NODRAW | SURF_NOLIGHT;
        let (mut contents, mut surf) = (CONTENTS_SOLID, 0);
        if f.water {
            (contents, surf) = (CONTENTS_WATER, SURF_WARP | SURF_NOLIGHT);
        }
        if f.slime {
            (contents, surf) = (CONTENTS_SLIME, SURF_WARP | SURF_NOLIGHT);
        }
        if f.nodraw || f.occluder || f.fog {
            surf |= nodraw;
        }
        if f.invisible || f.pass_bullets {
            // Bullets pass through: a grate (which vis also sees through).
            contents = CONTENTS_GRATE;
            if f.invisible {
                surf |= nodraw;
            }
        }
        if f.nonsolid {
            contents = CONTENTS_OPAQUE;
        }
        if f.clip {
            (contents, surf) = (CONTENTS_PLAYERCLIP | CONTENTS_MONSTERCLIP, nodraw);
        }
        if f.player_clip {
            (contents, surf) = (CONTENTS_PLAYERCLIP, nodraw);
        }
        if f.npc_clip {
            (contents, surf) = (CONTENTS_MONSTERCLIP, nodraw);
        }
        if f.trigger {
            surf |= SURF_TRIGGER | SURF_NOLIGHT;
        }
        if f.sky {
            surf |= SURF_SKY | SURF_NOLIGHT;
        }
        if f.sky_2d {
            surf |= SURF_SKY | SURF_SKY2D | SURF_NOLIGHT;
        }
        if f.hint {
            (contents, surf) = (0, nodraw | SURF_HINT);
        }
        if f.skip {
            (contents, surf) = (0, nodraw | SURF_SKIP);
        }
        if f.areaportal {
            (contents, surf) = (CONTENTS_AREAPORTAL, nodraw);
        }
        if f.block_light {
            (contents, surf) = (CONTENTS_OPAQUE, nodraw);
        }
        if f.ladder {
            contents |= CONTENTS_LADDER;
        }
        if f.origin {
            (contents, surf) = (CONTENTS_ORIGIN, nodraw);
        }
        if f.detail {
            contents |= CONTENTS_DETAIL;
        }
        if f.no_light {
            surf |= SURF_NOLIGHT;
        }
        if (f.translucent || f.alphatest) && !f.water && !f.nonsolid && contents & CONTENTS_SOLID != 0 {
            // See-through and solid: a window (sorted as translucent when it blends).
            contents = CONTENTS_WINDOW;
            if f.translucent {
                surf |= SURF_TRANS;
            }
        }
        info.contents = contents;
        info.surface_flags = surf;
        if let Some(header) = vmt
            .base_texture()
            .and_then(|t| self.game.texture_header(t).ok().flatten())
        {
            info.width = header.width as u32;
            info.height = header.height as u32;
            info.reflectivity = header.reflectivity;
        }
        if let Some(r) = vmt.reflectivity() {
            info.reflectivity = r;
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
    let game = match &args.game {
        Some(dir) => Some(GameMaterials {
            game: srcmap_content::GameDir::open(dir)
                .map_err(|e| anyhow::anyhow!("-game {}: {e}", dir.display()))?,
        }),
        None => None,
    };
    let opts = srcmap_vbsp::Options {
        materials: game
            .as_ref()
            .map(|g| g as &dyn MaterialSource)
            .unwrap_or(&srcmap_vbsp::BuiltinMaterials),
        no_detail: args.nodetail,
        allow_leak: args.allowleak,
    };
    let out_path = args
        .output
        .clone()
        .unwrap_or_else(|| args.map.with_extension("bsp"));
    let result = srcmap_vbsp::compile(&input, &opts, &Steps { quiet: args.quiet });
    let out = match result {
        Ok(o) => o,
        Err(CompileError::Leak {
            entity_id,
            classname,
            origin,
            pointfile,
        }) => {
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
    let revision = vmf
        .version_info
        .as_ref()
        .map(|v| v.map_version as i32)
        .unwrap_or(0);
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
