//! `srcmap view`: a local web page that shows a BSP in WebGL2 — a fly camera, lightmaps on or
//! off, the leaf and cluster under the camera and the clusters it can see (PVS), area
//! portals, and the leak path (`MAP.lin`) and vis portals (`MAP.prt`) when they are beside
//! the map. The mesh is `srcmap-export`'s GLB; [`scene::Scene`] adds what the page needs
//! beyond it; [`server`] serves both and the page (embedded) on 127.0.0.1.

pub mod lin;
pub mod scene;
pub mod server;

pub use lin::{LinError, parse_lin};
pub use scene::Scene;
pub use server::{Site, serve};
