//! Detail-prop lighting (VRAD's `ComputeDetailPropLighting`): one colour per detail prop of
//! the `dprp` lump (its `m_Lighting`, style 0), and for the switchable styles that reach it,
//! entries of the `dplt` (LDR) or `dplh` (HDR) game lump the prop indexes.
//!
//! Per prop, at its centre (the origin moved by half the sprite's extent, or the detail
//! model's hull centre) with its up vector as normal:
//! * **direct**: every light but sky ambient whose PVS holds the prop's cluster, traced and
//!   attenuated as for a luxel, per style;
//! * **ambient**: 162 rays over the sphere to the first lit surface: a lightmap sample there
//!   (blended toward the face's average as the ray's cone widens from 20 to 40 units) times
//!   the surface's reflectivity, or, on sky, the sky-ambient light's intensity; averaged.
//!
//! Style 0 is direct plus ambient; other styles are half that, written only when not zero.
//! Runs after the range's lightmaps are written, since it reads them.

use glam::Vec3;
use rayon::prelude::*;
use srcmap_bsp::Bsp;
use srcmap_bsp::gamelump::{DPLH, DPLT, DetailObject, DetailPropLight, DetailProps, GameLump, GameLumpData};
use srcmap_trace::{Hit, Tracer};

use crate::color::{decode, encode};
use crate::direct::{Shadows, gather};
use crate::faces::FaceGeom;
use crate::lights::{Light, LightKind, Range};
use crate::props::{ModelSource, angle_matrix};
use crate::sampling::sphere_directions;
use crate::scene::{MAX_TRACE, SKY};
use crate::{Counters, World};

/// VRAD's `NUMVERTEXNORMALS`: ambient rays per detail prop.
const AMBIENT_RAYS: usize = 162;
/// `tan(VERTEXNORMAL_CONE_INNER_ANGLE)` (7.275°): how fast an ambient ray's cone widens.
const CONE_TAN: f32 = 0.127_654;
/// Styles a light can have.
const MAX_LIGHTSTYLES: usize = 64;
/// `DETAIL_PROP_TYPE_MODEL`, `DETAIL_PROP_TYPE_SPRITE`.
const KIND_MODEL: u8 = 0;
const KIND_SPRITE: u8 = 1;
/// `GAMELUMP_DETAIL_PROP_LIGHTING_VERSION` (and `_HDR_VERSION`).
const LIGHTING_VERSION: u16 = 0;

/// What [`light_detail_props`] wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DetailLighting {
    /// Detail props lit.
    pub props: usize,
    /// Entries of the style lump (`dplt` or `dplh`).
    pub style_entries: usize,
}

/// Per detail model: the centre of its studio hull (zero when its `.mdl` is not at hand).
fn model_centres(detail: &DetailProps, models: Option<&ModelSource>) -> Vec<Vec3> {
    detail
        .models
        .iter()
        .map(|name| {
            models
                .and_then(|m| (m.0)(&srcmap_model::normalise(name)))
                .and_then(|bytes| srcmap_model::Mdl::parse(&bytes).ok())
                .map_or(Vec3::ZERO, |mdl| {
                    (Vec3::from(mdl.hull_min) + Vec3::from(mdl.hull_max)) * 0.5
                })
        })
        .collect()
}

/// A lit face's lightmap as written: style numbers, per style the average and the flat
/// samples (bump bases left out), with its width.
pub(crate) struct WrittenLightmap {
    pub styles: Vec<u8>,
    pub averages: Vec<Vec3>,
    pub samples: Vec<Vec<Vec3>>,
    pub width: usize,
    pub height: usize,
}

impl WrittenLightmap {
    /// Style slot `k`'s flat sample at luxel-space `st` (truncated and clamped, as VRAD reads
    /// the luxel a ray lands on).
    pub fn sample(&self, k: usize, st: glam::Vec2) -> Vec3 {
        let s = (st.x as i64).clamp(0, self.width as i64 - 1) as usize;
        let t = (st.y as i64).clamp(0, self.height as i64 - 1) as usize;
        self.samples
            .get(k)
            .and_then(|v| v.get(t * self.width + s))
            .copied()
            .unwrap_or_default()
    }
}

/// Per face, its lightmap as written for LDR or HDR (`hdr`); `None` for unlit faces.
pub(crate) fn written_lightmaps(bsp: &Bsp, world: &World, hdr: bool) -> Vec<Option<WrittenLightmap>> {
    world
        .faces
        .iter()
        .enumerate()
        .map(|(i, g)| {
            if g.lit {
                WrittenLightmap::read(bsp, i, g, hdr)
            } else {
                None
            }
        })
        .collect()
}

