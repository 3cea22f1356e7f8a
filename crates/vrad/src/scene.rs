//! The two ray-tracing scenes VRAD needs:
//! * **occluders** (VRAD's `AddBrushesForRayTrace`): the sides of every opaque world brush
//!   (contents in `MASK_OPAQUE`, sky and displacement sides left out), plus the world's sky
//!   faces tagged [`SKY`] so a ray that reaches them "sees sky", plus brush entities with
//!   `vrad_brush_cast_shadows`, plus displacement surfaces, plus static props
//!   ([`crate::props`]);
//! * **surfaces**: every lit face (payload = face index), used to look up the light arriving
//!   at the point a bounce ray hits.

use glam::{DVec3, Vec3};
use srcmap_bsp::Bsp;
use srcmap_bsp::flags::{Contents, SurfaceFlags};
use srcmap_kv::values;
use srcmap_trace::{Scene, SceneBuilder};

use crate::alpha::{AlphaTriangle, Occluders};
use crate::displacement::DispSurface;
use crate::faces::{FaceGeom, SKY_FACE};

/// VRAD's `MAX_TRACE_LENGTH`: the diagonal of the coordinate range.
pub const MAX_TRACE: f32 = 1.732_050_8 * 32768.0;

/// Payload flag: the triangle is sky.
pub const SKY: u32 = 1 << 31;
/// Payload of opaque occluders.
pub const OPAQUE: u32 = 0;
/// Payload flag of a static prop's shadow triangles; the low bits hold the prop's index.
pub const STATIC_PROP: u32 = 1 << 30;
/// In the surfaces scene's triangle table: the triangle is not a displacement's.
pub const NOT_DISPLACEMENT: u32 = u32::MAX;

/// Clips a convex polygon to the back side of the plane `n·p = d` (keeps `n·p <= d`).
fn clip_back(poly: &[DVec3], n: DVec3, d: f64) -> Vec<DVec3> {
    const EPS: f64 = 0.01;
    let mut out = Vec::with_capacity(poly.len() + 2);
    for i in 0..poly.len() {
        let a = poly[i];
        let b = poly[(i + 1) % poly.len()];
        let da = n.dot(a) - d;
        let db = n.dot(b) - d;
        if da <= EPS {
            out.push(a);
        }
        if (da > EPS && db < -EPS) || (da < -EPS && db > EPS) {
            let t = da / (da - db);
            out.push(a + (b - a) * t);
        }
    }
    out
}

/// A huge square on the plane `n·p = d`, wound so its normal is `n`.
fn base_winding(n: DVec3, d: f64) -> Vec<DVec3> {
    let up = if n.z.abs() > n.x.abs().max(n.y.abs()) {
        DVec3::X
    } else {
        DVec3::Z
    };
    let v = (up - n * up.dot(n)).normalize();
    let r = v.cross(n);
    let c = n * d;
    let size = 131072.0;
    vec![
        c - r * size + v * size,
        c + r * size + v * size,
        c + r * size - v * size,
        c - r * size - v * size,
    ]
}

/// Brushes reachable from the BSP tree under `head_node`.
fn brushes_under(bsp: &Bsp, head_node: i32) -> Vec<usize> {
    let mut out = Vec::new();
    let mut seen = vec![false; bsp.brushes.len()];
    let mut stack = vec![head_node];
    let mut guard = 0usize;
    while let Some(n) = stack.pop() {
        guard += 1;
        if guard > bsp.nodes.len() * 2 + bsp.leafs.len() * 2 + 16 {
            break;
        }
        if n >= 0 {
            if let Some(node) = bsp.nodes.get(n as usize) {
                stack.extend(node.children);
            }
        } else if let Some(leaf) = bsp.leafs.get((-1 - n) as usize) {
            let first = leaf.first_leaf_brush as usize;
            for i in first..first + leaf.num_leaf_brushes as usize {
                if let Some(&b) = bsp.leaf_brushes.get(i)
                    && let Some(s) = seen.get_mut(b as usize)
                    && !*s
                {
                    *s = true;
                    out.push(b as usize);
                }
            }
        }
    }
    out.sort_unstable();
    out
}

