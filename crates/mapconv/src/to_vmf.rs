//! VMAP → VMF (vmap.md §5): meshes to convex brushes through [`solidify`], entities back with
//! their outputs. Meshes directly or indirectly under the world (groups, layers) become world
//! solids; meshes under a `CMapEntity` become that entity's solids.

use std::collections::{BTreeMap, HashMap};

use srcmap_dmx::Value;
use srcmap_geom::{DVec3, Plane, Winding, angle_matrix, polyhedron_faces};
use srcmap_vmap::{Entity, PolygonMesh, Vmap};
use srcmap_vmf::DispInfo;

use crate::carried_sides::CarriedSide;
use crate::disp;
use crate::entities::{editor_keys, format_vec3, vmf_keys, vmf_output};
use crate::groups::{read_cordons, read_visgroups};
use crate::instances::{InstancePaths, instance_entity, outputs};
use crate::solidify::{EPS, Piece, Polygon, area_inside, pieces};
use crate::texture::vmt_name;
use crate::vmf_text::{DEFAULT_LIGHTMAP_SCALE, OutEntity, OutSide, OutSolid, VmfText};
use crate::{MapconvError, Warning};

/// Faces with a corner farther out (or not a number) are left out: no Source map reaches there.
const MAX_COORD: f64 = 1e6;

/// Material of the faces a cut makes inside a mesh.
pub const CUT_MATERIAL: &str = "TOOLS/TOOLSNODRAW";

/// What became of one mesh.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct MeshReport {
    /// The `CMapMesh` element.
    pub element: u32,
    pub faces: usize,
    /// Faces that became exactly one brush side, whole.
    pub faces_unsplit: usize,
    pub brushes: usize,
    /// Some piece reached past the mesh: it is not closed.
    pub open: bool,
}

/// What a VMAP → VMF conversion did.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct ToVmfReport {
    pub meshes: Vec<MeshReport>,
    pub entities: usize,
    /// Face area per material in the VMAP (VMT names).
    pub area_vmap: BTreeMap<String, f64>,
    /// Brush-side area per material in the VMF, cut faces left out.
    pub area_vmf: BTreeMap<String, f64>,
    /// Area of the sides the cuts made (textured [`CUT_MATERIAL`]).
    pub cut_area: f64,
    /// The prefabs' maps (each once), written back as `func_instance`s.
    pub prefabs: Vec<PrefabFile>,
    pub warnings: Vec<Warning>,
}

impl ToVmfReport {
    pub fn faces(&self) -> usize {
        self.meshes.iter().map(|m| m.faces).sum()
    }
    pub fn faces_unsplit(&self) -> usize {
        self.meshes.iter().map(|m| m.faces_unsplit).sum()
    }
    pub fn brushes(&self) -> usize {
        self.meshes.iter().map(|m| m.brushes).sum()
    }
}

/// How to convert a VMAP.
#[derive(Debug, Clone, Default)]
pub struct ToVmfOptions {
    /// Where prefab targets and instance files are relative to.
    pub instances: InstancePaths,
}

/// A prefab's map: the target as the VMAP names it, and the instance file written for it
/// (relative to the outermost map's folder).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PrefabFile {
    pub target: String,
    pub file: String,
}

/// Converts a VMAP to VMF text (instance paths as if the map lay under no `maps` folder).
pub fn vmap_to_vmf(vmap: &Vmap) -> Result<(String, ToVmfReport), MapconvError> {
    vmap_to_vmf_with(vmap, &ToVmfOptions::default())
}

/// Converts a VMAP to VMF text.
pub fn vmap_to_vmf_with(vmap: &Vmap, opts: &ToVmfOptions) -> Result<(String, ToVmfReport), MapconvError> {
    let mut report = ToVmfReport::default();
    let world_element = vmap.world().ok_or_else(|| MapconvError::Element {
        element: 0,
        class: vmap.root().class.clone(),
        message: "has no world".into(),
    })?;
    let mut ids = IdAllocator::default();
    let mut out: Vec<(u32, OutEntity)> = (vmap.entities().iter())
        .map(|e| (e.node.element, out_entity(vmap, e, &mut ids)))
        .collect();
    out.extend(prefab_instances(vmap, opts, &mut ids, &mut report));
    report.entities = out.len().saturating_sub(1);
    unknown_nodes(vmap, &mut report.warnings);
    let (visgroups, member_of) = read_visgroups(vmap);
    for (el, e) in out.iter_mut() {
        let ids = member_of.get(el).into_iter().flatten();
        e.editor
            .extend(ids.map(|id| ("visgroupid".to_string(), id.to_string())));
    }
    attach_solids(vmap, world_element, &member_of, &mut out, &mut report)?;
    number_sides(&mut out);
    let mut text = VmfText::new(ids.next, &visgroups);
    for (el, e) in &out {
        text.entity(if *el == world_element { "world" } else { "entity" }, e);
    }
    let (cordoning, cordons) = read_cordons(vmap);
    text.cordons(cordoning, &cordons);
    Ok((text.finish(), report))
}

