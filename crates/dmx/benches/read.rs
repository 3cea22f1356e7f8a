//! DMX read and write on the largest corpus files of each encoding (`SRCMAP_CORPUS`).
//! Run: `SRCMAP_CORPUS=../shared/corpus cargo bench -p srcmap-dmx`.
//! `scripts/bench_dmx.sh` times srctools' reader on the same files side by side.

const FILES: [&str; 4] = [
    "vmap/Facepunch+facepunch.flatgrass/flatgrass_bak.vmap",
    "dmx/TeamSpen210+srctools/tf_movies_text.dmx",
    "dmx/TeamSpen210+srctools/tf_movies.dmx",
    "vmap/kristiker+source1import/de_dust3.vmap",
];

fn load(name: &str) -> Option<Vec<u8>> {
    srcmap_corpus::read(name)
}

fn main() {
    srcmap_corpus::root("the DMX benchmarks");
    divan::main();
}

#[divan::bench(args = FILES)]
fn read(bencher: divan::Bencher<'_, '_>, name: &str) {
    let Some(data) = load(name) else { return };
    bencher
        .counter(divan::counter::BytesCount::new(data.len()))
        .bench(|| srcmap_dmx::Dmx::read(divan::black_box(&data)).unwrap());
}

#[divan::bench(args = FILES)]
fn write(bencher: divan::Bencher<'_, '_>, name: &str) {
    let Some(data) = load(name) else { return };
    let doc = srcmap_dmx::Dmx::read(&data).unwrap();
    bencher
        .counter(divan::counter::BytesCount::new(data.len()))
        .bench(|| doc.write().unwrap());
}
