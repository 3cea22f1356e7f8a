//! What every command writes: output files, JSON reports, and text from files made safe for a
//! terminal.

/// Writes an output file atomically, naming it in the error.
pub fn write_output(path: &std::path::Path, bytes: &[u8]) -> anyhow::Result<()> {
    Ok(srcmap_driver::write_output(path, bytes)?)
}

/// Prints a serialisable report as pretty JSON on stdout.
pub fn print_json<T: serde::Serialize>(report: &T) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, report)?;
    writeln!(out)?;
    Ok(())
}

/// Text from a file made safe for a terminal: control characters (escape sequences, bells,
/// carriage returns) are printed escaped (`\u{1b}`), everything else as it is.
pub fn printable(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(s);
    }
    std::borrow::Cow::Owned(
        s.chars()
            .map(|c| {
                if c.is_control() {
                    c.escape_default().to_string()
                } else {
                    c.to_string()
                }
            })
            .collect(),
    )
}

/// Prints the driver's lines for the mapper on stderr.
pub struct Stderr;

impl srcmap_driver::Messages for Stderr {
    fn line(&self, text: &str) {
        eprintln!("{text}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_escapes_control_characters() {
        assert_eq!(printable("binary"), "binary");
        assert_eq!(printable("a\u{1b}[2Jb\x07\r"), "a\\u{1b}[2Jb\\u{7}\\r");
        assert!(!printable("\u{9b}x").chars().any(char::is_control));
    }
}
