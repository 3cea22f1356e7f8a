//! The compile of a parseable but hostile VMF: degenerate planes, huge and non-finite
//! coordinates, piles of overlapping brushes. The compile must end with a BSP or an error.

use std::fmt::Write as _;

/// Magnitudes a box's corners are scaled by: ordinary, huge, tiny, and not numbers at all.
const SCALES: [f64; 8] = [1.0, 16.0, 1e30, 1e-30, 1e9, f64::NAN, f64::INFINITY, -1.0];
/// Brushes one input may ask for, copies included. The compile's time grows with the square
/// of mutually overlapping brushes (CSG, as Valve's): 512 of them take about 9 s in a release
/// build, several times that under AddressSanitizer, within `.ci/fuzz`'s per-input timeout;
/// 1024 end in Valve's leaf-brush limit after about 30 s.
const MAX_BRUSHES: usize = 512;

/// Reads the fuzz bytes in order, cycling, so any input (even empty) describes a map.
struct Bytes<'a> {
    data: &'a [u8],
    at: usize,
}

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        if self.data.is_empty() {
            return 0;
        }
        let b = self.data[self.at % self.data.len()];
        self.at += 1;
        b
    }
    fn i16(&mut self) -> i16 {
        i16::from_le_bytes([self.u8(), self.u8()])
    }
}

/// A VMF built from fuzz bytes: up to 16 boxes (two corners, a scale from [`SCALES`], maybe a
/// side with three collinear points), the pile copied up to [`MAX_BRUSHES`] brushes in all
/// (each copy overlapping the first), a player start and a light.
pub fn hostile_vmf(data: &[u8]) -> String {
    let mut b = Bytes { data, at: 0 };
    let boxes = 1 + b.u8() as usize % 16;
    let copies = 1 + (b.u16_from_two() as usize % MAX_BRUSHES) / boxes;
    let mut out = String::from(
        "versioninfo\n{\n\t\"mapversion\" \"1\"\n}\nworld\n{\n\t\"id\" \"1\"\n\t\"classname\" \"worldspawn\"\n",
    );
    let mut id = 2;
    let shapes = read_shapes(&mut b, boxes);
    for copy in 0..copies {
        for &(lo, hi, flags) in &shapes {
            // Copies shift by a unit: they overlap without being identical.
            let shift = copy as f64;
            let lo = [lo[0] + shift, lo[1], lo[2]];
            let hi = [hi[0] + shift, hi[1], hi[2]];
            solid(&mut out, &mut id, lo, hi, flags);
        }
    }
    out.push_str("}\n");
    let at = [b.i16(), b.i16(), b.i16()];
    push_start_and_light(&mut out, id, at);
    out
}

/// `boxes` boxes from the bytes: corners (scaled by one of [`SCALES`]) and flags.
fn read_shapes(b: &mut Bytes<'_>, boxes: usize) -> Vec<([f64; 3], [f64; 3], u8)> {
    let mut shapes = Vec::new();
    for _ in 0..boxes {
        let scale = SCALES[b.u8() as usize % SCALES.len()];
        let mut lo = [0.0; 3];
        let mut hi = [0.0; 3];
        for k in 0..3 {
            let (p, q) = (b.i16() as f64 * scale, b.i16() as f64 * scale);
            (lo[k], hi[k]) = (p.min(q), p.max(q));
        }
        let flags = b.u8();
        shapes.push((lo, hi, flags));
    }
    shapes
}

/// A player start at `at` (entity `id`) and a light 8 units above it.
fn push_start_and_light(out: &mut String, id: usize, at: [i16; 3]) {
    let _ = write!(
        out,
        "entity\n{{\n\t\"id\" \"{id}\"\n\t\"classname\" \"info_player_start\"\n\t\"origin\" \"{} {} {}\"\n}}\n",
        at[0], at[1], at[2]
    );
    let _ = write!(
        out,
        "entity\n{{\n\t\"id\" \"{}\"\n\t\"classname\" \"light\"\n\t\"_light\" \"255 255 255 200\"\n\t\"origin\" \"{} {} {}\"\n}}\n",
        id + 1,
        at[0],
        at[1],
        at[2] as i32 + 8
    );
}

