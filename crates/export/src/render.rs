//! A CPU rasteriser for [`MapMesh`]: z-buffered triangles, back faces culled (so that a view
//! from above looks through ceilings into rooms), perspective-correct lightmap coordinates.

use glam::{Vec2, Vec3};

pub use crate::geometry::bounds_of;
use crate::geometry::{angles_rotation, parse_vec3};
use crate::image::Rgb8;
use crate::mesh::MapMesh;
use crate::props::Props;
use crate::texture::TextureLookup;

/// How a pixel is coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shading {
    /// Material colour times lightmap.
    Lit,
    /// Material colour with a fixed directional shade (no lightmaps).
    Fullbright,
    /// Lightmaps alone, as `mat_fullbright 2` shows them.
    Lightmap,
}

/// Where the camera is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum View {
    /// Orthographic, looking down, +Y up in the image.
    Top,
    /// Orthographic, looking down at 35° from the south-west corner.
    Isometric,
    /// Perspective (90° horizontal field of view) from a point with entity angles
    /// (`pitch yaw roll`, degrees).
    Eye { origin: Vec3, angles: [f32; 3] },
}

/// A camera: an orthonormal basis and a projection.
#[derive(Debug, Clone, Copy)]
pub struct Camera {
    eye: Vec3,
    right: Vec3,
    up: Vec3,
    forward: Vec3,
    perspective: bool,
    /// Pixels per unit (orthographic) or the focal length in pixels (perspective).
    scale: f32,
    /// Orthographic: the camera-space point at the image centre.
    centre: Vec2,
}

const NEAR: f32 = 1.0;
const BACKGROUND: [u8; 3] = [24, 26, 32];

impl Camera {
    /// The camera [`render`] uses for `view` on an image `width × height` (orthographic views
    /// fit the mesh's bounds).
    pub fn new(mesh: &MapMesh, view: View, width: u32, height: u32) -> Camera {
        Camera::fitting(mesh.bounds(), view, width, height)
    }

    /// The camera for `view`, orthographic views fitting `bounds`.
    fn fitting(bounds: Option<(Vec3, Vec3)>, view: View, width: u32, height: u32) -> Camera {
        let (forward, right, up, eye, perspective) = view_axes(view);
        let mut cam = Camera {
            eye,
            right,
            up,
            forward,
            perspective,
            scale: width as f32 * 0.5,
            centre: Vec2::ZERO,
        };
        if !perspective {
            cam.fit(bounds.unwrap_or((Vec3::ZERO, Vec3::ONE)), width, height);
        }
        cam
    }

    /// Scales and centres an orthographic camera so that the box `(lo, hi)` fills the image
    /// (with a small margin).
    fn fit(&mut self, (lo, hi): (Vec3, Vec3), width: u32, height: u32) {
        let mut min = Vec2::splat(f32::MAX);
        let mut max = Vec2::splat(f32::MIN);
        for k in 0..8 {
            let p = Vec3::new(
                if k & 1 == 0 { lo.x } else { hi.x },
                if k & 2 == 0 { lo.y } else { hi.y },
                if k & 4 == 0 { lo.z } else { hi.z },
            );
            let c = Vec2::new(p.dot(self.right), p.dot(self.up));
            min = min.min(c);
            max = max.max(c);
        }
        let size = (max - min).max(Vec2::ONE);
        self.scale = (width as f32 / size.x).min(height as f32 / size.y) * 0.96;
        self.centre = (min + max) * 0.5;
    }

    /// The pixel position of a world point (`None` behind a perspective camera).
    pub fn project(&self, p: Vec3, width: u32, height: u32) -> Option<Vec2> {
        let c = self.camera_space(p);
        (!self.perspective || c.z >= NEAR).then(|| self.screen(c, width, height))
    }

    /// The pixel position of a camera-space point (in front of the camera).
    fn screen(&self, c: Vec3, width: u32, height: u32) -> Vec2 {
        let (x, y) = if self.perspective {
            (c.x / c.z, c.y / c.z)
        } else {
            (c.x - self.centre.x, c.y - self.centre.y)
        };
        Vec2::new(
            width as f32 * 0.5 + x * self.scale,
            height as f32 * 0.5 - y * self.scale,
        )
    }

