//! The state every lighting pass shares: each face's geometry and samples, the two tracing
//! scenes, visibility, and the light each face has gathered so far.

use std::sync::atomic::{AtomicU64, Ordering};

use glam::{Vec2, Vec3};
use rayon::prelude::*;
use srcmap_stage::Progress;

use crate::displacement::DispSurface;
use crate::faces::FaceGeom;
use crate::lights::{Light, LightKind};
use crate::samples::{FaceSamples, disp_st};
use crate::scene::NOT_DISPLACEMENT;
use crate::sky::Sky3d;
use crate::tree::Tree;

/// Shared counters of a run.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub rays: AtomicU64,
    /// Of `rays`: sky ambient (`light_environment`'s hemisphere) rays of direct light.
    pub sky_ambient_rays: AtomicU64,
    /// Of `rays`: rays of the supersampling of direct light.
    pub supersample_rays: AtomicU64,
    pub supersampled_luxels: AtomicU64,
    /// Of `rays`: the bounce gather rays (and their patch-to-patch tests).
    pub bounce_rays: AtomicU64,
    /// Of `rays`: the ambient cubes' rays.
    pub ambient_rays: AtomicU64,
    /// Of `rays`: the rays that light detail props and static props.
    pub prop_rays: AtomicU64,
}

impl Counters {
    pub fn add_rays(&self, n: u64) {
        self.rays.fetch_add(n, Ordering::Relaxed);
    }

    pub fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }

    /// Adds `n` rays, counted also in `pass` (one of the counters above).
    pub fn add_pass_rays(&self, pass: &AtomicU64, n: u64) {
        self.add_rays(n);
        Self::add(pass, n);
    }
}

/// `f(i)` for every `i` below `n`, in parallel, in order, as a phase of `progress`
/// (`phase`, counted in `unit`s): one step per item as it is done.
pub(crate) fn par_map_steps<T: Send>(
    progress: &dyn Progress,
    phase: &str,
    unit: srcmap_stage::Unit,
    n: usize,
    f: impl Fn(usize) -> T + Sync + Send,
) -> Vec<T> {
    progress.start(phase, n as u64, unit);
    let out = (0..n)
        .into_par_iter()
        .map(|i| {
            let item = f(i);
            progress.advance(1);
            item
        })
        .collect();
    progress.finish();
    out
}

/// The lighting of one face for one range: per used style, `luxels × (1 or 4)` samples,
/// bump-major (flat normal first, then the three bump bases).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FaceLight {
    pub styles: Vec<u8>,
    pub samples: Vec<Vec<Vec3>>,
}

/// The geometry shared by every range.
pub(crate) struct World {
    pub faces: Vec<FaceGeom>,
    pub disps: Vec<Option<DispSurface>>,
    pub samples: Vec<FaceSamples>,
    pub occluders: crate::alpha::Occluders,
    /// The occluders' sky faces alone.
    pub sky_faces: srcmap_trace::Scene,
    pub surfaces: srcmap_trace::Scene,
    /// Per triangle of `surfaces`: its index among its displacement's triangles.
    pub disp_triangles: Vec<u32>,
    /// Decoded PVS rows (empty without visibility data) and each leaf's cluster, for culling.
    pub pvs: Option<srcmap_bsp::Visibility>,
    pub tree: Tree,
    /// The 3D skybox, when the map has a `sky_camera`.
    pub sky3d: Option<Sky3d>,
    /// Per cluster: whether it sees a cluster that holds a sky face (VRAD's
    /// `BuildVisForLightEnvironment`: the sun and sky ambient only light those). `None`
    /// without visibility data.
    pub sky_visible: Option<Vec<bool>>,
    /// The faces a shard of a sharded run lights (`None`: every face, as one machine).
    pub only_faces: Option<Vec<bool>>,
}

impl World {
    /// Whether direct light and bounce rays are computed for face `i` in this run: a lit face
    /// of this shard's share.
    pub fn lights_face(&self, i: usize) -> bool {
        self.faces[i].lit && self.only_faces.as_ref().is_none_or(|m| m[i])
    }

    /// Where a ray that hit `triangle` of the surfaces scene at `p` landed on face `face`:
    /// luxel-space coordinates and the normal of the side light leaves from. A displacement's
    /// point is found on the triangle hit, exact where the surface moved its vertices sideways
    /// (projecting onto the base quad would land elsewhere).
    pub fn surface_hit(&self, face: usize, triangle: u32, p: Vec3) -> (Vec2, Vec3) {
        let g = &self.faces[face];
        let disp = self.disps.get(face).and_then(|d| d.as_ref());
        let local = self.disp_triangles.get(triangle as usize).copied();
        match (disp, local) {
            (Some(d), Some(k)) if k != NOT_DISPLACEMENT => {
                let uv = d.triangle_uv(k as usize, p);
                (disp_st(g, uv), d.surface_point(uv).1)
            }
            (Some(d), _) => {
                let uv = d.uv_of(p);
                (disp_st(g, uv), d.surface_point(uv).1)
            }
            (None, _) => (g.world_to_luxel(p), g.normal),
        }
    }

    /// The visibility cluster containing `p` (-1 when unknown or in solid).
    pub fn cluster_at(&self, p: Vec3) -> i32 {
        self.tree.cluster_at(p)
    }

    /// The one cluster of every point between `corners` ([`crate::tree::Tree::cluster_over`]).
    pub fn cluster_over(&self, corners: &[Vec3]) -> Option<i32> {
        self.tree.cluster_over(corners)
    }

    /// Whether `light` (in `light_cluster`) may reach a sample in `sample_cluster`.
    pub fn sees(&self, light: &Light, light_cluster: i32, sample_cluster: i32) -> bool {
        if sample_cluster < 0 {
            // VRAD: a sample it cannot place is assumed visible.
            return true;
        }
        if matches!(light.kind, LightKind::Sun | LightKind::SkyAmbient) {
            return self
                .sky_visible
                .as_ref()
                .is_none_or(|v| v.get(sample_cluster as usize).copied().unwrap_or(true));
        }
        if light_cluster < 0 {
            return true;
        }
        match &self.pvs {
            Some(v) if v.num_clusters > 0 => v.can_see(light_cluster as usize, sample_cluster as usize),
            _ => true,
        }
    }
}
