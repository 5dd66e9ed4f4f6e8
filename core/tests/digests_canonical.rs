//! "Hashed documents have canonical bytes" (docs/ARCHITECTURE.md, "core"),
//! read from the shipped sources of every crate that hashes: a
//! domain-separated digest (`Sha256Digest::of`) is of canonical bytes (its
//! function calls `canonical_bytes`/`canonical_digest`) unless its domain
//! is one of [`RAW_DOMAINS`], whose preimage is not a JSON document; a
//! plain SHA-256, a streamed hash, a digest wrapped from raw bytes or the
//! seed's own hashing happens only in [`RAW_SITES`]' files. A new digest
//! site fails here until it is of canonical bytes or argued in a list.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

#[path = "common/shipped.rs"]
mod shipped;

#[path = "common/sources.rs"]
mod sources;

/// Domains whose preimage is fixed bytes, not a document, the only files
/// that hash them so, and why. Elsewhere the same domain must be of
/// canonical bytes (the evidence document's own hash is).
const RAW_DOMAINS: &[(&str, &[&str], &str)] = &[
    (
        "EVIDENCE_DOMAIN",
        &[
            "ports/src/review/finalize.rs",
            "core/src/review/state/transition.rs",
            "core/src/review/receipt.rs",
            "adapters/cli/src/authority_cmd/finalize.rs",
            "adapters/cli/src/authority_cmd/evidence_cmd.rs",
        ],
        "evidence is the bytes a check produced or a file read as bytes (the empty preimage marks none)",
    ),
    (
        "DISPUTE_DOMAIN",
        &["adapters/cli/src/authority_cmd/dispute.rs"],
        "a dispute's evidence file, streamed",
    ),
    (
        "PROMPT_DOMAIN",
        &["core/src/review/prompts.rs"],
        "a prompt's text",
    ),
    (
        "HOOK_DOMAIN",
        &["core/src/review/hooks.rs"],
        "a managed hook script's bytes",
    ),
    (
        "BINDING_TOKEN_DOMAIN",
        &["core/src/review/submission.rs"],
        "a lens binding, a string",
    ),
    (
        "FIX_DELTA_DOMAIN",
        &["core/src/review/correction.rs"],
        "the empty preimage of no correction (a correction's delta is canonical)",
    ),
    (
        "TRANSCRIPT_DOMAIN",
        &[
            "adapters/store/src/transcripts.rs",
            "adapters/memstore/src/lib.rs",
        ],
        "a store re-derives the digest of the transcript bytes it is handed (made canonical by the review loop)",
    ),
];

