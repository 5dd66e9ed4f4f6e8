//! Release artifacts on disk (R8.5): the [`ReleaseArtifacts`] port over a
//! directory.

use std::io::Read as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

use probity_core::digest::PlainSha256;
use probity_core::review::{ExpectedArtifact, ObservedArtifact};
use probity_ports::review::{AdapterError, ReleaseArtifacts};

/// The artifacts under one directory, each named by its checksums-file
/// name (a plain relative path: `parse_checksums` refuses `..`, absolute
/// and empty components).
#[derive(Debug, Clone)]
pub struct ArtifactDir {
    dir: PathBuf,
}

impl ArtifactDir {
    /// The artifacts under `dir` (read when asked, never at construction).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The directory read.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// Why an artifact could not be read (it exists and is a regular file).
#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}")]
pub struct ArtifactError {
    /// The artifact's path (the directory joined with its name), as
    /// displayed.
    pub path: String,
    /// The read error.
    #[source]
    pub source: std::io::Error,
}

/// The SHA-256 of the regular file at `path`, read in chunks; `None` when
/// nothing is there or it is no regular file. The file is opened without
/// following a final symlink and without blocking (a FIFO swapped in after
/// the check cannot stall the gate), and the open handle is checked again.
fn hash_regular(path: &Path) -> Result<Option<probity_core::digest::Sha256Digest>, ArtifactError> {
    let err = |source| ArtifactError {
        path: path.display().to_string(),
        source,
    };
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_file() => {}
        Ok(_) => return Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(err(e)),
    }
    let mut file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_NOFOLLOW)
        .open(path)
    {
        Ok(f) => f,
        // Gone, or swapped for a symlink (ELOOP), since the check.
        Err(e)
            if e.kind() == std::io::ErrorKind::NotFound
                || e.raw_os_error() == Some(libc::ELOOP) =>
        {
            return Ok(None);
        }
        Err(e) => return Err(err(e)),
    };
    if !file.metadata().map_err(err)?.is_file() {
        return Ok(None);
    }
    let mut h = PlainSha256::default();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match file.read(&mut buf) {
            Ok(0) => return Ok(Some(h.finish())),
            Ok(n) => h.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(err(e)),
        }
    }
}

impl ReleaseArtifacts for ArtifactDir {
    fn observe(
        &self,
        expected: &[ExpectedArtifact],
    ) -> Result<Vec<ObservedArtifact>, AdapterError> {
        expected
            .iter()
            .map(|e| {
                Ok(ObservedArtifact {
                    name: e.name.clone(),
                    sha256: hash_regular(&self.dir.join(&e.name))?,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use probity_core::digest::Sha256Digest;

    fn expected(name: &str) -> ExpectedArtifact {
        ExpectedArtifact {
            name: name.into(),
            sha256: Sha256Digest::plain(b""),
        }
    }

    #[test]
    fn regular_files_are_hashed_and_anything_else_is_absent() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("app"), b"bytes").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("app"), dir.path().join("link")).unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let names = ["app", "sub", "link", "fifo", "missing"];
        let all: Vec<_> = names.iter().map(|n| expected(n)).collect();
        let seen = ArtifactDir::new(dir.path()).observe(&all).unwrap();
        assert_eq!(seen[0].sha256, Some(Sha256Digest::plain(b"bytes")));
        for o in &seen[1..] {
            assert_eq!(o.sha256, None, "{}", o.name);
        }
    }
}
