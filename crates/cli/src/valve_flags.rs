//! Valve's flags, as Valve's vbsp, vvis and vrad take them: one dash before a long name
//! (`-game`, `-fast`), in any case (`-StaticPropLighting` is `-staticproplighting`). Every flag
//! their documentation and argument parsing know is here, either mapped to the flag of ours
//! that does the same, or refused by name with why; an unknown multi-letter flag is refused
//! too, never read as a cluster of one-letter flags (`-onlyents` as `-o nlyents`).

use std::collections::HashMap;
use std::ffi::OsString;

use clap::CommandFactory;

/// A compile stage whose flags Valve's tool of that name documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Vbsp,
    Vvis,
    Vrad,
}

/// What one of Valve's flags does here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Meaning {
    /// Our flag of this long name does what Valve's does.
    Ours(&'static str),
    /// What Valve's flag asks is what srcmap always does: the flag is accepted and dropped.
    Always(&'static str),
    /// Not supported, and why.
    Refused(&'static str),
}

/// One of Valve's flags, the stages whose tools take it, and its meaning here.
pub struct ValveFlag {
    pub name: &'static str,
    pub stages: &'static [Stage],
    pub meaning: Meaning,
}

use Meaning::{Always, Ours, Refused};
use Stage::{Vbsp, Vrad, Vvis};

const ALL: &[Stage] = &[Vbsp, Vvis, Vrad];
const BSP: &[Stage] = &[Vbsp];
const VIS: &[Stage] = &[Vvis];
const RAD: &[Stage] = &[Vrad];
const VIS_RAD: &[Stage] = &[Vvis, Vrad];

const DEBUG_SWITCH: &str =
    "a debugging switch of Valve's that makes a worse BSP; srcmap always does that step";
const NO_DEBUG_FILES: &str = "srcmap writes no debugging files (`--verify` checks each pass instead)";
const NO_MINIDUMPS: &str = "srcmap writes no minidumps (it does not crash: errors are reported)";
const NO_PRIORITY: &str = "srcmap does not change its own priority; run it under `nice`";
const NO_MPI: &str = "srcmap has no VMPI distributed compile; -threads uses every core of this machine";
const NO_STEAM: &str = "srcmap reads game content from -game only, not through Steam or a debugger";
const NO_XBOX: &str = "srcmap writes no Xbox or Xbox 360 files";
const NO_SEARCH_PATH: &str = "srcmap reads the search paths of -game's gameinfo.txt only";
const LUXELS_FROM_VMF: &str = "luxel sizes come from each side's lightmapscale in the VMF";

/// Every flag of Valve's Source SDK 2013 vbsp, vvis and vrad (their usage text and argument
/// parsing), and the CS:GO-era ones mappers use, with their meaning here.
pub const VALVE_FLAGS: &[ValveFlag] = &[
    flag("threads", ALL, Ours("threads")),
    flag("game", ALL, Ours("game")),
    flag("vproject", ALL, Ours("game")),
    flag(
        "novconfig",
        ALL,
        Always("srcmap never opens a window on a bad -game"),
    ),
    flag("nox360", ALL, Always("srcmap writes no Xbox 360 files")),
    flag("x360", ALL, Refused(NO_XBOX)),
    flag("xbox", BSP, Refused(NO_XBOX)),
    flag("low", ALL, Refused(NO_PRIORITY)),
    flag("fullminidumps", ALL, Refused(NO_MINIDUMPS)),
    flag("allowdebug", ALL, Refused(NO_STEAM)),
    flag("steam", ALL, Refused(NO_STEAM)),
    flag("insert_search_path", ALL, Refused(NO_SEARCH_PATH)),
    flag("mpi", VIS_RAD, Refused(NO_MPI)),
    flag("mpi_listparams", VIS_RAD, Refused(NO_MPI)),
    flag("mpi_pw", VIS_RAD, Refused(NO_MPI)),
    // vbsp
    flag("v", BSP, Ours("verbose")),
    flag("verbose", BSP, Ours("verbose")),
    flag("onlyents", BSP, Ours("onlyents")),
    flag("onlyprops", BSP, Ours("onlyprops")),
    flag("nodetail", BSP, Ours("nodetail")),
    flag("fulldetail", BSP, Ours("fulldetail")),
    flag("leaktest", BSP, Ours("leaktest")),
    flag(
        "alldetail",
        BSP,
        Refused("a map whose brushes are all detail has no structure to seal it or to compute vis on"),
    ),
    flag("glview", BSP, Refused(NO_DEBUG_FILES)),
    flag(
        "tmpout",
        ALL,
        Refused("srcmap writes beside the map or to -o, not to \\tmp"),
    ),
    flag(
        "tmpin",
        VIS,
        Refused("srcmap reads the portal file beside the BSP or --prt, not from \\tmp"),
    ),
    flag("noweld", BSP, Refused(DEBUG_SWITCH)),
    flag("nocsg", BSP, Refused(DEBUG_SWITCH)),
    flag("noshare", BSP, Refused(DEBUG_SWITCH)),
    flag("notjunc", BSP, Refused(DEBUG_SWITCH)),
    flag("noopt", BSP, Refused(DEBUG_SWITCH)),
    flag("noprune", BSP, Refused(DEBUG_SWITCH)),
    flag("nomerge", BSP, Refused(DEBUG_SWITCH)),
    flag("nomergewater", BSP, Refused(DEBUG_SWITCH)),
    flag("nosubdiv", BSP, Refused(DEBUG_SWITCH)),
    flag(
        "nowater",
        BSP,
        Refused("water brushes are always compiled (remove them in Hammer, or use a visgroup)"),
    ),
    flag(
        "micro",
        BSP,
        Refused("tiny brushes are reported as diagnostics whatever their volume"),
    ),
    flag(
        "verboseentities",
        BSP,
        Refused("`--verbose` says the same for every entity"),
    ),
    flag(
        "snapaxial",
        BSP,
        Refused("planes are kept as the VMF gives them (snapping moves faces)"),
    ),
    flag(
        "maxlightmapdim",
        BSP,
        Refused("faces are subdivided at Valve's default lightmap size only"),
    ),
    flag(
        "block",
        BSP,
        Refused("the world is not split on a block grid first (the tree comes out the same)"),
    ),
    flag(
        "blocks",
        BSP,
        Refused("the world is not split on a block grid first (the tree comes out the same)"),
    ),
    flag(
        "dumpcollide",
        BSP,
        Refused("use `srcmap physics dump MAP.bsp` on the result"),
    ),
    flag(
        "dumpstaticprop",
        BSP,
        Refused("use `srcmap info MAP.bsp` (static props by model) on the result"),
    ),
    flag(
        "dumpstaticprops",
        BSP,
        Refused("use `srcmap info MAP.bsp` (static props by model) on the result"),
    ),
    flag(
        "forceskyvis",
        BSP,
        Refused("srcmap has no switch for the 3D skybox's vis"),
    ),
    flag("defaultluxelsize", BSP, Refused(LUXELS_FROM_VMF)),
    flag("luxelscale", BSP, Refused(LUXELS_FROM_VMF)),
    flag("minluxelscale", BSP, Refused(LUXELS_FROM_VMF)),
    flag(
        "dxlevel",
        BSP,
        Refused("cube map patches are always made, as at Valve's default DirectX level"),
    ),
    flag(
        "bumpall",
        BSP,
        Refused("bump mapping comes from each material ($bumpmap)"),
    ),
    flag(
        "lightifmissing",
        BSP,
        Refused("lightmaps are made for the faces whose materials need them only"),
    ),
    flag(
        "keepstalezip",
        BSP,
        Refused("a compile starts a new pakfile; add files with `srcmap pak add`"),
    ),
    flag(
        "allowdetailcracks",
        BSP,
        Refused("detail faces are always fixed against T-junctions"),
    ),
    flag(
        "novirtualmesh",
        BSP,
        Refused("displacement collision is always written as Valve's default"),
    ),
    flag(
        "virtualdispphysics",
        BSP,
        Refused("displacement collision is always written as Valve's default"),
    ),
    flag("replacematerials", BSP, Refused("materialsub.txt is not read")),
    flag(
        "nodrawtriggers",
        BSP,
        Refused("trigger faces are always kept, as by default"),
    ),
    flag(
        "embed",
        BSP,
        Refused("add the files after the compile with `srcmap pak add`"),
    ),
    // vvis
    flag("fast", VIS_RAD, Ours("fast")),
    flag("radius_override", VIS, Ours("radius-override")),
    flag(
        "v",
        VIS_RAD,
        Refused("srcmap prints its summary always, and has no more detail to show"),
    ),
    flag(
        "verbose",
        VIS_RAD,
        Refused("srcmap prints its summary always, and has no more detail to show"),
    ),
    flag(
        "nosort",
        VIS,
        Refused("portals are always sorted (the PVS does not depend on it)"),
    ),
    flag("trace", VIS, Refused("no vis trace file is written")),
    // vrad
    flag("final", RAD, Ours("final")),
    flag("bounce", RAD, Ours("bounce")),
    flag("lights", RAD, Ours("lights")),
    flag("hdr", RAD, Ours("hdr")),
    flag("ldr", RAD, Ours("ldr")),
    flag("both", RAD, Ours("both")),
    flag("noextra", RAD, Ours("noextra")),
    flag("extrasky", RAD, Ours("extrasky")),
    flag("chop", RAD, Ours("chop")),
    flag("staticproplighting", RAD, Ours("StaticPropLighting")),
    flag("staticproppolys", RAD, Ours("StaticPropPolys")),
    flag("textureshadows", RAD, Ours("textureshadows")),
    flag("nossprops", RAD, Ours("disablepropselfshadowing")),
    flag("disablepropselfshadowing", RAD, Ours("disablepropselfshadowing")),
    flag("ambientocclusion", RAD, Ours("ambientocclusion")),
    flag("aoradius", RAD, Ours("aoradius")),
    flag("aosamples", RAD, Ours("aosamples")),
    flag("aoscale", RAD, Ours("aoscale")),
    flag(
        "maxchop",
        RAD,
        Refused("bounce patches are a uniform grid here: -chop sets their size everywhere"),
    ),
    flag("dispchop", RAD, Refused("displacement patches follow -chop too")),
    flag(
        "disppatchradius",
        RAD,
        Refused("displacement patches follow -chop too"),
    ),
    flag(
        "smooth",
        RAD,
        Refused("srcmap vrad does no phong smoothing across faces, so there is no angle to set"),
    ),
    flag("fastambient", RAD, Refused("ambient cubes follow -fast / -final")),
    flag(
        "centersamples",
        RAD,
        Refused("luxel sample positions are fixed (centres, moved inside the face)"),
    ),
    flag("luxeldensity", RAD, Refused(LUXELS_FROM_VMF)),
    flag(
        "softsun",
        RAD,
        Refused("the sun is a point light direction; light_environment's SunSpreadAngle is read instead"),
    ),
    flag(
        "maxdispsamplesize",
        RAD,
        Refused("displacement luxels are lit one by one, with no sample size to bound"),
    ),
    flag(
        "largedispsampleradius",
        RAD,
        Refused("displacement luxels are lit one by one, with no sample radius to widen"),
    ),
    flag(
        "onlydetail",
        RAD,
        Refused("lighting always covers faces, props and ambient cubes together"),
    ),
    flag(
        "onlystaticprops",
        RAD,
        Refused("lighting always covers faces, props and ambient cubes together"),
    ),
    flag("staticpropnormals", RAD, Refused(NO_DEBUG_FILES)),
    flag("nodetaillight", RAD, Refused("detail props are always lit")),
    flag(
        "noskyboxrecurse",
        RAD,
        Refused("the 3D skybox always shadows the world as Valve's default"),
    ),
    flag("debugextra", RAD, Refused(NO_DEBUG_FILES)),
    flag(
        "dlightmap",
        RAD,
        Refused("direct and bounced light share one lightmap, as Valve's default"),
    ),
    flag("dump", RAD, Refused(NO_DEBUG_FILES)),
    flag("dumpnormals", RAD, Refused(NO_DEBUG_FILES)),
    flag("dumptrace", RAD, Refused(NO_DEBUG_FILES)),
    flag("dumppropmaps", RAD, Refused(NO_DEBUG_FILES)),
    flag("loghash", RAD, Refused(NO_DEBUG_FILES)),
    flag("rederror", RAD, Refused("errors are written as plain text")),
    flag("rederrors", RAD, Refused("errors are written as plain text")),
    flag("stoponexit", RAD, Refused("srcmap never waits for a key")),
    flag(
        "scale",
        RAD,
        Refused("light values are taken as the map gives them"),
    ),
    flag(
        "ambient",
        RAD,
        Refused("no ambient light is added; light the map with light_environment"),
    ),
    flag(
        "dlight",
        RAD,
        Refused("light values are taken as the map gives them"),
    ),
    flag("sky", RAD, Refused("sky light comes from light_environment")),
    flag(
        "notexscale",
        RAD,
        Refused("texture-light patches are always sized by the texture scale"),
    ),
    flag(
        "coring",
        RAD,
        Refused("light values are taken as the map gives them"),
    ),
];

const fn flag(name: &'static str, stages: &'static [Stage], meaning: Meaning) -> ValveFlag {
    ValveFlag {
        name,
        stages,
        meaning,
    }
}

/// The stages whose Valve flags a subcommand takes.
fn stages_of(subcommand: &str) -> &'static [Stage] {
    match subcommand {
        "vbsp" => BSP,
        "vvis" => VIS,
        "vrad" => RAD,
        "compile" => ALL,
        _ => &[],
    }
}

/// The meaning of Valve's flag `name` (lower case) for `stages`: one of ours if any stage
/// has it, else the first refusal.
pub fn meaning(stages: &[Stage], name: &str) -> Option<Meaning> {
    let known: Vec<&ValveFlag> = VALVE_FLAGS
        .iter()
        .filter(|f| f.name == name && f.stages.iter().any(|s| stages.contains(s)))
        .collect();
    let ours = known.iter().find(|f| !matches!(f.meaning, Refused(_)));
    ours.or(known.first()).map(|f| f.meaning)
}

/// A subcommand's long flags (and their aliases) by lower-case name: the canonical long name,
/// and whether it takes a value.
fn long_flags(cmd: &clap::Command) -> HashMap<String, (String, bool)> {
    let mut names = HashMap::new();
    for arg in cmd.get_arguments() {
        let Some(long) = arg.get_long() else { continue };
        let takes_value = arg.get_action().takes_values();
        let aliases = arg.get_all_aliases().unwrap_or_default();
        for name in std::iter::once(long).chain(aliases) {
            names.insert(name.to_ascii_lowercase(), (long.to_string(), takes_value));
        }
    }
    names
}

/// Rewrites Valve's spelling of flags into ours for clap: `-name` and `--Name` become the
/// canonical `--name`, Valve's flags become ours, and a flag Valve documents that srcmap does
/// not support, or an unknown multi-letter flag of a compile stage, is an error naming it.
pub fn normalise_valve_flags(args: impl Iterator<Item = OsString>) -> Result<Vec<OsString>, clap::Error> {
    let args: Vec<OsString> = args.collect();
    let Some(sub) = args.get(1).and_then(|a| a.to_str()).map(str::to_string) else {
        return Ok(args);
    };
    let root = crate::Cli::command();
    let Some(cmd) = root.find_subcommand(&sub) else {
        return Ok(args);
    };
    let rewriter = Rewriter {
        longs: long_flags(cmd),
        stages: stages_of(&sub),
    };
    let mut out = args[..2].to_vec();
    rewriter.rewrite(&args[2..], &mut out)?;
    Ok(out)
}

/// The rewriting of one subcommand's arguments.
struct Rewriter {
    longs: HashMap<String, (String, bool)>,
    stages: &'static [Stage],
}

impl Rewriter {
    /// Each argument rewritten into `out`; a flag's value passes untouched, and so does
    /// everything after `--`.
    fn rewrite(&self, args: &[OsString], out: &mut Vec<OsString>) -> Result<(), clap::Error> {
        let mut iter = args.iter();
        while let Some(arg) = iter.next() {
            let Some(text) = arg.to_str() else {
                out.push(arg.clone());
                continue;
            };
            if text == "--" {
                out.push(arg.clone());
                out.extend(iter.cloned());
                return Ok(());
            }
            let (rewritten, takes_value) = self.one(text)?;
            out.extend(rewritten.map(OsString::from));
            if takes_value && !text.contains('=') {
                out.extend(iter.next().cloned());
            }
        }
        Ok(())
    }

    /// One argument: what it becomes (nothing for a flag dropped) and whether the next one is
    /// its value.
    fn one(&self, text: &str) -> Result<(Option<String>, bool), clap::Error> {
        let Some(name) = flag_name(text) else {
            return Ok((Some(text.to_string()), false));
        };
        let (name, value) = match name.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (name, None),
        };
        let single_dash = !text.starts_with("--");
        let valve = single_dash
            .then(|| meaning(self.stages, &name.to_ascii_lowercase()))
            .flatten();
        let long = match valve {
            Some(Refused(why)) => return Err(refusal(text, why)),
            Some(Always(_)) => return Ok((None, false)),
            Some(Ours(long)) => long.to_ascii_lowercase(),
            None => name.to_ascii_lowercase(),
        };
        match self.longs.get(&long) {
            Some((canonical, takes_value)) => {
                let value = value.map_or(String::new(), |v| format!("={v}"));
                Ok((Some(format!("--{canonical}{value}")), *takes_value))
            }
            // A one-letter flag, or a long one clap will name as unknown.
            None if name.len() == 1 || !single_dash => Ok((Some(text.to_string()), false)),
            None if !self.stages.is_empty() => Err(unknown(text)),
            None => Ok((Some(text.to_string()), false)),
        }
    }
}

