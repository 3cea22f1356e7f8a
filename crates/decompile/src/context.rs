//! What every part of the decompile shares: the BSP, the resolved materials, the face index,
//! the id counter, and what the brushes tell the entities (faces per side, patched sides per
//! cubemap).

use std::collections::HashMap;

use srcmap_bsp::Bsp;

use crate::faces::FaceIndex;
use crate::ids::Ids;
use crate::materials::Materials;

pub(crate) struct Ctx<'b> {
    pub bsp: &'b Bsp,
    pub materials: Materials,
    pub faces: FaceIndex,
    pub ids: Ids,
    /// The VMF side id each face was matched to.
    pub face_sides: HashMap<u32, i64>,
    /// The VMF side ids whose material a cubemap at this origin patched.
    pub cubemap_sides: HashMap<[i32; 3], Vec<i64>>,
    /// What could not be decompiled, one line each.
    pub notes: Vec<String>,
}

impl<'b> Ctx<'b> {
    /// `taken`: ids the entities keep (their `hammerid`s).
    pub fn new(bsp: &'b Bsp, taken: impl IntoIterator<Item = i64>) -> Ctx<'b> {
        Ctx {
            bsp,
            materials: Materials::new(bsp),
            faces: FaceIndex::new(bsp),
            ids: Ids::new(taken),
            face_sides: HashMap::new(),
            cubemap_sides: HashMap::new(),
            notes: Vec::new(),
        }
    }
}