/// The prefabs as `func_instance`s; each prefab map is listed once in the report.
fn prefab_instances(
    vmap: &Vmap,
    opts: &ToVmfOptions,
    ids: &mut IdAllocator,
    report: &mut ToVmfReport,
) -> Vec<(u32, OutEntity)> {
    let mut out = Vec::new();
    for p in vmap.prefab_entities() {
        let mut e = instance_entity(&p, &opts.instances, outputs(&p.connections()));
        e.id = ids.id(p.element().get("nodeID").and_then(Value::as_int));
        e.hidden = force_hidden(vmap, p.node.element);
        let target = p.element().get("targetMapPath").and_then(Value::to_text);
        if let Some(target) = target.filter(|t| !report.prefabs.iter().any(|p| &p.target == t)) {
            let file = opts.instances.instance_file(&opts.instances.file(&target));
            report.prefabs.push(PrefabFile { target, file });
        }
        out.push((p.node.element, e));
    }
    out
}

/// Each mesh's brushes to the entity it belongs to (the world when that is no entity
/// written), in its visgroups.
fn attach_solids(
    vmap: &Vmap,
    world_element: u32,
    member_of: &HashMap<u32, Vec<i64>>,
    out: &mut [(u32, OutEntity)],
    report: &mut ToVmfReport,
) -> Result<(), MapconvError> {
    let index: HashMap<u32, usize> = out.iter().enumerate().map(|(i, (el, _))| (*el, i)).collect();
    for (mesh_node, owner) in mesh_owners(vmap) {
        let visgroups = member_of.get(&mesh_node).cloned().unwrap_or_default();
        let solids = mesh_solids(vmap, mesh_node, report)?
            .into_iter()
            .map(|sides| OutSolid {
                sides,
                visgroups: visgroups.clone(),
                hidden: force_hidden(vmap, mesh_node),
            });
        let at = index.get(&owner).or(index.get(&world_element));
        if let Some(&i) = at {
            out[i].1.solids.extend(solids);
        }
    }
    Ok(())
}

/// Numbers every side in writing order and rewrites overlays' `mesh node id:face index` lists
/// (see `to_vmap`) as the ids of the sides those faces became.
fn number_sides(out: &mut [(u32, OutEntity)]) {
    let mut by_face: HashMap<String, i64> = HashMap::new();
    for (id, side) in (1..).zip(
        out.iter_mut()
            .flat_map(|(_, e)| e.solids.iter_mut().flat_map(|s| &mut s.sides)),
    ) {
        side.id = id;
        if let Some(face) = side.face.take() {
            by_face.entry(face).or_insert(side.id);
        }
    }
    for (_, e) in out.iter_mut() {
        for (k, v) in e.keys.iter_mut() {
            if crate::to_vmap::SIDE_LIST_KEYS.contains(&k.to_ascii_lowercase().as_str()) && v.contains(':') {
                let ids: Vec<String> = v
                    .split_whitespace()
                    .filter_map(|f| by_face.get(f))
                    .map(i64::to_string)
                    .collect();
                *v = ids.join(" ");
            }
        }
    }
}

/// Entity ids: each node's id when positive and not yet taken, else a fresh one.
#[derive(Default)]
struct IdAllocator {
    taken: std::collections::HashSet<i64>,
    next: i64,
}

impl IdAllocator {
    fn id(&mut self, wanted: Option<i32>) -> i64 {
        let id = match wanted {
            Some(w) if w > 0 && !self.taken.contains(&i64::from(w)) => i64::from(w),
            _ => (self.next.max(1)..)
                .find(|i| !self.taken.contains(i))
                .unwrap_or(i64::MAX),
        };
        self.taken.insert(id);
        self.next = self.next.max(id + 1);
        id
    }
}

/// Whether a node is hidden in the editor (`force_hidden`).
fn force_hidden(vmap: &Vmap, node: u32) -> bool {
    (vmap.element(node).and_then(|e| e.get("force_hidden"))).is_some_and(|v| v.as_bool() == Some(true))
}

fn out_entity(vmap: &Vmap, e: &Entity<'_>, ids: &mut IdAllocator) -> OutEntity {
    let props = e.key_values();
    let mut keys = vmf_keys(&props);
    let (origin, angles, _) = e.transform();
    if e.element().class != "CMapWorld" {
        keys.push(("origin".into(), format_vec3(origin)));
        keys.push(("angles".into(), format_vec3(angles)));
    }
    let outputs = e
        .connections()
        .iter()
        .map(|c| (c.output.clone(), vmf_output(c)))
        .collect();
    OutEntity {
        id: ids.id(e.element().get("nodeID").and_then(Value::as_int)),
        keys,
        outputs,
        editor: editor_keys(&props),
        solids: Vec::new(),
        hidden: e.element().class != "CMapWorld" && force_hidden(vmap, e.node.element),
    }
}

