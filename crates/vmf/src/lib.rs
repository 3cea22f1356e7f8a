//! Valve Map Format: typed view over a lossless KeyValues document.
