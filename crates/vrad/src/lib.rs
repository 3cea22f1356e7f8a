//! Compile stage 3: lightmaps with direct and bounced light, ambient cubes.
