//! [`probity_ports::review::GitPort`] for a discovered [`Repo`].

use probity_core::review::Hunk;
use probity_core::review::{MAX_RANGE_COMMITS, RangeCommit};

use probity_core::review::DeltaEntry;
use probity_core::review::{CandidateObservation, ChangedFile, LiveTarget};
use probity_core::review::{LineageId, RepoPath, Symlink, TreeId};
use probity_ports::review::{AdapterError, GitPort, TreeSpan};

use crate::cmd::GitError;
use crate::repo::Repo;

impl GitPort for Repo {
    fn observe_candidate(&self) -> Result<CandidateObservation, AdapterError> {
        Ok(Repo::observe_candidate(self)?)
    }

    fn live_target(&self) -> Result<LiveTarget, AdapterError> {
        Ok(Repo::live_target(self)?)
    }

    fn staged_target(&self, index: &std::path::Path) -> Result<LiveTarget, AdapterError> {
        Ok(Repo::staged_target(self, index)?)
    }

    fn differing_paths(&self, span: TreeSpan<'_>) -> Result<Vec<RepoPath>, AdapterError> {
        Ok(self.changed_paths(span.from, span.to)?)
    }

    fn tree_delta(&self, span: TreeSpan<'_>) -> Result<Option<Vec<DeltaEntry>>, AdapterError> {
        Ok(Repo::tree_delta(self, span.from, span.to)?)
    }

    fn diff_files(&self, span: TreeSpan<'_>) -> Result<Vec<ChangedFile>, AdapterError> {
        Ok(Repo::diff_files(self, span.from, span.to)?)
    }

    fn symlinks(&self, trees: &[&TreeId]) -> Result<Vec<Vec<Symlink>>, AdapterError> {
        Ok(Repo::symlinks(self, trees)?)
    }

    fn hunks(&self, span: TreeSpan<'_>, path: &RepoPath) -> Result<Vec<Hunk>, AdapterError> {
        Ok(Repo::hunks(self, span.from, span.to, path)?)
    }

    fn line_count(&self, tree: &TreeId, path: &RepoPath) -> Result<Option<u64>, AdapterError> {
        Ok(Repo::line_count(self, tree, path)?)
    }

    fn read_path(
        &self,
        tree: &TreeId,
        path: &str,
        cap: usize,
    ) -> Result<Option<Vec<u8>>, AdapterError> {
        Ok(Repo::read_path(self, tree.as_str(), path, cap)?)
    }

    fn read_paths(
        &self,
        reads: &[(&TreeId, &str)],
        cap: usize,
    ) -> Result<Vec<Option<Vec<u8>>>, AdapterError> {
        let reads: Vec<(&str, &str)> = reads.iter().map(|(t, p)| (t.as_str(), *p)).collect();
        Ok(Repo::read_paths(self, &reads, cap)?)
    }

    fn read_paths_followed(
        &self,
        reads: &[(&TreeId, &str)],
        cap: usize,
    ) -> Result<Vec<Option<Vec<u8>>>, AdapterError> {
        let reads: Vec<(&str, &str)> = reads.iter().map(|(t, p)| (t.as_str(), *p)).collect();
        Ok(Repo::read_paths_followed(self, &reads, cap)?)
    }

    fn list_followed(
        &self,
        dirs: &[(&TreeId, &str)],
        below: bool,
        limit: usize,
    ) -> Result<Vec<probity_core::review::Listed>, AdapterError> {
        let dirs: Vec<(&str, &str)> = dirs.iter().map(|(t, p)| (t.as_str(), *p)).collect();
        Ok(Repo::list_followed(self, &dirs, below, limit)?)
    }

    fn list_matching(
        &self,
        asks: &[(&TreeId, &probity_core::review::Matching)],
        limit: usize,
    ) -> Result<Vec<probity_core::review::Listed>, AdapterError> {
        let asks: Vec<(&str, &probity_core::review::Matching)> =
            asks.iter().map(|(t, m)| (t.as_str(), *m)).collect();
        Ok(Repo::list_matching(self, &asks, limit)?)
    }

    fn keep_trees(
        &self,
        lineage: &LineageId,
        trees: &[(&str, &TreeId)],
    ) -> Result<(), AdapterError> {
        Ok(Repo::keep_trees(self, lineage, trees)?)
    }

    fn committed_change(&self, span: TreeSpan<'_>) -> Result<bool, AdapterError> {
        Ok(Repo::committed_change(self, span, MAX_RANGE_COMMITS)?)
    }

    fn committed_commit(&self, span: TreeSpan<'_>) -> Result<Option<RangeCommit>, AdapterError> {
        Ok(Repo::committed_commit(self, span, MAX_RANGE_COMMITS)?)
    }

    fn check_keep_trees(&self) -> Result<(), AdapterError> {
        self.keeps_trees()?;
        Ok(())
    }
}

impl Repo {
    /// Whether the repository asks Probity to keep frozen trees alive
    /// (`git config probity.keepTrees true`); unset is no.
    pub fn keeps_trees(&self) -> Result<bool, GitError> {
        // Read once per run (a start checks it before it writes, then
        // keeps the trees).
        if let Ok(k) = self.shared().keeps_trees.lock()
            && let Some(k) = *k
        {
            return Ok(k);
        }
        // In-process when that is certainly git's answer (D-R98,
        // `crate::config`); git's `config` otherwise.
        let sources = crate::config::Sources::of(
            self.git().exe(),
            self.common_dir(),
            self.git().keeps_config_env(),
        );
        let keeps = match crate::config::keep_trees(&sources) {
            Some(k) => k,
            None => self.setting_bool("probity.keepTrees")?,
        };
        if let Ok(mut k) = self.shared().keeps_trees.lock() {
            *k = Some(keeps);
        }
        Ok(keeps)
    }

    /// Whether the server lets a push delete a protected ref
    /// (`git config probity.allowProtectedDeletion true`); unset is no.
    pub fn allows_protected_deletion(&self) -> Result<bool, GitError> {
        self.setting_bool("probity.allowProtectedDeletion")
    }

    /// Points `refs/probity/<lineage>/<name>` at each tree (R10.6), so
    /// garbage collection keeps them, when [`Repo::keeps_trees`]. One
    /// transaction; idempotent.
    pub fn keep_trees(
        &self,
        lineage: &LineageId,
        trees: &[(&str, &TreeId)],
    ) -> Result<(), GitError> {
        if trees.is_empty() || !self.keeps_trees()? {
            return Ok(());
        }
        let mut stdin = String::new();
        for (name, tree) in trees {
            stdin.push_str(&format!("update refs/probity/{lineage}/{name} {tree}\n"));
        }
        self.run_sheltered(["update-ref", "--stdin"], Some(stdin.as_bytes()))?;
        Ok(())
    }
}
