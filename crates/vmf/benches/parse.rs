//! Parse throughput on the corpus's largest VMFs (needs `SRCMAP_CORPUS`):
//! `SRCMAP_CORPUS=../shared/corpus cargo bench -p srcmap-vmf`.
//! `document` builds the lossless KeyValues tree only; `typed` adds the VMF typed view.

fn main() {
    divan::main();
}

fn largest_vmfs() -> Vec<(String, Vec<u8>)> {
    let Some(root) = srcmap_corpus::root("the VMF benchmarks") else {
        return Vec::new();
    };
    let mut files = srcmap_corpus::files(&root, "vmf", |p| srcmap_corpus::has_extension(p, "vmf"));
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
