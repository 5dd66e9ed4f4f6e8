//! The `disk` subject: plain files under a root. Links inside the root are
//! followed only after canonicalizing and re-checking containment; a link
//! out of the root, or into a `.git` directory, is refused.

use std::fs;
use std::path::{Component, Path, PathBuf};

use probity_core::snapshot_tools::{
    GrepQuery, ListEntry, PathRefusal, RawGrep, RawRead, SnapshotPath, SubjectError,
};

use super::OpenError;
use super::walk::{self, io_err, is_git_name, join, missing_or_io, name_bytes};

/// Plain files under a canonical root.
#[derive(Debug, Clone)]
pub struct DiskSubject {
    root: PathBuf,
}

impl DiskSubject {
    /// Opens `root` (canonicalized once, here).
    pub fn new(root: &Path) -> Result<Self, OpenError> {
        let root = fs::canonicalize(root).map_err(|source| OpenError::Root {
            path: root.display().to_string(),
            source,
        })?;
        Ok(Self { root })
    }

    /// The canonical root every path resolves under.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Canonicalizes `root/path` and checks it stays under the root and out
    /// of `.git`.
    fn contain(&self, path: &SnapshotPath) -> Result<PathBuf, SubjectError> {
        let full = join(&self.root, path);
        let canon = fs::canonicalize(&full)
            .map_err(|e| missing_or_io(path, &e, "no such file under the root"))?;
        let rel = canon
            .strip_prefix(&self.root)
            .map_err(|_| SubjectError::Refused(PathRefusal::OutsideRoot))?;
        for c in rel.components() {
            match c {
                Component::Normal(n) if is_git_name(&name_bytes(n)) => {
                    return Err(SubjectError::Refused(PathRefusal::GitDir));
                }
                Component::Normal(_) => {}
                _ => return Err(SubjectError::Refused(PathRefusal::OutsideRoot)),
            }
        }
        Ok(canon)
    }

    /// The regular file at `path` (a link followed only when it resolves inside
    /// the root and out of `.git`); a directory, a FIFO, socket or device, or a
    /// file over `READ_MAX_FILE_BYTES` is its error result.
    pub fn read(&self, path: &SnapshotPath) -> Result<RawRead, SubjectError> {
        let canon = self.contain(path)?;
        let meta = fs::metadata(&canon).map_err(|e| io_err(path, &e))?;
        if meta.is_dir() {
            return Err(SubjectError::IsDirectory(path.display().into_owned()));
        }
        // Never open a FIFO, socket or device: opening one can block.
        if !meta.is_file() {
            return Err(SubjectError::NotAFile {
                path: path.display().into_owned(),
                what: "a FIFO, socket or device".into(),
            });
        }
        walk::read_file(&canon, path).map(RawRead::File)
    }

    /// Matching lines of the regular files under the root, or under
    /// `query.scope` (which must resolve inside it), links never followed: at
    /// most `max_hits` (then `more`), files over `GREP_MAX_FILE_BYTES` skipped
    /// and named.
    pub fn grep(&self, query: &GrepQuery, max_hits: usize) -> Result<RawGrep, SubjectError> {
        let matcher = query
            .matcher()
            .map_err(|e| SubjectError::Backend(e.to_string()))?;
        if let Some(scope) = &query.scope {
            // Refuse a scope that leaves the root, with its reason.
            self.contain(scope)?;
        }
        let (entries, truncated_walk) = walk::walk(&self.root)?;
        let (hits, more, skipped) = walk::grep_files(
            &self.root,
            &entries,
            query.scope.as_ref(),
            &|line| matcher.is_match(line),
            max_hits,
        );
        Ok(RawGrep {
            hits,
            more: more || truncated_walk,
            skipped,
        })
    }

    /// Every file and symbolic link under the root (links not followed, `.git`
    /// never entered), sorted by path bytes; a walk cut at `WALK_MAX_ENTRIES`
    /// entries lists what it saw.
    pub fn list(&self) -> Result<Vec<ListEntry>, SubjectError> {
        Ok(walk::walk(&self.root)?.0)
    }
}
