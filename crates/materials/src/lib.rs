//! What the compile stages know about each material: contents, surface flags, texture size and
//! reflectivity, and where each fact came from.
//!
//! One interface, [`Resolver::resolve`], with one precedence:
//! 1. the game's own files (`-game DIR`: the `.vmt` and its `$basetexture`'s `.vtf` header);
//! 2. a material table (`--materials FILE`), typically harvested from compiled maps with
//!    [`MaterialTable::harvest`] (`srcmap materials extract`);
//! 3. the built-in rules for Valve's tool textures and water ([`builtin`]);
//! 4. the documented default — an opaque, lit 512×512 surface of reflectivity 0.5 — with one
//!    warning per unknown material.
//!
//! The table format is JSON (see [`MaterialTable::to_json`]): material names upper-cased with
//! forward slashes, flags by name, the maps each entry was learned from, and the conflicts
//! found between maps (kept, never silently dropped).

pub use srcmap_bsp::flags;
mod harvest;
pub mod sky;
pub mod surfaceprops;
mod table;
mod wvt;

pub use sky::SkyCubemap;

use std::collections::HashSet;
use std::sync::Mutex;

pub use harvest::{
    CUBIC_METRES_PER_CUBIC_INCH, MassSample, VPHYSICS_MAX_MASS, env_cubemap_materials, harvest_bsp,
    surfaceprop_mass_samples, surfaceprop_materials, unpatched_name, vmt_text_uses_env_cubemap,
    water_bottom_materials, wvt_patch_materials,
};
pub use table::{Conflict, ConflictValue, MaterialTable, MaterialsError, SurfaceMass, TableEntry};

use flags::*;

/// What the compiler needs to know about one material.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaterialFacts {
    /// `CONTENTS_*` of a brush made of this material.
    pub contents: u32,
    /// `SURF_*` of a face with this material.
    pub surface_flags: u32,
    pub width: u32,
    pub height: u32,
    /// Average linear colour (what bounced light picks up).
    pub reflectivity: [f32; 3],
}

/// The documented default for a material nothing else knows.
pub const DEFAULT_FACTS: MaterialFacts = MaterialFacts {
    contents: CONTENTS_SOLID,
    surface_flags: 0,
    width: 512,
    height: 512,
    reflectivity: [0.5, 0.5, 0.5],
};

/// Where a fact came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// The game's `.vmt` (and `.vtf` header) at this path.
    Game(String),
    /// A material table, learned from these maps.
    Table { file: String, maps: Vec<String> },
    /// srcmap's built-in tool-texture rules.
    Builtin,
    /// Nothing knew the material: the default.
    Default,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Game(p) => write!(f, "game content ({p})"),
            Origin::Table { file, maps } => {
                write!(f, "material table {file} (learned from {})", maps.join(", "))
            }
            Origin::Builtin => f.write_str("srcmap's built-in tool-texture rules"),
            Origin::Default => {
                f.write_str("the default for unknown materials (opaque, lit, 512x512, reflectivity 0.5)")
            }
        }
    }
}

/// A resolved material: the facts, and for each group of facts where it came from (a table may
/// know the size of a material that only appears on displacements, but not its contents).
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub facts: MaterialFacts,
    pub contents_from: Origin,
    pub surface_from: Origin,
    pub size_from: Origin,
}

/// Normalises a material name the way the engine compares them: upper case, forward slashes,
/// no `materials/` prefix or `.vmt` suffix. Idempotent: repeated prefixes, suffixes and the
/// spaces between them all go, so a table written with normalised names reads back the same.
pub fn normalise_name(name: &str) -> String {
    let mut n = name.replace('\\', "/").to_ascii_uppercase();
    loop {
        let t = n.trim();
        let t = t.strip_prefix("MATERIALS/").unwrap_or(t);
        let t = t.strip_suffix(".VMT").unwrap_or(t);
        if t.len() == n.len() {
            return n;
        }
        n = t.to_owned();
    }
}

