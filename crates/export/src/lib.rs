//! See a map: a BSP's world and brush models as one triangle mesh ([`mesh::MapMesh`]) with a
//! lightmap atlas ([`atlas::Atlas`]), written as glTF 2.0 binary ([`gltf::to_glb`],
//! [`glb::Glb`]) or drawn by a CPU rasteriser to an image ([`render::render`]). Both draw the
//! same mesh.

pub mod atlas;
pub mod faces;
pub mod geometry;
pub mod glb;
pub mod gltf;
pub mod image;
pub mod mesh;
pub mod props;
pub mod render;
pub mod scene;
pub mod styles;
pub mod texture;
pub mod vmf_mesh;

pub use glb::Glb;
pub use image::Rgb8;
pub use mesh::MapMesh;
pub use styles::{LightSwitch, LightSwitchError, StyleScales};

/// What can go wrong while exporting or rendering.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("GLB at byte {offset}: {message}")]
    Glb { offset: usize, message: String },
    #[error("PNG encoding: {0}")]
    Png(String),
    #[error("glTF JSON: {0}")]
    Json(String),
    #[error(transparent)]
    Vtf(#[from] srcmap_content::ContentError),
}
