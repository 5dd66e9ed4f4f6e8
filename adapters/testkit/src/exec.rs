//! Executables a test writes (a fake `probity` on `PATH`, a git shim).
//!
//! A file this multi-threaded test process opens for writing can be
//! inherited by a child another test thread forks at that moment, and
//! `exec` of the file then fails with ETXTBSY ("Text file busy") until that
//! child has exec'd in turn. Writing the file from a child process instead
//! means this process never holds a write descriptor to it.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Writes `contents` to `path` as an executable (mode 0755), from a child
/// `sh`, so the file is never open for writing in this process.
pub fn write_executable(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let mut child = Command::new("sh")
        .args(["-c", "cat > \"$1\" && chmod 755 \"$1\"", "sh"])
        .arg(path)
        .stdin(Stdio::piped())
        .spawn()?;
    let written = match child.stdin.take() {
        Some(mut stdin) => stdin.write_all(contents),
        None => Err(std::io::Error::other("no stdin for the writer")),
    };
    let status = child.wait()?;
    written?;
    if status.success() {
        Ok(())
    } else {
        Err(std::io::Error::other(format!(
            "writing {} failed: {status}",
            path.display()
        )))
    }
}

/// Copies the executable `from` to `to` (mode 0755) from a child `cp`, for
/// the same reason.
pub fn copy_executable(from: &Path, to: &Path) -> std::io::Result<()> {
    let status = Command::new("cp").arg(from).arg(to).status()?;
    if !status.success() {
        return Err(std::io::Error::other(format!(
            "copying {} failed: {status}",
            from.display()
        )));
    }
    let status = Command::new("chmod").arg("755").arg(to).status()?;
    if status.success() {
        Ok(())
    } else {
        Err(std::io::Error::other(format!(
            "chmod {} failed: {status}",
            to.display()
        )))
    }
}

/// Makes a FIFO at `path` (`mkfifo`), for the tests of "a FIFO is never
/// opened or waited on" in crates whose own source may start no program.
pub fn mkfifo(path: &Path) -> std::io::Result<()> {
    let status = Command::new("mkfifo").arg(path).status()?;
    if status.success() {
        Ok(())
    } else {
        Err(std::io::Error::other(format!(
            "mkfifo {}: {status}",
            path.display()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_executable_runs() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("hello");
        write_executable(&p, b"#!/bin/sh\necho hi\n").unwrap();
        let out = Command::new(&p).output().unwrap();
        assert_eq!(out.stdout, b"hi\n");
        let q = dir.path().join("copy");
        copy_executable(&p, &q).unwrap();
        assert_eq!(Command::new(&q).output().unwrap().stdout, b"hi\n");
    }
}
