//! Source engine BSP files (VBSP v17-v25 and later branches, little-endian `VBSP` and console
//! big-endian `PSBV`): every lump typed, LZMA lumps, and byte-exact writing.
//!
//! # API in one screen
//!
//! * **Typed view** — [`Bsp`]: one public field per lump (`planes: Vec<Plane>`,
//!   `faces: Vec<Face>`, `leafs`, `visibility: Option<Visibility>`, `game_lumps: GameLumps`, ...).
//!   [`Bsp::parse(&bytes)`](Bsp::parse) reads a whole file; [`Bsp::new(20)`](Bsp::new) starts an
//!   empty one with the lump versions Valve writes for that BSP version ([`versions`]) (empty `sprp`/`dprp`
//!   game lumps, empty pakfile); [`Bsp::to_bytes`] serialises it in Valve's lump order.
//!   Helpers: [`Bsp::add_texdata_name`] / [`Bsp::texdata_name`] for the texdata string table,
//!   [`Bsp::face_lighting`] for a face's lightmap samples, [`Entity`] for entity key/values.
//! * **Borrowed typed view** — [`BspView`]: the same fields, every lump typed, borrowing from
//!   the file bytes: records whose memory layout is their little-endian disk layout (planes,
//!   vertexes, texinfo, lightmap samples, ...) are viewed in place (`Cow::Borrowed`), the
//!   pakfile and other byte lumps are slices, entities are key/value slices of the lump text
//!   ([`Entities`]); widened records (faces, leafs, ...) are decoded, into one arena with
//!   [`BspView::parse_in`]. It is the one lump parser: [`Bsp::parse`] is
//!   `BspView::parse(..)?.into_owned()`. Console (big-endian) files and misaligned or LZMA
//!   lumps fall back to decoded copies.
//! * **Read view** — [`BspFile`]: header and lump directory over borrowed bytes;
//!   [`BspFile::lump`] gives a lump's bytes (zero-copy unless LZMA-compressed).
//! * **Lossless document** — [`BspDocument`]: every lump's stored bytes and position.
//!   `BspDocument::from_file(&file).to_bytes()` reproduces the input byte for byte;
//!   [`BspDocument::set_lump`], [`BspDocument::compress`] / [`BspDocument::decompress`], and
//!   [`Bsp::update_document`] (re-serialise only the lumps whose typed content changed).
//!   [`Bsp::parse_only`] parses a chosen subset of lumps (geometry without lighting, say).
//! * **Lump files** — [`LumpFile`]: Valve's `.lmp` (one stored lump behind a header);
//!   [`BspDocument::set_lump_file`] puts one back into a BSP.
//! * **Checks** — [`check::check`] validates cross-lump indices, record sizes and Valve's
//!   `MAX_MAP_*` limits; [`pak::Pak`] lists, reads and extends the pakfile zip.
//! * **State** — [`state::MapState::of`]: whether vvis ran (clusters, PVS density), which
//!   lightmaps vrad wrote, whether vbsp leaked, the feature counts and game lump versions
//!   (`srcmap info`'s first lines).
//! * **Layouts** — [`records`] holds the fixed records (index fields widened to `u32`/`i32`;
//!   the on-disk layout is picked from the BSP version and each lump's version via [`Ctx`]:
//!   leafs v0/v1, faces v1 and Strata v2, world lights v0/v1, occlusion v1/v2, Strata's
//!   32-bit lumps, big-endian console files); [`gamelump`] the static props (`sprp` v4-v13,
//!   both 72- and 76-byte v10 layouts), detail props and their lighting; [`vis`] PVS/PAS rows;
//!   [`entities`], [`occlusion`], [`physics`] (physcollide, physdisp) and [`lighting`]
//!   (per-face lightmap samples, displacement sample positions).
//!
//! Writing a lump whose value does not fit its on-disk field (a plane index over 65535 in a
//! `u16` field) is a [`BspError::Write`] naming the lump, never a silent truncation.
//!
//! ```no_run
//! use srcmap_bsp::{Bsp, Plane};
//! let mut bsp = Bsp::new(20);
//! bsp.planes.push(Plane { normal: [0.0, 0.0, 1.0], dist: 0.0, kind: 2 });
//! let id = bsp.add_texdata_name("TOOLS/TOOLSNODRAW");
//! let bytes = bsp.to_bytes().unwrap();
//! assert_eq!(Bsp::parse(&bytes).unwrap().planes.len(), 1);
//! # let _ = id;
//! ```
//!
//! Files of other engines (Quake, GoldSrc, Quake 3, Titanfall) are refused with
//! [`BspError::NotSource`] naming what they are. Every other error names the lump and byte offset.

pub mod bsp;
pub mod check;
pub mod codec;
pub mod document;
pub mod entities;
pub mod error;
pub mod file;
pub mod flags;
pub mod gamelump;
pub mod info;
pub mod lighting;
pub mod lmp;
pub mod lump;
pub mod lzma;
pub mod occlusion;
pub mod order;
pub mod pak;
pub mod physics;
pub mod records;
pub mod state;
pub mod target;
pub mod versions;
pub mod view;
pub mod vis;
mod write;

pub use bsp::Bsp;
/// The arena [`BspView::parse_in`] decodes into.
pub use bumpalo::Bump;
pub use codec::Ctx;
pub use document::{BspDocument, LumpSlot};
pub use entities::{Entities, Entity, EntityRef};
pub use error::{BspError, Result};
pub use file::{BspFile, Header, LumpEntry, LumpOrder, identify_foreign};
pub use gamelump::{
    DetailObject, DetailPropLight, DetailProps, DetailSprite, GameLump, GameLumpData, GameLumps, StaticProp,
    StaticPropLayout, StaticProps,
};
pub use lighting::{DispSamplePosition, FaceLighting};
pub use lmp::{LmpError, LumpFile};
pub use lump::{HEADER_LUMPS, HEADER_SIZE, lump_by_name, lump_name};
pub use occlusion::{OccluderData, Occlusion};
pub use physics::{PhysCollide, PhysCollideView, PhysDisp, PhysDispView, PhysModel, PhysModelView};
pub use records::*;
pub use srcmap_bytes::Endian;
pub use target::{TARGETS, Target};
pub use view::BspView;
pub use vis::{VisRows, Visibility};