/// The built-in rules: Valve's tool textures by name, and a few names that say what the
/// material is (water, slime, grates, see-through glass). `None` for any other material.
pub fn builtin(name: &str) -> Option<MaterialFacts> {
    let n = normalise_name(name);
    let (contents, surface_flags) = match n.strip_prefix("TOOLS/") {
        Some(tool) => tool_texture(tool)?,
        None => telling_name(&n)?,
    };
    Some(MaterialFacts {
        contents,
        surface_flags,
        ..DEFAULT_FACTS
    })
}

/// Contents and surface flags of Valve's tool texture `tools/<tool>` (upper case).
fn tool_texture(tool: &str) -> Option<(u32, u32)> {
    let nodraw = SURF_NODRAW | SURF_NOLIGHT;
    Some(match tool {
        "TOOLSNODRAW" => (CONTENTS_SOLID, nodraw),
        "TOOLSCLIP" => (CONTENTS_PLAYERCLIP | CONTENTS_MONSTERCLIP, nodraw),
        "TOOLSPLAYERCLIP" => (CONTENTS_PLAYERCLIP, nodraw),
        "TOOLSNPCCLIP" => (CONTENTS_MONSTERCLIP, nodraw),
        // Trigger faces are compiled (the entity draws nothing), without a lightmap.
        "TOOLSTRIGGER" | "TOOLSFOG" => (CONTENTS_SOLID, SURF_TRIGGER | SURF_NOLIGHT),
        "TOOLSSKYBOX" => (CONTENTS_SOLID, SURF_SKY | SURF_NOLIGHT),
        "TOOLSSKYBOX2D" => (CONTENTS_SOLID, SURF_SKY | SURF_SKY2D | SURF_NOLIGHT),
        "TOOLSSKIP" => (CONTENTS_EMPTY, nodraw | SURF_SKIP),
        "TOOLSHINT" => (CONTENTS_EMPTY, nodraw | SURF_HINT),
        // %compileInvisible: a grate, so bullets pass and vis sees through.
        "TOOLSINVISIBLE" => (CONTENTS_GRATE, nodraw),
        "TOOLSINVISIBLELADDER" | "TOOLSBLOCKBULLETS" | "TOOLSOCCLUDER" => (CONTENTS_SOLID, nodraw),
        "TOOLSBLOCKLIGHT" => (CONTENTS_OPAQUE, nodraw),
        "TOOLSBLOCK_LOS" => (CONTENTS_BLOCKLOS, nodraw),
        "TOOLSAREAPORTAL" => (CONTENTS_AREAPORTAL, nodraw),
        "TOOLSORIGIN" => (CONTENTS_ORIGIN | CONTENTS_DETAIL, nodraw),
        "TOOLSLADDER" => (CONTENTS_LADDER | CONTENTS_PLAYERCLIP, nodraw),
        t if t.starts_with("TOOLSBLACK") => (CONTENTS_SOLID, SURF_NOLIGHT),
        _ => return None,
    })
}

/// Contents and surface flags of a material (normalised name, not a tool texture) whose name
/// says what it is.
fn telling_name(n: &str) -> Option<(u32, u32)> {
    Some(match n {
        _ if n.contains("WATER") && !n.contains("WATERFALL") => (CONTENTS_WATER, SURF_WARP | SURF_NOLIGHT),
        _ if n.contains("SLIME") || n.contains("LIQUID") => (CONTENTS_SLIME, SURF_NOLIGHT),
        // Grates are alpha-tested and let bullets through in Valve's content.
        _ if n.contains("GRATE") => (CONTENTS_GRATE, 0),
        // Without the VMT, a name that says see-through is taken at its word: a window (not
        // solid, vis sees through), as `$translucent` would make it.
        _ if n.contains("TRANSLUCENT") || n.starts_with("GLASS/") => (CONTENTS_WINDOW, SURF_TRANS),
        _ => return None,
    })
}

