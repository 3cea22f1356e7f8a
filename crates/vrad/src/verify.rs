//! The invariants each lighting pass relies on, checked between passes when
//! [`srcmap_stage::verify_enabled`] says so. Each check returns the first broken one.

use srcmap_bsp::Bsp;
use srcmap_bsp::flags::SurfaceFlags;
use srcmap_bsp::gamelump::{DPLH, DPLT, DetailObject, GameLumpData};

use crate::direct::MAX_STYLES;
use crate::faces::{FaceGeom, MAX_LIGHTMAP_EXTENT};
use crate::lights::{Light, MAX_LIGHTSTYLES, Range};
use crate::samples::FaceSamples;
use crate::vertexlight::{VHV_VERSION, VertexLighting};
use crate::{FaceLight, World};

type Check = Result<(), String>;

/// Every face has its samples and displacement slot; a lit face has one sample (position,
/// normal, cluster) per luxel of its lightmap extents; an unlit one none.
pub(crate) fn geometry(world: &World) -> Check {
    let n = world.faces.len();
    if world.samples.len() != n || world.disps.len() != n {
        return Err(format!(
            "{n} faces but {} sample sets and {} displacement slots",
            world.samples.len(),
            world.disps.len()
        ));
    }
    for (i, (face, samples)) in world.faces.iter().zip(&world.samples).enumerate() {
        face_samples(i, face, samples)?;
        if world.disps[i].is_some() && !face.is_displacement {
            return Err(format!(
                "face {i}: a displacement surface on a face without dispinfo"
            ));
        }
    }
    Ok(())
}

/// Face `i`'s lightmap extents are in range, and it has a sample per luxel (none unlit).
fn face_samples(i: usize, face: &FaceGeom, samples: &FaceSamples) -> Check {
    let extent = 1..=MAX_LIGHTMAP_EXTENT as usize + 1;
    let luxels = if face.lit { face.luxel_count() } else { 0 };
    if face.lit && !(extent.contains(&face.width) && extent.contains(&face.height)) {
        return Err(format!(
            "face {i}: lightmap {}x{} out of range",
            face.width, face.height
        ));
    }
    if samples.pos.len() != luxels || samples.normal.len() != luxels || samples.cluster.len() != luxels {
        return Err(format!(
            "face {i}: {luxels} luxels but {} positions, {} normals, {} clusters",
            samples.pos.len(),
            samples.normal.len(),
            samples.cluster.len()
        ));
    }
    Ok(())
}

/// Every range has the same lights in the same order (only intensities differ), each with a
/// finite position, direction and intensity and a style below 64.
pub(crate) fn lights(ranges: &[Vec<Light>]) -> Check {
    let Some(first) = ranges.first() else {
        return Ok(());
    };
    for (r, lights) in ranges.iter().enumerate() {
        if lights.len() != first.len() {
            return Err(format!(
                "range {r}: {} lights, range 0 has {}",
                lights.len(),
                first.len()
            ));
        }
        for (i, (light, other)) in lights.iter().zip(first).enumerate() {
            if light.kind != other.kind || light.style != other.style || light.entity != other.entity {
                return Err(format!("range {r}: light {i} is not range 0's light {i}"));
            }
            light_values(i, light)?;
        }
    }
    Ok(())
}

/// Light `i` has a finite position, direction and intensity and a style below 64.
fn light_values(i: usize, light: &Light) -> Check {
    if !light.origin.is_finite() || !light.normal.is_finite() {
        return Err(format!(
            "light {i} (entity {}): position or direction not finite",
            light.entity
        ));
    }
    if !light.intensity.is_finite() {
        return Err(format!(
            "light {i} (entity {}): intensity {:?}",
            light.entity, light.intensity
        ));
    }
    if u32::from(light.style) >= MAX_LIGHTSTYLES {
        return Err(format!(
            "light {i} (entity {}): style {}",
            light.entity, light.style
        ));
    }
    Ok(())
}

