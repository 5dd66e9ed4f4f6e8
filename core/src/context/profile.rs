//! The collection profile, validated before anything else is looked at.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::input::ProfileInput;
use super::types::{EntityKind, MinRole, ValueError};

/// A selectable source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Source {
    /// `entity`: the entity body and metadata; always included.
    Entity,
    /// `comments`: conversation and review-thread comments.
    Comments,
    /// `reviews`: formal reviews and review threads (change proposals only).
    Reviews,
    /// `checks`: check runs on the captured HEAD (change proposals only).
    Checks,
    /// `check_logs`: the logs of the checks `check_log_selection` selects (only
    /// with `checks`).
    CheckLogs,
    /// `agent_runs`: Fullsend run receipts.
    AgentRuns,
}

impl Source {
    /// Parses an `included_sources` spelling; `None` for anything else.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "entity" => Source::Entity,
            "comments" => Source::Comments,
            "reviews" => Source::Reviews,
            "checks" => Source::Checks,
            "check_logs" => Source::CheckLogs,
            "agent_runs" => Source::AgentRuns,
            _ => return None,
        })
    }
    /// The `included_sources` spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Entity => "entity",
            Source::Comments => "comments",
            Source::Reviews => "reviews",
            Source::Checks => "checks",
            Source::CheckLogs => "check_logs",
            Source::AgentRuns => "agent_runs",
        }
    }
}

/// `record_selection`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordSelection {
    /// `oldest`: keep the first `max_records_per_source` records in canonical
    /// order.
    Oldest,
    /// `newest`: keep the last `max_records_per_source` records in canonical
    /// order.
    Newest,
}

/// `check_log_selection`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogSelection {
    /// `none`: no log (exactly when `check_logs` is not included).
    None,
    /// `failed`: the logs of retained checks concluded `failure`, `timed_out`,
    /// `action_required` or `stale`.
    Failed,
    /// `all`: the log of every retained check.
    All,
}

/// Validated bounds (all positive except `max_labels`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Records kept per optional source, after admission and validation.
    pub max_records_per_source: u64,
    /// The acquisition cap in bytes: a body or log longer than this is not
    /// decoded (`source_too_large`).
    pub max_source_bytes: u64,
    /// The byte bound of an emitted record body, its trailing LF included.
    pub max_record_bytes: u64,
    /// The byte bound of an emitted check log, its trailing LF included.
    pub max_log_bytes: u64,
    /// The byte bound of a display string (truncated to it) and of a structural
    /// value (invalid beyond it).
    pub max_metadata_string_bytes: u64,
    /// Entity labels kept after sorting (may be 0).
    pub max_labels: u64,
}

/// Why a collection profile is invalid. Assembly aborts before it starts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProfileError {
    /// The entity kind or the admission threshold is outside its vocabulary.
    #[error(transparent)]
    Value(#[from] ValueError),
    /// `included_sources` names a source v1 does not have; carries it.
    #[error("unknown source `{0}`")]
    UnknownSource(String),
    /// `included_sources` lists a source twice; carries it.
    #[error("source `{0}` is listed twice")]
    DuplicateSource(String),
    /// `included_sources` lacks `entity`, which every profile collects.
    #[error("`entity` must be an included source")]
    MissingEntity,
    /// A `work_item` profile selects a change-proposal source (`reviews`,
    /// `checks` or `check_logs`); carries it.
    #[error("a work_item profile cannot select `{0}`")]
    NotApplicable(&'static str),
    /// `check_logs` is included without `checks`.
    #[error("`check_logs` can be included only with `checks`")]
    LogsWithoutChecks,
    /// `check_log_selection` is `none` while `check_logs` is included, or
    /// another value while it is not.
    #[error(
        "check_log_selection `{selection}` does not agree with the check_logs source (included: {included})"
    )]
    LogSelection {
        /// The `check_log_selection` given.
        selection: String,
        /// Whether `check_logs` is included.
        included: bool,
    },
    /// `record_selection` is neither `oldest` nor `newest`; carries it.
    #[error("unknown record_selection `{0}`")]
    RecordSelection(String),
    /// `check_log_selection` is not `none`, `failed` or `all`; carries it.
    #[error("unknown check_log_selection `{0}`")]
    UnknownLogSelection(String),
    /// A bound below its minimum (1, or 0 for `max_labels`), or beyond `u64`.
    #[error("bound `{name}` must be at least {min}, got {value}")]
    Bound {
        /// The bound's field name (`max_record_bytes`, ...).
        name: &'static str,
        /// Its least allowed value.
        min: i64,
        /// The value given.
        value: i64,
    },
    /// The profile's `entity_kind` is not the entity's `kind` (checked by the
    /// assembler once the profile itself is valid).
    #[error("profile entity_kind {profile} does not match the entity kind {entity}")]
    EntityKindMismatch {
        /// The profile's kind.
        profile: &'static str,
        /// The entity's kind.
        entity: &'static str,
    },
}

