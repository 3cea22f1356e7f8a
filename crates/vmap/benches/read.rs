//! VMAP: read plus the typed walk (nodes, entities, every mesh checked and every face walked)
//! on the largest corpus map. Run: `SRCMAP_CORPUS=../shared/corpus cargo bench -p srcmap-vmap`.

use std::path::PathBuf;

const FILES: [&str; 2] = [
    "Facepunch+facepunch.flatgrass/flatgrass_bak.vmap",
    "bmddota+barebones/barebones.vmap",
];

fn load(name: &str) -> Option<Vec<u8>> {
    let root = std::env::var_os("SRCMAP_CORPUS")?;
    std::fs::read(PathBuf::from(root).join("vmap").join(name)).ok()
}

fn main() {
    if std::env::var_os("SRCMAP_CORPUS").is_none() {
        eprintln!("SRCMAP_CORPUS is not set: no files to benchmark");
    }
    divan::main();
}

#[divan::bench(args = FILES)]
fn read_and_walk(bencher: divan::Bencher<'_, '_>, name: &str) {
    let Some(data) = load(name) else { return };
    bencher
        .counter(divan::counter::BytesCount::new(data.len()))
        .bench(|| {
            let map = srcmap_vmap::Vmap::read(divan::black_box(&data)).unwrap();
            let mut corners = 0;
            for m in map.polygon_mesh_elements() {
                let mesh = map.polygon_mesh(m).unwrap();
                mesh.check().unwrap();
                for f in 0..mesh.face_count() {
                    corners += mesh.face_corners(f).len();
                }
            }
            (map.entities().len(), corners)
        });
}
