//! The one way a file the user names as an output (`--manifest-out`,
//! `bundle export --out`, `--log-file`) is written: only a regular file (or
//! nothing yet) is ever written there. A FIFO would block the run forever,
//! a device or a directory is no output, and a symbolic link would have the
//! write land elsewhere; each is refused at once, with nothing written.

use std::fs::{File, OpenOptions, Permissions};
use std::io::{Error, ErrorKind};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

fn not_regular(path: &Path) -> Error {
    Error::new(
        ErrorKind::InvalidInput,
        format!(
            "{} is not a regular file (a FIFO, device, directory or symbolic link is never written)",
            path.display()
        ),
    )
}

/// Writes `bytes` to `path` atomically ([`crate::write_atomic`]): a regular
/// file there is replaced (keeping its mode), a missing one is made 0644,
/// anything else is refused before anything is written.
pub fn write_output(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mode = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_file() => m.permissions(),
        Ok(_) => return Err(not_regular(path)),
        Err(e) if e.kind() == ErrorKind::NotFound => Permissions::from_mode(0o644),
        Err(e) => return Err(e),
    };
    crate::write_atomic(path, bytes, ".probity-out-", Some(mode))
}

/// Opens `path` for appending (created if missing), refusing at once
/// anything but a regular file: the open neither blocks on a FIFO nor
/// follows a final symbolic link.
pub fn open_append(path: &Path) -> std::io::Result<File> {
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            // A FIFO with no reader, a final symbolic link, a directory.
            Some(libc::ENXIO | libc::ELOOP | libc::EISDIR) => not_regular(path),
            _ => e,
        })?;
    if !file.metadata()?.file_type().is_file() {
        return Err(not_regular(path));
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_regular_file_or_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let new = dir.path().join("new");
        write_output(&new, b"one").unwrap();
        assert_eq!(std::fs::read(&new).unwrap(), b"one");
        assert_eq!(
            std::fs::metadata(&new).unwrap().permissions().mode() & 0o777,
            0o644
        );
        std::fs::set_permissions(&new, Permissions::from_mode(0o600)).unwrap();
        write_output(&new, b"two").unwrap();
        assert_eq!(std::fs::read(&new).unwrap(), b"two");
        assert_eq!(
            std::fs::metadata(&new).unwrap().permissions().mode() & 0o777,
            0o600
        );

        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo(3) on a NUL-terminated path this test owns.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let target = dir.path().join("target");
        std::fs::write(&target, b"theirs").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        for bad in [&fifo, &link, &dir.path().to_path_buf()] {
            let e = write_output(bad, b"x").unwrap_err();
            assert!(e.to_string().contains("not a regular file"), "{e}");
            let e = open_append(bad).unwrap_err();
            assert!(
                e.to_string().contains("not a regular file"),
                "{}: {e}",
                bad.display()
            );
        }
        assert_eq!(std::fs::read(&target).unwrap(), b"theirs");
        use std::os::unix::fs::FileTypeExt;
        assert!(
            std::fs::symlink_metadata(&fifo)
                .unwrap()
                .file_type()
                .is_fifo()
        );
        let log = dir.path().join("log");
        use std::io::Write;
        open_append(&log).unwrap().write_all(b"a").unwrap();
        open_append(&log).unwrap().write_all(b"b").unwrap();
        assert_eq!(std::fs::read(&log).unwrap(), b"ab");
    }
}