/// Node classes that carry nothing a VMF holds (or hold the nodes that do).
const PASSED_NODES: [&str; 9] = [
    "CMapWorld",
    "CMapCordon",
    "CMapEntity",
    "CMapMesh",
    "CMapPrefab",
    "CMapGroup",
    "CMapWorldLayer",
    "CMapSelectionSet",
    "CMapVariableSet",
];

/// A warning for each node of a class not converted (paths, cables, overlays, tiles, …).
fn unknown_nodes(vmap: &Vmap, warnings: &mut Vec<Warning>) {
    for n in vmap.nodes() {
        let class = vmap.element(n.element).map_or("", |e| e.class.as_str());
        if !PASSED_NODES.contains(&class) {
            warnings.push(Warning::element(
                n.element,
                class,
                "not converted (no VMF counterpart)".into(),
            ));
        }
    }
}

/// Each `CMapMesh` node with the entity (or world) it belongs to: its nearest entity ancestor.
fn mesh_owners(vmap: &Vmap) -> Vec<(u32, u32)> {
    let nodes = vmap.nodes();
    let parent: HashMap<u32, Option<u32>> = nodes.iter().map(|n| (n.element, n.parent)).collect();
    let is_entity = |e: u32| {
        vmap.element(e)
            .is_some_and(|x| srcmap_vmap::ENTITY_CLASSES.contains(&x.class.as_str()))
    };
    vmap.meshes()
        .into_iter()
        .map(|(n, _)| {
            let mut up = n.parent;
            while let Some(p) = up.filter(|&p| !is_entity(p)) {
                up = parent.get(&p).copied().flatten();
            }
            (n.element, up.unwrap_or(0))
        })
        .collect()
}

/// One mesh's brushes; a mesh that is not a valid half-edge mesh is left out with a warning.
fn mesh_solids(vmap: &Vmap, node: u32, report: &mut ToVmfReport) -> Result<Vec<Vec<OutSide>>, MapconvError> {
    let Some(mesh) = checked_mesh(vmap, node, report)? else {
        return Ok(Vec::new());
    };
    let mesh_id = vmap
        .element(node)
        .and_then(|e| e.get("nodeID"))
        .and_then(Value::as_int)
        .unwrap_or(-1);
    let positions = world_positions(vmap, node, &mesh);
    let faces = world_faces(&mesh, &positions);
    for f in &faces {
        *report.area_vmap.entry(f.material.clone()).or_default() += f.area();
    }
    let mut line = MeshReport {
        element: node,
        faces: faces.len(),
        ..MeshReport::default()
    };
    let carried = node_text(vmap, node, disp::Carried::ATTRIBUTE).and_then(disp::Carried::parse);
    let solids = match displacement(&mesh, &positions, &faces, mesh_id, carried.as_ref()) {
        Some(side) => {
            *report.area_vmf.entry(faces[0].material.clone()).or_default() +=
                faces.iter().map(Face::area).sum::<f64>();
            line.faces_unsplit = faces.len();
            vec![side]
        }
        None => {
            let sides =
                node_text(vmap, node, CarriedSide::ATTRIBUTE).map_or_else(Vec::new, CarriedSide::parse);
            brushes_of(
                &mesh,
                &mut Brushes::new(&faces, mesh_id, sides),
                &mut line,
                report,
            )
        }
    };
    line.brushes = solids.len();
    report.meshes.push(line);
    Ok(solids)
}

/// A mesh node's polygon mesh; none when it has none or it is not a valid half-edge mesh
/// (warned).
fn checked_mesh(
    vmap: &Vmap,
    node: u32,
    report: &mut ToVmfReport,
) -> Result<Option<PolygonMesh>, MapconvError> {
    let Some(Value::Element(srcmap_dmx::ElemRef::Local(data))) =
        vmap.element(node).and_then(|e| e.get("meshData"))
    else {
        return Ok(None);
    };
    let mesh = vmap.polygon_mesh(*data)?;
    if let Err(errors) = mesh.check() {
        let message = format!("not a valid half-edge mesh: {}", errors[0]);
        report.warnings.push(Warning::element(node, "CMapMesh", message));
        return Ok(None);
    }
    Ok(Some(mesh))
}

/// A string attribute of a node.
fn node_text<'v>(vmap: &'v Vmap, node: u32, name: &str) -> Option<&'v str> {
    vmap.element(node)?.get(name)?.as_str()
}

/// A mesh's brushes: cut into convex pieces when closed, slabs when open.
fn brushes_of(
    mesh: &PolygonMesh,
    brushes: &mut Brushes<'_>,
    line: &mut MeshReport,
    report: &mut ToVmfReport,
) -> Vec<Vec<OutSide>> {
    let faces = brushes.faces;
    line.open = mesh.edge_face.iter().any(|&f| f < 0);
    let pieces: Vec<Piece> = if line.open {
        slabs(faces, &(0..faces.len()).collect::<Vec<_>>())
    } else {
        components(mesh)
            .iter()
            .flat_map(|part| part_pieces(faces, part))
            .collect()
    };
    let pieces: Vec<Piece> = (pieces.into_iter())
        .flat_map(|p| brushes.refined(p, MAX_REFINE))
        .collect();
    let solids = pieces.iter().map(|p| brushes.sides(p, report)).collect();
    line.faces_unsplit = brushes.unsplit();
    solids
}