/// A validated collection profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// The entity kind the profile is for.
    pub entity_kind: EntityKind,
    /// The included sources; `entity` is always among them.
    pub sources: BTreeSet<Source>,
    /// Which records a source keeps when it has more than
    /// `max_records_per_source`.
    pub record_selection: RecordSelection,
    /// Which retained checks keep their log.
    pub check_log_selection: LogSelection,
    /// The validated bounds.
    pub bounds: Bounds,
    /// The human admission threshold, `admission.human_min_role` (D1).
    pub human_min_role: MinRole,
}

fn bound(name: &'static str, value: i64, min: i64) -> Result<u64, ProfileError> {
    if value < min {
        return Err(ProfileError::Bound { name, min, value });
    }
    u64::try_from(value).map_err(|_| ProfileError::Bound { name, min, value })
}

impl Profile {
    /// Validates a profile: closed vocabularies, entity-kind source rules,
    /// the `check_logs`/`check_log_selection` pairing and the bounds.
    pub fn parse(p: &ProfileInput) -> Result<Self, ProfileError> {
        let entity_kind = EntityKind::parse(&p.entity_kind)?;
        let mut sources = BTreeSet::new();
        for s in &p.included_sources {
            let src = Source::parse(s).ok_or_else(|| ProfileError::UnknownSource(s.clone()))?;
            if !sources.insert(src) {
                return Err(ProfileError::DuplicateSource(s.clone()));
            }
        }
        if !sources.contains(&Source::Entity) {
            return Err(ProfileError::MissingEntity);
        }
        if entity_kind == EntityKind::WorkItem {
            for s in [Source::Reviews, Source::Checks, Source::CheckLogs] {
                if sources.contains(&s) {
                    return Err(ProfileError::NotApplicable(s.as_str()));
                }
            }
        }
        let logs = sources.contains(&Source::CheckLogs);
        if logs && !sources.contains(&Source::Checks) {
            return Err(ProfileError::LogsWithoutChecks);
        }
        let record_selection = match p.record_selection.as_str() {
            "oldest" => RecordSelection::Oldest,
            "newest" => RecordSelection::Newest,
            other => return Err(ProfileError::RecordSelection(other.to_owned())),
        };
        let check_log_selection = match p.check_log_selection.as_str() {
            "none" => LogSelection::None,
            "failed" => LogSelection::Failed,
            "all" => LogSelection::All,
            other => return Err(ProfileError::UnknownLogSelection(other.to_owned())),
        };
        if logs == (check_log_selection == LogSelection::None) {
            return Err(ProfileError::LogSelection {
                selection: p.check_log_selection.clone(),
                included: logs,
            });
        }
        let b = &p.bounds;
        let bounds = Bounds {
            max_records_per_source: bound("max_records_per_source", b.max_records_per_source, 1)?,
            max_source_bytes: bound("max_source_bytes", b.max_source_bytes, 1)?,
            max_record_bytes: bound("max_record_bytes", b.max_record_bytes, 1)?,
            max_log_bytes: bound("max_log_bytes", b.max_log_bytes, 1)?,
            max_metadata_string_bytes: bound(
                "max_metadata_string_bytes",
                b.max_metadata_string_bytes,
                1,
            )?,
            max_labels: bound("max_labels", b.max_labels, 0)?,
        };
        let human_min_role = MinRole::parse(&p.admission.human_min_role)?;
        Ok(Profile {
            entity_kind,
            sources,
            record_selection,
            check_log_selection,
            bounds,
            human_min_role,
        })
    }

