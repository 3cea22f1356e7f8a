//! Writes the VMF the `vmf_compile` fuzz target builds from an input file, so a slow or
//! failing input can be rerun with `srcmap vbsp`: `cargo run --example hostile_vmf IN OUT.vmf`.

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, input, output] = &args[..] else {
        eprintln!("usage: hostile_vmf INPUT OUT.vmf");
        std::process::exit(2);
    };
    let data = std::fs::read(input).unwrap_or_else(|e| {
        eprintln!("{input}: {e}");
        std::process::exit(1);
    });
    if let Err(e) = std::fs::write(output, srcmap_fuzzing::hostile_vmf(&data)) {
        eprintln!("{output}: {e}");
        std::process::exit(1);
    }
}
