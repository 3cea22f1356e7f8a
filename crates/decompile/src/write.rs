//! The map as VMF text, laid out as Hammer saves one: versioninfo, visgroups, viewsettings,
//! world, entities (outputs in `connections`), cameras. Written straight into one string (a
//! big map's displacement rows are megabytes of numbers).

use srcmap_vmf::{TextureAxis, VmfWriter, format_number};

use crate::map::Map;
use crate::types::{OutEntity, OutSide, OutSolid};

/// The map as VMF text.
pub(crate) fn text(map: &Map) -> String {
    document(map.revision, &map.world, &map.entities)
}

/// A VMF of `world` and `entities` (the map, or an instance file).
pub(crate) fn document(revision: i32, world: &OutEntity, entities: &[OutEntity]) -> String {
    let mut doc = VmfWriter::new(revision);
    entity(&mut doc, "world", world);
    for e in entities {
        entity(&mut doc, "entity", e);
    }
    doc.finish()
}

/// An entity: id, key/values (outputs into `connections`), solids.
fn entity(doc: &mut VmfWriter, key: &str, e: &OutEntity) {
    doc.open(key);
    doc.value("id", &e.id.to_string());
    let (outputs, keys): (Vec<_>, Vec<_>) = e.keyvalues.iter().partition(|(k, v)| is_output(k, v));
    for (k, v) in keys.iter().filter(|(k, _)| !k.eq_ignore_ascii_case("id")) {
        doc.value(k, v);
    }
    if !outputs.is_empty() {
        doc.open("connections");
        for (k, v) in outputs {
            doc.value(k, v);
        }
        doc.close();
    }
    for s in &e.solids {
        solid(doc, s);
    }
    doc.close();
}

/// An output: `target,input,parameter,delay,times` with the ESC separator newer compilers
/// write, or with commas under an `On…`/`Out…` name.
fn is_output(key: &str, value: &str) -> bool {
    if value.matches('\x1b').count() == 4 {
        return true;
    }
    let named = key.starts_with("On") || key.starts_with("Out");
    named && value.matches(',').count() == 4
}

fn solid(doc: &mut VmfWriter, s: &OutSolid) {
    doc.open("solid");
    doc.value("id", &s.id.to_string());
    for side in &s.sides {
        write_side(doc, side);
    }
    doc.close();
}

fn write_side(doc: &mut VmfWriter, s: &OutSide) {
    doc.open("side");
    doc.value("id", &s.id.to_string());
    doc.value("plane", &plane(&s.points));
    doc.value("material", &s.material);
    doc.value("uaxis", &axis(&s.uaxis));
    doc.value("vaxis", &axis(&s.vaxis));
    doc.value("rotation", "0");
    doc.value("lightmapscale", &format_number(s.lightmap_scale));
    doc.value("smoothing_groups", &s.smoothing_groups.to_string());
    if let Some(d) = &s.disp {
        doc.dispinfo(d);
    }
    doc.close();
}

fn plane(points: &[[f64; 3]; 3]) -> String {
    let p = |q: &[f64; 3]| {
        format!(
            "({} {} {})",
            format_number(q[0]),
            format_number(q[1]),
            format_number(q[2])
        )
    };
    format!("{} {} {}", p(&points[0]), p(&points[1]), p(&points[2]))
}

fn axis(a: &TextureAxis) -> String {
    let [x, y, z] = a.axis.map(format_number);
    format!(
        "[{x} {y} {z} {}] {}",
        format_number(a.shift),
        format_number(a.scale)
    )
}
