//! Ports a consumer implements in an afternoon (issue 25 §4): each driver
//! names only the ports it calls, so a consumer's adapters for start →
//! finalize → the pre-commit gate are a handful of methods.
//!
//! The bounds are checked by the compiler: each function below is generic
//! over exactly the traits a driver may require, and calls the driver; it
//! compiles only while the driver asks for no more. The count is read from
//! the consumer example (`ports/examples/consumer.rs`, the crate's
//! doctest), whose adapters are what a consumer writes.

use probity_core::review::Lens;
use probity_core::review::{CommitId, LineageId};
use probity_ports::review::{
    self as drivers, AdapterError, ChainStore, Clock, Delivery, ExportGit, FinalizeInput, GitPort,
    IndexStore, ReceiptStore, RecordStore, ResultStore, RevisionGit, UnknownRevision,
};

/// `start` asks of commits only `find_commit` (`RevisionGit`), and of the
/// store its records, chains and indexes: no receipts, no results, and
/// none of the publication gates' commits and ranges.
#[allow(dead_code)]
fn start_needs<G, S, C>(git: &G, store: &S, clock: &C)
where
    G: GitPort + ExportGit + RevisionGit,
    S: RecordStore + ChainStore + IndexStore,
    C: Clock,
{
    let _ = drivers::start(git, store, clock, Lens::Reliability);
}

/// `finalize` observes the worktree and its trees only (no commits, no
/// export), and uses every store trait.
#[allow(dead_code)]
fn finalize_needs<G, S>(git: &G, store: &S, lineage: LineageId)
where
    G: GitPort,
    S: RecordStore + ChainStore + IndexStore + ReceiptStore + ResultStore,
{
    let input = FinalizeInput {
        lineage: Some(lineage),
        ..Default::default()
    };
    let _ = drivers::finalize(git, store, input);
}

/// The pre-commit gate reads: records, chains, indexes and receipts, never
/// the submitted results; of Git, the worktree and the frozen trees'
/// presence (the escalation guard), no commits.
#[allow(dead_code)]
fn pre_commit_needs<G, S>(git: &G, store: &S)
where
    G: GitPort + ExportGit,
    S: RecordStore + ChainStore + IndexStore + ReceiptStore,
{
    let _ = drivers::validate_pre_commit(git, store, &Delivery::Worktree);
}

/// The methods written in each `impl Trait for Type` block of `source`
/// (a block's own `fn` items, at its top level), with the trait's name.
fn trait_impl_methods(source: &str) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut current: Option<usize> = None;
    for line in source.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("//") {
            continue;
        }
        if depth == 0
            && let Some(rest) = trimmed.strip_prefix("impl ")
            && let Some((name, _)) = rest.split_once(" for ")
        {
            out.push((name.trim().to_string(), 0));
            current = Some(out.len() - 1);
        } else if depth == 1
            && let Some(i) = current
            && trimmed.starts_with("fn ")
        {
            out[i].1 += 1;
        }
        depth += line.matches('{').count();
        depth = depth.saturating_sub(line.matches('}').count());
        if depth == 0 {
            current = None;
        }
    }
    out
}

#[test]
fn the_consumer_writes_at_most_fifteen_methods_for_start_finalize_pre_commit() {
    let example = include_str!("../examples/consumer.rs");
    let impls = trait_impl_methods(example);
    let written: usize = impls.iter().map(|(_, n)| n).sum();
    let traits: Vec<&str> = impls.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(
        traits,
        ["GitPort", "ExportGit", "RevisionGit", "Clock"],
        "the consumer example implements exactly the ports its drivers require"
    );
    assert!(
        written <= 15,
        "the consumer example writes {written} methods ({impls:?}); issue 25 §4: at most 15"
    );
    // docs/ARCHITECTURE.md states the count; keep it true.
    let doc = include_str!("../../docs/ARCHITECTURE.md");
    assert!(
        doc.contains(&format!("{written} methods")),
        "docs/ARCHITECTURE.md must state the consumer's {written} methods"
    );
}

#[test]
fn the_method_count_reads_trait_impl_blocks_only() {
    let source = "impl Repo {\n    fn helper() {}\n}\n\
                  impl GitPort for Repo {\n    fn a(&self) {\n        fn inner() {}\n    }\n    fn b(&self) {}\n}\n\
                  /// impl Not for This {\n\
                  impl Clock for C {\n    fn now(&self) {}\n}\n";
    assert_eq!(
        trait_impl_methods(source),
        [("GitPort".to_string(), 2), ("Clock".to_string(), 1)]
    );
}

/// A Git that knows one revision: `resolve_commit` is not written.
struct OneCommit(CommitId);

impl RevisionGit for OneCommit {
    fn find_commit(&self, rev: &str) -> Result<Option<CommitId>, AdapterError> {
        Ok((rev == "HEAD").then(|| self.0.clone()))
    }
}

#[test]
fn resolve_commit_is_find_commit_with_an_unknown_revision_an_error() {
    let head = CommitId::parse("0123456789abcdef0123456789abcdef01234567").unwrap();
    let git = OneCommit(head.clone());
    assert_eq!(git.resolve_commit("HEAD").unwrap(), head);
    let unknown = git.resolve_commit("no-such-branch").unwrap_err();
    assert_eq!(
        unknown.downcast_ref::<UnknownRevision>(),
        Some(&UnknownRevision {
            rev: "no-such-branch".into()
        })
    );
    assert!(
        unknown.to_string().contains("`no-such-branch`"),
        "{unknown}"
    );
}
