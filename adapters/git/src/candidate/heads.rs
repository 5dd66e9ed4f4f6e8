//! The changed blobs' sizes and leading bytes, for the candidate's limits
//! and its classification: sizes asked first (headers only), a blob or
//! worktree file over the reviewed-file limit refused before any content
//! is read, then the heads, the loose ones read in-process when that is
//! certainly git's answer ([`crate::loose`]). Moved out of `candidate.rs`
//! as it was (moves only).

use super::*;

impl Repo {
    /// Sizes first (`cat-file --batch-check`, headers only): a changed blob
    /// over the limit is refused before numstat or any read of its content.
    pub(super) fn refuse_oversized_blobs(&self, raw: &[RawEntry]) -> Result<(), GitError> {
        let blobs: Vec<(&RepoPath, &str)> = raw
            .iter()
            .flat_map(|e| {
                e.old_blob
                    .iter()
                    .chain(e.new_blob.iter())
                    .map(move |b| (&e.path, b.as_str()))
            })
            .collect();
        let ids: Vec<&str> = blobs.iter().map(|(_, b)| *b).collect();
        let sizes = self.object_sizes(&ids)?;
        match first_oversized(blobs.iter().map(|(p, _)| *p).zip(sizes)) {
            Some((path, size)) => Err(GitError::FileTooLarge {
                path: path.to_string(),
                size,
                limit: MAX_REVIEWED_FILE_BYTES,
            }),
            None => Ok(()),
        }
    }

    /// The work-tree files behind the new side of a start's raw diff (the
    /// files `git add -A` just hashed into the quarantine), sized by `stat`
    /// before their objects are kept or anything diffs or reads them: one
    /// over the limit is refused, named as git named it (escaped when not
    /// UTF-8). Only regular files are sized, as git stores a symlink's
    /// target, not what it points to.
    pub(super) fn refuse_oversized_worktree_files(&self, raw: &[u8]) -> Result<(), GitError> {
        let mut fields = raw.split(|b| *b == 0);
        let mut changed = Vec::new();
        while let Some(meta) = fields.next() {
            if meta.is_empty() {
                continue;
            }
            let Some(path) = fields.next() else { break };
            // `:old_mode new_mode ...`: a regular file on the new side.
            let new_mode = meta.split(|b| *b == b' ').nth(1);
            if matches!(new_mode, Some(b"100644" | b"100755")) {
                changed.push(path);
            }
        }
        let sized = changed.into_iter().filter_map(|p| {
            let meta = std::fs::symlink_metadata(path_from_bytes(self.root(), p)).ok()?;
            meta.is_file().then_some((p, meta.len()))
        });
        match first_oversized(sized) {
            Some((path, size)) => Err(GitError::FileTooLarge {
                path: escape_path(path),
                size,
                limit: MAX_REVIEWED_FILE_BYTES,
            }),
            None => Ok(()),
        }
    }

