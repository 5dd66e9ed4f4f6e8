//! A library consumer's whole review on adapters it brings itself:
//! start → finalize (a clean lens result, then independent evidence) → the
//! pre-commit gate, with no process, file or clock of the machine involved.
//!
//! Each driver names only the ports it calls. For these three the consumer
//! writes 15 methods: its Git is `GitPort` (9: observing the worktree and
//! its trees), `ExportGit` (3: the frozen diff start anchors, whether trees
//! are still here, the derivation fingerprint) and `RevisionGit` (1:
//! `find_commit`, what `start` asks of commits); its clock is `Clock` (2).
//! The Git here is an in-memory repository fixed at one commit (HEAD, the
//! base tree) and one candidate. The commits, ranges and remotes only the
//! publication gates ask about (`CommitGit`, `RangeGit`) and an export's
//! manifest (`ManifestGit`) are not implemented: no driver used here
//! requires them.
//!
//! The store is `probity-memstore`'s `InMemoryStore`: the reference
//! implementation of the store traits (`RecordStore`, `ChainStore`,
//! `IndexStore`, `ReceiptStore`, `ResultStore`), held to the same
//! conformance suite as the file store, whose compare-and-swap, indexes and
//! receipts are more than an example should re-implement.
//!
//! Run it with `cargo run -p probity-ports --example consumer`; it is also
//! the crate's doctest (`ports/src/lib.rs` includes this file).

use std::collections::{BTreeMap, BTreeSet};
use std::error::Error;

use probity_core::digest::{Domain, Sha256Digest};
use probity_core::review::Hunk;
use probity_core::review::Lens;
use probity_core::review::{
    CandidateContent, CandidateObservation, ChangedFile, FileMode, LineCount, LiveTarget,
};
use probity_core::review::{CommitId, IdError, Nonce, ObjectId, RepoPath, Timestamp, TreeId};
use probity_core::review::{Decision, ReasonCode};
use probity_core::review::{DeltaEntry, EntrySide};
use probity_memstore::InMemoryStore;
use probity_ports::review::{
    self as review, AdapterError, Clock, Delivery, EvidenceInput, ExportGit, FinalizeInput,
    GitPort, LensResultInput, NamedInput, ReviewError, RevisionGit, TreeSpan,
};

/// The files of one tree: path → bytes (regular files only).
type Files = BTreeMap<RepoPath, Vec<u8>>;

/// A path whose content differs between two trees, with both sides
/// (`None` where it is absent).
type Change<'a> = (RepoPath, Option<&'a Vec<u8>>, Option<&'a Vec<u8>>);

/// The consumer's Git: a repository fixed at one commit (HEAD, whose tree
/// is the base) and one candidate (what a commit would deliver now), both
/// in memory. An edit is another value ([`Repo::edited`]) that still knows
/// the trees before it, as a real repository keeps its objects.
struct Repo {
    trees: BTreeMap<TreeId, Files>,
    base: TreeId,
    candidate: TreeId,
}

const TREE: Domain = Domain::new("consumer-example/tree");
const BLOB: Domain = Domain::new("consumer-example/blob");
const COMMIT: Domain = Domain::new("consumer-example/commit");

/// A blob's id: its content's digest (this repository hashes SHA-256, so
/// ids are 64 hex characters).
fn blob_id(bytes: &[u8]) -> Result<ObjectId, IdError> {
    ObjectId::parse(Sha256Digest::of(BLOB, bytes).hex())
}

/// A tree's id: the digest of its listing, so equal trees have equal ids.
fn tree_id(files: &Files) -> Result<TreeId, IdError> {
    let mut listing = Vec::new();
    for (path, bytes) in files {
        let blob = blob_id(bytes)?;
        listing.extend_from_slice(format!("{path}\0{blob}\n").as_bytes());
    }
    TreeId::parse(Sha256Digest::of(TREE, &listing).hex())
}

fn files(entries: &[(&str, &str)]) -> Result<Files, IdError> {
    entries
        .iter()
        .map(|(path, text)| Ok((RepoPath::parse(*path)?, text.as_bytes().to_vec())))
        .collect()
}

fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes.split_inclusive(|b| *b == b'\n').collect()
}

/// The one hunk between two texts: the lines removed and the lines added
/// between their common prefix and suffix. Not git's minimal diff, but a
/// consistent one, which is all the drivers compare.
fn changed_lines<'a>(old: &'a [u8], new: &'a [u8]) -> (Vec<&'a [u8]>, Vec<&'a [u8]>) {
    let (old, new) = (lines(old), lines(new));
    let prefix = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    (
        old[prefix..old.len() - suffix].to_vec(),
        new[prefix..new.len() - suffix].to_vec(),
    )
}

/// The new-side hunk of the same change: where the lines added start
/// (1-based; for a pure deletion the line after which lines were removed)
/// and how many there are; none when the texts are equal.
fn hunk(old: &[u8], new: &[u8]) -> Option<Hunk> {
    if old == new {
        return None;
    }
    let (old_lines, new_lines) = (lines(old), lines(new));
    let prefix = old_lines
        .iter()
        .zip(&new_lines)
        .take_while(|(a, b)| a == b)
        .count() as u64;
    let added = changed_lines(old, new).1.len() as u64;
    Some(Hunk {
        start: if added == 0 { prefix } else { prefix + 1 },
        count: added,
    })
}

/// One side's bytes; an absent path is empty.
fn bytes(side: Option<&Vec<u8>>) -> &[u8] {
    side.map_or(&[], Vec::as_slice)
}

fn content(side: Option<&Vec<u8>>) -> CandidateContent {
    match side {
        Some(bytes) => CandidateContent::Bytes {
            bytes: bytes.clone(),
            complete: true,
        },
        None => CandidateContent::Absent,
    }
}

fn entry(side: Option<&Vec<u8>>) -> Result<Option<EntrySide>, IdError> {
    side.map(|bytes| {
        Ok(EntrySide {
            mode: FileMode::Regular,
            object: blob_id(bytes)?,
        })
    })
    .transpose()
}

impl Repo {
    /// A repository whose HEAD holds `base` and whose worktree holds
    /// `candidate`.
    fn new(base: &[(&str, &str)], candidate: &[(&str, &str)]) -> Result<Self, IdError> {
        let base = files(base)?;
        let base_id = tree_id(&base)?;
        let repo = Repo {
            trees: BTreeMap::from([(base_id.clone(), base)]),
            candidate: base_id.clone(),
            base: base_id,
        };
        repo.edited(candidate)
    }

    /// The same repository after the worktree became `candidate`.
    fn edited(&self, candidate: &[(&str, &str)]) -> Result<Self, IdError> {
        let candidate = files(candidate)?;
        let id = tree_id(&candidate)?;
        let mut trees = self.trees.clone();
        trees.insert(id.clone(), candidate);
        Ok(Repo {
            trees,
            base: self.base.clone(),
            candidate: id,
        })
    }

    fn tree(&self, id: &TreeId) -> Result<&Files, AdapterError> {
        self.trees
            .get(id)
            .ok_or_else(|| format!("no tree {id} in the consumer example's Git").into())
    }

    /// Each path whose content differs between two trees.
    fn changes(&self, span: TreeSpan<'_>) -> Result<Vec<Change<'_>>, AdapterError> {
        let (from, to) = (self.tree(span.from)?, self.tree(span.to)?);
        let paths: BTreeSet<&RepoPath> = from.keys().chain(to.keys()).collect();
        Ok(paths
            .into_iter()
            .map(|p| (p.clone(), from.get(p), to.get(p)))
            .filter(|(_, a, b)| a != b)
            .collect())
    }
}

impl GitPort for Repo {
    fn observe_candidate(&self) -> Result<CandidateObservation, AdapterError> {
        Ok(CandidateObservation {
            base_tree: self.base.clone(),
            candidate_tree: self.candidate.clone(),
            unborn_head: false,
            changed: self.diff_files(TreeSpan {
                from: &self.base,
                to: &self.candidate,
            })?,
            intended_untracked: Vec::new(),
        })
    }

