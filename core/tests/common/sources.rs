//! The Rust sources below a folder, for the architecture scans.

use std::path::{Path, PathBuf};

/// Appends every `.rs` file below `dir` to `out`, in path order; a folder
/// that cannot be read adds nothing (each scan checks that it found
/// enough).
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}
