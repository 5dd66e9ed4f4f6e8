//! Named pipes for the tests of "a FIFO is refused at once, never waited
//! on" (no other helper needed, so tests without `support` include it by
//! path).

use std::path::Path;

/// Makes a FIFO at `path` (`mkfifo`), which must succeed.
pub fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}