impl Bytes<'_> {
    fn u16_from_two(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }
}

/// A box's six side planes (three points each) in Valve's side order and winding; with flag
/// `0x80`, one side's points collinear (a side with no plane).
fn box_planes(lo: [f64; 3], hi: [f64; 3], flags: u8) -> [[[f64; 3]; 3]; 6] {
    let [x0, y0, z0] = lo;
    let [x1, y1, z1] = hi;
    let mut planes = [
        [[x0, y1, z1], [x0, y0, z1], [x0, y0, z0]],
        [[x1, y0, z0], [x1, y0, z1], [x1, y1, z1]],
        [[x0, y0, z0], [x0, y0, z1], [x1, y0, z1]],
        [[x1, y1, z1], [x0, y1, z1], [x0, y1, z0]],
        [[x1, y1, z0], [x0, y1, z0], [x0, y0, z0]],
        [[x0, y0, z1], [x0, y1, z1], [x1, y1, z1]],
    ];
    if flags & 0x80 != 0 {
        // Three collinear points: a side with no plane.
        let p = &mut planes[flags as usize % 6];
        p[2] = [
            2.0 * p[1][0] - p[0][0],
            2.0 * p[1][1] - p[0][1],
            2.0 * p[1][2] - p[0][2],
        ];
    }
    planes
}

/// One box brush in Valve's side order and winding (normals out), as Hammer writes it.
fn solid(out: &mut String, id: &mut usize, lo: [f64; 3], hi: [f64; 3], flags: u8) {
    let planes = box_planes(lo, hi, flags);
    let material = [
        "DEV/DEV_MEASUREGENERIC01B",
        "TOOLS/TOOLSNODRAW",
        "TOOLS/TOOLSSKYBOX",
        "NATURE/WATER_CANALS03",
    ][(flags as usize >> 3) % 4];
    let _ = write!(out, "\tsolid\n\t{{\n\t\t\"id\" \"{id}\"\n");
    *id += 1;
    for p in planes {
        let _ = write!(
            out,
            "\t\tside\n\t\t{{\n\t\t\t\"id\" \"{id}\"\n\t\t\t\"plane\" \"({} {} {}) ({} {} {}) ({} {} {})\"\n\t\t\t\"material\" \"{material}\"\n\t\t\t\"uaxis\" \"[1 0 0 0] 0.25\"\n\t\t\t\"vaxis\" \"[0 -1 0 0] 0.25\"\n\t\t\t\"lightmapscale\" \"16\"\n\t\t}}\n",
            p[0][0], p[0][1], p[0][2], p[1][0], p[1][1], p[1][2], p[2][0], p[2][1], p[2][2]
        );
        *id += 1;
    }
    out.push_str("\t}\n");
}

/// Compiles the input as a VMF when it is one with brushes (small real maps seed this target),
/// else the map [`hostile_vmf`] builds from it. One thread; a leak is an outcome, not a failure.
/// A BSP that comes out writes, reads back and checks without a panic.
pub fn vmf_compile(data: &[u8]) {
    let text;
    let vmf = match srcmap_vmf::Vmf::parse_bytes(data) {
        Ok(v) if data.len() <= 256 * 1024 && v.stats().solids > 0 => v,
        _ => {
            text = hostile_vmf(data);
            srcmap_vmf::Vmf::parse_bytes(text.as_bytes()).expect("the generated VMF parses")
        }
    };
    let mut input = srcmap_vbsp::input_from_vmf(&vmf);
    // Instances have nothing to load here: each is reported and dropped.
    let _ = srcmap_vbsp::instances::collapse(&mut input, &|_| None);
    let options = srcmap_vbsp::Options {
        allow_leak: true,
        verify: true,
        threads: srcmap_stage::Threads(1),
        ..Default::default()
    };
    let Ok(output) = srcmap_vbsp::compile(&input, &options, &srcmap_vbsp::NoProgress) else {
        return;
    };
    let _ = srcmap_bsp::check::check(&output.bsp);
    if let Ok(bytes) = output.bsp.to_bytes() {
        srcmap_bsp::Bsp::parse(&bytes).expect("a compiled BSP must read back");
    }
    let _ = srcmap_vvis::Portals::parse_prt(&output.prt);
}
