//! Vvis's single-precision winding primitives, op for op as `flow.cpp` does them, so that a
//! portal is seen or hidden exactly where Valve's vvis decides it.

/// A point or vector, `f32` as vvis stores it.
pub type V3 = [f32; 3];

/// vvis `ON_VIS_EPSILON`.
pub const ON_VIS_EPSILON: f32 = 0.01;
/// vvis `MAX_POINTS_ON_FIXED_WINDING`: a clip whose result would exceed this many points is
/// abandoned and the input kept.
pub const MAX_POINTS_ON_FIXED_WINDING: usize = 12;

#[inline(always)]
pub fn dot(a: V3, b: V3) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[inline(always)]
pub fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// `normal · p = dist`, `f32`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct VPlane {
    pub normal: V3,
    pub dist: f32,
}

impl VPlane {
    #[inline(always)]
    pub fn distance(&self, p: V3) -> f32 {
        dot(p, self.normal) - self.dist
    }
    pub fn flipped(&self) -> VPlane {
        VPlane {
            normal: [-self.normal[0], -self.normal[1], -self.normal[2]],
            dist: -self.dist,
        }
    }
}

/// The result of [`chop`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chop {
    /// Nothing behind the plane (or the clip would overflow): the input stands.
    Unchanged,
    /// Nothing in front: the winding is gone.
    Gone,
    /// The clipped winding was written to the output buffer.
    Clipped,
}

/// Whether [`chop`] would change `w`: some point (of those it reads) more than
/// `ON_VIS_EPSILON` behind `split`. Far cheaper than chopping when the answer is no, the
/// common case when a plane passes near a winding.
#[inline(always)]
pub fn cuts(w: &[V3], split: &VPlane) -> bool {
    w[..w.len().min(CHOP_MAX_POINTS)]
        .iter()
        .any(|&p| dot(p, split.normal) - split.dist < -ON_VIS_EPSILON)
}

/// A winding of at most four points laid out coordinate by coordinate (the last point repeated
/// to fill it, which changes no test): a plane's distances to all its points are then a few
/// vector instructions, the same operations as `VPlane::distance` in each lane.
#[derive(Clone, Copy)]
pub struct Quad {
    x: [f32; 4],
    y: [f32; 4],
    z: [f32; 4],
}

impl Quad {
    /// `w` laid out; None when it is empty or has more than four points.
    #[inline(always)]
    pub fn new(w: &[V3]) -> Option<Quad> {
        let last = w.len().checked_sub(1)?;
        if last >= 4 {
            return None;
        }
        let p: [V3; 4] = std::array::from_fn(|k| w[k.min(last)]);
        Some(Quad {
            x: p.map(|p| p[0]),
            y: p.map(|p| p[1]),
            z: p.map(|p| p[2]),
        })
    }

    /// Whether some point is more than `ON_VIS_EPSILON` behind `split`, and whether some is
    /// more than that in front: [`chop`]'s counts, so (false, _) is `Chop::Unchanged` and
    /// (true, false) is `Chop::Gone`.
    #[inline(always)]
    pub fn sides(&self, split: &VPlane) -> (bool, bool) {
        let [x, y, z] = split.normal;
        let d: [f32; 4] = std::array::from_fn(|k| self.x[k] * x + self.y[k] * y + self.z[k] * z - split.dist);
        let back = d.iter().fold(false, |b, &d| b | (d < -ON_VIS_EPSILON));
        let front = d.iter().fold(false, |f, &d| f | (d > ON_VIS_EPSILON));
        (back, front)
    }
}

/// The most points of a winding [`chop`] reads (vvis's fixed winding buffers); the rest are
/// ignored.
const CHOP_MAX_POINTS: usize = 64;

/// vvis `ChopWinding`: keep the part of `input` in front of `split`.
pub fn chop(input: &[V3], split: &VPlane, out: &mut Vec<V3>) -> Chop {
    // Small windings (all but a few) use small scratch arrays: no large memset per call.
    if input.len() < 16 {
        chop_n::<16>(input, split, out)
    } else {
        chop_n::<{ CHOP_MAX_POINTS + 1 }>(input, split, out)
    }
}

