//! Names the commit the binary was built from, and whether its tree had
//! uncommitted changes, for `probity --version` (issue 22 §1):
//! `probity 0.1.0 (commit 1a2b3c4d5e6f, dirty)`. Built outside a git
//! checkout (a source archive), it says `commit unknown`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        // The build's own environment may carry a repository's GIT_DIR
        // (a hook running cargo): ask about this checkout only.
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_WORK_TREE")
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let commit = git(&dir, &["rev-parse", "--short=12", "HEAD"]);
    let described = match commit {
        Some(commit) => {
            let dirty = git(&dir, &["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            if dirty {
                format!("{version} (commit {commit}, dirty)")
            } else {
                format!("{version} (commit {commit})")
            }
        }
        None => format!("{version} (commit unknown)"),
    };
    println!("cargo:rustc-env=PROBITY_LONG_VERSION={described}");
    // Rebuilt when HEAD moves or the index changes (a commit, a checkout,
    // an add), not on every build.
    if let Some(git_dir) = git(&dir, &["rev-parse", "--absolute-git-dir"]) {
        let git_dir = PathBuf::from(git_dir);
        for f in ["HEAD", "index", "packed-refs"] {
            println!("cargo:rerun-if-changed={}", git_dir.join(f).display());
        }
        if let Some(head_ref) = git(&dir, &["symbolic-ref", "-q", "HEAD"]) {
            let common = git(
                &dir,
                &["rev-parse", "--path-format=absolute", "--git-common-dir"],
            )
            .map(PathBuf::from)
            .unwrap_or(git_dir);
            println!("cargo:rerun-if-changed={}", common.join(head_ref).display());
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
