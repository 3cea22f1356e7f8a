//! `view MAP.bsp`: serves the map's web viewer on 127.0.0.1 and prints its address.

use std::io::Write as _;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::anyhow;
use srcmap_view::{Scene, Site};
use srcmap_vvis::portals::Portals;

use crate::export_cmd::{SceneLighting, bsp_scene};
use crate::input::read_bsp;

#[derive(Debug, clap::Args)]
pub struct ViewArgs {
    /// The BSP to show. `MAP.lin` (leak path) and `MAP.prt` (vis portals) beside it are shown too.
    pub map: PathBuf,
    /// Port on 127.0.0.1 (0: any free port). When the default is taken, any free port is used.
    #[arg(long, default_value_t = DEFAULT_PORT)]
    pub port: u16,
    /// Game directory (with `gameinfo.txt`) for textures, as for `export`.
    #[arg(long)]
    pub game: Option<PathBuf>,
    /// Use the HDR lightmaps (tone-mapped) when the map has both.
    #[arg(long)]
    pub hdr: bool,
    /// Show a named (switchable) light on or off instead of as it is when the map starts
    /// (repeatable).
    #[arg(long = "light", value_name = "NAME=on|off")]
    pub lights: Vec<srcmap_export::LightSwitch>,
    /// Do not open a browser; only print the address.
    #[arg(long)]
    pub no_open: bool,
}

const DEFAULT_PORT: u16 = 8642;

/// Reads and parses the file beside `map` with extension `ext`, if there is one. A file that
/// cannot be read or parsed is left out with a note (printed and shown on the page).
fn beside<T>(
    map: &Path,
    ext: &str,
    parse: impl FnOnce(&str) -> Result<T, String>,
    notes: &mut Vec<String>,
) -> Option<T> {
    let path = map.with_extension(ext);
    if !path.is_file() {
        return None;
    }
    let result = std::fs::read(&path)
        .map_err(|e| format!("cannot read: {e}"))
        .and_then(|b| parse(&String::from_utf8_lossy(&b)));
    match result {
        Ok(v) => Some(v),
        Err(e) => {
            let note = format!("{}: {e}: not shown", path.display());
            eprintln!("{}: note: {note}", map.display());
            notes.push(note);
            None
        }
    }
}

fn open_browser(url: &str) -> std::io::Result<()> {
    let mut cmd = if cfg!(target_os = "windows") {
        let mut c = std::process::Command::new("cmd");
        c.args(["/C", "start", ""]);
        c
    } else if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else {
        std::process::Command::new("xdg-open")
    };
    cmd.arg(url)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(drop)
}

/// `srcmap view`: the page served until interrupted.
pub fn view(args: &ViewArgs) -> anyhow::Result<()> {
    let (site, triangles) = build_site(args)?;
    let listener = listen(args.port)?;
    let url = format!("http://{}/", listener.local_addr()?);
    println!(
        "{}: {} triangles at {url} (Ctrl-C stops)",
        args.map.display(),
        triangles
    );
    std::io::stdout().flush()?;
    if !args.no_open
        && let Err(e) = open_browser(&url)
    {
        eprintln!("note: cannot open a browser ({e}): open {url}");
    }
    srcmap_view::serve(listener, site);
    Ok(())
}

/// What the page serves: the map's GLB and the scene beside it (tree, PVS, area portals, the
/// leak path and vis portals of `MAP.lin` and `MAP.prt`), with the mesh's triangle count.
fn build_site(args: &ViewArgs) -> anyhow::Result<(Arc<Site>, usize)> {
    let bsp = read_bsp(&args.map)?;
    let lit = SceneLighting {
        hdr: args.hdr,
        lights: &args.lights,
    };
    let drawn = bsp_scene(&bsp, &args.map, args.game.as_deref(), lit)?;
    let glb = drawn
        .glb(&bsp)
        .map_err(|e| anyhow!("{}: {e}", args.map.display()))?;
    let mut notes = Vec::new();
    let leak = beside(
        &args.map,
        "lin",
        |t| srcmap_view::parse_lin(t).map_err(|e| e.to_string()),
        &mut notes,
    );
    let portals = beside(
        &args.map,
        "prt",
        |t| Portals::parse_prt(t).map_err(|e| e.to_string()),
        &mut notes,
    );
    let scene = Scene::build(&bsp, &drawn.mesh, leak.as_deref(), portals.as_ref(), &notes);
    Ok((Arc::new(Site::new(glb.to_bytes(), &scene)), drawn.mesh.triangles))
}

/// A listener on 127.0.0.1:`port`; when the default port is taken, any free one.
fn listen(port: u16) -> anyhow::Result<TcpListener> {
    match TcpListener::bind(("127.0.0.1", port)) {
        Ok(l) => Ok(l),
        Err(e) if port == DEFAULT_PORT => {
            eprintln!("note: port {DEFAULT_PORT} is taken ({e}): using a free one");
            Ok(TcpListener::bind(("127.0.0.1", 0))?)
        }
        Err(e) => Err(anyhow!("cannot listen on 127.0.0.1:{port}: {e}")),
    }
}
