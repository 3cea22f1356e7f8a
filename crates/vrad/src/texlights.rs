//! Texture lights (VRAD's `lights.rad`): materials that emit light. Every face with such a
//! material is cut into patches about four luxels across (VRAD's `SubdividePatch`), and each
//! patch becomes an `emit_surface` direct light at its centre, shining along the face normal
//! with intensity `value × (patch area in texels / texture area) × 100²` and falling off as
//! `cos / distance²`.
//!
//! Values come from, in increasing precedence:
//! 1. the input BSP itself: a map Valve already lit lists its texture lights as
//!    `emit_surface` world lights, and [`harvest_bsp`] inverts the formula above to get each
//!    material's value back (so relighting without the game keeps its texture lights);
//! 2. a material table's `emit` facts (see docs/material-table.md);
//! 3. `lights.rad` files (`--game DIR`'s, then `--lights FILE`, then `MAP.rad` beside the map), in
//!    Valve's syntax: `[ldr:|hdr:]MATERIAL R G B [BRIGHTNESS]`, `noshadow MATERIAL`,
//!    `forcetextureshadow MODEL`; a later definition overrides an earlier one.

use std::collections::BTreeMap;

use glam::{DVec3, Vec3};
use srcmap_bsp::flags::SurfaceFlags;
use srcmap_bsp::{Bsp, Face, TexInfo, WorldLight};

use crate::faces::FaceGeom;
use crate::lights::{Light, LightKind, Range, light_for_string};

/// VRAD's `DIRECT_SCALE`: surface-light intensities are scaled to a range that lights.
pub const DIRECT_SCALE: f32 = 100.0 * 100.0;
/// VRAD's `dlight_threshold`: texture lights dimmer than this (mean of the three channels)
/// emit nothing.
pub const THRESHOLD: f32 = 0.1;
/// Patch size in luxels (VRAD's default `-chop`/`-maxchop` of 4).
const CHOP: f64 = 4.0;

/// Emitted values per material (lower-case names), per range.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TexLights {
    ldr: BTreeMap<String, Vec3>,
    hdr: BTreeMap<String, Vec3>,
    /// Materials listed with `noshadow`: their faces cast no shadows.
    pub no_shadow: Vec<String>,
    /// Models listed with `forcetextureshadow` (only matters for static props).
    pub force_texture_shadow: Vec<String>,
}

fn key(name: &str) -> String {
    name.trim().replace('\\', "/").to_ascii_lowercase()
}

/// VRAD's `LightForTexture` name fix-up: a material patched for cubemaps
/// (`maps/LEVEL/NAME_X_Y_Z`) looks up as its original `NAME`.
pub fn base_material_name(name: &str) -> String {
    let n = key(name);
    if let Some(rest) = n.strip_prefix("maps/")
        && let Some((_, base)) = rest.split_once('/')
    {
        let mut b = base;
        for _ in 0..3 {
            match b.rfind('_') {
                Some(i) => b = &b[..i],
                None => return n,
            }
        }
        return b.to_string();
    }
    n
}

impl TexLights {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn is_empty(&self) -> bool {
        self.ldr.is_empty() && self.hdr.is_empty()
    }

    /// Number of materials with a value in either range.
    pub fn len(&self) -> usize {
        let mut names: Vec<&String> = self.ldr.keys().chain(self.hdr.keys()).collect();
        names.sort();
        names.dedup();
        names.len()
    }

    /// Sets a material's value for one range or, with `None`, both.
    pub fn set(&mut self, material: &str, range: Option<Range>, value: Vec3) {
        let k = key(material);
        if range != Some(Range::Hdr) {
            self.ldr.insert(k.clone(), value);
        }
        if range != Some(Range::Ldr) {
            self.hdr.insert(k, value);
        }
    }

    /// [`TexLights::set`] with a plain `[r, g, b]`.
    pub fn set_rgb(&mut self, material: &str, range: Option<Range>, rgb: [f32; 3]) {
        self.set(material, range, Vec3::from(rgb));
    }

    /// The emitted value of a material in `range` (cubemap-patched names resolve to the
    /// original material).
    pub fn get(&self, material: &str, range: Range) -> Option<Vec3> {
        let map = if range == Range::Hdr { &self.hdr } else { &self.ldr };
        map.get(&key(material))
            .or_else(|| map.get(&base_material_name(material)))
            .copied()
    }

