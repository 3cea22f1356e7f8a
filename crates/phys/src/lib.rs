//! VPhysics collision data as Source stores it: the IVP compact surface of each solid
//! ([`surface`]), the collide headers around it ([`solid`]), the key-data text ([`keydata`]),
//! a brush model's entry of the BSP physcollide lump ([`collide`]), `.phy` files ([`phy`]) and
//! a displacement's packed outer hull from the physdisp lump ([`hull`]).
//!
//! Every structure is read into typed records and written back byte for byte. Limits: only
//! little-endian data; solids of another collide version (Strata's `0x101`) are kept as bytes
//! ([`SolidBody::Unread`]); of a MOPP polysoup (model type 1, older vbsps' power-4 terrain)
//! the ledges and points are read and the Havok MOPP code is kept as bytes; three bytes of the
//! packed hull have no established meaning and are kept as read.

pub mod collide;
pub mod error;
pub mod hull;
pub mod keydata;
pub mod phy;
pub mod solid;
pub mod surface;

pub use collide::ModelCollision;
pub use error::{PhysError, Result};
pub use hull::{PackedHull, PackedTriangle};
pub use keydata::{KeyBlock, KeyData};
pub use phy::PhyFile;
pub use solid::{CollideHeader, DragAxes, Solid, SolidBody};
pub use surface::{CompactSurface, Edge, Gap, Ledge, LedgeTreeNode, PointRun, SurfaceHeader, Triangle};
