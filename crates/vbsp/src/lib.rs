//! Compile stage 1: VMF brushes to a BSP tree, portals, faces.
