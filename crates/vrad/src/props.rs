//! Static props as VRAD sees them: shadow casters in the occluder scene
//! (`CVradStaticPropMgr::AddPolysForRayTrace`).
//!
//! * By default a prop casts the shadow of its collision model: the convex pieces (ledges)
//!   of the first solid of its `.phy`, turned from IVP's metres back to inches. A model with
//!   no `.phy` casts the shadow of the convex hull of each of its meshes (LOD 0 vertices), as
//!   VRAD's fallback.
//! * With [`crate::Options::static_prop_polys`] (`-StaticPropPolys`) every prop casts the
//!   shadow of its LOD 0 render triangles.
//! * Props flagged `STATIC_PROP_NO_SHADOW` (`disableshadows`) cast none; nor do props whose
//!   `.mdl` cannot be read (VRAD gives them an empty box): they are counted and reported.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use glam::{Mat3, Vec2, Vec3};
use srcmap_bsp::Bsp;
use srcmap_content::vtf_decode::{AlphaImage, decode_alpha};
use srcmap_model::ModelFiles;
use srcmap_phys::PhyFile;

use srcmap_bsp::gamelump::StaticProp;
use srcmap_bsp::gamelump::static_prop_flags::NO_SHADOW;

/// IVP stores metres; Hammer units are inches.
const INCHES_PER_METRE: f32 = 1.0 / 0.0254;

/// Reads a game file (`models/x.mdl`) through the game's search paths; `None` when absent.
pub type ReadGameFile = dyn Fn(&str) -> Option<Vec<u8>> + Send + Sync;

/// The game files static props are read from, shared by the passes.
#[derive(Clone)]
pub struct ModelSource(pub Arc<ReadGameFile>);

impl fmt::Debug for ModelSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ModelSource")
    }
}

impl PartialEq for ModelSource {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl ModelSource {
    fn read(&self, path: &str) -> Option<Vec<u8>> {
        (self.0)(path)
    }
}

/// Source's `AngleMatrix` (`srcmap_geom::angle_matrix`) for angles in degrees.
pub fn angle_matrix(angles: [f32; 3]) -> Mat3 {
    let cols = srcmap_geom::angle_matrix(angles.map(f64::from));
    Mat3::from_cols_array_2d(&cols.map(|c| c.map(|x| x as f32)))
}

/// Which shape a model casts its shadow with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShadowShape {
    /// The `.phy` collision model.
    Collision,
    /// LOD 0 render triangles (`-StaticPropPolys`).
    RenderTriangles,
    /// No `.phy`: one convex hull per mesh.
    MeshHulls,
}

/// `STUDIOHDR_FLAGS_CAST_TEXTURE_SHADOWS` (`$casttextureshadows`).
pub const STUDIOHDR_CAST_TEXTURE_SHADOWS: u32 = 0x0004_0000;

/// Texture coordinates of a shadow triangle's corners and the alpha of its material's base
/// texture.
pub type TriangleTexture = ([Vec2; 3], Arc<AlphaImage>);

/// One model's shadow triangles in model space.
struct ModelShadow {
    triangles: Vec<[Vec3; 3]>,
    /// Per triangle (empty when none has): the texture that lets light through it.
    textures: Vec<Option<TriangleTexture>>,
    shape: ShadowShape,
}

/// The static props' shadow casters and what became of each prop.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct PropShadows {
    /// World-space triangles, each with the index of the prop that casts it.
    pub triangles: Vec<([Vec3; 3], u32)>,
    /// Static props in the map.
    pub props: usize,
    /// Props that cast a shadow.
    pub casters: usize,
    /// Of the casters: those using their collision model.
    pub from_collision: usize,
    /// Props flagged `disableshadows`.
    pub no_shadow: usize,
    /// Model names not found (or unreadable), with how many props use each.
    pub missing: Vec<(String, usize)>,
    /// Models whose vertices are not finite or lie beyond [`MAX_MODEL_COORD`], with the number
    /// of props using each: they cast nothing (one vertex at 1e37 made lighting crawl).
    pub unusable: Vec<(String, usize)>,
    /// Texture shadows (`-textureshadows`): the indices in `triangles` of those whose
    /// texture lets light through, with that texture.
    pub textured: Vec<(usize, TriangleTexture)>,
}

