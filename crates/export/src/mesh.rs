//! The drawable mesh of a BSP: every visible face of the world and the brush models,
//! triangulated (displacements tessellated from their grids), with texture and lightmap
//! coordinates. The glTF writer and the rasteriser both draw this one mesh.

use glam::{Vec2, Vec3};
use srcmap_bsp::Bsp;
use srcmap_bsp::flags::SurfaceFlags;

use crate::atlas::{Atlas, LightmapSource};
pub use crate::faces::{face_polygon, face_triangle_count, faces_of, is_drawn};
use crate::geometry::{angles_rotation, bounds_of, parse_vec3};
use crate::styles::StyleScales;

/// The opacity of water and `SURF_TRANS` materials.
pub const TRANSLUCENT_ALPHA: f32 = 0.6;

/// One vertex of the mesh, in Source coordinates (inches, Z up).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Vertex {
    pub position: Vec3,
    pub normal: Vec3,
    /// Texture coordinates, in texture widths/heights.
    pub uv: Vec2,
    /// Lightmap atlas coordinates, 0..1.
    pub light_uv: Vec2,
}

/// A material: one per texdata (texture name).
#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    pub name: String,
    /// The texdata's reflectivity (linear).
    pub reflectivity: [f32; 3],
    pub width: u32,
    pub height: u32,
    /// Drawn see-through: a face using it is water (`SURF_WARP`) or `SURF_TRANS`.
    pub translucent: bool,
}

/// The triangles of one model drawn with one material.
#[derive(Debug, Clone, PartialEq)]
pub struct Primitive {
    pub model: usize,
    pub material: usize,
    /// An overlay (`info_overlay` decal) rather than faces.
    pub overlay: bool,
    /// Indices into [`MapMesh::vertices`], three per triangle.
    pub indices: Vec<u32>,
}

/// The drawable mesh of a map.
#[derive(Debug, Clone, PartialEq)]
pub struct MapMesh {
    pub vertices: Vec<Vertex>,
    pub materials: Vec<Material>,
    /// Grouped by model, then material.
    pub primitives: Vec<Primitive>,
    pub atlas: Atlas,
    /// Faces drawn and triangles made, per model (for reports and tests).
    pub faces_drawn: usize,
    pub triangles: usize,
    /// What a reader should know (no lighting, faces skipped).
    pub notes: Vec<String>,
    /// Overlays drawn (`info_overlay`, from the overlay lump), two triangles each.
    pub overlays_drawn: usize,
    /// Each drawn overlay: its index in the overlay lump and the range of vertices it made.
    pub overlay_vertices: Vec<(usize, std::ops::Range<u32>)>,
    /// Each drawn face that has lighting: its index and its four light styles (255: none).
    pub face_styles: Vec<(usize, [u8; 4])>,
    /// Each drawn face: its index and the range of [`MapMesh::vertices`] it made.
    pub face_vertices: Vec<(usize, std::ops::Range<u32>)>,
    /// Vertex positions placed in the world: brush models are stored relative to their
    /// entity's origin and angles, which these apply (the glTF nodes carry them instead).
    pub world_positions: Vec<Vec3>,
}

/// Each model's placement (rotation, then translation) from the entity that names it.
fn model_placements(bsp: &Bsp) -> Vec<(glam::Mat3, Vec3)> {
    let mut out = vec![(glam::Mat3::IDENTITY, Vec3::ZERO); bsp.models.len()];
    for e in &bsp.entities {
        let Some(m) = e.brush_model() else {
            continue;
        };
        if m == 0 || m >= out.len() {
            continue;
        }
        let origin = e
            .get("origin")
            .and_then(parse_vec3)
            .map_or(Vec3::ZERO, Vec3::from);
        let angles = e.get("angles").and_then(parse_vec3).unwrap_or([0.0; 3]);
        out[m] = (angles_rotation(angles), origin);
    }
    out
}

/// Surfaces drawn see-through: water and `SURF_TRANS`.
const SEE_THROUGH: SurfaceFlags = SurfaceFlags(SurfaceFlags::WARP.bits() | SurfaceFlags::TRANS.bits());

