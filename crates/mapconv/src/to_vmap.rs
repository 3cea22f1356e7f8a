//! VMF → VMAP (vmap.md §4): each solid a closed `CMapMesh` (world solids under the world,
//! brush entities' solids under their `CMapEntity`), each entity a `CMapEntity`.

use std::collections::{BTreeMap, HashMap, HashSet};

use srcmap_geom::DVec3;
use srcmap_vmap::{FaceSource, MeshSource, Placement, Vmap, VmapWriter};
use srcmap_vmf::{Entity, Solid, Vmf};

use crate::brush::{BrushMesh, brush_mesh};
use crate::carried_sides::CarriedSide;
use crate::disp;
use crate::entities::{ClassRenames, placement, vmap_connection, vmap_keys};
use crate::groups::{write_cordons, write_visgroups};
use crate::instances::{InstancePaths, is_instance, prefab_attrs};
use crate::texture::{DEFAULT_TEXTURE_SIZE, Projection, vmat_path};
use crate::{MapconvError, Warning};

/// Keys whose values list VMF side ids (overlays and their transitions).
pub const SIDE_LIST_KEYS: [&str; 2] = ["sides", "sides2"];

/// How to convert a VMF.
#[derive(Debug, Clone, Default)]
pub struct ToVmapOptions {
    pub renames: ClassRenames,
    /// Texture size per material as written in the VMF (upper case not required); others use
    /// [`DEFAULT_TEXTURE_SIZE`].
    pub texture_sizes: HashMap<String, [f64; 2]>,
    /// Where instance files and prefab targets are relative to.
    pub instances: InstancePaths,
    /// VMF ids of the sides to leave out (`--cull`: the faces no playable space sees).
    pub culled_sides: HashSet<i64>,
}

/// What a VMF → VMAP conversion did.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct ToVmapReport {
    pub solids: usize,
    pub meshes: usize,
    pub faces: usize,
    /// Displacement sides written as grid meshes.
    pub displacements: usize,
    /// Their displaced area (not in `area`, which holds the brushes' faces).
    pub displacement_area: f64,
    pub entities: usize,
    /// Cordon boxes written as `CMapCordon` nodes.
    pub cordon_boxes: usize,
    /// `func_instance`s written as prefabs.
    pub prefabs: usize,
    /// The instance files they place, relative to the outermost map's folder (each once).
    pub instances: Vec<String>,
    /// Faces left out as [`ToVmapOptions::culled_sides`] asked, and brushes left with none.
    pub culled_faces: usize,
    pub culled_brushes: usize,
    /// Face area per material (`materials/….vmat`).
    pub area: BTreeMap<String, f64>,
    pub warnings: Vec<Warning>,
}

/// Converts a VMF.
pub fn vmf_to_vmap(vmf: &Vmf, opts: &ToVmapOptions) -> Result<(Vmap, ToVmapReport), MapconvError> {
    let mut c = Converter {
        w: VmapWriter::new(),
        opts,
        report: ToVmapReport::default(),
        references: Vec::new(),
        side_faces: HashMap::new(),
        side_lists: Vec::new(),
        visgroup_nodes: HashMap::new(),
    };
    for p in &vmf.problems {
        c.report.warnings.push(Warning {
            place: format!("{}:{}", p.line, p.column),
            message: format!("{} (left out)", p.message),
        });
    }
    for (k, v) in vmap_keys(&vmf.world, ClassRenames::None).iter().skip(1) {
        c.w.set_world_key(k, v);
    }
    let world = c.w.world();
    c.solids(world, &vmf.world)?;
    for e in &vmf.entities {
        c.entity(e)?;
    }
    c.patch_side_lists();
    write_visgroups(&mut c.w, &vmf.visgroups, &c.visgroup_nodes, None);
    c.report.cordon_boxes = write_cordons(&mut c.w, vmf, next_node_id(vmf));
    c.references.sort();
    c.references.dedup();
    let report = c.report;
    Ok((c.w.finish(c.references), report))
}

struct Converter<'a> {
    w: VmapWriter,
    opts: &'a ToVmapOptions,
    report: ToVmapReport,
    references: Vec<String>,
    /// VMF side id → `mesh node id:face index` of the face it became.
    side_faces: HashMap<i64, String>,
    /// Entities whose key values list side ids (overlays): node, key, value.
    side_lists: Vec<(u32, String, String)>,
    /// Each visgroup id's nodes.
    visgroup_nodes: HashMap<i64, Vec<u32>>,
}

