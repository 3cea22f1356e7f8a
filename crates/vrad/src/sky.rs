//! What sees the sky: the 3D skybox that sun and sky rays continue through, and the clusters
//! the sun and sky ambient may light at all.

use glam::Vec3;
use srcmap_bsp::Bsp;
use srcmap_bsp::flags::SurfaceFlags;
use srcmap_trace::{Hit, LeafCache, Tracer};

use crate::lights;
use crate::scene::{MAX_TRACE, SKY};
use crate::tree::Tree;

/// The 3D skybox cameras (`sky_camera` entities): a sun or sky ray that reaches the sky from
/// outside the skybox continues from the matching point of the skybox (camera origin +
/// position / scale), where the skybox's own geometry can still block it (VRAD's
/// `TestLine_DoesHitSky` recursion).
#[derive(Debug, Clone, Default)]
pub struct Sky3d {
    /// (origin, 1 / scale) per camera.
    cameras: Vec<(Vec3, f32)>,
    tree: Tree,
    /// Per leaf: it lies in an area with a camera (the skybox itself: no recursion).
    in_skybox: Vec<bool>,
}

impl Sky3d {
    /// `None` without a `sky_camera` of positive scale.
    pub fn new(bsp: &Bsp) -> Option<Sky3d> {
        let tree = Tree::new(bsp);
        let mut cameras = Vec::new();
        let mut camera_areas = Vec::new();
        for e in bsp.entities.iter().filter(|e| is_class(e, "sky_camera")) {
            let scale = lights::key_f32(e, "scale");
            if scale <= 0.0 {
                continue;
            }
            let origin = lights::key_vec(e, "origin");
            if let Some(leaf) = tree.leaf_at(origin) {
                camera_areas.push(bsp.leafs[leaf].area(bsp.version));
            }
            cameras.push((origin, 1.0 / scale));
        }
        if cameras.is_empty() {
            return None;
        }
        Some(Sky3d {
            cameras,
            tree,
            in_skybox: bsp
                .leafs
                .iter()
                .map(|l| camera_areas.contains(&l.area(bsp.version)))
                .collect(),
        })
    }
}

/// Whether entity `e`'s classname is `class` (any case).
fn is_class(e: &srcmap_bsp::Entity, class: &str) -> bool {
    e.classname().is_some_and(|c| c.eq_ignore_ascii_case(class))
}

/// Whether a ray toward the sky gets there: the nearest hit is a sky face, or nothing (VRAD
/// counts a miss as sky too); through the 3D skybox when there is one.
///
/// With `sky_faces` (a scene of `scene`'s sky faces alone) the test is two cheaper queries:
/// the distance to the first sky face, then whether anything else blocks the ray before it.
/// Outdoor maps trace most of their rays here, over dense displacement terrain, where a
/// closest-hit search through the whole scene costs several times an occlusion test.
pub(crate) fn reaches_sky(
    scene: &dyn Tracer,
    sky_faces: Option<&dyn Tracer>,
    sky3d: Option<&Sky3d>,
    pos: Vec3,
    dir: Vec3,
) -> bool {
    reaches_sky_cached(scene, sky_faces, sky3d, pos, dir, &mut LeafCache::default())
}

/// [`reaches_sky`], the occlusion test asking first what stopped the last ray given `cache`
/// (rays along one direction from neighbouring points: see [`LeafCache`]).
pub(crate) fn reaches_sky_cached(
    scene: &dyn Tracer,
    sky_faces: Option<&dyn Tracer>,
    sky3d: Option<&Sky3d>,
    pos: Vec3,
    dir: Vec3,
    cache: &mut LeafCache,
) -> bool {
    open_to_sky(scene, sky_faces, pos, dir, cache)
        && sky3d.is_none_or(|sky| sky.passes(scene, sky_faces, pos, dir))
}

