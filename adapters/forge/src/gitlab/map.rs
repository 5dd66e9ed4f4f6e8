//! GitLab's native vocabulary → v1: the seed's exhaustive tables (entity
//! state, job status) and this project's access-level table (the seed
//! leaves GitLab roles open; `docs/context.md` records the choice), as
//! pure functions. A value no row lists is [`MapError`]
//! (`invalid_metadata`), never invented.

use probity_core::context::{ActorRole, CheckConclusion, CheckStatus, EntityKind, EntityState};

pub use crate::native::{MapError, timestamp};

/// Issue and merge-request state: `opened`/`closed`; a merge request also
/// `merged`, and `locked` (GitLab's merge-in-progress lock) is `open`.
pub fn entity_state(kind: EntityKind, state: &str) -> Result<EntityState, MapError> {
    match (kind, state) {
        (_, "opened") => Ok(EntityState::Open),
        (_, "closed") => Ok(EntityState::Closed),
        (EntityKind::ChangeProposal, "merged") => Ok(EntityState::Merged),
        (EntityKind::ChangeProposal, "locked") => Ok(EntityState::Open),
        (_, other) => Err(MapError::new("entity state", other)),
    }
}

/// Job status: the v1 status and, for completed jobs, the conclusion.
pub fn job_status(status: &str) -> Result<(CheckStatus, Option<CheckConclusion>), MapError> {
    Ok(match status {
        "created"
        | "waiting_for_resource"
        | "waiting_for_callback"
        | "preparing"
        | "pending"
        | "scheduled"
        | "manual" => (CheckStatus::Queued, None),
        "running" | "canceling" => (CheckStatus::InProgress, None),
        "success" => (CheckStatus::Completed, Some(CheckConclusion::Success)),
        "failed" => (CheckStatus::Completed, Some(CheckConclusion::Failure)),
        "canceled" => (CheckStatus::Completed, Some(CheckConclusion::Cancelled)),
        "skipped" => (CheckStatus::Completed, Some(CheckConclusion::Skipped)),
        other => return Err(MapError::new("job status", other)),
    })
}

/// A job's mapped status fields (the same shape as GitHub's).
pub use crate::github::map::CheckFields;

/// Status, conclusion and timestamps of a job. Fields the status forbids
/// are omitted; a completed `canceled` or `skipped` job with a null
/// `started_at` is `never_started: true` (no `started_at`); every other
/// completed job is `never_started: false` (a `failed` job without a start
/// stays an ordinary failure, which the assembler refuses).
pub fn job_fields(
    status: &str,
    started_at: Option<&str>,
    finished_at: Option<&str>,
) -> Result<CheckFields, MapError> {
    let (status, conclusion) = job_status(status)?;
    CheckFields::by_status(status, started_at, finished_at, |started, finished| {
        let never = matches!(
            conclusion,
            Some(CheckConclusion::Cancelled | CheckConclusion::Skipped)
        ) && started.is_none();
        Ok(CheckFields {
            status,
            conclusion,
            started_at: started,
            completed_at: finished,
            never_started: Some(never),
        })
    })
}

/// A member's `access_level` → repository role. The inverse of GitLab's
/// own GitHub importer (admin → Owner, maintain → Maintainer, write →
/// Developer, triage → Reporter, read → Guest); Minimal Access and No
/// Access are `none`. Planner (15) and any other level are not in the
/// table (the actor stays unverified).
pub fn access_level(level: i64) -> Result<ActorRole, MapError> {
    match level {
        50 => Ok(ActorRole::Admin),
        40 => Ok(ActorRole::Maintain),
        30 => Ok(ActorRole::Write),
        20 => Ok(ActorRole::Triage),
        10 => Ok(ActorRole::Read),
        5 | 0 => Ok(ActorRole::None),
        other => Err(MapError::new("access level", other.to_string())),
    }
}

/// The username GitLab shows for content of deleted accounts.
pub const GHOST_USERNAME: &str = "ghost";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entity_state_table() {
        use EntityKind::{ChangeProposal as Cp, WorkItem as Wi};
        assert_eq!(entity_state(Wi, "opened"), Ok(EntityState::Open));
        assert_eq!(entity_state(Wi, "closed"), Ok(EntityState::Closed));
        assert_eq!(entity_state(Cp, "opened"), Ok(EntityState::Open));
        assert_eq!(entity_state(Cp, "closed"), Ok(EntityState::Closed));
        assert_eq!(entity_state(Cp, "merged"), Ok(EntityState::Merged));
        assert_eq!(entity_state(Cp, "locked"), Ok(EntityState::Open));
        // An issue is never merged or locked.
        assert!(entity_state(Wi, "merged").is_err());
        assert!(entity_state(Wi, "locked").is_err());
        for bad in ["open", "reopened", "all", ""] {
            assert!(entity_state(Cp, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn job_status_table() {
        for q in [
            "created",
            "waiting_for_resource",
            "waiting_for_callback",
            "preparing",
            "pending",
            "scheduled",
            "manual",
        ] {
            assert_eq!(job_status(q), Ok((CheckStatus::Queued, None)), "{q}");
        }
        for p in ["running", "canceling"] {
            assert_eq!(job_status(p), Ok((CheckStatus::InProgress, None)), "{p}");
        }
        let done = [
            ("success", CheckConclusion::Success),
            ("failed", CheckConclusion::Failure),
            ("canceled", CheckConclusion::Cancelled),
            ("skipped", CheckConclusion::Skipped),
        ];
        for (n, c) in done {
            assert_eq!(job_status(n), Ok((CheckStatus::Completed, Some(c))), "{n}");
        }
        for bad in ["cancelled", "passed", "SUCCESS", ""] {
            assert!(job_status(bad).is_err(), "{bad}");
        }
    }

    const T1: &str = "2026-09-08T10:16:05.123Z";
    const T2: &str = "2026-09-08T10:19:00Z";

    #[test]
    fn job_fields_follow_the_status_rules() {
        let q = job_fields("manual", Some(T1), Some(T2)).unwrap();
        assert_eq!((q.started_at, q.completed_at), (None, None));
        let r = job_fields("running", Some(T1), Some(T2)).unwrap();
        assert_eq!(
            r.started_at.as_deref(),
            Some("2026-09-08T10:16:05.123000000Z")
        );
        assert_eq!(r.completed_at, None);
        for n in ["canceled", "skipped"] {
            let f = job_fields(n, None, Some(T2)).unwrap();
            assert_eq!(f.never_started, Some(true), "{n}");
            let f = job_fields(n, Some(T1), Some(T2)).unwrap();
            assert_eq!(f.never_started, Some(false), "{n}");
        }
        // A failed job without a start is an ordinary failure.
        let f = job_fields("failed", None, Some(T2)).unwrap();
        assert_eq!((f.never_started, f.started_at), (Some(false), None));
        let s = job_fields("success", Some(T1), Some(T2)).unwrap();
        assert_eq!(s.never_started, Some(false));
        assert!(job_fields("success", Some("soon"), None).is_err());
    }

    #[test]
    fn access_level_table() {
        let rows = [
            (50, ActorRole::Admin),
            (40, ActorRole::Maintain),
            (30, ActorRole::Write),
            (20, ActorRole::Triage),
            (10, ActorRole::Read),
            (5, ActorRole::None),
            (0, ActorRole::None),
        ];
        for (level, role) in rows {
            assert_eq!(access_level(level), Ok(role), "{level}");
        }
        for bad in [15, 60, 25, -1] {
            assert!(access_level(bad).is_err(), "{bad}");
        }
    }
}
