//! Source 2 VMAP maps: typed view over DMX.