/// Files that hash outside a domain (a plain or streamed SHA-256, a
/// digest wrapped from bytes, the context seed's record keys), and why.
const RAW_SITES: &[(&str, &str)] = &[
    ("core/src/digest.rs", "the digest types themselves"),
    (
        "core/src/context/types.rs",
        "the context seed fixes its record keys' and file digests' preimages",
    ),
    (
        "core/src/context/assemble/derived.rs",
        "the seed's manifest: each tree file's plain SHA-256 (the files are canonical JSON or raw text)",
    ),
    (
        "core/src/context/assemble/mod.rs",
        "the seed's collection and index digests, plain SHA-256 of canonical bytes",
    ),
    (
        "core/src/context/verify.rs",
        "the verifier re-derives the seed's plain file and index digests",
    ),
    (
        "core/src/conformance.rs",
        "conformance vectors name their own domain or none",
    ),
    (
        "core/src/review/correction.rs",
        "a fixed identity no real delta has, for canonical bytes that cannot fail",
    ),
    (
        "core/src/review/snapshot.rs",
        "the frozen diff's plain SHA-256 (an anchor of raw bytes); a fixed identity for canonical bytes that cannot fail",
    ),
    (
        "core/src/review/export.rs",
        "re-derives the frozen diff's plain SHA-256",
    ),
    (
        "core/src/review/preserved.rs",
        "a preserved payload's plain SHA-256",
    ),
    (
        "core/src/review/repair.rs",
        "the plain SHA-256 of a quarantined receipt file",
    ),
    (
        "core/src/review/attest.rs",
        "an in-toto subject digest is the plain SHA-256 of the manifest bytes",
    ),
    (
        "core/src/review/dsse.rs",
        "an SSH key fingerprint, as ssh-keygen prints it",
    ),
    (
        "adapters/cli/src/authority_cmd/evidence_cmd.rs",
        "a check's output streamed into its plain SHA-256",
    ),
    (
        "adapters/cli/src/authority_cmd/finalize.rs",
        "an evidence file streamed under EVIDENCE_DOMAIN",
    ),
    (
        "adapters/cli/src/authority_cmd/dispute.rs",
        "a dispute's evidence streamed under DISPUTE_DOMAIN",
    ),
    (
        "adapters/cli/src/authority_cmd/validate.rs",
        "a release manifest file's plain SHA-256",
    ),
    (
        "adapters/store/src/artifacts.rs",
        "release artifact files, streamed",
    ),
    (
        "adapters/store/src/repair.rs",
        "the plain SHA-256 of a file moved to quarantine",
    ),
    (
        "adapters/memstore/src/lib.rs",
        "the plain SHA-256 of a record moved to quarantine",
    ),
    (
        "adapters/store/src/context_dir.rs",
        "a written context file's plain SHA-256, as the seed's manifest fixes",
    ),
    (
        "adapters/git/src/index.rs",
        "objects hashed as git names them (a SHA-256 repository): an index's trees, and a work-tree file's blob for the live candidate (D-R152)",
    ),
    (
        "adapters/git/src/loose.rs",
        "a loose object's bytes hashed as git names objects (a SHA-256 repository), to know it is the object its id says (D-R148)",
    ),
];

/// The crates whose shipped code is read (the test kit and fuzz targets
/// are not shipped).
const SOURCES: &[&str] = &[
    "core/src",
    "ports/src",
    "adapters/cli/src",
    "adapters/memstore/src",
    "adapters/store/src",
    "adapters/git/src",
    "adapters/forge/src",
    "adapters/mcp/src",
    "adapters/model/src",
    "adapters/scratch/src",
];

/// Calls that hash or wrap bytes outside a domain.
const RAW_CALLS: &[&str] = &[
    "Sha256Digest::plain(",
    "PlainSha256",
    "Sha256Digest::from_bytes(",
    "Sha256::new(",
    "Sha256::digest(",
    "HexDigest::of(",
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The text of the call's parentheses that opens at `open` (balanced).
fn call_args(code: &str, open: usize) -> &str {
    let mut depth = 0usize;
    for (i, c) in code[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return &code[open + 1..open + i];
                }
            }
            _ => {}
        }
    }
    &code[open + 1..]
}

/// The code from the last `fn ` before `at` to `at` (the enclosing
/// function's text so far).
fn enclosing_fn(code: &str, at: usize) -> &str {
    let start = code[..at].rfind("fn ").unwrap_or(0);
    &code[start..at]
}

/// One `Sha256Digest::of` call: where, its domain argument, and whether
/// its preimage is visibly canonical.
#[derive(Debug)]
struct DomainSite {
    at: String,
    domain: String,
    canonical: bool,
}

fn scan(rel: &str, code: &str, domains: &mut Vec<DomainSite>, raw: &mut BTreeSet<String>) {
    // A whole preimage, or one streamed in pieces (never a document).
    for (call, streamed) in [("Sha256Digest::of(", false), ("DomainSha256::new(", true)] {
        for (at, _) in code.match_indices(call) {
            let args = call_args(code, at + call.len() - 1);
            let domain = args.split(',').next().unwrap_or("").trim().to_string();
            let line = code[..at].matches('\n').count() + 1;
            let around = format!("{}{args}", enclosing_fn(code, at));
            domains.push(DomainSite {
                at: format!("{rel}:{line}"),
                domain,
                canonical: !streamed
                    && (around.contains("canonical_bytes") || around.contains("canonical_digest")),
            });
        }
    }
    for call in RAW_CALLS {
        if code.contains(call) {
            raw.insert(rel.to_string());
        }
    }
}

