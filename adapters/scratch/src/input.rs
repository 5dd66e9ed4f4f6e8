//! The one bounded reader of input files: only a regular file (checked
//! from its metadata before opening, opened without blocking, checked
//! again on the open handle), read under a byte bound enforced while
//! reading (a file that grows while read is still bounded). A FIFO, a
//! directory or a device is refused at once, never opened for reading.
//!
//! The CLI reads every document flag through it, and the git adapter its
//! allowed-signers file; each maps [`InputError`] to its own typed answer
//! (`unreadable_input`, `input_not_regular`, `input_too_large`).

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Why an input file was not read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// It cannot be inspected, opened or read.
    #[error("{0}")]
    Unreadable(std::io::Error),
    /// It is not a regular file (a FIFO, a directory, a device).
    #[error("not a regular file (a FIFO, directory or device is never read)")]
    NotRegular,
    /// More than `limit` bytes arrived.
    #[error("larger than the {limit}-byte limit")]
    TooLarge {
        /// The bound, in bytes.
        limit: u64,
    },
}

/// Opens `path` for reading: only a regular file, opened non-blocking (a
/// FIFO swapped in after the check cannot block the open) and checked
/// again on the handle.
pub fn open_regular(path: &Path) -> Result<File, InputError> {
    use std::os::unix::fs::OpenOptionsExt;
    if !std::fs::metadata(path)
        .map_err(InputError::Unreadable)?
        .is_file()
    {
        return Err(InputError::NotRegular);
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(InputError::Unreadable)?;
    // The path may have been swapped since the check: trust the handle.
    if !file.metadata().map_err(InputError::Unreadable)?.is_file() {
        return Err(InputError::NotRegular);
    }
    Ok(file)
}

/// Streams `reader` through `sink` in chunks, refusing it with
/// [`InputError::TooLarge`] once more than `limit` bytes arrived (before
/// `sink` sees the chunk that crossed it). Returns the bytes read.
pub fn stream_bounded(
    reader: &mut dyn Read,
    limit: u64,
    mut sink: impl FnMut(&[u8]),
) -> Result<u64, InputError> {
    let mut buf = vec![0u8; 64 * 1024];
    let mut total: u64 = 0;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => return Ok(total),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(InputError::Unreadable(e)),
        };
        total = total.saturating_add(n as u64);
        if total > limit {
            return Err(InputError::TooLarge { limit });
        }
        sink(&buf[..n]);
    }
}

/// Opens `path` as [`open_regular`] does, and refuses it at once with
/// [`InputError::TooLarge`] when its size is already past `limit` (a huge
/// or sparse file is never read up to the bound; one that grows while
/// read is still bounded by [`stream_bounded`]).
pub fn open_within(path: &Path, limit: u64) -> Result<File, InputError> {
    let file = open_regular(path)?;
    if file.metadata().map_err(InputError::Unreadable)?.len() > limit {
        return Err(InputError::TooLarge { limit });
    }
    Ok(file)
}

/// Reads the regular file at `path` whole, at most `limit` bytes.
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, InputError> {
    let mut file = open_within(path, limit)?;
    let mut bytes = Vec::new();
    stream_bounded(&mut file, limit, |chunk| bytes.extend_from_slice(chunk))?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_regular_file_within_its_bound_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let ok = dir.path().join("ok");
        std::fs::write(&ok, b"12345").unwrap();
        assert_eq!(read_regular(&ok, 5).unwrap(), b"12345");
        assert!(matches!(
            read_regular(&ok, 4),
            Err(InputError::TooLarge { limit: 4 })
        ));
        // A sparse file far past the bound is refused from its size.
        let huge = dir.path().join("huge");
        std::fs::File::create(&huge)
            .unwrap()
            .set_len(1 << 34)
            .unwrap();
        assert!(matches!(
            read_regular(&huge, 5),
            Err(InputError::TooLarge { limit: 5 })
        ));
        let fifo = dir.path().join("fifo");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        for p in [fifo.as_path(), dir.path(), Path::new("/dev/null")] {
            assert!(
                matches!(read_regular(p, 5), Err(InputError::NotRegular)),
                "{}",
                p.display()
            );
        }
        assert!(matches!(
            read_regular(&dir.path().join("missing"), 5),
            Err(InputError::Unreadable(e)) if e.kind() == std::io::ErrorKind::NotFound
        ));
    }
}