/// Facts from a game's `.vmt` and its base texture's `.vtf` header, as VBSP derives them from
/// the `%compile*` keys, `$translucent`/`$alphatest` and `$bumpmap`.
pub fn from_vmt(vmt: &srcmap_content::Vmt, vtf: Option<&srcmap_content::VtfHeader>) -> MaterialFacts {
    let f = vmt.compile_flags();
    let bits = liquid_and_visibility_keys(&f);
    let bits = clip_and_tool_keys(&f, bits);
    let (contents, mut surf) = marker_keys(&f, bits);
    if vmt.get("$bumpmap").is_some() && surf & SURF_NOLIGHT == 0 {
        surf |= SURF_BUMPLIGHT;
    }
    let (width, height) = vtf
        .map(|h| (h.width as u32, h.height as u32))
        .unwrap_or((DEFAULT_FACTS.width, DEFAULT_FACTS.height));
    let reflectivity = vmt
        .reflectivity()
        .or(vtf.map(|h| h.reflectivity))
        .unwrap_or(DEFAULT_FACTS.reflectivity);
    MaterialFacts {
        contents,
        surface_flags: surf,
        width,
        height,
        reflectivity,
    }
}

/// (contents, surface flags) from the liquid and visibility keys, the first VBSP reads.
fn liquid_and_visibility_keys(f: &srcmap_content::CompileFlags) -> (u32, u32) {
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
    (contents, surf)
}

/// (contents, surface flags) after the clip and tool keys, each of which overrides or adds to
/// what came before.
fn clip_and_tool_keys(f: &srcmap_content::CompileFlags, (mut contents, mut surf): (u32, u32)) -> (u32, u32) {
    let nodraw = SURF_NODRAW | SURF_NOLIGHT;
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
        (contents, surf) = (CONTENTS_EMPTY, nodraw | SURF_HINT);
    }
    if f.skip {
        (contents, surf) = (CONTENTS_EMPTY, nodraw | SURF_SKIP);
    }
    area_and_light_keys(f, (contents, surf))
}

/// (contents, surface flags) after the areaportal and light-blocking keys.
fn area_and_light_keys(f: &srcmap_content::CompileFlags, (mut contents, mut surf): (u32, u32)) -> (u32, u32) {
    let nodraw = SURF_NODRAW | SURF_NOLIGHT;
    if f.areaportal {
        (contents, surf) = (CONTENTS_AREAPORTAL, nodraw);
    }
    if f.block_light {
        (contents, surf) = (CONTENTS_OPAQUE, nodraw);
    }
    (contents, surf)
}

/// (contents, surface flags) after the marker keys (ladder, origin, detail, no light, no chop)
/// and see-through: a solid material that is translucent or alpha-tested is a window.
fn marker_keys(f: &srcmap_content::CompileFlags, (mut contents, mut surf): (u32, u32)) -> (u32, u32) {
    let nodraw = SURF_NODRAW | SURF_NOLIGHT;
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
    if f.no_chop {
        surf |= SURF_NOCHOP;
    }
    if (f.translucent || f.alphatest) && !f.water && !f.nonsolid && contents & CONTENTS_SOLID != 0 {
        // See-through and solid: a window (sorted as translucent when it blends).
        contents = CONTENTS_WINDOW;
        if f.translucent {
            surf |= SURF_TRANS;
        }
    }
    (contents, surf)
}

/// Answers "what is this material?" with the precedence described in the crate docs. Shared by
/// every stage; thread-safe.
pub struct Resolver {
    game: Option<srcmap_content::GameDir>,
    table: Option<(String, MaterialTable)>,
    warned: Mutex<HashSet<String>>,
    warnings: Mutex<Vec<String>>,
    /// The materials that fell through to the default, in the order first asked for.
    unknown: Mutex<Vec<String>>,
    /// The game's surface properties' weights, read on first use (`None`: no game, or its
    /// files could not be read, which is warned).
    game_surface_masses: std::sync::OnceLock<Option<std::collections::BTreeMap<String, SurfaceMass>>>,
}

