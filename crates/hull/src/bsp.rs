//! Solids from a BSP: the world's brushes and those of solid brush entities (through each
//! model's tree, with the bevel sides vbsp stored), and the displacements' triangles.

use glam::Vec3;
use srcmap_bsp::{Bsp, Entity};

use crate::convex::Side;
use crate::world::WorldBuilder;

/// Brush entities the game's navigation generator walks through: doors open, breakables break,
/// and triggers are never solid (Valve's `IsEntityWalkable`; `func_brush` by its solidity).
fn entity_is_solid(e: &Entity) -> bool {
    let class = e.classname().unwrap_or("");
    match class {
        "func_brush" => e.get("Solidity").map(srcmap_kv::values::atoi) == Some(2),
        "func_wall" | "func_wall_toggle" | "func_movelinear" | "func_tracktrain" | "func_train" => true,
        "func_physbox" | "func_physbox_multiplayer" | "func_rotating" | "func_illusionary_solid" => true,
        _ => false,
    }
}

/// Adds every brush of the world model and of the solid brush entities.
pub fn add_brushes(bsp: &Bsp, builder: &mut WorldBuilder) {
    add_model_brushes(bsp, 0, Vec3::ZERO, builder);
    for e in bsp.entities.iter().filter(|e| entity_is_solid(e)) {
        if let Some(model) = e.brush_model().filter(|&m| m > 0) {
            let origin = e
                .get("origin")
                .and_then(srcmap_kv::values::vector)
                .unwrap_or([0.0; 3]);
            add_model_brushes(bsp, model, Vec3::from(origin.map(|v| v as f32)), builder);
        }
    }
}

fn add_model_brushes(bsp: &Bsp, model: usize, origin: Vec3, builder: &mut WorldBuilder) {
    let Some(m) = bsp.models.get(model) else { return };
    for brush in model_brushes(bsp, m.head_node) {
        let b = &bsp.brushes[brush];
        let sides: Vec<Side> = bsp.sides_of(b).filter_map(|s| side_of(bsp, s, origin)).collect();
        if let Some(bounds) = axial_bounds(&sides) {
            builder.add(&sides, bounds, b.contents as u32, false);
        }
    }
}

/// The brushes the leaves under `head` list, each once, in index order.
fn model_brushes(bsp: &Bsp, head: i32) -> Vec<usize> {
    let mut seen = vec![false; bsp.brushes.len()];
    let mut stack = vec![head];
    let mut steps = 0usize;
    while let Some(n) = stack.pop() {
        steps += 1;
        if steps > bsp.nodes.len() + bsp.leafs.len() + 1 {
            break; // a cyclic tree: what was found so far
        }
        if n >= 0 {
            if let Some(node) = bsp.nodes.get(n as usize) {
                stack.extend(node.children);
            }
            continue;
        }
        mark_leaf_brushes(bsp, (-1 - n) as usize, &mut seen);
    }
    (0..seen.len()).filter(|&i| seen[i]).collect()
}

fn mark_leaf_brushes(bsp: &Bsp, leaf: usize, seen: &mut [bool]) {
    let Some(l) = bsp.leafs.get(leaf) else { return };
    let start = l.first_leaf_brush as usize;
    let end = start.saturating_add(l.num_leaf_brushes as usize);
    for &b in bsp.leaf_brushes.get(start..end).unwrap_or(&[]) {
        if let Some(s) = seen.get_mut(b as usize) {
            *s = true;
        }
    }
}

fn side_of(bsp: &Bsp, side: &srcmap_bsp::BrushSide, origin: Vec3) -> Option<Side> {
    let plane = bsp.planes.get(side.plane as usize)?;
    let normal = Vec3::from(plane.normal);
    let surface = usize::try_from(side.texinfo)
        .ok()
        .and_then(|t| bsp.texinfo.get(t))
        .map_or(0, |t| t.flags as u32);
    Some(Side {
        normal,
        dist: plane.dist + normal.dot(origin),
        surface,
    })
}

/// The box the brush's axial sides bound (vbsp gives every brush all six); `None` without them.
fn axial_bounds(sides: &[Side]) -> Option<(Vec3, Vec3)> {
    let mut mins = Vec3::splat(f32::NEG_INFINITY);
    let mut maxs = Vec3::splat(f32::INFINITY);
    for s in sides {
        for a in 0..3 {
            if s.normal[a] == 1.0 {
                maxs[a] = maxs[a].min(s.dist);
            } else if s.normal[a] == -1.0 {
                mins[a] = mins[a].max(-s.dist);
            }
        }
    }
    (mins.is_finite() && maxs.is_finite()).then_some((mins, maxs))
}