/// The collision model of `phy`'s first solid (VRAD uses `solids[0]`) as triangles, in
/// Hammer units and model space.
pub fn collision_triangles(phy: &PhyFile) -> Vec<[Vec3; 3]> {
    let Some(surface) = phy.solids.first().and_then(|s| s.surface()) else {
        return Vec::new();
    };
    let mut ledges: Vec<_> = surface.terminal_ledges().collect();
    if ledges.is_empty() {
        ledges = surface.ledges.iter().collect();
    }
    let to_hammer = |p: [f32; 3]| Vec3::new(p[0], p[2], -p[1]) * INCHES_PER_METRE;
    let mut out = Vec::new();
    for ledge in ledges {
        for t in &ledge.triangles {
            let pts: Option<Vec<Vec3>> = t
                .edges
                .iter()
                .map(|e| surface.ledge_point(ledge, e.start_point_index).map(to_hammer))
                .collect();
            if let Some(p) = pts {
                out.push([p[0], p[1], p[2]]);
            }
        }
    }
    out
}

/// LOD 0 render triangles of a model, in model space.
pub fn render_triangles(files: &ModelFiles) -> Vec<[Vec3; 3]> {
    let tris = render_indices(files);
    let at = |i: u32| {
        files
            .vvd
            .vertices
            .get(i as usize)
            .map(|v| Vec3::from_array(v.position))
    };
    tris.iter()
        .filter_map(|t| Some([at(t[0])?, at(t[1])?, at(t[2])?]))
        .collect()
}

/// LOD 0 render triangles as `.vvd` vertex indices (those of any vertex out of range left out).
fn render_indices(files: &ModelFiles) -> Vec<[u32; 3]> {
    let Some(vtx) = &files.vtx else { return Vec::new() };
    let n = files.vvd.vertices.len() as u32;
    vtx.triangles(&files.mdl, 0)
        .map(|t| t.into_iter().filter(|t| t.iter().all(|&i| i < n)).collect())
        .unwrap_or_default()
}

/// The alpha of a model material's base texture when the material is `$translucent` or
/// `$alphatest` (VRAD's rule for texture shadows): the first `.vmt` found along the model's
/// texture directories decides.
fn material_alpha(source: &ModelSource, dirs: &[String], texture: &str) -> Option<Arc<AlphaImage>> {
    for dir in dirs {
        let path = format!("materials/{dir}{texture}.vmt")
            .replace('\\', "/")
            .to_lowercase();
        let Some(text) = source.read(&path) else { continue };
        let vmt = srcmap_content::vmt::Vmt::parse(&text, &path).ok()?;
        if vmt.get("$translucent").is_none() && vmt.get("$alphatest").is_none() {
            return None;
        }
        let base = vmt.base_texture()?.replace('\\', "/").to_lowercase();
        let base = base.strip_suffix(".vtf").unwrap_or(&base);
        let vtf_path = format!("materials/{base}.vtf");
        let data = source.read(&vtf_path)?;
        return decode_alpha(&data, &vtf_path).ok().map(Arc::new);
    }
    None
}

