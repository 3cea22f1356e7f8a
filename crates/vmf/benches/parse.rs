//! Parse throughput on the corpus's largest VMFs (needs `SRCMAP_CORPUS`):
//! `SRCMAP_CORPUS=../shared/corpus cargo bench -p srcmap-vmf`.
//! `document` builds the lossless KeyValues tree only; `typed` adds the VMF typed view.

use std::path::PathBuf;

fn main() {
    divan::main();
}

fn largest_vmfs() -> Vec<(String, Vec<u8>)> {
    let Some(root) = std::env::var_os("SRCMAP_CORPUS") else {
        eprintln!("SRCMAP_CORPUS is not set: no VMF to benchmark");
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in std::fs::read_dir(PathBuf::from(root).join("vmf"))
        .into_iter()
        .flatten()
        .flatten()
    {
        for f in std::fs::read_dir(dir.path()).into_iter().flatten().flatten() {
            if f.path().extension().is_some_and(|e| e == "vmf") {
                files.push(f.path());
            }
        }
    }
    files.sort_by_key(|f| std::cmp::Reverse(std::fs::metadata(f).map(|m| m.len()).unwrap_or(0)));
    files
        .into_iter()
        .take(4)
        .map(|f| {
            (
                f.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&f).unwrap(),
            )
        })
        .collect()
}

fn names() -> Vec<String> {
    largest_vmfs().into_iter().map(|(n, _)| n).collect()
}

fn load(name: &str) -> Vec<u8> {
    largest_vmfs()
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, d)| d)
        .unwrap()
}

#[divan::bench(args = names())]
fn document(bencher: divan::Bencher<'_, '_>, name: &str) {
    let data = load(name);
    bencher
        .counter(divan::counter::BytesCount::new(data.len()))
        .bench(|| {
            srcmap_kv::Document::parse_bytes_with(divan::black_box(&data), srcmap_vmf::Vmf::KV_OPTIONS)
                .unwrap()
        });
}

#[divan::bench(args = names())]
fn typed(bencher: divan::Bencher<'_, '_>, name: &str) {
    let data = load(name);
    bencher
        .counter(divan::counter::BytesCount::new(data.len()))
        .bench(|| srcmap_vmf::Vmf::parse_bytes(divan::black_box(&data)).unwrap());
}
