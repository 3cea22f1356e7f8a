//! Prints one line per element class with its attribute names and types (first instance only):
//! `cargo run -p srcmap-dmx --example dmxdump FILE`
fn main() {
    let path = std::env::args().nth(1).expect("usage: dmxdump FILE");
    let doc = srcmap_dmx::Dmx::read(&std::fs::read(&path).expect("read")).expect("parse");
    println!(
        "{:?} elements {} prefix {:?}",
        doc.header.raw,
        doc.elements.len(),
        doc.prefix
            .iter()
            .map(|p| p.attrs.iter().map(|a| a.name.clone()).collect::<Vec<_>>())
            .collect::<Vec<_>>()
    );
    let mut seen = std::collections::BTreeMap::new();
    for e in &doc.elements {
        *seen.entry(e.class.clone()).or_insert(0) += 1;
        if seen[&e.class] == 1 {
            let attrs: Vec<String> = e
                .attrs
                .iter()
                .map(|a| format!("{}:{}", a.name, a.value.ty().name()))
                .collect();
            println!("{} [{}] {}", e.class, e.name, attrs.join(" "));
        }
    }
    println!("{seen:?}");
}
