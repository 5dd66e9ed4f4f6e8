//! GitHub's native vocabulary → v1: the exhaustive tables of the seed
//! (entity state, check status and conclusion, formal review state,
//! permissions, timestamps), as pure functions. A native value no row lists
//! is [`MapError`] (`invalid_metadata`); nothing is ever invented.
//! `docs/context.md` ("Fetching from a forge") prints these tables.

use probity_core::context::{
    ActorRole, CheckConclusion, CheckStatus, EntityKind, EntityState, FormalReviewState, Side,
};
use probity_ports::forge::ActorKindRef;

use crate::native::open_closed_or_merged;
pub use crate::native::{MapError, timestamp};

/// Entity state. REST spells GitHub's `OPEN`/`CLOSED` as `open`/`closed`.
/// A pull request with `merged: true` is `merged` (its state is still
/// checked); an issue has no merged state.
pub fn entity_state(
    kind: EntityKind,
    state: &str,
    merged: Option<bool>,
) -> Result<EntityState, MapError> {
    let mapped = open_closed_or_merged(kind, state, merged)?;
    match (kind, merged) {
        (EntityKind::ChangeProposal, None) => Err(MapError::new("pull request merged", "null")),
        (EntityKind::WorkItem, Some(_)) => Err(MapError::new("issue merged", "present")),
        (EntityKind::ChangeProposal, Some(_)) | (EntityKind::WorkItem, None) => Ok(mapped),
    }
}

/// Check-run status.
pub fn check_status(status: &str) -> Result<CheckStatus, MapError> {
    match status {
        "queued" | "waiting" | "requested" | "pending" => Ok(CheckStatus::Queued),
        "in_progress" => Ok(CheckStatus::InProgress),
        "completed" => Ok(CheckStatus::Completed),
        other => Err(MapError::new("check status", other)),
    }
}

/// Check-run conclusion, and whether the native value itself reports that
/// the job never started (`startup_failure`).
pub fn check_conclusion(conclusion: &str) -> Result<(CheckConclusion, bool), MapError> {
    Ok(match conclusion {
        "success" => (CheckConclusion::Success, false),
        "failure" => (CheckConclusion::Failure, false),
        "neutral" => (CheckConclusion::Neutral, false),
        "cancelled" => (CheckConclusion::Cancelled, false),
        "skipped" => (CheckConclusion::Skipped, false),
        "timed_out" => (CheckConclusion::TimedOut, false),
        "action_required" => (CheckConclusion::ActionRequired, false),
        "stale" => (CheckConclusion::Stale, false),
        "startup_failure" => (CheckConclusion::Failure, true),
        other => return Err(MapError::new("check conclusion", other)),
    })
}

pub use crate::native::CheckFields;

/// Status, conclusion and timestamps of a check run. Queued checks carry
/// no times or conclusion, in-progress ones only `started_at` (fields the
/// status forbids are omitted, not copied). A completed check needs a
/// conclusion; `startup_failure`, and `skipped`/`cancelled` with no native
/// `started_at`, are `never_started: true` (no `started_at`); every other
/// completed check is `never_started: false` and keeps its `started_at`
/// (the assembler refuses it when that is missing).
pub fn check_fields(
    status: &str,
    conclusion: Option<&str>,
    started_at: Option<&str>,
    completed_at: Option<&str>,
) -> Result<CheckFields, MapError> {
    let status = check_status(status)?;
    CheckFields::by_status(status, started_at, completed_at, |started, completed| {
        let native = conclusion.ok_or_else(|| MapError::new("check conclusion", "null"))?;
        let (c, startup_failure) = check_conclusion(native)?;
        let never = startup_failure
            || (matches!(c, CheckConclusion::Skipped | CheckConclusion::Cancelled)
                && started.is_none());
        Ok(CheckFields {
            status,
            conclusion: Some(c),
            started_at: if never { None } else { started },
            completed_at: completed,
            never_started: Some(never),
        })
    })
}

/// Formal review state; `PENDING` (unsubmitted) is `None` (omitted).
pub fn review_state(state: &str) -> Result<Option<FormalReviewState>, MapError> {
    match state {
        "APPROVED" => Ok(Some(FormalReviewState::Approved)),
        "CHANGES_REQUESTED" => Ok(Some(FormalReviewState::ChangesRequested)),
        "COMMENTED" => Ok(Some(FormalReviewState::Commented)),
        "DISMISSED" => Ok(Some(FormalReviewState::Dismissed)),
        "PENDING" => Ok(None),
        other => Err(MapError::new("review state", other)),
    }
}