impl std::fmt::Debug for Resolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resolver")
            .field("game", &self.game.is_some())
            .field("table", &self.table.as_ref().map(|(p, t)| (p, t.len())))
            .finish()
    }
}

impl Default for Resolver {
    fn default() -> Self {
        Resolver::new(None, None)
    }
}

impl Resolver {
    /// A resolver with neither game nor table (built-in rules and the default), shared by
    /// library defaults such as `vbsp::Options::default()`.
    pub fn builtin_only() -> &'static Resolver {
        static BUILTIN: std::sync::LazyLock<Resolver> = std::sync::LazyLock::new(Resolver::default);
        &BUILTIN
    }

    /// `table` is `(file name for reports, table)`.
    pub fn new(game: Option<srcmap_content::GameDir>, table: Option<(String, MaterialTable)>) -> Resolver {
        Resolver {
            game,
            table,
            warned: Mutex::new(HashSet::new()),
            warnings: Mutex::new(Vec::new()),
            unknown: Mutex::new(Vec::new()),
            game_surface_masses: std::sync::OnceLock::new(),
        }
    }

    /// The warnings so far: one per material that fell through to the default, or whose
    /// game files could not be used.
    pub fn warnings(&self) -> Vec<String> {
        self.warnings.lock().map(|w| w.clone()).unwrap_or_default()
    }

    fn warn(&self, message: String) {
        if let Ok(mut w) = self.warnings.lock() {
            w.push(message);
        }
    }

    /// The materials so far that fell through to the default, in the order first asked for.
    pub fn unknown_materials(&self) -> Vec<String> {
        self.unknown.lock().map(|u| u.clone()).unwrap_or_default()
    }

    /// One line for every unknown material so far: the count and the first `shown` names (all
    /// of them with `None`); `None` when every material was known.
    pub fn unknown_summary(&self, shown: Option<usize>) -> Option<String> {
        let names = self.unknown_materials();
        if names.is_empty() {
            return None;
        }
        let shown = shown.unwrap_or(names.len()).min(names.len());
        let rest = names.len() - shown;
        let more = if rest > 0 {
            format!(", and {rest} more")
        } else {
            String::new()
        };
        Some(format!(
            "{} unknown material{}, each treated as an opaque, lit 512x512 surface of reflectivity \
             0.5 (give -game DIR or --materials TABLE): {}{more}",
            names.len(),
            if names.len() == 1 { "" } else { "s" },
            names[..shown].join(", ")
        ))
    }

    /// Whether the material's `$envmap` is `env_cubemap` (the game's VMT, else the table;
    /// built-in rules know of none), so vbsp patches it to name the nearest cubemap.
    pub fn uses_env_cubemap(&self, name: &str) -> bool {
        let key = normalise_name(name);
        if let Some(game) = &self.game
            && let Ok(Some(vmt)) = game.material(&key.to_ascii_lowercase())
        {
            return vmt
                .get("$envmap")
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("env_cubemap"));
        }
        self.table
            .as_ref()
            .is_some_and(|(_, table)| table.uses_env_cubemap(&key))
    }

    /// The text of the `_wvt_patch` VMT vbsp writes for a non-displacement side of a
    /// WorldVertexTransition material; `None` for other materials. With the game, built from
    /// its VMT as Valve's vbsp builds it; else the text Valve wrote, from the table. `None` too
    /// for a blend material whose VMT is unreadable or whose patch the table never saw: its
    /// sides are left unpatched.
    pub fn wvt_patch(&self, name: &str) -> Option<String> {
        let key = normalise_name(name);
        if let Some(game) = &self.game
            && let Ok(Some(vmt)) = game.material(&key.to_ascii_lowercase())
        {
            // The shader decides through the resolved material; the copy is made from the
            // file itself.
            if !vmt.shader.to_ascii_lowercase().contains("worldvertextransition") {
                return None;
            }
            let path = srcmap_content::gameinfo::material_path(&key, "vmt");
            let built = game
                .read(&path)
                .ok()
                .flatten()
                .map(|bytes| wvt::wvt_patch_text(&bytes, &path));
            match built {
                Some(Ok(text)) => return Some(text),
                Some(Err(e)) => self.warn(format!("{name}: no _wvt_patch copy: {e}")),
                None => {}
            }
        }
        let (_, table) = self.table.as_ref()?;
        table.wvt_patch(&key).map(str::to_owned)
    }

    /// A water material's `$bottommaterial`, what vbsp draws its surface with seen from below
    /// (the game's VMT, else the table); `None` when unknown: vbsp then draws no such face.
    pub fn bottom_material(&self, water_material: &str) -> Option<String> {
        let key = normalise_name(water_material);
        if let Some(game) = &self.game
            && let Ok(Some(vmt)) = game.material(&key.to_ascii_lowercase())
        {
            return vmt.get("$bottommaterial").map(str::to_owned);
        }
        self.table.as_ref()?.1.bottom_material(&key).map(str::to_owned)
    }

    /// The material's `%detailtype`, the `detail.vbsp` type whose detail props vbsp places on
    /// its faces (the game's VMT, else the table); `None` for most materials.
    pub fn detail_type(&self, name: &str) -> Option<String> {
        let key = normalise_name(name);
        if let Some(game) = &self.game
            && let Ok(Some(vmt)) = game.material(&key.to_ascii_lowercase())
        {
            return vmt.get("%detailtype").map(str::to_owned);
        }
        self.table.as_ref()?.1.detail_type(&key).map(str::to_owned)
    }

    /// Whether the material's `%detailtype`, or its having none, is known for sure: the game's
    /// VMT was read, or the table recorded a type. A table harvested from BSPs without a
    /// detail file records none, so there "none" only means "not learned".
    pub fn detail_type_known(&self, name: &str) -> bool {
        let key = normalise_name(name);
        let in_game = (self.game.as_ref())
            .is_some_and(|game| matches!(game.material(&key.to_ascii_lowercase()), Ok(Some(_))));
        in_game || (self.table.as_ref()).is_some_and(|(_, table)| table.detail_type(&key).is_some())
    }

    /// The default cube map vbsp makes from the sky `skyname` (worldspawn's `skyname`): from
    /// the sky's textures in the game, else the table. `None` when neither knows the sky.
    pub fn sky_cubemap(&self, skyname: &str) -> Option<SkyCubemap> {
        if let Some(game) = &self.game {
            match sky::from_game(game, skyname) {
                Ok(sky) => return Some(sky),
                Err(why) => self.warn(format!("sky {skyname}: no default cubemap from the game: {why}")),
            }
        }
        self.table.as_ref()?.1.sky(skyname)
    }

    /// The game's VMT's `$surfaceprop` of a material (unpatched name): `None` when the game
    /// does not hold the material (or there is no game), `Some(None)` when it names none.
    fn game_surfaceprop(&self, key: &str) -> Option<Option<String>> {
        let vmt = self.game.as_ref()?.material(&key.to_ascii_lowercase()).ok()??;
        Some(vmt.surface_prop().map(str::to_owned))
    }

    /// Whether a material's surface property is known: the game holds its VMT (naming one or
    /// not: then Valve's default applies), or the material table learned one from Valve's
    /// maps (for BSP `version`, or any). Where neither, [`Resolver::surfaceprop_for`]'s `None`
    /// is a guess.
    pub fn knows_surfaceprop(&self, name: &str, version: i32) -> bool {
        let key = harvest::unpatched_name(name);
        self.game_surfaceprop(&key).is_some()
            || (self.table.as_ref()).is_some_and(|(_, t)| t.surfaceprop_for(&key, version).is_some())
    }

    /// The material's surface property (`$surfaceprop`) for a game of BSP `version`: the
    /// game's VMT, else the material table's (learned from Valve's physics collision) from maps
    /// of that version, else from any map; a per-map patched copy answers for the material it
    /// copies; `None` when neither knows. Where the table's maps of different versions
    /// disagree and none is of `version`, the choice is warned about once (the game's VMT
    /// decides, and only `-game` reads it).
    pub fn surfaceprop_for(&self, name: &str, version: i32) -> Option<String> {
        let key = harvest::unpatched_name(name);
        if let Some(from_game) = self.game_surfaceprop(&key) {
            return from_game;
        }
        let (_, table) = self.table.as_ref()?;
        let chosen = table.surfaceprop_for(&key, version)?;
        let versions = table.surfaceprop_versions(&key);
        if !versions.is_empty() && !versions.iter().any(|(v, _)| *v == version) {
            self.warn_once(&format!("surfaceprop {key}"), || {
                surfaceprop_guess_message(&key, chosen, version, &versions)
            });
        }
        Some(chosen.to_owned())
    }

    /// Pushes the warning `message` makes unless one of this `topic` was pushed before.
    fn warn_once(&self, topic: &str, message: impl FnOnce() -> String) {
        let first = self.warned.lock().is_ok_and(|mut w| w.insert(topic.to_owned()));
        if first {
            self.warn(message());
        }
    }

    /// How a surface property weighs: the game's `scripts/surfaceproperties*.txt`, else the
    /// material table's (learned from Valve's maps); `None` when neither knows (or the maps
    /// disagree), where Valve's default density applies.
    pub fn surface_mass(&self, prop: &str) -> Option<SurfaceMass> {
        let from_game = self.game_surface_masses.get_or_init(|| {
            let game = self.game.as_ref()?;
            let read = || -> Result<_, String> {
                let manifest = game
                    .read("scripts/surfaceproperties_manifest.txt")
                    .map_err(|e| e.to_string())?;
                let names = surfaceprops::manifest_files(manifest.as_deref()).map_err(|e| e.to_string())?;
                let mut files = Vec::new();
                for name in names {
                    match game.read(&name).map_err(|e| e.to_string())? {
                        Some(bytes) => files.push(bytes),
                        None => return Err(format!("{name} is missing")),
                    }
                }
                let slices: Vec<&[u8]> = files.iter().map(Vec::as_slice).collect();
                surfaceprops::surface_masses(&slices).map_err(|e| e.to_string())
            };
            read()
                .map_err(|why| self.warn(format!("surface properties: not from the game: {why}")))
                .ok()
        });
        if let Some(mass) = from_game.as_ref().and_then(|m| m.get(&prop.to_ascii_lowercase())) {
            return Some(*mass);
        }
        self.table.as_ref()?.1.surface_mass(prop)
    }

    pub fn resolve(&self, name: &str) -> Resolved {
        let key = normalise_name(name);
        if let Some(r) = self.resolve_from_game(&key) {
            return r;
        }
        let fallback = builtin(&key);
        let fallback_origin = if fallback.is_some() {
            Origin::Builtin
        } else {
            Origin::Default
        };
        let base = fallback.unwrap_or(DEFAULT_FACTS);
        let mut r = Resolved {
            facts: base,
            contents_from: fallback_origin.clone(),
            surface_from: fallback_origin.clone(),
            size_from: fallback_origin.clone(),
        };
        let in_table = self.apply_table(&key, &mut r);
        if fallback.is_none() && !in_table {
            self.note_unknown(&key);
        }
        r
    }

    /// The facts of a material the game has (a VMT under `materials/`).
    fn resolve_from_game(&self, key: &str) -> Option<Resolved> {
        let game = self.game.as_ref()?;
        let vmt = game.material(&key.to_ascii_lowercase()).ok()??;
        let vtf = vmt
            .base_texture()
            .and_then(|t| game.texture_header(t).ok().flatten());
        let origin = Origin::Game(format!("materials/{}.vmt", key.to_ascii_lowercase()));
        Some(Resolved {
            facts: from_vmt(&vmt, vtf.as_ref()),
            contents_from: origin.clone(),
            surface_from: origin.clone(),
            size_from: origin,
        })
    }

    /// Overrides `r` with what the table knows of the material; whether it holds it.
    fn apply_table(&self, key: &str, r: &mut Resolved) -> bool {
        let Some((file, table)) = &self.table else {
            return false;
        };
        let Some(e) = table.get(key) else {
            return false;
        };
        let origin = Origin::Table {
            file: file.clone(),
            maps: e.maps.clone(),
        };
        if let Some(c) = e.contents {
            r.facts.contents = c;
            r.contents_from = origin.clone();
        }
        if let Some(s) = e.surface_flags {
            r.facts.surface_flags = s;
            r.surface_from = origin.clone();
        }
        r.facts.width = e.width;
        r.facts.height = e.height;
        r.facts.reflectivity = e.reflectivity;
        r.size_from = origin;
        true
    }

    /// Records (once per material) that it fell through to the default, with its warning.
    fn note_unknown(&self, key: &str) {
        if let Ok(mut warned) = self.warned.lock()
            && warned.insert(key.to_owned())
            && let Ok(mut w) = self.warnings.lock()
            && let Ok(mut unknown) = self.unknown.lock()
        {
            unknown.push(key.to_owned());
            w.push(format!(
                "unknown material {key}: treated as an opaque, lit 512x512 surface of reflectivity 0.5 \
                 (give -game DIR or --materials TABLE)"
            ));
        }
    }
}