/// The name of a flag argument (without its dashes); `None` for a value, a lone `-` or a
/// negative number.
fn flag_name(text: &str) -> Option<&str> {
    let name = text.strip_prefix("--").or_else(|| text.strip_prefix('-'))?;
    let is_number = name.parse::<f64>().is_ok();
    (!name.is_empty() && !is_number).then_some(name)
}

fn refusal(text: &str, why: &str) -> clap::Error {
    let mut cmd = crate::Cli::command();
    cmd.error(
        clap::error::ErrorKind::ArgumentConflict,
        format!("{text} is not supported: {why}"),
    )
}

fn unknown(text: &str) -> clap::Error {
    let mut cmd = crate::Cli::command();
    cmd.error(
        clap::error::ErrorKind::UnknownArgument,
        format!("unknown flag '{text}' (see --help for the flags this command takes)"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile_cmd::{CompileArgs, VbspArgs};
    use crate::rad_cmd::VradRunArgs;
    use crate::vis_cmd::VvisArgs;
    use crate::{Cli, Command};
    use clap::Parser;
    use std::path::PathBuf;

    /// `srcmap ARGS` parsed as `main` does, or the error's text.
    fn parse(args: &[&str]) -> Result<Command, String> {
        let argv = std::iter::once("srcmap")
            .chain(args.iter().copied())
            .map(OsString::from);
        let argv = normalise_valve_flags(argv).map_err(|e| e.to_string())?;
        Cli::try_parse_from(argv)
            .map(|c| c.command)
            .map_err(|e| e.to_string())
    }

    fn vbsp(c: &Command) -> &VbspArgs {
        match c {
            Command::Vbsp(a) => a,
            Command::Compile(a) => &a.vbsp,
            _ => panic!("not vbsp"),
        }
    }
    fn vvis(c: &Command) -> &VvisArgs {
        match c {
            Command::Vvis(a) => a,
            _ => panic!("not vvis"),
        }
    }
    fn vrad(c: &Command) -> &VradRunArgs {
        match c {
            Command::Vrad(a) => &a.run,
            _ => panic!("not vrad"),
        }
    }
    fn compile(c: &Command) -> &CompileArgs {
        match c {
            Command::Compile(a) => a,
            _ => panic!("not compile"),
        }
    }

    /// What a documented flag must do.
    enum Expect {
        /// Parses, and the parsed command shows its meaning.
        Means(fn(&Command) -> bool),
        /// Parses, and changes nothing (srcmap always does what it asks).
        Nothing,
        /// Refused by name: "-flag is not supported: why".
        No,
    }
    use Expect::{Means, No, Nothing};

    /// Valve's documented vbsp flags (Source SDK 2013 vbsp's usage text and argument parsing,
    /// the Valve Developer Community's VBSP page), with the values they take.
    fn vbsp_documented() -> Vec<(&'static str, &'static [&'static str], Expect)> {
        vec![
            ("-v", &[], Means(|c| vbsp(c).verbose)),
            ("-verbose", &[], Means(|c| vbsp(c).verbose)),
            (
                "-onlyents",
                &[],
                Means(|c| vbsp(c).onlyents && vbsp(c).output.is_none()),
            ),
            ("-onlyprops", &[], Means(|c| vbsp(c).onlyprops)),
            ("-nodetail", &[], Means(|c| vbsp(c).nodetail)),
            ("-fulldetail", &[], Means(|c| vbsp(c).fulldetail)),
            (
                "-leaktest",
                &[],
                Means(|c| vbsp(c).leaktest && !vbsp(c).allowleak),
            ),
            ("-threads", &["3"], Means(|c| vbsp(c).threads == Some(3))),
            (
                "-game",
                &["dir"],
                Means(|c| vbsp(c).game.as_deref() == Some("dir".as_ref())),
            ),
            (
                "-vproject",
                &["dir"],
                Means(|c| vbsp(c).game.as_deref() == Some("dir".as_ref())),
            ),
            ("-novconfig", &[], Nothing),
            ("-nox360", &[], Nothing),
            ("-alldetail", &[], No),
            ("-glview", &[], No),
            ("-noweld", &[], No),
            ("-nocsg", &[], No),
            ("-noshare", &[], No),
            ("-notjunc", &[], No),
            ("-nowater", &[], No),
            ("-noopt", &[], No),
            ("-noprune", &[], No),
            ("-nomerge", &[], No),
            ("-nomergewater", &[], No),
            ("-nosubdiv", &[], No),
            ("-micro", &["1"], No),
            ("-verboseentities", &[], No),
            ("-snapaxial", &[], No),
            ("-maxlightmapdim", &["32"], No),
            ("-block", &["0", "0"], No),
            ("-blocks", &["0", "0", "1", "1"], No),
            ("-dumpcollide", &[], No),
            ("-dumpstaticprops", &[], No),
            ("-forceskyvis", &[], No),
            ("-tmpout", &[], No),
            ("-luxelscale", &["1"], No),
            ("-minluxelscale", &["1"], No),
            ("-defaultluxelsize", &["16"], No),
            ("-dxlevel", &["90"], No),
            ("-bumpall", &[], No),
            ("-low", &[], No),
            ("-lightifmissing", &[], No),
            ("-allowdebug", &[], No),
            ("-steam", &[], No),
            ("-insert_search_path", &["dir"], No),
            ("-keepstalezip", &[], No),
            ("-xbox", &[], No),
            ("-x360", &[], No),
            ("-allowdetailcracks", &[], No),
            ("-novirtualmesh", &[], No),
            ("-virtualdispphysics", &[], No),
            ("-replacematerials", &[], No),
            ("-nodrawtriggers", &[], No),
            ("-FullMinidumps", &[], No),
            ("-embed", &["dir"], No),
        ]
    }

    /// Valve's documented vvis flags.
    fn vvis_documented() -> Vec<(&'static str, &'static [&'static str], Expect)> {
        vec![
            ("-fast", &[], Means(|c| vvis(c).run.fast)),
            ("-threads", &["2"], Means(|c| vvis(c).run.threads == Some(2))),
            (
                "-radius_override",
                &["2500"],
                Means(|c| vvis(c).run.vis.radius_override == Some(2500.0)),
            ),
            ("-game", &["dir"], Means(|c| vvis(c).game.is_some())),
            ("-vproject", &["dir"], Means(|c| vvis(c).game.is_some())),
            ("-novconfig", &[], Nothing),
            ("-nox360", &[], Nothing),
            ("-v", &[], No),
            ("-verbose", &[], No),
            ("-nosort", &[], No),
            ("-tmpin", &[], No),
            ("-tmpout", &[], No),
            ("-trace", &["1", "2"], No),
            ("-low", &[], No),
            ("-mpi", &[], No),
            ("-mpi_pw", &["pw"], No),
            ("-x360", &[], No),
            ("-FullMinidumps", &[], No),
            ("-allowdebug", &[], No),
            ("-steam", &[], No),
        ]
    }

    /// Valve's documented vrad flags, and the CS:GO-era ambient occlusion ones: those taken
    /// with their meaning, then those refused by name.
    fn vrad_documented() -> Vec<(&'static str, &'static [&'static str], Expect)> {
        let refused = vrad_refused()
            .into_iter()
            .map(|(flag, values)| (flag, values, No));
        vrad_meant().into_iter().chain(refused).collect()
    }

    /// The vrad flags srcmap takes, each with what it must mean.
    fn vrad_meant() -> Vec<(&'static str, &'static [&'static str], Expect)> {
        vec![
            ("-bounce", &["8"], Means(|c| vrad(c).light.bounce == Some(8))),
            ("-fast", &[], Means(|c| vrad(c).fast)),
            ("-final", &[], Means(|c| vrad(c).final_)),
            (
                "-extrasky",
                &["16"],
                Means(|c| vrad(c).light.extra_sky == Some(16)),
            ),
            ("-threads", &["4"], Means(|c| vrad(c).threads == Some(4))),
            (
                "-lights",
                &["a.rad"],
                Means(|c| vrad(c).light.lights == [PathBuf::from("a.rad")]),
            ),
            ("-noextra", &[], Means(|c| vrad(c).light.no_extra)),
            ("-chop", &["8"], Means(|c| vrad(c).light.chop == Some(8))),
            ("-hdr", &[], Means(|c| vrad(c).light.hdr)),
            ("-ldr", &[], Means(|c| vrad(c).light.ldr)),
            ("-both", &[], Means(|c| vrad(c).light.both)),
            (
                "-StaticPropLighting",
                &[],
                Means(|c| vrad(c).light.static_prop_lighting),
            ),
            (
                "-staticproplighting",
                &[],
                Means(|c| vrad(c).light.static_prop_lighting),
            ),
            (
                "-StaticPropPolys",
                &[],
                Means(|c| vrad(c).light.static_prop_polys),
            ),
            ("-textureshadows", &[], Means(|c| vrad(c).light.texture_shadows)),
            (
                "-nossprops",
                &[],
                Means(|c| vrad(c).light.disable_prop_self_shadowing),
            ),
            (
                "-ambientocclusion",
                &[],
                Means(|c| vrad(c).light.ambient_occlusion),
            ),
            (
                "-aoradius",
                &["20"],
                Means(|c| vrad(c).light.ao_radius == Some(20.0)),
            ),
            (
                "-aosamples",
                &["8"],
                Means(|c| vrad(c).light.ao_samples == Some(8)),
            ),
            (
                "-aoscale",
                &["0.5"],
                Means(|c| vrad(c).light.ao_scale == Some(0.5)),
            ),
            ("-game", &["dir"], Means(|c| vrad(c).game.is_some())),
            ("-vproject", &["dir"], Means(|c| vrad(c).game.is_some())),
            ("-novconfig", &[], Nothing),
        ]
    }

    /// The vrad flags srcmap refuses by name (debugging, MPI, tuning it does not have).
    fn vrad_refused() -> Vec<(&'static str, &'static [&'static str])> {
        vec![
            ("-maxchop", &["4"]),
            ("-dispchop", &["8"]),
            ("-disppatchradius", &["4"]),
            ("-smooth", &["45"]),
            ("-fastambient", &[]),
            ("-v", &[]),
            ("-verbose", &[]),
            ("-low", &[]),
            ("-mpi", &[]),
            ("-rederror", &[]),
            ("-dump", &[]),
            ("-dumpnormals", &[]),
            ("-dumptrace", &[]),
            ("-debugextra", &[]),
            ("-dlightmap", &[]),
            ("-stoponexit", &[]),
            ("-nodetaillight", &[]),
            ("-centersamples", &[]),
            ("-luxeldensity", &["0.5"]),
            ("-loghash", &[]),
            ("-onlydetail", &[]),
            ("-maxdispsamplesize", &["512"]),
            ("-softsun", &["2"]),
            ("-FullMinidumps", &[]),
            ("-LargeDispSampleRadius", &[]),
            ("-OnlyStaticProps", &[]),
            ("-StaticPropNormals", &[]),
            ("-noskyboxrecurse", &[]),
            ("-dumppropmaps", &[]),
            ("-scale", &["1"]),
            ("-ambient", &["0", "0", "0"]),
            ("-dlight", &["0.1"]),
            ("-sky", &["1"]),
            ("-notexscale", &[]),
            ("-coring", &["1"]),
            ("-allowdebug", &[]),
            ("-steam", &[]),
        ]
    }

    /// Each documented flag of `stage` on `file`: its meaning, nothing, or refused by name.
    fn walk(stage: &str, file: &str, table: Vec<(&'static str, &'static [&'static str], Expect)>) {
        for (flag, values, expect) in table {
            let mut args = vec![stage, flag];
            args.extend_from_slice(values);
            args.push(file);
            let parsed = parse(&args);
            match expect {
                Means(check) => assert!(parsed.as_ref().is_ok_and(check), "{args:?}: {parsed:?}"),
                Nothing => {
                    let plain = parse(&[stage, file]).unwrap();
                    assert_eq!(format!("{:?}", parsed.unwrap()), format!("{plain:?}"), "{flag}");
                }
                No => {
                    let err = parsed.unwrap_err();
                    assert!(
                        err.contains(&format!("{flag} is not supported: ")),
                        "{flag}: {err}"
                    );
                }
            }
        }
    }

    #[test]
    fn every_documented_vbsp_flag_parses_to_its_meaning_or_is_refused_by_name() {
        walk("vbsp", "map.vmf", vbsp_documented());
    }

    #[test]
    fn every_documented_vvis_flag_parses_to_its_meaning_or_is_refused_by_name() {
        walk("vvis", "map.bsp", vvis_documented());
    }

    #[test]
    fn every_documented_vrad_flag_parses_to_its_meaning_or_is_refused_by_name() {
        walk("vrad", "map.bsp", vrad_documented());
    }

    #[test]
    fn compile_takes_every_stages_flags() {
        let c = parse(&[
            "compile",
            "-both",
            "-final",
            "-StaticPropLighting",
            "-StaticPropPolys",
            "-textureshadows",
            "-radius_override",
            "900",
            "-onlyents",
            "-threads",
            "2",
            "map.vmf",
        ])
        .unwrap();
        let c = compile(&c);
        assert!(c.light.both && c.final_ && c.light.static_prop_lighting);
        assert!(c.light.static_prop_polys && c.light.texture_shadows && c.vbsp.onlyents);
        assert_eq!((c.vis.radius_override, c.vbsp.threads), (Some(900.0), Some(2)));
        // A flag one stage refuses and another has means the one that has it.
        assert!(vbsp(&parse(&["compile", "-v", "map.vmf"]).unwrap()).verbose);
        assert!(
            parse(&["compile", "-smooth", "45", "map.vmf"])
                .unwrap_err()
                .contains("-smooth is not supported")
        );
    }

    #[test]
    fn flags_are_not_misparsed_as_one_letter_clusters_and_take_any_case() {
        // Valve's -onlyents is not `-o nlyents`.
        let c = parse(&["vbsp", "-onlyents", "map.vmf"]).unwrap();
        assert!(vbsp(&c).onlyents && vbsp(&c).output.is_none());
        let err = parse(&["vbsp", "-onlyentz", "map.vmf"]).unwrap_err();
        assert!(err.contains("unknown flag '-onlyentz'"), "{err}");
        for spelling in ["-STATICPROPPOLYS", "--staticproppolys", "-StaticPropPolys"] {
            assert!(
                vrad(&parse(&["vrad", spelling, "m.bsp"]).unwrap())
                    .light
                    .static_prop_polys
            );
        }
        // One-letter flags and a flag's value pass untouched.
        assert_eq!(
            vbsp(&parse(&["vbsp", "-o", "out.bsp", "map.vmf"]).unwrap()).output,
            Some("out.bsp".into())
        );
        let argv = ["srcmap", "vbsp", "-game", "-onlyents", "m.vmf"].map(OsString::from);
        let argv = normalise_valve_flags(argv.into_iter()).unwrap();
        assert_eq!(argv[2..], ["--game", "-onlyents", "m.vmf"].map(OsString::from));
    }

    #[test]
    fn conflicting_flags_are_named() {
        for (args, names) in [
            (
                &["vbsp", "-onlyents", "-onlyprops", "m.vmf"][..],
                ["--onlyents", "--onlyprops"],
            ),
            (
                &["compile", "-fast", "-final", "m.vmf"][..],
                ["--fast", "--final"],
            ),
            (&["vrad", "-ldr", "-both", "m.bsp"][..], ["--ldr", "--both"]),
            (
                &["vbsp", "-leaktest", "--allowleak", "m.vmf"][..],
                ["--allowleak", "--leaktest"],
            ),
        ] {
            let err = parse(args).unwrap_err();
            assert!(names.iter().all(|n| err.contains(n)), "{args:?}: {err}");
        }
    }

    #[test]
    fn every_flag_of_ours_a_valve_flag_names_exists_on_each_of_its_stages() {
        for f in VALVE_FLAGS {
            let Ours(long) = f.meaning else { continue };
            for stage in f.stages {
                let sub = format!("{stage:?}").to_ascii_lowercase();
                let root = Cli::command();
                let longs = long_flags(root.find_subcommand(&sub).unwrap());
                assert!(
                    longs.contains_key(&long.to_ascii_lowercase()),
                    "-{} on {sub}",
                    f.name
                );
            }
        }
    }
}
