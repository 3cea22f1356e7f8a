//! Source BSP files: every lump typed, byte-exact read and write.