fn chop_n<const N: usize>(input: &[V3], split: &VPlane, out: &mut Vec<V3>) -> Chop {
    let n = input.len().min(N - 1);
    let mut dists = [0f32; N];
    let mut sides = [0u8; N]; // 0 front, 1 back, 2 on
    let (front, back) = classify(&input[..n], split, &mut dists, &mut sides);
    if back == 0 {
        return Chop::Unchanged;
    }
    if front == 0 {
        return Chop::Gone;
    }
    sides[n] = sides[0];
    dists[n] = dists[0];
    clip_points(&input[..n], split, &dists, &sides, out)
}

/// Each point's distance to `split` and side (0 front, 1 back, 2 on, by `ON_VIS_EPSILON`);
/// how many are in front and behind.
#[inline(always)]
fn classify(input: &[V3], split: &VPlane, dists: &mut [f32], sides: &mut [u8]) -> (usize, usize) {
    let (mut front, mut back) = (0, 0);
    for (i, &p) in input.iter().enumerate() {
        let d = dot(p, split.normal) - split.dist;
        dists[i] = d;
        sides[i] = if d > ON_VIS_EPSILON {
            front += 1;
            0
        } else if d < -ON_VIS_EPSILON {
            back += 1;
            1
        } else {
            2
        };
    }
    (front, back)
}

/// The points of `input` in front of or on `split`, with a new point where an edge crosses
/// it, into `out` (`dists` and `sides` one longer than `input`, wrapping to its first
/// point); `Chop::Unchanged` when that would pass [`MAX_POINTS_ON_FIXED_WINDING`].
#[inline(always)]
fn clip_points(input: &[V3], split: &VPlane, dists: &[f32], sides: &[u8], out: &mut Vec<V3>) -> Chop {
    let n = input.len();
    out.clear();
    for i in 0..n {
        if out.len() == MAX_POINTS_ON_FIXED_WINDING {
            return Chop::Unchanged;
        }
        let p1 = input[i];
        if sides[i] == 2 {
            out.push(p1);
            continue;
        }
        if sides[i] == 0 {
            out.push(p1);
        }
        if sides[i + 1] == 2 || sides[i + 1] == sides[i] {
            continue;
        }
        if out.len() == MAX_POINTS_ON_FIXED_WINDING {
            return Chop::Unchanged;
        }
        let p2 = if i + 1 == n { input[0] } else { input[i + 1] };
        let t = dists[i] / (dists[i] - dists[i + 1]);
        out.push(crossing(p1, p2, t, split));
    }
    Chop::Clipped
}

/// The point a fraction `t` from `p1` to `p2`, on `split`; exact on an axial plane, as vvis
/// avoids round-off there.
#[inline(always)]
fn crossing(p1: V3, p2: V3, t: f32, split: &VPlane) -> V3 {
    let mut mid = [0f32; 3];
    for j in 0..3 {
        mid[j] = if split.normal[j] == 1.0 {
            split.dist
        } else if split.normal[j] == -1.0 {
            -split.dist
        } else {
            p1[j] + t * (p2[j] - p1[j])
        };
    }
    mid
}

/// The separating planes of vvis `ClipToSeperators(source, pass, _, flipclip)`, in the order
/// vvis clips by them: for each source edge and pass vertex, the plane through them that has
/// the source on one side and the whole pass on the other, facing the way `flipclip` asks.
/// They depend only on `source` and `pass`, which is what lets the fast flow reuse them.
pub fn separators(source: &[V3], pass: &[V3], flipclip: bool, out: &mut Vec<VPlane>) {
    separators_each(source, pass, flipclip, |plane| {
        out.push(plane);
        true
    });
}

/// Calls `f` with each separating plane in vvis's order; stops when `f` returns false.
#[inline(always)]
pub fn separators_each(source: &[V3], pass: &[V3], flipclip: bool, mut f: impl FnMut(VPlane) -> bool) {
    for i in 0..source.len() {
        for j in 0..pass.len() {
            if let Some(plane) = separator_candidate(source, pass, i, j, flipclip)
                && !f(plane)
            {
                return;
            }
        }
    }
}

/// Where a resumable separator search stands: both `ClipToSeperators` orders, one after the
/// other, so that planes are found only as far as some target needs them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SepCursor {
    phase: u8,
    i: usize,
    j: usize,
}

