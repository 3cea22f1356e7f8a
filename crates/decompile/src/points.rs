//! A side's three plane points. They are taken on the brush's own winding, spread as far
//! apart as it allows, and rounded to integers when the rounded points name the same plane
//! as the BSP stored it, f32 for f32 (Hammer's grid: the usual case), in our compiler's
//! arithmetic or in Valve's single-precision one (the stored plane is then the one Valve's
//! vbsp made of those very points); otherwise the exact winding points are kept, which name
//! the stored plane to f64 precision.

use srcmap_geom::{DVec3, Plane, Winding};

/// Plane points for `plane` on `winding`, clockwise seen from the front (Hammer's order).
pub(crate) fn plane_points(plane: &Plane, winding: &Winding) -> [[f64; 3]; 3] {
    let picked = spread_points(&winding.points).unwrap_or_else(|| points_on(plane));
    let chosen = integral_points(plane, &winding.points).unwrap_or(picked);
    oriented(chosen, plane).map(|p| p.to_array())
}

/// Three of the winding's corners rounded to integers that name `plane` as stored (in our
/// arithmetic, or in Valve's, then in the order Valve's gives it from), the
/// largest triangle first (the first, largest guess is the usual one; a corner the compiler
/// moved off the grid can spoil it while another three name the plane exactly).
fn integral_points(plane: &Plane, points: &[DVec3]) -> Option<[DVec3; 3]> {
    let corners: Vec<DVec3> = points.iter().take(MAX_CORNERS).map(|p| p.round()).collect();
    let mut triples = Vec::new();
    for i in 0..corners.len() {
        for j in i + 1..corners.len() {
            for k in j + 1..corners.len() {
                let t = [corners[i], corners[j], corners[k]];
                triples.push(((t[1] - t[0]).cross(t[2] - t[0]).length_squared(), t));
            }
        }
    }
    triples.sort_by(|a, b| b.0.total_cmp(&a.0));
    let fits = |&(area, t): &(f64, [DVec3; 3])| match () {
        _ if area <= 1e-6 => None,
        _ if names_plane(&t, plane) => Some(t),
        _ => valve_order(&t, plane),
    };
    triples.iter().find_map(fits)
}

/// The order of `points` (first point first: it sets the distance) from which Valve's vbsp
/// makes exactly `plane` as stored, if one does.
fn valve_order(points: &[DVec3; 3], plane: &Plane) -> Option<[DVec3; 3]> {
    let [a, b, c] = *points;
    let orders = [[a, b, c], [b, c, a], [c, a, b], [c, b, a], [b, a, c], [a, c, b]];
    let stored = (plane.normal.to_array().map(|x| x as f32), plane.dist as f32);
    orders.into_iter().find(|o| valve_plane(o) == stored)
}