/// How many times deep a piece is cut so that its sides show faces whole.
const MAX_REFINE: usize = 12;

/// A cut that leaves a side smaller than this (a sliver vbsp cannot build) is not made.
const MIN_CUT_SIDE_AREA: f64 = 0.1;

/// How far behind a face its slab reaches.
const PRISM_DEPTH: f64 = 4.0;
/// Non-convex parts with more faces than this become slabs: cutting a big surface (terrain) by
/// its own planes splits most faces and takes long.
const MAX_CUT_FACES: usize = 64;

/// A closed part's pieces: one when convex, its cut when small, else a slab per face.
fn part_pieces(faces: &[Face], part: &[usize]) -> Vec<Piece> {
    let polygons: Vec<Polygon> = part.iter().flat_map(|&f| faces[f].polygons()).collect();
    if part.len() <= MAX_CUT_FACES || crate::solidify::is_convex(&polygons) {
        pieces(polygons)
    } else {
        slabs(faces, part)
    }
}

/// Each face's slab: a surface bounds no solid when open, and big non-convex ones are not cut.
fn slabs(faces: &[Face], part: &[usize]) -> Vec<Piece> {
    let polygons: Vec<Polygon> = part.iter().flat_map(|&f| faces[f].polygons()).collect();
    let bisectors = edge_bisectors(&polygons);
    polygons
        .iter()
        .flat_map(|p| {
            let slab = match mitered_slab(p, &bisectors) {
                Some(piece) => vec![piece],
                None => pieces(prism(p, PRISM_DEPTH)),
            };
            slab.into_iter().map(|piece| Piece {
                front: Some(p.plane),
                ..piece
            })
        })
        .collect()
}

/// An edge by its end points (rounded to 0.001), either way round.
fn edge_key(a: DVec3, b: DVec3) -> [i64; 6] {
    let q = |p: DVec3| (p * 1000.0).round().as_i64vec3().to_array();
    let (a, b) = (q(a), q(b));
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    [lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]]
}

/// Per edge, the sum of the normals of the faces along it: the direction both slabs' walls on
/// that edge follow, so neighbouring slabs meet in one plane.
fn edge_bisectors(polygons: &[Polygon]) -> HashMap<[i64; 6], DVec3> {
    let mut out: HashMap<[i64; 6], DVec3> = HashMap::new();
    for p in polygons {
        let w = &p.winding.points;
        for i in 0..w.len() {
            *out.entry(edge_key(w[i], w[(i + 1) % w.len()])).or_default() += p.plane.normal;
        }
    }
    out
}

/// A convex face's slab as one piece: the face, its back `PRISM_DEPTH` behind, and a wall per
/// edge along the edge's bisector; `None` for a face that is not convex.
fn mitered_slab(face: &Polygon, bisectors: &HashMap<[i64; 6], DVec3>) -> Option<Piece> {
    let w = &face.winding.points;
    let n = face.plane.normal;
    let center = face.winding.center() - n * (PRISM_DEPTH / 2.0);
    let mut planes = vec![face.plane, Plane::new(-n, -face.plane.dist + PRISM_DEPTH)];
    for i in 0..w.len() {
        let (a, b) = (w[i], w[(i + 1) % w.len()]);
        let m = bisectors
            .get(&edge_key(a, b))
            .copied()
            .unwrap_or(n)
            .normalize_or(n);
        let mut normal = (b - a)
            .cross(if m.dot(n) > 0.1 { m } else { n })
            .normalize_or_zero();
        if normal.dot(center - a) > 0.0 {
            normal = -normal;
        }
        planes.push(Plane::new(normal, normal.dot(a)));
    }
    let convex = planes[2..]
        .iter()
        .all(|p| w.iter().all(|&v| p.distance(v) <= EPS));
    let faces = polyhedron_faces(&planes);
    (convex && faces[0].is_some() && faces.iter().flatten().count() >= 4)
        .then_some(Piece { planes, front: None })
}

/// The closed prism swept from a face `depth` units behind it: the face, its back, and a wall
/// per edge (each wound clockwise from outside).
fn prism(face: &Polygon, depth: f64) -> Vec<Polygon> {
    let n = face.plane.normal;
    let front = &face.winding.points;
    let back: Vec<DVec3> = front.iter().map(|&p| p - n * depth).collect();
    let center = (front.iter().sum::<DVec3>() + back.iter().sum::<DVec3>()) / (2 * front.len()) as f64;
    let mut out = vec![face.clone()];
    let mut walls = vec![Winding::new(back.iter().rev().copied().collect())];
    for i in 0..front.len() {
        let j = (i + 1) % front.len();
        walls.push(Winding::new(vec![front[i], back[i], back[j], front[j]]));
    }
    for mut w in walls {
        let Some(mut plane) = w.plane() else { continue };
        if plane.distance(center) > 0.0 {
            w = w.reversed();
            plane = plane.flipped();
        }
        out.push(Polygon { winding: w, plane });
    }
    out
}