    /// Whether `noshadow` lists this material.
    pub fn casts_no_shadow(&self, material: &str) -> bool {
        let k = key(material);
        let base = base_material_name(material);
        self.no_shadow.iter().any(|n| *n == k || *n == base)
    }

    /// Adds every entry of `other`, which wins where both define a material.
    pub fn extend(&mut self, other: &TexLights) {
        self.ldr.extend(other.ldr.iter().map(|(k, v)| (k.clone(), *v)));
        self.hdr.extend(other.hdr.iter().map(|(k, v)| (k.clone(), *v)));
        self.no_shadow.extend(other.no_shadow.iter().cloned());
        self.force_texture_shadow
            .extend(other.force_texture_shadow.iter().cloned());
    }

    /// Reads a `lights.rad` file's text into this set (later lines override earlier ones).
    /// Returns a warning per line that is not a texture light, as VRAD prints
    /// "ignoring bad texlight".
    pub fn parse_into(&mut self, text: &str) -> Vec<String> {
        let mut warnings = Vec::new();
        for (number, raw) in text.lines().enumerate() {
            let (range, line) = range_prefix(raw.trim_start());
            let line = line.trim();
            if line.is_empty() || line.starts_with("//") || line.starts_with('#') || line.starts_with(';') {
                continue;
            }
            let mut words = line.split_whitespace();
            let Some(first) = words.next() else { continue };
            let warning = match first {
                "noshadow" | "forcetextureshadow" => (!self.add_named(first, words.next()))
                    .then(|| format!("line {}: '{first}' without a name", number + 1)),
                material => (!self.add_value(material, line[material.len()..].trim(), range))
                    .then(|| format!("line {}: ignoring bad texture light '{}'", number + 1, raw.trim())),
            };
            warnings.extend(warning);
        }
        warnings
    }

    /// A `noshadow` or `forcetextureshadow` line's material `name` (false without one).
    fn add_named(&mut self, command: &str, name: Option<&str>) -> bool {
        let Some(name) = name else {
            return false;
        };
        if command == "noshadow" {
            // VRAD drops a ".vmt" (anything from the first dot).
            let name = name.split('.').next().unwrap_or(name);
            self.no_shadow.push(key(name));
        } else {
            self.force_texture_shadow.push(key(name));
        }
        true
    }

    /// A texture light's value `rest` for `material`, in `range` (both without a prefix);
    /// false when it is no light value.
    fn add_value(&mut self, material: &str, rest: &str, range: Option<Range>) -> bool {
        let ldr = light_for_string(rest, Range::Ldr);
        let hdr = light_for_string(rest, Range::Hdr);
        let (Some(l), Some(h)) = (ldr, hdr) else {
            return false;
        };
        if range != Some(Range::Hdr) {
            self.set(material, Some(Range::Ldr), l);
        }
        if range != Some(Range::Ldr) {
            self.set(material, Some(Range::Hdr), h);
        }
        true
    }

    /// Parses one `lights.rad` text.
    pub fn parse(text: &str) -> (TexLights, Vec<String>) {
        let mut t = TexLights::new();
        let w = t.parse_into(text);
        (t, w)
    }

    /// Materials and values of one range, in name order.
    pub fn iter(&self, range: Range) -> impl Iterator<Item = (&str, Vec3)> {
        let map = if range == Range::Hdr { &self.hdr } else { &self.ldr };
        map.iter().map(|(k, v)| (k.as_str(), *v))
    }
}

/// A face's texel density: `|textureVecs[0]| × |textureVecs[1]|` (texels per unit²) and the
/// texture's area in texels, or `None` without texinfo/texdata.
fn texel_scale(bsp: &Bsp, texinfo: i32) -> Option<(f64, f64, usize)> {
    let ti = bsp.texinfo.get(usize::try_from(texinfo).ok()?)?;
    let td_index = usize::try_from(ti.texdata).ok()?;
    let td = bsp.texdata.get(td_index)?;
    let len = |v: [f32; 4]| DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64).length();
    let scale = len(ti.texture_vecs[0]) * len(ti.texture_vecs[1]);
    Some((scale, td.width as f64 * td.height as f64, td_index))
}

