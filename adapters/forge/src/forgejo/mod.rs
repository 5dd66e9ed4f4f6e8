//! Forgejo (API v1) behind the forge port: the repository, the entity,
//! issue comments, formal reviews and permissions (D9).
//!
//! Not collected yet, each an `unsupported` gap of its scope (never an empty
//! history): review threads (the API groups review comments into
//! conversations without exposing the grouping, D8's root comment ID), and
//! checks (Actions tasks expose no terminal timestamp). Forgejo exposes no
//! bot flag: every account with a positive ID is a human; the deleted-account
//! placeholder (ID -1) is a deleted author.

pub mod map;

use probity_core::context::input::{CommentInput, EntityInput, ReviewInput};
use probity_core::context::profile::RecordSelection;
use probity_core::context::types::{ActorRole, EntityKind};
use probity_ports::forge::{
    ActorKindRef, ActorRef, Author, Authored, EntityRef, FetchedCheck, FetchedEntity,
    FetchedThreads, ForgeError, ForgePort, Listing, LogText, RepositoryInfo, Window,
};
use serde_json::Value;

use crate::http::{self, Client, Limits, Sleeper, Token};
use map::MapError;

/// Records per page (Forgejo's default maximum).
pub const PER_PAGE: u64 = 50;

/// The API base for a host: `https://<host>/api/v1`.
pub fn api_base_for_host(host: &str) -> String {
    format!("https://{host}/api/v1")
}

fn malformed(what: &str, message: impl Into<String>) -> ForgeError {
    ForgeError::Malformed {
        what: what.to_owned(),
        message: message.into(),
    }
}

fn s<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn num_id(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_u64).map(|n| n.to_string())
}

fn ts(v: &Value, key: &str) -> Result<Option<String>, MapError> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(t)) => map::timestamp(t).map(Some),
        Some(other) => Err(MapError {
            what: "timestamp",
            value: other.to_string(),
        }),
    }
}

