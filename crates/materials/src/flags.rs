//! Valve's `CONTENTS_*` and `SURF_*` bits (`bspflags.h`), with their names for tables and reports.

pub const CONTENTS_EMPTY: u32 = 0;
pub const CONTENTS_SOLID: u32 = 0x1;
pub const CONTENTS_WINDOW: u32 = 0x2;
pub const CONTENTS_AUX: u32 = 0x4;
pub const CONTENTS_GRATE: u32 = 0x8;
pub const CONTENTS_SLIME: u32 = 0x10;
pub const CONTENTS_WATER: u32 = 0x20;
pub const CONTENTS_BLOCKLOS: u32 = 0x40;
pub const CONTENTS_OPAQUE: u32 = 0x80;
pub const CONTENTS_TESTFOGVOLUME: u32 = 0x100;
pub const CONTENTS_TEAM1: u32 = 0x800;
pub const CONTENTS_TEAM2: u32 = 0x1000;
pub const CONTENTS_IGNORE_NODRAW_OPAQUE: u32 = 0x2000;
pub const CONTENTS_MOVEABLE: u32 = 0x4000;
pub const CONTENTS_AREAPORTAL: u32 = 0x8000;
pub const CONTENTS_PLAYERCLIP: u32 = 0x10000;
pub const CONTENTS_MONSTERCLIP: u32 = 0x20000;
pub const CONTENTS_CURRENT_0: u32 = 0x40000;
pub const CONTENTS_CURRENT_90: u32 = 0x80000;
pub const CONTENTS_CURRENT_180: u32 = 0x100000;
pub const CONTENTS_CURRENT_270: u32 = 0x200000;
pub const CONTENTS_CURRENT_UP: u32 = 0x400000;
pub const CONTENTS_CURRENT_DOWN: u32 = 0x800000;
pub const CONTENTS_ORIGIN: u32 = 0x1000000;
pub const CONTENTS_MONSTER: u32 = 0x2000000;
pub const CONTENTS_DEBRIS: u32 = 0x4000000;
pub const CONTENTS_DETAIL: u32 = 0x8000000;
pub const CONTENTS_TRANSLUCENT: u32 = 0x10000000;
pub const CONTENTS_LADDER: u32 = 0x20000000;
pub const CONTENTS_HITBOX: u32 = 0x40000000;

pub const SURF_LIGHT: u32 = 0x1;
pub const SURF_SKY2D: u32 = 0x2;
pub const SURF_SKY: u32 = 0x4;
pub const SURF_WARP: u32 = 0x8;
pub const SURF_TRANS: u32 = 0x10;
pub const SURF_NOPORTAL: u32 = 0x20;
pub const SURF_TRIGGER: u32 = 0x40;
pub const SURF_NODRAW: u32 = 0x80;
pub const SURF_HINT: u32 = 0x100;
pub const SURF_SKIP: u32 = 0x200;
pub const SURF_NOLIGHT: u32 = 0x400;
pub const SURF_BUMPLIGHT: u32 = 0x800;
pub const SURF_NOSHADOWS: u32 = 0x1000;
pub const SURF_NODECALS: u32 = 0x2000;
pub const SURF_NOCHOP: u32 = 0x4000;
pub const SURF_HITBOX: u32 = 0x8000;

