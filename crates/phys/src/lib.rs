//! VPhysics collision data as Source stores it: the IVP compact surface of each solid
//! ([`surface`]), the collide headers around it ([`solid`]), the key-data text ([`keydata`]),
//! a brush model's entry of the BSP physcollide lump ([`collide`]) and `.phy` files ([`phy`]).
//!
//! Every structure is read into typed records and written back byte for byte. Limits: only
//! little-endian data; solids of another collide version (Strata's `0x101`) or model type
//! (polysoup) are kept as bytes ([`SolidBody::Unread`]); the displacement collision lump
//! (physdisp) holds VPhysics virtual-mesh blobs, which are not read here.

pub mod collide;
pub mod error;
pub mod keydata;
pub mod phy;
pub mod solid;
pub mod surface;

pub use collide::ModelCollision;
pub use error::{PhysError, Result};
pub use keydata::{KeyBlock, KeyData};
pub use phy::PhyFile;
pub use solid::{CollideHeader, Solid, SolidBody};
pub use surface::{CompactSurface, Edge, Gap, Ledge, LedgeTreeNode, PointRun, SurfaceHeader, Triangle};