/// The effective repository role from the collaborator-permission answer:
/// `role_name` when present (the fine-grained role), else the legacy
/// `permission`. A custom repository role is not in the table.
pub fn permission(
    role_name: Option<&str>,
    permission: Option<&str>,
) -> Result<ActorRole, MapError> {
    match (role_name, permission) {
        (Some(r), _) => match r {
            "admin" => Ok(ActorRole::Admin),
            "maintain" => Ok(ActorRole::Maintain),
            "write" => Ok(ActorRole::Write),
            "triage" => Ok(ActorRole::Triage),
            "read" => Ok(ActorRole::Read),
            "none" => Ok(ActorRole::None),
            other => Err(MapError::new("repository role", other)),
        },
        (None, Some(p)) => match p {
            "admin" => Ok(ActorRole::Admin),
            "write" => Ok(ActorRole::Write),
            "read" => Ok(ActorRole::Read),
            "none" => Ok(ActorRole::None),
            other => Err(MapError::new("repository permission", other)),
        },
        (None, None) => Err(MapError::new("repository permission", "null")),
    }
}

/// An account type (REST `type`, GraphQL `__typename`).
pub fn actor_kind(native: &str) -> Result<ActorKindRef, MapError> {
    match native {
        "User" => Ok(ActorKindRef::Human),
        "Bot" => Ok(ActorKindRef::Bot),
        other => Err(MapError::new("account type", other)),
    }
}

/// The login GitHub shows for a deleted account (the placeholder account
/// is not the deleted actor: the reference becomes `null`).
pub const GHOST_LOGIN: &str = "ghost";

