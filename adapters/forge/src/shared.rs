//! What the forge modules share beyond the HTTP client ([`crate::http`])
//! and the native field readers ([`crate::native`]): the `OWNER/NAME`
//! repository argument, JSON and bounded-log requests, the paths and
//! checks of an entity answer, the record a v1 entity is built from, and
//! the arithmetic of a listing window. What differs between forges (their
//! vocabularies and their pagination protocols) stays in each module.

use probity_core::context::{EntityInput, EntityKind, EntityState};
use probity_ports::forge::{ActorRef, EntityRef, ForgeError, LogText, RepositoryInfo, Window};
use serde_json::Value;

use crate::http::{self, Client, Sleeper};
use crate::native::{malformed, s, seg, ts};

/// Splits `OWNER/NAME` (both non-empty, the name without a `/`); anything
/// else is `NotFound` for the repository as given.
pub(crate) fn owner_and_name(repository: &str) -> Result<(String, String), ForgeError> {
    repository
        .split_once('/')
        .filter(|(o, n)| !o.is_empty() && !n.is_empty() && !n.contains('/'))
        .map(|(o, n)| (o.to_owned(), n.to_owned()))
        .ok_or_else(|| ForgeError::NotFound {
            what: format!("repository `{repository}` (expected OWNER/NAME)"),
            status: 0,
        })
}

/// GETs the JSON document at `url`, named `what` in errors: the parsed
/// value and the response it came in (for its headers).
pub(crate) fn get_url<S: Sleeper>(
    client: &mut Client<S>,
    what: &str,
    url: &str,
) -> Result<(Value, http::Response), ForgeError> {
    let resp = client.get_json(what, url)?;
    Ok((http::json(what, &resp)?, resp))
}

/// GETs the JSON document at `path` below the client's base (`path` names
/// it in errors).
pub(crate) fn get<S: Sleeper>(
    client: &mut Client<S>,
    path: &str,
) -> Result<(Value, http::Response), ForgeError> {
    let url = client.url(path);
    get_url(client, path, &url)
}

/// A check log at `log` (a path below the client's base), read to at most
/// one byte past `max_bytes` and then marked oversized.
pub(crate) fn bounded_log<S: Sleeper>(
    client: &mut Client<S>,
    log: &str,
    max_bytes: u64,
) -> Result<LogText, ForgeError> {
    let url = client.url(log);
    let resp = client.get_bounded(log, &url, max_bytes)?;
    Ok(LogText {
        text: String::from_utf8_lossy(&resp.body).into_owned(),
        oversized: resp.truncated,
    })
}

/// A repository answer at `path`: its `full_name`, lowercased (required),
/// and the forge's `id` for it.
pub(crate) fn repository_info(
    v: &Value,
    path: &str,
    id: Option<String>,
) -> Result<RepositoryInfo, ForgeError> {
    let full = s(v, "full_name")
        .ok_or_else(|| malformed(path, "no full_name"))?
        .to_ascii_lowercase();
    Ok(RepositoryInfo {
        repository_id: id,
        repository: full,
    })
}

/// The path of `actor`'s collaborator permission below `repo`, which
/// names its login (an actor without one is `NotFound`).
pub(crate) fn permission_path(repo: &str, actor: &ActorRef) -> Result<String, ForgeError> {
    let login = actor.login.as_deref().ok_or_else(|| ForgeError::NotFound {
        what: format!("actor {} has no login", actor.id),
        status: 0,
    })?;
    Ok(format!("{repo}/collaborators/{}/permission", seg(login)))
}

/// `path` with `query` appended (`?` or `&`, whichever `path` needs).
pub(crate) fn with_query(path: &str, query: &str) -> String {
    let sep = if path.contains('?') { '&' } else { '?' };
    format!("{path}{sep}{query}")
}

/// The entity's own path below `repo`: `/pulls/{n}` or `/issues/{n}`.
pub(crate) fn pull_or_issue(repo: &str, entity: EntityRef) -> String {
    match entity.kind {
        EntityKind::ChangeProposal => format!("{repo}/pulls/{}", entity.number),
        EntityKind::WorkItem => format!("{repo}/issues/{}", entity.number),
    }
}