    /// The heads of a new start's changed blobs, both sides, with the
    /// limit checked on the sizes git answers (D-R100): the base side's
    /// sizes are asked first (headers only: a base blob over the limit is
    /// refused before its content is read), the candidate side's come
    /// with their content, in the same batch as the heads. The candidate
    /// side's files were sized by `stat` before anything read them
    /// ([`Self::refuse_oversized_worktree_files`]), so a second pass of
    /// headers over their 5,000 loose objects (a third of the reader's
    /// time) is not made. A base blob over the limit is named first, then
    /// the first candidate-side one in raw order (one a clean filter made
    /// larger than its file). The loose blobs within the head cap are read
    /// in-process, each once, when that is certainly git's answer
    /// ([`crate::loose`]): their sizes and heads are git's, and git is
    /// asked only for the others.
    pub(super) fn sized_heads(
        &self,
        raw: &[RawEntry],
    ) -> Result<Vec<(u64, Vec<u8>, bool)>, GitError> {
        let blobs: Vec<&str> = raw
            .iter()
            .flat_map(|e| e.old_blob.iter().chain(e.new_blob.iter()))
            .map(BlobId::as_str)
            .collect();
        // Loose blobs within the cap read in-process, each once, when that
        // is certainly git's answer ([`crate::loose`]); git is asked for
        // the others below, as before. None of them is over the limit.
        let mut found = self.loose_blobs(&blobs, CONTENT_CAP);
        self.fill_from_packs(&blobs, &mut found, CONTENT_CAP);
        let mut found_at = found.iter();
        let mut old_read: Vec<Option<u64>> = Vec::new();
        for e in raw {
            if e.old_blob.is_some() {
                old_read.push(
                    found_at
                        .next()
                        .and_then(|f| f.as_ref().map(|b| b.len() as u64)),
                );
            }
            if e.new_blob.is_some() {
                found_at.next();
            }
        }
        let old: Vec<&str> = raw
            .iter()
            .filter_map(|e| e.old_blob.as_ref().map(BlobId::as_str))
            .zip(&old_read)
            .filter(|(_, read)| read.is_none())
            .map(|(id, _)| id)
            .collect();
        let old_sizes = self.object_sizes(&old)?;
        let mut old_sizes_iter = old_sizes.iter();
        let mut sized: Vec<(&RepoPath, u64)> = Vec::new();
        let mut old_read_iter = old_read.iter();
        for e in raw {
            if e.old_blob.is_some() {
                let size = match old_read_iter.next() {
                    Some(Some(size)) => Some(*size),
                    _ => old_sizes_iter.next().copied(),
                };
                if let Some(size) = size {
                    sized.push((&e.path, size));
                }
            }
        }
        if let Some((path, size)) = first_oversized(sized.iter().copied()) {
            return Err(GitError::FileTooLarge {
                path: path.to_string(),
                size,
                limit: MAX_REVIEWED_FILE_BYTES,
            });
        }
        let heads = self.heads_with(&blobs, found, CONTENT_CAP)?;
        let mut at = 0usize;
        let mut all: Vec<(&RepoPath, u64)> = Vec::with_capacity(heads.len());
        for e in raw {
            for _ in e.old_blob.iter().chain(e.new_blob.iter()) {
                if let Some((size, _, _)) = heads.get(at) {
                    all.push((&e.path, *size));
                }
                at += 1;
            }
        }
        if let Some((path, size)) = first_oversized(all) {
            return Err(GitError::FileTooLarge {
                path: path.to_string(),
                size,
                limit: MAX_REVIEWED_FILE_BYTES,
            });
        }
        Ok(heads)
    }

    /// Which of `paths` the user's index holds with an object the store
    /// has, read in-process where that is certainly git's answer to
    /// `cat-file`'s `:<stage>:<path>`: the index parsed by [`crate::index`]
    /// (stage 0 only), and every entry found read whole through the
    /// in-process readers ([`crate::loose`], [`crate::packed`]; an object
    /// git could not read is then never taken as there). `None` leaves
    /// every path to git: an index the parser does not read (conflicts,
    /// intent to add, a split or sparse index, over 1 GiB), an unknown
    /// object format, an entry's object these readers do not answer (over
    /// the head cap, not a blob, shadowed by a pack).
    pub(crate) fn in_index_in_process(&self, paths: &[&RepoPath]) -> Option<HashSet<RepoPath>> {
        let hash_len = self.known_format()?.hash_len();
        let bytes =
            probity_scratch::input::read_regular(&self.git_dir().join("index"), 1 << 30).ok()?;
        let index = crate::index::read(&bytes, hash_len)?;
        let entries: Vec<(&RepoPath, String)> = paths
            .iter()
            .filter_map(|p| {
                let oid = index.oid_of(p.as_str().as_bytes())?;
                Some((*p, crate::index::hex(oid)))
            })
            .collect();
        let ids: Vec<&str> = entries.iter().map(|(_, id)| id.as_str()).collect();
        let objects = [self.common_dir().join("objects")];
        let mut read = self.loose_blobs_in(&objects, &ids, CONTENT_CAP);
        self.fill_from_packs(&ids, &mut read, CONTENT_CAP);
        if read.iter().any(Option::is_none) {
            return None;
        }
        Some(entries.into_iter().map(|(p, _)| p.clone()).collect())
    }

    /// Leading bytes of blobs: the loose ones within the cap read
    /// in-process when that is certainly git's answer ([`crate::loose`]),
    /// the others through one streamed batch of git's object reader.
    pub(super) fn blob_heads(
        &self,
        blobs: &[&BlobId],
    ) -> Result<Vec<(u64, Vec<u8>, bool)>, GitError> {
        let ids: Vec<&str> = blobs.iter().map(|b| b.as_str()).collect();
        self.blob_heads_sized(&ids, CONTENT_CAP)
    }
}
