//! Learning material facts from a compiled map: texdata gives size and reflectivity, texinfo the
//! surface flags, and the brushes whose sides use a material its contents.

use std::collections::{BTreeMap, HashMap};

use crate::TableEntry;
use crate::flags::CONTENTS_DETAIL;

/// Per texdata, the votes for each value (surface flags or contents).
type Votes = HashMap<usize, HashMap<u32, u32>>;

/// The entries one BSP teaches. Contents and surface flags are the values most of the evidence
/// agrees on; a brush whose every side has the same material is decisive evidence (it counts ten
/// times), since a brush's contents can only come from its own material then.
pub fn harvest_bsp(map: &str, bsp: &srcmap_bsp::Bsp) -> BTreeMap<String, TableEntry> {
    let surface_votes = surface_flag_votes(bsp);
    let contents_votes = contents_votes(bsp);
    let mut out = BTreeMap::new();
    for (i, td) in bsp.texdata.iter().enumerate() {
        let Some(name) = bsp.texdata_name(i) else { continue };
        let (surface_flags, e1) = winner(surface_votes.get(&i));
        let (contents, e2) = winner(contents_votes.get(&i));
        let entry = TableEntry {
            contents,
            surface_flags,
            width: td.width.max(0) as u32,
            height: td.height.max(0) as u32,
            reflectivity: td.reflectivity,
            emit: None,
            maps: vec![map.to_owned()],
            evidence: e1 + e2,
        };
        let key = crate::normalise_name(name);
        // The same material can have several texdata (one per size it was seen at); keep the
        // best-supported one.
        match out.get(&key) {
            Some(TableEntry { evidence, .. }) if *evidence >= entry.evidence => {}
            _ => {
                out.insert(key, entry);
            }
        }
    }
    out
}

/// Per texdata, each texinfo using it votes for its surface flags.
fn surface_flag_votes(bsp: &srcmap_bsp::Bsp) -> Votes {
    let mut votes: Votes = HashMap::new();
    for ti in &bsp.texinfo {
        if ti.texdata >= 0 && (ti.texdata as usize) < bsp.texdata.len() {
            *votes
                .entry(ti.texdata as usize)
                .or_default()
                .entry(ti.flags as u32)
                .or_default() += 1;
        }
    }
    votes
}

/// Per texdata, each brush using it votes once for its contents (less detail), ten times when
/// all its sides use the one texdata.
fn contents_votes(bsp: &srcmap_bsp::Bsp) -> Votes {
    let mut votes: Votes = HashMap::new();
    for brush in &bsp.brushes {
        let Some(used) = brush_texdata(bsp, brush) else {
            continue;
        };
        let Some(&first_td) = used.first() else { continue };
        // Detail comes from func_detail, not from the material.
        let contents = brush.contents as u32 & !CONTENTS_DETAIL;
        let weight = if used.iter().all(|&t| t == first_td) {
            10
        } else {
            1
        };
        let mut seen = Vec::new();
        for td in used {
            if !seen.contains(&td) {
                seen.push(td);
                *votes.entry(td).or_default().entry(contents).or_default() += weight;
            }
        }
    }
    votes
}

/// The texdata of a brush's non-bevel sides, in side order; `None` when its side range is bad.
fn brush_texdata(bsp: &srcmap_bsp::Bsp, brush: &srcmap_bsp::Brush) -> Option<Vec<usize>> {
    let (Ok(first), Ok(n)) = (
        usize::try_from(brush.first_side),
        usize::try_from(brush.num_sides),
    ) else {
        return None;
    };
    let sides = bsp.brush_sides.get(first..first.saturating_add(n))?;
    let texdata_of_side = |side: &srcmap_bsp::BrushSide| -> Option<usize> {
        let ti = bsp.texinfo.get(usize::try_from(side.texinfo).ok()?)?;
        let td = usize::try_from(ti.texdata).ok()?;
        (td < bsp.texdata.len()).then_some(td)
    };
    Some(
        sides
            .iter()
            .filter(|s| !s.is_bevel())
            .filter_map(texdata_of_side)
            .collect(),
    )
}

/// The value with the most votes (ties to the smaller value, so the result is deterministic)
/// and the votes' total.
fn winner(votes: Option<&HashMap<u32, u32>>) -> (Option<u32>, u32) {
    let Some(v) = votes else { return (None, 0) };
    let total = v.values().sum();
    let best = v
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(k, _)| *k);
    (best, total)
}

