//! Every corpus VMF to VMAP and back, and every corpus VMAP to VMF (`SRCMAP_CORPUS`).

use std::path::PathBuf;

use srcmap_mapconv::{ToVmapOptions, brush_mesh, vmap_to_vmf, vmf_to_vmap};
use srcmap_vmap::Vmap;
use srcmap_vmf::Vmf;

fn files(kind: &str) -> Option<Vec<PathBuf>> {
    let root = srcmap_corpus::root("the VMF <-> VMAP corpus tests")?;
    Some(srcmap_corpus::files(&root, kind, |p| {
        kind != "vmf" || srcmap_corpus::has_extension(p, "vmf")
    }))
}

/// Each brush the converter kept is one closed mesh, no brush with a volume is left out for
/// its faces not forming one, and the VMAP's area per material is the brushes' side area per
/// material.
#[test]
fn every_vmf_becomes_closed_meshes_with_its_side_area() {
    let Some(files) = files("vmf") else { return };
    let mut meshes = 0;
    for path in files {
        let Ok(vmf) = Vmf::parse_bytes(&std::fs::read(&path).unwrap()) else {
            continue;
        };
        let (vmap, report) = vmf_to_vmap(&vmf, &ToVmapOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let bytes = vmap.doc.write_as(true, Some(9)).unwrap();
        let vmap = Vmap::read(&bytes).unwrap();
        let mut open = 0;
        for (_, data) in vmap.meshes() {
            let stats = vmap.polygon_mesh(data).unwrap().check().unwrap();
            open += usize::from(stats.boundary_half_edges > 0);
            meshes += 1;
        }
        // Only displacement grids are open.
        assert_eq!(open, report.displacements, "{}", path.display());
        let not_manifold = report.warnings.iter().find(|w| w.message.contains("2-manifold"));
        assert!(not_manifold.is_none(), "{}: {not_manifold:?}", path.display());
        let sides: f64 = vmf
            .all_entities()
            .flat_map(|e| &e.solids)
            .filter(|s| s.sides.iter().all(|side| side.dispinfo.is_none()))
            .filter_map(|s| brush_mesh(s).ok())
            .map(|m| (0..m.faces.len()).map(|f| m.face_area(f)).sum::<f64>())
            .sum();
        let total: f64 = report.area.values().sum();
        assert!(
            (total - sides).abs() <= 1e-6 * sides.max(1.0),
            "{}",
            path.display()
        );
        assert!(
            report.meshes + report.warnings.len() >= report.solids,
            "{}",
            path.display()
        );
    }
    assert!(meshes > 1000, "{meshes} meshes");
}

/// Every corpus VMAP converts to VMF text Hammer's reader takes, one VMF entity per VMAP entity
/// (prefabs as instances), each material's area kept.
#[test]
fn every_vmap_becomes_a_vmf_that_reads() {
    let Some(files) = files("vmap") else { return };
    for path in files {
        let vmap = Vmap::read(&std::fs::read(&path).unwrap()).unwrap();
        let (text, report) = vmap_to_vmf(&vmap).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let vmf = Vmf::parse(text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(vmf.entities.len(), report.entities, "{}", path.display());
        assert!(report.faces_unsplit() <= report.faces());
        // Each material keeps its area within 0.5 % (the bar).
        for (material, &area) in &report.area_vmap {
            let kept = report.area_vmf.get(material).copied().unwrap_or_default();
            assert!(
                (kept - area).abs() <= 0.005 * area,
                "{}: {material} {area} -> {kept}",
                path.display()
            );
        }
    }
}

/// Every corpus displacement comes back from VMF → VMAP → VMF on the same brush (its plane
/// points, in order) with the same power, flags, elevation, lightmap scale, triangle tags and
/// allowed vertices, and each vertex moved as far from the same point of the base grid
/// (within 0.01 unit; a grid laid out from another start corner would not be).
#[test]
fn every_displacement_comes_back_from_a_vmap_unchanged() {
    let Some(files) = files("vmf") else { return };
    let mut checked = 0;
    for path in files {
        let Ok(vmf) = Vmf::parse_bytes(&std::fs::read(&path).unwrap()) else {
            continue;
        };
        let (vmap, _) = vmf_to_vmap(&vmf, &ToVmapOptions::default()).unwrap();
        let vmap = Vmap::read(&vmap.doc.write_as(true, Some(9)).unwrap()).unwrap();
        let back = Vmf::parse(vmap_to_vmf(&vmap).unwrap().0).unwrap();
        let key = |s: &srcmap_vmf::Solid, k: usize| {
            format!("{k} {:?}", s.sides.iter().map(|x| x.plane).collect::<Vec<_>>())
        };
        let returned: std::collections::HashMap<String, &srcmap_vmf::Side> = back
            .all_entities()
            .flat_map(|e| &e.solids)
            .flat_map(|s| {
                s.sides
                    .iter()
                    .enumerate()
                    .filter(|x| x.1.dispinfo.is_some())
                    .map(move |(k, x)| (key(s, k), x))
            })
            .collect();
        for solid in vmf.all_entities().flat_map(|e| &e.solids) {
            for (k, side) in solid.sides.iter().enumerate() {
                let Some(d) = side.dispinfo.as_deref() else {
                    continue;
                };
                let Some(s2) = returned.get(&key(solid, k)) else {
                    panic!(
                        "{}: brush {} side {} did not come back",
                        path.display(),
                        solid.id,
                        side.id
                    );
                };
                let d2 = s2.dispinfo.as_deref().unwrap();
                let at = format!("{} brush {} side {}", path.display(), solid.id, side.id);
                assert_eq!(
                    (d2.power, d2.flags, s2.lightmap_scale),
                    (d.power, d.flags, side.lightmap_scale),
                    "{at}"
                );
                assert_eq!(
                    (&d2.triangle_tags, &d2.allowed_verts),
                    (&d.triangle_tags, &d.allowed_verts),
                    "{at}"
                );
                assert_eq!(d2.elevation, d.elevation, "{at}");
                for (v, (a, b)) in moved(d).iter().zip(moved(d2)).enumerate() {
                    assert!(
                        (*a - b).length() <= 0.01,
                        "{at}: vertex {v} moved from {a} to {b}"
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "{checked} displacements");
}

/// Each vertex's offset from the flat base grid (normals · distances + offsets).
fn moved(d: &srcmap_vmf::DispInfo) -> Vec<srcmap_geom::DVec3> {
    use srcmap_geom::DVec3;
    (0..d.normals.len())
        .map(|k| {
            DVec3::from_array(d.normals[k].map(f64::from)) * f64::from(d.distances[k])
                + DVec3::from_array(d.offsets.get(k).copied().unwrap_or_default().map(f64::from))
        })
        .collect()
}
