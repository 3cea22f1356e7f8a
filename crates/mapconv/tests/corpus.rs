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

/// Each brush the converter kept is one closed mesh, and the VMAP's area per material is the
/// brushes' side area per material.
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

/// Every corpus VMAP converts to VMF text Hammer's reader takes, one VMF entity per VMAP entity.
#[test]
fn every_vmap_becomes_a_vmf_that_reads() {
    let Some(files) = files("vmap") else { return };
    for path in files {
        let vmap = Vmap::read(&std::fs::read(&path).unwrap()).unwrap();
        let (text, report) = vmap_to_vmf(&vmap).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let vmf = Vmf::parse(text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(vmf.entities.len(), report.entities, "{}", path.display());
        assert!(report.faces_unsplit() <= report.faces());
    }
}