/// The materials a BSP shows to use `$envmap env_cubemap`: Valve's vbsp gives each side of such a
/// material a patched copy, texdata `maps/<map>/<material>_<x>_<y>_<z>`, whose pakfile VMT
/// includes the original and sets its `$envmap` to a cubemap of the map. Each original (normalised)
/// comes with the patched texdata's name and an entry made from that texdata (the same size and
/// reflectivity, as Valve clones it), for tables that never saw the original itself.
pub fn env_cubemap_materials(map: &str, bsp: &srcmap_bsp::Bsp) -> Vec<(String, String, TableEntry)> {
    let Ok(pak) = srcmap_bsp::pak::Pak::parse(&bsp.pakfile, 0) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (i, td) in bsp.texdata.iter().enumerate() {
        let Some(name) = bsp.texdata_name(i) else { continue };
        if !name.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("maps/")) {
            continue;
        }
        let path = format!("materials/{name}.vmt");
        let Some(text) = pak.find(&path).and_then(|e| pak.read(e).ok()) else {
            continue;
        };
        let Some(original) = patched_envmap_original(&text, &path) else {
            continue;
        };
        let entry = cloned_entry(map, td);
        found.push((original, name.to_owned(), entry));
    }
    found
}

/// The entry of a texdata Valve cloned for a patched material: its size and reflectivity,
/// nothing known of contents or flags.
fn cloned_entry(map: &str, td: &srcmap_bsp::TexData) -> TableEntry {
    TableEntry {
        contents: None,
        surface_flags: None,
        width: td.width.max(0) as u32,
        height: td.height.max(0) as u32,
        reflectivity: td.reflectivity,
        emit: None,
        maps: vec![map.to_owned()],
        evidence: 0,
    }
}

/// The material a patch VMT includes, when its `insert` or `replace` block sets `$envmap`.
fn patched_envmap_original(text: &[u8], path: &str) -> Option<String> {
    let vmt = srcmap_content::Vmt::parse(text, path).ok()?;
    let include = vmt.include.as_deref()?;
    let sets_envmap = vmt.blocks.iter().any(|b| {
        (b.key.eq_ignore_ascii_case("replace") || b.key.eq_ignore_ascii_case("insert"))
            && b.children().iter().any(|c| c.key.eq_ignore_ascii_case("$envmap"))
    });
    sets_envmap.then(|| crate::normalise_name(include))
}

/// The `$bottommaterial` of each water material a BSP shows: Valve's vbsp draws a water
/// surface seen from below with it, as a second face on the same plane and corners as the
/// surface's own. Pairs of (water material, normalised; bottom material, as Valve's texdata
/// names it), a water material being one a water volume's surface uses; a cube-map-patched
/// texdata counts as its original.
pub fn water_bottom_materials(bsp: &srcmap_bsp::Bsp) -> Vec<(String, String)> {
    use std::collections::BTreeSet;
    let pak = srcmap_bsp::pak::Pak::parse(&bsp.pakfile, 0).ok();
    let original = |texinfo: i32| original_material(bsp, pak.as_ref(), texinfo);
    let water: BTreeSet<String> = bsp
        .leaf_water_data
        .iter()
        .filter_map(|w| original(w.surface_texinfo))
        .collect();
    if water.is_empty() {
        return Vec::new();
    }
    let mut found: Vec<(String, String)> = Vec::new();
    for texinfos in faces_by_shape(bsp).values().filter(|t| t.len() == 2) {
        let Some((surface, under)) = surface_and_under(&water, texinfos, original) else {
            continue;
        };
        let Some(bottom) = texinfo_texdata_name(bsp, under) else {
            continue;
        };
        if !found.iter().any(|(w, _)| *w == surface) {
            found.push((surface, bottom.to_string()));
        }
    }
    found
}

/// Of a shape's two faces, the water surface's material and the other face's texinfo, when
/// exactly one of them is a water material.
fn surface_and_under(
    water: &std::collections::BTreeSet<String>,
    texinfos: &[i32],
    original: impl Fn(i32) -> Option<String>,
) -> Option<(String, i32)> {
    let (a, b) = (original(texinfos[0])?, original(texinfos[1])?);
    match (water.contains(&a), water.contains(&b)) {
        (true, false) => Some((a, texinfos[1])),
        (false, true) => Some((b, texinfos[0])),
        _ => None,
    }
}

/// The texdata name a texinfo uses.
fn texinfo_texdata_name(bsp: &srcmap_bsp::Bsp, texinfo: i32) -> Option<&str> {
    let ti = bsp.texinfo.get(usize::try_from(texinfo).ok()?)?;
    bsp.texdata_name(usize::try_from(ti.texdata).ok()?)
}

