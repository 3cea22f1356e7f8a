//! Light entities → direct lights, following VRAD's `CreateDirectLights`: `light`,
//! `light_spot` and `light_environment` (a sun plus sky ambient); `light_dynamic` is a
//! runtime entity and is skipped.

use glam::{DVec3, Vec3};
use srcmap_bsp::Entity;
use srcmap_kv::values;

/// `emit_*` types, numbered as in `dworldlight_t::type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LightKind {
    /// A texture light's patch (`emit_surface`): light along `normal` falling off as
    /// cos / distance², from [`crate::texlights`].
    Surface = 0,
    Point = 1,
    Spot = 2,
    /// The sun: parallel light along `normal`, visible where a ray against it reaches sky.
    Sun = 3,
    /// Sky ambient: the visible fraction of the sky hemisphere.
    SkyAmbient = 5,
}

/// One direct light, in VRAD's units (linear 0-255 scale, already scaled for distance 100
/// where the attenuation asks for it).
#[derive(Debug, Clone, PartialEq)]
pub struct Light {
    pub kind: LightKind,
    pub origin: Vec3,
    pub intensity: Vec3,
    /// Direction the light travels (spots and sun).
    pub normal: Vec3,
    pub style: u8,
    /// Cosines of the inner and outer cone (spots).
    pub stopdot: f32,
    pub stopdot2: f32,
    pub exponent: f32,
    pub constant_attn: f32,
    pub linear_attn: f32,
    pub quadratic_attn: f32,
    /// `_distance`; 0 = unlimited (written to the world lights lump).
    pub radius: f32,
    /// Quintic fade between these distances when `end_fade > start_fade` (`_hardfalloff`
    /// or a quadratic that would turn brighter again).
    pub start_fade: f32,
    pub end_fade: f32,
    /// Distance beyond which the attenuation is no longer evaluated.
    pub cap_dist: f32,
    /// Index of the entity it came from.
    pub entity: usize,
    /// The sun's shadow rays (unit, toward the sun): its direction first, then, with a
    /// `SunSpreadAngle`, VRAD's jittered directions across the sun's disc (its visible share
    /// is the fraction of these that reach the sky). Empty for other kinds.
    pub sun_dirs: Vec<Vec3>,
}

impl Light {
    /// A light with no cone, no attenuation terms, no fade and no distance cap; callers set
    /// what their kind uses.
    pub fn new(
        kind: LightKind,
        origin: Vec3,
        intensity: Vec3,
        normal: Vec3,
        style: u8,
        entity: usize,
    ) -> Light {
        Light {
            kind,
            origin,
            intensity,
            normal,
            style,
            stopdot: 0.0,
            stopdot2: 0.0,
            exponent: 0.0,
            constant_attn: 0.0,
            linear_attn: 0.0,
            quadratic_attn: 0.0,
            radius: 0.0,
            start_fade: 0.0,
            end_fade: -1.0,
            cap_dist: 1.0e22,
            entity,
            sun_dirs: if kind == LightKind::Sun {
                vec![-normal]
            } else {
                Vec::new()
            },
        }
    }
}

/// How intensities are read: LDR (`_light`) or HDR (`_lightHDR`, `_lightscaleHDR`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Range {
    Ldr,
    Hdr,
}

/// Valve's limit on light styles (`MAX_LIGHTSTYLES`).
pub const MAX_LIGHTSTYLES: u32 = 64;

/// The first number of a key (`sscanf("%f")`), `None` when missing or not a number.
fn first_number(e: &Entity, key: &str) -> Option<f64> {
    e.get(key).and_then(|v| values::numbers(v).next())
}

/// A number key (`_cone`, `scale`), 0 when missing or not a number.
pub(crate) fn key_f32(e: &Entity, key: &str) -> f32 {
    first_number(e, key).unwrap_or(0.0) as f32
}

/// A vector key (`origin`), missing components 0.
pub(crate) fn key_vec(e: &Entity, key: &str) -> Vec3 {
    DVec3::from(e.get(key).map_or([0.0; 3], values::vector_or_zero)).as_vec3()
}

