//! The thin adapter from the VMF crate's typed view to the compiler's input.

use srcmap_geom::DVec3;
use srcmap_vmf::{Entity, Vmf};

use crate::input::{MapBrush, MapDisp, MapEntity, MapInput, MapSide, TexAxis};

fn v3(a: [f64; 3]) -> DVec3 {
    DVec3::new(a[0], a[1], a[2])
}

/// One VMF entity as compiler input; visgroup-hidden solids are left out (Hammer's
/// `hidden` blocks are not compiled).
pub fn entity_from_vmf(e: &Entity) -> MapEntity {
    let brushes = e
        .solids
        .iter()
        .filter(|s| !s.hidden)
        .map(|s| MapBrush {
            id: s.id,
            sides: s
                .sides
                .iter()
                .map(|side| MapSide {
                    id: side.id,
                    points: side.plane.map(v3),
                    material: side.material.clone(),
                    uaxis: TexAxis {
                        axis: v3(side.uaxis.axis),
                        shift: side.uaxis.shift,
                        scale: side.uaxis.scale,
                    },
                    vaxis: TexAxis {
                        axis: v3(side.vaxis.axis),
                        shift: side.vaxis.shift,
                        scale: side.vaxis.scale,
                    },
                    lightmap_scale: side.lightmap_scale,
                    smoothing_groups: side.smoothing_groups,
                    displacement: side.dispinfo.as_deref().map(|d| {
                        Box::new(MapDisp {
                            power: d.power,
                            start_position: v3(d.start_position),
                            flags: d.flags,
                            normals: d.normals.clone(),
                            distances: d.distances.clone(),
                            offsets: d.offsets.clone(),
                            alphas: d.alphas.clone(),
                            triangle_tags: d.triangle_tags.clone(),
                        })
                    }),
                })
                .collect(),
        })
        .collect();
    let outputs = e
        .connections
        .iter()
        .map(|c| {
            let sep = c.separator;
            let delay = if c.delay == c.delay.trunc() {
                format!("{}", c.delay as i64)
            } else {
                format!("{}", c.delay)
            };
            (
                c.output.clone(),
                format!(
                    "{}{sep}{}{sep}{}{sep}{}{sep}{}",
                    c.target, c.input, c.parameter, delay, c.times_to_fire
                ),
            )
        })
        .collect();
    let classname = e.classname.clone();
    let mut keyvalues = e.keyvalues.clone();
    if !keyvalues.iter().any(|(k, _)| k.eq_ignore_ascii_case("classname")) {
        keyvalues.insert(0, ("classname".to_string(), classname.clone()));
    }
    MapEntity {
        id: e.id,
        classname,
        keyvalues,
        outputs,
        brushes,
    }
}

/// The whole map: the world first, then every entity not hidden in a visgroup.
pub fn input_from_vmf(vmf: &Vmf) -> MapInput {
    let mut entities = vec![entity_from_vmf(&vmf.world)];
    entities.extend(vmf.entities.iter().filter(|e| !e.hidden).map(entity_from_vmf));
    MapInput { entities }
}
