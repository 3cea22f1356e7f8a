//! Source-space helpers every layer shares: entity origins and angles as they are written in
//! the entity lump, and the box around a set of points.

use glam::{Mat3, Vec3};

/// Entity angles (`pitch yaw roll`, degrees) as a Source-space rotation (`AngleMatrix`).
pub fn angles_rotation(angles: [f32; 3]) -> Mat3 {
    let cols = srcmap_geom::angle_matrix(angles.map(f64::from));
    Mat3::from_cols_array_2d(&cols.map(|c| c.map(|x| x as f32)))
}

/// Parses "x y z" (three numbers), as entity origins and angles are written.
pub fn parse_vec3(s: &str) -> Option<[f32; 3]> {
    let mut it = s.split_whitespace().map(|t| t.parse::<f32>().ok());
    let v = [it.next()??, it.next()??, it.next()??];
    v.iter().all(|c| c.is_finite()).then_some(v)
}

/// The box around `points` (`None` when there are none).
pub fn bounds_of(mut points: impl Iterator<Item = Vec3>) -> Option<(Vec3, Vec3)> {
    let first = points.next()?;
    Some(points.fold((first, first), |(lo, hi), p| (lo.min(p), hi.max(p))))
}