/// `LightForString`: `"r g b [brightness] [r g b brightness (HDR)]"` → linear intensity.
/// `None` when the value is missing, negative or unparsable.
pub fn light_for_string(value: &str, range: Range) -> Option<Vec3> {
    let color = values::color(value)?;
    let ([mut r, mut g, mut b], mut scaler, mut count) = (color.rgb, color.brightness, color.count);
    if count == 8 {
        if let (Range::Hdr, Some(([hr, hg, hb], hs))) = (range, color.hdr) {
            (r, g, b, scaler) = (hr, hg, hb, hs);
        }
        count = 4;
    }
    // Negative or not finite (`nan`, `inf`): no light value.
    if ![r, g, b, scaler].iter().all(|c| c.is_finite() && *c >= 0.0) {
        return None;
    }
    let lin = |c: f64| (c / 255.0).powf(2.2) * 255.0;
    let mut out = match count {
        1 => [lin(r); 3],
        3 | 4 => [lin(r), lin(g), lin(b)],
        _ => return None,
    };
    if count == 4 {
        for c in &mut out {
            *c *= scaler / 255.0;
        }
    }
    Some(Vec3::new(out[0] as f32, out[1] as f32, out[2] as f32))
}

/// `SetupLightNormalFromProps`: the direction from `angles`, `angle` (yaw, -1 up, -2 down)
/// and `pitch`.
pub fn light_normal(angles: Vec3, angle: f32, pitch: f32) -> Vec3 {
    let (mut out, yaw_set) = if angle == -1.0 {
        (Vec3::Z, true)
    } else if angle == -2.0 {
        (Vec3::NEG_Z, true)
    } else {
        let yaw = if angle != 0.0 { angle } else { angles.y };
        let yaw = yaw.to_radians();
        (Vec3::new(yaw.cos(), yaw.sin(), 0.0), false)
    };
    let _ = yaw_set;
    let pitch = if pitch != 0.0 { pitch } else { angles.x }.to_radians();
    out.z = pitch.sin();
    out.x *= pitch.cos();
    out.y *= pitch.cos();
    out
}

/// Fits `a x² + b x + c` through three points.
fn solve_quadratic(x1: f32, y1: f32, x2: f32, y2: f32, x3: f32, y3: f32) -> Option<(f32, f32, f32)> {
    let det = (x1 - x2) * (x1 - x3) * (x2 - x3);
    if det == 0.0 {
        return None;
    }
    let a = (x3 * (y2 - y1) + x2 * (y1 - y3) + x1 * (y3 - y2)) / det;
    let b = (x3 * x3 * (y1 - y2) + x1 * x1 * (y2 - y3) + x2 * x2 * (y3 - y1)) / det;
    let c =
        (x1 * x3 * (x3 - x1) * y2 + x2 * x2 * (x3 * y1 - x1 * y3) + x2 * (x1 * x1 * y3 - x3 * x3 * y1)) / det;
    Some((a, b, c))
}

/// VRAD's `SolveInverseQuadraticMonotonic` for `_fifty_percent_distance`: the inverse
/// attenuation through (0, 1), (d50, 2), (d0, 256); while the slope test (taken, as VRAD
/// does, at x = 1) says the curve is not monotonic, the middle point is blended toward the
/// straight line in steps of 5%.
fn solve_inverse_quadratic_monotonic(
    x1: f32,
    y1: f32,
    x2: f32,
    y2: f32,
    x3: f32,
    y3: f32,
) -> Option<(f32, f32, f32)> {
    let mut result = None;
    let mut blend = 0.0f32;
    while blend <= 1.0 {
        let linear = y1 + (y3 - y1) * (x2 - x1) / (x3 - x1);
        let y2b = (1.0 - blend) * y2 + blend * linear;
        let (a, b, c) = solve_quadratic(x1, y1, x2, y2b, x3, y3)?;
        result = Some((a, b, c));
        let derivative = 2.0 * a + b;
        let increasing = y1 < y2 && y2 < y3;
        let decreasing = y1 > y2 && y2 > y3;
        if (increasing && derivative >= 0.0)
            || (decreasing && derivative <= 0.0)
            || (!increasing && !decreasing)
        {
            break;
        }
        blend += 0.05;
    }
    result
}

