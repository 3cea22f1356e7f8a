//! VMF ↔ VMAP: Source 1 Hammer maps to Source 2 Hammer maps and back (vmap.md §4–5).
//!
//! - [`vmf_to_vmap`]: each VMF solid becomes a `CMapMesh` whose polygon mesh is a closed
//!   half-edge 2-manifold (the brush's sides clipped by each other, corners welded), with
//!   per-face materials (`materials/….vmat`), texture axes, shifts and scales copied exactly and
//!   per-corner texture coordinates, normals and tangents from them; smoothing groups become
//!   soft or hard edges. Entities keep their classes, key values and outputs; models become
//!   `.vmdl`. A brush that encloses no volume is left out with a [`Warning`] naming it.
//! - [`vmap_to_vmf`]: each mesh is cut into convex pieces by its own face planes (a solid-leaf
//!   BSP, so a convex mesh stays one brush with one side per face plane); pieces become solids,
//!   faces their sides (materials back to VMT names, texture axes from the face data), new cut
//!   faces `TOOLS/TOOLSNODRAW`. Entities go back with their outputs.
//!
//! Neither direction reads or writes files: the driver does (`srcmap_driver::mapconv`).

mod brush;
mod carried_sides;
mod disp;
mod entities;
mod groups;
mod instances;
mod solidify;
mod texture;
mod to_vmap;
mod to_vmf;
mod vmf_text;

#[cfg(test)]
mod testmaps;

pub use brush::{BrushError, BrushMesh, brush_mesh};
pub use entities::ClassRenames;
pub use instances::{FIXUP_STYLE_ATTRIBUTE, InstancePaths, with_extension};
pub use texture::{DEFAULT_TEXTURE_SIZE, vmat_path, vmt_name};
pub use to_vmap::{ToVmapOptions, ToVmapReport, vmf_to_vmap};
pub use to_vmf::{MeshReport, PrefabFile, ToVmfOptions, ToVmfReport, vmap_to_vmf, vmap_to_vmf_with};

/// A conversion that cannot go on; each names the element or brush at fault.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MapconvError {
    #[error("brush {brush} (entity {entity} '{class}'): {message}")]
    Brush {
        entity: i64,
        class: String,
        brush: i64,
        message: String,
    },
    #[error("element {element} ({class}): {message}")]
    Element {
        element: u32,
        class: String,
        message: String,
    },
    #[error(transparent)]
    Vmap(#[from] srcmap_vmap::VmapError),
    #[error(transparent)]
    Dmx(#[from] srcmap_dmx::DmxError),
}

/// Something left out or changed on the way, with the place a mapper looks for it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Warning {
    /// `brush 12 (entity 1 'worldspawn')` or `element 40 (CMapMesh)`.
    pub place: String,
    pub message: String,
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.place, self.message)
    }
}

impl Warning {
    fn brush(e: &srcmap_vmf::Entity, brush: i64, message: String) -> Warning {
        Warning {
            place: format!("brush {brush} (entity {} '{}')", e.id, e.classname),
            message,
        }
    }