impl SepCursor {
    /// The (edge winding, point winding, flip) pair of the current phase, moving to the next
    /// phase while the current one is used up; `None` once both are.
    fn current_pair<'w>(&mut self, source: &'w [V3], pass: &'w [V3]) -> Option<(&'w [V3], &'w [V3], bool)> {
        loop {
            let (a, b, flip) = match self.phase {
                0 => (source, pass, false),
                1 => (pass, source, true),
                _ => return None,
            };
            if self.i < a.len() && !b.is_empty() {
                return Some((a, b, flip));
            }
            *self = SepCursor {
                phase: self.phase + 1,
                i: 0,
                j: 0,
            };
        }
    }
}

/// The next separating plane of (`source`, `pass`) in vvis's order: first those of
/// `ClipToSeperators(source, pass, _, false)`, then of `(pass, source, _, true)`.
pub fn next_separator(source: &[V3], pass: &[V3], cursor: &mut SepCursor) -> Option<VPlane> {
    loop {
        let (a, b, flip) = cursor.current_pair(source, pass)?;
        let (i, j) = (cursor.i, cursor.j);
        cursor.j += 1;
        if cursor.j >= b.len() {
            cursor.j = 0;
            cursor.i += 1;
        }
        if let Some(plane) = separator_candidate(a, b, i, j, flip) {
            return Some(plane);
        }
    }
}

/// Pass points normalised together by [`separator_row`] (most passes have four).
const LANES: usize = 4;

/// The separators of `separator_candidate` for edge `i` of `source` and every point of `pass`,
/// appended to `out` in the same order and bit for bit the same. The candidate planes' normals
/// are found `LANES` at a time in plain arrays (vector instructions, each lane doing exactly
/// the scalar operations), and with them each plane's distance to the first source point off
/// the edge, which nearly always tells the source's side; the rest of the tests then run per
/// plane, on all the pass points at once where the pass has at most `LANES`.
pub fn separator_row(source: &[V3], pass: &[V3], i: usize, flipclip: bool, out: &mut Vec<VPlane>) {
    let ns = source.len();
    // The first source point `oriented_separator` tests (none: no plane has a side).
    let Some((l, k0)) = edge_end_and_first_off(ns, i) else {
        return;
    };
    let si = source[i];
    let v1 = sub(source[l], si);
    let s0 = source[k0];
    let Some(last) = pass.len().checked_sub(1) else {
        return;
    };
    let mut start = 0;
    while start <= last {
        let n = (pass.len() - start).min(LANES);
        // Lanes past the end repeat the last point; their planes are not tested.
        let row: [V3; LANES] = std::array::from_fn(|m| pass[(start + m).min(last)]);
        let lanes = Lanes::new(row, si, v1, s0);
        for m in 0..n {
            if let Some(plane) = lanes.separator(m, source, pass, [k0, i, l], flipclip) {
                out.push(plane);
            }
        }
        start += LANES;
    }
}

/// For edge `i` of a winding of `ns` points: its end `l` (the next point, wrapping) and the
/// first point `k0` that is neither end; `None` under three points (no point off the edge).
/// Without a division: this runs for every separator row.
#[inline(always)]
fn edge_end_and_first_off(ns: usize, i: usize) -> Option<(usize, usize)> {
    if ns < 3 || i >= ns {
        return None;
    }
    Some(if i + 1 == ns {
        (0, 1)
    } else if i == 0 {
        (1, 2)
    } else {
        (i + 1, 0)
    })
}

/// [`LANES`] candidate planes through a source edge (from `si` along `v1`) and pass points,
/// coordinate by coordinate: the points, the planes' normals, squared normal lengths before
/// normalising, distances, and the distance `d0` of the first source point off the edge.
struct Lanes {
    px: [f32; LANES],
    py: [f32; LANES],
    pz: [f32; LANES],
    nx: [f32; LANES],
    ny: [f32; LANES],
    nz: [f32; LANES],
    len: [f32; LANES],
    dist: [f32; LANES],
    d0: [f32; LANES],
}

