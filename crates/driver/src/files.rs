//! The file-level rules every command keeps: an output never replaces an input, and outputs
//! are written atomically.

use std::path::{Path, PathBuf};

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

/// An exclusive advisory lock on a file a command edits in place (`pak add`, `lump replace`),
/// held until dropped: a second edit of the same file at the same time fails clearly instead
/// of one change silently replacing the other.
#[derive(Debug)]
pub struct EditLock {
    _file: std::fs::File,
}

/// Locks `path` for an in-place edit: take it before reading the file, hold it until the new
/// file is written.
pub fn lock_for_edit(path: &Path) -> Result<EditLock, DriverError> {
    let busy = |why: &str| DriverError::Write {
        path: path.to_path_buf(),
        error: std::io::Error::new(std::io::ErrorKind::WouldBlock, why.to_owned()),
    };
    let file = std::fs::File::open(path).map_err(|source| DriverError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            return Err(busy(
                "another command is changing this file; run again when it has finished",
            ));
        }
        Err(std::fs::TryLockError::Error(error)) => {
            return Err(DriverError::Write {
                path: path.to_path_buf(),
                error,
            });
        }
    }
    // An edit that finished between our open and our lock replaced the file: the lock is on
    // the old one, and reading now would lose that edit.
    if !same_open_file(&file, path) {
        return Err(busy(
            "another command changed this file as this one started; run again",
        ));
    }
    Ok(EditLock { _file: file })
}

/// Whether the open `file` is the one `path` names now.
fn same_open_file(file: &std::fs::File, path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (file.metadata(), std::fs::metadata(path)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (file, path);
        true
    }
}

/// Says which of `-game`'s search paths could not be used (a missing folder, a broken VPK):
/// content read through them would otherwise just be "unknown".
pub fn tell_skipped_search_paths(game: &srcmap_content::GameDir, messages: &dyn crate::Messages) {
    for why in &game.skipped {
        messages.line(&format!(
            "{}: warning: search path skipped: {why}",
            game.root.display()
        ));
    }
}

/// Writes an output file atomically (`srcmap_bytes::write_atomic`), naming it in the error.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<(), DriverError> {
    srcmap_bytes::write_atomic(path, bytes).map_err(|error| DriverError::Write {
        path: path.to_path_buf(),
        error,
    })
}

/// Writes several outputs all or none (`pak extract`): each is first written in full beside its
/// target under a temporary name, and only when every one is written are they renamed into place.
/// A failure midway (a full disk) removes the temporaries and the folders made for them, and the
/// error names the file that failed; no file that was there before is touched. Files are not
/// synced one by one (`srcmap_bytes::stage_unsynced`): these are copies of what an input holds.
pub fn write_outputs(files: &[(PathBuf, Vec<u8>)]) -> Result<(), DriverError> {
    let mut made = Vec::new();
    let staged = stage_all(files, &mut made);
    let staged = match staged {
        Ok(staged) => staged,
        Err(error) => {
            remove_folders(&made);
            return Err(error);
        }
    };
    for s in staged {
        let path = s.target().to_path_buf();
        s.commit().map_err(|error| DriverError::Write { path, error })?;
    }
    Ok(())
}

/// Every file of `files` staged (`srcmap_bytes::stage`), with the folders it needs made (and
/// remembered in `made`, outermost first); dropped on error, the staged ones are removed.
fn stage_all(
    files: &[(PathBuf, Vec<u8>)],
    made: &mut Vec<PathBuf>,
) -> Result<Vec<srcmap_bytes::Staged>, DriverError> {
    let mut staged = Vec::with_capacity(files.len());
    for (path, bytes) in files {
        let failed = |error| DriverError::Write {
            path: path.clone(),
            error,
        };
        if let Some(parent) = path.parent() {
            make_folders(parent, made).map_err(failed)?;
        }
        staged.push(srcmap_bytes::stage_unsynced(path, bytes).map_err(failed)?);
    }
    Ok(staged)
}

/// Makes `dir` and its missing ancestors, adding each one made to `made`, outermost first.
fn make_folders(dir: &Path, made: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let missing: Vec<&Path> = dir
        .ancestors()
        .take_while(|d| !d.as_os_str().is_empty() && !d.exists())
        .collect();
    for d in missing.into_iter().rev() {
        std::fs::create_dir(d)?;
        made.push(d.to_path_buf());
    }
    Ok(())
}

/// Removes the folders `make_folders` made, innermost first (each is empty again once the
/// staged files are gone).
fn remove_folders(made: &[PathBuf]) {
    for d in made.iter().rev() {
        let _ = std::fs::remove_dir(d);
    }
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

    #[test]
    fn a_second_edit_of_a_locked_file_fails_and_a_replaced_file_is_noticed() {
        let dir = std::env::temp_dir().join(format!("srcmap-driver-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let map = dir.join("a.bsp");
        std::fs::write(&map, b"one").unwrap();
        let first = lock_for_edit(&map).unwrap();
        let err = lock_for_edit(&map).unwrap_err().to_string();
        assert!(err.contains("another command is changing this file"), "{err}");
        // The first edit writes its result (a new file) and ends: the next edit may start.
        write_output(&map, b"two").unwrap();
        drop(first);
        let second = lock_for_edit(&map).unwrap();
        drop(second);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn outputs_are_written_all_or_none() {
        let dir = std::env::temp_dir().join(format!("srcmap-driver-outputs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("kept.txt"), b"old").unwrap();
        // A file where the last entry needs a folder: its write fails after the others were made.
        std::fs::write(dir.join("blocker"), b"").unwrap();
        let files = vec![
            (dir.join("kept.txt"), b"new".to_vec()),
            (dir.join("materials/a/b.vmt"), b"b".to_vec()),
            (dir.join("blocker/c.vmt"), b"c".to_vec()),
        ];
        let err = write_outputs(&files).unwrap_err().to_string();
        assert!(err.contains("blocker/c.vmt: cannot write"), "{err}");
        let mut left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        left.sort();
        assert_eq!(
            left,
            ["blocker", "kept.txt"],
            "the failed extraction left files or folders"
        );
        assert_eq!(std::fs::read(dir.join("kept.txt")).unwrap(), b"old");
        write_outputs(&files[..2]).unwrap();
        assert_eq!(std::fs::read(dir.join("kept.txt")).unwrap(), b"new");
        assert_eq!(std::fs::read(dir.join("materials/a/b.vmt")).unwrap(), b"b");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn skipped_search_paths_are_told() {
        struct Lines(std::cell::RefCell<Vec<String>>);
        impl crate::Messages for Lines {
            fn line(&self, text: &str) {
                self.0.borrow_mut().push(text.to_owned());
            }
        }
        let dir = std::env::temp_dir().join(format!("srcmap-driver-game-{}", std::process::id()));
        let game = dir.join("mod");
        std::fs::create_dir_all(&game).unwrap();
        std::fs::write(
            game.join("gameinfo.txt"),
            "GameInfo { game \"Mod\" FileSystem { SearchPaths { game |gameinfo_path|. game missing_dir game hl2/broken.vpk } } }",
        )
        .unwrap();
        let opened = srcmap_content::GameDir::open(&game).unwrap();
        let lines = Lines(Default::default());
        tell_skipped_search_paths(&opened, &lines);
        let lines = lines.0.into_inner();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(
            lines.iter().all(|l| l.contains("search path skipped")),
            "{lines:?}"
        );
        assert!(
            lines[0].contains("missing_dir") && lines[1].contains("broken"),
            "{lines:?}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