/// The mesh's faces grouped into connected parts (faces sharing a vertex), each cut apart alone.
fn components(mesh: &PolygonMesh) -> Vec<Vec<usize>> {
    let mut parent: Vec<usize> = (0..mesh.vertex_count()).collect();
    fn find(parent: &mut [usize], mut v: usize) -> usize {
        while parent[v] != v {
            parent[v] = parent[parent[v]];
            v = parent[v];
        }
        v
    }
    let corners: Vec<Vec<usize>> = (0..mesh.face_count())
        .map(|f| mesh.face_corners(f).iter().map(|c| c.vertex as usize).collect())
        .collect();
    for c in &corners {
        for w in c.windows(2) {
            let (a, b) = (find(&mut parent, w[0]), find(&mut parent, w[1]));
            parent[a] = b;
        }
    }
    let mut parts: HashMap<usize, Vec<usize>> = HashMap::new();
    for (f, c) in corners.iter().enumerate() {
        if let Some(&v) = c.first() {
            parts.entry(find(&mut parent, v)).or_default().push(f);
        }
    }
    let mut parts: Vec<Vec<usize>> = parts.into_values().collect();
    parts.sort_unstable();
    parts
}

/// A mesh face in world space with its texture data.
struct Face {
    /// Corners clockwise seen from outside.
    points: Vec<DVec3>,
    material: String,
    uaxis: ([f64; 4], f64),
    vaxis: ([f64; 4], f64),
}

impl Face {
    fn area(&self) -> f64 {
        crate::brush::newell(&self.points).length() * 0.5
    }

    /// The face as planar polygons: itself, or a fan of triangles when it is not flat.
    fn polygons(&self) -> Vec<Polygon> {
        if !self.points.iter().all(|p| p.abs().max_element() <= MAX_COORD) {
            return Vec::new();
        }
        let whole = Winding::new(self.points.clone());
        let Some(plane) = whole.plane() else {
            return Vec::new();
        };
        if self.points.iter().all(|&p| plane.distance(p).abs() <= EPS) {
            return vec![Polygon {
                winding: whole,
                plane,
            }];
        }
        (1..self.points.len() - 1)
            .filter_map(|i| {
                let w = Winding::new(vec![self.points[0], self.points[i], self.points[i + 1]]);
                Some(Polygon {
                    plane: w.plane()?,
                    winding: w,
                })
            })
            .collect()
    }
}

/// A mesh that is a displacement grid as one brush: its base quad's side carries the
/// displacement, the other five are nodraw. What the VMF → VMAP conversion carried on the
/// mesh (`carried`) gives the original brush, base quad, tags and flags back when the grid's
/// corners are still where they were.
fn displacement(
    mesh: &PolygonMesh,
    positions: &[DVec3],
    faces: &[Face],
    mesh_id: i32,
    carried: Option<&disp::Carried>,
) -> Option<Vec<OutSide>> {
    let (power, order) = disp::grid_order(mesh)?;
    let n = (1usize << power) + 1;
    let alphas = vertex_alphas(mesh);
    let layout = match carried.and_then(|c| Some((c, c.orient(&order, positions, n)?))) {
        Some((c, order)) => DispLayout::carried(c, &grid_values(&order, positions, &alphas), n, power),
        None => DispLayout::fresh(&grid_values(&order, positions, &alphas), faces, n, power),
    };
    let mut sides = layout.sides()?;
    let side = &mut sides[layout.displaced];
    side.material = faces[0].material.clone();
    (side.uaxis, side.vaxis) = (faces[0].uaxis, faces[0].vaxis);
    side.disp = Some(Box::new(layout.info));
    side.lightmap_scale = layout.lightmap_scale;
    side.face = Some(format!("{mesh_id}:0"));
    Some(sides)
}

/// A displacement and the brush it is written on.
struct DispLayout {
    /// Clockwise from the front, start corner first.
    base: [DVec3; 4],
    info: DispInfo,
    lightmap_scale: f64,
    /// The brush: its planes, and their points when carried (written exactly).
    planes: Vec<Plane>,
    points: Option<Vec<[[f64; 3]; 3]>>,
    displaced: usize,
}