fn polygon_area_centroid(points: &[DVec3]) -> (f64, DVec3) {
    if points.len() < 3 {
        return (0.0, points.first().copied().unwrap_or_default());
    }
    let mut area = 0.0;
    let mut centroid = DVec3::ZERO;
    for i in 1..points.len() - 1 {
        let (a, b, c) = (points[0], points[i], points[i + 1]);
        let t = (b - a).cross(c - a).length() * 0.5;
        area += t;
        centroid += (a + b + c) / 3.0 * t;
    }
    if area > 0.0 {
        (area, centroid / area)
    } else {
        (0.0, points.iter().copied().sum::<DVec3>() / points.len() as f64)
    }
}

/// Splits a convex polygon by the plane `p[axis] = dist`: (below, above).
fn split(points: &[DVec3], axis: usize, dist: f64) -> (Vec<DVec3>, Vec<DVec3>) {
    let (mut lo, mut hi) = (Vec::new(), Vec::new());
    for i in 0..points.len() {
        let a = points[i];
        let b = points[(i + 1) % points.len()];
        let (da, db) = (a[axis] - dist, b[axis] - dist);
        if da <= 0.0 {
            lo.push(a);
        }
        if da >= 0.0 {
            hi.push(a);
        }
        if (da < 0.0 && db > 0.0) || (da > 0.0 && db < 0.0) {
            let p = a + (b - a) * (da / (da - db));
            lo.push(p);
            hi.push(p);
        }
    }
    (lo, hi)
}

/// VRAD's patch subdivision of a face: split at the middle of the widest axis of the
/// bounding box while that axis spans at least [`CHOP`] luxels. Returns (area, centre) of
/// each leaf patch.
fn subdivide(points: Vec<DVec3>, luxels_per_unit: f64, out: &mut Vec<(f64, DVec3)>, depth: u32) {
    let (mut mins, mut maxs) = (DVec3::splat(f64::MAX), DVec3::splat(f64::MIN));
    for p in &points {
        mins = mins.min(*p);
        maxs = maxs.max(*p);
    }
    let size = (maxs - mins) * luxels_per_unit;
    let axis = if size.x >= size.y && size.x >= size.z {
        0
    } else if size.y >= size.z {
        1
    } else {
        2
    };
    if size[axis] >= CHOP && depth < 24 {
        let (lo, hi) = split(&points, axis, (mins[axis] + maxs[axis]) * 0.5);
        let (a1, _) = polygon_area_centroid(&lo);
        let (a2, _) = polygon_area_centroid(&hi);
        if a1 > 0.0 && a2 > 0.0 && lo.len() >= 3 && hi.len() >= 3 {
            subdivide(lo, luxels_per_unit, out, depth + 1);
            subdivide(hi, luxels_per_unit, out, depth + 1);
            return;
        }
    }
    let (area, centre) = polygon_area_centroid(&points);
    if area > 0.0 {
        out.push((area, centre));
    }
}

/// The `emit_surface` lights of every face whose material emits, for each `(values, range)`
/// pair: the same patches in the same order in every returned list (so one shadow ray serves
/// all ranges), with zero intensity where a range has no value. One light per patch, at its
/// centre; `subdivide_patches` false gives one light per face (VRAD `-fast`).
pub fn surface_lights(
    bsp: &Bsp,
    faces: &[FaceGeom],
    sets: &[(&TexLights, Range)],
    subdivide_patches: bool,
) -> Vec<Vec<Light>> {
    let mut out: Vec<Vec<Light>> = vec![Vec::new(); sets.len()];
    if sets.iter().all(|(t, _)| t.is_empty()) {
        return out;
    }
    for (i, face) in bsp.faces.iter().enumerate() {
        let Some(geom) = faces.get(i) else { continue };
        let Some(emitter) = Emitter::of(bsp, face, geom, sets) else {
            continue;
        };
        for (area, centre) in emitter.patches(geom, subdivide_patches) {
            for (list, value) in out.iter_mut().zip(&emitter.values) {
                list.push(Light::new(
                    LightKind::Surface,
                    centre.as_vec3(),
                    *value * ((area * emitter.scale / emitter.base_area) as f32 * DIRECT_SCALE),
                    geom.normal,
                    0,
                    usize::MAX,
                ));
            }
        }
    }
    out
}

