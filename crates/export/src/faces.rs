//! A BSP's faces as the exporter sees them: the face list the models index, which are drawn,
//! their polygons and how many triangles each makes.

use glam::Vec3;
use srcmap_bsp::Bsp;
use srcmap_bsp::flags::SurfaceFlags;

/// Surfaces that are never drawn as world geometry.
const HIDDEN: SurfaceFlags = SurfaceFlags(
    SurfaceFlags::NODRAW.bits()
        | SurfaceFlags::SKY.bits()
        | SurfaceFlags::SKY2D.bits()
        | SurfaceFlags::HINT.bits()
        | SurfaceFlags::SKIP.bits()
        | SurfaceFlags::TRIGGER.bits(),
);

/// The faces the models index: the LDR lump, or the HDR one in console maps that strip it.
pub fn faces_of(bsp: &Bsp) -> &[srcmap_bsp::Face] {
    srcmap_disp::disp_faces(bsp)
}

/// Whether `texinfo` is drawn.
pub fn is_drawn(bsp: &Bsp, texinfo: i32) -> bool {
    usize::try_from(texinfo)
        .ok()
        .and_then(|t| bsp.texinfo.get(t))
        .is_some_and(|t| !SurfaceFlags::from_record(t.flags).intersects(HIDDEN))
}

/// Triangles a face contributes: a fan of `n - 2` for a polygon, the grid's for a displacement.
pub fn face_triangle_count(bsp: &Bsp, face: usize) -> usize {
    let Some(f) = faces_of(bsp).get(face) else {
        return 0;
    };
    if f.dispinfo >= 0 {
        return bsp
            .disp_info
            .get(f.dispinfo as usize)
            .and_then(|d| u32::try_from(d.power).ok())
            .filter(|p| *p <= srcmap_disp::MAX_POWER)
            .map_or(0, srcmap_disp::tri_count);
    }
    usize::try_from(f.num_edges).map_or(0, |n| n.saturating_sub(2))
}

/// The face's polygon vertices, in winding order (`None` if an index is out of range).
pub fn face_polygon(bsp: &Bsp, f: &srcmap_bsp::Face) -> Option<Vec<Vec3>> {
    Some(bsp.face_vertices(f)?.into_iter().map(Vec3::from).collect())
}