impl Lanes {
    /// Each lane doing exactly `separator_candidate`'s scalar operations.
    #[inline(always)]
    fn new(row: [V3; LANES], si: V3, v1: V3, s0: V3) -> Lanes {
        let mut c = Lanes {
            px: row.map(|p| p[0]),
            py: row.map(|p| p[1]),
            pz: row.map(|p| p[2]),
            nx: [0f32; LANES],
            ny: [0f32; LANES],
            nz: [0f32; LANES],
            len: [0f32; LANES],
            dist: [0f32; LANES],
            d0: [0f32; LANES],
        };
        for k in 0..LANES {
            let v2 = [c.px[k] - si[0], c.py[k] - si[1], c.pz[k] - si[2]];
            let x = v1[1] * v2[2] - v1[2] * v2[1];
            let y = v1[2] * v2[0] - v1[0] * v2[2];
            let z = v1[0] * v2[1] - v1[1] * v2[0];
            let length = x * x + y * y + z * z;
            c.len[k] = length;
            let inv = 1.0 / length.sqrt();
            c.nx[k] = x * inv;
            c.ny[k] = y * inv;
            c.nz[k] = z * inv;
            c.dist[k] = c.px[k] * c.nx[k] + c.py[k] * c.ny[k] + c.pz[k] * c.nz[k];
            c.d0[k] = s0[0] * c.nx[k] + s0[1] * c.ny[k] + s0[2] * c.nz[k] - c.dist[k];
        }
        c
    }

    /// Lane `m`'s plane if it separates: long enough, the source on one side (`d0` nearly
    /// always tells which; else the source's points after `k0`, skipping the edge's ends `i`
    /// and `l`), the pass on the other.
    #[inline(always)]
    fn separator(
        &self,
        m: usize,
        source: &[V3],
        pass: &[V3],
        [k0, i, l]: [usize; 3],
        flipclip: bool,
    ) -> Option<VPlane> {
        if self.len[m] < ON_VIS_EPSILON {
            return None;
        }
        let plane = VPlane {
            normal: [self.nx[m], self.ny[m], self.nz[m]],
            dist: self.dist[m],
        };
        let fliptest = if self.d0[m] < -ON_VIS_EPSILON {
            false
        } else if self.d0[m] > ON_VIS_EPSILON {
            true
        } else {
            source_side(&source[k0 + 1..], k0 + 1, i, l, &plane)?
        };
        if pass.len() <= LANES {
            self.pass_separator(plane, fliptest, flipclip)
        } else {
            pass_separator(pass, plane, fliptest, flipclip)
        }
    }

    /// [`pass_separator`] when the lanes hold the whole pass (a point repeated changes
    /// nothing): its test on all the points at once.
    #[inline(always)]
    fn pass_separator(&self, plane: VPlane, fliptest: bool, flipclip: bool) -> Option<VPlane> {
        let p = if fliptest { plane.flipped() } else { plane };
        let [x, y, z] = p.normal;
        let d: [f32; LANES] =
            std::array::from_fn(|k| self.px[k] * x + self.py[k] * y + self.pz[k] * z - p.dist);
        let behind = d.iter().fold(false, |b, &d| b | (d < -ON_VIS_EPSILON));
        let front = d.iter().fold(false, |f, &d| f | (d > ON_VIS_EPSILON));
        (!behind && front).then(|| if flipclip { p.flipped() } else { p })
    }
}

/// Appends the next source edge's separators (see [`separator_row`]) in [`next_separator`]'s
/// order; false when there are no more edges.
pub fn next_separator_row(source: &[V3], pass: &[V3], cursor: &mut SepCursor, out: &mut Vec<VPlane>) -> bool {
    let Some((a, b, flip)) = cursor.current_pair(source, pass) else {
        return false;
    };
    let i = cursor.i;
    cursor.i += 1;
    separator_row(a, b, i, flip, out);
    true
}

/// The plane through edge `i` of `source` and point `j` of `pass`, if it separates them (vvis's
/// tests and epsilons, in its order of operations).
#[inline(always)]
fn separator_candidate(source: &[V3], pass: &[V3], i: usize, j: usize, flipclip: bool) -> Option<VPlane> {
    let ns = source.len();
    let l = (i + 1) % ns;
    let v1 = sub(source[l], source[i]);
    let pj = pass[j];
    let v2 = sub(pj, source[i]);
    let mut normal = [
        v1[1] * v2[2] - v1[2] * v2[1],
        v1[2] * v2[0] - v1[0] * v2[2],
        v1[0] * v2[1] - v1[1] * v2[0],
    ];
    let length = dot(normal, normal);
    if length < ON_VIS_EPSILON {
        return None;
    }
    let inv = 1.0 / length.sqrt();
    normal = [normal[0] * inv, normal[1] * inv, normal[2] * inv];
    let plane = VPlane {
        normal,
        dist: dot(pj, normal),
    };
    oriented_separator(source, pass, i, l, plane, flipclip)
}