impl Converter<'_> {
    fn entity(&mut self, e: &Entity) -> Result<(), MapconvError> {
        if is_instance(e) {
            self.prefab(e);
            return Ok(());
        }
        let keys = vmap_keys(e, self.opts.renames);
        if let Some((_, model)) = keys.iter().find(|(k, _)| k.eq_ignore_ascii_case("model"))
            && model.ends_with(".vmdl")
        {
            self.references.push(model.clone());
        }
        let connections: Vec<_> = e.connections.iter().map(vmap_connection).collect();
        let world = self.w.world();
        let node = self
            .w
            .add_entity(world, node_id(e.id), &placement(e), &keys, &connections);
        if e.hidden {
            self.w.hide(node);
        }
        self.join_visgroups(e.editor.as_ref(), node);
        for (k, v) in keys
            .iter()
            .filter(|(k, _)| SIDE_LIST_KEYS.contains(&k.to_ascii_lowercase().as_str()))
        {
            self.side_lists.push((node, k.clone(), v.clone()));
        }
        self.report.entities += 1;
        self.solids(node, e)
    }

    /// Notes `node` as a member of the visgroups an `editor` block names.
    fn join_visgroups(&mut self, editor: Option<&srcmap_vmf::Editor>, node: u32) {
        for &id in editor.map_or(&[][..], |e| e.visgroup_ids.as_slice()) {
            self.visgroup_nodes.entry(id).or_default().push(node);
        }
    }

    /// An instance as a prefab node; its file is listed for the caller to convert.
    fn prefab(&mut self, e: &Entity) {
        let connections: Vec<_> = e.connections.iter().map(vmap_connection).collect();
        let attrs = prefab_attrs(e, &self.opts.instances);
        let world = self.w.world();
        let node = self
            .w
            .add_prefab(world, node_id(e.id), &placement(e), &connections, attrs);
        if e.hidden {
            self.w.hide(node);
        }
        self.join_visgroups(e.editor.as_ref(), node);
        let file = self
            .opts
            .instances
            .instance_file(e.get("file").unwrap_or_default());
        if !self.report.instances.contains(&file) {
            self.report.instances.push(file);
        }
        self.report.prefabs += 1;
    }

    /// Overlays name the sides they lie on by VMF side id, which a VMAP does not keep: the
    /// lists are rewritten as `mesh node id:face index` (the VMF side ids come back on the way
    /// back to VMF).
    fn patch_side_lists(&mut self) {
        for (node, key, value) in std::mem::take(&mut self.side_lists) {
            let faces: Vec<&str> = value
                .split_whitespace()
                .filter_map(|id| self.side_faces.get(&id.parse::<i64>().ok()?).map(String::as_str))
                .collect();
            self.w.set_key(node, &key, &faces.join(" "));
        }
    }

    fn solids(&mut self, parent: u32, e: &Entity) -> Result<(), MapconvError> {
        for s in &e.solids {
            self.report.solids += 1;
            match brush_mesh(s) {
                Ok(mesh) if s.sides.iter().any(|side| side.dispinfo.is_some()) => {
                    self.displacements(parent, e, s, &mesh)?
                }
                Ok(mesh) => self.culled_solid(parent, e, s, &mesh)?,
                Err(error) => self
                    .report
                    .warnings
                    .push(Warning::brush(e, s.id, error.to_string())),
            }
        }
        Ok(())
    }

    /// A brush without the faces culling leaves out (none left: no mesh).
    fn culled_solid(
        &mut self,
        parent: u32,
        e: &Entity,
        s: &Solid,
        mesh: &BrushMesh,
    ) -> Result<(), MapconvError> {
        let culled = &self.opts.culled_sides;
        if culled.is_empty() {
            return self.solid(parent, e, s, mesh);
        }
        let kept = mesh.with_faces(|f| !culled.contains(&s.sides[f.side].id));
        self.report.culled_faces += mesh.faces.len() - kept.faces.len();
        if kept.faces.is_empty() {
            self.report.culled_brushes += 1;
            return Ok(());
        }
        self.solid(parent, e, s, &kept)
    }

    fn solid(&mut self, parent: u32, e: &Entity, s: &Solid, mesh: &BrushMesh) -> Result<(), MapconvError> {
        let origin = mesh.center().round();
        let source = self.mesh_source(s, mesh, origin);
        let groups = smoothing_by_edge(s, mesh);
        let flags = |a: u32, b: u32| match groups.get(&(a.min(b), a.max(b))) {
            Some(&(x, y)) if x & y != 0 => 1,
            _ => 2,
        };
        if let Some(node) = self.add_mesh(parent, e, s, origin, &source, flags)? {
            let sides = CarriedSide::to_text(s, mesh);
            self.w.set_string(node, CarriedSide::ATTRIBUTE, &sides);
        }
        Ok(())
    }

    fn add_mesh(
        &mut self,
        parent: u32,
        e: &Entity,
        s: &Solid,
        origin: DVec3,
        source: &MeshSource,
        flags: impl Fn(u32, u32) -> i32,
    ) -> Result<Option<u32>, MapconvError> {
        let at = Placement {
            origin: origin.as_vec3().to_array(),
            ..Placement::default()
        };
        let node = match self.w.add_mesh(parent, node_id(s.id), &at, source, flags) {
            Ok(node) => node,
            Err(error) => {
                let message = format!("its faces do not form a 2-manifold mesh ({error}); left out");
                self.report.warnings.push(Warning::brush(e, s.id, message));
                return Ok(None);
            }
        };
        if s.hidden {
            self.w.hide(node);
        }
        self.join_visgroups(s.editor.as_ref(), node);
        self.report.meshes += 1;
        self.report.faces += source.faces.len();
        Ok(Some(node))
    }

    /// A displacement brush: one grid mesh per displacement side (the other sides dropped, as
    /// vbsp drops them), every grid edge soft.
    fn displacements(
        &mut self,
        parent: u32,
        e: &Entity,
        s: &Solid,
        mesh: &BrushMesh,
    ) -> Result<(), MapconvError> {
        for face in &mesh.faces {
            let side = &s.sides[face.side];
            let Some(d) = side.dispinfo.as_deref() else {
                continue;
            };
            let cw: Vec<DVec3> = face
                .corners
                .iter()
                .rev()
                .map(|&c| mesh.vertices[c as usize])
                .collect();
            let Some(grid) = disp::grid(&cw, face.normal, d) else {
                let message = format!(
                    "side {}: the displacement is not on a 4-sided face; left out",
                    side.id
                );
                self.report.warnings.push(Warning::brush(e, s.id, message));
                continue;
            };
            let origin =
                (grid.displaced.iter().copied().sum::<DVec3>() / grid.displaced.len() as f64).round();
            self.side_faces.insert(side.id, format!("{}:0", node_id(s.id)));
            let source = self.grid_source(side, d, &grid, origin);
            self.report.displacements += 1;
            if let Some(node) = self.add_mesh(parent, e, s, origin, &source, |_, _| 1)? {
                let carried = disp::Carried::new(&grid, s, face.side);
                self.w
                    .set_string(node, disp::Carried::ATTRIBUTE, &carried.to_text());
            }
        }
        Ok(())
    }

    /// A displacement grid as mesh data: texture projected from the flat grid (as the engine
    /// maps a displacement), alpha as blend paint.
    fn grid_source(
        &mut self,
        side: &srcmap_vmf::Side,
        d: &srcmap_vmf::DispInfo,
        grid: &disp::Grid,
        origin: DVec3,
    ) -> MeshSource {
        let quads = disp::quads(grid.n);
        let normals = disp::vertex_normals(&grid.displaced, &quads);
        let size = self.texture_size(&side.material);
        let material = vmat_path(&side.material);
        let at = |q: &[u32], of: &[DVec3]| q.iter().map(|&v| of[v as usize]).collect::<Vec<_>>();
        let alpha = |v: u32| {
            [
                d.alphas.get(v as usize).copied().unwrap_or(0.0) / 255.0,
                0.0,
                0.0,
                0.0,
            ]
        };
        let faces: Vec<FaceSource> = quads
            .into_iter()
            .map(|q| {
                let mut face =
                    textured_face(side, q.clone(), 0, &at(&q, &grid.flat), &at(&q, &normals), size);
                face.blend = Some(q.iter().map(|&v| alpha(v)).collect());
                face
            })
            .collect();
        self.report.displacement_area += faces
            .iter()
            .map(|f| crate::brush::newell(&at(&f.vertices, &grid.displaced)).length() * 0.5)
            .sum::<f64>();
        self.references.push(material.clone());
        MeshSource {
            positions: grid
                .displaced
                .iter()
                .map(|&p| (p - origin).as_vec3().to_array())
                .collect(),
            faces,
            materials: vec![material],
        }
    }

    /// Mesh-local positions (relative to `origin`), faces with their texture data.
    fn mesh_source(&mut self, s: &Solid, mesh: &BrushMesh, origin: DVec3) -> MeshSource {
        let positions: Vec<[f32; 3]> = mesh
            .vertices
            .iter()
            .map(|&p| (p - origin).as_vec3().to_array())
            .collect();
        // The world positions a reader will compute from what is stored.
        let stored: Vec<DVec3> = positions
            .iter()
            .map(|&p| DVec3::from_array(p.map(f64::from)) + origin)
            .collect();
        let normals = corner_normals(s, mesh);
        let mut source = MeshSource {
            positions,
            ..MeshSource::default()
        };
        for (f, face) in mesh.faces.iter().enumerate() {
            let side = &s.sides[face.side];
            self.side_faces.insert(side.id, format!("{}:{f}", node_id(s.id)));
            let material = material_index(&mut source.materials, &vmat_path(&side.material));
            let name = source.materials[material as usize].clone();
            *self.report.area.entry(name).or_default() += mesh.face_area(f);
            let points: Vec<DVec3> = face.corners.iter().map(|&c| stored[c as usize]).collect();
            let size = self.texture_size(&side.material);
            source.faces.push(textured_face(
                side,
                face.corners.clone(),
                material,
                &points,
                &normals[f],
                size,
            ));
        }
        self.references.extend(source.materials.iter().cloned());
        source
    }

    fn texture_size(&self, material: &str) -> [f64; 2] {
        let key = material.to_ascii_lowercase();
        self.opts
            .texture_sizes
            .get(&key)
            .copied()
            .unwrap_or(DEFAULT_TEXTURE_SIZE)
    }
}