fn add_brush(bsp: &Bsp, brush: usize, offset: Vec3, builder: &mut SceneBuilder) {
    let Some(b) = bsp.brushes.get(brush) else { return };
    if !Contents::from_record(b.contents).intersects(Contents::MASK_OPAQUE) {
        return;
    }
    let (Ok(first), Ok(n)) = (usize::try_from(b.first_side), usize::try_from(b.num_sides)) else {
        return;
    };
    let sides: Vec<_> = (first..first + n)
        .filter_map(|i| bsp.brush_sides.get(i))
        .collect();
    for (i, side) in sides.iter().enumerate() {
        let flags = usize::try_from(side.texinfo)
            .ok()
            .and_then(|t| bsp.texinfo.get(t))
            .map_or(SurfaceFlags::EMPTY, |t| SurfaceFlags::from_record(t.flags));
        if flags.intersects(SurfaceFlags::SKY) || side.dispinfo > 0 {
            continue;
        }
        let Some(w) = side_winding(bsp, &sides, i) else {
            continue;
        };
        if w.len() >= 3 {
            let pts: Vec<[f32; 3]> = w.iter().map(|p| (p.as_vec3() + offset).to_array()).collect();
            builder.add_polygon(&pts, OPAQUE);
        }
    }
}

/// A brush side's plane (unit normal, distance), when it names one.
fn side_plane(bsp: &Bsp, side: &srcmap_bsp::BrushSide) -> Option<(DVec3, f64)> {
    bsp.planes
        .get(side.plane as usize)
        .map(|p| (DVec3::from(p.normal.map(f64::from)), p.dist as f64))
}

/// The winding of side `i` of a brush with `sides`: its plane's clipped behind every other
/// side's but bevels (`None` when its plane is missing).
fn side_winding(bsp: &Bsp, sides: &[&srcmap_bsp::BrushSide], i: usize) -> Option<Vec<DVec3>> {
    let (n, d) = side_plane(bsp, sides[i])?;
    let mut w = base_winding(n, d);
    for (j, other) in sides.iter().enumerate() {
        if i == j || other.bevel & 0xff != 0 {
            continue;
        }
        let Some((on, od)) = side_plane(bsp, other) else {
            continue;
        };
        w = clip_back(&w, on, od);
        if w.len() < 3 {
            break;
        }
    }
    Some(w)
}

/// The world's sky faces, with the [`SKY`] payload.
fn add_world_sky_faces(bsp: &Bsp, faces: &[FaceGeom], builder: &mut SceneBuilder) {
    let Some(world) = bsp.models.first() else { return };
    let (first, n) = (world.first_face.max(0) as usize, world.num_faces.max(0) as usize);
    for face in faces.iter().skip(first).take(n) {
        if face.texinfo_flags.intersects(SKY_FACE) {
            let pts: Vec<[f32; 3]> = face.points.iter().map(|p| p.to_array()).collect();
            builder.add_polygon(&pts, SKY);
        }
    }
}

/// The occluder scene's sky faces alone, for [`crate::sky::reaches_sky`]'s cheap test.
pub fn sky_faces(bsp: &Bsp, faces: &[FaceGeom]) -> Scene {
    let mut builder = SceneBuilder::new();
    add_world_sky_faces(bsp, faces, &mut builder);
    builder.build()
}

/// Builds the occluder scene.
pub fn occluders(bsp: &Bsp, faces: &[FaceGeom], disps: &[Option<DispSurface>]) -> Scene {
    occluders_with(bsp, faces, disps, &[], &crate::props::PropShadows::default()).scene
}

/// [`occluders`] leaving out the brushes marked in `see_through` (by brush index), with the
/// static props' shadow triangles ([`crate::props::PropShadows::triangles`]) added, those
/// with a texture ([`crate::props::PropShadows::textured`]) letting light through it.
pub fn occluders_with(
    bsp: &Bsp,
    faces: &[FaceGeom],
    disps: &[Option<DispSurface>],
    see_through: &[bool],
    props: &crate::props::PropShadows,
) -> Occluders {
    let mut builder = SceneBuilder::new();
    let skip = |b: usize| see_through.get(b).copied().unwrap_or(false);
    if let Some(world) = bsp.models.first() {
        for b in brushes_under(bsp, world.head_node) {
            if skip(b) {
                continue;
            }
            add_brush(bsp, b, Vec3::ZERO, &mut builder);
        }
        // Sky faces of the world, tagged so sun and sky-ambient rays know they got out.
        add_world_sky_faces(bsp, faces, &mut builder);
    }
    add_shadow_brush_entities(bsp, &skip, &mut builder);
    for d in disps.iter().flatten().filter(|d| d.opaque) {
        for tri in d.triangles() {
            builder.add_triangle(tri[0].to_array(), tri[1].to_array(), tri[2].to_array(), OPAQUE);
        }
    }
    let placed = add_prop_triangles(props, &mut builder);
    let mut out = Occluders::new(builder.build());
    add_textured(&mut out, props, &placed);
    out
}