/// The material (normalised) a texinfo uses; for a patched copy, the material its pakfile VMT
/// includes.
fn original_material(
    bsp: &srcmap_bsp::Bsp,
    pak: Option<&srcmap_bsp::pak::Pak<'_>>,
    texinfo: i32,
) -> Option<String> {
    let name = texinfo_texdata_name(bsp, texinfo)?;
    let included = pak.and_then(|pak| {
        let path = format!("materials/{name}.vmt");
        let text = pak.read(pak.find(&path)?).ok()?;
        srcmap_content::Vmt::parse(&text, &path).ok()?.include
    });
    Some(crate::normalise_name(included.as_deref().unwrap_or(name)))
}

/// Faces' texinfos by (plane pair, bounds): the two faces of one portal share both (their
/// corners may differ where T-junctions were mended).
fn faces_by_shape(bsp: &srcmap_bsp::Bsp) -> BTreeMap<(u32, [[i64; 3]; 2]), Vec<i32>> {
    let mut by_shape: BTreeMap<(u32, [[i64; 3]; 2]), Vec<i32>> = BTreeMap::new();
    for f in &bsp.faces {
        if let Some(b) = face_bounds(bsp, f) {
            by_shape.entry((f.plane & !1, b)).or_default().push(f.texinfo);
        }
    }
    by_shape
}

/// A face's corners' bounds, in eighths of a unit.
fn face_bounds(bsp: &srcmap_bsp::Bsp, f: &srcmap_bsp::Face) -> Option<[[i64; 3]; 2]> {
    let first = usize::try_from(f.first_edge).ok()?;
    let edges = bsp
        .surfedges
        .get(first..first + usize::try_from(f.num_edges).ok()?)?;
    let mut points = Vec::with_capacity(edges.len());
    for &e in edges {
        let edge = bsp.edges.get(e.unsigned_abs() as usize)?;
        let v = bsp.vertexes.get(edge.0[usize::from(e < 0)] as usize)?;
        points.push(v.map(|c| (c * 8.0).round() as i64));
    }
    let lo = std::array::from_fn(|k| points.iter().map(|p| p[k]).min().unwrap_or(0));
    let hi = std::array::from_fn(|k| points.iter().map(|p| p[k]).max().unwrap_or(0));
    Some([lo, hi])
}

/// The WorldVertexTransition (blend) materials a BSP shows: Valve's vbsp gives each
/// non-displacement side of one a patched copy, texdata `maps/<map>/<material>_wvt_patch`,
/// whose pakfile VMT is the original's keyvalues as a single-texture `LightmappedGeneric`. That
/// text does not depend on the map, so it is kept whole. Each original (normalised) comes with
/// the patched texdata's name, the VMT text and an entry made from that texdata (Valve clones
/// it), for tables that never saw the original itself.
pub fn wvt_patch_materials(map: &str, bsp: &srcmap_bsp::Bsp) -> Vec<(String, String, String, TableEntry)> {
    let Ok(pak) = srcmap_bsp::pak::Pak::parse(&bsp.pakfile, 0) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (i, td) in bsp.texdata.iter().enumerate() {
        let Some(name) = bsp.texdata_name(i) else { continue };
        let Some(original) = wvt_patch_original(name) else {
            continue;
        };
        let path = format!("materials/{name}.vmt");
        let Some(text) = pak.find(&path).and_then(|e| pak.read(e).ok()) else {
            continue;
        };
        let entry = cloned_entry(map, td);
        let text = String::from_utf8_lossy(&text).into_owned();
        found.push((original, name.to_owned(), text, entry));
    }
    found
}

/// `<material>` (normalised) of a texdata named `maps/<map>/<material>_wvt_patch`.
fn wvt_patch_original(name: &str) -> Option<String> {
    let name = name.replace('\\', "/");
    let (prefix, rest) = name.split_at_checked(5)?;
    if !prefix.eq_ignore_ascii_case("maps/") {
        return None;
    }
    // The map's name is one path component.
    let (_, material) = rest.split_once('/')?;
    let cut = material.len().checked_sub("_wvt_patch".len())?;
    let (material, suffix) = material.split_at_checked(cut)?;
    (suffix.eq_ignore_ascii_case("_wvt_patch") && !material.is_empty())
        .then(|| crate::normalise_name(material))
}