fn set_falloff(e: &Entity, l: &mut Light) {
    l.start_fade = 0.0;
    l.end_fade = -1.0;
    l.cap_dist = 1.0e22;
    let d50 = key_f32(e, "_fifty_percent_distance");
    if d50 != 0.0 {
        set_distance_falloff(e, l, d50);
    } else {
        set_attenuation(e, l);
    }
}

/// Falloff from `_fifty_percent_distance` (`d50`) and `_zero_percent_distance`: VRAD's
/// monotonic inverse-quadratic fit, faded out between them with `_hardfalloff`, else
/// capped at the curve's maximum.
fn set_distance_falloff(e: &Entity, l: &mut Light, d50: f32) {
    let mut d0 = key_f32(e, "_zero_percent_distance");
    if d0 < d50 {
        d0 = 2.0 * d50;
    }
    let (mut a, mut b, mut c) =
        solve_inverse_quadratic_monotonic(0.0, 1.0, d50, 2.0, d0, 256.0).unwrap_or((0.0, 1.0, 0.0));
    let v50 = c + d50 * (b + d50 * a);
    if v50.abs() > 0.0 {
        let scale = 2.0 / v50;
        a *= scale;
        b *= scale;
        c *= scale;
    }
    l.quadratic_attn = a;
    l.linear_attn = b;
    l.constant_attn = c;
    if key_f32(e, "_hardfalloff") != 0.0 {
        l.end_fade = d0;
        l.start_fade = 0.75 * d0 + 0.25 * d50;
    } else if a.abs() > 0.0 {
        let max = b / (-2.0 * a);
        if max > 0.0 {
            l.cap_dist = max;
            l.start_fade = max;
            l.end_fade = 10.0 * max;
        }
    }
}

/// Falloff from `_constant_attn`, `_linear_attn`, `_quadratic_attn` (constant when none is
/// given); the intensity, given for distance 100, scaled to distance 1.
fn set_attenuation(e: &Entity, l: &mut Light) {
    let clamp = |v: f32| if v < 0.001 { 0.0 } else { v };
    l.constant_attn = clamp(key_f32(e, "_constant_attn"));
    l.linear_attn = clamp(key_f32(e, "_linear_attn"));
    l.quadratic_attn = clamp(key_f32(e, "_quadratic_attn"));
    l.radius = key_f32(e, "_distance");
    if l.constant_attn == 0.0 && l.linear_attn == 0.0 && l.quadratic_attn == 0.0 {
        l.constant_attn = 1.0;
    }
    // Intensity is specified for distance 100.
    let ratio = l.constant_attn + 100.0 * l.linear_attn + 100.0 * 100.0 * l.quadratic_attn;
    if ratio > 0.0 {
        l.intensity *= ratio;
    }
}

fn generic(e: &Entity, index: usize, entities: &[Entity], range: Range, kind: LightKind, style: u8) -> Light {
    let intensity = (range == Range::Hdr)
        .then(|| {
            e.get("_lightHDR")
                .and_then(|v| light_for_string(v, range))
                .filter(|v| v.max_element() > 0.0 || !v.is_finite())
        })
        .flatten()
        .or_else(|| e.get("_light").and_then(|v| light_for_string(v, range)))
        .unwrap_or(Vec3::ZERO);
    let origin = key_vec(e, "origin");
    let normal = match e.get("target").filter(|t| !t.is_empty()) {
        Some(target) => entities
            .iter()
            .find(|o| {
                o.get("targetname")
                    .is_some_and(|n| n.eq_ignore_ascii_case(target))
            })
            .map(|o| (key_vec(o, "origin") - origin).normalize_or_zero())
            .unwrap_or(Vec3::NEG_Z),
        None => light_normal(key_vec(e, "angles"), key_f32(e, "angle"), key_f32(e, "pitch")),
    };
    let mut intensity = intensity;
    if range == Range::Hdr {
        let scale = first_number(e, "_lightscaleHDR").unwrap_or(1.0) as f32;
        intensity *= scale;
    }
    Light::new(kind, origin, intensity, normal, style, index)
}

