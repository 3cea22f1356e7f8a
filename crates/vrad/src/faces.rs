//! Per-face lighting geometry: the face polygon, its plane, and the mapping between world
//! space and luxel space given by the texinfo's lightmap vectors (VRAD's `CalcFaceVectors`).

use glam::{DMat3, DVec3, Vec2, Vec3};
use srcmap_bsp::flags::SurfaceFlags;
use srcmap_bsp::{Bsp, Face, TexInfo};
use srcmap_kv::values;

/// Texinfo flags that mean "no lightmap" (VRAD's `TEX_SPECIAL`).
pub const TEX_SPECIAL: SurfaceFlags = SurfaceFlags(SurfaceFlags::SKY.0 | SurfaceFlags::NOLIGHT.0);
/// Sky faces of either kind (the 3D skybox's and the 2D sky's).
pub const SKY_FACE: SurfaceFlags = SurfaceFlags(SurfaceFlags::SKY.0 | SurfaceFlags::SKY2D.0);
/// Largest `lightmap_size` (luxels - 1) a face may have before it is treated as unlit.
pub const MAX_LIGHTMAP_EXTENT: i32 = 1024;

/// Everything lighting needs to know about one face.
#[derive(Debug, Clone)]
pub struct FaceGeom {
    /// Polygon in world space (brush-model faces moved by their entity's origin).
    pub points: Vec<Vec3>,
    pub normal: Vec3,
    pub texinfo_flags: SurfaceFlags,
    /// Whether this face gets a lightmap.
    pub lit: bool,
    pub bumped: bool,
    pub is_displacement: bool,
    /// Luxels per row and rows (`lightmap_size + 1`).
    pub width: usize,
    pub height: usize,
    pub mins: [i32; 2],
    /// World → luxel space: `s = dot(vecs[0].xyz, p) + vecs[0].w` (before `mins`).
    pub vecs: [[f32; 4]; 2],
    /// World position of luxel space (0, 0) relative to `mins`, and the steps per luxel.
    pub luxel_origin: Vec3,
    pub luxel_axes: [Vec3; 2],
    /// The polygon in luxel space relative to `mins`.
    pub luxel_poly: Vec<Vec2>,
    /// Texture reflectivity (linear).
    pub reflectivity: Vec3,
    /// Texture-space S and T vectors (for bump basis normals).
    pub texture_vecs: [Vec3; 2],
    /// The faces whose samples blend into this one's luxels ([`face_neighbours`]).
    pub neighbours: Vec<u32>,
}

impl FaceGeom {
    /// World-space luxel position at luxel-space coordinates (relative to `mins`).
    pub fn luxel_to_world(&self, s: f32, t: f32) -> Vec3 {
        self.luxel_origin + self.luxel_axes[0] * s + self.luxel_axes[1] * t
    }

    /// Luxel-space coordinates (relative to `mins`) of a world point.
    pub fn world_to_luxel(&self, p: Vec3) -> Vec2 {
        let s = Vec3::from_slice(&self.vecs[0][..3]).dot(p) + self.vecs[0][3] - self.mins[0] as f32;
        let t = Vec3::from_slice(&self.vecs[1][..3]).dot(p) + self.vecs[1][3] - self.mins[1] as f32;
        Vec2::new(s, t)
    }

    /// The centre of the face's luxel-space polygon (vertex mean), toward which samples
    /// near an edge are pulled.
    pub fn luxel_centroid(&self) -> Vec2 {
        self.luxel_poly.iter().copied().sum::<Vec2>() / self.luxel_poly.len().max(1) as f32
    }

    pub fn luxel_count(&self) -> usize {
        self.width * self.height
    }
}

/// Vertex positions of a face (surfedge order), `None` when an index is out of range.
pub fn face_points(bsp: &Bsp, face: &Face) -> Option<Vec<Vec3>> {
    Some(bsp.face_vertices(face)?.into_iter().map(Vec3::from).collect())
}

/// Origin of each brush model from the entity whose `model` is `*N`.
pub fn model_origins(bsp: &Bsp) -> Vec<Vec3> {
    let mut origins = vec![Vec3::ZERO; bsp.models.len()];
    for e in &bsp.entities {
        let Some(m) = e.brush_model() else {
            continue;
        };
        if let (Some(slot), Some(o)) = (origins.get_mut(m), e.get("origin").and_then(values::vector)) {
            *slot = DVec3::from(o).as_vec3();
        }
    }
    origins
}

