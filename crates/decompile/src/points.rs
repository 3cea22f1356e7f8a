//! A side's three plane points. They are taken on the brush's own winding, spread as far
//! apart as it allows, and rounded to integers when the rounded points name the same plane
//! as the BSP stored it, f32 for f32 (Hammer's grid: the usual case); otherwise the exact
//! winding points are kept, which name the stored plane to f64 precision.

use srcmap_geom::{DVec3, Plane, Winding};

/// Plane points for `plane` on `winding`, clockwise seen from the front (Hammer's order).
pub(crate) fn plane_points(plane: &Plane, winding: &Winding) -> [[f64; 3]; 3] {
    let picked = spread_points(&winding.points).unwrap_or_else(|| points_on(plane));
    let chosen = integral_points(plane, &winding.points).unwrap_or(picked);
    oriented(chosen, plane).map(|p| p.to_array())
}

/// Three of the winding's corners rounded to integers that name `plane` as stored, the
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
    let fits = |t: &&(f64, [DVec3; 3])| t.0 > 1e-6 && names_plane(&t.1, plane);
    triples.iter().find(fits).map(|t| t.1)
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
    fn off_grid_planes_keep_exact_points() {
        let n = DVec3::new(1.0, 2.0, 3.0).normalize();
        let plane = Plane::new(n, 10.3);
        let w = Winding::base_for_plane(&plane);
        let pts = plane_points(&plane, &w);
        let back = Plane::from_points(pts[0].into(), pts[1].into(), pts[2].into()).unwrap();
        assert!(back.approx_eq(&plane, 1e-9, 1e-6), "{back:?}");
    }
}
