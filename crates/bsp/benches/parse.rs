//! Open + full typed parse of every corpus BSP (`SRCMAP_CORPUS`): the borrowed view with its
//! arena (the figure compared with vbsp in `scripts/bench_bsp.sh`), the view with `Vec`s, the
//! owned `Bsp`; and open (header only).
//! Run: `SRCMAP_CORPUS=../shared/corpus cargo bench -p srcmap-bsp`.

use std::path::PathBuf;

fn corpus() -> Vec<(String, Vec<u8>)> {
    let Some(root) = std::env::var_os("SRCMAP_CORPUS") else {
        eprintln!("SRCMAP_CORPUS is not set: no files to benchmark");
        return Vec::new();
    };
    let mut out = Vec::new();
    let Ok(repos) = std::fs::read_dir(PathBuf::from(root).join("bsp")) else {
        return out;
    };
    for repo in repos.flatten() {
        for f in std::fs::read_dir(repo.path()).into_iter().flatten().flatten() {
            let data = std::fs::read(f.path()).unwrap_or_default();
            if data.starts_with(b"VBSP") || data.starts_with(b"PSBV") {
                out.push((f.file_name().to_string_lossy().into_owned(), data));
            }
        }
    }
    out.sort();
    out
}

fn main() {
    divan::main();
}

#[divan::bench]
fn view_in_arena_all(bencher: divan::Bencher<'_, '_>) {
    let files = corpus();
    let bytes: usize = files.iter().map(|f| f.1.len()).sum();
    bencher.counter(divan::counter::BytesCount::new(bytes)).bench(|| {
        for (_, data) in &files {
            let Ok(file) = srcmap_bsp::BspFile::parse(divan::black_box(data)) else {
                continue;
            };
            let arena = srcmap_bsp::Bump::with_capacity(srcmap_bsp::BspView::arena_hint(&file));
            divan::black_box(srcmap_bsp::BspView::from_file_in(&file, &arena).ok());
        }
    });
}

#[divan::bench]
fn view_all(bencher: divan::Bencher<'_, '_>) {
    let files = corpus();
    let bytes: usize = files.iter().map(|f| f.1.len()).sum();
    bencher.counter(divan::counter::BytesCount::new(bytes)).bench(|| {
        for (_, data) in &files {
            divan::black_box(srcmap_bsp::BspView::parse(divan::black_box(data)).ok());
        }
    });
}

#[divan::bench]
fn full_parse_all(bencher: divan::Bencher<'_, '_>) {
    let files = corpus();
    let bytes: usize = files.iter().map(|f| f.1.len()).sum();
    bencher.counter(divan::counter::BytesCount::new(bytes)).bench(|| {
        for (_, data) in &files {
            divan::black_box(srcmap_bsp::Bsp::parse(divan::black_box(data)).ok());
        }
    });
}

#[divan::bench]
fn open_directory_all(bencher: divan::Bencher<'_, '_>) {
    let files = corpus();
    bencher.bench(|| {
        for (_, data) in &files {
            divan::black_box(srcmap_bsp::BspFile::parse(divan::black_box(data)).ok());
        }
    });
}

#[divan::bench]
fn untouched_write_all(bencher: divan::Bencher<'_, '_>) {
    let files = corpus();
    bencher.bench(|| {
        for (_, data) in &files {
            let file = srcmap_bsp::BspFile::parse(data).unwrap();
            divan::black_box(srcmap_bsp::BspDocument::from_file(&file).to_bytes().ok());
        }
    });
}
