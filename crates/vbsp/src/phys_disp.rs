//! The displacement collision lump (physdisp) as Valve's vbsp writes it (`Disp_BuildVirtualMesh`):
//! one entry per displacement, the packed outer hull of its vertices for one whose contents
//! collide (`MASK_SOLID`), none for the others. The engine rebuilds the triangle mesh itself;
//! the lump carries only the convex hull around it.
//!
//! The hull is the convex hull of the displacement's final vertices (those its tessellation
//! keeps), corners only: points within 0.01 unit of the hull of the others are dropped; a flat
//! displacement gets a two-sided polygon, as in Valve's lumps. On the corpus (tests/phys_disp.rs)
//! every hull of Valve's lies within ours and 98% of ours within 0.1 unit of Valve's; the rest
//! are larger by up to 0.9 unit, since Valve's hull cuts off vertices that stick out a little.
//! Triangles are numbered in the order built and edges by first use, so the bytes differ from
//! Valve's. Of the bytes whose meaning is not established, the two header bytes get the
//! triangle and edge counts and the byte after the triangles 0 (values Valve's own lumps hold
//! for small hulls), and each triangle's first byte (taken as IVP's pierce index) the triangle
//! an inward ray from its centre leaves by — a rule that agrees with only 12% of Valve's values.
//!
//! With a power-4 displacement (whose 289 vertices do not fit the hull's byte indices) Valve
//! writes no physdisp and puts the terrain in physcollide as polysoup
//! ([`crate::physics`]); so does this.

use srcmap_bsp::{Bsp, PhysDisp, flags::Contents};
use srcmap_geom::DVec3;
use srcmap_phys::{PackedHull, PackedTriangle};

/// `MASK_SOLID`: the contents whose displacements collide.
const MASK_SOLID: i32 =
    (Contents::SOLID.0 | Contents::MOVEABLE.0 | Contents::WINDOW.0 | Contents::MONSTER.0 | Contents::GRATE.0)
        as i32;
/// Points closer than this to a plane are on it (VPhysics' merge distance, in units).
const PLANE_EPSILON: f64 = 0.01;
/// A point sees a hull face when further in front than this: near zero, since a looser test
/// can leave a face a point sees inside the region it replaces and the hull then folds
/// inwards; points on a face are weeded out after the hull is built.
const VISIBLE_EPSILON: f64 = 1e-7;

/// The lump, or why there is none.
pub enum PhysDispBuild {
    Lump(PhysDisp),
    /// Valve writes no physdisp for the map (power-4 displacements).
    NotWritten(String),
}

/// Why a map with power-4 displacements gets no physdisp.
const POWER_4_NOTE: &str = "map using power 4 displacements: terrain collision is polysoup in physcollide, \
                            not physdisp (more memory and CPU in game, as Valve's vbsp warns)";

/// Builds physdisp for `bsp`'s displacements (its DISPINFO, DISP_VERTS and faces). Entries
/// whose displacement does not rebuild, or whose hull is degenerate (all points on a line),
/// are left without collision; their indices are returned with the lump.
pub fn build(bsp: &Bsp) -> (PhysDispBuild, Vec<usize>) {
    if bsp.disp_info.iter().any(|d| d.power > 3) {
        return (PhysDispBuild::NotWritten(POWER_4_NOTE.to_string()), Vec::new());
    }
    let grids = srcmap_disp::grids_of(bsp);
    let mut failed = Vec::new();
    let hulls: Vec<Option<PackedHull>> = bsp
        .disp_info
        .iter()
        .zip(&grids)
        .enumerate()
        .map(|(i, (info, grid))| {
            if info.contents & MASK_SOLID == 0 {
                return None;
            }
            let hull = grid.as_ref().and_then(|g| disp_hull(info, g));
            if hull.is_none() {
                failed.push(i);
            }
            hull
        })
        .collect();
    (PhysDispBuild::Lump(PhysDisp::from_hulls(&hulls)), failed)
}

/// The packed hull of a displacement's grid: of the vertices the tessellated mesh uses (Valve
/// builds the hull from its triangles), those the allowed-vertex set keeps.
fn disp_hull(info: &srcmap_bsp::DispInfo, g: &srcmap_disp::DispGrid) -> Option<PackedHull> {
    let points: Vec<DVec3> = g
        .verts
        .iter()
        .map(|v| DVec3::new(v.x.into(), v.y.into(), v.z.into()))
        .collect();
    let used: Vec<usize> = (0..points.len())
        .filter(|&k| srcmap_disp::allowed::is_allowed(&info.allowed_verts, k))
        .collect();
    hull_triangles(&points, &used).map(|t| pack(&points, &t))
}