/// Per render triangle of `files` (as [`render_indices`] orders them), the texture that lets
/// light through it; empty when no material of the model does.
fn triangle_textures(files: &ModelFiles, source: &ModelSource) -> Vec<Option<TriangleTexture>> {
    let mdl = &files.mdl;
    let textures: Vec<Option<Arc<AlphaImage>>> = mdl
        .textures
        .iter()
        .map(|t| material_alpha(source, &mdl.texture_dirs, t))
        .collect();
    if textures.iter().all(Option::is_none) {
        return Vec::new();
    }
    let ranges = mesh_textures(mdl, &textures);
    let uv = |i: u32| Vec2::from_array(files.vvd.vertices[i as usize].uv);
    render_indices(files)
        .iter()
        .map(|t| {
            let (_, _, texture) = ranges.iter().find(|(a, b, _)| (*a..*b).contains(&t[0]))?;
            Some(([uv(t[0]), uv(t[1]), uv(t[2])], Arc::clone(texture.as_ref()?)))
        })
        .collect()
}

/// Each mesh's vertex range in the .vvd and its material's texture (of `textures`).
fn mesh_textures<'t>(
    mdl: &srcmap_model::Mdl,
    textures: &'t [Option<Arc<AlphaImage>>],
) -> Vec<(u32, u32, Option<&'t Arc<AlphaImage>>)> {
    mdl.meshes()
        .map(|(model, mesh)| {
            let first = (model.first_vertex as u64 + mesh.vertex_offset as u64) as u32;
            let texture = usize::try_from(mesh.material)
                .ok()
                .and_then(|m| textures.get(m))
                .and_then(Option::as_ref);
            (first, first.saturating_add(mesh.vertex_count), texture)
        })
        .collect()
}

fn load_model_shadow(
    name: &str,
    source: &ModelSource,
    polys: bool,
    texture_shadows: bool,
) -> Option<ModelShadow> {
    let path = srcmap_model::normalise(name);
    // VRAD first loads the studio model: without it the prop casts nothing.
    let mdl = source.read(&path)?;
    srcmap_model::Mdl::parse(&mdl).ok()?;
    let stem = path.strip_suffix(".mdl").unwrap_or(&path);
    if !polys && let Some(shadow) = collision_shadow(source, stem) {
        return Some(shadow);
    }
    let files = ModelFiles::load(&path, |p| source.read(p)).ok()?;
    if polys {
        return Some(render_shadow(&files, source, texture_shadows));
    }
    // No collision model: VRAD wraps each mesh in a convex hull.
    let triangles = files
        .mesh_points()
        .iter()
        .flat_map(|m| convex_hull(&m.iter().map(|p| Vec3::from_array(*p)).collect::<Vec<_>>()))
        .collect();
    Some(ModelShadow {
        triangles,
        textures: Vec::new(),
        shape: ShadowShape::MeshHulls,
    })
}

/// The shadow of the model's collision model (`STEM.phy`), when it has one with triangles.
fn collision_shadow(source: &ModelSource, stem: &str) -> Option<ModelShadow> {
    let phy = source.read(&format!("{stem}.phy"))?;
    let phy = PhyFile::parse(&phy).ok()?;
    let triangles = collision_triangles(&phy);
    (!triangles.is_empty()).then(|| ModelShadow {
        triangles,
        textures: Vec::new(),
        shape: ShadowShape::Collision,
    })
}

/// The shadow of the model's render triangles (`-StaticPropPolys`).
fn render_shadow(files: &ModelFiles, source: &ModelSource, texture_shadows: bool) -> ModelShadow {
    // VRAD samples textures only on render triangles, of models built with
    // `$casttextureshadows` (or named by `forcetextureshadow`, not read here).
    let textures = if texture_shadows && files.mdl.flags & STUDIOHDR_CAST_TEXTURE_SHADOWS != 0 {
        triangle_textures(files, source)
    } else {
        Vec::new()
    };
    ModelShadow {
        triangles: render_triangles(files),
        textures,
        shape: ShadowShape::RenderTriangles,
    }
}