/// For each face, the model it belongs to (faces outside every model: model 0).
pub fn face_models(bsp: &Bsp) -> Vec<usize> {
    let mut out = vec![0usize; bsp.faces.len()];
    for m in 0..bsp.models.len() {
        for f in bsp.model_face_range(m, out.len()) {
            out[f] = m;
        }
    }
    out
}

/// Builds the lighting geometry of every face. Faces with broken indices come back unlit.
pub fn build_faces(bsp: &Bsp) -> Vec<FaceGeom> {
    let origins = model_origins(bsp);
    let models = face_models(bsp);
    let mut faces: Vec<FaceGeom> = bsp
        .faces
        .iter()
        .enumerate()
        .map(|(i, face)| {
            let origin = origins.get(models[i]).copied().unwrap_or(Vec3::ZERO);
            build_face(bsp, face, origin)
        })
        .collect();
    for (face, neighbours) in faces.iter_mut().zip(face_neighbours(bsp)) {
        face.neighbours = neighbours;
    }
    faces
}

/// VRAD's cosine of the largest angle between faces that smooth into each other (45°).
const SMOOTHING_THRESHOLD: f32 = std::f32::consts::FRAC_1_SQRT_2;
/// The smoothing-group bit that makes an edge hard.
const SMOOTHING_GROUP_HARD_EDGE: u32 = 0x8000_0000;

/// Per face, its neighbours as VRAD's `PairEdges` finds them: faces sharing a vertex (by
/// index) whose plane normals lie within 45° of its own, or, where either face has
/// smoothing groups, that share a group and no hard edge. A face without a displacement
/// takes no displacement as neighbour (displacements blend on their own).
pub fn face_neighbours(bsp: &Bsp) -> Vec<Vec<u32>> {
    let corners: Vec<Vec<u32>> = bsp.faces.iter().map(|f| face_vertex_indices(bsp, f)).collect();
    let mut users: std::collections::HashMap<u32, Vec<u32>> = std::collections::HashMap::new();
    for (i, vs) in corners.iter().enumerate() {
        for &v in vs {
            let list = users.entry(v).or_default();
            if list.last() != Some(&(i as u32)) {
                list.push(i as u32);
            }
        }
    }
    let normal = |f: &Face| {
        bsp.planes
            .get(f.plane as usize)
            .map_or(Vec3::ZERO, |p| Vec3::from(p.normal))
    };
    (0..bsp.faces.len())
        .map(|i| {
            let mut out: Vec<u32> = Vec::new();
            for v in &corners[i] {
                for &j in &users[v] {
                    let (a, b) = (&bsp.faces[i], &bsp.faces[j as usize]);
                    if j as usize != i && !out.contains(&j) && smooths_with(a, b, normal(a).dot(normal(b))) {
                        out.push(j);
                    }
                }
            }
            out
        })
        .collect()
}

/// Whether face `b` is a neighbour of face `a` ([`face_neighbours`]), their normals' dot
/// product `cos`.
fn smooths_with(a: &Face, b: &Face, cos: f32) -> bool {
    if a.dispinfo >= 0 {
        return true;
    }
    if b.dispinfo >= 0 {
        return false;
    }
    if a.smoothing_groups == 0 && b.smoothing_groups == 0 {
        return cos >= SMOOTHING_THRESHOLD;
    }
    let shared = a.smoothing_groups & b.smoothing_groups;
    shared & SMOOTHING_GROUP_HARD_EDGE == 0 && shared != 0
}

/// A face's vertex indices in winding order (those out of range left out).
fn face_vertex_indices(bsp: &Bsp, face: &Face) -> Vec<u32> {
    let first = usize::try_from(face.first_edge).unwrap_or(usize::MAX);
    let count = usize::try_from(face.num_edges).unwrap_or(0);
    let Some(surfedges) = first
        .checked_add(count)
        .and_then(|end| bsp.surfedges.get(first..end))
    else {
        return Vec::new();
    };
    surfedges
        .iter()
        .filter_map(|&se| {
            let edge = bsp.edges.get(se.unsigned_abs() as usize)?;
            Some(if se >= 0 { edge.0[0] } else { edge.0[1] })
        })
        .collect()
}

