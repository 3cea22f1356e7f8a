//! Typed indices into the compile's arenas: the brush table (the brush lump), brush sides,
//! the entity list (the entity lump) and the texinfo table.

/// A brush: its index in the compile's brush table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BrushId(pub u32);

impl std::fmt::Display for BrushId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl BrushId {
    pub fn idx(self) -> usize {
        self.0 as usize
    }
}

/// One side of a brush: the brush, and the side's index in its sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SideRef {
    pub brush: BrushId,
    pub side: u32,
}

/// An entity of the entity lump (after preprocessing); 0 is the world.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EntityId(pub u32);

impl std::fmt::Display for EntityId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl EntityId {
    pub const WORLD: EntityId = EntityId(0);

    pub fn idx(self) -> usize {
        self.0 as usize
    }
}

/// A texinfo: its index in the texinfo table (and lump).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TexinfoId(pub u32);

impl std::fmt::Display for TexinfoId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl TexinfoId {
    pub fn idx(self) -> usize {
        self.0 as usize
    }
}
