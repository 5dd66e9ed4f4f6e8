//! `export_context` (R10.2) on in-memory adapters: the frozen context of
//! any lineage the store holds, re-derived from Git and checked against
//! what start froze, read-only; every refusal typed, nothing written.

mod common;

use common::*;
use probity_core::digest::Sha256Digest;
use probity_core::review::Applicability;
use probity_core::review::DeltaEntry;
use probity_core::review::Hunk;
use probity_core::review::Symlink;
use probity_core::review::{CandidateObservation, ChangedFile, LiveTarget};
use probity_core::review::{
    EXPORT_SCHEMA, ExportError, MAX_DIFF_BYTES, ManifestEntry, base64, export_command,
};
use probity_core::review::{LineageId, RepoPath, TreeId};
use probity_ports::review::{
    self as drivers, AdapterError, ExportGit, GitPort, ManifestGit, RecordStore, ReviewError,
    StoreError, TreeSpan,
};
use probity_testkit::{FAKE_GIT_VERSION, FakeGit, FixedClock, WithAttestations};

/// How [`Rendering`] departs from the fake Git it wraps.
#[derive(Debug, Clone)]
enum Departure {
    /// The diff rendered with a byte more (another git, other output).
    OtherDiff,
    /// The diff over the export budget.
    OverBudget,
    /// The manifest lists one path fewer than the trees change.
    ShortManifest,
    /// These object ids are pruned.
    Pruned(Vec<String>),
}

/// A Git that renders the frozen trees otherwise than start saw them: what
/// another machine's git (or a pruned clone) would answer.
struct Rendering<'a> {
    git: &'a FakeGit,
    departure: Departure,
}

impl GitPort for Rendering<'_> {
    fn observe_candidate(&self) -> Result<CandidateObservation, AdapterError> {
        self.git.observe_candidate()
    }
    fn live_target(&self) -> Result<LiveTarget, AdapterError> {
        self.git.live_target()
    }
    fn staged_target(&self, index: &std::path::Path) -> Result<LiveTarget, AdapterError> {
        self.git.staged_target(index)
    }
    fn differing_paths(&self, span: TreeSpan<'_>) -> Result<Vec<RepoPath>, AdapterError> {
        self.git.differing_paths(span)
    }
    fn tree_delta(&self, span: TreeSpan<'_>) -> Result<Option<Vec<DeltaEntry>>, AdapterError> {
        self.git.tree_delta(span)
    }
    fn diff_files(&self, span: TreeSpan<'_>) -> Result<Vec<ChangedFile>, AdapterError> {
        self.git.diff_files(span)
    }
    fn symlinks(&self, trees: &[&TreeId]) -> Result<Vec<Vec<Symlink>>, AdapterError> {
        self.git.symlinks(trees)
    }
    fn hunks(&self, span: TreeSpan<'_>, path: &RepoPath) -> Result<Vec<Hunk>, AdapterError> {
        self.git.hunks(span, path)
    }
    fn line_count(&self, tree: &TreeId, path: &RepoPath) -> Result<Option<u64>, AdapterError> {
        self.git.line_count(tree, path)
    }

    fn read_path(
        &self,
        tree: &TreeId,
        path: &str,
        cap: usize,
    ) -> Result<Option<Vec<u8>>, AdapterError> {
        self.git.read_path(tree, path, cap)
    }
}

impl ExportGit for Rendering<'_> {
    fn missing_objects(&self, ids: &[String]) -> Result<Vec<String>, AdapterError> {
        let mut missing = self.git.missing_objects(ids)?;
        if let Departure::Pruned(pruned) = &self.departure {
            missing.extend(ids.iter().filter(|i| pruned.contains(i)).cloned());
        }
        Ok(missing)
    }

    fn frozen_diff(&self, span: TreeSpan<'_>, cap: u64) -> Result<Option<Vec<u8>>, AdapterError> {
        let diff = self.git.frozen_diff(span, cap)?;
        Ok(match self.departure {
            Departure::OtherDiff => diff.map(|mut d| {
                d.push(b'\n');
                d
            }),
            Departure::OverBudget => None,
            _ => diff,
        })
    }

    fn version(&self) -> Result<String, AdapterError> {
        Ok(match self.departure {
            Departure::OtherDiff | Departure::OverBudget => "git version 9.9.9 (another)".into(),
            _ => self.git.version()?,
        })
    }
}

impl ManifestGit for Rendering<'_> {
    fn manifest(&self, span: TreeSpan<'_>) -> Result<Vec<ManifestEntry>, AdapterError> {
        let mut m = self.git.manifest(span)?;
        if let Departure::ShortManifest = self.departure {
            m.pop();
        }
        Ok(m)
    }
}