    fn live_target(&self) -> Result<LiveTarget, AdapterError> {
        Ok(LiveTarget::new(self.base.clone(), self.candidate.clone()))
    }

    fn staged_target(&self, _index: &std::path::Path) -> Result<LiveTarget, AdapterError> {
        // Whatever is staged, a commit here delivers the candidate.
        self.live_target()
    }

    fn differing_paths(&self, span: TreeSpan<'_>) -> Result<Vec<RepoPath>, AdapterError> {
        Ok(self.changes(span)?.into_iter().map(|(p, _, _)| p).collect())
    }

    fn tree_delta(&self, span: TreeSpan<'_>) -> Result<Option<Vec<DeltaEntry>>, AdapterError> {
        let mut delta = Vec::new();
        for (path, base, candidate) in self.changes(span)? {
            delta.push(DeltaEntry {
                path,
                base: entry(base)?,
                candidate: entry(candidate)?,
            });
        }
        Ok(Some(delta))
    }

    fn diff_files(&self, span: TreeSpan<'_>) -> Result<Vec<ChangedFile>, AdapterError> {
        let changed = self.changes(span)?.into_iter().map(|(path, old, new)| {
            let (removed, added) = changed_lines(bytes(old), bytes(new));
            let (added, removed) = (added.len() as u64, removed.len() as u64);
            let (base_content, content) = (content(old), content(new));
            ChangedFile {
                path,
                old_mode: old.map(|_| FileMode::Regular),
                new_mode: new.map(|_| FileMode::Regular),
                lines: LineCount::classify(added, removed, &base_content, &content),
                text_lines: added + removed,
                content,
                base_content,
            }
        });
        Ok(changed.collect())
    }

    /// What finalize measures a correction's causal claims with.
    fn hunks(&self, span: TreeSpan<'_>, path: &RepoPath) -> Result<Vec<Hunk>, AdapterError> {
        let (old, new) = (
            self.tree(span.from)?.get(path),
            self.tree(span.to)?.get(path),
        );
        Ok(hunk(bytes(old), bytes(new)).into_iter().collect())
    }

    fn line_count(&self, tree: &TreeId, path: &RepoPath) -> Result<Option<u64>, AdapterError> {
        Ok(self
            .tree(tree)?
            .get(path)
            .map(|bytes| lines(bytes).len() as u64))
    }

