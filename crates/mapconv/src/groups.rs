//! Visgroups and cordons both ways.
//!
//! - A VMF visgroup is a `CMapSelectionSet` (an object set, as Hammer 2 makes one) under the
//!   root selection set, a nested visgroup a set under its parent's; it selects the nodes its
//!   entities and brushes became. The visgroup's colour, which a set has not, is carried as
//!   `srcmapColor`; ids are numbered afresh on the way back, depth-first from 1.
//! - A VMF cordon box is a `CMapCordon` node under the world (the element named for its
//!   cordon, `origin` the box's centre, `scales` its size, as Hammer 2 stores one), and the
//!   `cordons` block's `active` the root's `m_bIsCordoning`. Boxes of consecutive cordon nodes
//!   with one name come back as one cordon.

use std::collections::HashMap;

use srcmap_dmx::{ElemRef, Value};
use srcmap_vmap::{Placement, SelectionSet, Vmap, VmapWriter};
use srcmap_vmf::{VisGroup, Vmf, VmfWriter, format_number};

/// The attribute carrying a visgroup's colour on its selection set (Hammer does not read it).
pub const COLOR_ATTRIBUTE: &str = "srcmapColor";
/// A visgroup's colour when its set carries none.
const DEFAULT_COLOR: &str = "220 220 220";

/// Writes `groups` (and their nested groups) as selection sets under `parent` (the root set
/// when `None`); `members` gives each visgroup id's nodes.
pub fn write_visgroups(
    w: &mut VmapWriter,
    groups: &[VisGroup],
    members: &HashMap<i64, Vec<u32>>,
    parent: Option<u32>,
) {
    for g in groups {
        let objects = members.get(&g.id).map_or(&[][..], Vec::as_slice);
        let set = w.add_selection_set(parent, &g.name, objects);
        let [r, gr, b] = g.color;
        w.set_string(set, COLOR_ATTRIBUTE, &format!("{r} {gr} {b}"));
        write_visgroups(w, &g.children, members, Some(set));
    }
}

/// A cordon box: its cordon's name, mins and maxs.
type CordonBox = (String, [f64; 3], [f64; 3]);

/// The map's cordon boxes and whether cordoning is on (the newer `cordons` block, else the
/// old single `cordon`).
fn vmf_cordons(vmf: &Vmf) -> (bool, Vec<CordonBox>) {
    let (active, cordons) = match (&vmf.cordons, &vmf.cordon) {
        (Some(c), _) => (c.active, c.cordons.iter().collect::<Vec<_>>()),
        (None, Some(c)) => (c.active, vec![c]),
        (None, None) => return (false, Vec::new()),
    };
    let boxes = cordons.iter().flat_map(|c| {
        let name = c.name.clone().unwrap_or_else(|| "cordon".into());
        c.boxes.iter().map(move |&(lo, hi)| (name.clone(), lo, hi))
    });
    (active, boxes.collect())
}

/// Writes the map's cordon boxes as `CMapCordon` nodes under the world, numbered from
/// `first_node_id`; returns how many.
pub fn write_cordons(w: &mut VmapWriter, vmf: &Vmf, first_node_id: i32) -> usize {
    let (active, boxes) = vmf_cordons(vmf);
    for (k, (name, lo, hi)) in boxes.iter().enumerate() {
        let at = Placement {
            origin: [0, 1, 2].map(|i| ((lo[i] + hi[i]) / 2.0) as f32),
            angles: [0.0; 3],
            scales: [0, 1, 2].map(|i| (hi[i] - lo[i]) as f32),
        };
        let world = w.world();
        let node = w.add_node(world, "CMapCordon", first_node_id + k as i32, &at, Vec::new());
        w.set_element_name(node, name);
    }
    w.set_attribute(0, "m_bIsCordoning", Value::Bool(active));
    boxes.len()
}

/// A visgroup to write back.
#[derive(Debug, Clone, PartialEq)]
pub struct OutVisgroup {
    pub name: String,
    pub id: i64,
    pub color: String,
    pub children: Vec<OutVisgroup>,
}