/// What [`parse_lights`] found besides the lights.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LightScan {
    /// Entities named `light*` that are not supported (`light_directional` etc.).
    pub unsupported: Vec<String>,
}

/// Reads every light entity, each in the `style` its entity has (VRAD's `(int)` of the
/// number): vbsp is what gives named lights their switchable styles 32 and up
/// (`srcmap_vbsp::light_styles`, Valve's `SetLightStyles`), so a BSP of Valve's and one of ours
/// are lit alike, and vrad never renames a style.
pub fn parse_lights(entities: &[Entity], range: Range) -> (Vec<Light>, LightScan) {
    let mut lights = Vec::new();
    let mut scan = LightScan::default();
    let mut have_sun = false;
    for (index, e) in entities.iter().enumerate() {
        let Some(class) = e.classname() else { continue };
        if !class.starts_with("light") || class == "light_dynamic" {
            continue;
        }
        let style = entity_style(e);
        match class {
            "light" | "light_spot" => {
                let spot = class == "light_spot";
                lights.push(point_or_spot(e, spot, index, entities, range, style));
            }
            // Only the first light_environment lights the map (as in VRAD).
            "light_environment" if !have_sun => {
                have_sun = true;
                lights.extend(environment(e, index, entities, range));
            }
            "light_environment" => {}
            other => scan.unsupported.push(other.to_string()),
        }
    }
    (lights, scan)
}

/// A `light`, or with `spot` a `light_spot` (one of 180° both ways is a point light).
fn point_or_spot(
    e: &Entity,
    spot: bool,
    index: usize,
    entities: &[Entity],
    range: Range,
    style: u8,
) -> Light {
    let kind = if spot { LightKind::Spot } else { LightKind::Point };
    let mut l = generic(e, index, entities, range, kind, style);
    if spot {
        set_cone(e, &mut l);
    }
    set_falloff(e, &mut l);
    l
}

/// A light entity's style: the whole part of its `style` number (0 when missing), kept
/// within the game's styles.
fn entity_style(e: &Entity) -> u8 {
    let style = first_number(e, "style").unwrap_or(0.0).trunc();
    style.clamp(0.0, f64::from(MAX_LIGHTSTYLES - 1)) as u8
}

/// A spot light's cones (`_inner_cone`, default 10°; `_cone`, at least the inner) and
/// `_exponent`; one of 180° both ways is a point light.
fn set_cone(e: &Entity, l: &mut Light) {
    let mut inner = key_f32(e, "_inner_cone");
    if inner == 0.0 {
        inner = 10.0;
    }
    let mut outer = key_f32(e, "_cone");
    if outer == 0.0 {
        outer = inner;
    }
    if outer < inner {
        outer = inner;
    }
    if inner == 180.0 && outer == 180.0 {
        l.kind = LightKind::Point;
    } else {
        l.stopdot = inner.min(90.0).to_radians().cos();
        l.stopdot2 = outer.min(90.0).to_radians().cos();
        l.exponent = key_f32(e, "_exponent");
    }
}

/// A `light_environment`'s sun and sky ambient (`_ambient`, `_ambientHDR` and
/// `_AmbientScaleHDR`; half the sun's light without one).
fn environment(e: &Entity, index: usize, entities: &[Entity], range: Range) -> [Light; 2] {
    // The sun has the entity's style (a named light_environment switches it); the sky
    // ambient is a light of its own, in style 0, as VRAD makes it.
    let mut sun = generic(e, index, entities, range, LightKind::Sun, entity_style(e));
    sun.sun_dirs = sun_directions(sun.normal, key_f32(e, "SunSpreadAngle"));
    let mut ambient = sun.clone();
    ambient.kind = LightKind::SkyAmbient;
    ambient.sun_dirs = Vec::new();
    ambient.style = 0;
    let hdr_ambient = (range == Range::Hdr)
        .then(|| e.get("_ambientHDR").and_then(|v| light_for_string(v, range)))
        .flatten();
    ambient.intensity =
        match hdr_ambient.or_else(|| e.get("_ambient").and_then(|v| light_for_string(v, range))) {
            Some(v) => v,
            None => sun.intensity * 0.5,
        };
    if range == Range::Hdr {
        ambient.intensity *= first_number(e, "_AmbientScaleHDR").unwrap_or(1.0) as f32;
    }
    [sun, ambient]
}

