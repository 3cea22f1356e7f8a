//! Deterministic text dumps of lighting's main structures, for golden tests and for reading
//! what a run did: the light list, per face its lightmap extents, styles and mean luxel,
//! the detail props' colours and style entries, and the static props' `.vhv` meshes.
//! No addresses or timings; floats at fixed precision, so a dump is the same whatever the
//! thread count.

use std::fmt::Write;

use glam::Vec3;
use srcmap_bsp::gamelump::{DPLH, DPLT, GameLumpData};
use srcmap_bsp::pak::Pak;
use srcmap_bsp::{Bsp, ColorRgbExp32};

use crate::lights::Light;

fn vec3(v: Vec3, decimals: usize) -> String {
    format!("({:.d$} {:.d$} {:.d$})", v.x, v.y, v.z, d = decimals)
}

/// One line per light: kind, entity, style, origin, intensity, direction, cone, attenuation
/// and fade.
pub fn lights(lights: &[Light]) -> String {
    let mut out = String::new();
    for (i, l) in lights.iter().enumerate() {
        let _ = writeln!(
            out,
            "light {i}: {:?} entity {} style {} origin {} intensity {} normal {} cone {:.4} {:.4} exponent {:.3} \
             attn {:.4e} {:.4e} {:.4e} radius {:.1} fade {:.1} {:.1} cap {:.4e}",
            l.kind,
            l.entity,
            l.style,
            vec3(l.origin, 2),
            vec3(l.intensity, 3),
            vec3(l.normal, 4),
            l.stopdot,
            l.stopdot2,
            l.exponent,
            l.constant_attn,
            l.linear_attn,
            l.quadratic_attn,
            l.radius,
            l.start_fade,
            l.end_fade,
            l.cap_dist,
        );
    }
    out
}

/// One line per face of the LDR (or HDR) lighting written into `bsp`: its lightmap extents,
/// styles, and for each style the mean linear colour of its luxels (flat normal), or
/// `unlit`.
pub fn face_lightmaps(bsp: &Bsp, hdr: bool) -> String {
    let faces = if hdr && !bsp.faces_hdr.is_empty() {
        &bsp.faces_hdr
    } else {
        &bsp.faces
    };
    let mut out = String::new();
    for (i, face) in faces.iter().enumerate() {
        let Some(lighting) = bsp.face_lighting(i, hdr) else {
            let _ = writeln!(out, "face {i}: unlit");
            continue;
        };
        let luxels = face.luxel_count();
        let styles: Vec<u8> = face.styles.iter().copied().take_while(|&s| s != 255).collect();
        let means: Vec<String> = lighting
            .styles
            .iter()
            .map(|samples| mean_color(&samples[..luxels.min(samples.len())]))
            .collect();
        let _ = writeln!(
            out,
            "face {i}: {}x{} styles {styles:?} mean {}",
            face.lightmap_size[0] + 1,
            face.lightmap_size[1] + 1,
            means.join(" ")
        );
    }
    out
}

/// The mean linear colour of `flat` samples, at two decimals.
fn mean_color(flat: &[ColorRgbExp32]) -> String {
    let sum = flat.iter().fold([0.0f64; 3], |mut acc, c| {
        let v = c.to_linear();
        for (a, x) in acc.iter_mut().zip(v) {
            *a += f64::from(x);
        }
        acc
    });
    let n = flat.len().max(1) as f64;
    format!("({:.2} {:.2} {:.2})", sum[0] / n, sum[1] / n, sum[2] / n)
}

/// One line per detail prop of `bsp` (its `dprp` lump): its colour (style 0) and the range
/// of style entries it indexes; then one line per entry of the LDR (or HDR) style lump
/// (`dplt`, `dplh`): its style and colour.
pub fn detail_props(bsp: &Bsp, hdr: bool) -> String {
    let id = if hdr { DPLH } else { DPLT };
    let mut out = String::new();
    for l in &bsp.game_lumps.lumps {
        match &l.data {
            GameLumpData::DetailProps(d) => {
                for (i, o) in d.objects.iter().enumerate() {
                    let (first, count) = (o.light_styles, o.light_style_count);
                    let _ = writeln!(
                        out,
                        "detail prop {i}: lighting {} styles {first}+{count}",
                        color(o.lighting)
                    );
                }
            }
            GameLumpData::DetailPropLighting(entries) if l.id == id => {
                for (k, e) in entries.iter().enumerate() {
                    let _ = writeln!(
                        out,
                        "style entry {k}: style {} lighting {}",
                        e.style,
                        color(e.lighting)
                    );
                }
            }
            _ => {}
        }
    }
    out
}

/// One line per `.vhv` file in `bsp`'s pakfile (per-vertex static-prop lighting): its
/// name, checksum and meshes; then one line per mesh: its LOD, vertex count and mean
/// colour (BGRA bytes).
pub fn static_prop_lighting(bsp: &Bsp) -> String {
    let mut out = String::new();
    let Ok(pak) = Pak::parse(&bsp.pakfile, 0) else {
        return "pakfile unreadable\n".to_string();
    };
    for entry in pak.entries.iter().filter(|e| e.name.ends_with(".vhv")) {
        match pak.read(entry) {
            Ok(vhv) => vhv_lines(&mut out, &entry.name, &vhv),
            Err(_) => {
                let _ = writeln!(out, "{}: unreadable", entry.name);
            }
        }
    }
    out
}

/// The lines of one `.vhv` file: its name, checksum and meshes, then per mesh its LOD,
/// vertex count and mean colour.
fn vhv_lines(out: &mut String, name: &str, vhv: &[u8]) {
    let word = |at: usize| {
        vhv.get(at..at + 4)
            .map_or(0, |w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as usize)
    };
    let meshes = word(20);
    let _ = writeln!(out, "{name}: checksum {:#010x} meshes {meshes}", word(4));
    for m in 0..meshes {
        let (lod, count, offset) = (word(40 + 28 * m), word(44 + 28 * m), word(48 + 28 * m));
        let data = vhv.get(offset..offset + 4 * count).unwrap_or_default();
        let mut sum = [0u64; 4];
        for c in data.chunks_exact(4) {
            for (s, &b) in sum.iter_mut().zip(c) {
                *s += u64::from(b);
            }
        }
        let n = count.max(1) as f64;
        let mean = sum.map(|s| s as f64 / n);
        let _ = writeln!(
            out,
            "  mesh {m}: lod {lod} vertices {count} mean ({:.2} {:.2} {:.2} {:.2})",
            mean[0], mean[1], mean[2], mean[3]
        );
    }
}

/// A stored colour as its linear value at two decimals.
fn color(c: ColorRgbExp32) -> String {
    let [r, g, b] = c.to_linear();
    format!("({r:.2} {g:.2} {b:.2})")
}