/// Review thread side.
pub fn side(native: &str) -> Result<Side, MapError> {
    match native {
        "LEFT" => Ok(Side::Left),
        "RIGHT" => Ok(Side::Right),
        other => Err(MapError::new("diff side", other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use probity_ports::forge::ForgeError;

    #[test]
    fn entity_state_table() {
        use EntityKind::{ChangeProposal as Cp, WorkItem as Wi};
        crate::native::shared_rows::assert_open_closed_merged(entity_state);
        assert!(entity_state(Cp, "open", None).is_err());
        assert!(entity_state(Wi, "open", Some(true)).is_err());
        for bad in ["OPEN", "locked", "merged", "draft", ""] {
            let e = entity_state(Cp, bad, Some(true)).unwrap_err();
            assert_eq!((e.what, e.value.as_str()), ("entity state", bad));
        }
    }

    #[test]
    fn check_status_table() {
        for q in ["queued", "waiting", "requested", "pending"] {
            assert_eq!(check_status(q), Ok(CheckStatus::Queued), "{q}");
        }
        assert_eq!(check_status("in_progress"), Ok(CheckStatus::InProgress));
        assert_eq!(check_status("completed"), Ok(CheckStatus::Completed));
        for bad in ["expected", "COMPLETED", "running", ""] {
            assert!(check_status(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn check_conclusion_table() {
        let rows = [
            ("success", CheckConclusion::Success, false),
            ("failure", CheckConclusion::Failure, false),
            ("neutral", CheckConclusion::Neutral, false),
            ("cancelled", CheckConclusion::Cancelled, false),
            ("skipped", CheckConclusion::Skipped, false),
            ("timed_out", CheckConclusion::TimedOut, false),
            ("action_required", CheckConclusion::ActionRequired, false),
            ("stale", CheckConclusion::Stale, false),
            ("startup_failure", CheckConclusion::Failure, true),
        ];
        for (native, c, never) in rows {
            assert_eq!(check_conclusion(native), Ok((c, never)), "{native}");
        }
        for bad in ["canceled", "error", "FAILURE", ""] {
            assert!(check_conclusion(bad).is_err(), "{bad}");
        }
    }

    const T1: &str = "2026-09-08T10:16:05Z";
    const T2: &str = "2026-09-08T10:19:00Z";

    #[test]
    fn check_fields_follow_the_status_rules() {
        // Queued: times and conclusion the status forbids are dropped.
        let q = check_fields("waiting", Some("success"), Some(T1), Some(T2)).unwrap();
        assert_eq!(
            (q.conclusion, q.started_at, q.completed_at, q.never_started),
            (None, None, None, None)
        );
        let p = check_fields("in_progress", None, Some(T1), Some(T2)).unwrap();
        assert_eq!(
            p.started_at.as_deref(),
            Some("2026-09-08T10:16:05.000000000Z")
        );
        assert_eq!(p.completed_at, None);
        let ok = check_fields("completed", Some("failure"), Some(T1), Some(T2)).unwrap();
        assert_eq!(ok.never_started, Some(false));
        assert!(ok.started_at.is_some());
        // startup_failure never started, whatever started_at says.
        let sf = check_fields("completed", Some("startup_failure"), Some(T1), Some(T2)).unwrap();
        assert_eq!(
            (sf.conclusion, sf.never_started, sf.started_at),
            (Some(CheckConclusion::Failure), Some(true), None)
        );
        // skipped / cancelled without a start never started ...
        for c in ["skipped", "cancelled"] {
            let f = check_fields("completed", Some(c), None, Some(T2)).unwrap();
            assert_eq!(f.never_started, Some(true), "{c}");
            let f = check_fields("completed", Some(c), Some(T1), Some(T2)).unwrap();
            assert_eq!(f.never_started, Some(false), "{c}");
        }
        // ... an ordinary failure without a start is not never-started.
        let f = check_fields("completed", Some("failure"), None, Some(T2)).unwrap();
        assert_eq!((f.never_started, f.started_at), (Some(false), None));
        // A completed check needs a conclusion; timestamps must parse.
        assert!(check_fields("completed", None, Some(T1), Some(T2)).is_err());
        assert!(check_fields("completed", Some("success"), Some("yesterday"), None).is_err());
    }

    #[test]
    fn review_state_table() {
        assert_eq!(
            review_state("APPROVED"),
            Ok(Some(FormalReviewState::Approved))
        );
        assert_eq!(
            review_state("CHANGES_REQUESTED"),
            Ok(Some(FormalReviewState::ChangesRequested))
        );
        assert_eq!(
            review_state("COMMENTED"),
            Ok(Some(FormalReviewState::Commented))
        );
        assert_eq!(
            review_state("DISMISSED"),
            Ok(Some(FormalReviewState::Dismissed))
        );
        assert_eq!(review_state("PENDING"), Ok(None));
        for bad in ["approved", "REQUEST_CHANGES", "COMMENT", ""] {
            assert!(review_state(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn permission_table() {
        let rows = [
            ("admin", ActorRole::Admin),
            ("maintain", ActorRole::Maintain),
            ("write", ActorRole::Write),
            ("triage", ActorRole::Triage),
            ("read", ActorRole::Read),
            ("none", ActorRole::None),
        ];
        for (r, role) in rows {
            assert_eq!(permission(Some(r), Some("admin")), Ok(role), "{r}");
        }
        let legacy = [
            ("admin", ActorRole::Admin),
            ("write", ActorRole::Write),
            ("read", ActorRole::Read),
            ("none", ActorRole::None),
        ];
        for (p, role) in legacy {
            assert_eq!(permission(None, Some(p)), Ok(role), "{p}");
        }
        // A custom role is never guessed from its base permission.
        assert!(permission(Some("security-manager"), Some("read")).is_err());
        assert!(permission(None, Some("maintain")).is_err());
        assert!(permission(None, None).is_err());
    }

    #[test]
    fn actor_kind_and_side_tables() {
        assert_eq!(actor_kind("User"), Ok(ActorKindRef::Human));
        assert_eq!(actor_kind("Bot"), Ok(ActorKindRef::Bot));
        for bad in ["Organization", "Mannequin", "user", ""] {
            assert!(actor_kind(bad).is_err(), "{bad}");
        }
        assert_eq!(side("LEFT"), Ok(Side::Left));
        assert_eq!(side("RIGHT"), Ok(Side::Right));
        assert!(side("right").is_err());
    }

    #[test]
    fn timestamps_normalize_or_fail() {
        assert_eq!(
            timestamp("2011-04-14T16:00:49Z").unwrap(),
            "2011-04-14T16:00:49.000000000Z"
        );
        assert_eq!(
            timestamp("2011-04-14T18:00:49+02:00").unwrap(),
            "2011-04-14T16:00:49.000000000Z"
        );
        assert!(timestamp("2011-04-14").is_err());
        assert!(timestamp("").is_err());
    }

    #[test]
    fn unmapped_values_become_invalid_metadata() {
        let e: ForgeError = review_state("LGTM").unwrap_err().into();
        assert!(matches!(e, ForgeError::InvalidMetadata { ref value, .. } if value == "LGTM"));
        let long = "x".repeat(500);
        assert_eq!(check_status(&long).unwrap_err().value.len(), 64);
    }
}