    fn element(element: u32, class: &str, message: String) -> Warning {
        Warning {
            place: format!("element {element} ({class})"),
            message,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use srcmap_vmap::Vmap;
    use srcmap_vmf::Vmf;

    fn converted() -> (Vmf, Vmap, ToVmapReport) {
        let vmf = Vmf::parse(testmaps::box_room()).unwrap();
        let (vmap, report) = vmf_to_vmap(&vmf, &ToVmapOptions::default()).unwrap();
        let text = vmap.doc.write_as(false, Some(4)).unwrap();
        (vmf, Vmap::read(&text).unwrap(), report)
    }

    #[test]
    fn each_brush_becomes_a_closed_mesh_with_its_area() {
        let (_, vmap, report) = converted();
        assert_eq!((report.meshes, report.faces, report.entities), (2, 12, 4));
        let floor = 2.0 * 256.0 * 256.0 + 4.0 * 256.0 * 16.0;
        assert!((report.area["materials/dev/dev_measuregeneric01.vmat"] - floor).abs() < 1e-6);
        for (_, data) in vmap.meshes() {
            let stats = vmap.polygon_mesh(data).unwrap().check().unwrap();
            assert_eq!(
                (stats.boundary_half_edges, stats.faces, stats.vertices),
                (0, 6, 8)
            );
        }
    }

    #[test]
    fn stored_texcoords_follow_the_axes_at_every_corner() {
        let (_, vmap, _) = converted();
        for (node, data) in vmap.meshes() {
            let (origin, _, _) = vmap.transform(node.element);
            let m = vmap.polygon_mesh(data).unwrap();
            for f in 0..m.face_count() {
                let axis = |s: &str| match m.face_value(s, f) {
                    Some(srcmap_dmx::Value::Vector4(a)) => a,
                    other => panic!("{other:?}"),
                };
                let Some(srcmap_dmx::Value::Vector2(scale)) = m.face_value("textureScale:0", f) else {
                    panic!()
                };
                let (u, v) = (axis("textureAxisU:0"), axis("textureAxisV:0"));
                for c in m.face_corners(f) {
                    let p = m.positions().unwrap()[c.vertex_row as usize];
                    let w: Vec<f64> = (0..3).map(|i| f64::from(p[i]) + f64::from(origin[i])).collect();
                    let texels = |a: [f32; 4], s: f32| {
                        (0..3).map(|i| w[i] * f64::from(a[i])).sum::<f64>() / f64::from(s) + f64::from(a[3])
                    };
                    let Some(srcmap_dmx::Value::Vector2(uv)) = m.corner_value("texcoord:0", &c) else {
                        panic!()
                    };
                    assert!((f64::from(uv[0]) * 512.0 - texels(u, scale[0])).abs() < 1e-3);
                    assert!((f64::from(uv[1]) * 512.0 - texels(v, scale[1])).abs() < 1e-3);
                }
            }
        }
    }

    #[test]
    fn the_round_trip_keeps_brushes_entities_and_outputs() {
        let (vmf, vmap, _) = converted();
        let (text, report) = vmap_to_vmf(&vmap).unwrap();
        assert_eq!(
            (report.faces(), report.faces_unsplit(), report.brushes()),
            (12, 12, 2)
        );
        assert_eq!(report.cut_area, 0.0);
        let back = Vmf::parse(text).unwrap();
        let classes = |v: &Vmf| v.entities.iter().map(|e| e.classname.clone()).collect::<Vec<_>>();
        assert_eq!(classes(&back), classes(&vmf));
        assert_eq!(back.world.solids.len(), 1);
        assert_eq!(back.world.get("skyname"), Some("sky_day01_01"));
        let light = &back.entities[1];
        assert_eq!(light.get("origin"), Some("128 128 64"));
        assert_eq!(light.connections.len(), 2);
        assert_eq!(light.connections[1].parameter, "x,y");
        assert_eq!(back.entities[2].get("model"), Some("models/props/box.mdl"));
        // The overlay still names the floor's top side (the unknown id 999 dropped).
        let sides: Vec<i64> = back.entities[3]
            .get("sides")
            .unwrap()
            .split(' ')
            .map(|s| s.parse().unwrap())
            .collect();
        let top = back.world.solids[0]
            .sides
            .iter()
            .find(|s| s.id == sides[0])
            .unwrap();
        assert_eq!((sides.len(), top.plane[0][2], top.plane[1][2]), (1, 16.0, 16.0));
        let areas = |v: &Vmf| -> f64 {
            v.entities[0]
                .solids
                .iter()
                .flat_map(brush_mesh)
                .map(|m| (0..m.faces.len()).map(|f| m.face_area(f)).sum::<f64>())
                .sum()
        };
        assert!((areas(&back) - areas(&vmf)).abs() < 1e-3);
    }

    #[test]
    fn instances_become_prefabs_and_come_back() {
        let vmf = Vmf::parse(testmaps::instanced()).unwrap();
        let paths = InstancePaths {
            content_folder: "maps/".into(),
            base: String::new(),
        };
        let opts = ToVmapOptions {
            instances: paths.clone(),
            ..ToVmapOptions::default()
        };
        let (vmap, report) = vmf_to_vmap(&vmf, &opts).unwrap();
        assert_eq!((report.prefabs, report.entities), (2, 0));
        assert_eq!(report.instances, ["instances/pillar.vmf"]);
        let vmap = Vmap::read(&vmap.doc.write_as(true, Some(9)).unwrap()).unwrap();
        let prefabs = vmap.prefab_entities();
        let target = |i: usize| prefabs[i].element().get("targetMapPath").unwrap().to_text();
        assert_eq!(target(1).as_deref(), Some("maps/instances/pillar.vmap"));
        assert_eq!(prefabs[1].transform().1, [0.0, 90.0, 0.0]);
        let (text, back_report) = vmap_to_vmf_with(&vmap, &ToVmfOptions { instances: paths }).unwrap();
        assert_eq!(back_report.prefabs.len(), 1);
        assert_eq!(back_report.prefabs[0].file, "instances/pillar.vmf");
        let back = Vmf::parse(text).unwrap();
        let b = &back.entities[1];
        let keys = [
            "classname",
            "targetname",
            "file",
            "fixup_style",
            "replace01",
            "origin",
            "angles",
        ];
        let values: Vec<&str> = keys.iter().map(|k| b.get(k).unwrap_or("-")).collect();
        assert_eq!(
            values,
            [
                "func_instance",
                "b",
                "instances/pillar.vmf",
                "1",
                "$color 255 0 0",
                "192 64 16",
                "0 90 0"
            ]
        );
        assert_eq!(b.connections[0].target, "a");
        assert_eq!(back.entities[0].get("fixup_style"), Some("0"));
    }

    #[test]
    fn brush_sides_come_back_with_their_source_planes_and_lightmap_scale() {
        let text = testmaps::box_room().replace("\"lightmapscale\" \"16\"", "\"lightmapscale\" \"32\"");
        let vmf = Vmf::parse(text).unwrap();
        let (vmap, _) = vmf_to_vmap(&vmf, &ToVmapOptions::default()).unwrap();
        let vmap = Vmap::read(&vmap.doc.write_as(true, Some(9)).unwrap()).unwrap();
        let back = Vmf::parse(vmap_to_vmf(&vmap).unwrap().0).unwrap();
        let sides = |v: &Vmf| -> Vec<([[f64; 3]; 3], f64)> {
            let solid = &v.world.solids[0];
            solid.sides.iter().map(|s| (s.plane, s.lightmap_scale)).collect()
        };
        assert_eq!(sides(&back), sides(&vmf));
    }

    #[test]
    fn hidden_objects_stay_hidden() {
        let vmf = Vmf::parse(testmaps::hidden()).unwrap();
        let hidden = |v: &Vmf| {
            let solids: Vec<bool> = v.world.solids.iter().map(|s| s.hidden).collect();
            let entities: Vec<(String, bool)> = (v.entities.iter())
                .map(|e| (e.classname.clone(), e.hidden))
                .collect();
            (solids, entities)
        };
        assert_eq!(hidden(&vmf).0, [false, true]);
        let (vmap, _) = vmf_to_vmap(&vmf, &ToVmapOptions::default()).unwrap();
        let vmap = Vmap::read(&vmap.doc.write_as(true, Some(9)).unwrap()).unwrap();
        let back = Vmf::parse(vmap_to_vmf(&vmap).unwrap().0).unwrap();
        assert_eq!(hidden(&back), hidden(&vmf));
        assert_eq!(back.entities[0].solids.len(), 1);
    }

    #[test]
    fn visgroups_and_cordons_come_back() {
        let vmf = Vmf::parse(testmaps::grouped()).unwrap();
        let (vmap, report) = vmf_to_vmap(&vmf, &ToVmapOptions::default()).unwrap();
        assert_eq!(report.cordon_boxes, 3);
        let vmap = Vmap::read(&vmap.doc.write_as(true, Some(9)).unwrap()).unwrap();
        let sets = vmap.selection_sets();
        let named: Vec<(&str, usize)> = sets.iter().map(|s| (s.name.as_str(), s.selected.len())).collect();
        assert_eq!(named, [("", 0), ("Outer", 2), ("Inner", 1)]);
        assert_eq!(vmap.nodes_of("CMapCordon").len(), 3);
        let (text, _) = vmap_to_vmf(&vmap).unwrap();
        let back = Vmf::parse(text).unwrap();
        let outer = &back.visgroups[0];
        let inner = &outer.children[0];
        assert_eq!(
            (outer.name.as_str(), outer.color, inner.name.as_str(), inner.color),
            ("Outer", [10, 20, 30], "Inner", [40, 50, 60])
        );
        let ids = |e: Option<&srcmap_vmf::Editor>| e.map(|e| e.visgroup_ids.clone()).unwrap_or_default();
        assert_eq!(ids(back.world.solids[0].editor.as_ref()), [outer.id]);
        assert_eq!(ids(back.entities[0].editor.as_ref()), [outer.id, inner.id]);
        let cordons = back.cordons.unwrap();
        let original = vmf.cordons.unwrap();
        assert!(cordons.active);
        let boxes = |c: &srcmap_vmf::Cordons| {
            c.cordons
                .iter()
                .map(|c| (c.name.clone(), c.boxes.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(boxes(&cordons), boxes(&original));
    }
}
