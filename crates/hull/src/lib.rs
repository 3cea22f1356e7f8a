//! Swept-box collision for map tools: a box moved from A to B against a map's solids, as the
//! engine's `UTIL_TraceHull` does, returning how far it got, the plane it hit and that solid's
//! contents.
//!
//! The solids are convex sets of planes: the BSP's brushes with the bevel sides vbsp adds (so a
//! box stops on a brush's edges and corners where the engine's box does), each displacement
//! triangle as a thin slab, and any box a caller adds (static props). A bounding-volume tree
//! over their boxes keeps a trace to the solids near its path.
//!
//! ```
//! use srcmap_hull::{Hull, WorldBuilder, Vec3};
//! let mut b = WorldBuilder::default();
//! b.add_box(Vec3::new(-64.0, -64.0, -8.0), Vec3::new(64.0, 64.0, 0.0), 1);
//! let world = b.build();
//! let t = world.trace(&Hull::new([-16.0, -16.0, 0.0], [16.0, 16.0, 72.0]),
//!     Vec3::new(0.0, 0.0, 50.0), Vec3::new(0.0, 0.0, -50.0), 1);
//! assert!(t.fraction < 1.0 && t.normal == Vec3::Z);
//! ```

pub mod bsp;
pub mod bvh;
pub mod convex;
pub mod disp;
pub mod world;

pub use convex::{DIST_EPSILON, Side};
pub use glam::Vec3;
pub use world::{Hull, Trace, World, WorldBuilder};

/// Valve's `MASK_NPCSOLID_BRUSHONLY`: solid, moveable, window, monster clip, grate. Player clip
/// is not in it, so the navigation generator walks where only players are kept out.
pub const MASK_NPCSOLID_BRUSHONLY: u32 = 0x1 | 0x4000 | 0x2 | 0x20000 | 0x8;
/// Valve's `MASK_PLAYERSOLID_BRUSHONLY`: as above with player clip instead of monster clip.
pub const MASK_PLAYERSOLID_BRUSHONLY: u32 = 0x1 | 0x4000 | 0x2 | 0x10000 | 0x8;

/// What [`from_bsp`] put into the world.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BspSolids {
    pub brushes: usize,
    pub displacement_triangles: usize,
}

/// A builder holding the BSP's brushes (world and solid brush entities) and displacement
/// triangles; add prop solids to it, then [`WorldBuilder::build`].
pub fn from_bsp(bsp: &srcmap_bsp::Bsp) -> (WorldBuilder, BspSolids) {
    let mut builder = WorldBuilder::default();
    bsp::add_brushes(bsp, &mut builder);
    let brushes = builder.solid_count();
    let displacement_triangles = disp::add_displacements(bsp, &mut builder);
    (
        builder,
        BspSolids {
            brushes,
            displacement_triangles,
        },
    )
}