/// Shadow rays per sun sample with a spread (VRAD's `NSAMPLES_SUN_AREA_LIGHT`; `-fast`
/// takes the first quarter).
pub const SUN_AREA_SAMPLES: usize = 30;

/// The sun's shadow-ray directions for a sun travelling along `normal` with a spread of
/// `spread_degrees` ([`Light::sun_dirs`]): as VRAD, the first toward the sun's centre, each
/// other one toward the centre pushed by a point of its Halton sphere sequence (bases 2 and
/// 3) times the sine of the spread.
fn sun_directions(normal: Vec3, spread_degrees: f32) -> Vec<Vec3> {
    let extent = spread_degrees.to_radians().sin();
    if extent.is_nan() || extent <= 0.0 {
        return vec![-normal];
    }
    let mut dirs = vec![-normal];
    // VRAD's sampler starts its sequences at element 2 (its seed starts at 1 and is bumped
    // before use).
    for k in 2..SUN_AREA_SAMPLES as u32 + 1 {
        let z = 2.0 * radical_inverse(k, 2) - 1.0;
        let theta = std::f32::consts::TAU * radical_inverse(k, 3);
        let r = (1.0 - z * z).max(0.0).sqrt();
        let jitter = Vec3::new(theta.cos() * r, theta.sin() * r, z);
        dirs.push((-normal + jitter * extent).normalize_or(-normal));
    }
    spread_first(dirs)
}

/// `dirs` reordered so that each comes as far as it can from those before it (the first
/// kept first): the leading few then span the disc, so a point they all agree on can be
/// taken as wholly lit or wholly shadowed ([`SUN_PROBES`]).
fn spread_first(mut dirs: Vec<Vec3>) -> Vec<Vec3> {
    for k in 1..dirs.len() {
        let gap = |d: &Vec3| {
            dirs[..k]
                .iter()
                .map(|c| c.distance_squared(*d))
                .fold(f32::MAX, f32::min)
        };
        let far = (k..dirs.len())
            .max_by(|&a, &b| gap(&dirs[a]).total_cmp(&gap(&dirs[b])))
            .unwrap_or(k);
        dirs.swap(k, far);
    }
    dirs
}

/// How many of a spread sun's leading [`Light::sun_dirs`] are traced first: when they all
/// reach the sky, or none does, the point is taken as wholly lit or wholly shadowed and the
/// others are not traced (the penumbra is where they part).
pub const SUN_PROBES: usize = 5;