    /// Camera-space coordinates: x right, y up, z along the view.
    fn camera_space(&self, p: Vec3) -> Vec3 {
        let d = p - self.eye;
        Vec3::new(d.dot(self.right), d.dot(self.up), d.dot(self.forward))
    }
}

/// A view's axes: forward, right, up, the eye, and whether it is a perspective view.
fn view_axes(view: View) -> (Vec3, Vec3, Vec3, Vec3, bool) {
    match view {
        View::Top => (Vec3::NEG_Z, Vec3::X, Vec3::Y, Vec3::ZERO, false),
        View::Isometric => {
            let forward = Vec3::new(1.0, 1.0, -1.0).normalize();
            let right = forward.cross(Vec3::Z).normalize();
            (forward, right, right.cross(forward), Vec3::ZERO, false)
        }
        View::Eye { origin, angles } => {
            let r = angles_rotation(angles);
            (r * Vec3::X, r * Vec3::NEG_Y, r * Vec3::Z, origin, true)
        }
    }
}

/// A vertex after projection: screen position, depth key (larger is nearer), 1/w, and the
/// attributes divided by w.
#[derive(Debug, Clone, Copy)]
struct Projected {
    screen: Vec2,
    key: f32,
    inv_w: f32,
    light_uv: Vec2,
    uv: Vec2,
}

/// The widest and tallest picture drawn, in pixels: 8192² takes about 470 MB (depth and
/// colour), which keeps a picture's memory bounded whatever size is asked for.
pub const MAX_SIDE: u32 = 8192;

/// Options for [`render`]; sizes outside 1..=[`MAX_SIDE`] are clamped into it.
#[derive(Debug, Clone, Copy)]
pub struct RenderOptions {
    pub width: u32,
    pub height: u32,
    pub shading: Shading,
    pub view: View,
}

/// A material's colour in display gamma (0-1) from its linear reflectivity.
fn albedo(reflectivity: [f32; 3]) -> Vec3 {
    Vec3::from(reflectivity.map(|c| c.clamp(0.0, 1.0).powf(1.0 / 2.2)))
}

/// A material's colour source for the rasteriser: a checkerboard, texture pixels or a flat
/// colour.
#[derive(Clone, Copy)]
enum Paint<'a> {
    Checker,
    Image(&'a Rgb8),
    Flat(Vec3),
}

impl<'a> Paint<'a> {
    fn of(lookup: Option<&'a TextureLookup>, missing_name: bool, flat: Vec3) -> Paint<'a> {
        match lookup {
            _ if missing_name => Paint::Checker,
            Some(TextureLookup::Missing) => Paint::Checker,
            Some(TextureLookup::Found(image)) if image.width > 0 && image.height > 0 => Paint::Image(image),
            _ => Paint::Flat(flat),
        }
    }

    fn at(self, uv: Vec2) -> Vec3 {
        match self {
            Paint::Checker => {
                let on = ((uv.x * 8.0).floor() + (uv.y * 8.0).floor()) as i64 % 2 == 0;
                if on { Vec3::new(1.0, 0.0, 1.0) } else { Vec3::ZERO }
            }
            Paint::Image(img) => {
                let x = (uv.x.rem_euclid(1.0) * img.width as f32) as u32 % img.width;
                let y = (uv.y.rem_euclid(1.0) * img.height as f32) as u32 % img.height;
                let o = ((y * img.width + x) * 3) as usize;
                Vec3::new(
                    img.pixels[o] as f32,
                    img.pixels[o + 1] as f32,
                    img.pixels[o + 2] as f32,
                ) / 255.0
            }
            Paint::Flat(c) => c,
        }
    }
}

/// The image being drawn: camera, depth buffer and pixels.
struct Raster {
    cam: Camera,
    w: u32,
    h: u32,
    depth: Vec<f32>,
    pixels: Vec<u8>,
    /// Opacity of what is drawn now: below 1 it blends over the picture and leaves the depth.
    alpha: f32,
}

/// The fixed light direction of the flat shade.
const SUN: Vec3 = Vec3::new(0.4, 0.25, 0.88);

impl Raster {
    fn project(&self, c: Vec3, light_uv: Vec2, uv: Vec2) -> Projected {
        let (key, inv_w) = if self.cam.perspective {
            (1.0 / c.z, 1.0 / c.z)
        } else {
            (-c.z, 1.0)
        };
        Projected {
            screen: self.cam.screen(c, self.w, self.h),
            key,
            inv_w,
            light_uv: light_uv * inv_w,
            uv: uv * inv_w,
        }
    }