    fn read_path(
        &self,
        tree: &TreeId,
        path: &str,
        cap: usize,
    ) -> Result<Option<Vec<u8>>, AdapterError> {
        // The repository policy (`.probity/policy.json`) is read this way.
        let Ok(path) = RepoPath::parse(path) else {
            return Ok(None);
        };
        Ok(self
            .tree(tree)?
            .get(&path)
            .map(|bytes| bytes[..bytes.len().min(cap + 1)].to_vec()))
    }
}

/// The frozen diff start anchors (and an export would show), whether the
/// frozen trees are still here, and the derivation's fingerprint.
impl ExportGit for Repo {
    fn missing_objects(&self, _: &[String]) -> Result<Vec<String>, AdapterError> {
        // Nothing is ever pruned from memory.
        Ok(Vec::new())
    }
    /// The patch start anchors and an export shows: a function of the two
    /// trees only (per path its header, then the lines removed and added).
    fn frozen_diff(&self, span: TreeSpan<'_>, cap: u64) -> Result<Option<Vec<u8>>, AdapterError> {
        let mut patch = Vec::new();
        for (path, old, new) in self.changes(span)? {
            let (removed, added) = changed_lines(bytes(old), bytes(new));
            patch.extend_from_slice(format!("diff --git a/{path} b/{path}\n").as_bytes());
            let signed = removed.iter().map(|l| (b'-', l));
            for (sign, line) in signed.chain(added.iter().map(|l| (b'+', l))) {
                patch.push(sign);
                patch.extend_from_slice(line);
            }
        }
        Ok((patch.len() as u64 <= cap).then_some(patch))
    }
    fn version(&self) -> Result<String, AdapterError> {
        Ok("consumer-example in-memory git".into())
    }
}

/// Naming commits: this repository has one, HEAD (the base tree's
/// commit), which is what `start` asks for when nothing is uncommitted;
/// any other revision names no commit here.
impl RevisionGit for Repo {
    fn find_commit(&self, rev: &str) -> Result<Option<CommitId>, AdapterError> {
        if rev != "HEAD" {
            return Ok(None);
        }
        let head = Sha256Digest::of(COMMIT, self.base.to_string().as_bytes());
        Ok(Some(CommitId::parse(head.hex())?))
    }
}

/// The consumer's clock: the time and nonce are all a start does not
/// derive (a lineage id is a function of the candidate and these).
struct Frozen {
    nonce: Nonce,
}

impl Clock for Frozen {
    fn now(&self) -> Timestamp {
        Timestamp::from_unix_seconds(1_796_000_000)
    }
    fn nonce(&self) -> Nonce {
        self.nonce.clone()
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    let doc = |name: &str, bytes: &[u8]| NamedInput {
        name: name.into(),
        bytes: bytes.to_vec(),
    };
    let clock = Frozen {
        nonce: Nonce::parse("0123456789abcdef0123456789abcdef")?,
    };

    // A repository with one committed file and a change to it in the worktree.
    let base = [("src/lib.rs", "pub fn a() {}\n")];
    let git = Repo::new(
        &base,
        &[(
            "src/lib.rs",
            "pub fn a() {}\npub fn b() {}\npub fn c() {}\n",
        )],
    )?;
    let store = InMemoryStore::new();

    // Nothing uncommitted: start names HEAD (found through `find_commit`)
    // so the answer can lead to `start --commit`; nothing is written.
    let clean = Repo::new(&base, &base)?;
    let nothing = review::start(&clean, &store, &clock, Lens::Reliability);
    assert!(matches!(
        nothing,
        Err(ReviewError::NothingUncommitted { .. })
    ));
    assert!(store.dump().is_empty());

    // start: freezes the candidate, classifies its risk, selects the lenses.
    let started = review::start(&git, &store, &clock, Lens::Reliability)?;
    let lineage = started.record.state().lineage_id().clone();
    assert_eq!(
        started.record.state().frozen().selected_lenses,
        [Lens::Reliability]
    );

    // finalize: the lens's strict JSON result (a model or a person wrote it)...
    let clean = br#"{"findings":[],"evidence":["read the whole diff"]}"#;
    let judged = review::finalize(
        &git,
        &store,
        FinalizeInput {
            lineage: Some(lineage.clone()),
            results: vec![LensResultInput::named(
                Lens::Reliability,
                doc("reliability.json", clean),
            )],
            ..Default::default()
        },
    )?;
    assert_eq!(judged.record.state().stage().name(), "validating");

    // ...then evidence from an independent mechanism (a test run's log).
    let approved = review::finalize(
        &git,
        &store,
        FinalizeInput {
            lineage: Some(lineage.clone()),
            evidence: Some(EvidenceInput::Bytes(doc(
                "cargo-test.log",
                b"test result: ok\n",
            ))),
            ..Default::default()
        },
    )?;
    assert_eq!(approved.record.state().stage().name(), "approved");
    assert!(approved.receipt_location.is_some());

    // The gate re-derives the live candidate: the receipt binds exactly it.
    let gate = review::validate_pre_commit(&git, &store, &Delivery::Worktree)?;
    assert_eq!(
        (gate.decision(), gate.reason_code()),
        (Decision::Allow, ReasonCode::ReceiptValid)
    );

    // One more edit of a reviewed file, and the same gate denies.
    let edited = git.edited(&[(
        "src/lib.rs",
        "pub fn a() {}\npub fn b() {}\npub fn c() -> u8 { 3 }\n",
    )])?;
    let gate = review::validate_pre_commit(&edited, &store, &Delivery::Worktree)?;
    assert_eq!(
        (gate.decision(), gate.reason_code()),
        (Decision::Deny, ReasonCode::ReceiptScopeChanged)
    );

    println!("{lineage}: approved; the gate allows its candidate and denies one more edit");
    Ok(())
}
