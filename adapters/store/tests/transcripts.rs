//! Model-run transcripts kept with their lineage: named by their digest,
//! idempotent, and a transcript that is not what its digest says, or one
//! for no lineage, is refused with nothing written.

use probity_core::digest::Sha256Digest;
use probity_core::review::fixtures;
use probity_core::snapshot_tools::TRANSCRIPT_DOMAIN;
use probity_ports::review::{StoreError, TranscriptStore};

mod common;
use common::{created, files};

#[test]
fn a_transcript_is_kept_once_under_its_digest_and_a_wrong_one_is_refused() {
    let (dir, store, r) = created();
    let lineage = r.state().lineage_id().clone();
    let bytes = br#"[{"content":"frame","role":"system"}]"#;
    let digest = Sha256Digest::of(TRANSCRIPT_DOMAIN, bytes);
    let rel = store
        .keep_transcript(&lineage, "reliability", &digest, bytes)
        .unwrap();
    assert_eq!(
        rel,
        format!("{lineage}/transcripts/reliability-{}.json", digest.hex())
    );
    assert_eq!(std::fs::read(dir.path().join(&rel)).unwrap(), bytes);
    // Again: the same answer, nothing rewritten.
    assert_eq!(
        store
            .keep_transcript(&lineage, "reliability", &digest, bytes)
            .unwrap(),
        rel
    );
    let before = files(dir.path());
    let wrong = store
        .keep_transcript(&lineage, "reliability", &Sha256Digest::plain(b"x"), bytes)
        .unwrap_err();
    assert!(matches!(wrong, StoreError::Malformed { .. }), "{wrong}");
    let other = fixtures::budget_scenario().unwrap().lineage_id().clone();
    assert!(matches!(
        store.keep_transcript(&other, "reliability", &digest, bytes),
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        store.keep_transcript(&lineage, "../x", &digest, bytes),
        Err(StoreError::Malformed { .. })
    ));
    assert_eq!(files(dir.path()), before, "a refusal wrote");
}