/// Element `i` of the Halton sequence of `base`: `i`'s digits mirrored after the point.
fn radical_inverse(mut i: u32, base: u32) -> f32 {
    let (mut out, mut scale) = (0.0f32, 1.0 / base as f32);
    while i > 0 {
        out += (i % base) as f32 * scale;
        scale /= base as f32;
        i /= base;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ent(pairs: &[(&str, &str)]) -> Entity {
        Entity::from_pairs(pairs)
    }

    #[test]
    fn light_string_is_gamma_corrected_and_scaled() {
        let v = light_for_string("255 255 255 200", Range::Ldr).unwrap();
        assert!((v.x - 200.0).abs() < 1e-3);
        let v = light_for_string("128 0 0 255", Range::Ldr).unwrap();
        assert!((v.x - (128.0f32 / 255.0).powf(2.2) * 255.0).abs() < 1e-2);
        assert_eq!(v.y, 0.0);
        let hdr = light_for_string("255 255 255 200 255 255 255 100", Range::Hdr).unwrap();
        assert!((hdr.x - 100.0).abs() < 1e-3);
        assert!(light_for_string("-1 0 0 1", Range::Ldr).is_none());
    }

    #[test]
    fn point_light_defaults_to_quadratic_scaled_for_distance_100() {
        let e = ent(&[
            ("classname", "light"),
            ("origin", "0 0 64"),
            ("_light", "255 255 255 200"),
            ("_quadratic_attn", "1"),
        ]);
        let (lights, _) = parse_lights(&[e], Range::Ldr);
        assert_eq!(lights.len(), 1);
        let l = &lights[0];
        assert_eq!(l.kind, LightKind::Point);
        // At distance 100 the light equals its brightness.
        let at100 = l.intensity.x / (l.constant_attn + 100.0 * l.linear_attn + 1e4 * l.quadratic_attn);
        assert!((at100 - 200.0).abs() < 1e-2);
    }

    #[test]
    fn fifty_percent_distance_halves_there() {
        let e = ent(&[
            ("classname", "light"),
            ("_light", "255 255 255 255"),
            ("_fifty_percent_distance", "200"),
            ("_zero_percent_distance", "600"),
        ]);
        let (lights, _) = parse_lights(&[e], Range::Ldr);
        let l = &lights[0];
        let f = |d: f32| 1.0 / (l.constant_attn + l.linear_attn * d + l.quadratic_attn * d * d);
        assert!((f(200.0) - 0.5).abs() < 1e-3, "{}", f(200.0));
        assert!(f(100.0) > f(200.0) && f(200.0) > f(400.0));
    }

    #[test]
    fn environment_gives_sun_and_ambient_and_lights_keep_their_styles() {
        let ents = vec![
            ent(&[
                ("classname", "light_environment"),
                ("style", "34.9"),
                ("pitch", "-90"),
                ("_light", "255 255 255 100"),
                ("_ambient", "128 128 128 20"),
            ]),
            ent(&[
                ("classname", "light"),
                ("targetname", "lamp"),
                ("style", "33"),
                ("_light", "255 255 255 100"),
            ]),
            ent(&[
                ("classname", "light_spot"),
                ("targetname", "lamp"),
                ("_light", "255 255 255 100"),
                ("pitch", "-90"),
            ]),
            ent(&[("classname", "light_dynamic"), ("_light", "255 255 255 100")]),
        ];
        let (lights, _) = parse_lights(&ents, Range::Ldr);
        assert_eq!(lights.len(), 4);
        assert_eq!(lights[0].kind, LightKind::Sun);
        assert!((lights[0].normal - Vec3::NEG_Z).length() < 1e-5);
        assert_eq!(lights[1].kind, LightKind::SkyAmbient);
        assert_eq!((lights[0].style, lights[1].style), (34, 0));
        // As written: vbsp numbers named lights, vrad does not (a name without a style is 0).
        assert_eq!(lights[2].style, 33);
        assert_eq!(lights[3].style, 0);
        assert_eq!(lights[3].kind, LightKind::Spot);
        // No spread: one shadow ray, toward the sun.
        assert_eq!(lights[0].sun_dirs.len(), 1);
        assert!(lights[0].sun_dirs[0].distance(Vec3::Z) < 1e-5);
        assert!(lights[1].sun_dirs.is_empty());
    }

    #[test]
    fn a_sun_spread_jitters_shadow_rays_within_its_angle() {
        let e = ent(&[
            ("classname", "light_environment"),
            ("pitch", "-90"),
            ("SunSpreadAngle", "5"),
            ("_light", "255 255 255 100"),
        ]);
        let (lights, _) = parse_lights(&[e], Range::Ldr);
        let dirs = &lights[0].sun_dirs;
        assert_eq!(dirs.len(), SUN_AREA_SAMPLES);
        assert!(dirs[0].distance(Vec3::Z) < 1e-5);
        let cos_max = 5.0f32.to_radians().cos();
        assert!(
            dirs.iter()
                .all(|d| (d.length() - 1.0).abs() < 1e-4 && d.z >= cos_max - 1e-4)
        );
        // Spread over the disc, not bunched on its centre.
        assert!(dirs.iter().filter(|d| d.z < 0.9995).count() > SUN_AREA_SAMPLES / 2);
        assert_eq!((radical_inverse(2, 2), radical_inverse(2, 3)), (0.25, 2.0 / 3.0));
    }
}
