//! Where each branch's tools put the lumps in the file: the order of the data after the header,
//! as Valve's BSPs of each branch hold it (read from their lump directories). A lump missing
//! from its branch's list is never written by those tools and keeps offset 0 while empty.

use crate::file::LumpOrder;
use crate::lump::VALVE_WRITE_ORDER;

/// BSP 19 (Half-Life 2 and Counter-Strike: Source before the 2006 engine): no HDR lumps, no
/// map flags. Face ids and physics displacement collision, which those tools left out, go
/// where BSP 20 puts them (after the faces, after the physics models) when written.
pub const V19_WRITE_ORDER: [usize; 46] = [
    1, 10, 3, 5, 6, 2, 26, 33, 34, 48, 47, 37, 38, 39, 7, 11, 27, 18, 19, 16, 17, 13, 12, 14, 20, 21, 8, 4,
    0, 15, 32, 36, 9, 41, 42, 43, 44, 45, 29, 49, 28, 30, 31, 46, 35, 40,
];

/// BSP 21 and later (Counter-Strike: Global Offensive, Portal 2; Desolation's 42 keeps it): map
/// flags and textures first, the tree, then geometry. HDR faces, which CS:GO's vbsp leaves out,
/// sit after the faces as Strata puts them.
pub const V21_WRITE_ORDER: [usize; 58] = [
    59, 6, 2, 43, 44, 10, 17, 1, 18, 19, 14, 5, 20, 21, 4, 0, 29, 26, 3, 12, 13, 7, 58, 33, 48, 63, 28, 9, 8,
    37, 38, 39, 53, 30, 31, 51, 52, 55, 56, 16, 36, 45, 50, 60, 61, 46, 15, 34, 41, 42, 54, 47, 11, 22, 23,
    27, 35, 40,
];

/// Strata Source (BSP 25): as [`V21_WRITE_ORDER`] with the leaf ambient lumps as its vrad puts
/// them, LDR lighting before the indices and HDR's indices before its lighting.
pub const STRATA_WRITE_ORDER: [usize; 58] = [
    59, 6, 2, 43, 44, 10, 17, 1, 18, 19, 14, 5, 20, 21, 4, 0, 29, 26, 3, 12, 13, 7, 58, 33, 48, 63, 28, 9, 8,
    37, 38, 39, 53, 30, 31, 56, 52, 51, 55, 16, 36, 45, 50, 60, 61, 46, 15, 34, 41, 42, 54, 47, 11, 22, 23,
    27, 35, 40,
];

/// Left 4 Dead 2 (BSP 21 with its own `lump_t` field order): as [`V21_WRITE_ORDER`] with the
/// physics level lump after the displacements and the prop lumps before the game lump.
pub const L4D2_WRITE_ORDER: [usize; 61] = [
    59, 6, 2, 43, 44, 10, 17, 1, 18, 19, 14, 5, 20, 21, 4, 0, 29, 26, 62, 3, 12, 13, 7, 58, 33, 48, 28, 9, 8,
    53, 37, 38, 39, 30, 31, 51, 52, 55, 56, 16, 36, 45, 50, 60, 61, 46, 15, 34, 41, 42, 54, 47, 11, 27, 22,
    23, 24, 25, 49, 35, 40,
];

/// The file order of lumps Valve's tools write for BSP `version` with `order` directory fields.
pub fn write_order(version: i32, order: LumpOrder) -> &'static [usize] {
    match (version, order) {
        (_, LumpOrder::L4d2) => &L4D2_WRITE_ORDER,
        (..=19, _) => &V19_WRITE_ORDER,
        (20, _) => &VALVE_WRITE_ORDER,
        (25, _) => &STRATA_WRITE_ORDER,
        _ => &V21_WRITE_ORDER,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each order names a lump once, the pakfile last (zip tools find it at the end).
    #[test]
    fn orders_name_each_lump_once_pakfile_last() {
        for list in [
            &V19_WRITE_ORDER[..],
            &V21_WRITE_ORDER,
            &STRATA_WRITE_ORDER,
            &L4D2_WRITE_ORDER,
            &VALVE_WRITE_ORDER,
        ] {
            let mut seen = [false; crate::lump::HEADER_LUMPS];
            for &lump in list {
                assert!(!seen[lump], "lump {lump} twice");
                seen[lump] = true;
            }
            assert_eq!(list.last(), Some(&crate::lump::PAKFILE));
            assert!(list.contains(&crate::lump::GAME_LUMP));
        }
    }
}