/// The first part of [`reaches_sky`]: the ray from `from` along `dir` meets a sky face first,
/// or nothing.
fn open_to_sky(
    scene: &dyn Tracer,
    sky_faces: Option<&dyn Tracer>,
    from: Vec3,
    dir: Vec3,
    cache: &mut LeafCache,
) -> bool {
    match sky_faces {
        Some(sky) => {
            let limit = sky_limit(sky, from, dir);
            !scene.occluded_cached(from.to_array(), dir.to_array(), limit, SKY, cache)
        }
        None => scene
            .closest(from.to_array(), dir.to_array(), MAX_TRACE)
            .is_none_or(|hit| hit.payload & SKY != 0),
    }
}

impl Sky3d {
    /// The rest of [`reaches_sky`] for a ray from `pos` that reached the sky: outside the
    /// skybox it goes on from the matching point of every camera's skybox, and must reach
    /// the sky there too.
    pub(crate) fn passes(
        &self,
        scene: &dyn Tracer,
        sky_faces: Option<&dyn Tracer>,
        pos: Vec3,
        dir: Vec3,
    ) -> bool {
        match self.tree.leaf_at(pos) {
            Some(leaf) if !self.in_skybox.get(leaf).copied().unwrap_or(true) => {
                self.cameras.iter().all(|&(origin, world_to_sky)| {
                    let from = origin + pos * world_to_sky;
                    open_to_sky(scene, sky_faces, from, dir, &mut LeafCache::default())
                })
            }
            _ => true,
        }
    }
}

/// How much nearer than the sky face another surface must be to block a sky ray (a surface
/// meeting the sky face on its plane does not).
const SKY_TIE: f32 = 0.01;

/// How far the ray from `from` along `dir` runs before its first face of `sky_faces` (just
/// short of it, [`before_sky`]): what else it meets before that blocks it.
pub(crate) fn sky_limit(sky_faces: &dyn Tracer, from: Vec3, dir: Vec3) -> f32 {
    before_sky(sky_faces.closest(from.to_array(), dir.to_array(), MAX_TRACE))
}

/// With sky faces traced apart: how far along a sky ray another surface blocks it, given the
/// ray's first hit on the sky faces.
pub(crate) fn before_sky(sky_hit: Option<Hit>) -> f32 {
    sky_hit.map_or(MAX_TRACE, |h| h.t - SKY_TIE)
}

/// The clusters the sun and sky ambient may light: those that see a cluster holding a sky
/// face, plus those the `light_environment` entity's own cluster sees (VRAD starts the light's
/// visibility from its origin, like any light's). With the entity outside the map (no
/// cluster), VRAD's visibility is every cluster: `None` here too.
pub(crate) fn sky_visible_clusters(bsp: &Bsp, tree: &Tree) -> Option<Vec<bool>> {
    let vis = bsp
        .visibility
        .as_ref()
        .filter(|v| v.num_clusters > 0 && !v.pvs.is_empty())?;
    let n = vis.num_clusters as usize;
    let origin = bsp
        .entities
        .iter()
        .find(|e| is_class(e, "light_environment"))
        .map(|e| lights::key_vec(e, "origin"));
    let own_cluster = match origin {
        Some(o) => Some(usize::try_from(tree.cluster_at(o)).ok().filter(|&c| c < n)?),
        None => None,
    };
    let mut holds_sky = clusters_holding_sky(bsp, n);
    if let Some(c) = own_cluster {
        holds_sky[c] = true;
    }
    let mut out = vec![false; n];
    for (from, _) in holds_sky.iter().enumerate().filter(|(_, s)| **s) {
        for (to, o) in out.iter_mut().enumerate() {
            *o |= vis.can_see(from, to);
        }
    }
    Some(out)
}