fn sites() -> (Vec<DomainSite>, BTreeSet<String>) {
    let root = workspace();
    let mut domains = Vec::new();
    let mut raw = BTreeSet::new();
    for dir in SOURCES {
        let mut files = Vec::new();
        sources::rust_files(&root.join(dir), &mut files);
        // Test modules and test folders are not shipped.
        files.retain(|f| {
            let p = f.to_string_lossy();
            !p.contains("/tests/") && !p.ends_with("/tests.rs") && !p.ends_with("_tests.rs")
        });
        assert!(!files.is_empty(), "no sources under {dir}");
        for f in files {
            let rel = f
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let code = shipped::shipped_code(&std::fs::read_to_string(&f).unwrap());
            scan(&rel, &code, &mut domains, &mut raw);
        }
    }
    (domains, raw)
}

#[test]
fn every_domain_digest_is_of_canonical_bytes_or_of_a_listed_raw_domain() {
    let (domains, _) = sites();
    assert!(
        domains.len() >= 15,
        "found only {} digest sites",
        domains.len()
    );
    let argued = |s: &DomainSite| {
        RAW_DOMAINS.iter().any(|(d, files, _)| {
            *d == s.domain && files.iter().any(|f| s.at.starts_with(&format!("{f}:")))
        })
    };
    let conformance_vectors = "core/src/conformance.rs:";
    let bad: Vec<&DomainSite> = domains
        .iter()
        .filter(|s| !s.canonical && !argued(s))
        .filter(|s| !s.at.starts_with(conformance_vectors))
        .collect();
    assert!(
        bad.is_empty(),
        "a document digest must be of canonical bytes (`canonical_bytes`/`canonical_digest`), \
         or its domain argued in RAW_DOMAINS: {bad:#?}"
    );
    // Every listed raw domain is still hashed raw somewhere: the list holds
    // no stale argument.
    for (d, files, _) in RAW_DOMAINS {
        for f in *files {
            assert!(
                domains
                    .iter()
                    .any(|s| s.domain == *d && !s.canonical && s.at.starts_with(&format!("{f}:"))),
                "{d} is listed as hashed raw in {f}, which no longer does"
            );
        }
    }
}

#[test]
fn plain_streamed_and_wrapped_digests_only_in_the_argued_files() {
    let (_, raw) = sites();
    let listed: BTreeSet<String> = RAW_SITES.iter().map(|(f, _)| f.to_string()).collect();
    let unlisted: Vec<&String> = raw.difference(&listed).collect();
    assert!(
        unlisted.is_empty(),
        "hashing outside a domain in files RAW_SITES does not argue: {unlisted:?}"
    );
    let stale: Vec<&String> = listed.difference(&raw).collect();
    assert!(
        stale.is_empty(),
        "RAW_SITES lists files that no longer hash raw: {stale:?}"
    );
}

#[test]
fn the_scan_sees_a_planted_raw_document_digest() {
    let planted = "fn receipt_id(r: &Receipt) -> Sha256Digest {\n    \
                   Sha256Digest::of(RECEIPT_DOMAIN, &serde_json::to_vec(r).unwrap())\n}\n\
                   fn fine(r: &Receipt) -> Sha256Digest {\n    \
                   Sha256Digest::of(RECEIPT_DOMAIN, &canonical_bytes(r).unwrap())\n}\n\
                   fn file(b: &[u8]) -> Sha256Digest { Sha256Digest::plain(b) }\n";
    let mut domains = Vec::new();
    let mut raw = BTreeSet::new();
    scan("x.rs", planted, &mut domains, &mut raw);
    assert_eq!(domains.len(), 2);
    assert_eq!(domains[0].domain, "RECEIPT_DOMAIN");
    assert!(!domains[0].canonical, "{domains:?}");
    assert!(domains[1].canonical, "{domains:?}");
    assert_eq!(raw.into_iter().collect::<Vec<_>>(), ["x.rs"]);
}
