//! [`probity_ports::review::GitPort`] for a discovered [`Repo`].

use probity_core::review::ids::{RepoPath, TreeId};
use probity_core::review::snapshot::{CandidateObservation, LiveTarget};
use probity_ports::review::{AdapterError, GitPort};

use crate::repo::Repo;

impl GitPort for Repo {
    fn observe_candidate(&self) -> Result<CandidateObservation, AdapterError> {
        Ok(Repo::observe_candidate(self)?)
    }

    fn live_target(&self) -> Result<LiveTarget, AdapterError> {
        Ok(Repo::live_target(self)?)
    }

    fn differing_paths(&self, from: &TreeId, to: &TreeId) -> Result<Vec<RepoPath>, AdapterError> {
        Ok(self.changed_paths(from, to)?)
    }
}
