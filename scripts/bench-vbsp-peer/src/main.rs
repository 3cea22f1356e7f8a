//! Times, per file: reading it from disk, srcmap's open (header + directory), srcmap's full
//! typed parse (`BspView::from_file_in`: open, every lump typed, records viewed in place where
//! the bytes allow and the rest decoded into one arena, created and freed in the timed run),
//! the same into a `Vec` per decoded lump (`BspView::parse`), srcmap's owned parse
//! (`Bsp::parse`: the view, then every lump copied into owned values), and the `vbsp` crate's
//! `Bsp::read`. Prints TSV (times in microseconds, the median of repeated runs
//! that fill at least `MIN_TIME`; each run includes dropping the result).
//!
//! `BENCH_ONLY=arena|view|owned|vbsp BENCH_ITERS=N bench-vbsp-peer FILE...` instead runs one parser
//! N times per file and prints nothing: a fixed workload for callgrind.

use std::time::{Duration, Instant};

const MIN_TIME: Duration = Duration::from_millis(300);

fn median_us(mut f: impl FnMut() -> bool) -> Option<f64> {
    if !f() {
        return None;
    }
    let mut samples = Vec::new();
    let start = Instant::now();
    while samples.len() < 5 || (start.elapsed() < MIN_TIME && samples.len() < 10_000) {
        let t = Instant::now();
        std::hint::black_box(f());
        samples.push(t.elapsed().as_secs_f64() * 1e6);
    }
    samples.sort_by(|a, b| a.total_cmp(b));
    Some(samples[samples.len() / 2])
}

/// Open, then a full typed parse decoding into an arena sized from the directory.
fn arena_parse(data: &[u8]) -> bool {
    let Ok(file) = srcmap_bsp::BspFile::parse(data) else {
        return false;
    };
    let arena = srcmap_bsp::Bump::with_capacity(srcmap_bsp::BspView::arena_hint(&file));
    srcmap_bsp::BspView::from_file_in(&file, &arena).is_ok()
}

/// [`arena_parse`], then the pakfile's zip directory read as well (what vbsp's `Packfile::read`
/// does on top of copying the lump).
fn arena_parse_pak(data: &[u8]) -> bool {
    let Ok(file) = srcmap_bsp::BspFile::parse(data) else {
        return false;
    };
    let arena = srcmap_bsp::Bump::with_capacity(srcmap_bsp::BspView::arena_hint(&file));
    let Ok(view) = srcmap_bsp::BspView::from_file_in(&file, &arena) else {
        return false;
    };
    let pak_offset = file.entry(srcmap_bsp::lump::PAKFILE).offset as u64;
    view.pakfile.is_empty() || srcmap_bsp::pak::Pak::parse(&view.pakfile, pak_offset).is_ok()
}

fn main() {
    use srcmap_bsp::lump::*;
    // The lumps vbsp's `Bsp::read` parses, for a like-for-like column.
    const VBSP_SET: [usize; 26] = [
        ENTITIES,
        TEXDATA,
        TEXINFO,
        TEXDATA_STRING_TABLE,
        TEXDATA_STRING_DATA,
        PLANES,
        NODES,
        LEAFS,
        LEAFFACES,
        LEAFBRUSHES,
        MODELS,
        BRUSHES,
        BRUSHSIDES,
        VERTEXES,
        EDGES,
        SURFEDGES,
        FACES,
        ORIGINALFACES,
        VISIBILITY,
        DISPINFO,
        DISP_VERTS,
        DISP_TRIS,
        VERTNORMALS,
        VERTNORMALINDICES,
        GAME_LUMP,
        PAKFILE,
    ];
    if let Ok(only) = std::env::var("BENCH_ONLY") {
        let iters: usize = std::env::var("BENCH_ITERS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(100);
        for path in std::env::args().skip(1) {
            let data = std::fs::read(&path).expect("read");
            for _ in 0..iters {
                let ok = match only.as_str() {
                    "arena" => arena_parse(std::hint::black_box(&data)),
                    "view" => srcmap_bsp::BspView::parse(std::hint::black_box(&data)).is_ok(),
                    "owned" => srcmap_bsp::Bsp::parse(std::hint::black_box(&data)).is_ok(),
                    _ => vbsp::Bsp::read(std::hint::black_box(&data)).is_ok(),
                };
                std::hint::black_box(ok);
            }
        }
        return;
    }
    println!(
        "file\tbytes\tread_us\tsrcmap_open_us\tsrcmap_parse_us\tsrcmap_pak_dir_us\tsrcmap_view_vec_us\tsrcmap_owned_us\tsrcmap_vbsp_set_us\tvbsp_parse_us\tvbsp_error"
    );
    for path in std::env::args().skip(1) {
        let data = std::fs::read(&path).expect("read");
        let read = median_us(|| std::fs::read(&path).is_ok()).unwrap_or(f64::NAN);
        let open = median_us(|| srcmap_bsp::BspFile::parse(std::hint::black_box(&data)).is_ok());
        let parse = median_us(|| arena_parse(std::hint::black_box(&data)));
        let pak_dir = median_us(|| arena_parse_pak(std::hint::black_box(&data)));
        let view_vec = median_us(|| srcmap_bsp::BspView::parse(std::hint::black_box(&data)).is_ok());
        let owned = median_us(|| srcmap_bsp::Bsp::parse(std::hint::black_box(&data)).is_ok());
        let subset = median_us(|| {
            srcmap_bsp::BspView::parse_only(std::hint::black_box(&data), &|l| VBSP_SET.contains(&l)).is_ok()
        });
        let vbsp_err = vbsp::Bsp::read(&data)
            .err()
            .map(|e| e.to_string().replace(['\t', '\n'], " "));
        let vbsp = if vbsp_err.is_none() {
            median_us(|| vbsp::Bsp::read(std::hint::black_box(&data)).is_ok())
        } else {
            None
        };
        let f = |v: Option<f64>| v.map_or("-".to_string(), |x| format!("{x:.1}"));
        println!(
            "{path}\t{}\t{read:.1}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            data.len(),
            f(open),
            f(parse),
            f(pak_dir),
            f(view_vec),
            f(owned),
            f(subset),
            f(vbsp),
            vbsp_err.unwrap_or_default()
        );
    }
}
