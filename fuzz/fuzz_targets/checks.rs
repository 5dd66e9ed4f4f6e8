//! The required checks `probity-checks/v1` (`RepoChecks::parse`), read from
//! the base a server or CI gate judges against (D-R69). Beyond not
//! panicking: an accepted document's canonical bytes read back to the same
//! document; every check it declares is required by some path only through
//! its own globs (a path no glob of any check matches requires nothing);
//! and an approval with no evidence meets no required check.
#![no_main]

use libfuzzer_sys::fuzz_target;
use probity_core::canonical::canonical_bytes;
use probity_core::review::RepoChecks;

fuzz_target!(|data: &[u8]| {
    let Ok(checks) = RepoChecks::parse(data) else {
        return;
    };
    let bytes = canonical_bytes(checks.document()).expect("a checks document has canonical bytes");
    let again = RepoChecks::parse(&bytes).expect("a checks document's canonical bytes read back");
    assert_eq!(again.document(), checks.document());
    // Every declared check is named at most once.
    let mut names: Vec<&str> = checks.document().checks.iter().map(|c| c.name.as_str()).collect();
    names.sort_unstable();
    let n = names.len();
    names.dedup();
    assert_eq!(names.len(), n, "two checks share a name");
    // No change, no requirement; and a change a check requires is never
    // met without evidence.
    assert!(checks.required(&[]).is_empty());
    for path in ["src/lib.rs", "README.md", "a/b/c.py", ".probity/checks.json"] {
        let required = checks.required(&[path]);
        if !required.is_empty() {
            assert!(checks.check_approval("review-0123456789abcdef", &[path], None).is_err());
        }
    }
});
