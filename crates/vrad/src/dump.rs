//! Deterministic text dumps of lighting's main structures, for golden tests and for reading
//! what a run did: the light list, and per face its lightmap extents, styles and mean luxel.
//! No addresses or timings; floats at fixed precision, so a dump is the same whatever the
//! thread count.

use std::fmt::Write;

use glam::Vec3;
use srcmap_bsp::Bsp;

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
            .map(|samples| {
                let flat = &samples[..luxels.min(samples.len())];
                let sum = flat.iter().fold([0.0f64; 3], |mut acc, c| {
                    let v = c.to_linear();
                    for (a, x) in acc.iter_mut().zip(v) {
                        *a += f64::from(x);
                    }
                    acc
                });
                let n = flat.len().max(1) as f64;
                format!("({:.2} {:.2} {:.2})", sum[0] / n, sum[1] / n, sum[2] / n)
            })
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