impl WrittenLightmap {
    /// Face `i`'s lightmap as written (as `Bsp::face_lighting`: HDR faces when the map has
    /// them).
    fn read(bsp: &Bsp, i: usize, g: &FaceGeom, hdr: bool) -> Option<WrittenLightmap> {
        let faces = if hdr && !bsp.faces_hdr.is_empty() {
            &bsp.faces_hdr
        } else {
            &bsp.faces
        };
        let face = faces.get(i)?;
        let lit = bsp.face_lighting(i, hdr)?;
        let luxels = g.width * g.height;
        Some(WrittenLightmap {
            styles: face.styles.iter().copied().take_while(|&s| s != 255).collect(),
            averages: lit.averages.iter().map(|&c| decode(c)).collect(),
            samples: lit
                .styles
                .iter()
                .map(|s| s.iter().take(luxels).map(|&c| decode(c)).collect())
                .collect(),
            width: g.width,
            height: g.height,
        })
    }
}

/// Lights every detail prop of `bsp` for `range` from the lightmaps just written
/// ([`written_lightmaps`]), and
/// writes the props' colours and the range's style lump. Nothing is written for a map with
/// no detail props (as VRAD).
pub(crate) fn light_detail_props(
    bsp: &mut Bsp,
    world: &World,
    lights: &[Light],
    range: Range,
    models: Option<&ModelSource>,
    lightmaps: &[Option<WrittenLightmap>],
    counters: &Counters,
) -> DetailLighting {
    let Some(detail) = bsp.game_lumps.lumps.iter().find_map(|l| match &l.data {
        GameLumpData::DetailProps(d) if !d.objects.is_empty() => Some(d.clone()),
        _ => None,
    }) else {
        return DetailLighting::default();
    };
    let centres = model_centres(&detail, models);
    let dirs = sphere_directions(AMBIENT_RAYS);
    let lighter = DetailLighter::new(world, lights, lightmaps, &centres, &detail, &dirs);
    let per_prop = lighter.light_all(counters);
    let mut objects = detail.objects;
    let entries = style_entries(&mut objects, &per_prop);
    let result = DetailLighting {
        props: objects.len(),
        style_entries: entries.len(),
    };
    store(bsp, objects, entries, range == Range::Hdr);
    result
}

/// What lighting one detail prop reads.
struct DetailLighter<'a> {
    world: &'a World,
    lights: &'a [Light],
    /// Per light, the cluster it is in.
    light_clusters: Vec<i32>,
    lightmaps: &'a [Option<WrittenLightmap>],
    /// Per detail model, its hull centre ([`model_centres`]).
    centres: &'a [Vec3],
    detail: &'a DetailProps,
    /// The ambient rays' directions.
    dirs: &'a [Vec3],
    shadows: Shadows<'a>,
    reflectivity: Vec<Vec3>,
    /// The sky-ambient light's intensity (zero without one).
    sky_ambient: Vec3,
}

impl<'a> DetailLighter<'a> {
    fn new(
        world: &'a World,
        lights: &'a [Light],
        lightmaps: &'a [Option<WrittenLightmap>],
        centres: &'a [Vec3],
        detail: &'a DetailProps,
        dirs: &'a [Vec3],
    ) -> Self {
        let sky_ambient = lights
            .iter()
            .find(|l| l.kind == LightKind::SkyAmbient)
            .map_or(Vec3::ZERO, |l| l.intensity);
        DetailLighter {
            world,
            lights,
            light_clusters: lights.iter().map(|l| world.cluster_at(l.origin)).collect(),
            lightmaps,
            centres,
            detail,
            dirs,
            shadows: Shadows {
                scene: &world.occluders,
                sky_faces: None,
                sky3d: world.sky3d.as_ref(),
                sky_dirs: &[],
            },
            reflectivity: world.faces.iter().map(|g| g.reflectivity).collect(),
            sky_ambient,
        }
    }

    /// The prop's centre and up vector: the origin moved by half the sprite's extent, or
    /// by the detail model's hull centre.
    fn centre(&self, o: &DetailObject) -> (Vec3, Vec3) {
        let rot = angle_matrix(o.angles);
        let up = rot.col(2);
        let offset = match o.kind {
            KIND_MODEL => self
                .centres
                .get(o.detail_model as usize)
                .copied()
                .unwrap_or_default(),
            KIND_SPRITE => self
                .detail
                .sprites
                .get(o.detail_model as usize)
                .map_or(Vec3::ZERO, |s| {
                    Vec3::new(0.0, s.lr[0] + s.ul[0], s.lr[1] + s.ul[1]) * 0.5 * o.scale
                }),
            _ => Vec3::ZERO,
        };
        // VRAD moves the centre by x forward, y to the left (minus right) and z up.
        let centre = Vec3::from(o.origin) + rot.col(0) * offset.x + rot.col(1) * offset.y + up * offset.z;
        (centre, up)
    }

    /// Per prop, per style: its light (zero where it is not finite).
    fn light_all(&self, counters: &Counters) -> Vec<[Vec3; MAX_LIGHTSTYLES]> {
        self.detail
            .objects
            .par_iter()
            .map(|o| {
                let mut rays = 0u64;
                let color = self.light(o, &mut rays);
                if color.is_some() {
                    counters.add_pass_rays(&counters.prop_rays, rays);
                }
                color.unwrap_or([Vec3::ZERO; MAX_LIGHTSTYLES])
            })
            .collect()
    }

