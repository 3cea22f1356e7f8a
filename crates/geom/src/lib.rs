//! Geometry for map compiling: f64 planes, windings, clipping.