/// Whether a VMT's text sets `$envmap` to `env_cubemap` (what vbsp's cubemap step looks for in a
/// material it patched itself, such as a `_wvt_patch` copy).
pub fn vmt_text_uses_env_cubemap(text: &str) -> bool {
    srcmap_content::Vmt::parse(text.as_bytes(), "patch.vmt").is_ok_and(|vmt| {
        vmt.get("$envmap")
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("env_cubemap"))
    })
}

/// A material's name without vbsp's per-map patch: `maps/<map>/<material>_<x>_<y>_<z>` (the
/// cubemap patch) and `…_wvt_patch` name the material they copy.
pub fn unpatched_name(name: &str) -> String {
    let n = crate::normalise_name(name);
    let Some(rest) = n
        .strip_prefix("MAPS/")
        .and_then(|r| r.split_once('/'))
        .map(|(_, m)| m)
    else {
        return n;
    };
    if let Some(m) = rest.strip_suffix("_WVT_PATCH") {
        return m.to_string();
    }
    let mut parts: Vec<&str> = rest.rsplitn(4, '_').collect();
    if parts.len() == 4 && parts[..3].iter().all(|p| p.parse::<i64>().is_ok()) {
        return parts.pop().unwrap_or(rest).to_string();
    }
    rest.to_string()
}

/// The surface property each material had in a map Valve compiled, read from its physics
/// collision: the world's triangles name a slot of its material table and lie on a side of
/// their brush (the side facing most their way, as vbsp chose it); a brush entity whose faces
/// all use one material names that material's property, one without faces its first brush
/// side's, one of several materials (weakly) each's. Each material's best voted.
pub fn surfaceprop_materials(bsp: &srcmap_bsp::Bsp) -> Vec<(String, String)> {
    let mut votes = PropVotes::default();
    let Some(models) = bsp.phys_collide.as_ref().and_then(|pc| pc.read_models(0).ok()) else {
        return Vec::new();
    };
    for m in &models {
        if m.model_index == 0 {
            vote_world_triangles(bsp, m, &mut votes);
        } else if let (Some(model), Some(prop)) = (
            bsp.models.get(m.model_index as usize),
            m.key_data.solids().next().and_then(|b| b.get("surfaceprop")),
        ) {
            vote_brush_entity(bsp, m, model, prop, &mut votes);
        }
    }
    votes.winners()
}

/// Per material, the summed weight of each surface property voted for it.
#[derive(Default)]
struct PropVotes(BTreeMap<String, HashMap<String, f64>>);

impl PropVotes {
    fn vote(&mut self, material: String, prop: &str, weight: f64) {
        *self
            .0
            .entry(material)
            .or_default()
            .entry(prop.to_string())
            .or_default() += weight;
    }

    /// Each material's property with the most weight; ties to the smaller name.
    fn winners(self) -> Vec<(String, String)> {
        self.0
            .into_iter()
            .filter_map(|(name, v)| {
                let best = v
                    .into_iter()
                    .max_by(|a, b| a.1.total_cmp(&b.1).then_with(|| b.0.cmp(&a.0)))?;
                Some((name, best.0))
            })
            .collect()
    }
}

/// The material (unpatched) a texinfo's texdata names.
fn texinfo_material(bsp: &srcmap_bsp::Bsp, ti: i32) -> Option<String> {
    texinfo_texdata_name(bsp, ti).map(unpatched_name)
}

/// The world's votes: each triangle of a brush ledge votes its material-table property for the
/// material of its brush's side facing most its way.
fn vote_world_triangles(bsp: &srcmap_bsp::Bsp, m: &srcmap_phys::ModelCollision, votes: &mut PropVotes) {
    let table = material_table_props(m);
    // Polysoup terrain (MOPP) ledges are displacement triangles, not brushes.
    for s in m
        .solids
        .iter()
        .filter_map(|s| s.surface())
        .filter(|s| !s.is_mopp())
    {
        for l in &s.ledges {
            let Some(brush) = bsp.brushes.get(l.client_data as usize) else {
                continue;
            };
            for t in &l.triangles {
                let Some(prop) = table.get(&t.material_index) else {
                    continue;
                };
                let Some(n) = triangle_normal(s, l, t) else {
                    continue;
                };
                if let Some(name) = facing_side(bsp, brush, n).and_then(|s| texinfo_material(bsp, s.texinfo))
                {
                    votes.vote(name, prop, 1.0);
                }
            }
        }
    }
}

