//! Runs the compile stages on files, for `srcmap vbsp`, `vvis`, `vrad` and `compile`: reading the
//! VMF and its instances, the material resolver from `-game` and `--materials`, the detail file,
//! texture-light `.rad` files and the static props' models, then the stages themselves in
//! memory, and the outputs written atomically with their side files (`.prt`, `.lin`).
//!
//! Each stage has one job type built from plain values ([`VbspJob`], [`VvisJob`], [`VradJob`]);
//! [`CompileJob`] composes them. The driver never prints: progress goes to a
//! [`srcmap_stage::Progress`], and the lines a mapper reads (warnings, a stage's one-line summary)
//! to a [`Messages`].

pub mod compile;
pub mod error;
pub mod exchange;
pub mod farm;
pub mod files;
pub mod harvest;
pub mod map;
pub mod mapconv;
pub mod materials;
pub mod messages;
pub mod navgen;
pub mod pack;
pub mod shard;
pub mod target;
pub mod vbsp;
pub mod vrad;
pub mod vvis;

pub use compile::{CompileJob, CompileProgress, CompileReports, compile};
pub use error::{DriverError, ErrorReport, LeakError};
pub use files::{EditLock, lock_for_edit, refuse_overwriting, write_output, write_outputs};
pub use mapconv::{MapconvJob, MapconvReport};
pub use messages::{Messages, NoMessages};
pub use navgen::{NavgenJob, NavgenRun, navgen};
pub use pack::{PackJob, PackReport, compile_and_pack, pack};
pub use shard::{
    RadMergeJob, RadShardJob, VisInput, VisMergeJob, VisShardJob, rad_merge, rad_shard, vis_merge, vis_shard,
};
pub use vbsp::{VbspJob, vbsp};
pub use vrad::{RadSettings, RadSources, VradJob, VradRun, vrad};
pub use vvis::{VisSettings, VvisJob, VvisRun, vvis};