/// Per cluster (of `n`), whether one of its leaves holds a sky face.
fn clusters_holding_sky(bsp: &Bsp, n: usize) -> Vec<bool> {
    let mut holds_sky = vec![false; n];
    for leaf in &bsp.leafs {
        let Ok(cluster) = usize::try_from(leaf.cluster) else {
            continue;
        };
        if cluster >= n || holds_sky[cluster] {
            continue;
        }
        let first = leaf.first_leaf_face as usize;
        let sky = (first..first + leaf.num_leaf_faces as usize).any(|i| {
            bsp.leaf_faces
                .get(i)
                .and_then(|&f| bsp.faces.get(f as usize))
                .and_then(|f| usize::try_from(f.texinfo).ok())
                .and_then(|t| bsp.texinfo.get(t))
                .is_some_and(|t| SurfaceFlags::from_record(t.flags).intersects(SurfaceFlags::SKY))
        });
        holds_sky[cluster] = sky;
    }
    holds_sky
}

#[cfg(test)]
mod tests {
    use super::*;
    use srcmap_trace::SceneBuilder;

    #[test]
    fn sky_rays_continue_through_the_3d_skybox() {
        // One leaf (outside the skybox), sky overhead everywhere at z = 500, and in the
        // skybox (camera at x = 1000, scale 16) a small roof over the camera point.
        let mut bsp = srcmap_bsp::Bsp::new(20);
        bsp.leafs.push(srcmap_bsp::Leaf::default());
        bsp.models.push(srcmap_bsp::Model {
            head_node: -1,
            ..Default::default()
        });
        let sky3d = Sky3d {
            cameras: vec![(Vec3::new(1000.0, 0.0, 0.0), 1.0 / 16.0)],
            tree: Tree::new(&bsp),
            in_skybox: vec![false],
        };
        let mut b = SceneBuilder::new();
        let quad = |b: &mut SceneBuilder, c: Vec3, r: f32, payload: u32| {
            b.add_polygon(
                &[
                    (c + Vec3::new(-r, -r, 0.0)).to_array(),
                    (c + Vec3::new(r, -r, 0.0)).to_array(),
                    (c + Vec3::new(r, r, 0.0)).to_array(),
                    (c + Vec3::new(-r, r, 0.0)).to_array(),
                ],
                payload,
            )
        };
        let mut sky_only = SceneBuilder::new();
        quad(&mut b, Vec3::new(0.0, 0.0, 500.0), 5000.0, SKY);
        quad(&mut sky_only, Vec3::new(0.0, 0.0, 500.0), 5000.0, SKY);
        // The sky brush's back, beyond the sky face: never what blocks a sky ray.
        quad(&mut b, Vec3::new(0.0, 0.0, 516.0), 5000.0, 0);
        quad(&mut b, Vec3::new(1000.0, 0.0, 20.0), 10.0, 0);
        let scene = b.build();
        let sky_only = sky_only.build();
        let up = Vec3::Z;
        // Both ways of testing (the closest hit, or the sky's distance then occlusion) agree.
        for sky_faces in [None, Some(&sky_only as &dyn Tracer)] {
            // World point (0, 0, 0) maps to the camera point, under the skybox roof.
            assert!(reaches_sky(&scene, sky_faces, None, Vec3::ZERO, up));
            assert!(!reaches_sky(&scene, sky_faces, Some(&sky3d), Vec3::ZERO, up));
            // (1600, 0, 0) maps to x = 1100, clear of it.
            assert!(reaches_sky(
                &scene,
                sky_faces,
                Some(&sky3d),
                Vec3::new(1600.0, 0.0, 0.0),
                up
            ));
            // A point inside the skybox area does not recurse.
            let inside = Sky3d {
                in_skybox: vec![true],
                ..sky3d.clone()
            };
            assert!(reaches_sky(&scene, sky_faces, Some(&inside), Vec3::ZERO, up));
            // Under the roof itself, in the world, nothing reaches the sky.
            assert!(!reaches_sky(
                &scene,
                sky_faces,
                None,
                Vec3::new(1000.0, 0.0, 0.0),
                up
            ));
        }
    }
}