/// How far an overlay is drawn off its surface, in units: enough not to fight it for depth.
const OVERLAY_LIFT: f32 = 0.25;

/// An overlay's quad: corners (position, texture coordinates) counter-clockwise seen along
/// its normal.
struct OverlayQuad {
    corners: [(Vec3, Vec2); 4],
    normal: Vec3,
}

/// The quad of an overlay from its record: VBSP keeps the U basis in the unused `z` of the
/// first three UV points and sets the fourth's `z` when V is `-(normal × U)`; the UV points
/// are offsets along U and V from the origin. Not clipped to the faces it names.
fn overlay_quad(o: &srcmap_bsp::Overlay) -> Option<OverlayQuad> {
    let normal = Vec3::from(o.basis_normal).try_normalize()?;
    let u = Vec3::new(o.uv_points[0][2], o.uv_points[1][2], o.uv_points[2][2]).try_normalize()?;
    let mut v = normal.cross(u);
    if o.uv_points[3][2] == 1.0 {
        v = -v;
    }
    let origin = Vec3::from(o.origin);
    // Hammer's corner order: (u0, v0), (u0, v1), (u1, v1), (u1, v0).
    let tex = [
        Vec2::new(o.u[0], o.v[0]),
        Vec2::new(o.u[0], o.v[1]),
        Vec2::new(o.u[1], o.v[1]),
        Vec2::new(o.u[1], o.v[0]),
    ];
    let mut corners: [(Vec3, Vec2); 4] =
        std::array::from_fn(|i| (origin + u * o.uv_points[i][0] + v * o.uv_points[i][1], tex[i]));
    if !corners.iter().all(|(p, t)| p.is_finite() && t.is_finite()) {
        return None;
    }
    let newell = (0..4).fold(Vec3::ZERO, |acc, k| {
        acc + corners[k].0.cross(corners[(k + 1) % 4].0)
    });
    if newell.dot(normal) < 0.0 {
        corners.reverse();
    }
    Some(OverlayQuad { corners, normal })
}

/// The faces of each model: `(model, face index)`, world first, faces out of range dropped.
fn model_faces(bsp: &Bsp) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for m in 0..bsp.models.len() {
        out.extend(bsp.model_face_range(m, faces_of(bsp).len()).map(|f| (m, f)));
    }
    out
}

/// The faces drawn: `(model, face index)` of every model's faces whose texinfo is drawn.
fn drawn_faces(bsp: &Bsp) -> Vec<(usize, usize)> {
    model_faces(bsp)
        .into_iter()
        .filter(|&(_, f)| is_drawn(bsp, faces_of(bsp)[f].texinfo))
        .collect()
}

/// The face's front normal: its own plane's (VBSP stores the face's plane itself; `side`
/// only records that it is the odd plane of its pair).
fn face_normal(bsp: &Bsp, f: &srcmap_bsp::Face) -> Vec3 {
    bsp.planes
        .get(f.plane as usize)
        .map_or(Vec3::Z, |p| Vec3::from(p.normal))
}

fn dot4(v: &[f32; 4], p: Vec3) -> f32 {
    v[0] * p.x + v[1] * p.y + v[2] * p.z + v[3]
}

/// What the lighting of the map means for the picture: no lighting, black lightmaps, or HDR
/// tone-mapped in place of LDR.
fn lighting_notes(wanted: LightmapSource, atlas: LightmapSource, prefer_hdr: bool) -> Vec<String> {
    let note = match (wanted, atlas) {
        (LightmapSource::None, _) => "the map has no lighting: faces are drawn fullbright",
        (_, LightmapSource::None) => {
            "the map's lightmaps are black (no light reaches any face): drawn fullbright"
        }
        (LightmapSource::Hdr, _) if !prefer_hdr => "the map has HDR lighting only: lightmaps tone-mapped",
        _ => return Vec::new(),
    };
    vec![note.to_string()]
}

