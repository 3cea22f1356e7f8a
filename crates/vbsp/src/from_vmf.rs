//! The thin adapter from the VMF crate's typed view to the compiler's input.

use srcmap_geom::DVec3;
use srcmap_vmf::{Connection, DispInfo, Entity, Side, TextureAxis, Vmf};

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
            sides: s.sides.iter().map(side_from_vmf).collect(),
        })
        .collect();
    let outputs = e.connections.iter().map(output_from_vmf).collect();
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

fn side_from_vmf(side: &Side) -> MapSide {
    MapSide {
        id: side.id,
        points: side.plane.map(v3),
        material: side.material.clone(),
        uaxis: tex_axis(&side.uaxis),
        vaxis: tex_axis(&side.vaxis),
        lightmap_scale: side.lightmap_scale,
        smoothing_groups: side.smoothing_groups,
        displacement: side.dispinfo.as_deref().map(|d| Box::new(disp_from_vmf(d))),
    }
}

fn tex_axis(a: &TextureAxis) -> TexAxis {
    TexAxis {
        axis: v3(a.axis),
        shift: a.shift,
        scale: a.scale,
    }
}

fn disp_from_vmf(d: &DispInfo) -> MapDisp {
    MapDisp {
        power: d.power,
        start_position: v3(d.start_position),
        flags: d.flags,
        normals: d.normals.clone(),
        distances: d.distances.clone(),
        offsets: d.offsets.clone(),
        alphas: d.alphas.clone(),
        triangle_tags: d.triangle_tags.clone(),
    }
}

/// A connection as an output: its name, and `target,input,parameter,delay,times` joined by
/// the VMF's separator (a whole delay without decimals).
fn output_from_vmf(c: &Connection) -> (String, String) {
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
}

/// The whole map: the world first, then every entity not hidden in a visgroup.
pub fn input_from_vmf(vmf: &Vmf) -> MapInput {
    let mut entities = vec![entity_from_vmf(&vmf.world)];
    entities.extend(vmf.entities.iter().filter(|e| !e.hidden).map(entity_from_vmf));
    MapInput { entities }
}