impl DispLayout {
    /// Over the carried base and brush; the grid's positions and alphas `(p, alphas)` in the
    /// carried orientation.
    fn carried(c: &disp::Carried, (p, alphas): &(Vec<DVec3>, Vec<f32>), n: usize, power: u32) -> DispLayout {
        let mut info = c.dispinfo(p, alphas, n, power);
        // Tags may be left out (vbsp reads none as zero); a wrong count is rebuilt.
        let tags = info.triangle_tags.len();
        if (tags != 0 && tags != 2 * (n - 1) * (n - 1)) || info.allowed_verts.len() != 10 {
            let slope = disp::dispinfo(p, alphas, n, power, -crate::brush::newell(&c.base)).1;
            (info.triangle_tags, info.allowed_verts) = (slope.triangle_tags, slope.allowed_verts);
        }
        let mut layout = DispLayout {
            base: c.base,
            info,
            lightmap_scale: c.lightmap_scale,
            planes: Vec::new(),
            points: None,
            displaced: 0,
        };
        match carried_brush(c) {
            Some(planes) => {
                (layout.planes, layout.points, layout.displaced) =
                    (planes, Some(c.planes.clone()), c.displaced_side)
            }
            None => layout.planes = disp::brush_planes(&c.base, layout.front()),
        }
        layout
    }

    /// Over the grid's own corners, facing the way the mesh's faces do.
    fn fresh((p, alphas): &(Vec<DVec3>, Vec<f32>), faces: &[Face], n: usize, power: u32) -> DispLayout {
        let (base, info) = disp::dispinfo(p, alphas, n, power, mesh_front(faces));
        let mut layout = DispLayout {
            base,
            info,
            lightmap_scale: DEFAULT_LIGHTMAP_SCALE,
            planes: Vec::new(),
            points: None,
            displaced: 0,
        };
        layout.planes = disp::brush_planes(&base, layout.front());
        layout
    }

    fn front(&self) -> DVec3 {
        -crate::brush::newell(&self.base).normalize_or_zero()
    }

    /// The brush's sides, tool-textured; `None` when the displaced side has no face.
    fn sides(&self) -> Option<Vec<OutSide>> {
        let windings = polyhedron_faces(&self.planes);
        windings.get(self.displaced)?.as_ref()?;
        let mut sides = Vec::new();
        for (i, w) in windings.iter().enumerate() {
            // A carried side keeps its points, even one that only touches the brush.
            let at = match &self.points {
                Some(points) => points[i],
                None => plane_points(w.as_ref()?),
            };
            let mut side = tool_side(at, &self.planes[i]);
            side.exact_points = self.points.is_some();
            sides.push(side);
        }
        Some(sides)
    }
}

/// The source brush's planes, from its carried plane points; `None` when they do not make a
/// brush with the displaced side.
fn carried_brush(c: &disp::Carried) -> Option<Vec<Plane>> {
    let planes: Option<Vec<Plane>> = c
        .planes
        .iter()
        .map(|p| {
            let [a, b, q] = p.map(DVec3::from_array);
            Plane::from_points(a, b, q)
        })
        .collect();
    planes.filter(|p| c.displaced_side < p.len() && p.len() >= 4)
}

/// The direction a grid mesh faces: the mean of its faces' (counter-clockwise) normals.
fn mesh_front(faces: &[Face]) -> DVec3 {
    faces
        .iter()
        .map(|f| -crate::brush::newell(&f.points))
        .sum::<DVec3>()
        .normalize_or_zero()
}

/// Positions and alphas in grid `order`.
fn grid_values(order: &[u32], positions: &[DVec3], alphas: &[f32]) -> (Vec<DVec3>, Vec<f32>) {
    order
        .iter()
        .map(|&v| (positions[v as usize], alphas[v as usize]))
        .unzip()
}

/// Per vertex, the blend paint's first channel as a VMF alpha (0–255).
fn vertex_alphas(mesh: &PolygonMesh) -> Vec<f32> {
    let mut out = vec![0.0; mesh.vertex_count()];
    for f in 0..mesh.face_count() {
        for c in mesh.face_corners(f) {
            if let Some(Value::Vector4(b)) = mesh.corner_value("VertexPaintBlendParams:0", &c) {
                out[c.vertex as usize] = (b[0] * 255.0).clamp(0.0, 255.0);
            }
        }
    }
    out
}

/// Each vertex in world space: origin + R(angles) · (scales ⊙ local).
fn world_positions(vmap: &Vmap, node: u32, mesh: &PolygonMesh) -> Vec<DVec3> {
    let (origin, angles, scales) = vmap.transform(node);
    let m = angle_matrix(angles.map(f64::from));
    let to_world = |p: [f32; 3]| {
        let s = [0, 1, 2].map(|i| f64::from(p[i]) * f64::from(scales[i]));
        DVec3::from_array(origin.map(f64::from))
            + DVec3::from_array(m[0]) * s[0]
            + DVec3::from_array(m[1]) * s[1]
            + DVec3::from_array(m[2]) * s[2]
    };
    let local = mesh.positions().unwrap_or_default();
    (0..mesh.vertex_count())
        .map(|v| {
            let row = mesh.vertex_data.get(v).and_then(|&r| usize::try_from(r).ok());
            to_world(row.and_then(|r| local.get(r)).copied().unwrap_or_default())
        })
        .collect()
}