/// One material per texdata.
fn texdata_materials(bsp: &Bsp) -> Vec<Material> {
    bsp.texdata
        .iter()
        .enumerate()
        .map(|(i, td)| Material {
            name: bsp.texdata_name(i).unwrap_or("").to_string(),
            reflectivity: td.reflectivity,
            width: td.width.max(1) as u32,
            height: td.height.max(1) as u32,
            translucent: false,
        })
        .collect()
}

/// The material a face is drawn with: its texdata's, or the extra one (`missing`) when
/// that is out of range (`missing_used` then set). Water and `SURF_TRANS` faces make their
/// material see-through.
fn face_material(
    ti: &srcmap_bsp::TexInfo,
    materials: &mut [Material],
    missing: usize,
    missing_used: &mut bool,
) -> usize {
    let material = match usize::try_from(ti.texdata).ok().filter(|&t| t < missing) {
        Some(t) => t,
        None => {
            *missing_used = true;
            missing
        }
    };
    if SurfaceFlags::from_record(ti.flags).intersects(SEE_THROUGH)
        && let Some(m) = materials.get_mut(material)
    {
        m.translucent = true;
    }
    material
}

/// Lightmap atlas coordinates of a point on face `f` (the white block when it has no
/// lightmap rectangle).
fn light_uv_on(
    atlas: &Atlas,
    f: &srcmap_bsp::Face,
    ti: &srcmap_bsp::TexInfo,
    rect: Option<crate::atlas::Rect>,
    p: Vec3,
) -> Vec2 {
    rect.map_or(atlas.white_uv(), |r| {
        let s = dot4(&ti.lightmap_vecs[0], p) - f.lightmap_mins[0] as f32 + 0.5;
        let t = dot4(&ti.lightmap_vecs[1], p) - f.lightmap_mins[1] as f32 + 0.5;
        atlas.to_uv(r, Vec2::new(s, t))
    })
}

/// The mesh as it is built: vertices (and where they lie in the world) and, per (model, overlay,
/// material), triangle indices.
#[derive(Default)]
struct Parts {
    vertices: Vec<Vertex>,
    buckets: std::collections::BTreeMap<(usize, bool, usize), Vec<u32>>,
    /// Faces or overlays skipped for indices out of range.
    broken: usize,
    /// Each vertex's position placed in the world (see [`MapMesh::world_positions`]).
    world_positions: Vec<Vec3>,
}

/// What [`Parts::push_faces`] drew: the fields of [`MapMesh`] that describe the faces.
#[derive(Default)]
struct DrawnFaces {
    triangles: usize,
    /// Each drawn face: its index and the range of vertices it made.
    face_vertices: Vec<(usize, std::ops::Range<u32>)>,
    /// Each drawn face that has lighting: its index and its four light styles.
    face_styles: Vec<(usize, [u8; 4])>,
    /// Some face's texdata is out of range: it is drawn with the extra material.
    missing_used: bool,
}

impl DrawnFaces {
    /// Records drawn face `fi`: its triangles, its vertex range, its light styles when lit.
    fn add(&mut self, fi: usize, f: &srcmap_bsp::Face, vertices: std::ops::Range<u32>, triangles: usize) {
        self.triangles += triangles;
        self.face_vertices.push((fi, vertices));
        if f.light_offset >= 0 && f.styles[0] != 255 {
            self.face_styles.push((fi, f.styles));
        }
    }
}

/// The primitives of the built buckets, in their (model, overlay, material) order; empty ones
/// dropped.
pub(crate) fn primitives(
    buckets: std::collections::BTreeMap<(usize, bool, usize), Vec<u32>>,
) -> Vec<Primitive> {
    buckets
        .into_iter()
        .filter(|(_, idx)| !idx.is_empty())
        .map(|((model, overlay, material), indices)| Primitive {
            model,
            material,
            overlay,
            indices,
        })
        .collect()
}

/// One face's placement in texture and lightmap space.
struct FaceMapping<'a> {
    face: &'a srcmap_bsp::Face,
    texinfo: &'a srcmap_bsp::TexInfo,
    /// The material's size in texels (texture coordinates are in texture widths/heights).
    texture_size: Vec2,
    rect: Option<crate::atlas::Rect>,
    normal: Vec3,
}