    /// Per style, the prop's direct plus averaged ambient light; `None` (unlit, no rays
    /// counted) when its centre or up vector is not finite.
    fn light(&self, o: &DetailObject, rays: &mut u64) -> Option<[Vec3; MAX_LIGHTSTYLES]> {
        let (centre, up) = self.centre(o);
        if !centre.is_finite() || !up.is_finite() {
            return None;
        }
        let mut color = self.direct(centre, up, rays);
        let ambient = self.ambient(centre, rays);
        for (c, a) in color.iter_mut().zip(ambient) {
            *c += a / AMBIENT_RAYS as f32;
        }
        Some(color)
    }

    /// Per style, the light of every light but sky ambient whose PVS holds the centre.
    fn direct(&self, centre: Vec3, up: Vec3, rays: &mut u64) -> [Vec3; MAX_LIGHTSTYLES] {
        let mut color = [Vec3::ZERO; MAX_LIGHTSTYLES];
        let cluster = self.world.cluster_at(centre);
        let mut f = [0.0f32; 4];
        for (l, &lc) in self.lights.iter().zip(&self.light_clusters) {
            if l.kind == LightKind::SkyAmbient || !self.world.sees(l, lc, cluster) {
                continue;
            }
            if gather(&self.shadows, l, centre, &[up], rays, &mut f) {
                color[l.style as usize % MAX_LIGHTSTYLES] += l.intensity * f[0];
            }
        }
        color
    }

    /// Per style, the sum over the ambient rays of what each reaches: a lightmap sample
    /// (toward the face's average as the ray's cone widens) times reflectivity, or sky.
    fn ambient(&self, centre: Vec3, rays: &mut u64) -> [Vec3; MAX_LIGHTSTYLES] {
        let mut ambient = [Vec3::ZERO; MAX_LIGHTSTYLES];
        for d in self.dirs {
            *rays += 1;
            let Some(hit) = self
                .world
                .surfaces
                .closest(centre.to_array(), d.to_array(), MAX_TRACE)
            else {
                continue;
            };
            if hit.payload & SKY != 0 {
                ambient[0] += self.sky_ambient;
                continue;
            }
            self.add_surface(&mut ambient, hit, centre, *d);
        }
        ambient
    }

    /// Adds, per style, the lightmap light where an ambient ray hit a face.
    #[inline]
    fn add_surface(&self, ambient: &mut [Vec3; MAX_LIGHTSTYLES], hit: Hit, centre: Vec3, d: Vec3) {
        let face = hit.payload as usize;
        let Some(Some(lm)) = self.lightmaps.get(face) else {
            return;
        };
        let refl = self.reflectivity.get(face).copied().unwrap_or(Vec3::ZERO);
        let (st, _) = self.world.surface_hit(face, hit.triangle, centre + d * hit.t);
        let scale_avg = ((hit.t * CONE_TAN - 20.0) / 20.0).clamp(0.0, 1.0);
        for (k, &style) in lm.styles.iter().enumerate() {
            let avg = lm.averages.get(k).copied().unwrap_or_default();
            let sample = lm.sample(k, st);
            ambient[style as usize % MAX_LIGHTSTYLES] +=
                (avg * scale_avg + sample * (1.0 - scale_avg)) * refl;
        }
    }
}

/// Sets each prop's colour (style 0) and appends its other styles, halved as VRAD stores
/// them, to the style entries it indexes (none for a style that is zero).
fn style_entries(objects: &mut [DetailObject], per_prop: &[[Vec3; MAX_LIGHTSTYLES]]) -> Vec<DetailPropLight> {
    let mut entries: Vec<DetailPropLight> = Vec::new();
    for (o, color) in objects.iter_mut().zip(per_prop) {
        o.lighting = encode(color[0]);
        o.light_style_count = 0;
        for (style, &c) in color.iter().enumerate().skip(1) {
            let c = c * 0.5;
            if c == Vec3::ZERO {
                continue;
            }
            if o.light_style_count == 0 {
                o.light_styles = entries.len() as u32;
            }
            entries.push(DetailPropLight {
                lighting: encode(c),
                style: style as u8,
            });
            o.light_style_count += 1;
        }
    }
    entries
}

/// Writes the lit props back into the `dprp` lump and the entries into the range's style
/// lump (`dplt`, `dplh`), added when the map has none.
fn store(bsp: &mut Bsp, objects: Vec<DetailObject>, entries: Vec<DetailPropLight>, hdr: bool) {
    for l in &mut bsp.game_lumps.lumps {
        if let GameLumpData::DetailProps(d) = &mut l.data {
            d.objects = objects;
            break;
        }
    }
    let id = if hdr { DPLH } else { DPLT };
    let data = GameLumpData::DetailPropLighting(entries);
    match bsp.game_lumps.lumps.iter_mut().find(|l| l.id == id) {
        Some(l) => {
            l.version = LIGHTING_VERSION;
            l.data = data;
        }
        None => bsp.game_lumps.lumps.push(GameLump {
            id,
            flags: 0,
            version: LIGHTING_VERSION,
            data,
        }),
    }
}