fn unlit(points: Vec<Vec3>, normal: Vec3, flags: SurfaceFlags) -> FaceGeom {
    FaceGeom {
        points,
        normal,
        texinfo_flags: flags,
        lit: false,
        bumped: false,
        is_displacement: false,
        width: 0,
        height: 0,
        mins: [0, 0],
        vecs: [[0.0; 4]; 2],
        luxel_origin: Vec3::ZERO,
        luxel_axes: [Vec3::ZERO; 2],
        luxel_poly: Vec::new(),
        reflectivity: Vec3::ZERO,
        texture_vecs: [Vec3::ZERO; 2],
        neighbours: Vec::new(),
    }
}

fn build_face(bsp: &Bsp, face: &Face, origin: Vec3) -> FaceGeom {
    let points: Vec<Vec3> = face_points(bsp, face)
        .unwrap_or_default()
        .into_iter()
        .map(|p| p + origin)
        .collect();
    let Some(plane) = bsp.planes.get(face.plane as usize) else {
        return unlit(points, Vec3::Z, SurfaceFlags::EMPTY);
    };
    // The face's plane already faces the right way (VRAD ignores `side`).
    let normal = Vec3::from(plane.normal);
    let mut dist = plane.dist as f64;
    dist += normal.as_dvec3().dot(origin.as_dvec3());
    let Some(tex) = usize::try_from(face.texinfo)
        .ok()
        .and_then(|t| bsp.texinfo.get(t))
    else {
        return unlit(points, normal, SurfaceFlags::EMPTY);
    };
    let flags = SurfaceFlags::from_record(tex.flags);
    if flags.intersects(TEX_SPECIAL) || points.len() < 3 || !lightmap_size_ok(face.lightmap_size) {
        return unlit(points, normal, flags);
    }
    let Some(space) = LuxelSpace::solve(tex, normal, dist, origin, face.lightmap_mins) else {
        return unlit(points, normal, flags);
    };
    lit_face(bsp, face, tex, points, normal, space)
}

/// Whether lightmap extents are in range. Valve's largest lightmaps are 128 luxels
/// (displacements); anything far beyond is a damaged file, not worth allocating for.
fn lightmap_size_ok(size: [i32; 2]) -> bool {
    size.iter().all(|v| (0..=MAX_LIGHTMAP_EXTENT).contains(v))
}

/// A face's mapping between world and luxel space.
struct LuxelSpace {
    /// World → luxel space, model origin accounted for ([`FaceGeom::vecs`]).
    vecs: [[f32; 4]; 2],
    /// World position of luxel `mins`, and the steps per luxel.
    origin: Vec3,
    axes: [Vec3; 2],
}

impl LuxelSpace {
    /// Luxel space → world: solve [S; T; N] p = (s - So, t - To, dist), in f64 (VRAD inverts
    /// the same system by Cramer's rule). `None` when the system is singular.
    fn solve(tex: &TexInfo, normal: Vec3, dist: f64, origin: Vec3, mins: [i32; 2]) -> Option<LuxelSpace> {
        let s = DVec3::from(
            tex.lightmap_vecs[0].map(f64::from)[..3]
                .try_into()
                .unwrap_or([0.0; 3]),
        );
        let t = DVec3::from(
            tex.lightmap_vecs[1].map(f64::from)[..3]
                .try_into()
                .unwrap_or([0.0; 3]),
        );
        let n = normal.as_dvec3();
        let m = DMat3::from_cols(s, t, n).transpose();
        if m.determinant().abs() < 1e-12 {
            return None;
        }
        let inv = m.inverse();
        // Account for the model origin: vecs apply to model-local points.
        let so = tex.lightmap_vecs[0][3] as f64 - s.dot(origin.as_dvec3());
        let to = tex.lightmap_vecs[1][3] as f64 - t.dot(origin.as_dvec3());
        let luxel_origin = inv * DVec3::new(mins[0] as f64 - so, mins[1] as f64 - to, dist);
        Some(LuxelSpace {
            vecs: [
                [s.x as f32, s.y as f32, s.z as f32, so as f32],
                [t.x as f32, t.y as f32, t.z as f32, to as f32],
            ],
            origin: luxel_origin.as_vec3(),
            axes: [(inv * DVec3::X).as_vec3(), (inv * DVec3::Y).as_vec3()],
        })
    }
}

