//! The NAV area attribute bits the generator sets or reads (the game's `NavAttributeType`),
//! in one place so that every pass names the same bit the same way.

/// Only crouching players fit.
pub const ATTR_CROUCH: u32 = 0x1;
/// A jump (a step higher than a walk) is needed to cross the area.
pub const ATTR_JUMP: u32 = 0x2;
/// Bots must not hide here.
pub const ATTR_DONT_HIDE: u32 = 0x200;
/// A staircase.
pub const ATTR_STAIRS: u32 = 0x1000;
/// Never merged with a neighbour.
pub const ATTR_NO_MERGE: u32 = 0x2000;
