//! The file-level rules every command keeps: an output never replaces an input, and outputs
//! are written atomically.

use std::path::Path;

use crate::error::DriverError;

/// Refuses an output that is one of the run's inputs, before any work is done: the same file
/// after resolving links (a symlink or a hard link to the input counts), compared by device and
/// inode where the platform has them.
pub fn refuse_overwriting(input: &Path, output: &Path) -> Result<(), DriverError> {
    if same_file(input, output) {
        return Err(DriverError::OutputIsInput {
            output: output.to_path_buf(),
            input: input.to_path_buf(),
        });
    }
    Ok(())
}

/// Whether two paths name one existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        ma.dev() == mb.dev() && ma.ino() == mb.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (ma, mb);
        matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        )
    }
}

/// Writes an output file atomically (`srcmap_bytes::write_atomic`), naming it in the error.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<(), DriverError> {
    srcmap_bytes::write_atomic(path, bytes).map_err(|error| DriverError::Write {
        path: path.to_path_buf(),
        error,
    })
}

/// A file's bytes, naming it in the error.
pub fn read(path: &Path) -> Result<Vec<u8>, DriverError> {
    std::fs::read(path).map_err(|source| DriverError::Read {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_naming_the_input_is_refused() {
        let dir = std::env::temp_dir().join(format!("srcmap-driver-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let input = dir.join("a.vmf");
        std::fs::write(&input, b"x").unwrap();
        let err = refuse_overwriting(&input, &dir.join(".").join("a.vmf")).unwrap_err();
        assert!(err.is_usage());
        assert!(err.to_string().ends_with("; name another output"), "{err}");
        refuse_overwriting(&input, &dir.join("a.bsp")).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
