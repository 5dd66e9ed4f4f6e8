//! Reading forge-native JSON, the part every forge module shares: field
//! readers, the mapping error, timestamps, path segments, labels and
//! listings. What differs between forges (their vocabularies, their
//! author objects, their pagination) stays in each forge's module.

use probity_core::context::{
    CheckConclusion, CheckStatus, CommentInput, EntityKind, EntityState, ReplyInput, Timestamp,
};
use probity_ports::forge::{Authored, ForgeError, Listing};
use serde_json::Value;

/// A native value no table row maps (or a required one that is missing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapError {
    /// What was being mapped (`entity state`, `check conclusion`, `timestamp`,
    /// ...).
    pub what: &'static str,
    /// The native value, cut to 64 bytes (`null` for a missing required one).
    pub value: String,
}

impl MapError {
    /// `what` could not be mapped from `value` (cut to 64 bytes: an
    /// unmapped value is echoed in an error message only, so it is bounded).
    pub(crate) fn new(what: &'static str, value: impl Into<String>) -> Self {
        let mut v: String = value.into();
        if v.len() > 64 {
            let mut end = 64;
            while !v.is_char_boundary(end) {
                end -= 1;
            }
            v.truncate(end);
        }
        Self { what, value: v }
    }

    /// A required field that is missing (`null`).
    pub(crate) fn missing(what: &'static str) -> Self {
        Self::new(what, "null")
    }
}

impl From<MapError> for ForgeError {
    fn from(e: MapError) -> Self {
        ForgeError::InvalidMetadata {
            what: e.what.to_owned(),
            value: e.value,
        }
    }
}

/// A native RFC 3339 timestamp, normalized (UTC, nine fraction digits).
pub fn timestamp(native: &str) -> Result<String, MapError> {
    Timestamp::parse(native)
        .map(|t| t.canonical())
        .map_err(|_| MapError::new("timestamp", native))
}

/// A check's mapped status fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckFields {
    /// The v1 status.
    pub status: CheckStatus,
    /// The v1 conclusion; set exactly when completed.
    pub conclusion: Option<CheckConclusion>,
    /// The start time (UTC, nine fraction digits), kept in progress and for a
    /// completed check that started; `None` when queued, never started or not
    /// given.
    pub started_at: Option<String>,
    /// The terminal time (UTC, nine fraction digits) of a completed check, when
    /// the forge gives one.
    pub completed_at: Option<String>,
    /// Completed checks: whether it never started (`startup_failure`, or
    /// `skipped`/`cancelled` without a native start); `None` otherwise.
    pub never_started: Option<bool>,
}

impl CheckFields {
    /// The fields a `status` allows, the native times normalized first
    /// (either failing to parse is the error, whatever the status): a
    /// queued check carries no time or conclusion, one in progress only its
    /// start; a completed one is what `completed` makes of the start and the
    /// terminal time (each forge has its own conclusion rules).
    pub(crate) fn by_status(
        status: CheckStatus,
        started_at: Option<&str>,
        completed_at: Option<&str>,
        completed: impl FnOnce(Option<String>, Option<String>) -> Result<Self, MapError>,
    ) -> Result<Self, MapError> {
        let started = started_at.map(timestamp).transpose()?;
        let done = completed_at.map(timestamp).transpose()?;
        let (started_at, completed_at) = match status {
            CheckStatus::Queued => (None, None),
            CheckStatus::InProgress => (started, None),
            CheckStatus::Completed => return completed(started, done),
        };
        Ok(Self {
            status,
            conclusion: None,
            started_at,
            completed_at,
            never_started: None,
        })
    }
}

/// A comment record whose ID is `id`, its times from the fields `created`
/// and `updated` of `v` (see [`ts`]), its body from `body` (absent or
/// `null` is the empty body); the author is resolved apart.
pub(crate) fn comment_record(
    v: &Value,
    id: String,
    created: &str,
    updated: &str,
) -> Result<CommentInput, MapError> {
    Ok(CommentInput {
        id: Some(id),
        author_id: None,
        created_at: ts(v, created)?,
        updated_at: ts(v, updated)?,
        body: s(v, "body").unwrap_or("").to_owned(),
    })
}

/// An entity's state as GitHub's REST API spells it (GitHub, Forgejo):
/// `open` or `closed` (anything else unmapped), and a pull request with
/// `merged: true` `merged` whatever that native state. Whether `merged`
/// must be given is each forge's own rule.
pub(crate) fn open_closed_or_merged(
    kind: EntityKind,
    state: &str,
    merged: Option<bool>,
) -> Result<EntityState, MapError> {
    let base = match state {
        "open" => EntityState::Open,
        "closed" => EntityState::Closed,
        other => return Err(MapError::new("entity state", other)),
    };
    Ok(match (kind, merged) {
        (EntityKind::ChangeProposal, Some(true)) => EntityState::Merged,
        _ => base,
    })
}

/// The rows the tables of more than one forge share, asserted once for
/// each of them.
#[cfg(test)]
pub(crate) mod shared_rows {
    use probity_core::context::{EntityKind, EntityState};

    use super::MapError;