/// The warning for a surface property the table's maps of other games disagree on.
fn surfaceprop_guess_message(key: &str, chosen: &str, version: i32, versions: &[(i32, &str)]) -> String {
    let seen: Vec<String> = (versions.iter())
        .map(|(v, p)| format!("{p} in BSP v{v} maps"))
        .collect();
    format!(
        "material {key}: its surface property is the game's $surfaceprop, and the material table's \
         maps of other games disagree ({}); none is of this target's BSP v{version}: using {chosen} \
         (give -game DIR to read the game's own)",
        seen.join(", ")
    )
}

#[cfg(test)]
mod normalise_tests {
    use super::normalise_name;

    /// Normalising twice gives what normalising once did (the material table writes normalised
    /// names and must read them back unchanged; fuzz/regressions/material_table).
    #[test]
    fn normalising_is_idempotent() {
        for (name, want) in [
            (
                "materials\\Dev/dev_measuregeneric01.vmt",
                "DEV/DEV_MEASUREGENERIC01",
            ),
            ("DEV/X.VMT.VMT", "DEV/X"),
            ("materials/materials/x", "X"),
            ("materials/ x.vmt ", "X"),
            ("tools/toolsnodraw", "TOOLS/TOOLSNODRAW"),
        ] {
            let once = normalise_name(name);
            assert_eq!(once, want, "{name}");
            assert_eq!(normalise_name(&once), once, "{name}");
        }
    }
}

#[cfg(test)]
mod unknown_summary_tests {
    use super::Resolver;

    /// Unknown materials are one line: the count and the first names asked for (each once),
    /// all of them when asked; nothing when every material is known.
    #[test]
    fn unknown_materials_are_one_line_with_the_count_and_the_first_names() {
        let r = Resolver::default();
        r.resolve("tools/toolsnodraw");
        assert_eq!(r.unknown_summary(Some(3)), None);
        for name in ["a/one", "b/two", "A/ONE", "c/three", "d/four", "e/five"] {
            r.resolve(name);
        }
        assert_eq!(
            r.unknown_materials(),
            ["A/ONE", "B/TWO", "C/THREE", "D/FOUR", "E/FIVE"]
        );
        let line = r.unknown_summary(Some(3)).unwrap();
        assert!(line.starts_with("5 unknown materials, "), "{line}");
        assert!(line.ends_with(": A/ONE, B/TWO, C/THREE, and 2 more"), "{line}");
        assert!(
            r.unknown_summary(None)
                .unwrap()
                .ends_with(": A/ONE, B/TWO, C/THREE, D/FOUR, E/FIVE")
        );
    }
}