impl<'a> FaceMapping<'a> {
    /// Face `fi`'s mapping, drawn with `material` (its size from `materials`, 64 when it is
    /// the extra one not yet added).
    fn of(
        bsp: &'a Bsp,
        fi: usize,
        material: usize,
        materials: &[Material],
        atlas: &Atlas,
    ) -> FaceMapping<'a> {
        let f = &faces_of(bsp)[fi];
        let texture_size = materials
            .get(material)
            .map_or(Vec2::splat(64.0), |m| Vec2::new(m.width as f32, m.height as f32));
        FaceMapping {
            face: f,
            texinfo: &bsp.texinfo[f.texinfo as usize],
            texture_size,
            rect: atlas.rect(fi),
            normal: face_normal(bsp, f),
        }
    }

    fn tex_uv(&self, p: Vec3) -> Vec2 {
        Vec2::new(
            dot4(&self.texinfo.texture_vecs[0], p),
            dot4(&self.texinfo.texture_vecs[1], p),
        ) / self.texture_size
    }
}

impl Parts {
    /// A displacement's grid as triangles, diagonals alternating as the engine's; returns the
    /// triangle count.
    fn push_displacement(
        &mut self,
        key: (usize, bool, usize),
        grid: &srcmap_disp::DispGrid,
        map: &FaceMapping<'_>,
        atlas: &Atlas,
    ) -> usize {
        let base = self.vertices.len() as u32;
        let luxels = srcmap_disp::lightmap::luxel_coords(
            grid.power,
            map.face.lightmap_size[0].max(0) as u32,
            map.face.lightmap_size[1].max(0) as u32,
        );
        let tris = grid_triangles(grid, map.normal);
        let normals = vertex_normals(grid, &tris);
        for (i, p) in grid.verts.iter().enumerate() {
            let light_uv = map.rect.map_or(atlas.white_uv(), |r| atlas.to_uv(r, luxels[i]));
            self.vertices.push(Vertex {
                position: *p,
                normal: normals[i].normalize_or(map.normal),
                uv: map.tex_uv(grid.flat[i]),
                light_uv,
            });
        }
        let indices = self.buckets.entry(key).or_default();
        for t in &tris {
            indices.extend(t.iter().map(|&i| base + i as u32));
        }
        tris.len()
    }

    /// The `drawn` faces, `(model, face index)`, each with its texdata's material (the extra
    /// one, `missing`, when that is out of range), placed in the world by its model's entity.
    /// Faces whose records are out of range are counted in `broken` and skipped.
    fn push_faces(
        &mut self,
        bsp: &Bsp,
        drawn: &[(usize, usize)],
        atlas: &Atlas,
        materials: &mut [Material],
        missing: usize,
    ) -> DrawnFaces {
        let grids = srcmap_disp::grids_of(bsp);
        let placements = model_placements(bsp);
        let mut out = DrawnFaces::default();
        for &(model, fi) in drawn {
            let f = &faces_of(bsp)[fi];
            let material = face_material(
                &bsp.texinfo[f.texinfo as usize],
                materials,
                missing,
                &mut out.missing_used,
            );
            let map = FaceMapping::of(bsp, fi, material, materials, atlas);
            let base = self.vertices.len() as u32;
            let Some(made) = self.push_face(bsp, &grids, (model, false, material), &map, atlas) else {
                self.broken += 1;
                continue;
            };
            out.add(fi, f, base..self.vertices.len() as u32, made);
            self.place_in_world(base, placements[model]);
        }
        out
    }

    /// The world positions of the vertices from `base` on: rotated, then moved, by their
    /// model's placement.
    fn place_in_world(&mut self, base: u32, (rotation, origin): (glam::Mat3, Vec3)) {
        self.world_positions.extend(
            self.vertices[base as usize..]
                .iter()
                .map(|v| rotation * v.position + origin),
        );
    }

