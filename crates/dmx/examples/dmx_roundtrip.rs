//! Reads each file, writes it back in its own encoding and reports the first differing byte:
//! `cargo run -p srcmap-dmx --example dmx_roundtrip FILE...`
fn main() {
    for path in std::env::args().skip(1) {
        let data = std::fs::read(&path).expect("read file");
        let doc = match srcmap_dmx::Dmx::read(&data) {
            Ok(d) => d,
            Err(e) => {
                println!("{path}: read error: {e}");
                continue;
            }
        };
        match doc.write() {
            Ok(out) if out == data => println!("{path}: identical ({} bytes)", data.len()),
            Ok(out) => {
                let i = out
                    .iter()
                    .zip(&data)
                    .position(|(a, b)| a != b)
                    .unwrap_or(out.len().min(data.len()));
                let show = |d: &[u8]| format!("{:?}", &d[i.saturating_sub(24)..(i + 24).min(d.len())]);
                println!(
                    "{path}: differs at byte {i} (lengths {} vs {})\n  in:  {}\n  out: {}",
                    data.len(),
                    out.len(),
                    show(&data),
                    show(&out)
                );
            }
            Err(e) => println!("{path}: write error: {e}"),
        }
    }
}