/// A face with `side`'s texture: texcoords from `uv_points` and tangents from `normals`, one
/// of each per corner.
fn textured_face(
    side: &srcmap_vmf::Side,
    vertices: Vec<u32>,
    material: u32,
    uv_points: &[DVec3],
    normals: &[DVec3],
    size: [f64; 2],
) -> FaceSource {
    let proj = Projection {
        u: side.uaxis,
        v: side.vaxis,
    };
    FaceSource {
        vertices,
        material,
        axis_u: axis4(&side.uaxis),
        axis_v: axis4(&side.vaxis),
        scale: [side.uaxis.scale as f32, side.vaxis.scale as f32],
        texcoords: proj.face_texcoords(uv_points, size),
        normals: normals.iter().map(|n| n.as_vec3().to_array()).collect(),
        tangents: normals
            .iter()
            .map(|&n| proj.tangent(n).map(|x| x as f32))
            .collect(),
        blend: None,
    }
}

/// A node id above every VMF id (for the nodes a VMF has no id for: cordons).
fn next_node_id(vmf: &Vmf) -> i32 {
    let ids = vmf
        .all_entities()
        .flat_map(|e| std::iter::once(e.id).chain(e.solids.iter().map(|s| s.id)));
    node_id(ids.max().unwrap_or(0) + 1)
}

