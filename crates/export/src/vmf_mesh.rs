//! The drawable mesh of a VMF without compiling it: each brush side clipped by the brush's
//! other planes to a polygon (`srcmap_geom::polyhedron_faces`), no lightmaps (the atlas is
//! the white block), tool textures left out.

use glam::{Vec2, Vec3};
use srcmap_geom::{DVec3, Plane, polyhedron_faces};
use srcmap_vmf::{Side, Solid, Vmf};

use crate::atlas::Atlas;
use crate::mesh::{MapMesh, Material, Vertex, primitives};

/// The texture size assumed without the game (the compile's default too).
const TEXTURE_SIDE: u32 = 512;

/// Whether a side's material is one of Valve's tool textures (`tools/…`: nodraw, skip, clip,
/// trigger, hint, skybox, …), which the engine does not draw.
pub fn is_tool_material(name: &str) -> bool {
    let n = name.replace('\\', "/").to_ascii_lowercase();
    n.starts_with("tools/")
}

/// A geometry point (f64, the geometry crate's glam) as a mesh point.
fn to_f32(p: DVec3) -> Vec3 {
    Vec3::new(p.x as f32, p.y as f32, p.z as f32)
}

/// Texture coordinates of `p` on `side`, in texture sizes.
fn side_uv(side: &Side, p: DVec3) -> Vec2 {
    let axis = |a: &srcmap_vmf::TextureAxis| {
        let scale = if a.scale.abs() > 1e-6 { a.scale } else { 0.25 };
        (p.dot(DVec3::from(a.axis)) / scale + a.shift) / TEXTURE_SIDE as f64
    };
    Vec2::new(axis(&side.uaxis) as f32, axis(&side.vaxis) as f32)
}

/// The planes of a solid's sides, in side order (`None` when a side's three points are
/// collinear).
fn side_planes(solid: &Solid) -> Option<Vec<Plane>> {
    solid
        .sides
        .iter()
        .map(|s| {
            let [a, b, c] = s.plane.map(DVec3::from);
            Plane::from_points(a, b, c)
        })
        .collect()
}

/// The materials met so far, one per name (case-insensitive), in order of first use.
#[derive(Default)]
struct MaterialTable {
    materials: Vec<Material>,
    by_name: std::collections::BTreeMap<String, usize>,
}

impl MaterialTable {
    /// The material named `name`, added at the assumed texture size if new.
    fn index_of(&mut self, name: &str) -> usize {
        let materials = &mut self.materials;
        *self.by_name.entry(name.to_ascii_lowercase()).or_insert_with(|| {
            materials.push(Material {
                name: name.to_string(),
                reflectivity: [0.5; 3],
                width: TEXTURE_SIDE,
                height: TEXTURE_SIDE,
                translucent: false,
            });
            materials.len() - 1
        })
    }
}

/// The mesh of a VMF as it is built: vertices and per-material triangles, with counts.
#[derive(Default)]
struct VmfMesh {
    materials: MaterialTable,
    buckets: std::collections::BTreeMap<usize, Vec<u32>>,
    vertices: Vec<Vertex>,
    faces_drawn: usize,
    triangles: usize,
    /// Brushes left out for a degenerate side plane.
    skipped: usize,
    /// Displacement sides drawn as their base face.
    displacements: usize,
}

impl VmfMesh {
    /// Every drawn side of `solid`, clipped by the solid's other planes.
    fn push_solid(&mut self, solid: &Solid) {
        let Some(planes) = side_planes(solid) else {
            self.skipped += 1;
            return;
        };
        for (side, (winding, plane)) in solid
            .sides
            .iter()
            .zip(polyhedron_faces(&planes).into_iter().zip(&planes))
        {
            let Some(w) = winding.filter(|w| w.len() >= 3) else {
                continue;
            };
            if is_tool_material(&side.material) {
                continue;
            }
            self.push_side(side, &w, plane);
        }
    }

    /// One side's polygon `w` on `plane` as a triangle fan.
    fn push_side(&mut self, side: &Side, w: &srcmap_geom::Winding, plane: &Plane) {
        self.displacements += usize::from(side.dispinfo.is_some());
        let material = self.materials.index_of(&side.material);
        let normal = to_f32(plane.normal);
        let base = self.vertices.len() as u32;
        self.vertices.extend(w.points.iter().map(|&p| Vertex {
            position: to_f32(p),
            normal,
            uv: side_uv(side, p),
            light_uv: Vec2::ZERO,
        }));
        // Counter-clockwise about the outward normal, as the BSP's faces are drawn.
        let newell = (0..w.len()).fold(DVec3::ZERO, |acc, k| {
            acc + w.points[k].cross(w.points[(k + 1) % w.len()])
        });
        let ccw = newell.dot(plane.normal) >= 0.0;
        let indices = self.buckets.entry(material).or_default();
        crate::mesh::push_fan(indices, base, w.len(), ccw);
        self.triangles += w.len() - 2;
        self.faces_drawn += 1;
    }

    /// What a reader should know: no lighting, brushes skipped, displacements flattened.
    fn notes(&self) -> Vec<String> {
        let mut notes =
            vec!["drawn from the VMF without compiling: no lighting, tool textures hidden".to_string()];
        if self.skipped > 0 {
            notes.push(format!(
                "{} brushes with a degenerate side plane were skipped",
                self.skipped
            ));
        }
        if self.displacements > 0 {
            notes.push(format!(
                "{} displacement sides drawn as their flat base faces",
                self.displacements
            ));
        }
        notes
    }
}

impl MapMesh {
    /// The brushes of `vmf` (world and brush entities) as a mesh: one primitive per material,
    /// drawn fullbright. Displacement sides are drawn as their flat base face.
    pub fn from_vmf(vmf: &Vmf) -> MapMesh {
        let mut m = VmfMesh::default();
        for solid in std::iter::once(&vmf.world)
            .chain(&vmf.entities)
            .flat_map(|e| &e.solids)
        {
            m.push_solid(solid);
        }
        m.into_mesh()
    }
}

impl VmfMesh {
    /// The finished mesh, lit by the white block.
    fn into_mesh(mut self) -> MapMesh {
        let atlas = Atlas::fullbright();
        let white = atlas.white_uv();
        for v in &mut self.vertices {
            v.light_uv = white;
        }
        let notes = self.notes();
        let world_positions: Vec<Vec3> = self.vertices.iter().map(|v| v.position).collect();
        MapMesh {
            primitives: primitives(
                self.buckets
                    .into_iter()
                    .map(|(m, idx)| ((0, false, m), idx))
                    .collect(),
            ),
            vertices: self.vertices,
            materials: self.materials.materials,
            atlas,
            faces_drawn: self.faces_drawn,
            triangles: self.triangles,
            overlays_drawn: 0,
            overlay_vertices: Vec::new(),
            face_styles: Vec::new(),
            notes,
            face_vertices: Vec::new(),
            world_positions,
        }
    }
}
