//! The output of the last check `finalize --evidence-cmd` ran for a
//! lineage (issue 20 §1), kept so a failure can be read after the fact
//! (`probity show evidence`): bounded to the output's last
//! [`CHECK_OUTPUT_TAIL_BYTES`] bytes, with the whole output's length and
//! plain SHA-256 (what the evidence document binds).
//!
//! `<lineage>/check-output`: one line of JSON (the [`CheckOutputHeader`]),
//! a line feed, then the tail's raw bytes. Written atomically (temp file,
//! fsync, rename, directory fsync) just before the lineage takes the
//! check's evidence, put back as it was when the lineage does not take it,
//! and rewritten only when its bytes differ: a diagnostic beside the
//! authority, never read by a gate. (A retry of the same check reads it: a
//! lineage that took a check takes only that check again.)

use std::fs;
use std::io::Read;

use serde::{Deserialize, Serialize};

use probity_core::digest::Sha256Digest;
use probity_core::review::{LineageId, TreeId};
use probity_ports::review::{RecordStore, StoreError};

use crate::review_store::{FileStore, io, write_atomic};

/// How much of a check's output is kept: its last 64 KiB.
pub const CHECK_OUTPUT_TAIL_BYTES: usize = 64 * 1024;

/// The longest header line read back.
const MAX_HEADER_BYTES: usize = 64 * 1024;

/// The schema label of the kept output's header.
pub const CHECK_OUTPUT_SCHEMA: &str = "probity-check-output/v1";

/// What is kept about the check beside its output's tail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckOutputHeader {
    /// [`CHECK_OUTPUT_SCHEMA`].
    pub schema: String,
    /// The lineage that took the check's evidence.
    pub lineage_id: LineageId,
    /// The tree the check ran on.
    pub tree: TreeId,
    /// The check's argument vector.
    pub argv: Vec<String>,
    /// How it ended, as a sentence (`exit status 7`, `killed by signal 9`).
    pub exit: String,
    /// Whether it passed (exit status 0).
    pub passed: bool,
    /// Plain SHA-256 of the whole output.
    pub output_sha256: Sha256Digest,
    /// The whole output's length.
    pub output_bytes: u64,
    /// How many of its last bytes follow the header.
    pub tail_bytes: u64,
    /// The evidence hash the lineage recorded for the check.
    pub evidence_hash: Sha256Digest,
}

/// A kept check output: its header and its output's tail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckOutput {
    /// What the check was and how it ended.
    pub header: CheckOutputHeader,
    /// The output's last bytes.
    pub tail: Vec<u8>,
}

impl FileStore {
    fn check_output_path(&self, lineage: &LineageId) -> std::path::PathBuf {
        self.root().join(lineage.as_str()).join("check-output")
    }

    /// Keeps a check's output for `lineage` (an existing lineage): the
    /// header and the last [`CHECK_OUTPUT_TAIL_BYTES`] of `tail`. Returns
    /// the path, relative to the store root.
    pub fn keep_check_output(
        &self,
        header: &CheckOutputHeader,
        tail: &[u8],
    ) -> Result<String, StoreError> {
        let lineage = &header.lineage_id;
        if self.load(lineage)?.is_none() {
            return Err(StoreError::NotFound(lineage.clone()));
        }
        let tail = &tail[tail.len().saturating_sub(CHECK_OUTPUT_TAIL_BYTES)..];
        let header = CheckOutputHeader {
            tail_bytes: tail.len() as u64,
            ..header.clone()
        };
        let path = self.check_output_path(lineage);
        let mut bytes = serde_json::to_vec(&header).map_err(|e| StoreError::Malformed {
            path: path.display().to_string(),
            detail: e.to_string(),
        })?;
        bytes.push(b'\n');
        bytes.extend_from_slice(tail);
        let same = match fs::read(&path) {
            Ok(existing) => existing == bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
            Err(e) => return Err(io(&path)(e)),
        };
        if !same {
            write_atomic(&path, &bytes)?;
        }
        Ok(format!("{lineage}/check-output"))
    }

    /// The kept check output's bytes as they are on disk (bounded), to
    /// put back with [`Self::restore_check_output`] when the check they
    /// would have replaced is not taken.
    pub fn check_output_bytes(&self, lineage: &LineageId) -> Result<Option<Vec<u8>>, StoreError> {
        let path = self.check_output_path(lineage);
        let file = match fs::File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(&path)(e)),
        };
        let limit = (MAX_HEADER_BYTES + 1 + CHECK_OUTPUT_TAIL_BYTES) as u64;
        let mut bytes = Vec::new();
        file.take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(io(&path))?;
        if bytes.len() as u64 > limit {
            return Err(StoreError::Malformed {
                path: path.display().to_string(),
                detail: format!("over its {limit}-byte bound"),
            });
        }
        Ok(Some(bytes))
    }

    /// Puts back what [`Self::check_output_bytes`] read: those bytes, or no
    /// file at all.
    pub fn restore_check_output(
        &self,
        lineage: &LineageId,
        bytes: Option<&[u8]>,
    ) -> Result<(), StoreError> {
        let path = self.check_output_path(lineage);
        match bytes {
            Some(b) => write_atomic(&path, b),
            None => match fs::remove_file(&path) {
                Ok(()) => crate::review_store::sync_dir(&self.root().join(lineage.as_str())),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(io(&path)(e)),
            },
        }
    }

    /// The check output kept for `lineage`, if any.
    pub fn check_output(&self, lineage: &LineageId) -> Result<Option<CheckOutput>, StoreError> {
        let Some(bytes) = self.check_output_bytes(lineage)? else {
            return Ok(None);
        };
        let path = self.check_output_path(lineage);
        let malformed = |detail: String| StoreError::Malformed {
            path: path.display().to_string(),
            detail,
        };
        let nl = bytes
            .iter()
            .position(|b| *b == b'\n')
            .ok_or_else(|| malformed("no header line".into()))?;
        let header: CheckOutputHeader =
            serde_json::from_slice(&bytes[..nl]).map_err(|e| malformed(e.to_string()))?;
        let tail = bytes[nl + 1..].to_vec();
        if header.schema != CHECK_OUTPUT_SCHEMA
            || header.tail_bytes != tail.len() as u64
            || &header.lineage_id != lineage
        {
            return Err(malformed(
                "its header does not describe it (schema, lineage or tail length)".into(),
            ));
        }
        Ok(Some(CheckOutput { header, tail }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_output_is_none_and_a_lineage_must_exist() {
        let tmp = tempfile::tempdir().unwrap();
        let store = FileStore::at(tmp.path().to_path_buf());
        let l = LineageId::parse("review-0123456789abcdef").unwrap();
        assert_eq!(store.check_output(&l).unwrap(), None);
        let header = CheckOutputHeader {
            schema: CHECK_OUTPUT_SCHEMA.into(),
            lineage_id: l.clone(),
            tree: TreeId::parse("4b825dc642cb6eb9a060e54bf8d69288fbee4904").unwrap(),
            argv: vec!["true".into()],
            exit: "exit status 0".into(),
            passed: true,
            output_sha256: Sha256Digest::plain(b""),
            output_bytes: 0,
            tail_bytes: 0,
            evidence_hash: Sha256Digest::plain(b"x"),
        };
        assert!(matches!(
            store.keep_check_output(&header, b""),
            Err(StoreError::NotFound(_))
        ));
        assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 0);
    }
}
