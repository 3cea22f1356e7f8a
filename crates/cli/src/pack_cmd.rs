//! `pack` (and `compile --pack`): a map's custom content into its pakfile.

use std::path::PathBuf;

use srcmap_driver::{PackJob, PackReport};
use srcmap_pack::{Change, Compression};

use crate::output::{Stderr, print_json};

/// What to pack from where: the flags `srcmap pack` and `srcmap compile --pack` share.
#[derive(Debug, Default, Clone, clap::Args, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct PackFlags {
    /// A loose content folder (the map's custom materials, models, sounds...), searched in the
    /// order given; its files the map needs are packed unless the game has them.
    #[arg(long)]
    pub content: Vec<PathBuf>,
    /// A game path to pack with what it needs, whether the map names it or not.
    #[arg(long)]
    pub include: Vec<String>,
    /// A glob of game paths never packed (`sound/**`, `*.nav`).
    #[arg(long)]
    pub exclude: Vec<String>,
    /// A population file (.pop) whose HUD icons and sounds are packed (it is not itself);
    /// `scripts/population/<map>*.pop` in the content folders are read without it.
    #[arg(long)]
    pub pop: Vec<PathBuf>,
    /// Pack the map's nav as maps/embed.nav (CompilePal's option; TF2 reads it there).
    #[arg(long)]
    pub rename_nav: bool,
    /// New entries stored, LZMA-compressed, or as most of the pakfile is (auto).
    #[arg(long, value_parser = ["auto", "stored", "lzma"], default_value = "auto")]
    pub compression: String,
}

impl PackFlags {
    /// The job for `map`, with the game (when given) and the output.
    pub fn job(
        &self,
        map: PathBuf,
        game: Option<PathBuf>,
        output: Option<PathBuf>,
        dry_run: bool,
    ) -> PackJob {
        PackJob {
            map,
            output,
            game,
            content: self.content.clone(),
            include: self.include.clone(),
            exclude: self.exclude.clone(),
            pops: self.pop.clone(),
            rename_nav: self.rename_nav,
            compression: match self.compression.as_str() {
                "stored" => Compression::Stored,
                "lzma" => Compression::Lzma,
                _ => Compression::Auto,
            },
            dry_run,
            ..PackJob::default()
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct PackArgs {
    /// The BSP (edited in place unless --output names another file).
    pub map: PathBuf,
    /// Game directory (with gameinfo.txt): what its VPKs and folders hold is never packed.
    #[arg(long)]
    pub game: Option<PathBuf>,
    #[command(flatten)]
    pub flags: PackFlags,
    /// Write the packed map here instead of in place.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// The map's name for the files named after it (default: the BSP's file stem).
    #[arg(long)]
    pub name: Option<String>,
    /// Print what would change in the pakfile; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Print, for each packed file, the chain of references that brought it in.
    #[arg(long)]
    pub explain: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
}

/// `srcmap pack`.
pub fn pack(args: &PackArgs) -> anyhow::Result<()> {
    let mut job = args.flags.job(
        args.map.clone(),
        args.game.clone(),
        args.output.clone(),
        args.dry_run,
    );
    job.name = args.name.clone();
    let report = srcmap_driver::pack(&job, &Stderr)?;
    if args.json {
        return print_json(&report);
    }
    if !args.quiet {
        print_report(&report, args.dry_run, args.explain);
    }
    Ok(())
}

/// The report as text: the changes (every packed file with --explain, with its chain), the
/// unresolved references and unreadable files, and a summary line.
pub fn print_report(report: &PackReport, dry_run: bool, explain: bool) {
    let plan = &report.plan;
    for f in plan
        .files
        .iter()
        .filter(|f| explain || dry_run && f.change != Change::Unchanged)
    {
        let mark = match f.change {
            Change::Added => '+',
            Change::Replaced => '~',
            Change::Unchanged => '=',
        };
        println!("{mark} {} ({} bytes, {})", f.name, f.size, f.source.display());
        if explain {
            println!("    <- {}", f.chain.join("\n    <- "));
        }
    }
    print_findings(plan);
    eprintln!("{}", summary(report, dry_run));
}

/// The unresolved references (each once, with how many more) and the unreadable files.
fn print_findings(plan: &srcmap_pack::Plan) {
    for u in &plan.unresolved {
        let others = match u.others {
            0 => String::new(),
            n => format!(" (and {n} more)"),
        };
        eprintln!("unresolved: {} <- {}{others}", u.path, u.chain.join(" <- "));
    }
    for p in &plan.problems {
        eprintln!("warning: {p}");
    }
}

/// The one-line summary: counts, compression, the file written, the time.
fn summary(report: &PackReport, dry_run: bool) -> String {
    let plan = &report.plan;
    let verb = if dry_run { "would change" } else { "changed" };
    format!(
        "{}: {} custom files, {} {verb} in the pakfile ({}); {} from the game, {} unresolved, {} excluded{}; {:.2} s",
        report.map.display(),
        plan.files.len(),
        plan.changes().count(),
        if plan.lzma { "lzma" } else { "stored" },
        plan.from_game.len(),
        plan.unresolved.len(),
        plan.excluded.len(),
        report
            .written
            .as_ref()
            .map_or(String::new(), |w| format!(" -> {}", w.display())),
        report.seconds,
    )
}
