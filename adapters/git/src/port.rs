//! [`probity_ports::review::GitPort`] for a discovered [`Repo`].

use probity_core::review::causality::Hunk;
use probity_core::review::ids::{RepoPath, TreeId};
use probity_core::review::snapshot::{CandidateObservation, ChangedFile, LiveTarget};
use probity_ports::review::{AdapterError, GitPort};

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

    fn differing_paths(&self, from: &TreeId, to: &TreeId) -> Result<Vec<RepoPath>, AdapterError> {
        Ok(self.changed_paths(from, to)?)
    }

    fn diff_files(&self, from: &TreeId, to: &TreeId) -> Result<Vec<ChangedFile>, AdapterError> {
        Ok(Repo::diff_files(self, from, to)?)
    }

    fn hunks(
        &self,
        from: &TreeId,
        to: &TreeId,
        path: &RepoPath,
    ) -> Result<Vec<Hunk>, AdapterError> {
        Ok(Repo::hunks(self, from, to, path)?)
    }

    fn line_count(&self, tree: &TreeId, path: &RepoPath) -> Result<Option<u64>, AdapterError> {
        Ok(Repo::line_count(self, tree, path)?)
    }
}
