//! Light intensity at an area's corners from the map's lightmaps: what the game's
//! `ComputeLighting` asks the engine on a listen server (`GetLightForPoint`: the lightmap of
//! the surface under a point), done offline. The point is the corner pulled 12.5 units into
//! the area (less in a small one), 17.5 units over the floor (half a player less a step, as
//! the game lights from); a ray straight down finds the world face under it, and the
//! intensity is the sum of red, green and blue of that face's base lightmap at the nearest
//! luxel (displacements: the face's average), 255 per channel being 1, clamped to 0..1.
//! Without lighting data, or with nothing under a corner, the corner reads 1.0 (as on a
//! dedicated server).

use glam::Vec3;
use srcmap_bsp::Bsp;
use srcmap_trace::{Scene, SceneBuilder, Tracer};

use crate::areas::Area;
use crate::sample::{HALF_HUMAN_HEIGHT, STEP_HEIGHT};
use crate::visibility::corners;

/// How far in from a corner the sample stands (`FindPositionInArea`).
const INSET: f32 = 12.5;
/// How far down the engine looks for the surface under a point.
const REACH: f32 = 2048.0;
/// What a dedicated server writes, and what a corner without light data gets.
pub const FULL: f32 = 1.0;

/// The world's lit faces as a ray-traced scene (payload: face index).
pub struct Lightmaps<'a> {
    bsp: &'a Bsp,
    scene: Scene,
    hdr: bool,
}

impl<'a> Lightmaps<'a> {
    pub fn new(bsp: &'a Bsp) -> Lightmaps<'a> {
        let mut builder = SceneBuilder::new();
        let world = bsp.model_face_range(0, bsp.faces.len());
        for (i, face) in bsp.faces.iter().enumerate().take(world.end).skip(world.start) {
            if face.light_offset < 0 {
                continue;
            }
            if let Some(points) = bsp.face_vertices(face) {
                builder.add_polygon(&points, i as u32);
            }
        }
        Lightmaps {
            bsp,
            scene: builder.build(),
            hdr: bsp.lighting.is_empty(),
        }
    }

    /// NW, NE, SE, SW intensities of `area`.
    pub fn area(&self, area: &Area) -> [f32; 4] {
        let half = [
            (area.max[0] - area.min[0]) / 2.0,
            (area.max[1] - area.min[1]) / 2.0,
        ];
        let inset = [INSET.min(half[0]), INSET.min(half[1])];
        let signs = [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)];
        let mut out = [FULL; 4];
        for ((c, (sx, sy)), light) in corners(area).into_iter().zip(signs).zip(&mut out) {
            let (x, y) = (c.x + sx * inset[0], c.y + sy * inset[1]);
            let p = Vec3::new(x, y, area.z_at(x, y) + HALF_HUMAN_HEIGHT - STEP_HEIGHT);
            *light = self.at(p).unwrap_or(FULL);
        }
        out
    }

    /// The intensity of the lightmap under `p`, if a lit face is there.
    pub fn at(&self, p: Vec3) -> Option<f32> {
        let hit = self.scene.closest(p.to_array(), [0.0, 0.0, -1.0], REACH)?;
        let floor = p - Vec3::Z * hit.t;
        let [r, g, b] = self.luxel(hit.payload as usize, floor)?.to_linear();
        Some(((r + g + b) / 255.0).clamp(0.0, 1.0))
    }

    /// The base-style luxel of face `index` nearest `p` (a displacement's average).
    fn luxel(&self, index: usize, p: Vec3) -> Option<srcmap_bsp::records::ColorRgbExp32> {
        let face = self.bsp.faces.get(index)?;
        let lighting = self.bsp.face_lighting(index, self.hdr)?;
        if face.dispinfo >= 0 {
            return lighting.averages.first().copied();
        }
        let vecs = self
            .bsp
            .texinfo
            .get(usize::try_from(face.texinfo).ok()?)?
            .lightmap_vecs;
        let coord = |axis: usize| {
            let v = vecs[axis];
            let s = p.dot(Vec3::new(v[0], v[1], v[2])) + v[3] - face.lightmap_mins[axis] as f32;
            s.round().clamp(0.0, face.lightmap_size[axis] as f32) as usize
        };
        let width = face.lightmap_size[0] as usize + 1;
        lighting.styles.first()?.get(coord(1) * width + coord(0)).copied()
    }
}
