//! Wrong usage found after parsing (an unknown lump name, an argument naming the input as the
//! output): `main` exits 2 on it, as clap does on its own usage errors.

use std::path::Path;

#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// A usage error as an `anyhow::Error` (exit status 2).
pub fn usage_error(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(UsageError(message.into()))
}

/// Whether an error is wrong usage: ours, or a library's that says so (an output naming an
/// input).
pub fn is_usage(err: &anyhow::Error) -> bool {
    err.downcast_ref::<UsageError>().is_some()
        || err
            .downcast_ref::<srcmap_driver::DriverError>()
            .is_some_and(srcmap_driver::DriverError::is_usage)
}

/// Refuses a command whose output is one of its inputs, before any work is done (see
/// [`srcmap_driver::refuse_overwriting`]). Every command that writes a file calls this for each
/// input it reads and must not replace.
pub fn refuse_overwriting(input: &Path, output: &Path) -> anyhow::Result<()> {
    Ok(srcmap_driver::refuse_overwriting(input, output)?)
}

/// A float flag's value: finite numbers only (`nan` and `inf` parse as floats but mean nothing
/// as a radius or a scale).
pub fn finite_f64(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|e| format!("`{s}` is not a number: {e}"))?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err(format!("`{s}` is not a finite number"))
    }
}

/// `srcmap completions SHELL`: the completion script clap_complete makes from the command
/// definition, on stdout.
pub fn completions(shell: clap_complete::Shell) -> anyhow::Result<()> {
    use clap::CommandFactory;
    use std::io::Write;
    let mut cmd = crate::Cli::command();
    // Made in memory first: clap_complete panics on a failed write (a closed pipe), where
    // `write_all` reports it as an error.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "srcmap", &mut script);
    std::io::stdout().lock().write_all(&script)?;
    Ok(())
}

/// `srcmap man`: the man page clap_mangen makes from the command definition, on stdout.
pub fn man() -> anyhow::Result<()> {
    use clap::CommandFactory;
    clap_mangen::Man::new(crate::Cli::command()).render(&mut std::io::stdout().lock())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_flags_refuse_non_finite_values() {
        assert_eq!(finite_f64("2.5"), Ok(2.5));
        for bad in ["nan", "NaN", "inf", "-inf", "infinity", "x"] {
            assert!(finite_f64(bad).is_err(), "{bad}");
        }
    }
}