/// The export of `l` through `git`, refused, the store unchanged by it.
fn refused<G: GitPort + ExportGit + ManifestGit>(w: &World, git: &G, l: &LineageId) -> ReviewError {
    let held = w.store.dump();
    let err = drivers::export_context(git, &w.store, l).unwrap_err();
    assert_eq!(w.store.dump(), held, "a refused export wrote to the store");
    err
}

fn rendering(w: &World, departure: Departure) -> Rendering<'_> {
    Rendering {
        git: &w.git,
        departure,
    }
}

#[test]
fn a_started_lineage_exports_its_frozen_diff_and_manifest_and_writes_nothing() {
    let w = world();
    let record = w.start();
    let l = record.state().lineage_id().clone();
    let snap = record.state().snapshot().clone();
    let held = w.store.dump();
    let exported = drivers::export_context(&w.git, &w.store, &l).unwrap();
    let diff = w
        .git
        .frozen_diff(TreeSpan::from(&snap), MAX_DIFF_BYTES)
        .unwrap()
        .unwrap();
    assert!(!diff.is_empty());
    assert_eq!(exported.diff, diff);
    let e = &exported.envelope;
    assert_eq!(e.schema, EXPORT_SCHEMA);
    assert_eq!(
        (&e.lineage_id, e.revision, e.generation),
        (&l, record.revision(), 1)
    );
    assert_eq!(e.state, "reviewing");
    assert_eq!(e.applicability, Applicability::Current);
    assert_eq!(e.snapshot, snap);
    assert_eq!(e.candidate_diff.data, base64(&diff));
    assert_eq!(e.candidate_diff.sha256, Sha256Digest::plain(&diff));
    assert_eq!(e.candidate_diff.byte_size, diff.len() as u64);
    assert_eq!(
        e.changed_path_manifest,
        w.git.manifest(TreeSpan::from(&snap)).unwrap()
    );
    assert_eq!(e.derivation.command, export_command());
    assert_eq!(e.derivation.git_version, FAKE_GIT_VERSION);
    // The diff is the one start anchored.
    assert_eq!(
        snap.diff.as_ref().map(|a| a.sha256),
        Some(e.candidate_diff.sha256)
    );
    assert_eq!(w.store.dump(), held, "an export wrote to the store");
}

#[test]
fn any_lineage_exports_whatever_the_live_candidate_became() {
    let w = world();
    let approved = w.approve();
    let l = approved.state().lineage_id().clone();
    let before = drivers::export_context(&w.git, &w.store, &l).unwrap();
    assert_eq!(before.envelope.state, "approved");
    // The reviewed path edited: the same frozen context, related as
    // scope-changed.
    w.git.write("src/a.rs", FIX).unwrap();
    let edited = drivers::export_context(&w.git, &w.store, &l).unwrap();
    assert_eq!(edited.diff, before.diff);
    assert_eq!(edited.envelope.applicability, Applicability::ScopeChanged);
    assert_eq!(
        edited.envelope.changed_path_manifest,
        before.envelope.changed_path_manifest
    );
    // Only an unrelated path changed: unrelated.
    w.git.write("src/a.rs", CHANGE).unwrap();
    w.git.write("docs/notes.md", "later\n").unwrap();
    let unrelated = drivers::export_context(&w.git, &w.store, &l).unwrap();
    assert_eq!(unrelated.diff, before.diff);
    assert_eq!(unrelated.envelope.applicability, Applicability::Unrelated);
}

#[test]
fn an_unknown_lineage_is_not_found() {
    let w = world();
    w.start();
    let unknown = LineageId::parse("review-0000000000000000").unwrap();
    let err = refused(&w, &w.git, &unknown);
    assert_err!(err, ReviewError::Store(StoreError::NotFound(l)) if *l == unknown);
}

#[test]
fn a_lineage_whose_trees_are_not_here_is_objects_missing() {
    // A review made in another repository, imported here: its trees are
    // not in this repository.
    let elsewhere = elsewhere();
    let foreign = elsewhere.start();
    let l = foreign.state().lineage_id().clone();
    let bundle = drivers::export_bundle(&WithAttestations::new(&elsewhere.store), &l).unwrap();
    let w = world();
    drivers::import_bundle(&WithAttestations::new(&w.store), &bundle).unwrap();
    let err = refused(&w, &w.git, &l);
    let snap = foreign.state().snapshot();
    match &err {
        ReviewError::ObjectsMissing { lineage, objects } => {
            assert_eq!(lineage, &l);
            assert_eq!(
                *objects,
                vec![snap.base_tree.to_string(), snap.candidate_tree.to_string()]
            );
        }
        e => panic!("expected objects_missing, got {e}"),
    }
}

