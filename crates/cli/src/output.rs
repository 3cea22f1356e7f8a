//! What every command writes: output files, JSON reports, and text from files made safe for a
//! terminal.

/// Writes an output file atomically, naming it in the error.
pub fn write_output(path: &std::path::Path, bytes: &[u8]) -> anyhow::Result<()> {
    Ok(srcmap_driver::write_output(path, bytes)?)
}

/// A stage report's warnings, one line each (each says `warning:` or `note:` itself).
pub fn print_warnings(report: &srcmap_stage::Report) {
    for w in &report.warnings {
        eprintln!("{w}");
    }
}

/// Prints a serialisable report as pretty JSON on stdout.
pub fn print_json<T: serde::Serialize>(report: &T) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, report)?;
    writeln!(out)?;
    Ok(())
}

/// Whether the command line asks for JSON (`--json`, or Valve's one-dash spelling), read
/// before parsing so that a command line clap refuses is answered in JSON too.
pub fn asks_for_json(args: &[std::ffi::OsString]) -> bool {
    args.iter().skip(1).any(|a| a == "--json" || a == "-json")
}

/// The report `--json` prints for a failed run: the driver's own for its errors, else the
/// kind read from the error (`usage`, a file that cannot be read, or `error`).
pub fn error_report(err: &anyhow::Error, message: &str, usage: bool) -> srcmap_driver::ErrorReport {
    use srcmap_driver::{DriverError, ErrorReport};
    match err.chain().find_map(|c| c.downcast_ref::<DriverError>()) {
        Some(e) if !usage => ErrorReport::of(e, message),
        Some(e) => ErrorReport {
            kind: "usage",
            ..ErrorReport::of(e, message)
        },
        None => ErrorReport::new(if usage { "usage" } else { "error" }, message, None),
    }
}

/// `{"error": REPORT}` on stdout, one document; a failure to print it is not reported (the
/// error is on stderr already).
pub fn print_error_json(report: &srcmap_driver::ErrorReport) {
    /// The document: `error` holding the report's fields in their order.
    #[derive(serde::Serialize)]
    struct Failure<'a> {
        error: &'a srcmap_driver::ErrorReport,
    }
    let _ = print_json(&Failure { error: report });
}

/// A command line clap refuses (or `--help`, `--version`): clap's text as clap prints it, and
/// with `--json` a usage error as JSON on stdout too; clap's exit status (2 for errors).
pub fn usage_failure(e: clap::Error, json: bool) -> std::process::ExitCode {
    let code = e.exit_code();
    if !json || !e.use_stderr() {
        e.exit();
    }
    let _ = e.print();
    let text = e.to_string();
    let first_line = text.lines().next().unwrap_or_default();
    let message = first_line.trim_start_matches("error: ").to_string();
    print_error_json(&srcmap_driver::ErrorReport::new("usage", message, None));
    std::process::ExitCode::from(code.clamp(0, 255) as u8)
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
        crate::progress::print_line(text);
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