/// Packs hull triangles (indices into `points`, counter-clockwise seen from outside) into
/// Valve's byte form: edges numbered by first use and stored in that direction.
pub fn pack(points: &[DVec3], triangles: &[[u8; 3]]) -> PackedHull {
    let mut edges: Vec<[u8; 2]> = Vec::new();
    let mut packed = Vec::with_capacity(triangles.len());
    for t in triangles {
        let mut e = [0u8; 3];
        for k in 0..3 {
            e[k] = edge_number(&mut edges, t[k], t[(k + 1) % 3]);
        }
        packed.push(PackedTriangle {
            pierce_index: 0,
            edges: e,
        });
    }
    let pierce = Pierce::new(points, triangles);
    for (t, p) in packed.iter_mut().enumerate() {
        p.pierce_index = pierce.of(t) as u8;
    }
    PackedHull {
        header_word: 1,
        header_byte_5: triangles.len() as u8,
        header_byte_7: edges.len() as u8,
        triangles: packed,
        byte_after_triangles: 0,
        edges,
    }
}

/// The number of the edge between `a` and `b` in either direction, numbered by first use
/// (stored `a` to `b` when new).
fn edge_number(edges: &mut Vec<[u8; 2]>, a: u8, b: u8) -> u8 {
    let at = edges
        .iter()
        .position(|&x| x == [a, b] || x == [b, a])
        .unwrap_or_else(|| {
            edges.push([a, b]);
            edges.len() - 1
        });
    at as u8
}

/// Triangle `t`'s pierce triangle (IVP's `pierce_index`): the one a ray from its centre
/// straight into the hull leaves by; for a two-sided flat hull, the same triangle's back.
pub fn pierce(points: &[DVec3], triangles: &[[u8; 3]], t: usize) -> usize {
    Pierce::new(points, triangles).of(t)
}

/// The hull's triangles as [`pierce`] tests them (corners and unnormalised normal), found once
/// for all of a hull's triangles.
struct Pierce {
    triangles: Vec<([DVec3; 3], DVec3)>,
}

impl Pierce {
    fn new(points: &[DVec3], triangles: &[[u8; 3]]) -> Pierce {
        let triangles = (triangles.iter())
            .map(|t| {
                let [p, q, r] = t.map(|i| points[i as usize]);
                ([p, q, r], (q - p).cross(r - p))
            })
            .collect();
        Pierce { triangles }
    }

    /// Triangle `t`'s pierce triangle.
    fn of(&self, t: usize) -> usize {
        let [a, b, c] = self.triangles[t].0;
        let normal = (b - a).cross(c - a).normalize_or_zero();
        let centre = (a + b + c) / 3.0;
        let dir = -normal;
        let mut best: Option<(f64, usize)> = None;
        for (u, &([p, q, r], n)) in self.triangles.iter().enumerate() {
            if u == t {
                continue;
            }
            let denom = n.dot(dir);
            if denom.abs() < 1e-12 {
                continue;
            }
            let s = n.dot(p - centre) / denom;
            // Only a hit further along than the best so far can replace it: test that before
            // the (dearer) test of whether the ray passes inside the triangle.
            let further = s > -PLANE_EPSILON && best.is_none_or(|(bs, _)| s > bs);
            if !further {
                continue;
            }
            let x = centre + dir * s;
            // Inside the triangle (with a small tolerance for hits on its edges).
            let slack = -1e-6 * n.length_squared();
            let inside = [(p, q), (q, r), (r, p)]
                .iter()
                .all(|&(e0, e1)| (e1 - e0).cross(x - e0).dot(n) >= slack);
            if inside {
                best = Some((s, u));
            }
        }
        best.map_or(t, |(_, u)| u)
    }
}

/// The convex hull of `points[candidates]` as triangles of point indices, counter-clockwise
/// seen from outside, its corners only. A flat set gives a polygon, once per side; `None` when the points
/// span no area or an index does not fit a byte.
pub fn hull_triangles(points: &[DVec3], candidates: &[usize]) -> Option<Vec<[u8; 3]>> {
    if points.len() > 256 {
        return None;
    }
    Some(
        convex_hull(points, candidates)?
            .iter()
            .map(|t| t.map(|i| i as u8))
            .collect(),
    )
}