    /// Every overlay of the lump whose records are in range (the others counted in `broken`);
    /// returns each drawn one's index and the range of vertices it made.
    fn push_overlays(
        &mut self,
        bsp: &Bsp,
        materials: usize,
        atlas: &Atlas,
    ) -> Vec<(usize, std::ops::Range<u32>)> {
        let mut out = Vec::new();
        for (oi, o) in bsp.overlays.iter().enumerate() {
            let base = self.vertices.len() as u32;
            if !self.push_overlay(bsp, o, materials, atlas) {
                self.broken += 1;
                continue;
            }
            self.world_positions
                .extend(self.vertices[base as usize..].iter().map(|v| v.position));
            out.push((oi, base..self.vertices.len() as u32));
        }
        out
    }

    /// A face: its displacement grid or its polygon; returns the triangle count, `None`
    /// when its records are out of range.
    fn push_face(
        &mut self,
        bsp: &Bsp,
        grids: &[Option<srcmap_disp::DispGrid>],
        key: (usize, bool, usize),
        map: &FaceMapping<'_>,
        atlas: &Atlas,
    ) -> Option<usize> {
        if map.face.dispinfo >= 0 {
            let grid = grids.get(map.face.dispinfo as usize)?.as_ref()?;
            Some(self.push_displacement(key, grid, map, atlas))
        } else {
            let poly = face_polygon(bsp, map.face).filter(|p| p.len() >= 3)?;
            Some(self.push_polygon(key, &poly, map, atlas))
        }
    }

    /// A face's polygon as a fan; returns the triangle count.
    fn push_polygon(
        &mut self,
        key: (usize, bool, usize),
        poly: &[Vec3],
        map: &FaceMapping<'_>,
        atlas: &Atlas,
    ) -> usize {
        let base = self.vertices.len() as u32;
        for &p in poly {
            self.vertices.push(Vertex {
                position: p,
                normal: map.normal,
                uv: map.tex_uv(p),
                light_uv: light_uv_on(atlas, map.face, map.texinfo, map.rect, p),
            });
        }
        // glTF wants counter-clockwise seen from the front: follow the polygon's own
        // (Newell) normal against the plane's rather than assume the file's winding.
        let newell = (0..poly.len()).fold(Vec3::ZERO, |acc, k| {
            acc + poly[k].cross(poly[(k + 1) % poly.len()])
        });
        let ccw = newell.dot(map.normal) >= 0.0;
        push_fan(self.buckets.entry(key).or_default(), base, poly.len(), ccw);
        poly.len() - 2
    }

    /// An overlay's quad, dropped onto the first face it names and lit by the one of them
    /// under its centre ([`overlay_lit_face`]); `false` when its record is out of range.
    fn push_overlay(&mut self, bsp: &Bsp, o: &srcmap_bsp::Overlay, materials: usize, atlas: &Atlas) -> bool {
        let Some(mut quad) = overlay_quad(o) else {
            return false;
        };
        let Some(material) = overlay_material(bsp, o, materials) else {
            return false;
        };
        drop_onto_face(bsp, o, &mut quad);
        let lit_face = overlay_lit_face(bsp, o, atlas, &quad);
        let base = self.vertices.len() as u32;
        for (position, uv) in quad.corners {
            let light_uv = lit_face.map_or(atlas.white_uv(), |(f, fti, r)| {
                light_uv_on(atlas, f, fti, Some(r), position)
            });
            self.vertices.push(Vertex {
                position,
                normal: quad.normal,
                uv,
                light_uv,
            });
        }
        self.buckets
            .entry((0, true, material))
            .or_default()
            .extend([0, 1, 2, 0, 2, 3].map(|k| base + k));
        true
    }
}

/// An overlay's material: its texinfo's texdata, `None` when either is out of range (the
/// extra material, `materials`, is not used for overlays).
fn overlay_material(bsp: &Bsp, o: &srcmap_bsp::Overlay, materials: usize) -> Option<usize> {
    let ti = usize::try_from(o.texinfo).ok().and_then(|t| bsp.texinfo.get(t))?;
    usize::try_from(ti.texdata).ok().filter(|&t| t < materials)
}