/// Contents bits with names, lowest first.
pub const CONTENTS_NAMES: &[(u32, &str)] = &[
    (CONTENTS_SOLID, "SOLID"),
    (CONTENTS_WINDOW, "WINDOW"),
    (CONTENTS_AUX, "AUX"),
    (CONTENTS_GRATE, "GRATE"),
    (CONTENTS_SLIME, "SLIME"),
    (CONTENTS_WATER, "WATER"),
    (CONTENTS_BLOCKLOS, "BLOCKLOS"),
    (CONTENTS_OPAQUE, "OPAQUE"),
    (CONTENTS_TESTFOGVOLUME, "TESTFOGVOLUME"),
    (CONTENTS_TEAM1, "TEAM1"),
    (CONTENTS_TEAM2, "TEAM2"),
    (CONTENTS_IGNORE_NODRAW_OPAQUE, "IGNORE_NODRAW_OPAQUE"),
    (CONTENTS_MOVEABLE, "MOVEABLE"),
    (CONTENTS_AREAPORTAL, "AREAPORTAL"),
    (CONTENTS_PLAYERCLIP, "PLAYERCLIP"),
    (CONTENTS_MONSTERCLIP, "MONSTERCLIP"),
    (CONTENTS_CURRENT_0, "CURRENT_0"),
    (CONTENTS_CURRENT_90, "CURRENT_90"),
    (CONTENTS_CURRENT_180, "CURRENT_180"),
    (CONTENTS_CURRENT_270, "CURRENT_270"),
    (CONTENTS_CURRENT_UP, "CURRENT_UP"),
    (CONTENTS_CURRENT_DOWN, "CURRENT_DOWN"),
    (CONTENTS_ORIGIN, "ORIGIN"),
    (CONTENTS_MONSTER, "MONSTER"),
    (CONTENTS_DEBRIS, "DEBRIS"),
    (CONTENTS_DETAIL, "DETAIL"),
    (CONTENTS_TRANSLUCENT, "TRANSLUCENT"),
    (CONTENTS_LADDER, "LADDER"),
    (CONTENTS_HITBOX, "HITBOX"),
];

/// Surface flag bits with names, lowest first.
pub const SURF_NAMES: &[(u32, &str)] = &[
    (SURF_LIGHT, "LIGHT"),
    (SURF_SKY2D, "SKY2D"),
    (SURF_SKY, "SKY"),
    (SURF_WARP, "WARP"),
    (SURF_TRANS, "TRANS"),
    (SURF_NOPORTAL, "NOPORTAL"),
    (SURF_TRIGGER, "TRIGGER"),
    (SURF_NODRAW, "NODRAW"),
    (SURF_HINT, "HINT"),
    (SURF_SKIP, "SKIP"),
    (SURF_NOLIGHT, "NOLIGHT"),
    (SURF_BUMPLIGHT, "BUMPLIGHT"),
    (SURF_NOSHADOWS, "NOSHADOWS"),
    (SURF_NODECALS, "NODECALS"),
    (SURF_NOCHOP, "NOCHOP"),
    (SURF_HITBOX, "HITBOX"),
];

/// The names of the set bits; bits without a name as `0x...`.
pub fn names(bits: u32, table: &[(u32, &str)]) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = bits;
    for &(bit, name) in table {
        if bits & bit != 0 {
            out.push(name.to_owned());
            rest &= !bit;
        }
    }
    for i in 0..32 {
        if rest & (1 << i) != 0 {
            out.push(format!("{:#x}", 1u32 << i));
        }
    }
    out
}

/// Inverse of [`names`]: a name (with or without its `CONTENTS_`/`SURF_` prefix) or a hex number.
pub fn parse(names: &[String], table: &[(u32, &str)], prefix: &str) -> Result<u32, String> {
    let mut bits = 0;
    for n in names {
        let bare = n.strip_prefix(prefix).unwrap_or(n);
        if let Some(hex) = bare.strip_prefix("0x") {
            bits |= u32::from_str_radix(hex, 16).map_err(|_| format!("bad flag `{n}`"))?;
        } else {
            let bit = table
                .iter()
                .find(|(_, name)| name.eq_ignore_ascii_case(bare))
                .map(|(b, _)| *b);
            bits |= bit.ok_or_else(|| format!("unknown flag `{n}`"))?;
        }
    }
    Ok(bits)
}

/// The strongest visible contents bit, as Valve's `VisibleContents` picks one for a leaf.
pub fn visible_contents(contents: u32) -> u32 {
    (0..8)
        .map(|i| 1u32 << i)
        .find(|bit| contents & bit != 0)
        .unwrap_or(0)
}