/// The convex hull of `points` as outward-facing triangles (incremental: each point outside
/// the hull so far replaces the faces it sees by a fan to their horizon). Empty when the
/// points span no volume (a flat or degenerate mesh makes no hull, as for VRAD).
pub fn convex_hull(points: &[Vec3]) -> Vec<[Vec3; 3]> {
    let pts: Vec<glam::DVec3> = points.iter().map(|p| p.as_dvec3()).collect();
    let Some(&first) = pts.first() else {
        return Vec::new();
    };
    let extent = pts
        .iter()
        .fold(0.0f64, |m, p| m.max((*p - first).abs().max_element()));
    let eps = 1e-6 * extent.max(1.0);
    let Some(mut hull) = Hull::tetrahedron(&pts, eps) else {
        return Vec::new();
    };
    for (i, p) in pts.iter().enumerate() {
        hull.add_point(i, *p);
    }
    hull.faces
        .iter()
        .map(|f| [points[f[0]], points[f[1]], points[f[2]]])
        .collect()
}

/// A convex hull being built: its faces (point indices, outward) and their planes.
struct Hull<'p> {
    pts: &'p [glam::DVec3],
    eps: f64,
    faces: Vec<[usize; 3]>,
    planes: Vec<(glam::DVec3, f64)>,
}