/// The mesh's faces in world space.
fn world_faces(mesh: &PolygonMesh, positions: &[DVec3]) -> Vec<Face> {
    (0..mesh.face_count())
        .map(|f| Face {
            points: mesh
                .face_corners(f)
                .iter()
                .rev()
                .map(|c| positions[c.vertex as usize])
                .collect(),
            material: vmt_name(
                mesh.face_material(f)
                    .unwrap_or("materials/dev/dev_measuregeneric01.vmat"),
            ),
            uaxis: face_axis(mesh, f, "textureAxisU:0", 0),
            vaxis: face_axis(mesh, f, "textureAxisV:0", 1),
        })
        .collect()
}

/// A face's texture axis and scale (0.25, Hammer's default, when missing).
fn face_axis(mesh: &PolygonMesh, f: usize, stream: &str, which: usize) -> ([f64; 4], f64) {
    let axis = match mesh.face_value(stream, f) {
        Some(Value::Vector4(a)) => a.map(f64::from),
        _ => [0.0; 4],
    };
    let scale = match mesh.face_value("textureScale:0", f) {
        Some(Value::Vector2(s)) => f64::from(s[which]),
        _ => 0.25,
    };
    (axis, if scale == 0.0 { 0.25 } else { scale })
}

/// Turns pieces into brush sides, each side textured like the mesh face it covers most.
struct Brushes<'a> {
    faces: &'a [Face],
    /// The mesh's node id, naming its faces for overlays (`id:face`).
    mesh_id: i32,
    /// The faces' planar parts (the face itself, or its triangles) with their face.
    parts: Vec<(usize, Polygon)>,
    /// Parts by plane (quantised), for the parts a piece side can lie on.
    by_plane: HashMap<[i64; 4], Vec<usize>>,
    /// Per face: sides that took it, and the face area they cover.
    used: Vec<(usize, f64)>,
    /// Per face: the source side it came from, when the mesh carries them.
    carried: Vec<Option<CarriedSide>>,
}

fn plane_key(p: &Plane) -> [i64; 4] {
    let n = p.normal * 1000.0;
    [
        n.x.round() as i64,
        n.y.round() as i64,
        n.z.round() as i64,
        (p.dist * 10.0).round() as i64,
    ]
}