/// The plane Valve's vbsp makes of three map points, in its single precision
/// (`PlaneFromPoints`: the edges' cross product times `1 / (length + FLT_EPSILON)`, the
/// distance from the first point; then `SnapPlane`: a nearly axial normal made axial with the
/// distance from the points' centre, a distance within 0.01 of an integer rounded). Where the
/// stored plane is exactly this, the points are the mapper's, not the float error's.
fn valve_plane(points: &[DVec3; 3]) -> ([f32; 3], f32) {
    let [p0, p1, p2] = points.map(|p| p.to_array().map(|x| x as f32));
    let (t1, t2) = (sub(p0, p1), sub(p2, p1));
    let cross = [
        t1[1] * t2[2] - t1[2] * t2[1],
        t1[2] * t2[0] - t1[0] * t2[2],
        t1[0] * t2[1] - t1[1] * t2[0],
    ];
    let scale = 1.0 / (dot(cross, cross).sqrt() + f32::EPSILON);
    let mut normal = cross.map(|x| x * scale);
    let mut dist = dot(p0, normal);
    if let Some(axis) = normal.iter().position(|n| (n.abs() - 1.0).abs() < 1e-5) {
        normal = [0.0; 3];
        normal[axis] = (cross[axis]).signum();
        dist = dot(normal, [0, 1, 2].map(|i| (p0[i] + p1[i] + p2[i]) / 3.0));
    }
    let nearest = (dist + 0.5).floor();
    if (dist - nearest).abs() < 0.01 {
        dist = nearest;
    }
    (normal, dist)
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// Left to right, as C adds.
fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The corners tried for integral points (a winding has few; the count of triples grows
/// with the cube).
const MAX_CORNERS: usize = 12;

/// Three points of `points` spanning a large triangle: the first, the farthest from it, and
/// the farthest from the line through both.
fn spread_points(points: &[DVec3]) -> Option<[DVec3; 3]> {
    let a = *points.first()?;
    let b = *points
        .iter()
        .max_by(|p, q| a.distance_squared(**p).total_cmp(&a.distance_squared(**q)))?;
    let ab = b - a;
    let area = |p: &DVec3| ab.cross(*p - a).length_squared();
    let c = *points.iter().max_by(|p, q| area(p).total_cmp(&area(q)))?;
    (area(&c) > 1e-6).then_some([a, b, c])
}

/// Three points on a plane with no usable winding (a degenerate side): around its foot.
fn points_on(plane: &Plane) -> [DVec3; 3] {
    let w = Winding::base_for_plane(plane);
    let c = plane.normal * plane.dist;
    let towards = |p: DVec3| c + (p - c).normalize_or_zero() * 64.0;
    [towards(w.points[0]), towards(w.points[1]), towards(w.points[2])]
}

/// The points, read back as the compiler reads them, give `plane` as the BSP stored it: the
/// same f32 normal and distance. A plane off by less than that still rounds differently in
/// the recompile and moves its splits (subway01: 317 clusters against Valve's 308 with
/// rounded points a hundred-thousandth off, 308 with the stored planes).
fn names_plane(points: &[DVec3; 3], plane: &Plane) -> bool {
    let Some(p) = Plane::from_points_snapped(points[0], points[1], points[2]) else {
        return false;
    };
    let p = if p.normal.dot(plane.normal) < 0.0 {
        p.flipped()
    } else {
        p
    };
    let same = |a: f64, b: f64| a as f32 == b as f32;
    (0..3).all(|i| same(p.normal[i], plane.normal[i])) && same(p.dist, plane.dist)
}

/// The points in the order whose plane faces `plane`'s way.
fn oriented(points: [DVec3; 3], plane: &Plane) -> [DVec3; 3] {
    let [p0, p1, p2] = points;
    if (p0 - p1).cross(p2 - p1).dot(plane.normal) < 0.0 {
        [p2, p1, p0]
    } else {
        points
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integral_points_are_kept_and_face_the_plane() {
        let plane = Plane::new(DVec3::new(0.6, 0.0, 0.8), 0.8 * 64.0 + 0.6 * 32.0);
        let w = Winding::new(vec![
            DVec3::new(32.0, -16.0, 64.0),
            DVec3::new(32.0, 16.0, 64.0),
            DVec3::new(-32.0 + 1e-9, 16.0, 112.0),
        ]);
        let pts = plane_points(&plane, &w);
        for p in pts {
            assert_eq!(p, p.map(f64::round));
        }
        let back = Plane::from_points(pts[0].into(), pts[1].into(), pts[2].into()).unwrap();
        assert!(back.approx_eq(&plane, 1e-12, 1e-9), "{back:?}");
    }

    #[test]
    fn rounded_points_must_give_the_stored_f32_plane() {
        // A 45-degree wall whose stored distance is one f32 step off the integral plane's:
        // rounded corners would name a plane the recompile stores differently.
        let n = DVec3::new(1.0, 1.0, 0.0).normalize();
        let exact = Plane::new(n, n.dot(DVec3::new(64.0, 0.0, 0.0)));
        let stored = Plane::new(n, f32::from_bits((exact.dist as f32).to_bits() + 1) as f64);
        let w = Winding::base_for_plane(&stored);
        let pts = plane_points(&stored, &w);
        assert!(pts.iter().flatten().any(|c| c.fract() != 0.0), "{pts:?}");
        let back = Plane::from_points(pts[0].into(), pts[1].into(), pts[2].into()).unwrap();
        assert_eq!(back.dist as f32, stored.dist as f32);
    }

    #[test]
    fn integral_points_whose_valve_plane_is_the_stored_one_are_kept() {
        // A 45-degree wall: Valve's vbsp, in f32, puts the plane of the mapper's integral
        // points an f32 step off the exact one, and the BSP stores that plane. Our arithmetic
        // does not give it back; Valve's does, so the integral points are written.
        let mapper = [
            DVec3::new(-348.0, -148.0, 256.0),
            DVec3::new(-332.0, -164.0, 128.0),
            DVec3::new(-332.0, -164.0, 256.0),
        ];
        let (n, d) = valve_plane(&mapper);
        let stored = Plane::new(DVec3::from_array(n.map(f64::from)), f64::from(d));
        assert!(!names_plane(&mapper, &stored));
        let on = |p: DVec3| p - stored.normal * stored.distance(p);
        let corner = DVec3::new(-348.0, -148.0, 128.0);
        let w = Winding::new(vec![on(mapper[0]), on(corner), on(mapper[1]), on(mapper[2])]);
        let pts = plane_points(&stored, &w);
        assert!(pts.iter().flatten().all(|c| c.fract() == 0.0), "{pts:?}");
        assert_eq!(valve_plane(&pts.map(DVec3::from_array)), (n, d));
    }

    #[test]
    fn a_plane_one_step_off_valves_keeps_exact_points() {
        let mapper = [
            DVec3::new(-348.0, -148.0, 256.0),
            DVec3::new(-332.0, -164.0, 128.0),
            DVec3::new(-332.0, -164.0, 256.0),
        ];
        let (n, d) = valve_plane(&mapper);
        // One f32 step from Valve's distance, on the side away from the exact plane's (which
        // our own arithmetic would name).
        let exact = Plane::from_points(mapper[0], mapper[1], mapper[2]).unwrap().dist as f32;
        let steps = [d.to_bits() - 1, d.to_bits() + 1].map(f32::from_bits);
        let off = steps.into_iter().find(|s| s.abs() != exact.abs()).unwrap();
        let stored = Plane::new(DVec3::from_array(n.map(f64::from)), f64::from(off));
        let on = |p: DVec3| p - stored.normal * stored.distance(p);
        let w = Winding::new(mapper.iter().map(|&p| on(p)).collect());
        let pts = plane_points(&stored, &w);
        assert!(pts.iter().flatten().any(|c| c.fract() != 0.0), "{pts:?}");
    }

    #[test]
    fn off_grid_planes_keep_exact_points() {
        let n = DVec3::new(1.0, 2.0, 3.0).normalize();
        let plane = Plane::new(n, 10.3);
        let w = Winding::base_for_plane(&plane);
        let pts = plane_points(&plane, &w);
        let back = Plane::from_points(pts[0].into(), pts[1].into(), pts[2].into()).unwrap();
        assert!(back.approx_eq(&plane, 1e-9, 1e-6), "{back:?}");
    }
}
