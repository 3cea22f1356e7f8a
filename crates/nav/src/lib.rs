//! Navigation meshes (.nav), every version, byte-exact.