/// [`hull_triangles`] for any number of points: the hull of `points[candidates]`, corners only
/// (points within 0.01 unit of the hull of the others dropped), or `None` when they span no area.
pub fn convex_hull(points: &[DVec3], candidates: &[usize]) -> Option<Vec<[usize; 3]>> {
    let first = match incremental_hull(points, candidates)? {
        Hull::Flat(polygon, _) => return Some(two_sided(&polygon)),
        Hull::Solid(hull) => hull,
    };
    // Drop, one at a time, hull points within the tolerance of the hull of the others (inside
    // a face or on an edge), then build the hull of the corners left.
    let mut keep: Vec<usize> = first.faces.iter().flatten().copied().collect();
    keep.sort_unstable();
    keep.dedup();
    let mut prefix = PrefixHull::default();
    for v in keep.clone() {
        let others: Vec<usize> = keep.iter().copied().filter(|&k| k != v).collect();
        if clearance(points, &first, &others, v) <= CLEAR && !prefix.outside_hull(points, &others, v) {
            keep = others;
        }
    }
    match prefix.into_hull(points, &keep)? {
        Hull::Flat(polygon, _) => Some(two_sided(&polygon)),
        Hull::Solid(hull) => Some(hull.faces),
    }
}

/// How far corner `v` of `hull` stands out beyond the points `others`, along the mean of the
/// normals of its faces there (negative when it does not).
///
/// Past [`CLEAR`] (fifty times the tolerance) the point is a corner whatever the hull of the
/// others looks like: every triangle of that hull lies within the others' extent along that
/// direction, so the point is further than the tolerance from each, and outside the hull, so
/// in front of one of its faces. [`convex_hull`] then keeps it without building that hull (two
/// in three corners on the corpus; the test never kept a point the full test drops there).
fn clearance(points: &[DVec3], hull: &HullFaces, others: &[usize], v: usize) -> f64 {
    let mut u = DVec3::ZERO;
    for (f, (n, _)) in hull.faces.iter().zip(&hull.planes) {
        if f.contains(&v) {
            u += *n;
        }
    }
    let u = u.normalize_or_zero();
    let top = others.iter().map(|&o| u.dot(points[o])).fold(f64::MIN, f64::max);
    u.dot(points[v]) - top
}

/// See [`clearance`]: in units, against the tolerance of 0.01.
const CLEAR: f64 = 0.5;

/// The incremental hull of the candidate corners [`convex_hull`] has already passed, kept
/// between its tests. Each test builds the hull of all corners but one, `v`, in index order;
/// the corners before `v` are settled by then (only `v` itself may be dropped), so while the
/// starting tetrahedron stays the same, every test's hull begins with the same points added in
/// the same order. That common beginning is built once and continued per test, which gives
/// the very hull the test would build from scratch.
#[derive(Default)]
struct PrefixHull {
    /// The start of the shared hull, and the corners it holds: the start's and those of the
    /// candidates below `below` (the end of the settled corners it has added).
    start: Option<[usize; 4]>,
    shared: HullFaces,
    below: usize,
    /// The hull of one test, a copy of the shared one continued.
    scratch: HullFaces,
}

impl PrefixHull {
    /// [`outside_hull`] of `points[v]` and the corners `others` (all but `v`), reusing the
    /// shared beginning.
    fn outside_hull(&mut self, points: &[DVec3], others: &[usize], v: usize) -> bool {
        let Some(HullStart::Tetrahedron(start)) = hull_start(points, others) else {
            return outside_hull(points, others, points[v]);
        };
        let (before, after) = others.split_at(others.partition_point(|&k| k < v));
        self.extend_shared(points, start, before);
        self.scratch.copy_from(&self.shared);
        for &k in after.iter().filter(|k| !start.contains(k)) {
            self.scratch.add_point(points, k);
        }
        outside_solid_hull(points, &self.scratch, points[v])
    }

