//! The reviewer, refuter and validator role documents (lens results): what
//! a model or an agent submits, read by `ReviewerResult::parse`,
//! `RefuterResult::parse`, `ValidatorResult::parse` and the checks the
//! review loop applies. Beyond not panicking: an accepted document's
//! canonical bytes read back to the same document, and the loop's checks
//! agree with the parsers.
#![no_main]

use libfuzzer_sys::fuzz_target;
use probity_core::canonical::canonical_bytes;
use probity_core::review::{RefuterResult, ReviewerResult, ValidatorResult};
use probity_core::review::{refuter_check, reviewer_check, validator_check};

fuzz_target!(|data: &[u8]| {
    let reviewer = ReviewerResult::parse(data);
    assert_eq!(reviewer.is_ok(), reviewer_check().check(data).is_ok());
    if let Ok(doc) = reviewer {
        let bytes = canonical_bytes(&doc).expect("a document has canonical bytes");
        assert_eq!(ReviewerResult::parse(&bytes).as_ref(), Ok(&doc));
    }
    if let Ok(doc) = RefuterResult::parse(data) {
        let bytes = canonical_bytes(&doc).expect("a document has canonical bytes");
        assert_eq!(RefuterResult::parse(&bytes).as_ref(), Ok(&doc));
        let pending: Vec<_> = doc.outcomes.iter().map(|o| o.finding_id.clone()).collect();
        assert!(
            refuter_check(pending).check(data).is_ok(),
            "a batch judging exactly its findings is refused"
        );
    }
    let validator = ValidatorResult::parse(data);
    assert_eq!(validator.is_ok(), validator_check().check(data).is_ok());
    if let Ok(doc) = validator {
        let bytes = canonical_bytes(&doc).expect("a document has canonical bytes");
        assert_eq!(ValidatorResult::parse(&bytes).as_ref(), Ok(&doc));
    }
});