/// The props' textured triangles as the occluders' see-through triangles, at the places
/// `placed` gives.
fn add_textured(out: &mut Occluders, props: &crate::props::PropShadows, placed: &[Option<u32>]) {
    for (i, (uv, texture)) in &props.textured {
        if let (Some(Some(at)), Some((points, _))) = (placed.get(*i), props.triangles.get(*i)) {
            let triangle = AlphaTriangle {
                points: *points,
                uv: *uv,
                texture: std::sync::Arc::clone(texture),
            };
            out.alpha.insert(*at, triangle);
        }
    }
}

/// The brushes of brush entities flagged `vrad_brush_cast_shadows` (but those `skip`
/// leaves out), moved by their entity's origin.
fn add_shadow_brush_entities(bsp: &Bsp, skip: &dyn Fn(usize) -> bool, builder: &mut SceneBuilder) {
    let origins = crate::faces::model_origins(bsp);
    for e in &bsp.entities {
        if !e.get("vrad_brush_cast_shadows").is_some_and(values::boolean) {
            continue;
        }
        let Some(m) = e.brush_model() else {
            continue;
        };
        let Some(model) = bsp.models.get(m) else { continue };
        for b in brushes_under(bsp, model.head_node) {
            if skip(b) {
                continue;
            }
            add_brush(bsp, b, origins.get(m).copied().unwrap_or(Vec3::ZERO), builder);
        }
    }
}

/// Adds the props' shadow triangles; returns where each went in the scene (degenerate ones
/// are not added).
fn add_prop_triangles(props: &crate::props::PropShadows, builder: &mut SceneBuilder) -> Vec<Option<u32>> {
    let mut placed = Vec::with_capacity(props.triangles.len());
    for (tri, prop) in &props.triangles {
        let payload = STATIC_PROP | (prop & (STATIC_PROP - 1));
        let before = builder.len();
        builder.add_triangle(tri[0].to_array(), tri[1].to_array(), tri[2].to_array(), payload);
        placed.push((builder.len() > before).then_some(before as u32));
    }
    placed
}

/// Builds the surface scene of lit faces (payload = face index) and sky faces (`SKY | index`),
/// and per triangle its index among its displacement's [`DispSurface::triangles`]
/// ([`NOT_DISPLACEMENT`] for other faces), which tells where on a displacement a ray landed.
pub fn surfaces(faces: &[FaceGeom], disps: &[Option<DispSurface>]) -> (Scene, Vec<u32>) {
    let mut builder = SceneBuilder::new();
    let mut disp_triangles = Vec::new();
    for (i, f) in faces.iter().enumerate() {
        if !f.lit {
            continue;
        }
        if let Some(Some(d)) = disps.get(i) {
            for (k, tri) in d.triangles().enumerate() {
                builder.add_triangle(tri[0].to_array(), tri[1].to_array(), tri[2].to_array(), i as u32);
                // Degenerate triangles are not added: number only those that were.
                disp_triangles.resize(builder.len(), k as u32);
            }
            continue;
        }
        let pts: Vec<[f32; 3]> = f.points.iter().map(|p| p.to_array()).collect();
        builder.add_polygon(&pts, i as u32);
        disp_triangles.resize(builder.len(), NOT_DISPLACEMENT);
    }
    // Sky faces, so ambient-cube rays know when they see sky.
    for (i, f) in faces.iter().enumerate() {
        if f.texinfo_flags.intersects(SKY_FACE) {
            let pts: Vec<[f32; 3]> = f.points.iter().map(|p| p.to_array()).collect();
            builder.add_polygon(&pts, SKY | i as u32);
        }
    }
    disp_triangles.resize(builder.len(), NOT_DISPLACEMENT);
    (builder.build(), disp_triangles)
}
