//! Model-run transcripts (issue 10 §2): each kept with its lineage, named
//! by the role and its digest, written atomically and never rewritten.

use std::fs;

use probity_core::digest::Sha256Digest;
use probity_core::review::LineageId;
use probity_core::snapshot_tools::TRANSCRIPT_DOMAIN;
use probity_ports::review::{RecordStore, StoreError, TranscriptStore};

use crate::review_store::{FileStore, io, write_atomic};

/// The most bytes one transcript may have (a review's conversation is
/// bounded by its tool budget; this bounds what the store keeps): core's
/// bound, which the driver checks before it submits a role's answer.
pub use probity_core::review::MAX_TRANSCRIPT_BYTES;

impl TranscriptStore for FileStore {
    fn keep_transcript(
        &self,
        lineage: &LineageId,
        role: &str,
        digest: &Sha256Digest,
        bytes: &[u8],
    ) -> Result<String, StoreError> {
        if !role.bytes().all(|b| b.is_ascii_lowercase()) || role.is_empty() {
            return Err(StoreError::Malformed {
                path: format!("{lineage}/transcripts"),
                detail: format!("`{role}` is no role name"),
            });
        }
        if bytes.len() > MAX_TRANSCRIPT_BYTES {
            return Err(StoreError::Malformed {
                path: format!("{lineage}/transcripts"),
                detail: format!(
                    "a transcript of {} bytes is over the {MAX_TRANSCRIPT_BYTES}-byte bound",
                    bytes.len()
                ),
            });
        }
        if Sha256Digest::of(TRANSCRIPT_DOMAIN, bytes) != *digest {
            return Err(StoreError::Malformed {
                path: format!("{lineage}/transcripts"),
                detail: format!("the transcript's bytes do not digest to {digest}"),
            });
        }
        if self.load(lineage)?.is_none() {
            return Err(StoreError::NotFound(lineage.clone()));
        }
        let rel = format!("{lineage}/transcripts/{role}-{}.json", digest.hex());
        let path = self.root().join(&rel);
        match fs::read(&path) {
            // Named by its digest: the same name holds the same bytes.
            Ok(existing) if existing == bytes => return Ok(rel),
            Ok(_) => {
                return Err(StoreError::Malformed {
                    path: path.display().to_string(),
                    detail: "holds other bytes than the transcript its name digests".into(),
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io(&path)(e)),
        }
        write_atomic(&path, bytes)?;
        Ok(rel)
    }
}