/// The key data's material table: slot → surface property.
fn material_table_props(m: &srcmap_phys::ModelCollision) -> HashMap<u8, &str> {
    m.key_data
        .material_table()
        .into_iter()
        .filter_map(|(n, i)| Some((i.parse().ok()?, n)))
        .collect()
}

/// A ledge triangle's (unnormalised) normal in Hammer's axes.
fn triangle_normal(
    s: &srcmap_phys::CompactSurface,
    l: &srcmap_phys::Ledge,
    t: &srcmap_phys::Triangle,
) -> Option<[f64; 3]> {
    let pts: Option<Vec<[f32; 3]>> = t
        .edges
        .iter()
        .map(|e| s.ledge_point(l, e.start_point_index))
        .collect();
    let [a, b, c] = pts.as_deref().and_then(|p| <[[f32; 3]; 3]>::try_from(p).ok())?;
    // IVP (x, y, z) is Hammer (x, -z, y).
    let hl = |p: [f32; 3]| [p[0] as f64, p[2] as f64, -p[1] as f64];
    let (a, b, c) = (hl(a), hl(b), hl(c));
    let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    Some([
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ])
}

/// The brush's side whose plane faces most along `n` (the side vbsp gave the triangle).
fn facing_side<'a>(
    bsp: &'a srcmap_bsp::Bsp,
    brush: &srcmap_bsp::Brush,
    n: [f64; 3],
) -> Option<&'a srcmap_bsp::BrushSide> {
    bsp.sides_of(brush)
        .filter_map(|s| {
            let p = bsp.planes.get(s.plane as usize)?;
            let d = n[0] * p.normal[0] as f64 + n[1] * p.normal[1] as f64 + n[2] * p.normal[2] as f64;
            Some((d, s))
        })
        .max_by(|x, y| x.0.total_cmp(&y.0))
        .map(|(_, s)| s)
}

/// A brush entity's votes for its key data's property: its one material's, its first brush
/// side's when it has no faces, or each of several materials' weighed by area.
fn vote_brush_entity(
    bsp: &srcmap_bsp::Bsp,
    m: &srcmap_phys::ModelCollision,
    model: &srcmap_bsp::Model,
    prop: &str,
    votes: &mut PropVotes,
) {
    let area = material_areas(bsp, model);
    match area.as_slice() {
        // No faces: Valve takes the first side of the model's first brush (the lowest
        // brush index among its convexes).
        [] => {
            if let Some(name) = first_brush_side(bsp, m).and_then(|s| texinfo_material(bsp, s.texinfo)) {
                votes.vote(name, prop, 1.0);
            }
        }
        [(name, _)] => votes.vote(name.clone(), prop, 1.0),
        // Several materials: the named property is that of the materials with the
        // largest summed area, so each is only a guess, weighed by its area share
        // (below any single-material evidence). `default` also stands for materials
        // naming none, so it teaches nothing here.
        several if prop != "default" => {
            let total: f64 = several.iter().map(|e| e.1).sum();
            for (name, a) in several {
                votes.vote(name.clone(), prop, 0.5 * a / total.max(1e-9));
            }
        }
        _ => {}
    }
}

/// A model's materials with their summed face area, in order of first face.
fn material_areas(bsp: &srcmap_bsp::Bsp, model: &srcmap_bsp::Model) -> Vec<(String, f64)> {
    let mut area: Vec<(String, f64)> = Vec::new();
    for f in bsp.faces_of(model) {
        let Some(name) = texinfo_material(bsp, f.texinfo) else {
            continue;
        };
        match area.iter_mut().find(|(n, _)| *n == name) {
            Some(e) => e.1 += f.area as f64,
            None => area.push((name, f.area as f64)),
        }
    }
    area
}

/// The first non-bevel side of the lowest-numbered brush among a model's convexes.
fn first_brush_side<'a>(
    bsp: &'a srcmap_bsp::Bsp,
    m: &srcmap_phys::ModelCollision,
) -> Option<&'a srcmap_bsp::BrushSide> {
    m.solids
        .iter()
        .filter_map(|s| s.surface())
        .flat_map(|s| s.ledges.iter().map(|l| l.client_data))
        .filter_map(|b| usize::try_from(b).ok())
        .min()
        .and_then(|b| bsp.brushes.get(b))
        .and_then(|brush| bsp.sides_of(brush).find(|s| s.bevel & 0xff == 0))
}

