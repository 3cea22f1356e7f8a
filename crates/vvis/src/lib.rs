//! Compile stage 2: portal flow visibility (PVS/PAS).