    /// [`incremental_hull`] of all the corners `keep`: the shared hull continued when it has
    /// their start.
    fn into_hull(mut self, points: &[DVec3], keep: &[usize]) -> Option<Hull> {
        match hull_start(points, keep)? {
            HullStart::Tetrahedron(start) if self.start == Some(start) => {
                self.extend_shared(points, start, keep);
                Some(Hull::Solid(self.shared))
            }
            _ => incremental_hull(points, keep),
        }
    }

    /// Makes the shared hull that of `start` and the corners `before` (in order): the one
    /// kept, continued, when it has the same start, else one built anew.
    fn extend_shared(&mut self, points: &[DVec3], start: [usize; 4], before: &[usize]) {
        if self.start != Some(start) {
            self.start = Some(start);
            self.shared = HullFaces::tetrahedron(points, start);
            self.below = 0;
        }
        let new = &before[before.partition_point(|&k| k < self.below)..];
        for &k in new.iter().filter(|k| !start.contains(k)) {
            self.shared.add_point(points, k);
        }
        if let Some(&last) = new.last() {
            self.below = last + 1;
        }
    }
}

/// Whether `q` lies further than the tolerance outside the hull of `points[use_]`.
fn outside_hull(points: &[DVec3], use_: &[usize], q: DVec3) -> bool {
    match incremental_hull(points, use_) {
        None => true,
        Some(Hull::Solid(hull)) => outside_solid_hull(points, &hull, q),
        Some(Hull::Flat(polygon, normal)) => {
            let d = normal.dot(points[polygon[0]]);
            if (normal.dot(q) - d).abs() > PLANE_EPSILON {
                return true;
            }
            // Counter-clockwise about the normal: outside when right of some edge.
            (0..polygon.len()).any(|k| {
                let (a, b) = (points[polygon[k]], points[polygon[(k + 1) % polygon.len()]]);
                let edge = b - a;
                let side = normal.cross(edge).normalize_or_zero(); // points inward
                side.dot(q - a) < -PLANE_EPSILON
            })
        }
    }
}

/// Whether `q` lies outside the solid hull at all, and further than the tolerance from every
/// triangle (a plane test alone would miss points beside a thin hull, whose faces all nearly
/// share one plane).
fn outside_solid_hull(points: &[DVec3], hull: &HullFaces, q: DVec3) -> bool {
    (hull.planes.iter()).any(|(n, d)| n.dot(q) - d > VISIBLE_EPSILON)
        && (hull.faces.iter()).all(|t| triangle_distance(q, t.map(|i| points[i])) > PLANE_EPSILON)
}