/// The faces an overlay names that exist: `(face index, face)`.
fn overlay_faces<'b>(
    bsp: &'b Bsp,
    o: &'b srcmap_bsp::Overlay,
) -> impl Iterator<Item = (i32, &'b srcmap_bsp::Face)> + 'b {
    o.faces[..o.face_count().min(o.faces.len())]
        .iter()
        .filter_map(|&f| faces_of(bsp).get(usize::try_from(f).ok()?).map(|face| (f, face)))
}

/// The face whose lightmap lights an overlay: of the named faces with a lightmap, the first
/// whose polygon holds the quad's centre, else the first. The engine lights
/// each piece of an overlay by the face under it; an overlay may name faces far from it (the
/// whole floor), and a lightmap read beyond its own face's extents reads other faces' luxels.
fn overlay_lit_face<'b>(
    bsp: &'b Bsp,
    o: &'b srcmap_bsp::Overlay,
    atlas: &Atlas,
    quad: &OverlayQuad,
) -> Option<(&'b srcmap_bsp::Face, &'b srcmap_bsp::TexInfo, crate::atlas::Rect)> {
    let centre = quad.corners.iter().map(|(p, _)| *p).sum::<Vec3>() / 4.0;
    let lit: Vec<_> = overlay_faces(bsp, o)
        .filter_map(|(fi, f)| {
            let fti = bsp.texinfo.get(usize::try_from(f.texinfo).ok()?)?;
            Some((f, fti, atlas.rect(fi as usize)?))
        })
        .collect();
    let under = lit.iter().find(|(f, _, _)| face_holds(bsp, f, centre));
    under.or(lit.first()).copied()
}

/// Whether `p` lies on a face's plane (within a unit) and inside its polygon, whichever way
/// the polygon is wound.
fn face_holds(bsp: &Bsp, f: &srcmap_bsp::Face, p: Vec3) -> bool {
    let (Some(pl), Some(poly)) = (bsp.planes.get(f.plane as usize), face_polygon(bsp, f)) else {
        return false;
    };
    let n = Vec3::from(pl.normal);
    let side = |k: usize| (poly[(k + 1) % poly.len()] - poly[k]).cross(p - poly[k]).dot(n);
    let sides: Vec<f32> = (0..poly.len()).map(side).collect();
    (n.dot(p) - pl.dist).abs() <= 1.0
        && poly.len() >= 3
        && (sides.iter().all(|&s| s >= -0.5) || sides.iter().all(|&s| s <= 0.5))
}

/// The engine projects an overlay onto the faces it names: its origin may sit off them. Drops
/// the quad along its normal onto the first named face's plane (lifted a little off it).
fn drop_onto_face(bsp: &Bsp, o: &srcmap_bsp::Overlay, quad: &mut OverlayQuad) {
    if let Some(pl) = overlay_faces(bsp, o).find_map(|(_, f)| bsp.planes.get(f.plane as usize)) {
        let n = Vec3::from(pl.normal);
        let along = n.dot(quad.normal);
        if along.abs() > 0.1 {
            for (p, _) in &mut quad.corners {
                let t = (pl.dist - n.dot(*p)) / along + OVERLAY_LIFT / along.abs();
                *p += quad.normal * t;
            }
        }
    }
}

/// A displacement grid's triangles, two per cell with the diagonal alternating as the
/// engine's (so slopes look the same), wound as the base face (`normal`).
fn grid_triangles(grid: &srcmap_disp::DispGrid, normal: Vec3) -> Vec<[usize; 3]> {
    let side = grid.side();
    let mut tris = Vec::with_capacity(srcmap_disp::tri_count(grid.power));
    for row in 0..side - 1 {
        for col in 0..side - 1 {
            let a = row * side + col;
            let (b, c, d) = (a + 1, a + side, a + side + 1);
            let pair = if (row + col) % 2 == 0 {
                [[a, c, b], [b, c, d]]
            } else {
                [[a, c, d], [a, d, b]]
            };
            tris.extend(pair);
        }
    }
    // The grid's winding follows the base face; orient triangles to it.
    let flip = tris.first().is_some_and(|t| {
        let [a, b, c] = t.map(|i| grid.flat[i]);
        (b - a).cross(c - a).dot(normal) < 0.0
    });
    if flip {
        for t in &mut tris {
            t.swap(1, 2);
        }
    }
    tris
}

