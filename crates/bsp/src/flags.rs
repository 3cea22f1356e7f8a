//! Valve's contents and surface flags (`bspflags.h`): one typed set for every crate, with the
//! names tables and reports use.
//!
//! Records store these bits as `i32` (leaf and brush contents) or `i32` texinfo flags; the
//! compilers work on `u32`. [`Contents`] and [`SurfaceFlags`] hold the bits as `u32` and convert
//! from a record's field with [`Contents::from_record`] (a bit cast: `CONTENTS_HITBOX` and other
//! high bits survive).

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not};

macro_rules! flag_set {
    (
        $(#[$meta:meta])* $name:ident, $prefix:literal,
        [$($(#[$bit_meta:meta])* $bit:ident / $raw:ident = $value:expr),* $(,)?]
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
        pub struct $name(pub u32);

        // The same bits under Valve's own names, for code that keeps them as plain `u32`.
        $(pub const $raw: u32 = $value;)*

        impl $name {
            $($(#[$bit_meta])* pub const $bit: $name = $name($value);)*
            /// No bit set.
            pub const EMPTY: $name = $name(0);
            /// Each named bit with its name (without the prefix), lowest first.
            pub const NAMES: &'static [($name, &'static str)] = &[$(($name::$bit, stringify!($bit))),*];
            /// The prefix of the bit names in Valve's headers.
            pub const PREFIX: &'static str = $prefix;

            /// The raw bits.
            pub const fn bits(self) -> u32 {
                self.0
            }
            /// A record's signed field, bit for bit.
            pub const fn from_record(bits: i32) -> $name {
                $name(bits as u32)
            }
            /// The bits as a record's signed field.
            pub const fn to_record(self) -> i32 {
                self.0 as i32
            }
            /// Every bit of `other` is set here.
            pub const fn contains(self, other: $name) -> bool {
                self.0 & other.0 == other.0
            }
            /// Any bit of `other` is set here.
            pub const fn intersects(self, other: $name) -> bool {
                self.0 & other.0 != 0
            }
            pub const fn is_empty(self) -> bool {
                self.0 == 0
            }
            /// These bits with `other`'s cleared.
            pub const fn without(self, other: $name) -> $name {
                $name(self.0 & !other.0)
            }
            /// The names of the set bits; bits without a name as `0x...`.
            pub fn names(self) -> Vec<String> {
                let mut out = Vec::new();
                let mut rest = self.0;
                for &(bit, name) in $name::NAMES {
                    if self.intersects(bit) {
                        out.push(name.to_owned());
                        rest &= !bit.0;
                    }
                }
                for i in 0..32 {
                    if rest & (1 << i) != 0 {
                        out.push(format!("{:#x}", 1u32 << i));
                    }
                }
                out
            }
            /// Inverse of [`Self::names`]: names (with or without the prefix) or hex numbers.
            pub fn parse_names(names: &[String]) -> Result<$name, UnknownFlag> {
                let mut bits = 0;
                for n in names {
                    let bare = n.strip_prefix($prefix).unwrap_or(n);
                    if let Some(hex) = bare.strip_prefix("0x") {
                        bits |= u32::from_str_radix(hex, 16).map_err(|_| UnknownFlag(n.clone()))?;
                    } else {
                        let bit = $name::NAMES
                            .iter()
                            .find(|(_, name)| name.eq_ignore_ascii_case(bare))
                            .map(|(b, _)| b.0);
                        bits |= bit.ok_or_else(|| UnknownFlag(n.clone()))?;
                    }
                }
                Ok($name(bits))
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                if self.0 == 0 {
                    return write!(f, "{}(EMPTY)", stringify!($name));
                }
                write!(f, "{}({})", stringify!($name), self.names().join("|"))
            }
        }

        impl BitOr for $name {
            type Output = $name;
            fn bitor(self, o: $name) -> $name {
                $name(self.0 | o.0)
            }
        }
        impl BitOrAssign for $name {
            fn bitor_assign(&mut self, o: $name) {
                self.0 |= o.0;
            }
        }
        impl BitAnd for $name {
            type Output = $name;
            fn bitand(self, o: $name) -> $name {
                $name(self.0 & o.0)
            }
        }
        impl BitAndAssign for $name {
            fn bitand_assign(&mut self, o: $name) {
                self.0 &= o.0;
            }
        }
        impl Not for $name {
            type Output = $name;
            fn not(self) -> $name {
                $name(!self.0)
            }
        }
        impl From<$name> for u32 {
            fn from(f: $name) -> u32 {
                f.0
            }
        }
    };
}

/// A flag name that is not one of Valve's, nor a hex number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown flag `{0}`")]
pub struct UnknownFlag(pub String);

flag_set!(
    /// `CONTENTS_*`: what a brush, leaf or material is made of.
    Contents, "CONTENTS_",
    [
        SOLID / CONTENTS_SOLID = 0x1,
        WINDOW / CONTENTS_WINDOW = 0x2,
        AUX / CONTENTS_AUX = 0x4,
        GRATE / CONTENTS_GRATE = 0x8,
        SLIME / CONTENTS_SLIME = 0x10,
        WATER / CONTENTS_WATER = 0x20,
        BLOCKLOS / CONTENTS_BLOCKLOS = 0x40,
        OPAQUE / CONTENTS_OPAQUE = 0x80,
        TESTFOGVOLUME / CONTENTS_TESTFOGVOLUME = 0x100,
        TEAM1 / CONTENTS_TEAM1 = 0x800,
        TEAM2 / CONTENTS_TEAM2 = 0x1000,
        IGNORE_NODRAW_OPAQUE / CONTENTS_IGNORE_NODRAW_OPAQUE = 0x2000,
        MOVEABLE / CONTENTS_MOVEABLE = 0x4000,
        AREAPORTAL / CONTENTS_AREAPORTAL = 0x8000,
        PLAYERCLIP / CONTENTS_PLAYERCLIP = 0x10000,
        MONSTERCLIP / CONTENTS_MONSTERCLIP = 0x20000,
        CURRENT_0 / CONTENTS_CURRENT_0 = 0x40000,
        CURRENT_90 / CONTENTS_CURRENT_90 = 0x80000,
        CURRENT_180 / CONTENTS_CURRENT_180 = 0x100000,
        CURRENT_270 / CONTENTS_CURRENT_270 = 0x200000,
        CURRENT_UP / CONTENTS_CURRENT_UP = 0x400000,
        CURRENT_DOWN / CONTENTS_CURRENT_DOWN = 0x800000,
        ORIGIN / CONTENTS_ORIGIN = 0x1000000,
        MONSTER / CONTENTS_MONSTER = 0x2000000,
        DEBRIS / CONTENTS_DEBRIS = 0x4000000,
        DETAIL / CONTENTS_DETAIL = 0x8000000,
        TRANSLUCENT / CONTENTS_TRANSLUCENT = 0x10000000,
        LADDER / CONTENTS_LADDER = 0x20000000,
        HITBOX / CONTENTS_HITBOX = 0x40000000,
    ]
);

flag_set!(
    /// `SURF_*`: how a surface is drawn and lit (texinfo flags).
    SurfaceFlags, "SURF_",
    [
        LIGHT / SURF_LIGHT = 0x1,
        SKY2D / SURF_SKY2D = 0x2,
        SKY / SURF_SKY = 0x4,
        WARP / SURF_WARP = 0x8,
        TRANS / SURF_TRANS = 0x10,
        NOPORTAL / SURF_NOPORTAL = 0x20,
        TRIGGER / SURF_TRIGGER = 0x40,
        NODRAW / SURF_NODRAW = 0x80,
        HINT / SURF_HINT = 0x100,
        SKIP / SURF_SKIP = 0x200,
        NOLIGHT / SURF_NOLIGHT = 0x400,
        BUMPLIGHT / SURF_BUMPLIGHT = 0x800,
        NOSHADOWS / SURF_NOSHADOWS = 0x1000,
        NODECALS / SURF_NODECALS = 0x2000,
        NOCHOP / SURF_NOCHOP = 0x4000,
        HITBOX / SURF_HITBOX = 0x8000,
    ]
);

/// `CONTENTS_EMPTY`: no contents.
pub const CONTENTS_EMPTY: u32 = 0;

/// `MASK_OPAQUE` as plain bits.
pub const MASK_OPAQUE: u32 = Contents::MASK_OPAQUE.0;

impl Contents {
    /// `MASK_OPAQUE`: what blocks light (VRAD's shadow casters, the engine's line of sight).
    pub const MASK_OPAQUE: Contents = Contents(Contents::SOLID.0 | Contents::MOVEABLE.0 | Contents::OPAQUE.0);
    /// `LAST_VISIBLE_CONTENTS`: bits below it are the visible ones, strongest first.
    pub const LAST_VISIBLE: Contents = Contents::OPAQUE;
    /// `ALL_VISIBLE_CONTENTS`.
    pub const ALL_VISIBLE: Contents = Contents(Contents::LAST_VISIBLE.0 | (Contents::LAST_VISIBLE.0 - 1));

    /// The strongest visible contents bit, as Valve's `VisibleContents` picks one for a leaf.
    pub fn visible(self) -> Contents {
        Contents(
            (0..8)
                .map(|i| 1u32 << i)
                .find(|bit| self.0 & bit != 0)
                .unwrap_or(0),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        let c = Contents::SOLID | Contents::DETAIL | Contents(0x200);
        assert_eq!(c.names(), ["SOLID", "DETAIL", "0x200"]);
        assert_eq!(Contents::parse_names(&c.names()), Ok(c));
        assert_eq!(
            SurfaceFlags::parse_names(&["SURF_SKY".into(), "nodraw".into()]),
            Ok(SurfaceFlags::SKY | SurfaceFlags::NODRAW)
        );
        assert!(SurfaceFlags::parse_names(&["SURF_BOGUS".into()]).is_err());
    }

    #[test]
    fn record_fields_keep_high_bits() {
        let c = Contents::from_record(-1);
        assert!(c.contains(Contents::HITBOX | Contents::SOLID));
        assert_eq!(c.to_record(), -1);
        assert_eq!(Contents::MASK_OPAQUE.0, 0x4081);
        assert_eq!(Contents::ALL_VISIBLE.0, 0xff);
        assert_eq!((Contents::WATER | Contents::SLIME).visible(), Contents::SLIME);
    }
}

/// The BSP's displacement triangle tag bits (`DISPTRI_TAG_*`) that VBSP writes.
pub mod disp_tag {
    pub const WALKABLE: u16 = 1 << 1;
    pub const BUILDABLE: u16 = 1 << 2;
}