/// Every lit face holds one to four distinct styles, style 0 first, each with a sample per
/// luxel (per bump basis on a bump-mapped face); an unlit face holds none.
pub(crate) fn face_lights(world: &World, face_lights: &[FaceLight]) -> Check {
    if face_lights.len() != world.faces.len() {
        return Err(format!(
            "{} faces but {} face lights",
            world.faces.len(),
            face_lights.len()
        ));
    }
    for (i, (face, fl)) in world.faces.iter().zip(face_lights).enumerate() {
        face_light(i, face, fl)?;
    }
    Ok(())
}

/// Face `i`'s light has the shape its lightmap needs: none on an unlit face; on a lit one,
/// valid styles, each with a sample per luxel (and per bump basis).
pub(crate) fn face_light(i: usize, face: &FaceGeom, fl: &FaceLight) -> Check {
    if !face.lit {
        if !fl.styles.is_empty() || !fl.samples.is_empty() {
            return Err(format!("face {i}: unlit but holds light"));
        }
        return Ok(());
    }
    face_styles(i, &fl.styles)?;
    let want = face.luxel_count() * if face.bumped { 4 } else { 1 };
    if fl.samples.len() != fl.styles.len() || fl.samples.iter().any(|s| s.len() != want) {
        return Err(format!(
            "face {i}: {} styles, sample counts {:?}, want {want} each",
            fl.styles.len(),
            fl.samples.iter().map(Vec::len).collect::<Vec<_>>()
        ));
    }
    Ok(())
}

/// A lit face's styles: one to four, style 0 first, distinct, each below 64.
fn face_styles(i: usize, styles: &[u8]) -> Check {
    if styles.is_empty()
        || styles.len() > MAX_STYLES
        || styles[0] != 0
        || styles.iter().any(|&s| u32::from(s) >= MAX_LIGHTSTYLES)
        || (1..styles.len()).any(|k| styles[..k].contains(&styles[k]))
    {
        return Err(format!("face {i}: styles {styles:?}"));
    }
    Ok(())
}

/// In the lumps written for `range`: each lit face's offset and styles lie inside the
/// lighting lump (its style averages before the offset, its samples after); each leaf's
/// ambient samples lie inside the ambient lighting lump; world lights' clusters exist.
pub(crate) fn output(bsp: &Bsp, range: Range) -> Check {
    let hdr = range == Range::Hdr;
    face_offsets(bsp, hdr)?;
    ambient_index(bsp, hdr)?;
    world_light_clusters(bsp, hdr)
}

/// Each face's offset and styles lie inside the lighting lump.
fn face_offsets(bsp: &Bsp, hdr: bool) -> Check {
    let (faces, lighting) = if hdr {
        (&bsp.faces_hdr, &bsp.lighting_hdr)
    } else {
        (&bsp.faces, &bsp.lighting)
    };
    for (i, face) in faces.iter().enumerate() {
        let styles = face.styles.iter().take_while(|&&s| s != 255).count();
        if face.light_offset < 0 {
            if styles != 0 {
                return Err(format!("face {i}: styles {:?} but no lighting", face.styles));
            }
            continue;
        }
        let bumped = usize::try_from(face.texinfo)
            .ok()
            .and_then(|t| bsp.texinfo.get(t))
            .is_some_and(|t| SurfaceFlags::from_record(t.flags).intersects(SurfaceFlags::BUMPLIGHT));
        let luxels = (face.lightmap_size[0] as usize + 1) * (face.lightmap_size[1] as usize + 1);
        let offset = face.light_offset as usize;
        let end = offset / 4 + styles * luxels * if bumped { 4 } else { 1 };
        if !offset.is_multiple_of(4) || styles == 0 || offset / 4 < styles || end > lighting.len() {
            return Err(format!(
                "face {i}: offset {offset}, {styles} styles of {luxels} luxels, lighting lump of {} samples",
                lighting.len()
            ));
        }
    }
    Ok(())
}