impl<'p> Hull<'p> {
    /// The first hull: four points far apart (the least x, the farthest from it, the
    /// farthest from their line, the farthest from their plane), faces turned outward;
    /// `None` when the points span no volume.
    fn tetrahedron(pts: &'p [glam::DVec3], eps: f64) -> Option<Hull<'p>> {
        let far_from =
            |f: &dyn Fn(glam::DVec3) -> f64| (0..pts.len()).max_by(|&a, &b| f(pts[a]).total_cmp(&f(pts[b])));
        let a = far_from(&|p| -p.x)?;
        let b = far_from(&|p| p.distance_squared(pts[a]))?;
        let ab = (pts[b] - pts[a]).normalize_or_zero();
        let c = far_from(&|p| (p - pts[a]).cross(ab).length_squared())?;
        let n = (pts[b] - pts[a]).cross(pts[c] - pts[a]).normalize_or_zero();
        let d = far_from(&|p| (p - pts[a]).dot(n).abs())?;
        if n == glam::DVec3::ZERO || (pts[d] - pts[a]).dot(n).abs() < 10.0 * eps {
            return None;
        }
        let mut hull = Hull {
            pts,
            eps,
            faces: Vec::new(),
            planes: Vec::new(),
        };
        hull.set_tetrahedron([a, b, c, d]);
        Some(hull)
    }

    /// The four faces of tetrahedron `[a, b, c, d]`, each turned away from its centre.
    fn set_tetrahedron(&mut self, [a, b, c, d]: [usize; 4]) {
        let pts = self.pts;
        let centre = (pts[a] + pts[b] + pts[c] + pts[d]) / 4.0;
        self.faces = [[a, b, c], [a, d, b], [b, d, c], [c, d, a]]
            .into_iter()
            .map(|f| {
                let (n, dist) = self.plane(f);
                if n.dot(centre) > dist {
                    [f[0], f[2], f[1]]
                } else {
                    f
                }
            })
            .collect();
        self.planes = self.faces.iter().map(|&f| self.plane(f)).collect();
    }

    /// The plane of face `f`: unit normal and distance.
    fn plane(&self, f: [usize; 3]) -> (glam::DVec3, f64) {
        let pts = self.pts;
        let n = (pts[f[1]] - pts[f[0]])
            .cross(pts[f[2]] - pts[f[0]])
            .normalize_or_zero();
        (n, n.dot(pts[f[0]]))
    }

    /// Grows the hull to point `i` (at `p`) when it lies outside: the faces it sees give way
    /// to a fan from it to their horizon.
    fn add_point(&mut self, i: usize, p: glam::DVec3) {
        let visible: Vec<usize> = (0..self.faces.len())
            .filter(|&k| self.planes[k].0.dot(p) - self.planes[k].1 > self.eps)
            .collect();
        if visible.is_empty() {
            return;
        }
        let horizon = self.horizon(&visible);
        for &k in visible.iter().rev() {
            self.faces.swap_remove(k);
            self.planes.swap_remove(k);
        }
        for (u, v) in horizon {
            let f = [u, v, i];
            self.faces.push(f);
            self.planes.push(self.plane(f));
        }
    }

    /// The edges of the `visible` faces that no other visible face shares.
    fn horizon(&self, visible: &[usize]) -> Vec<(usize, usize)> {
        use std::collections::HashSet;
        let edges: HashSet<(usize, usize)> = visible
            .iter()
            .flat_map(|&k| {
                let f = self.faces[k];
                [(f[0], f[1]), (f[1], f[2]), (f[2], f[0])]
            })
            .collect();
        edges
            .iter()
            .copied()
            .filter(|&(u, v)| !edges.contains(&(v, u)))
            .collect()
    }
}

/// The shadow casters of `bsp`'s static props, models read through `source` (none without
/// it: every model is then missing).
/// With `texture_shadows` (VRAD's `-textureshadows`, only with `polys`), the triangles of
/// `$casttextureshadows` models whose material is `$translucent` or `$alphatest` are listed
/// in [`PropShadows::textured`].
pub fn prop_shadows(
    bsp: &Bsp,
    source: Option<&ModelSource>,
    polys: bool,
    texture_shadows: bool,
) -> PropShadows {
    let mut out = PropShadows::default();
    let Some(sp) = bsp.game_lumps.static_props() else {
        return out;
    };
    out.props = sp.props.len();
    let mut cache: HashMap<u16, Option<ModelShadow>> = HashMap::new();
    let mut missing: HashMap<String, usize> = HashMap::new();
    let mut unusable: HashMap<String, usize> = HashMap::new();
    let load = |name: &str| source.and_then(|s| load_model_shadow(name, s, polys, texture_shadows));
    for (index, prop) in sp.props.iter().enumerate() {
        if prop.flags_in(sp.layout) & NO_SHADOW != 0 {
            out.no_shadow += 1;
            continue;
        }
        let name = sp.models.get(prop.prop_type as usize).map_or("", String::as_str);
        match cache.entry(prop.prop_type).or_insert_with(|| load(name)) {
            None => *missing.entry(name.to_string()).or_default() += 1,
            Some(shadow) if !within_reach(shadow) => *unusable.entry(name.to_string()).or_default() += 1,
            Some(shadow) if !shadow.triangles.is_empty() => out.add_caster(shadow, prop, index),
            Some(_) => {}
        }
    }
    out.missing = missing.into_iter().collect();
    out.missing.sort();
    out.unusable = unusable.into_iter().collect();
    out.unusable.sort();
    out
}

impl PropShadows {
    /// The missing models as a mapper reads them: the most used first, each with its prop
    /// count (`name ×N`), at most `limit` of them, then how many more. A warning that named
    /// only the first few by name left out testmap's three large machines, whose shadows are
    /// most of what its lightmaps lack.
    pub fn missing_summary(&self, limit: usize) -> String {
        let mut by_use: Vec<&(String, usize)> = self.missing.iter().collect();
        by_use.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let named = by_use.iter().take(limit).map(|(m, n)| format!("{m} ×{n}"));
        let mut out = named.collect::<Vec<_>>().join(", ");
        if by_use.len() > limit {
            out += &format!(", and {} more", by_use.len() - limit);
        }
        out
    }
}

/// The farthest a model's vertex may lie from its origin: the model reader's own limit.
pub use srcmap_model::vvd::MAX_VERTEX_COORD as MAX_MODEL_COORD;

/// Whether every vertex of a model's shadow is finite and within [`MAX_MODEL_COORD`].
fn within_reach(shadow: &ModelShadow) -> bool {
    (shadow.triangles.iter().flatten()).all(|v| v.is_finite() && v.abs().max_element() <= MAX_MODEL_COORD)
}

impl PropShadows {
    /// Adds prop `index`'s shadow, placed by its origin and angles.
    fn add_caster(&mut self, shadow: &ModelShadow, prop: &StaticProp, index: usize) {
        self.casters += 1;
        if shadow.shape == ShadowShape::Collision {
            self.from_collision += 1;
        }
        let rot = angle_matrix(prop.angles);
        let origin = Vec3::from_array(prop.origin);
        let place = |p: Vec3| rot * p + origin;
        let first = self.triangles.len();
        self.textured.extend(
            shadow
                .textures
                .iter()
                .enumerate()
                .filter_map(|(i, t)| Some((first + i, t.clone()?))),
        );
        self.triangles.extend(
            shadow
                .triangles
                .iter()
                .map(|t| ([place(t[0]), place(t[1]), place(t[2])], index as u32)),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_with_absurd_or_non_finite_vertices_are_out_of_reach() {
        let shadow = |far: Vec3| ModelShadow {
            triangles: vec![[Vec3::ZERO, Vec3::X * 64.0, far]],
            textures: Vec::new(),
            shape: ShadowShape::RenderTriangles,
        };
        assert!(within_reach(&shadow(Vec3::Y * 64.0)));
        assert!(within_reach(&shadow(Vec3::Y * MAX_MODEL_COORD)));
        assert!(!within_reach(&shadow(Vec3::Y * 1e37)));
        assert!(!within_reach(&shadow(Vec3::new(0.0, f32::NAN, 0.0))));
        assert!(!within_reach(&shadow(Vec3::Z * f32::NEG_INFINITY)));
    }

    #[test]
    fn convex_hull_of_a_cube_with_inner_points_is_its_twelve_triangles() {
        let mut pts = Vec::new();
        for i in 0..8 {
            pts.push(Vec3::new((i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32) * 10.0);
        }
        pts.push(Vec3::splat(5.0));
        pts.push(Vec3::new(2.0, 3.0, 4.0));
        pts.swap(0, 8);
        let hull = convex_hull(&pts);
        assert_eq!(hull.len(), 12);
        let centre = Vec3::splat(5.0);
        for t in &hull {
            let n = (t[1] - t[0]).cross(t[2] - t[0]);
            // Outward, and every point on or behind every face.
            assert!(n.dot(t[0] - centre) > 0.0);
            for p in &pts {
                assert!(n.normalize().dot(*p - t[0]) < 1e-3);
            }
        }
        // Flat points span no volume: no hull.
        assert!(convex_hull(&[Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::ONE.with_z(0.0)]).is_empty());
        assert!(convex_hull(&[]).is_empty());
    }

    #[test]
    fn missing_models_are_summarised_most_used_first_with_their_counts() {
        let missing = [("b.mdl", 3), ("a.mdl", 7), ("c.mdl", 3), ("d.mdl", 1)];
        let shadows = PropShadows {
            missing: missing.iter().map(|&(m, n)| (m.to_string(), n)).collect(),
            ..PropShadows::default()
        };
        assert_eq!(
            shadows.missing_summary(8),
            "a.mdl ×7, b.mdl ×3, c.mdl ×3, d.mdl ×1"
        );
        assert_eq!(shadows.missing_summary(2), "a.mdl ×7, b.mdl ×3, and 2 more");
        assert_eq!(PropShadows::default().missing_summary(2), "");
    }

    #[test]
    fn angle_matrix_turns_like_source() {
        // Yaw 90: forward (x) turns to y.
        let m = angle_matrix([0.0, 90.0, 0.0]);
        assert!((m * Vec3::X - Vec3::Y).length() < 1e-5);
        // Pitch 90 looks down: forward turns to -z.
        let m = angle_matrix([90.0, 0.0, 0.0]);
        assert!((m * Vec3::X + Vec3::Z).length() < 1e-5);
        // Roll 90: left (y) turns to up (z).
        let m = angle_matrix([0.0, 0.0, 90.0]);
        assert!((m * Vec3::Y - Vec3::Z).length() < 1e-5);
    }
}
