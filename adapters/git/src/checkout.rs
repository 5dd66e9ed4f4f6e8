//! A scratch checkout of one tree (issue 20 §1): where a check Probity runs
//! (`finalize --evidence-cmd`) sees exactly the frozen candidate, never the
//! live worktree.
//!
//! The tree is read into a temporary index (`git read-tree`, the index
//! path passed as `GIT_INDEX_FILE` to that one git, as the candidate's own
//! temporary index is) and written out with `git checkout-index -a` whose
//! work tree is the scratch directory: one pass over the tree's blobs, with
//! the repository's own checkout rules (its configured line endings and
//! filters, the tree's own `.gitattributes` and `info/attributes`, never a
//! file only the live worktree holds; symlinks, the executable bit), no hard link into the object store (a check may edit what it
//! reads), and nothing written to the repository, its index, its refs or
//! its worktree list. Submodules (gitlinks) are not populated.
//!
//! The directory is a scratch artifact under an owner lock in the system
//! temporary directory (`$TMPDIR`): removed when the guard drops, by an
//! interrupted run's cleanup (SIGINT, SIGTERM, SIGHUP), and by the next
//! checkout's scavenging pass after a SIGKILL. It is not a git repository.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use probity_core::review::TreeId;

use crate::cmd::GitError;
use crate::repo::Repo;
use crate::scratch::Scratch;

/// The prefix of every scratch checkout's name in the temporary directory.
pub const CHECKOUT_PREFIX: &str = "probity-check-";

/// A tree written out under an owner lock; removed with this guard.
#[derive(Debug)]
pub struct ScratchCheckout {
    scratch: Scratch,
    root: PathBuf,
    tree: TreeId,
}

impl ScratchCheckout {
    /// The checkout's top directory: the tree's root (the repository
    /// root's layout).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The tree written out.
    pub fn tree(&self) -> &TreeId {
        &self.tree
    }

    /// The scratch directory holding the checkout and its index.
    pub fn scratch_dir(&self) -> &Path {
        self.scratch.path()
    }
}

impl Repo {
    /// Writes `tree` out into a new scratch directory under `parent` (the
    /// system temporary directory for a check), after scavenging what dead
    /// owners left there. The checkout is `<scratch>/tree/`; the temporary
    /// index beside it.
    pub fn scratch_checkout(
        &self,
        tree: &TreeId,
        parent: &Path,
    ) -> Result<ScratchCheckout, GitError> {
        let scratch = Scratch::reserve(parent, CHECKOUT_PREFIX)?;
        scratch.create_dir(0o700)?;
        let root = scratch.path().join("tree");
        let index = scratch.path().join("index");
        probity_scratch::registry::exclusive(|| std::fs::create_dir(&root))?;
        let env: [(&str, &OsStr); 1] = [("GIT_INDEX_FILE", index.as_os_str())];
        // The temporary index is read once: skip its trailing checksum;
        // never split (a split one skipHash wrote reads as empty).
        self.run_with(
            [
                OsStr::new("-c"),
                OsStr::new("index.skipHash=true"),
                OsStr::new("-c"),
                OsStr::new("core.splitIndex=false"),
                OsStr::new("read-tree"),
                OsStr::new(tree.as_str()),
            ],
            &env,
            None,
        )?;
        // The scratch directory is the work tree of this one git, so the
        // checkout's attributes are the tree's own (and the repository's
        // `info/attributes`), never a `.gitattributes` that only the live
        // worktree holds, an ignored one included (red team round 2): with
        // `--prefix` from the live root, git fell back to the live
        // worktree's files for attributes the tree does not set.
        let mut git_dir = OsString::from("--git-dir=");
        git_dir.push(self.git_dir().as_os_str());
        let mut work_tree = OsString::from("--work-tree=");
        work_tree.push(root.as_os_str());
        self.git().run_with(
            &root,
            [
                git_dir.as_os_str(),
                work_tree.as_os_str(),
                OsStr::new("checkout-index"),
                OsStr::new("-a"),
                OsStr::new("-f"),
            ],
            &env,
            None,
        )?;
        // The index is no part of what the check sees.
        let _ = std::fs::remove_file(&index);
        Ok(ScratchCheckout {
            scratch,
            root,
            tree: tree.clone(),
        })
    }
}

#[cfg(all(test, feature = "fixture"))]
mod tests {
    use super::*;
    use crate::fixture::Fixture;

    /// Red team round 2 (attempt 41): a `.gitattributes` only the live
    /// worktree holds (ignored, so no part of the candidate) rewrote the
    /// bytes the check saw (`ident`, `eol=crlf`).
    #[test]
    fn attributes_only_the_live_worktree_holds_do_not_apply() {
        let f = Fixture::committed(
            &[("data.txt", "line1\nline2\n"), ("src/id.rs", "// $Id$\n")],
            "base",
        )
        .unwrap();
        f.write(".gitattributes", "*.txt eol=crlf\n*.rs ident\n")
            .unwrap();
        f.write(".git/info/exclude", ".gitattributes\n").unwrap();
        let repo = Repo::discover(crate::GitCli::default(), f.root()).unwrap();
        let tree = String::from_utf8(f.git(&["rev-parse", "HEAD^{tree}"]).unwrap()).unwrap();
        let tree = TreeId::parse(tree.trim().to_string()).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let co = repo.scratch_checkout(&tree, tmp.path()).unwrap();
        assert_eq!(
            std::fs::read(co.root().join("data.txt")).unwrap(),
            b"line1\nline2\n"
        );
        assert_eq!(
            std::fs::read(co.root().join("src/id.rs")).unwrap(),
            b"// $Id$\n"
        );
        // The tree's own attributes still apply, as in any checkout.
        f.write(".gitattributes", "*.txt eol=crlf\n").unwrap();
        f.write(".git/info/exclude", "").unwrap();
        f.git(&["add", ".gitattributes"]).unwrap();
        f.git(&["commit", "-q", "-m", "attributes"]).unwrap();
        let tree = String::from_utf8(f.git(&["rev-parse", "HEAD^{tree}"]).unwrap()).unwrap();
        let tree = TreeId::parse(tree.trim().to_string()).unwrap();
        let co = repo.scratch_checkout(&tree, tmp.path()).unwrap();
        assert_eq!(
            std::fs::read(co.root().join("data.txt")).unwrap(),
            b"line1\r\nline2\r\n"
        );
    }

    #[test]
    fn a_tree_is_written_out_and_goes_with_its_guard() {
        let f =
            Fixture::committed(&[("a/b.txt", "one\n"), ("c.sh", "#!/bin/sh\n")], "base").unwrap();
        f.write("a/b.txt", "live edit\n").unwrap();
        let repo = Repo::discover(crate::GitCli::default(), f.root()).unwrap();
        let tree = String::from_utf8(f.git(&["rev-parse", "HEAD^{tree}"]).unwrap()).unwrap();
        let tree = TreeId::parse(tree.trim().to_string()).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let status = f.git(&["status", "--porcelain"]).unwrap();
        let co = repo.scratch_checkout(&tree, tmp.path()).unwrap();
        assert_eq!(
            std::fs::read_to_string(co.root().join("a/b.txt")).unwrap(),
            "one\n"
        );
        assert!(co.root().join("c.sh").is_file());
        assert!(!co.root().join(".git").exists());
        assert_eq!(f.git(&["status", "--porcelain"]).unwrap(), status);
        let dir = co.scratch_dir().to_path_buf();
        drop(co);
        assert!(!dir.exists());
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    }
}