    /// Draws one world triangle (front faces only); `colour(light_uv, uv, shade)` colours a
    /// pixel, `shade` being the flat shade of the triangle's facing.
    fn triangle(
        &mut self,
        p: [Vec3; 3],
        light_uv: [Vec2; 3],
        uv: [Vec2; 3],
        colour: impl Fn(Vec2, Vec2, f32) -> Vec3,
    ) {
        let Some(shade) = self.front_shade(p) else {
            return;
        };
        let poly = self.clip_near(p.map(|p| self.cam.camera_space(p)), light_uv, uv);
        for k in 1..poly.len().saturating_sub(1) {
            fill(
                [poly[0], poly[k], poly[k + 1]],
                self.w,
                self.h,
                &mut self.depth,
                &mut self.pixels,
                self.alpha,
                |l, u| colour(l, u, shade),
            );
        }
    }

    /// The flat shade of a triangle facing the camera; `None` for a back face.
    #[inline]
    fn front_shade(&self, p: [Vec3; 3]) -> Option<f32> {
        let cam = self.cam;
        let n = (p[1] - p[0]).cross(p[2] - p[0]);
        let towards = if cam.perspective {
            p[0] - cam.eye
        } else {
            cam.forward
        };
        if n.dot(towards) >= 0.0 {
            return None;
        }
        Some(0.55 + 0.45 * n.normalize_or_zero().dot(SUN.normalize()).abs())
    }

    /// A camera-space triangle `cs` clipped against the near plane (perspective only) and
    /// projected: up to four vertices.
    #[inline]
    fn clip_near(&self, cs: [Vec3; 3], light_uv: [Vec2; 3], uv: [Vec2; 3]) -> Vec<Projected> {
        let cam = self.cam;
        let mut poly: Vec<Projected> = Vec::with_capacity(4);
        for a in 0..3 {
            let b = (a + 1) % 3;
            let a_in = !cam.perspective || cs[a].z >= NEAR;
            let b_in = !cam.perspective || cs[b].z >= NEAR;
            if a_in {
                poly.push(self.project(cs[a], light_uv[a], uv[a]));
            }
            if a_in != b_in {
                let t = (NEAR - cs[a].z) / (cs[b].z - cs[a].z);
                poly.push(self.project(
                    cs[a].lerp(cs[b], t),
                    light_uv[a].lerp(light_uv[b], t),
                    uv[a].lerp(uv[b], t),
                ));
            }
        }
        poly
    }
}

/// Draws `mesh`, materials coloured by `textures` (per material; empty for flat colours).
pub fn render(mesh: &MapMesh, textures: &[TextureLookup], options: &RenderOptions) -> Rgb8 {
    render_with_props(mesh, textures, &Props::default(), &[], options)
}

/// [`render`] with static props, their materials coloured by `prop_textures` (per
/// [`Props::materials`]). Props have no lightmap: lit and lightmap pictures draw them with the
/// flat shade (the engine lights them per vertex, which is not read here).
pub fn render_with_props(
    mesh: &MapMesh,
    textures: &[TextureLookup],
    props: &Props,
    prop_textures: &[TextureLookup],
    options: &RenderOptions,
) -> Rgb8 {
    let (w, h) = (
        options.width.clamp(1, MAX_SIDE),
        options.height.clamp(1, MAX_SIDE),
    );
    // Without lightmaps a lit picture would be flat colour: shade it by facing instead.
    let mut options = *options;
    if options.shading == Shading::Lit && mesh.atlas.source == crate::atlas::LightmapSource::None {
        options.shading = Shading::Fullbright;
    }
    let hidden = hidden_vertices(mesh, &options);
    let cam = Camera::fitting(shown_bounds(mesh, &hidden).or(mesh.bounds()), options.view, w, h);
    let mut raster = Raster::new(cam, w, h);
    // Props (opaque) first; the world's opaque surfaces, then its see-through ones (water)
    // over them.
    raster.draw_props(props, prop_textures, options.shading);
    raster.draw_world(mesh, textures, &hidden, options.shading);
    Rgb8 {
        width: w,
        height: h,
        pixels: raster.pixels,
    }
}

/// The box around the world positions of the vertices not `hidden`.
fn shown_bounds(mesh: &MapMesh, hidden: &[bool]) -> Option<(Vec3, Vec3)> {
    let shown = mesh
        .world_positions
        .iter()
        .zip(hidden)
        .filter(|(_, h)| !**h)
        .map(|(p, _)| *p);
    bounds_of(shown)
}

/// Per vertex of `mesh`, whether it is left out of the picture. Seen from above, a face no
/// light reaches (the outside of a roof that vbsp kept because the space above it is inside
/// the world) would hide the lit room below it: such faces are left out of the overhead
/// views when the picture shows the lightmaps.
fn hidden_vertices(mesh: &MapMesh, options: &RenderOptions) -> Vec<bool> {
    let mut hidden = vec![false; mesh.vertices.len()];
    if !matches!(options.view, View::Eye { .. }) && options.shading != Shading::Fullbright {
        for (face, range) in &mesh.face_vertices {
            if mesh.atlas.is_dark(*face) {
                hidden[range.start as usize..range.end as usize].fill(true);
            }
        }
    }
    hidden
}

impl Raster {
    /// A blank picture (background colour, nothing drawn) seen by `cam`.
    fn new(cam: Camera, w: u32, h: u32) -> Raster {
        Raster {
            cam,
            w,
            h,
            depth: vec![f32::NEG_INFINITY; (w * h) as usize],
            pixels: BACKGROUND
                .iter()
                .copied()
                .cycle()
                .take((w * h * 3) as usize)
                .collect(),
            alpha: 1.0,
        }
    }