/// A face whose material emits: its value in each set, its texture's scale and area.
struct Emitter<'a> {
    values: Vec<Vec3>,
    /// Texel area per unit of world area, and the texture's area in texels ([`texel_scale`]).
    scale: f64,
    base_area: f64,
    texinfo: &'a TexInfo,
}

impl<'a> Emitter<'a> {
    /// `face` as an emitter of `sets`' values: none for a displacement, a sky face, a face
    /// without a texture size, or a material no set gives a value above the threshold.
    fn of(bsp: &'a Bsp, face: &Face, geom: &FaceGeom, sets: &[(&TexLights, Range)]) -> Option<Emitter<'a>> {
        if face.dispinfo >= 0 || geom.points.len() < 3 || geom.texinfo_flags.intersects(SurfaceFlags::SKY) {
            return None;
        }
        let (scale, base_area, td) = texel_scale(bsp, face.texinfo)?;
        if base_area < 1e-6 {
            return None;
        }
        let name = bsp.texdata_name(td)?;
        let values: Vec<Vec3> = sets
            .iter()
            .map(|(t, range)| emitted(t, name, *range).unwrap_or(Vec3::ZERO))
            .collect();
        if values.iter().all(|v| *v == Vec3::ZERO) {
            return None;
        }
        let texinfo = bsp.texinfo.get(face.texinfo as usize)?;
        Some(Emitter {
            values,
            scale,
            base_area,
            texinfo,
        })
    }

    /// The face's patches (area, centre): chopped by its lightmap scale unless
    /// `subdivide_patches` is off or the face is `SURF_NOCHOP`, else the whole face.
    fn patches(&self, geom: &FaceGeom, subdivide_patches: bool) -> Vec<(f64, DVec3)> {
        let ti = self.texinfo;
        let len = |v: [f32; 4]| DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64).length();
        let luxscale = (len(ti.lightmap_vecs[0]) + len(ti.lightmap_vecs[1])) * 0.5;
        let points: Vec<DVec3> = geom.points.iter().map(|p| p.as_dvec3()).collect();
        let mut patches = Vec::new();
        if subdivide_patches
            && !SurfaceFlags::from_record(ti.flags).intersects(SurfaceFlags::NOCHOP)
            && luxscale > 0.0
        {
            subdivide(points, luxscale, &mut patches, 0);
        } else {
            let (area, centre) = polygon_area_centroid(&points);
            if area > 0.0 {
                patches.push((area, centre));
            }
        }
        patches
    }
}

/// Material `name`'s value in `t` for `range`, when bright enough to emit.
fn emitted(t: &TexLights, name: &str, range: Range) -> Option<Vec3> {
    t.get(name, range)
        .filter(|v| (v.x + v.y + v.z) / 3.0 >= THRESHOLD)
}

/// Sets `SURF_LIGHT` on the texinfo of every face whose material emits in any of `sets`, as
/// VRAD's `MakePatchForFace` does (the flag is written back with the texinfo lump). Returns
/// the number of texinfos newly flagged.
pub fn mark_light_texinfos(bsp: &mut Bsp, sets: &[(&TexLights, Range)]) -> usize {
    if sets.iter().all(|(t, _)| t.is_empty()) {
        return 0;
    }
    let mut mark = vec![false; bsp.texinfo.len()];
    for face in &bsp.faces {
        let Ok(ti) = usize::try_from(face.texinfo) else {
            continue;
        };
        let Some(td) = bsp.texinfo.get(ti).and_then(|t| usize::try_from(t.texdata).ok()) else {
            continue;
        };
        let Some(name) = bsp.texdata_name(td) else {
            continue;
        };
        if sets.iter().any(|(t, range)| emitted(t, name, *range).is_some()) {
            mark[ti] = true;
        }
    }
    let mut n = 0;
    for (ti, m) in bsp.texinfo.iter_mut().zip(mark) {
        if m && !SurfaceFlags::from_record(ti.flags).intersects(SurfaceFlags::LIGHT) {
            ti.flags |= SurfaceFlags::LIGHT.to_record();
            n += 1;
        }
    }
    n
}