#[test]
fn a_pruned_blob_is_objects_missing() {
    let w = world();
    let record = w.start();
    let l = record.state().lineage_id().clone();
    let snap = record.state().snapshot();
    let manifest = w.git.manifest(TreeSpan::from(snap)).unwrap();
    let blob = manifest[0].new_blob.as_ref().unwrap().to_string();
    let git = rendering(&w, Departure::Pruned(vec![blob.clone()]));
    match &refused(&w, &git, &l) {
        ReviewError::ObjectsMissing { objects, .. } => assert_eq!(*objects, vec![blob]),
        e => panic!("expected objects_missing, got {e}"),
    }
}

#[test]
fn a_diff_rendered_otherwise_than_start_froze_it_is_refused() {
    let w = world();
    let l = w.start().state().lineage_id().clone();
    // Another git's bytes: drift, never an export of other bytes.
    match &refused(&w, &rendering(&w, Departure::OtherDiff), &l) {
        ReviewError::Export(ExportError::Drift {
            anchored_version,
            git_version,
            ..
        }) => {
            assert_eq!(anchored_version, FAKE_GIT_VERSION);
            assert_eq!(git_version, "git version 9.9.9 (another)");
        }
        e => panic!("expected drift, got {e}"),
    }
    // Over the budget where start anchored a diff within it: drift too.
    match &refused(&w, &rendering(&w, Departure::OverBudget), &l) {
        ReviewError::Export(ExportError::Drift { derived, .. }) => {
            assert!(derived.contains("over"), "{derived}")
        }
        e => panic!("expected drift, got {e}"),
    }
}

#[test]
fn a_manifest_that_is_not_the_frozen_paths_is_refused() {
    let w = world();
    let l = w.start().state().lineage_id().clone();
    match &refused(&w, &rendering(&w, Departure::ShortManifest), &l) {
        ReviewError::Export(ExportError::ManifestMismatch { expected, why }) => {
            assert_eq!((*expected, why.as_str()), (1, "1 missing, 0 extra"));
        }
        e => panic!("expected a manifest mismatch, got {e}"),
    }
}

#[test]
fn a_repository_that_cannot_answer_is_the_repositorys_error() {
    let w = world();
    let l = w.start().state().lineage_id().clone();
    let held = w.store.dump();
    w.git.fail("frozen_diff");
    let err = drivers::export_context(&w.git, &w.store, &l).unwrap_err();
    assert_err!(err, ReviewError::Repository(_));
    w.git.heal("frozen_diff");
    drivers::export_context(&w.git, &w.store, &l).unwrap();
    assert_eq!(w.store.dump(), held);
    // The store's own record must be one: a lineage of the store that
    // fails to load fails the export closed.
    w.store.overwrite_state(&l, b"{}".to_vec());
    let err = drivers::export_context(&w.git, &w.store, &l).unwrap_err();
    assert_err!(err, ReviewError::Store(StoreError::Corrupted { .. }));
    assert!(w.store.load(&l).is_err());
}

/// `list` (issue 21 §8) over the in-memory store: every lineage, open ones
/// first, aged at the given `now`, a superseded one closed and naming its
/// successor; read-only.
#[test]
fn list_rows_every_lineage_open_first_aged_at_now() {
    use probity_core::review::Disposition;
    use probity_core::review::Timestamp;
    let w = world();
    assert!(
        drivers::list(&w.git, &w.store, &Timestamp::from_unix_seconds(0))
            .unwrap()
            .is_empty()
    );
    let first = w.start();
    let invalidated = drivers::invalidate(
        &w.store,
        first.state().lineage_id(),
        probity_core::review::NonBlank::parse("wrong lens").unwrap(),
    )
    .unwrap();
    let later = FixedClock::at("2027-01-01T00:00:00Z", "ffffffffffffffffffffffffffffffff").unwrap();
    let successor = drivers::recover(
        &w.git,
        &w.store,
        &later,
        probity_core::review::Lens::Reliability,
        first.state().lineage_id(),
        recover_request(&invalidated, Disposition::Invalidated, "again", "me"),
    )
    .unwrap()
    .record;
    let before = w.store.dump();
    let now = Timestamp::parse("2027-01-01T00:02:00Z").unwrap();
    let rows = drivers::list(&w.git, &w.store, &now).unwrap();
    assert_eq!(w.store.dump(), before, "list wrote");
    assert_eq!(rows.len(), 2);
    assert_eq!(&rows[0].lineage_id, successor.state().lineage_id());
    assert!(rows[0].open);
    assert_eq!((rows[0].age_seconds, rows[0].age.as_str()), (120, "2m"));
    assert_eq!(&rows[1].lineage_id, first.state().lineage_id());
    assert_eq!(rows[1].state, "invalidated");
    assert!(!rows[1].open);
    assert_eq!(
        rows[1].superseded_by.as_ref(),
        Some(successor.state().lineage_id())
    );
    assert_eq!(rows[1].paths, "src/a.rs");
}
