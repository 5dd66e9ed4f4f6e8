//! Forgejo's native vocabulary → v1: the seed's exhaustive tables (entity
//! state, formal review state with D8's `dismissed`, check status) and D9's
//! permission table, as pure functions. A value no row lists is
//! [`MapError`] (`invalid_metadata`), never invented.

use probity_core::context::{
    ActorRole, CheckConclusion, CheckStatus, EntityKind, EntityState, FormalReviewState,
};

use crate::native::open_closed_or_merged;
pub use crate::native::{MapError, timestamp};

/// Issue and pull-request state; a pull request with `merged: true` is
/// `merged` whatever its native state.
pub fn entity_state(
    kind: EntityKind,
    state: &str,
    merged: Option<bool>,
) -> Result<EntityState, MapError> {
    open_closed_or_merged(kind, state, merged)
}

/// Formal review state; `PENDING` and `REQUEST_REVIEW` (unsubmitted
/// requests) are `None` (omitted). D8: a submitted review with
/// `dismissed: true` is `dismissed`.
pub fn review_state(state: &str, dismissed: bool) -> Result<Option<FormalReviewState>, MapError> {
    let mapped = match state {
        "APPROVED" => FormalReviewState::Approved,
        "REQUEST_CHANGES" => FormalReviewState::ChangesRequested,
        "COMMENT" => FormalReviewState::Commented,
        "DISMISSED" => FormalReviewState::Dismissed,
        "PENDING" | "REQUEST_REVIEW" => return Ok(None),
        other => return Err(MapError::new("review state", other)),
    };
    Ok(Some(if dismissed {
        FormalReviewState::Dismissed
    } else {
        mapped
    }))
}

/// D9: a collaborator's permission.
pub fn permission(native: &str) -> Result<ActorRole, MapError> {
    match native {
        "owner" | "admin" => Ok(ActorRole::Admin),
        "write" => Ok(ActorRole::Write),
        "read" => Ok(ActorRole::Read),
        "none" => Ok(ActorRole::None),
        other => Err(MapError::new("repository permission", other)),
    }
}

/// Check status (the seed's Forgejo table), with the conclusion of a
/// completed one: a commit status's `status` (D-R94, `docs/context.md`).
pub fn check_status(native: &str) -> Result<(CheckStatus, Option<CheckConclusion>), MapError> {
    use CheckConclusion as C;
    Ok(match native {
        "pending" | "waiting" | "blocked" => (CheckStatus::Queued, None),
        "running" => (CheckStatus::InProgress, None),
        "success" => (CheckStatus::Completed, Some(C::Success)),
        "failure" | "error" => (CheckStatus::Completed, Some(C::Failure)),
        "warning" => (CheckStatus::Completed, Some(C::Neutral)),
        "cancelled" | "canceled" => (CheckStatus::Completed, Some(C::Cancelled)),
        "skipped" => (CheckStatus::Completed, Some(C::Skipped)),
        other => return Err(MapError::new("check status", other)),
    })
}

/// The ID Forgejo gives the placeholder of deleted accounts.
pub const GHOST_ID: i64 = -1;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entity_state_table() {
        use EntityKind::ChangeProposal as Cp;
        // merged: true wins over the native closed (or open) state.
        crate::native::shared_rows::assert_open_closed_merged(entity_state);
        assert_eq!(
            entity_state(Cp, "open", Some(true)),
            Ok(EntityState::Merged)
        );
        for bad in ["opened", "merged", "OPEN", ""] {
            assert!(entity_state(Cp, bad, Some(true)).is_err(), "{bad}");
        }
    }

    #[test]
    fn review_state_table() {
        let rows = [
            ("APPROVED", FormalReviewState::Approved),
            ("REQUEST_CHANGES", FormalReviewState::ChangesRequested),
            ("COMMENT", FormalReviewState::Commented),
            ("DISMISSED", FormalReviewState::Dismissed),
        ];
        for (n, r) in rows {
            assert_eq!(review_state(n, false), Ok(Some(r)), "{n}");
            // D8: dismissed: true maps to dismissed.
            assert_eq!(
                review_state(n, true),
                Ok(Some(FormalReviewState::Dismissed)),
                "{n}"
            );
        }
        assert_eq!(review_state("PENDING", false), Ok(None));
        assert_eq!(review_state("REQUEST_REVIEW", true), Ok(None));
        for bad in ["CHANGES_REQUESTED", "COMMENTED", "approved", ""] {
            assert!(review_state(bad, false).is_err(), "{bad}");
        }
    }

    #[test]
    fn permission_table() {
        assert_eq!(permission("owner"), Ok(ActorRole::Admin));
        assert_eq!(permission("admin"), Ok(ActorRole::Admin));
        assert_eq!(permission("write"), Ok(ActorRole::Write));
        assert_eq!(permission("read"), Ok(ActorRole::Read));
        assert_eq!(permission("none"), Ok(ActorRole::None));
        for bad in ["maintain", "triage", "Write", ""] {
            assert!(permission(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn check_status_table() {
        use CheckConclusion as C;
        for q in ["pending", "waiting", "blocked"] {
            assert_eq!(check_status(q), Ok((CheckStatus::Queued, None)), "{q}");
        }
        assert_eq!(check_status("running"), Ok((CheckStatus::InProgress, None)));
        let done = [
            ("success", C::Success),
            ("failure", C::Failure),
            ("error", C::Failure),
            ("warning", C::Neutral),
            ("cancelled", C::Cancelled),
            ("canceled", C::Cancelled),
            ("skipped", C::Skipped),
        ];
        for (n, c) in done {
            assert_eq!(
                check_status(n),
                Ok((CheckStatus::Completed, Some(c))),
                "{n}"
            );
        }
        for bad in ["queued", "in_progress", "completed", ""] {
            assert!(check_status(bad).is_err(), "{bad}");
        }
    }
}