/// Texture-light values recovered from the `emit_surface` world lights a compiler already
/// wrote into `bsp` (`range` picks the LDR or HDR lump): each light is matched to the face
/// it lies on, the intensities on each face are summed, and the face's texel area turns the
/// sum back into the material's value. Materials seen on several faces get the area-weighted
/// mean. Empty when the map has no such lights.
pub fn harvest_bsp(bsp: &Bsp, faces: &[FaceGeom], range: Range) -> TexLights {
    let world_lights = if range == Range::Hdr {
        &bsp.world_lights_hdr
    } else {
        &bsp.world_lights
    };
    let mut out = TexLights::new();
    let surface: Vec<_> = world_lights.iter().filter(|w| w.kind == 0).collect();
    if surface.is_empty() {
        return out;
    }
    let sums = face_sums(bsp, faces, &surface);
    for (name, (sum, texels)) in material_sums(bsp, faces, sums) {
        out.set(&name, Some(range), sum / (texels as f32 * DIRECT_SCALE));
    }
    out
}

/// Per face some of the `surface` lights lie on, the sum of their intensities (× 255).
/// Faces that may emit: planar, not displacements, the light on them and facing alike.
fn face_sums(bsp: &Bsp, faces: &[FaceGeom], surface: &[&WorldLight]) -> BTreeMap<usize, Vec3> {
    let mut sums: BTreeMap<usize, Vec3> = BTreeMap::new();
    for wl in surface {
        let o = Vec3::from(wl.origin);
        let n = Vec3::from(wl.normal);
        let found = faces.iter().enumerate().position(|(i, g)| {
            bsp.faces.get(i).is_some_and(|f| f.dispinfo < 0)
                && g.points.len() >= 3
                && g.normal.dot(n) > 0.999
                && (g.points[0] - o).dot(g.normal).abs() < 0.1
                && inside(&g.points, g.normal, o)
        });
        if let Some(i) = found {
            *sums.entry(i).or_default() += Vec3::from(wl.intensity) * 255.0;
        }
    }
    sums
}

/// Per material: Σ intensity and Σ (texel area / texture area) of its faces in `sums`.
fn material_sums(
    bsp: &Bsp,
    faces: &[FaceGeom],
    sums: BTreeMap<usize, Vec3>,
) -> BTreeMap<String, (Vec3, f64)> {
    let mut per_material: BTreeMap<String, (Vec3, f64)> = BTreeMap::new();
    for (i, sum) in sums {
        let face = &bsp.faces[i];
        let Some((scale, base_area, td)) = texel_scale(bsp, face.texinfo) else {
            continue;
        };
        let Some(name) = bsp.texdata_name(td) else {
            continue;
        };
        let points: Vec<DVec3> = faces[i].points.iter().map(|p| p.as_dvec3()).collect();
        let (area, _) = polygon_area_centroid(&points);
        let texels = area * scale / base_area;
        if texels <= 0.0 {
            continue;
        }
        let e = per_material.entry(base_material_name(name)).or_default();
        e.0 += sum;
        e.1 += texels;
    }
    per_material
}

/// Whether `p` (on the plane) lies inside the convex polygon (either winding), with a small
/// tolerance.
fn inside(points: &[Vec3], normal: Vec3, p: Vec3) -> bool {
    let side = |i: usize| {
        let a = points[i];
        let b = points[(i + 1) % points.len()];
        (p - a).dot((b - a).cross(normal).normalize_or_zero())
    };
    (0..points.len()).all(|i| side(i) <= 0.05) || (0..points.len()).all(|i| side(i) >= -0.05)
}

/// `text` without `prefix` (ASCII, any case), comparing bytes: `text` may start with a
/// multi-byte character, where slicing at the prefix's length would not be a char boundary.
/// A line's `hdr:` or `ldr:` prefix (any case) and the rest.
fn range_prefix(line: &str) -> (Option<Range>, &str) {
    for (prefix, r) in [("hdr:", Range::Hdr), ("ldr:", Range::Ldr)] {
        if let Some(rest) = strip_prefix_ignore_ascii_case(line, prefix) {
            return (Some(r), rest);
        }
    }
    (None, line)
}