/// An issue answer that is a pull request (its `pull_request` is set) is
/// refused as a work item.
pub(crate) fn refuse_pull_as_issue(v: &Value, path: &str) -> Result<(), ForgeError> {
    if v.get("pull_request").is_some_and(|p| !p.is_null()) {
        return Err(ForgeError::InvalidMetadata {
            what: format!("{path}: this issue is a pull request (use --change)"),
            value: "pull_request".into(),
        });
    }
    Ok(())
}

/// The number field `key` of an entity answer, which must be `want`.
pub(crate) fn matching_number(
    v: &Value,
    key: &str,
    want: u64,
    path: &str,
) -> Result<u64, ForgeError> {
    v.get(key)
        .and_then(Value::as_u64)
        .filter(|n| *n == want)
        .ok_or_else(|| malformed(path, format!("the {key} does not match")))
}

/// The v1 entity from a pull request or issue answer `v` at `path` shaped
/// as GitHub's (GitHub, Forgejo): its `number` must be the one asked for,
/// the description is its `body`, a pull request's head its `head.sha`.
pub(crate) fn repo_entity(
    v: &Value,
    path: &str,
    entity: EntityRef,
    id: Option<String>,
    state: EntityState,
    labels: Vec<String>,
) -> Result<EntityInput, ForgeError> {
    let parts = EntityParts {
        kind: entity.kind,
        id,
        number: matching_number(v, "number", entity.number, path)?,
        number_field: "number",
        state,
        labels,
        head_sha: head_sha(entity.kind, v),
    };
    entity_input(v, path, "body", parts)
}

/// A pull request's head revision (`head.sha`); none for an issue.
fn head_sha(kind: EntityKind, v: &Value) -> Option<String> {
    match kind {
        EntityKind::ChangeProposal => v
            .pointer("/head/sha")
            .and_then(Value::as_str)
            .map(str::to_owned),
        EntityKind::WorkItem => None,
    }
}

/// What a forge read from an entity answer before it is a v1 entity.
pub(crate) struct EntityParts {
    /// The entity's kind.
    pub kind: EntityKind,
    /// The forge's ID of the entity.
    pub id: Option<String>,
    /// The entity's number (checked against the one asked for).
    pub number: u64,
    /// The field the number was read from (`number`, `iid`).
    pub number_field: &'static str,
    /// The mapped state.
    pub state: EntityState,
    /// The labels.
    pub labels: Vec<String>,
    /// The head revision of a change proposal.
    pub head_sha: Option<String>,
}

/// The v1 entity from `parts` and the answer `v` at `path`: `title`,
/// `created_at` and `updated_at` read from `v`, and the description from
/// its field `body` (absent or `null` is the empty body).
pub(crate) fn entity_input(
    v: &Value,
    path: &str,
    body: &str,
    parts: EntityParts,
) -> Result<EntityInput, ForgeError> {
    Ok(EntityInput {
        kind: parts.kind.as_str().to_owned(),
        id: parts.id,
        number: i64::try_from(parts.number).map_err(|_| malformed(path, parts.number_field))?,
        title: s(v, "title").map(str::to_owned),
        state: parts.state.as_str().to_owned(),
        author_id: None,
        created_at: ts(v, "created_at")?,
        updated_at: ts(v, "updated_at")?,
        labels: parts.labels,
        body: Some(s(v, body).unwrap_or("").to_owned()),
        head_sha: parts.head_sha,
    })
}

/// The records a window admits (`max_records`, as a length) and the most
/// pages read for it: the pages that fill it plus `extra`.
pub(crate) fn window_caps(window: Window, per_page: u64, extra: u64) -> (usize, u64) {
    let max = usize::try_from(window.max_records).unwrap_or(usize::MAX);
    (max, window.max_records / per_page + extra)
}

/// How many records were left unread when a listing stopped early with
/// `read` in hand: what the forge's `total` leaves (at least one), else
/// one.
pub(crate) fn left_unread(total: Option<u64>, read: usize) -> u64 {
    total.map_or(1, |t| t.saturating_sub(read as u64).max(1))
}