/// The geometry of a face that gets a lightmap.
fn lit_face(
    bsp: &Bsp,
    face: &Face,
    tex: &TexInfo,
    points: Vec<Vec3>,
    normal: Vec3,
    space: LuxelSpace,
) -> FaceGeom {
    let flags = SurfaceFlags::from_record(tex.flags);
    let mut g = FaceGeom {
        points,
        normal,
        texinfo_flags: flags,
        lit: true,
        bumped: flags.intersects(SurfaceFlags::BUMPLIGHT),
        is_displacement: face.dispinfo >= 0,
        width: face.lightmap_size[0] as usize + 1,
        height: face.lightmap_size[1] as usize + 1,
        mins: face.lightmap_mins,
        vecs: space.vecs,
        luxel_origin: space.origin,
        luxel_axes: space.axes,
        luxel_poly: Vec::new(),
        reflectivity: reflectivity(bsp, tex),
        texture_vecs: tex.texture_vecs.map(|v| Vec3::from_slice(&v[..3])),
        neighbours: Vec::new(),
    };
    g.luxel_poly = g.points.iter().map(|&p| g.world_to_luxel(p)).collect();
    g
}

/// The reflectivity of a texinfo's texdata (0.5 grey when it has none, or not finite).
fn reflectivity(bsp: &Bsp, tex: &TexInfo) -> Vec3 {
    usize::try_from(tex.texdata)
        .ok()
        .and_then(|d| bsp.texdata.get(d))
        .map(|d| Vec3::from(d.reflectivity))
        .filter(|r| r.is_finite())
        .unwrap_or(Vec3::splat(0.5))
}

/// The point of a convex polygon nearest to `p` (itself when inside). Works for either winding.
pub fn clamp_to_polygon(poly: &[Vec2], p: Vec2) -> Vec2 {
    if poly.len() < 3 || inside_polygon(poly, p) {
        return p;
    }
    let mut best = p;
    let mut best_d = f32::INFINITY;
    for i in 0..poly.len() {
        let q = closest_on_edge(poly[i], poly[(i + 1) % poly.len()], p);
        let d = q.distance_squared(p);
        if d < best_d {
            best_d = d;
            best = q;
        }
    }
    best
}

/// Whether `p` lies inside a convex polygon (of either winding): the same sign of cross
/// products on every edge (edges it lies on do not count).
#[inline]
pub fn inside_polygon(poly: &[Vec2], p: Vec2) -> bool {
    let mut sign = 0.0f32;
    for i in 0..poly.len() {
        let a = poly[i];
        let b = poly[(i + 1) % poly.len()];
        let c = (b - a).perp_dot(p - a);
        if c.abs() < 1e-6 {
            continue;
        }
        if sign == 0.0 {
            sign = c.signum();
        } else if c.signum() != sign {
            return false;
        }
    }
    true
}

/// The point of the segment `a`-`b` nearest to `p`.
pub fn closest_on_edge(a: Vec2, b: Vec2, p: Vec2) -> Vec2 {
    let ab = b - a;
    let len2 = ab.length_squared();
    let t = if len2 > 0.0 {
        ((p - a).dot(ab) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    a + ab * t
}

/// VRAD's bump basis (`g_localBumpBasis`) in tangent space.
pub const BUMP_BASIS: [[f32; 3]; 3] = [
    [0.816_496_6, 0.0, 0.577_350_26],
    [-0.408_248_3, 0.707_106_77, 0.577_350_26],
    [-0.408_248_3, -0.707_106_77, 0.577_350_26],
];

/// The three world-space bump normals for a face (`GetBumpNormals`): a basis around the
/// normal from the texture S vector, its second axis flipped when texture space is mirrored.
pub fn bump_normals(texture_vecs: [Vec3; 2], normal: Vec3) -> [Vec3; 3] {
    let left_handed = normal.dot(texture_vecs[0].cross(texture_vecs[1])) < 0.0;
    let mut b1 = normal.cross(texture_vecs[0]).normalize_or_zero();
    let b0 = b1.cross(normal).normalize_or_zero();
    if left_handed {
        b1 = -b1;
    }
    BUMP_BASIS.map(|b| b0 * b[0] + b1 * b[1] + normal * b[2])
}