/// The distance from `q` to the triangle `t` (its closest point: inside, on an edge or a corner).
fn triangle_distance(q: DVec3, t: [DVec3; 3]) -> f64 {
    let n = (t[1] - t[0]).cross(t[2] - t[0]);
    let inside = (0..3).all(|k| (t[(k + 1) % 3] - t[k]).cross(q - t[k]).dot(n) >= 0.0);
    if inside && n.length_squared() > 0.0 {
        return (q - t[0]).dot(n).abs() / n.length();
    }
    (0..3)
        .map(|k| {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            let ab = b - a;
            let s = if ab.length_squared() > 0.0 {
                ((q - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0)
            } else {
                0.0
            };
            q.distance(a + ab * s)
        })
        .fold(f64::MAX, f64::min)
}

enum Hull {
    /// A solid hull: its triangles and their planes.
    Solid(HullFaces),
    /// All points on one plane: the polygon's corners, counter-clockwise about the normal.
    Flat(Vec<usize>, DVec3),
}

fn plane_of(points: &[DVec3], t: [usize; 3]) -> (DVec3, f64) {
    let n = (points[t[1]] - points[t[0]])
        .cross(points[t[2]] - points[t[0]])
        .normalize_or_zero();
    (n, n.dot(points[t[0]]))
}

/// Incremental hull over the points `use_` (indices into `points`), in index order.
fn incremental_hull(points: &[DVec3], use_: &[usize]) -> Option<Hull> {
    let start = match hull_start(points, use_)? {
        HullStart::Tetrahedron(start) => start,
        HullStart::Flat(n) => return Some(Hull::Flat(polygon_2d(points, use_, n), n)),
    };
    let mut hull = HullFaces::tetrahedron(points, start);
    for &v in use_ {
        if start.contains(&v) {
            continue;
        }
        hull.add_point(points, v);
    }
    Some(Hull::Solid(hull))
}

/// How an incremental hull starts.
enum HullStart {
    /// Four points spanning a volume: the leftmost, the farthest from it, the farthest
    /// from their line, the farthest from their plane.
    Tetrahedron([usize; 4]),
    /// Every point lies on the plane of this normal.
    Flat(DVec3),
}

/// The points an incremental hull starts from; `None` when they span no area.
fn hull_start(points: &[DVec3], use_: &[usize]) -> Option<HullStart> {
    let p = |i: usize| points[i];
    let a = arg_min(use_, |x| p(x).x)?;
    let b = arg_max(use_, |x| p(x).distance(p(a)))?;
    if p(a).distance(p(b)) < PLANE_EPSILON {
        return None;
    }
    let axis = (p(b) - p(a)).normalize();
    let line_dist = |x: usize| (p(x) - p(a)).cross(axis).length();
    let c = arg_max(use_, line_dist)?;
    if line_dist(c) < PLANE_EPSILON {
        return None;
    }
    let (n, d) = plane_of(points, [a, b, c]);
    let far = arg_max(use_, |x| (n.dot(p(x)) - d).abs())?;
    if (n.dot(p(far)) - d).abs() < PLANE_EPSILON {
        return Some(HullStart::Flat(n));
    }
    Some(HullStart::Tetrahedron([a, b, c, far]))
}

/// The index of `use_` with the least `key`, the first of equal ones (as `min_by` picks).
fn arg_min(use_: &[usize], key: impl Fn(usize) -> f64) -> Option<usize> {
    arg_by(use_, key, std::cmp::Ordering::is_lt)
}

/// The index of `use_` with the greatest `key`, the last of equal ones (as `max_by` picks).
fn arg_max(use_: &[usize], key: impl Fn(usize) -> f64) -> Option<usize> {
    arg_by(use_, key, std::cmp::Ordering::is_ge)
}

/// The index of `use_` whose key each later one must beat (`beats(new.cmp(best))`) to
/// replace, each key computed once.
fn arg_by(
    use_: &[usize],
    key: impl Fn(usize) -> f64,
    beats: fn(std::cmp::Ordering) -> bool,
) -> Option<usize> {
    let (&first, rest) = use_.split_first()?;
    let mut best = (first, key(first));
    for &x in rest {
        let k = key(x);
        if beats(k.total_cmp(&best.1)) {
            best = (x, k);
        }
    }
    Some(best.0)
}

/// A solid hull being built: its faces (counter-clockwise seen from outside) and their planes,
/// with the buffers each added point reuses (a hull is rebuilt once per candidate corner, so
/// allocating per point dominated the physics pass).
#[derive(Default)]
struct HullFaces {
    faces: Vec<[usize; 3]>,
    planes: Vec<(DVec3, f64)>,
    /// The faces the point being added sees, ascending.
    visible: Vec<usize>,
    /// The directed edges of the faces the point sees, and the horizon among them.
    visible_edges: Vec<(usize, usize)>,
    sorted_edges: Vec<(usize, usize)>,
    horizon: Vec<(usize, usize)>,
}

impl HullFaces {
    /// The starting tetrahedron, each face facing away from the fourth point.
    fn tetrahedron(points: &[DVec3], [a, b, c, far]: [usize; 4]) -> HullFaces {
        let p = |i: usize| points[i];
        let mut faces: Vec<[usize; 3]> = Vec::new();
        let centre = (p(a) + p(b) + p(c) + p(far)) / 4.0;
        for t in [[a, b, c], [a, b, far], [a, c, far], [b, c, far]] {
            let (n, d) = plane_of(points, t);
            faces.push(if n.dot(centre) - d > 0.0 {
                [t[0], t[2], t[1]]
            } else {
                t
            });
        }
        let planes = faces.iter().map(|&t| plane_of(points, t)).collect();
        HullFaces {
            faces,
            planes,
            visible: Vec::new(),
            visible_edges: Vec::new(),
            sorted_edges: Vec::new(),
            horizon: Vec::new(),
        }
    }

    /// Becomes a copy of `other`'s faces, in the buffers it has.
    fn copy_from(&mut self, other: &HullFaces) {
        self.faces.clone_from(&other.faces);
        self.planes.clone_from(&other.planes);
    }

    /// Grow the hull to point `v`: the faces it sees are replaced by a fan from their
    /// horizon to it (nothing changes when it sees none). The faces it does not see keep
    /// their order; the fan follows, in the horizon's order.
    fn add_point(&mut self, points: &[DVec3], v: usize) {
        let q = points[v];
        self.visible.clear();
        for (f, (n, d)) in self.planes.iter().enumerate() {
            if n.dot(q) - d > VISIBLE_EPSILON {
                self.visible.push(f);
            }
        }
        if self.visible.is_empty() {
            return;
        }
        self.find_horizon();
        self.drop_visible();
        for &(x, y) in &self.horizon {
            self.faces.push([x, y, v]);
            self.planes.push(plane_of(points, [x, y, v]));
        }
    }

    /// Removes the faces listed in `visible` (ascending), the others keeping their order:
    /// the runs between them move down, those before the first stay where they are.
    fn drop_visible(&mut self) {
        let mut kept = self.visible[0];
        for (k, &gone) in self.visible.iter().enumerate() {
            let next = self.visible.get(k + 1).copied().unwrap_or(self.faces.len());
            self.faces.copy_within(gone + 1..next, kept);
            self.planes.copy_within(gone + 1..next, kept);
            kept += next - gone - 1;
        }
        self.faces.truncate(kept);
        self.planes.truncate(kept);
    }

    /// Into `horizon`: the directed edges of visible faces whose reverse belongs to no
    /// visible face, face by face in order.
    fn find_horizon(&mut self) {
        let edges = |t: &[usize; 3]| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])];
        self.visible_edges.clear();
        self.horizon.clear();
        for &f in &self.visible {
            self.visible_edges.extend(edges(&self.faces[f]));
        }
        // An edge is on the horizon when its reverse is not among the visible edges: looked
        // up in a sorted copy when there are many.
        const SHORT: usize = 24;
        self.sorted_edges.clear();
        if self.visible_edges.len() > SHORT {
            self.sorted_edges.extend(&self.visible_edges);
            self.sorted_edges.sort_unstable();
        }
        for &(x, y) in &self.visible_edges {
            let reversed_visible = if self.sorted_edges.is_empty() {
                self.visible_edges.contains(&(y, x))
            } else {
                self.sorted_edges.binary_search(&(y, x)).is_ok()
            };
            if !reversed_visible {
                self.horizon.push((x, y));
            }
        }
    }
}