/// The VMAP's selection sets as visgroups, and each selected node's visgroup ids.
pub fn read_visgroups(vmap: &Vmap) -> (Vec<OutVisgroup>, HashMap<u32, Vec<i64>>) {
    let sets: HashMap<u32, SelectionSet> = vmap
        .selection_sets()
        .into_iter()
        .map(|s| (s.element, s))
        .collect();
    let root = match vmap.root().get("rootSelectionSet") {
        Some(Value::Element(ElemRef::Local(r))) => sets.get(r),
        _ => None,
    };
    let mut members = HashMap::new();
    let mut next = 1;
    let groups = match root {
        Some(root) => visgroups_under(vmap, &sets, &root.children, &mut next, &mut members, 0),
        None => Vec::new(),
    };
    (groups, members)
}

/// Sets nest at most this deep on the way back (a set that contains itself stops here).
const MAX_NESTING: usize = 32;

/// The visgroups of the sets `children`, numbered depth-first from `next`.
fn visgroups_under(
    vmap: &Vmap,
    sets: &HashMap<u32, SelectionSet>,
    children: &[u32],
    next: &mut i64,
    members: &mut HashMap<u32, Vec<i64>>,
    depth: usize,
) -> Vec<OutVisgroup> {
    let mut out = Vec::new();
    for set in children.iter().filter_map(|c| sets.get(c)) {
        if depth >= MAX_NESTING {
            break;
        }
        let id = *next;
        *next += 1;
        for &node in &set.selected {
            members.entry(node).or_default().push(id);
        }
        let color = vmap
            .element(set.element)
            .and_then(|e| e.get(COLOR_ATTRIBUTE))
            .and_then(Value::as_str);
        out.push(OutVisgroup {
            name: set.name.clone(),
            id,
            color: color.unwrap_or(DEFAULT_COLOR).to_string(),
            children: visgroups_under(vmap, sets, &set.children, next, members, depth + 1),
        });
    }
    out
}

/// Writes visgroups inside the `visgroups` block.
pub fn write_vmf_visgroups(w: &mut VmfWriter, groups: &[OutVisgroup]) {
    for g in groups {
        w.open("visgroup");
        w.value("name", &g.name);
        w.value("visgroupid", &g.id.to_string());
        w.value("color", &g.color);
        write_vmf_visgroups(w, &g.children);
        w.close();
    }
}

/// A cordon to write back: its name and boxes.
#[derive(Debug, Clone, PartialEq)]
pub struct OutCordon {
    pub name: String,
    pub boxes: Vec<([f64; 3], [f64; 3])>,
}

/// The VMAP's cordon nodes as cordons (consecutive boxes of one name together), and whether
/// cordoning is on.
pub fn read_cordons(vmap: &Vmap) -> (bool, Vec<OutCordon>) {
    let mut out: Vec<OutCordon> = Vec::new();
    for n in vmap.nodes_of("CMapCordon") {
        let name = vmap.element(n.element).map_or("cordon", |e| e.name.as_str());
        let (origin, _, scales) = vmap.transform(n.element);
        let corner =
            |sign: f64| [0, 1, 2].map(|i| f64::from(origin[i]) + sign * f64::from(scales[i]).abs() / 2.0);
        let bounds = (corner(-1.0), corner(1.0));
        match out.last_mut() {
            Some(last) if last.name == name => last.boxes.push(bounds),
            _ => out.push(OutCordon {
                name: name.to_string(),
                boxes: vec![bounds],
            }),
        }
    }
    let active = vmap.root().get("m_bIsCordoning").and_then(Value::as_bool);
    (active.unwrap_or(false), out)
}

/// Writes the `cordons` block (nothing when there are none).
pub fn write_vmf_cordons(w: &mut VmfWriter, active: bool, cordons: &[OutCordon]) {
    if cordons.is_empty() {
        return;
    }
    let point = |p: [f64; 3]| format!("({})", p.map(format_number).join(" "));
    w.open("cordons");
    w.value("active", if active { "1" } else { "0" });
    for c in cordons {
        w.open("cordon");
        w.value("name", &c.name);
        w.value("active", "1");
        for &(lo, hi) in &c.boxes {
            w.block("box", &[("mins", &point(lo)), ("maxs", &point(hi))]);
        }
        w.close();
    }
    w.close();
}