    /// Every placed static prop, flat-shaded (props carry no lightmap).
    fn draw_props(&mut self, props: &Props, prop_textures: &[TextureLookup], shading: Shading) {
        for prop in &props.instances {
            let Some(pm) = prop.mesh.and_then(|m| props.meshes.get(m)) else {
                continue;
            };
            let rotation = prop.rotation();
            let placed: Vec<Vec3> = pm
                .vertices
                .iter()
                .map(|v| rotation * (v.position * prop.scale) + prop.origin)
                .collect();
            for prim in &pm.primitives {
                let name = props.materials.get(prim.material);
                let paint = Paint::of(
                    prop_textures.get(prim.material),
                    name.is_none_or(|n| n.is_empty()),
                    Vec3::splat(0.6),
                );
                for tri in prim.indices.chunks_exact(3) {
                    let p = [0, 1, 2].map(|k| placed[tri[k] as usize]);
                    let uv = [0, 1, 2].map(|k| pm.vertices[tri[k] as usize].uv);
                    self.triangle(p, [Vec2::ZERO; 3], uv, |_, uv, shade| match shading {
                        Shading::Lightmap => Vec3::splat(shade),
                        _ => paint.at(uv) * shade,
                    });
                }
            }
        }
    }

    /// The map's faces and overlays but the `hidden` vertices' ones: opaque materials first,
    /// then see-through ones blended over them.
    fn draw_world(&mut self, mesh: &MapMesh, textures: &[TextureLookup], hidden: &[bool], shading: Shading) {
        let mut passes: Vec<&crate::mesh::Primitive> = mesh.primitives.iter().collect();
        passes.sort_by_key(|p| mesh.materials.get(p.material).is_some_and(|m| m.translucent));
        for prim in passes {
            let material = mesh.materials.get(prim.material);
            self.alpha = if material.is_some_and(|m| m.translucent) {
                crate::mesh::TRANSLUCENT_ALPHA
            } else {
                1.0
            };
            let flat = material.map_or(Vec3::splat(0.7), |m| albedo(m.reflectivity));
            let paint = Paint::of(
                textures.get(prim.material),
                material.is_none_or(|m| m.name.is_empty()),
                flat,
            );
            self.draw_world_primitive(mesh, prim, hidden, shading, paint);
        }
    }