/// The 2-D convex hull of flat points (their corners only), counter-clockwise about `normal`.
fn polygon_2d(points: &[DVec3], use_: &[usize], normal: DVec3) -> Vec<usize> {
    let u = normal.any_orthonormal_vector();
    let w = normal.cross(u);
    let mut pts: Vec<FlatPoint> = use_
        .iter()
        .map(|&i| (points[i].dot(u), points[i].dot(w), i))
        .collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    // Andrew's monotone chain: lower hull, then upper hull.
    let mut hull: Vec<FlatPoint> = Vec::new();
    extend_chain(&mut hull, pts.iter());
    extend_chain(&mut hull, pts.iter().rev());
    hull.into_iter().map(|q| q.2).collect()
}

/// A point in the plane's 2-D coordinates, with its index.
type FlatPoint = (f64, f64, usize);

/// One chain of Andrew's monotone chain over `pts`, appended to `hull` without its last
/// point. A turn within the tolerance (area of a sliver PLANE_EPSILON wide) counts as
/// straight, so points on an edge are dropped.
fn extend_chain<'a>(hull: &mut Vec<FlatPoint>, pts: impl Iterator<Item = &'a FlatPoint>) {
    let cross =
        |o: FlatPoint, a: FlatPoint, b: FlatPoint| (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0);
    let start = hull.len();
    for &q in pts {
        while hull.len() >= start + 2 {
            let (o, a) = (hull[hull.len() - 2], hull[hull.len() - 1]);
            let len = ((q.0 - o.0).powi(2) + (q.1 - o.1).powi(2)).sqrt();
            if cross(o, a, q) <= PLANE_EPSILON * len {
                hull.pop();
            } else {
                break;
            }
        }
        hull.push(q);
    }
    hull.pop();
}