fn strip_prefix_ignore_ascii_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.as_bytes().get(..prefix.len())?;
    // A match is all ASCII, so `prefix.len()` is then a char boundary.
    head.eq_ignore_ascii_case(prefix.as_bytes())
        .then(|| &text[prefix.len()..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lights_rad_syntax() {
        let text = "\
lights/white001 255 255 255 200
hdr:lights/white001 255 255 255 50
ldr:lights/red 255 0 0 100
noshadow glass/window.vmt
forcetextureshadow props/fence.mdl
  this_is_not_a_light abc
LIGHTS/BLUE 0 0 255
";
        let (t, warnings) = TexLights::parse(text);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        let white = t.get("LIGHTS/WHITE001", Range::Ldr).unwrap();
        assert!((white.x - 200.0).abs() < 1e-3);
        let white_hdr = t.get("lights/white001", Range::Hdr).unwrap();
        assert!((white_hdr.x - 50.0).abs() < 1e-3);
        assert!(t.get("lights/red", Range::Hdr).is_none());
        assert!(t.get("lights/red", Range::Ldr).unwrap().x > 99.0);
        // Three numbers: gamma-corrected colour, no brightness scale.
        assert!((t.get("lights/blue", Range::Ldr).unwrap().z - 255.0).abs() < 1e-3);
        assert!(t.casts_no_shadow("GLASS/WINDOW"));
        assert_eq!(t.force_texture_shadow, vec!["props/fence.mdl".to_string()]);
        // A cubemap-patched copy of a material emits like the original.
        assert!(t.get("maps/test/lights/white001_12_-34_56", Range::Ldr).is_some());
    }

    #[test]
    fn values_that_are_not_finite_are_bad_lines() {
        let text = "lights/a nan 255 255 200\nlights/b 255 255 255 inf\nlights/c 255 255 255 NaN\n";
        let (t, warnings) = TexLights::parse(text);
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert!(t.get("lights/a", Range::Ldr).is_none() && t.get("lights/c", Range::Ldr).is_none());
    }

    #[test]
    fn subdivision_covers_the_face_in_patches_of_about_four_luxels() {
        // 256 × 128 units at 16 units per luxel: 16 × 8 luxels. VRAD splits while an axis
        // spans 4 luxels or more, so patches end at 2 luxels: 8 × 4 patches of 32².
        let square = vec![
            DVec3::new(0.0, 0.0, 0.0),
            DVec3::new(256.0, 0.0, 0.0),
            DVec3::new(256.0, 128.0, 0.0),
            DVec3::new(0.0, 128.0, 0.0),
        ];
        let mut out = Vec::new();
        subdivide(square, 1.0 / 16.0, &mut out, 0);
        assert_eq!(out.len(), 32);
        let total: f64 = out.iter().map(|(a, _)| a).sum();
        assert!((total - 256.0 * 128.0).abs() < 1e-6);
        assert!(out.iter().all(|(a, _)| (a - 32.0 * 32.0).abs() < 1e-6));
    }

    /// Regression: a line whose first character is multi-byte UTF-8 (across the 4-byte `hdr:`
    /// prefix) panicked on a slice off a char boundary; now it is a bad-line warning.
    #[test]
    fn a_line_starting_with_a_multibyte_character_is_a_warning_not_a_panic() {
        // Byte 4 falls inside a character in each.
        for text in ["abcé", "ab\u{1F600}", "\u{e9}\u{1F600} x"] {
            let (lights, warnings) = TexLights::parse(text);
            assert!(lights.is_empty(), "{text}");
            assert_eq!(warnings.len(), 1, "{text}: {warnings:?}");
        }
        let (lights, warnings) = TexLights::parse("abcé 1 2 3 4");
        assert!(warnings.is_empty(), "{warnings:?}");
        assert!(lights.get("abcé", Range::Ldr).is_some());
        let (lights, warnings) = TexLights::parse("HDR:ümlaut 1 2 3 4");
        assert!(warnings.is_empty(), "{warnings:?}");
        assert!(lights.get("ümlaut", Range::Hdr).is_some());
        assert!(lights.get("ümlaut", Range::Ldr).is_none());
    }
}