/// Each leaf's ambient samples lie inside the ambient lighting lump.
fn ambient_index(bsp: &Bsp, hdr: bool) -> Check {
    let (index, samples) = if hdr {
        (&bsp.leaf_ambient_index_hdr, &bsp.leaf_ambient_lighting_hdr)
    } else {
        (&bsp.leaf_ambient_index, &bsp.leaf_ambient_lighting)
    };
    if !index.is_empty() && index.len() != bsp.leafs.len() {
        return Err(format!(
            "{} leaves but {} ambient indices",
            bsp.leafs.len(),
            index.len()
        ));
    }
    for (leaf, ix) in index.iter().enumerate() {
        if ix.first_sample as usize + ix.sample_count as usize > samples.len() {
            return Err(format!(
                "leaf {leaf}: ambient samples {}+{} of {}",
                ix.first_sample,
                ix.sample_count,
                samples.len()
            ));
        }
    }
    Ok(())
}

/// Each world light's cluster exists (or is -1).
fn world_light_clusters(bsp: &Bsp, hdr: bool) -> Check {
    let clusters = bsp.visibility.as_ref().map_or(0, |v| v.num_clusters as i64);
    let world_lights = if hdr {
        &bsp.world_lights_hdr
    } else {
        &bsp.world_lights
    };
    let leaf_clusters = bsp.leafs.iter().map(|l| l.cluster as i64).max().unwrap_or(-1) + 1;
    for (i, w) in world_lights.iter().enumerate() {
        if w.cluster < -1 || i64::from(w.cluster) >= clusters.max(leaf_clusters) {
            return Err(format!("world light {i}: cluster {}", w.cluster));
        }
    }
    Ok(())
}

/// Each detail prop's style entries (`light_styles`, `light_style_count`) follow the
/// previous prop's in `range`'s style lump (`dplt`, `dplh`), which holds exactly them, each
/// a switchable style (1 to 63); no lump is needed when no prop has entries. A map without
/// detail props is left as it came.
pub(crate) fn detail_props(bsp: &Bsp, range: Range) -> Check {
    let id = if range == Range::Hdr { DPLH } else { DPLT };
    let Some(objects) = bsp.game_lumps.lumps.iter().find_map(|l| match &l.data {
        GameLumpData::DetailProps(d) if !d.objects.is_empty() => Some(&d.objects),
        _ => None,
    }) else {
        return Ok(());
    };
    let entries = bsp.game_lumps.lumps.iter().find_map(|l| match &l.data {
        GameLumpData::DetailPropLighting(e) if l.id == id => Some(e.as_slice()),
        _ => None,
    });
    let next = indexed_entries(objects)?;
    let entries = entries.unwrap_or_default();
    if entries.len() != next {
        return Err(format!(
            "detail props index {next} style entries, the lump holds {}",
            entries.len()
        ));
    }
    if let Some((k, e)) = entries
        .iter()
        .enumerate()
        .find(|(_, e)| e.style == 0 || u32::from(e.style) >= MAX_LIGHTSTYLES)
    {
        return Err(format!("detail style entry {k}: style {}", e.style));
    }
    Ok(())
}

/// The number of style entries the detail props index, each prop's following the
/// previous one's.
fn indexed_entries(objects: &[DetailObject]) -> Result<usize, String> {
    let mut next = 0usize;
    for (i, o) in objects.iter().enumerate() {
        if o.light_style_count == 0 {
            continue;
        }
        if o.light_styles as usize != next {
            return Err(format!(
                "detail prop {i}: style entries from {} but the previous end at {next}",
                o.light_styles
            ));
        }
        next += usize::from(o.light_style_count);
    }
    Ok(next)
}