/// A VMF id as a node id (ids beyond `i32` wrap; they only need to be unique in practice).
fn node_id(id: i64) -> i32 {
    id as i32
}

fn axis4(a: &srcmap_vmf::TextureAxis) -> [f32; 4] {
    [
        a.axis[0] as f32,
        a.axis[1] as f32,
        a.axis[2] as f32,
        a.shift as f32,
    ]
}

fn material_index(materials: &mut Vec<String>, path: &str) -> u32 {
    match materials.iter().position(|m| m == path) {
        Some(i) => i as u32,
        None => {
            materials.push(path.to_string());
            (materials.len() - 1) as u32
        }
    }
}

/// Each undirected edge's two faces' smoothing groups (one face's twice on an open edge).
fn smoothing_by_edge(s: &Solid, mesh: &BrushMesh) -> HashMap<(u32, u32), (u32, u32)> {
    let mut out: HashMap<(u32, u32), (u32, u32)> = HashMap::new();
    for face in &mesh.faces {
        let g = s.sides[face.side].smoothing_groups;
        let n = face.corners.len();
        for i in 0..n {
            let (a, b) = (face.corners[i], face.corners[(i + 1) % n]);
            out.entry((a.min(b), a.max(b)))
                .and_modify(|e| e.1 = g)
                .or_insert((g, g));
        }
    }
    out
}

/// Per face, per corner: the face normal, or the average of the normals of the faces at that
/// vertex that share a smoothing group with it.
fn corner_normals(s: &Solid, mesh: &BrushMesh) -> Vec<Vec<DVec3>> {
    let group = |f: usize| s.sides[mesh.faces[f].side].smoothing_groups;
    let mut at_vertex: HashMap<u32, Vec<usize>> = HashMap::new();
    for (f, face) in mesh.faces.iter().enumerate() {
        for &c in &face.corners {
            at_vertex.entry(c).or_default().push(f);
        }
    }
    let corner = |f: usize, c: u32| {
        let sum: DVec3 = at_vertex[&c]
            .iter()
            .filter(|&&g| g == f || group(g) & group(f) != 0)
            .map(|&g| mesh.faces[g].normal)
            .sum();
        sum.normalize_or(mesh.faces[f].normal)
    };
    (0..mesh.faces.len())
        .map(|f| mesh.faces[f].corners.iter().map(|&c| corner(f, c)).collect())
        .collect()
}
