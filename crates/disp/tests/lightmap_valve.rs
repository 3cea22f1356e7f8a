//! Displacement lightmap sizes and sample positions recomputed for every corpus map with
//! displacements and compared with what Valve's VBSP wrote.
//!
//! VBSP sizes a displacement's lightmap from the brush side's float winding, which the file
//! does not keep; its face vertices are that winding welded and snapped (by up to 0.01 units a
//! coordinate). Where an edge is within that of a whole number of luxels the truncation can go
//! either way, so such a size is counted as on a boundary, not as a mismatch.

use glam::Vec3;
use srcmap_bsp::Bsp;
use srcmap_disp::lightmap::{MAX_LUXELS, sample_position_bytes, world_units_per_luxel};
use srcmap_disp::{DispGrid, disp_faces, grids_of};

/// How far the file's base edges may be from VBSP's winding, in world units.
const WELD_SLACK: f32 = 0.05;

fn axes(vecs: [[f32; 4]; 2]) -> (Vec3, Vec3) {
    let [s, t] = vecs.map(|r| Vec3::new(r[0], r[1], r[2]));
    (s, t)
}

/// Every size VBSP could have computed for base edges within `WELD_SLACK` of the file's.
fn boundary_sizes(grid: &DispGrid, s: Vec3) -> ([u32; 2], [u32; 2]) {
    let c = grid.corners;
    let units = world_units_per_luxel(s) as f32;
    let u_len = (c[3] - c[0]).length().max((c[2] - c[1]).length());
    let v_len = (c[1] - c[0]).length().max((c[2] - c[3]).length());
    let luxels = |len: f32| ((len / units) as u32 + 1).min(MAX_LUXELS);
    let lo = [luxels(u_len - WELD_SLACK), luxels(v_len - WELD_SLACK)];
    let hi = [luxels(u_len + WELD_SLACK), luxels(v_len + WELD_SLACK)];
    (lo, hi)
}

#[derive(Default)]
struct Tally {
    dispinfos: usize,
    sizes_equal: usize,
    sizes_on_boundary: usize,
    /// Faces whose stored texinfo asks for VBSP's swap: the file keeps the un-swapped one.
    swaps: usize,
    /// Faces whose size with the swapped texinfo would differ (unequal lightmap axis lengths).
    swap_changes_size: usize,
    samples_equal: usize,
    lump: &'static str,
}

fn tally(bsp: &Bsp, name: &str, failures: &mut Vec<String>) -> Tally {
    let mut t = Tally {
        dispinfos: bsp.disp_info.len(),
        ..Tally::default()
    };
    let faces = disp_faces(bsp);
    let lump = &bsp.disp_lightmap_sample_positions;
    let mut expected_len = 0;
    for (i, (info, grid)) in bsp.disp_info.iter().zip(grids_of(bsp)).enumerate() {
        let Some(grid) = grid else {
            failures.push(format!("{name}: dispinfo {i}: grid does not rebuild"));
            continue;
        };
        let face = &faces[info.map_face as usize];
        let tex = &bsp.texinfo[face.texinfo as usize];
        let (s, t_axis) = axes(tex.lightmap_vecs);
        let size = grid.lightmap_size(s, t_axis);
        let swapped = grid.lightmap_size(t_axis, -s);
        if size.map(|z| z.face_size()) != swapped.map(|z| z.face_size()) {
            t.swap_changes_size += 1;
        }
        let (lo, hi) = boundary_sizes(&grid, s);
        match size {
            Some(size) if size.face_size() == face.lightmap_size => {
                t.sizes_equal += 1;
                t.swaps += usize::from(size.swap);
            }
            Some(size) if (0..2).all(|k| (lo[k] as i32..=hi[k] as i32).contains(&face.lightmap_size[k])) => {
                t.sizes_on_boundary += 1;
                t.swaps += usize::from(size.swap);
            }
            _ => failures.push(format!(
                "{name}: dispinfo {i} (face {}): size {:?}, Valve's {:?}",
                info.map_face, size, face.lightmap_size
            )),
        }

        let [u, v] = face.lightmap_size.map(|n| n as u32);
        let ours = sample_position_bytes(grid.power, u, v);
        expected_len += ours.len();
        if lump.is_empty() {
            continue;
        }
        let start = info.lightmap_sample_position_start as usize;
        match lump.get(start..start + ours.len()) {
            Some(theirs) if theirs == ours.as_slice() => t.samples_equal += 1,
            Some(theirs) => {
                let at = ours.iter().zip(theirs).position(|(a, b)| a != b).unwrap_or(0);
                failures.push(format!(
                    "{name}: dispinfo {i} (power {}, {u}x{v}): sample bytes differ first at {at}: \
                     ours {:?}, Valve's {:?}",
                    grid.power,
                    &ours[at..(at + 8).min(ours.len())],
                    &theirs[at..(at + 8).min(theirs.len())]
                ));
            }
            None => failures.push(format!("{name}: dispinfo {i}: sample range past the lump")),
        }
    }
    t.lump = if lump.is_empty() {
        "stripped"
    } else if expected_len == lump.len() {
        "equal"
    } else {
        failures.push(format!(
            "{name}: sample lump {} bytes, ours {expected_len}",
            lump.len()
        ));
        "DIFF"
    };
    t
}

#[test]
fn sizes_and_sample_positions_match_valve() {
    let Some(root) = srcmap_corpus::root("displacement lightmap comparison with Valve's maps") else {
        return;
    };
    let files = srcmap_corpus::files(&root, "bsp", |p| srcmap_corpus::has_extension(p, "bsp"));
    let mut failures = Vec::new();
    let mut maps = 0;
    let mut samples_compared = 0;
    println!(
        "{:<62} {:>5} {:>5} {:>8} {:>5} {:>7} {:>9} {:>8}",
        "map", "disps", "size=", "boundary", "swaps", "swap±sz", "samples=", "lump len"
    );
    for path in files {
        let data = std::fs::read(&path).unwrap();
        let Ok(bsp) = Bsp::parse(&data) else { continue };
        if bsp.disp_info.is_empty() {
            continue;
        }
        let name = path.strip_prefix(&root).unwrap_or(&path).display().to_string();
        let t = tally(&bsp, &name, &mut failures);
        println!(
            "{:<62} {:>5} {:>5} {:>8} {:>5} {:>7} {:>9} {:>8}",
            name,
            t.dispinfos,
            t.sizes_equal,
            t.sizes_on_boundary,
            t.swaps,
            t.swap_changes_size,
            format!("{}/{}", t.samples_equal, t.dispinfos),
            t.lump
        );
        maps += 1;
        samples_compared += t.samples_equal;
    }
    for f in failures.iter().take(40) {
        println!("{f}");
    }
    assert!(maps > 0, "no corpus map has displacements");
    assert!(samples_compared > 0, "no sample positions compared");
    assert!(failures.is_empty(), "{} mismatches", failures.len());
}