    /// Whether the profile includes source `s`.
    pub fn includes(&self, s: Source) -> bool {
        self.sources.contains(&s)
    }

    /// The exact `collection.json` document (sources sorted by ASCII order).
    pub fn to_json(&self) -> Value {
        let mut names: Vec<&str> = self.sources.iter().map(|s| s.as_str()).collect();
        names.sort_unstable();
        let b = &self.bounds;
        json!({
            "entity_kind": self.entity_kind.as_str(),
            "included_sources": names,
            "record_selection": match self.record_selection {
                RecordSelection::Oldest => "oldest",
                RecordSelection::Newest => "newest",
            },
            "check_log_selection": match self.check_log_selection {
                LogSelection::None => "none",
                LogSelection::Failed => "failed",
                LogSelection::All => "all",
            },
            "bounds": {
                "max_records_per_source": b.max_records_per_source,
                "max_source_bytes": b.max_source_bytes,
                "max_record_bytes": b.max_record_bytes,
                "max_log_bytes": b.max_log_bytes,
                "max_metadata_string_bytes": b.max_metadata_string_bytes,
                "max_labels": b.max_labels,
            },
            "admission": { "human_min_role": self.human_min_role.as_str() },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::input::{AdmissionInput, BoundsInput};
    use super::*;

    fn base() -> ProfileInput {
        ProfileInput {
            entity_kind: "change_proposal".into(),
            included_sources: vec!["entity".into(), "checks".into(), "check_logs".into()],
            record_selection: "newest".into(),
            check_log_selection: "failed".into(),
            bounds: BoundsInput {
                max_records_per_source: 10,
                max_source_bytes: 100,
                max_record_bytes: 100,
                max_log_bytes: 100,
                max_metadata_string_bytes: 100,
                max_labels: 0,
            },
            admission: AdmissionInput {
                human_min_role: "triage".into(),
            },
        }
    }

    #[test]
    fn valid_profile_serializes_sorted() {
        let p = Profile::parse(&base()).unwrap();
        assert_eq!(
            p.to_json()["included_sources"],
            json!(["check_logs", "checks", "entity"])
        );
    }

    #[test]
    fn invalid_profiles_have_typed_errors() {
        let mut p = base();
        p.entity_kind = "work_item".into();
        assert_eq!(
            Profile::parse(&p),
            Err(ProfileError::NotApplicable("checks"))
        );
        let mut p = base();
        p.included_sources = vec!["entity".into(), "check_logs".into()];
        assert_eq!(Profile::parse(&p), Err(ProfileError::LogsWithoutChecks));
        let mut p = base();
        p.check_log_selection = "none".into();
        assert!(matches!(
            Profile::parse(&p),
            Err(ProfileError::LogSelection { .. })
        ));
        let mut p = base();
        p.included_sources = vec!["comments".into()];
        assert_eq!(Profile::parse(&p), Err(ProfileError::MissingEntity));
        let mut p = base();
        p.included_sources.push("entity".into());
        assert!(matches!(
            Profile::parse(&p),
            Err(ProfileError::DuplicateSource(_))
        ));
        let mut p = base();
        p.included_sources.push("threads".into());
        assert!(matches!(
            Profile::parse(&p),
            Err(ProfileError::UnknownSource(_))
        ));
        let mut p = base();
        p.bounds.max_record_bytes = 0;
        assert!(matches!(
            Profile::parse(&p),
            Err(ProfileError::Bound {
                name: "max_record_bytes",
                ..
            })
        ));
        let mut p = base();
        p.admission.human_min_role = "read".into();
        assert!(matches!(Profile::parse(&p), Err(ProfileError::Value(_))));
        let mut p = base();
        p.record_selection = "random".into();
        assert!(matches!(
            Profile::parse(&p),
            Err(ProfileError::RecordSelection(_))
        ));
    }
}