    /// The entity-state rows GitHub's and Forgejo's tables share: an issue
    /// `open` or `closed`, a pull request `open` or `closed` when not
    /// merged, and `merged` when closed with `merged: true`.
    pub(crate) fn assert_open_closed_merged(
        entity_state: impl Fn(EntityKind, &str, Option<bool>) -> Result<EntityState, MapError>,
    ) {
        use EntityKind::{ChangeProposal as Cp, WorkItem as Wi};
        let rows = [
            (Wi, "open", None, EntityState::Open),
            (Wi, "closed", None, EntityState::Closed),
            (Cp, "open", Some(false), EntityState::Open),
            (Cp, "closed", Some(false), EntityState::Closed),
            (Cp, "closed", Some(true), EntityState::Merged),
        ];
        for (kind, state, merged, want) in rows {
            let row = format!("{kind:?} {state} merged: {merged:?}");
            assert_eq!(entity_state(kind, state, merged), Ok(want), "{row}");
        }
    }
}

/// The IDs of mapped comments, in order (one without an ID is left out).
pub(crate) fn comment_ids(comments: &[Authored<CommentInput>]) -> Vec<String> {
    comments
        .iter()
        .filter_map(|c| c.record.id.clone())
        .collect()
}

/// A thread's reply edges where the API has none: every comment after the
/// first (the root) replies to the root.
pub(crate) fn replies_to_root(ids: &[String]) -> Vec<ReplyInput> {
    let Some((root, later)) = ids.split_first() else {
        return Vec::new();
    };
    later
        .iter()
        .map(|c| ReplyInput {
            comment_id: c.clone(),
            parent_comment_id: root.clone(),
        })
        .collect()
}

/// A response that is not what the API documents.
pub(crate) fn malformed(what: &str, message: impl Into<String>) -> ForgeError {
    ForgeError::Malformed {
        what: what.to_owned(),
        message: message.into(),
    }
}

/// A string field.
pub(crate) fn s<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// A numeric ID as its base-10 string (no leading zeroes).
pub(crate) fn num_id(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_u64).map(|n| n.to_string())
}

/// An optional timestamp field: absent or `null` is `None`, a string is
/// normalized, anything else is unmapped.
pub(crate) fn ts(v: &Value, key: &str) -> Result<Option<String>, MapError> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(t)) => timestamp(t).map(Some),
        Some(other) => Err(MapError::new("timestamp", other.to_string())),
    }
}

/// Percent-encodes one path segment (owner, name, login, SHA).
pub(crate) fn seg(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// An entity's labels: each a string or an object with a `name`.
pub(crate) fn labels(v: &Value) -> Vec<String> {
    v.get("labels")
        .and_then(Value::as_array)
        .map(|ls| {
            ls.iter()
                .filter_map(|l| match l {
                    Value::String(name) => Some(name.clone()),
                    other => s(other, "name").map(str::to_owned),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The records of a listing mapped one by one: `Ok(None)` is left out (an
/// unsubmitted review), an unmapped record is counted invalid, never
/// dropped silently.
pub(crate) fn listing<T>(
    raw: &[Value],
    beyond_window: u64,
    map: impl Fn(&Value) -> Result<Option<T>, MapError>,
) -> Listing<T> {
    let mut out = Listing {
        beyond_window,
        ..Listing::default()
    };
    for v in raw {
        match map(v) {
            Ok(Some(item)) => out.items.push(item),
            Ok(None) => {}
            Err(_) => out.invalid += 1,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_unmapped_value_is_cut_at_a_char_boundary() {
        let e = MapError::new("state", "é".repeat(40));
        assert_eq!(e.value.len(), 64);
        assert!(e.value.chars().all(|c| c == 'é'));
    }

    #[test]
    fn timestamps_absent_null_string_or_unmapped() {
        let v = json!({"a": null, "b": "2026-01-02T03:04:05Z", "c": 7});
        assert_eq!(ts(&v, "none"), Ok(None));
        assert_eq!(ts(&v, "a"), Ok(None));
        assert_eq!(
            ts(&v, "b"),
            Ok(Some("2026-01-02T03:04:05.000000000Z".into()))
        );
        assert_eq!(ts(&v, "c"), Err(MapError::new("timestamp", "7")));
    }

    #[test]
    fn segments_are_percent_encoded_but_for_unreserved_bytes() {
        assert_eq!(seg("a-b_c.d"), "a-b_c.d");
        assert_eq!(seg("a/b c%"), "a%2Fb%20c%25");
    }

    #[test]
    fn labels_as_strings_or_named_objects() {
        let v = json!({"labels": ["bug", {"name": "p1"}, {"id": 3}, 4]});
        assert_eq!(labels(&v), ["bug", "p1"]);
        assert!(labels(&json!({})).is_empty());
    }

    #[test]
    fn a_listing_counts_what_it_cannot_map() {
        let raw = [json!(1), json!("x"), json!(null)];
        let out = listing(&raw, 2, |v| match v {
            Value::Number(n) => Ok(n.as_u64()),
            Value::Null => Ok(None),
            _ => Err(MapError::missing("n")),
        });
        assert_eq!(out.items, [1]);
        assert_eq!(out.invalid, 1);
        assert_eq!(out.beyond_window, 2);
    }
}