/// Each grid vertex's normal: the sum of its triangles' (unnormalised) normals.
fn vertex_normals(grid: &srcmap_disp::DispGrid, tris: &[[usize; 3]]) -> Vec<Vec3> {
    let mut normals = vec![Vec3::ZERO; grid.verts.len()];
    for t in tris {
        let [a, b, c] = t.map(|i| grid.verts[i]);
        let n = (b - a).cross(c - a);
        for &i in t.iter() {
            normals[i] += n;
        }
    }
    normals
}

/// The checkerboard material drawn on faces whose texdata is out of range.
fn missing_material() -> Material {
    Material {
        name: String::new(),
        reflectivity: [0.5; 3],
        width: 64,
        height: 64,
        translucent: false,
    }
}

/// What a reader should know: the lighting's notes, then faces without a texture and faces
/// skipped.
fn mesh_notes(lighting: Vec<String>, missing_used: bool, broken: usize) -> Vec<String> {
    let mut notes = lighting;
    if missing_used {
        notes.push("some faces name no texture: drawn with a checkerboard".to_string());
    }
    if broken > 0 {
        notes.push(format!("{broken} faces with indices out of range were skipped"));
    }
    notes
}

impl MapMesh {
    /// Builds the mesh of `bsp` lit as the map starts. `hdr` prefers the HDR lightmaps
    /// (tone-mapped).
    pub fn build(bsp: &Bsp, prefer_hdr: bool) -> MapMesh {
        MapMesh::build_lit(bsp, prefer_hdr, &StyleScales::at_spawn(bsp))
    }

    /// Builds the mesh of `bsp`, each light style as bright as `scales` says.
    pub fn build_lit(bsp: &Bsp, prefer_hdr: bool, scales: &StyleScales) -> MapMesh {
        let source = LightmapSource::choose(bsp, prefer_hdr);
        let drawn = drawn_faces(bsp);
        let atlas = Atlas::build(bsp, source, drawn.iter().map(|&(_, f)| f), scales);
        let lighting = lighting_notes(source, atlas.source, prefer_hdr);
        let mut materials = texdata_materials(bsp);
        // One extra material for faces whose texdata is out of range.
        let missing = materials.len();
        let mut parts = Parts::default();
        let faces = parts.push_faces(bsp, &drawn, &atlas, &mut materials, missing);
        let overlay_vertices = parts.push_overlays(bsp, missing, &atlas);
        if faces.missing_used {
            materials.push(missing_material());
        }
        MapMesh {
            vertices: parts.vertices,
            materials,
            primitives: primitives(parts.buckets),
            atlas,
            faces_drawn: faces.face_vertices.len(),
            triangles: faces.triangles,
            overlays_drawn: overlay_vertices.len(),
            overlay_vertices,
            face_styles: faces.face_styles,
            notes: mesh_notes(lighting, faces.missing_used, parts.broken),
            face_vertices: faces.face_vertices,
            world_positions: parts.world_positions,
        }
    }

    /// Bounds of every drawn vertex in the world (`None` when nothing is drawn).
    pub fn bounds(&self) -> Option<(Vec3, Vec3)> {
        bounds_of(self.world_positions.iter().copied())
    }
}

/// A convex polygon of `corners` vertices from `base` as a triangle fan, wound counter-clockwise
/// about its outward normal (`counter_clockwise`: the corners already are).
pub(crate) fn push_fan(indices: &mut Vec<u32>, base: u32, corners: usize, counter_clockwise: bool) {
    for k in 1..corners as u32 - 1 {
        if counter_clockwise {
            indices.extend([base, base + k, base + k + 1]);
        } else {
            indices.extend([base, base + k + 1, base + k]);
        }
    }
}