/// vvis's tests on the plane through edge (`i`, `l`) of `source` and a point of `pass`:
/// turned to face away from the source (none when the source lies in it), kept only when every
/// other pass point is on its front and at least one strictly; flipped back for `flipclip`.
#[inline(always)]
fn oriented_separator(
    source: &[V3],
    pass: &[V3],
    i: usize,
    l: usize,
    plane: VPlane,
    flipclip: bool,
) -> Option<VPlane> {
    let fliptest = source_side(source, 0, i, l, &plane)?;
    pass_separator(pass, plane, fliptest, flipclip)
}

/// Which side of `plane` has the source (true: the front, so the plane must be flipped): that
/// of the first of its points (`points`, the source's from index `from`) off the plane, skipping
/// the edge's ends `i` and `l`. None when the source lies in the plane.
#[inline(always)]
fn source_side(points: &[V3], from: usize, i: usize, l: usize, plane: &VPlane) -> Option<bool> {
    for (k, &pk) in points.iter().enumerate() {
        if from + k == i || from + k == l {
            continue;
        }
        let d = dot(pk, plane.normal) - plane.dist;
        if d < -ON_VIS_EPSILON {
            return Some(false);
        } else if d > ON_VIS_EPSILON {
            return Some(true);
        }
    }
    None
}

/// `plane` (through a pass point), flipped when `fliptest`, if every pass point is on its
/// front and at least one strictly; flipped again for `flipclip`. The plane's own pass point
/// is tested too: its distance is exactly zero (the operations that gave `plane.dist`, and
/// negation is exact), neither behind nor in front, as if skipped as vvis does.
#[inline(always)]
fn pass_separator(pass: &[V3], mut plane: VPlane, fliptest: bool, flipclip: bool) -> Option<VPlane> {
    if fliptest {
        plane = plane.flipped();
    }
    let mut front = false;
    for &pk in pass {
        let d = dot(pk, plane.normal) - plane.dist;
        if d < -ON_VIS_EPSILON {
            return None;
        }
        front |= d > ON_VIS_EPSILON;
    }
    if !front {
        return None;
    }
    Some(if flipclip { plane.flipped() } else { plane })
}

/// Centre and bounding radius of a winding (vvis `SetPortalSphere`).
pub fn sphere(w: &[V3]) -> (V3, f32) {
    let mut total = [0f32; 3];
    for p in w {
        for k in 0..3 {
            total[k] += p[k];
        }
    }
    let n = w.len().max(1) as f32;
    for t in &mut total {
        *t /= n;
    }
    let mut best = 0f32;
    for &p in w {
        let d = sub(p, total);
        best = best.max(dot(d, d).sqrt());
    }
    (total, best)
}