/// A flat polygon as a two-sided hull: a fan from its first corner facing its normal, then a
/// fan from its second corner facing away, so no diagonal serves both sides (each edge then
/// borders exactly two triangles, as in Valve's flat hulls).
fn two_sided(polygon: &[usize]) -> Vec<[usize; 3]> {
    let n = polygon.len();
    let corner = |k: usize| polygon[k % n];
    let mut out: Vec<[usize; 3]> = (1..n - 1)
        .map(|k| [corner(0), corner(k), corner(k + 1)])
        .collect();
    out.extend((2..n).map(|k| [corner(1), corner(k + 1), corner(k)]));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(side: usize, height: impl Fn(usize, usize) -> f64) -> Vec<DVec3> {
        let mut out = Vec::new();
        for r in 0..side {
            for c in 0..side {
                out.push(DVec3::new(c as f64 * 16.0, r as f64 * 16.0, height(r, c)));
            }
        }
        out
    }

    #[test]
    fn a_flat_grid_is_its_four_corners_on_both_sides() {
        let pts = grid(5, |_, _| 0.0);
        let tris = hull_triangles(&pts, &(0..pts.len()).collect::<Vec<_>>()).unwrap();
        let hull = pack(&pts, &tris);
        assert_eq!(hull.triangles.len(), 4);
        assert_eq!(hull.edges.len(), 6);
        assert_eq!(hull.vertices(), vec![0, 4, 20, 24]);
        assert_eq!(hull.verify(25), Vec::<String>::new());
    }

    #[test]
    fn a_raised_vertex_makes_a_pyramid_of_corners_only() {
        let pts = grid(5, |r, c| if (r, c) == (3, 1) { 32.0 } else { 0.0 });
        let tris = hull_triangles(&pts, &(0..pts.len()).collect::<Vec<_>>()).unwrap();
        let hull = pack(&pts, &tris);
        // Square pyramid: the four corners and the apex; 6 triangles, 9 edges (as Valve's
        // hull of such a displacement in the corpus).
        assert_eq!(hull.vertices(), vec![0, 4, 16, 20, 24]);
        assert_eq!((hull.triangles.len(), hull.edges.len()), (6, 9));
        assert_eq!(hull.verify(25), Vec::<String>::new());
        // Outward: every other hull point lies behind every triangle.
        for t in &tris {
            let (n, d) = plane_of(&pts, t.map(usize::from));
            assert!(pts.iter().all(|p| n.dot(*p) - d <= PLANE_EPSILON));
        }
    }

    /// [`convex_hull`] as it was before [`PrefixHull`]: every test hull built from scratch.
    fn convex_hull_from_scratch(points: &[DVec3], candidates: &[usize]) -> Option<Vec<[usize; 3]>> {
        let Hull::Solid(first) = incremental_hull(points, candidates)? else {
            return convex_hull(points, candidates);
        };
        let mut keep: Vec<usize> = first.faces.iter().flatten().copied().collect();
        keep.sort_unstable();
        keep.dedup();
        for v in keep.clone() {
            let others: Vec<usize> = keep.iter().copied().filter(|&k| k != v).collect();
            if clearance(points, &first, &others, v) <= CLEAR && !outside_hull(points, &others, points[v]) {
                keep = others;
            }
        }
        match incremental_hull(points, &keep)? {
            Hull::Flat(polygon, _) => Some(two_sided(&polygon)),
            Hull::Solid(hull) => Some(hull.faces),
        }
    }

    #[test]
    fn shared_test_hulls_give_the_hull_built_from_scratch() {
        // Bumpy grids (a fixed pseudo-random height field, some of it flat) whose hulls drop
        // many points near their faces, so that many test hulls are built.
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut noise = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % 1000) as f64 / 1000.0
        };
        for (round, bump) in [0.05, 0.3, 2.0, 8.0].into_iter().enumerate() {
            let heights: Vec<f64> = (0..81).map(|_| bump * noise()).collect();
            let flat = |r: usize, c: usize| (r + c + round).is_multiple_of(3);
            let pts = grid(9, |r, c| if flat(r, c) { 0.0 } else { heights[r * 9 + c] });
            let all: Vec<usize> = (0..pts.len()).collect();
            let ours = convex_hull(&pts, &all);
            assert!(ours.is_some());
            assert_eq!(ours, convex_hull_from_scratch(&pts, &all), "bump {bump}");
        }
    }

    #[test]
    fn a_line_has_no_hull() {
        let pts: Vec<DVec3> = (0..5).map(|i| DVec3::new(i as f64, 0.0, 0.0)).collect();
        assert!(hull_triangles(&pts, &[0, 1, 2, 3, 4]).is_none());
    }
}