/// VPhysics' heaviest object (`VPHYSICS_MAX_MASS`, kg): vbsp caps a brush entity's mass at it.
pub const VPHYSICS_MAX_MASS: f64 = 50_000.0;
/// Cubic metres in a cubic inch.
pub const CUBIC_METRES_PER_CUBIC_INCH: f64 = 0.0254 * 0.0254 * 0.0254;

/// One brush entity's mass measured against its size, for a surface property: mass per cubic
/// metre of its volume, and mass per (square inch of surface × cubic-inch-to-metre), Valve's
/// measure for a shell material (density × thickness). Single precision, as Valve's floats
/// (and so that the table's JSON reads back exactly).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MassSample {
    pub per_volume: f32,
    pub per_area: f32,
}

/// Each brush entity's surface property with its [`MassSample`], from a map Valve compiled.
/// Valve's vbsp computes the mass, and writes the key data's `volume`, from the summed volume of
/// the entity's convexes, not their outer hull (pcollab model 16: 1593 + 1593 + 3717 = 6903,
/// hull 7257). Only single-convex solids are sampled, the case the density rule was learned on,
/// and only masses below the cap measure the density. The
/// surface area is Valve's `proplist` total: the model's faces plus the list's first entry (1)
/// and, for a model without faces, the side standing in for them (2).
pub fn surfaceprop_mass_samples(bsp: &srcmap_bsp::Bsp) -> Vec<(String, MassSample)> {
    let Some(models) = bsp.phys_collide.as_ref().and_then(|pc| pc.read_models(0).ok()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for m in models.iter().filter(|m| m.model_index != 0) {
        let [solid] = m.solids.as_slice() else {
            continue;
        };
        if solid.surface().is_none_or(|s| s.ledges.len() != 1) {
            continue;
        }
        let Some(model) = bsp.models.get(m.model_index as usize) else {
            continue;
        };
        let Some((prop, mass, volume)) = measured_mass(m) else {
            continue;
        };
        let faces: f64 = bsp.faces_of(model).map(|f| f.area as f64).sum();
        let area = 1.0 + faces + if model.num_faces <= 0 { 2.0 } else { 0.0 };
        out.push((
            prop.to_ascii_lowercase(),
            MassSample {
                per_volume: (mass / (volume * CUBIC_METRES_PER_CUBIC_INCH)) as f32,
                per_area: (mass / (area * CUBIC_METRES_PER_CUBIC_INCH)) as f32,
            },
        ));
    }
    out
}

/// A brush entity's key data's surface property, mass and volume, when the mass is below the
/// cap (so it measures the density) and the volume positive.
fn measured_mass(m: &srcmap_phys::ModelCollision) -> Option<(&str, f64, f64)> {
    let block = m.key_data.solids().next()?;
    let number = |k: &str| block.get(k).and_then(|v| v.trim().parse::<f64>().ok());
    let (Some(prop), Some(mass), Some(volume)) = (block.get("surfaceprop"), number("mass"), number("volume"))
    else {
        return None;
    };
    if mass >= VPHYSICS_MAX_MASS * 0.9999 || volume <= 0.0 {
        return None;
    }
    Some((prop, mass, volume))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unpatched_names_name_the_copied_material() {
        assert_eq!(
            unpatched_name("maps/c1_cave/nature/blendrockdirt_wvt_patch"),
            "NATURE/BLENDROCKDIRT"
        );
        assert_eq!(unpatched_name("maps/c1_cave/metal/floor_1_-2_30"), "METAL/FLOOR");
        assert_eq!(
            unpatched_name("maps/c1_cave/metal/floor_a_2_3"),
            "METAL/FLOOR_A_2_3"
        );
        assert_eq!(unpatched_name("concrete/wall_1_2_3"), "CONCRETE/WALL_1_2_3");
    }

    #[test]
    fn wvt_patch_names() {
        assert_eq!(
            wvt_patch_original("maps/c1_cave/nature/blendrockdirt_wvt_patch").as_deref(),
            Some("NATURE/BLENDROCKDIRT")
        );
        assert_eq!(wvt_patch_original("maps/c1_cave/nature/rock_1_2_3"), None);
        assert_eq!(wvt_patch_original("nature/rock_wvt_patch"), None);
        assert_eq!(wvt_patch_original("maps/x/_wvt_patch"), None);
        assert!(vmt_text_uses_env_cubemap(
            "\"LightmappedGeneric\"\n{\n\t\"$envmap\"\t\t\"env_cubemap\"\n}\n"
        ));
        assert!(!vmt_text_uses_env_cubemap("\"LightmappedGeneric\"\n{\n}\n"));
    }
}