/// vvis `PlaneFromWinding` (from points 0, 1, 2).
pub fn plane_from_winding(w: &[V3]) -> VPlane {
    if w.len() < 3 {
        return VPlane::default();
    }
    let v1 = sub(w[2], w[1]);
    let v2 = sub(w[0], w[1]);
    let mut n = [
        v2[1] * v1[2] - v2[2] * v1[1],
        v2[2] * v1[0] - v2[0] * v1[2],
        v2[0] * v1[1] - v2[1] * v1[0],
    ];
    let len = dot(n, n).sqrt();
    if len > 0.0 {
        let inv = 1.0 / len;
        n = [n[0] * inv, n[1] * inv, n[2] * inv];
    }
    VPlane {
        normal: n,
        dist: dot(w[0], n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(x: f32) -> Vec<V3> {
        vec![[x, 0.0, 0.0], [x, 0.0, 64.0], [x, 64.0, 64.0], [x, 64.0, 0.0]]
    }

    #[test]
    fn chop_cases() {
        let w = square(0.0);
        let mut out = Vec::new();
        let keep_low_y = VPlane {
            normal: [0.0, -1.0, 0.0],
            dist: -32.0,
        };
        assert_eq!(chop(&w, &keep_low_y, &mut out), Chop::Clipped);
        assert_eq!(out.len(), 4);
        assert!(out.iter().all(|p| p[1] <= 32.0));
        let all_front = VPlane {
            normal: [0.0, 1.0, 0.0],
            dist: -10.0,
        };
        assert_eq!(chop(&w, &all_front, &mut out), Chop::Unchanged);
        let all_back = VPlane {
            normal: [0.0, 1.0, 0.0],
            dist: 100.0,
        };
        assert_eq!(chop(&w, &all_back, &mut out), Chop::Gone);
    }

    #[test]
    fn quad_sides_agree_with_chop() {
        // Windings of one to four points against planes through and around them.
        let mut out = Vec::new();
        let pts: [V3; 4] = [
            [0.0, 0.0, 0.0],
            [64.0, 0.0, 0.0],
            [64.0, 64.0, 0.0],
            [0.0, 64.0, 0.0],
        ];
        for n in 1..=4 {
            let w = &pts[..n];
            let q = Quad::new(w).unwrap();
            for dist in [-100.0, -0.005, 0.0, 0.005, 1.0, 32.0, 63.995, 64.0, 100.0] {
                for normal in [[1.0, 0.0, 0.0], [-0.6, 0.8, 0.0], [0.0, 0.0, 1.0]] {
                    let plane = VPlane { normal, dist };
                    let expected = match chop(w, &plane, &mut out) {
                        Chop::Unchanged => cuts(w, &plane).then_some(true),
                        Chop::Gone => Some(false),
                        Chop::Clipped => Some(true),
                    };
                    let got = match q.sides(&plane) {
                        (false, _) => None,
                        (true, front) => Some(front),
                    };
                    assert_eq!(got, expected, "{n} points, {plane:?}");
                }
            }
        }
        assert!(Quad::new(&[]).is_none());
        assert!(Quad::new(&[[0.0; 3]; 5]).is_none());
    }

    #[test]
    fn separator_rows_match_the_scalar_search() {
        // Pseudo-random windings (a fixed generator), convex or not, some nearly planar with each
        // other: the rows must give the scalar search's planes bit for bit, in the same order.
        let mut state = 0x1234_5678_9abc_def0u64;
        let mut rnd = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((state >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 512.0
        };
        let mut total = 0;
        for case in 0..600 {
            let ns = 3 + case % 6;
            let np = 3 + (case / 6) % 14;
            let depth = if case % 5 == 0 { 0.0 } else { 200.0 };
            let source: Vec<V3> = (0..ns).map(|_| [rnd(), rnd(), rnd() * 0.01]).collect();
            let pass: Vec<V3> = (0..np).map(|_| [rnd(), rnd(), depth + rnd() * 0.01]).collect();
            let mut scalar = Vec::new();
            separators(&source, &pass, false, &mut scalar);
            separators(&pass, &source, true, &mut scalar);
            let mut rows = Vec::new();
            let mut cursor = SepCursor::default();
            while next_separator_row(&source, &pass, &mut cursor, &mut rows) {}
            let bits = |v: &[VPlane]| -> Vec<[u32; 4]> {
                v.iter()
                    .map(|p| {
                        [
                            p.normal[0].to_bits(),
                            p.normal[1].to_bits(),
                            p.normal[2].to_bits(),
                            p.dist.to_bits(),
                        ]
                    })
                    .collect()
            };
            assert_eq!(bits(&rows), bits(&scalar), "case {case}");
            total += rows.len();
        }
        assert!(total > 1000, "the cases should have separators: {total}");
    }

    #[test]
    fn separators_between_parallel_squares() {
        // Two facing squares: the separators are the planes bounding the "tube" between them.
        let mut planes = Vec::new();
        separators(&square(0.0), &square(64.0), false, &mut planes);
        assert!(!planes.is_empty());
        // A target straight ahead survives every separator; one far off to the side does not.
        let mut w = square(128.0);
        let mut buf = Vec::new();
        for p in &planes {
            match chop(&w, p, &mut buf) {
                Chop::Unchanged => {}
                Chop::Gone => panic!("straight-ahead target clipped away"),
                Chop::Clipped => w = buf.clone(),
            }
        }
        let far: Vec<V3> = square(128.0)
            .iter()
            .map(|p| [p[0], p[1] + 1000.0, p[2]])
            .collect();
        assert!(planes.iter().any(|p| chop(&far, p, &mut buf) == Chop::Gone));
    }
}