    /// One primitive of the map's, painted with `paint`, but the triangles of `hidden`
    /// vertices.
    fn draw_world_primitive(
        &mut self,
        mesh: &MapMesh,
        prim: &crate::mesh::Primitive,
        hidden: &[bool],
        shading: Shading,
        paint: Paint<'_>,
    ) {
        for tri in prim.indices.chunks_exact(3) {
            if hidden[tri[0] as usize] {
                continue;
            }
            let v = [0, 1, 2].map(|k| &mesh.vertices[tri[k] as usize]);
            let p = [0, 1, 2].map(|k| mesh.world_positions[tri[k] as usize]);
            self.triangle(
                p,
                v.map(|v| v.light_uv),
                v.map(|v| v.uv),
                |light_uv, uv, shade| match shading {
                    Shading::Lit => paint.at(uv) * Vec3::from(mesh.atlas.sample(light_uv)),
                    Shading::Fullbright => paint.at(uv) * shade,
                    Shading::Lightmap => Vec3::from(mesh.atlas.sample(light_uv)),
                },
            );
        }
    }
}

/// Fills one screen triangle (either winding), pixel centres inside, nearer depth wins.
fn fill(
    t: [Projected; 3],
    w: u32,
    h: u32,
    depth: &mut [f32],
    pixels: &mut [u8],
    alpha: f32,
    colour: impl Fn(Vec2, Vec2) -> Vec3,
) {
    let Some((lo, hi, inv_area)) = coverage(t, w, h) else {
        return;
    };
    let [a, b, c] = t;
    for y in lo.y.floor() as u32..=hi.y.ceil().min(h as f32 - 1.0) as u32 {
        for x in lo.x.floor() as u32..=hi.x.ceil().min(w as f32 - 1.0) as u32 {
            let p = Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
            let Some([wa, wb, wc]) = barycentric(t, p, inv_area) else {
                continue;
            };
            let key = a.key * wa + b.key * wb + c.key * wc;
            let i = (y * w + x) as usize;
            if !depth_test(depth, i, key, alpha) {
                continue;
            }
            let (light_uv, uv) = attributes(t, [wa, wb, wc]);
            blend(&mut pixels[i * 3..i * 3 + 3], colour(light_uv, uv), alpha);
        }
    }
}

/// The pixel box a screen triangle may cover (clamped to the image) and the inverse of its
/// signed area; `None` when it is degenerate, not finite or off the image.
#[inline]
fn coverage(t: [Projected; 3], w: u32, h: u32) -> Option<(Vec2, Vec2, f32)> {
    let [a, b, c] = t;
    if t.iter().any(|v| !v.screen.is_finite() || !v.key.is_finite()) {
        return None;
    }
    let area = (b.screen - a.screen).perp_dot(c.screen - a.screen);
    if area.abs() < 1e-12 || !area.is_finite() {
        return None;
    }
    let lo = a.screen.min(b.screen).min(c.screen).max(Vec2::ZERO);
    let hi = a
        .screen
        .max(b.screen)
        .max(c.screen)
        .min(Vec2::new(w as f32 - 1.0, h as f32 - 1.0));
    if lo.x > hi.x || lo.y > hi.y {
        return None;
    }
    Some((lo, hi, 1.0 / area))
}

/// Whether depth `key` at pixel `i` is nearer than what is drawn there; an opaque pass
/// (`alpha` 1) then keeps it.
#[inline]
fn depth_test(depth: &mut [f32], i: usize, key: f32, alpha: f32) -> bool {
    if key <= depth[i] {
        return false;
    }
    if alpha >= 1.0 {
        depth[i] = key;
    }
    true
}

/// The barycentric weights of `p` in the screen triangle, `None` outside it.
#[inline]
fn barycentric(t: [Projected; 3], p: Vec2, inv_area: f32) -> Option<[f32; 3]> {
    let [a, b, c] = t;
    let wa = (c.screen - b.screen).perp_dot(p - b.screen) * inv_area;
    let wb = (a.screen - c.screen).perp_dot(p - c.screen) * inv_area;
    let wc = 1.0 - wa - wb;
    if wa < 0.0 || wb < 0.0 || wc < 0.0 {
        return None;
    }
    Some([wa, wb, wc])
}

/// The lightmap and texture coordinates at weights `[wa, wb, wc]`, perspective-correct.
#[inline]
fn attributes(t: [Projected; 3], [wa, wb, wc]: [f32; 3]) -> (Vec2, Vec2) {
    let [a, b, c] = t;
    let inv_w = a.inv_w * wa + b.inv_w * wb + c.inv_w * wc;
    let light_uv = (a.light_uv * wa + b.light_uv * wb + c.light_uv * wc) / inv_w;
    let uv = (a.uv * wa + b.uv * wb + c.uv * wc) / inv_w;
    (light_uv, uv)
}

/// Blends colour `rgb` (clamped to 0..1) with opacity `alpha` over the pixel's three bytes.
#[inline]
fn blend(pixel: &mut [u8], rgb: Vec3, alpha: f32) {
    for (k, ch) in rgb.to_array().into_iter().enumerate() {
        let under = pixel[k] as f32 / 255.0;
        let c = ch.clamp(0.0, 1.0) * alpha + under * (1.0 - alpha);
        pixel[k] = (c * 255.0 + 0.5) as u8;
    }
}

/// The view from the first entity whose targetname or classname is `name`: its origin and
/// angles (`angles`, with `pitch` overriding the pitch as the engine reads player starts).
pub fn entity_view(bsp: &srcmap_bsp::Bsp, name: &str) -> Option<View> {
    let (name, nth) = split_nth(name)?;
    let named = |e: &&srcmap_bsp::Entity| e.get("targetname") == Some(name);
    let of_class = |e: &&srcmap_bsp::Entity| e.classname() == Some(name);
    let e = match bsp.entities.iter().any(|e| named(&e)) {
        true => bsp.entities.iter().filter(named).nth(nth)?,
        false => bsp.entities.iter().filter(of_class).nth(nth)?,
    };
    let mut origin = Vec3::from(e.get("origin").and_then(parse_vec3)?);
    if e.classname().is_some_and(|c| c.starts_with("info_player")) {
        // Player starts sit on the floor: look from eye height.
        origin.z += 64.0;
    }
    let mut angles = e.get("angles").and_then(parse_vec3).unwrap_or([0.0; 3]);
    if let Some(p) = e.get("pitch").and_then(|p| p.trim().parse::<f32>().ok()) {
        // Player starts and lights store pitch negated (up is positive).
        angles[0] = -p;
    }
    Some(View::Eye { origin, angles })
}

/// `NAME#N` picks the N-th (from 1) entity of that name or class, so every spawn point of a map
/// can be drawn; a bare `NAME` is the first. `None` for `#0` or a count that is not a number.
fn split_nth(name: &str) -> Option<(&str, usize)> {
    match name.rsplit_once('#') {
        Some((base, n)) => Some((base, n.parse::<usize>().ok()?.checked_sub(1)?)),
        None => Some((name, 0)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use srcmap_bsp::{Bsp, Entity};

    fn spawns() -> Bsp {
        let mut bsp = Bsp::default();
        for (name, origin) in [("a", "0 0 0"), ("b", "100 0 0"), ("c", "200 0 0")] {
            bsp.entities.push(Entity::from_pairs(&[
                ("classname", "info_player_teamspawn"),
                ("targetname", name),
                ("origin", origin),
            ]));
        }
        bsp
    }

    fn eye_x(view: Option<View>) -> Option<f32> {
        match view? {
            View::Eye { origin, .. } => Some(origin.x),
            _ => None,
        }
    }

    #[test]
    fn nth_entity_of_a_class_or_name_is_picked_by_its_count() {
        let bsp = spawns();
        assert_eq!(eye_x(entity_view(&bsp, "info_player_teamspawn")), Some(0.0));
        assert_eq!(eye_x(entity_view(&bsp, "info_player_teamspawn#3")), Some(200.0));
        assert_eq!(eye_x(entity_view(&bsp, "b#1")), Some(100.0));
        assert_eq!(eye_x(entity_view(&bsp, "info_player_teamspawn#4")), None);
        assert_eq!(eye_x(entity_view(&bsp, "info_player_teamspawn#0")), None);
        assert_eq!(eye_x(entity_view(&bsp, "b#x")), None);
    }
}