/// Every static prop has a `.vhv` file, or is disabled, or lacks its model; each file is
/// version 2 with its mesh headers' vertex counts summing to its total and their data
/// following one another inside the file.
pub(crate) fn static_props(bsp: &Bsp, vertex: &VertexLighting) -> Check {
    let props = bsp.game_lumps.static_props().map_or(0, |sp| sp.props.len());
    let accounted = vertex.files.len() + vertex.disabled + vertex.without_model;
    if props != 0 && accounted != props {
        return Err(format!(
            "{props} static props but {} files, {} disabled, {} without model",
            vertex.files.len(),
            vertex.disabled,
            vertex.without_model
        ));
    }
    for (name, bytes) in &vertex.files {
        vhv_layout(bytes).map_err(|e| format!("{name}: {e}"))?;
    }
    Ok(())
}

/// A `.vhv` file's header, mesh headers and data agree.
fn vhv_layout(bytes: &[u8]) -> Check {
    let word = |at: usize| {
        bytes
            .get(at..at + 4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as usize)
            .ok_or_else(|| format!("{} bytes, a word at {at} wanted", bytes.len()))
    };
    if word(0)? != VHV_VERSION as usize {
        return Err(format!("version {}", word(0)?));
    }
    let (total, meshes) = (word(16)?, word(20)?);
    let (mut sum, mut next) = (0usize, None);
    for m in 0..meshes {
        let header = 40 + 28 * m;
        let (count, offset) = (word(header + 4)?, word(header + 8)?);
        if next.is_some_and(|n| n != offset) || offset + 4 * count > bytes.len() {
            return Err(format!("mesh {m}: {count} vertices at {offset}"));
        }
        sum += count;
        next = Some(offset + 4 * count);
    }
    if sum != total {
        return Err(format!("meshes hold {sum} vertices, the header says {total}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use glam::Vec3;
    use srcmap_bsp::{ColorRgbExp32, Face, LeafAmbientIndex};

    use super::*;
    use crate::lights::LightKind;

    fn light(style: u8) -> Light {
        Light::new(
            LightKind::Point,
            Vec3::ZERO,
            Vec3::splat(100.0),
            Vec3::Z,
            style,
            0,
        )
    }

    #[test]
    fn lights_must_be_finite_alike_in_every_range_and_in_a_style_below_64() {
        assert_eq!(
            lights(&[vec![light(0), light(63)], vec![light(0), light(63)]]),
            Ok(())
        );
        assert!(lights(&[vec![light(64)]]).is_err());
        let mut far = light(0);
        far.origin.x = f32::INFINITY;
        assert!(lights(&[vec![far]]).is_err());
        let mut dark = light(0);
        dark.intensity = Vec3::NAN;
        assert!(lights(&[vec![dark]]).is_err());
        assert!(lights(&[vec![light(0)], vec![light(32)]]).is_err());
        assert!(lights(&[vec![light(0)], vec![]]).is_err());
    }

    /// One 2 × 2 luxel face with two styles written at offset 8 (after its two averages).
    fn lit_bsp() -> Bsp {
        let mut bsp = Bsp::new(20);
        bsp.faces.push(Face {
            texinfo: -1,
            styles: [0, 32, 255, 255],
            light_offset: 8,
            lightmap_size: [1, 1],
            ..Face::default()
        });
        bsp.lighting = vec![ColorRgbExp32::default(); 2 + 2 * 4];
        bsp
    }

    #[test]
    fn written_lighting_must_lie_inside_its_lumps() {
        assert_eq!(output(&lit_bsp(), Range::Ldr), Ok(()));
        let mut short = lit_bsp();
        short.lighting.pop();
        assert!(output(&short, Range::Ldr).is_err());
        let mut misaligned = lit_bsp();
        misaligned.faces[0].light_offset = 6;
        assert!(output(&misaligned, Range::Ldr).is_err());
        let mut styles_without_light = lit_bsp();
        styles_without_light.faces[0].light_offset = -1;
        assert!(output(&styles_without_light, Range::Ldr).is_err());
        let mut ambient = lit_bsp();
        ambient.leafs.push(Default::default());
        ambient.leaf_ambient_index.push(LeafAmbientIndex {
            sample_count: 1,
            first_sample: 0,
        });
        assert!(
            output(&ambient, Range::Ldr).is_err(),
            "an ambient sample past the lump"
        );
    }
}