fn seg(s: &str) -> String {
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

/// A record author from a Forgejo user object: `null` and the ghost
/// placeholder (ID -1) are deleted; another non-positive ID (the Actions
/// user) is unmapped.
pub fn author(user: Option<&Value>) -> Author {
    let Some(u) = user.filter(|u| !u.is_null()) else {
        return Author::Deleted;
    };
    match u.get("id").and_then(Value::as_i64) {
        Some(map::GHOST_ID) | None => Author::Deleted,
        Some(id) if id > 0 => Author::Actor(ActorRef {
            id: id.to_string(),
            login: s(u, "login").map(str::to_owned),
            kind: ActorKindRef::Human,
        }),
        Some(id) => Author::Unmapped { id: id.to_string() },
    }
}

/// Maps one issue comment.
pub fn comment(v: &Value) -> Result<Authored<CommentInput>, MapError> {
    let id = num_id(v, "id").ok_or(MapError {
        what: "comment id",
        value: "null".into(),
    })?;
    Ok(Authored {
        record: CommentInput {
            id: Some(id),
            author_id: None,
            created_at: ts(v, "created_at")?,
            updated_at: ts(v, "updated_at")?,
            body: s(v, "body").unwrap_or("").to_owned(),
        },
        author: author(v.get("user")),
    })
}

/// Maps one review; `None` for an unsubmitted one. The time is
/// `submitted_at`, else `created_at` when the review has no submission
/// field; neither is `invalid_metadata`.
pub fn review(v: &Value) -> Result<Option<Authored<ReviewInput>>, MapError> {
    let dismissed = v.get("dismissed").and_then(Value::as_bool).unwrap_or(false);
    let Some(state) = map::review_state(s(v, "state").unwrap_or(""), dismissed)? else {
        return Ok(None);
    };
    let id = num_id(v, "id").ok_or(MapError {
        what: "review id",
        value: "null".into(),
    })?;
    let submitted = if v.get("submitted_at").is_some() {
        ts(v, "submitted_at")?
    } else {
        ts(v, "created_at")?
    }
    .ok_or(MapError {
        what: "review submitted_at",
        value: "null".into(),
    })?;
    Ok(Some(Authored {
        record: ReviewInput {
            id: Some(id),
            author_id: None,
            state: state.as_str().to_owned(),
            submitted_at: Some(submitted),
            updated_at: None,
            reviewed_sha: s(v, "commit_id")
                .filter(|c| !c.is_empty())
                .map(str::to_owned),
            body: s(v, "body").unwrap_or("").to_owned(),
            // The API exposes neither who dismissed a review nor when.
            dismissed_at: None,
            dismissed_by_actor_id: None,
        },
        author: author(v.get("user")),
    }))
}

/// The Forgejo adapter for one repository.
#[derive(Debug)]
pub struct Forgejo<S: Sleeper> {
    client: Client<S>,
    owner: String,
    name: String,
}

impl<S: Sleeper> Forgejo<S> {
    /// An adapter for `owner/name` at `api_base`.
    pub fn new(
        api_base: &str,
        repository: &str,
        token: Option<Token>,
        limits: Limits,
        sleeper: S,
    ) -> Result<Self, ForgeError> {
        let (owner, name) = repository
            .split_once('/')
            .filter(|(o, n)| !o.is_empty() && !n.is_empty() && !n.contains('/'))
            .ok_or_else(|| ForgeError::NotFound {
                what: format!("repository `{repository}` (expected OWNER/NAME)"),
                status: 0,
            })?;
        let client = Client::new(
            api_base,
            token,
            vec![("Accept", "application/json")],
            limits,
            sleeper,
        )?;
        Ok(Self {
            client,
            owner: owner.to_owned(),
            name: name.to_owned(),
        })
    }

    fn repo_path(&self) -> String {
        format!("/repos/{}/{}", seg(&self.owner), seg(&self.name))
    }

    fn get(&mut self, path: &str) -> Result<(Value, http::Response), ForgeError> {
        let url = self.client.url(path);
        let resp = self.client.get_json(path, &url)?;
        Ok((http::json(path, &resp)?, resp))
    }

    fn page(&mut self, path: &str, page: u64) -> Result<(Vec<Value>, Option<u64>), ForgeError> {
        let (v, resp) = self.get(&format!("{path}?limit={PER_PAGE}&page={page}"))?;
        let items = v
            .as_array()
            .cloned()
            .ok_or_else(|| malformed(path, "no list in the page"))?;
        let total = resp
            .header("x-total-count")
            .and_then(|t| t.trim().parse().ok());
        Ok((items, total))
    }

    /// A listing within the window, paged by `page`/`limit` with
    /// `X-Total-Count`: the first pages (oldest) or the last pages
    /// backwards (newest).
    fn list(&mut self, path: &str, window: Window) -> Result<(Vec<Value>, u64), ForgeError> {
        let max = usize::try_from(window.max_records).unwrap_or(usize::MAX);
        let max_pages = window.max_records / PER_PAGE + 2;
        let (first, total) = self.page(path, 1)?;
        let Some(total) = total else {
            // No count: read on while pages are full, within the window.
            let mut out = first;
            let mut page = 1;
            let mut last_len = out.len() as u64;
            while last_len == PER_PAGE && out.len() < max && page < max_pages {
                page += 1;
                let (more, _) = self.page(path, page)?;
                last_len = more.len() as u64;
                out.extend(more);
            }
            let beyond = u64::from(last_len == PER_PAGE && out.len() >= max);
            return Ok((out, beyond));
        };
        // The server may cap pages below `limit` (MAX_RESPONSE_ITEMS): a
        // first page short of the total is a full page of its size.
        let page_size = if total > first.len() as u64 {
            (first.len() as u64).max(1)
        } else {
            PER_PAGE
        };
        let pages = total.div_ceil(page_size).max(1);
        if pages == 1 {
            return Ok((first, 0));
        }
        let mut out = Vec::new();
        match window.selection {
            RecordSelection::Oldest => {
                out = first;
                let mut page = 1;
                while out.len() < max && page < pages && page < max_pages {
                    page += 1;
                    out.extend(self.page(path, page)?.0);
                }
            }
            RecordSelection::Newest => {
                let mut page = pages;
                let mut read = 0;
                while out.len() < max && read < max_pages {
                    if page == 1 {
                        out.extend(first.iter().cloned());
                        break;
                    }
                    out.extend(self.page(path, page)?.0);
                    page -= 1;
                    read += 1;
                }
            }
        }
        Ok((out.clone(), total.saturating_sub(out.len() as u64)))
    }
}

impl<S: Sleeper> ForgePort for Forgejo<S> {
    fn repository(&mut self) -> Result<RepositoryInfo, ForgeError> {
        let path = self.repo_path();
        let (v, _) = self.get(&path)?;
        let full = s(&v, "full_name")
            .ok_or_else(|| malformed(&path, "no full_name"))?
            .to_ascii_lowercase();
        Ok(RepositoryInfo {
            repository_id: num_id(&v, "id"),
            repository: full,
        })
    }

    fn entity(&mut self, entity: EntityRef) -> Result<FetchedEntity, ForgeError> {
        let path = match entity.kind {
            EntityKind::ChangeProposal => format!("{}/pulls/{}", self.repo_path(), entity.number),
            EntityKind::WorkItem => format!("{}/issues/{}", self.repo_path(), entity.number),
        };
        let (v, _) = self.get(&path)?;
        let merged = match entity.kind {
            EntityKind::ChangeProposal => v.get("merged").and_then(Value::as_bool),
            EntityKind::WorkItem => {
                if v.get("pull_request").is_some_and(|p| !p.is_null()) {
                    return Err(ForgeError::InvalidMetadata {
                        what: format!("{path}: this issue is a pull request (use --change)"),
                        value: "pull_request".into(),
                    });
                }
                None
            }
        };
        let state = map::entity_state(entity.kind, s(&v, "state").unwrap_or(""), merged)?;
        let number = v
            .get("number")
            .and_then(Value::as_u64)
            .filter(|n| *n == entity.number)
            .ok_or_else(|| malformed(&path, "the number does not match"))?;
        let labels = v
            .get("labels")
            .and_then(Value::as_array)
            .map(|ls| {
                ls.iter()
                    .filter_map(|l| s(l, "name").map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        let head_sha = match entity.kind {
            EntityKind::ChangeProposal => v
                .pointer("/head/sha")
                .and_then(Value::as_str)
                .map(str::to_owned),
            EntityKind::WorkItem => None,
        };
        Ok(FetchedEntity {
            entity: EntityInput {
                kind: entity.kind.as_str().to_owned(),
                id: num_id(&v, "id"),
                number: i64::try_from(number).map_err(|_| malformed(&path, "number"))?,
                title: s(&v, "title").map(str::to_owned),
                state: state.as_str().to_owned(),
                author_id: None,
                created_at: ts(&v, "created_at")?,
                updated_at: ts(&v, "updated_at")?,
                labels,
                body: Some(s(&v, "body").unwrap_or("").to_owned()),
                head_sha,
            },
            author: author(v.get("user")),
        })
    }

    fn comments(
        &mut self,
        entity: EntityRef,
        _window: Window,
    ) -> Result<Listing<Authored<CommentInput>>, ForgeError> {
        // This endpoint is not paged: one bounded response holds them all.
        let path = format!("{}/issues/{}/comments", self.repo_path(), entity.number);
        let (v, _) = self.get(&path)?;
        let raw = v.as_array().ok_or_else(|| malformed(&path, "not a list"))?;
        let mut out = Listing::default();
        for c in raw {
            match comment(c) {
                Ok(c) => out.items.push(c),
                Err(_) => out.invalid += 1,
            }
        }
        Ok(out)
    }

    fn reviews(
        &mut self,
        number: u64,
        window: Window,
    ) -> Result<Listing<Authored<ReviewInput>>, ForgeError> {
        let path = format!("{}/pulls/{number}/reviews", self.repo_path());
        let (raw, beyond) = self.list(&path, window)?;
        let mut out = Listing {
            beyond_window: beyond,
            ..Listing::default()
        };
        for v in &raw {
            match review(v) {
                Ok(Some(r)) => out.items.push(r),
                Ok(None) => {}
                Err(_) => out.invalid += 1,
            }
        }
        Ok(out)
    }

    fn review_threads(&mut self, number: u64, _: Window) -> Result<FetchedThreads, ForgeError> {
        Err(ForgeError::Unsupported {
            what: format!("{}/pulls/{number} review threads", self.repo_path()),
        })
    }

    fn checks(&mut self, head_sha: &str, _: Window) -> Result<Listing<FetchedCheck>, ForgeError> {
        Err(ForgeError::Unsupported {
            what: format!("{} checks for {head_sha}", self.repo_path()),
        })
    }

    fn check_log(&mut self, log: &str, _: u64) -> Result<LogText, ForgeError> {
        Err(ForgeError::Unsupported {
            what: format!("check log {log}"),
        })
    }

    fn permission(&mut self, actor: &ActorRef) -> Result<ActorRole, ForgeError> {
        let login = actor.login.as_deref().ok_or_else(|| ForgeError::NotFound {
            what: format!("actor {} has no login", actor.id),
            status: 0,
        })?;
        let path = format!(
            "{}/collaborators/{}/permission",
            self.repo_path(),
            seg(login)
        );
        let (v, _) = self.get(&path)?;
        let p = s(&v, "permission").ok_or_else(|| malformed(&path, "no permission"))?;
        Ok(map::permission(p)?)
    }
}