impl<'a> Brushes<'a> {
    fn new(faces: &'a [Face], mesh_id: i32, carried: Vec<Option<CarriedSide>>) -> Brushes<'a> {
        let parts: Vec<(usize, Polygon)> = faces
            .iter()
            .enumerate()
            .flat_map(|(i, f)| f.polygons().into_iter().map(move |p| (i, p)))
            .collect();
        let mut by_plane: HashMap<[i64; 4], Vec<usize>> = HashMap::new();
        for (k, (_, p)) in parts.iter().enumerate() {
            by_plane.entry(plane_key(&p.plane)).or_default().push(k);
        }
        Brushes {
            faces,
            mesh_id,
            parts,
            by_plane,
            used: vec![(0, 0.0); faces.len()],
            carried,
        }
    }

    fn sides(&mut self, piece: &Piece, report: &mut ToVmfReport) -> Vec<OutSide> {
        let windings = polyhedron_faces(&piece.planes);
        let mut sides = Vec::new();
        for (i, w) in windings.iter().enumerate() {
            let Some(w) = w.as_ref().filter(|w| w.len() >= 3) else {
                continue;
            };
            let shows = piece
                .front
                .is_none_or(|f| plane_key(&f) == plane_key(&piece.planes[i]));
            let covering = if shows {
                self.covering_face(w, &piece.planes, i)
            } else {
                None
            };
            let side = match covering {
                Some(f) => self.face_side(w, &piece.planes[i], f),
                None => cut_side(w, &piece.planes[i]),
            };
            match covering {
                Some(f) => *report.area_vmf.entry(self.faces[f].material.clone()).or_default() += w.area(),
                None => report.cut_area += w.area(),
            }
            sides.push(side);
        }
        sides
    }

    /// `piece` cut (at most `depth` times deep) until no side on a face's plane is covered by
    /// that face in part only: each cut is the plane through an edge of the face's part,
    /// square to the face, so every side either shows a face whole or is a cut. Slabs, whose
    /// one face side is exact, stay whole.
    fn refined(&self, piece: Piece, depth: usize) -> Vec<Piece> {
        if depth == 0 || piece.front.is_some() {
            return vec![piece];
        }
        let windings = polyhedron_faces(&piece.planes);
        for (i, w) in windings.iter().enumerate() {
            let Some(w) = w else { continue };
            for cut in self.partial_cover_cuts(w, &piece.planes, i) {
                let halves = [cut, cut.flipped()].map(|q| {
                    let mut planes = piece.planes.clone();
                    planes.push(q);
                    let faces = polyhedron_faces(&planes);
                    let sound = faces.iter().flatten().all(|f| f.area() >= MIN_CUT_SIDE_AREA);
                    (sound && faces.iter().flatten().count() >= 4).then_some(Piece { planes, front: None })
                });
                if let [Some(a), Some(b)] = halves {
                    let mut out = self.refined(a, depth - 1);
                    out.extend(self.refined(b, depth - 1));
                    return out;
                }
            }
        }
        vec![piece]
    }

    /// For side `i` (winding `w`) of a piece: when a face part on its plane covers it only in
    /// part, the planes through that part's edges, square to it, that cross `w`.
    fn partial_cover_cuts(&self, w: &Winding, planes: &[Plane], i: usize) -> Vec<Plane> {
        let side_area = w.area();
        let candidates = self
            .by_plane
            .get(&plane_key(&planes[i]))
            .map_or(&[][..], Vec::as_slice);
        let partial = candidates.iter().map(|&k| &self.parts[k].1).find(|part| {
            let covered = area_inside(&part.winding, planes, i);
            covered > 0.01 * side_area && covered < 0.999 * side_area
        });
        let Some(part) = partial else { return Vec::new() };
        let p = &part.winding.points;
        (0..p.len())
            .filter_map(|e| {
                let (a, b) = (p[e], p[(e + 1) % p.len()]);
                let normal = (b - a).cross(part.plane.normal).try_normalize()?;
                let cut = Plane::new(normal, normal.dot(a));
                let crosses = w.points.iter().any(|&q| cut.distance(q) > EPS)
                    && w.points.iter().any(|&q| cut.distance(q) < -EPS);
                crosses.then_some(cut)
            })
            .collect()
    }

    /// The face whose part on this side's plane covers most of it (none when none covers 1 %).
    fn covering_face(&mut self, w: &Winding, planes: &[Plane], i: usize) -> Option<usize> {
        let candidates = self.by_plane.get(&plane_key(&planes[i]))?;
        let (best, area) = candidates
            .iter()
            .map(|&k| (self.parts[k].0, area_inside(&self.parts[k].1.winding, planes, i)))
            .max_by(|a, b| a.1.total_cmp(&b.1))?;
        if area < 0.01 * w.area() {
            return None;
        }
        self.used[best].0 += 1;
        self.used[best].1 += area;
        Some(best)
    }

    /// The side showing face `f` on `plane`: the face's source side's points and lightmap
    /// scale when carried and still on that plane, else three corners of `w`.
    fn face_side(&self, w: &Winding, plane: &Plane, f: usize) -> OutSide {
        let face = &self.faces[f];
        let carried = self.carried.get(f).copied().flatten().filter(|c| c.spans(plane));
        OutSide {
            points: carried.map_or_else(|| plane_points(w), |c| c.points),
            material: face.material.clone(),
            uaxis: face.uaxis,
            vaxis: face.vaxis,
            smoothing_groups: 0,
            disp: None,
            lightmap_scale: carried.map_or(DEFAULT_LIGHTMAP_SCALE, |c| c.lightmap_scale),
            exact_points: carried.is_some(),
            id: 0,
            face: Some(format!("{}:{f}", self.mesh_id)),
        }
    }

    /// Faces that became exactly one side, whole.
    fn unsplit(&self) -> usize {
        self.used
            .iter()
            .zip(self.faces)
            .filter(|((sides, area), f)| *sides == 1 && *area >= 0.999 * f.area())
            .count()
    }
}

/// A side on a cut: nodraw, axes aligned to the world as Hammer picks them.
fn cut_side(w: &Winding, plane: &Plane) -> OutSide {
    tool_side(plane_points(w), plane)
}

/// A tool-textured side on `plane` through `points`, its axes those of the plane's main axis.
fn tool_side(points: [[f64; 3]; 3], plane: &Plane) -> OutSide {
    let n = plane.normal.abs();
    let (u, v) = if n.z >= n.x && n.z >= n.y {
        ([1.0, 0.0, 0.0, 0.0], [0.0, -1.0, 0.0, 0.0])
    } else if n.x >= n.y {
        ([0.0, 1.0, 0.0, 0.0], [0.0, 0.0, -1.0, 0.0])
    } else {
        ([1.0, 0.0, 0.0, 0.0], [0.0, 0.0, -1.0, 0.0])
    };
    OutSide {
        points,
        material: CUT_MATERIAL.into(),
        uaxis: (u, 0.25),
        vaxis: (v, 0.25),
        smoothing_groups: 0,
        disp: None,
        lightmap_scale: DEFAULT_LIGHTMAP_SCALE,
        exact_points: false,
        id: 0,
        face: None,
    }
}

/// Three corners of a (clockwise) winding, in order, spanning the largest triangle.
fn plane_points(w: &Winding) -> [[f64; 3]; 3] {
    let p = &w.points;
    let n = p.len();
    let mut best = (0.0, [0, 1, 2]);
    for i in 0..n {
        for j in i + 1..n {
            for k in j + 1..n {
                let a = (p[j] - p[i]).cross(p[k] - p[i]).length();
                if a > best.0 {
                    best = (a, [i, j, k]);
                }
            }
        }
    }
    best.1.map(|i| p[i].to_array())
}
