//! Forgejo (API v1) behind the forge port: the repository, the entity,
//! issue comments, formal reviews (D8 `dismissed`), review threads (D8: a
//! conversation is Forgejo's own key, the review, the file and the signed
//! line, and its identity is its root comment's ID) and permissions (D9).
//!
//! Checks are the commit statuses of the captured HEAD, the latest of each
//! context, mapped by the seed's Forgejo table (D-R94; see
//! `docs/context.md`): a status has no start time and no log, so only
//! queued and never-started ones can satisfy the v1 check rules; the
//! assembler counts the others `invalid_metadata`. Forgejo exposes no bot
//! flag: every account with a positive ID is a human; the deleted-account
//! placeholder (ID -1) is a deleted author.

pub mod map;

use std::collections::BTreeMap;

use probity_core::context::RecordSelection;
use probity_core::context::{ActorRole, EntityKind};
use probity_core::context::{CheckInput, CommentInput, ReviewInput, ThreadInput};
use probity_ports::forge::{
    ActorKindRef, ActorRef, Author, Authored, EntityRef, FetchedCheck, FetchedEntity,
    FetchedThreads, ForgeError, ForgePort, Listing, LogText, RepositoryInfo, Window,
};
use serde_json::Value;

use crate::http::{self, Client, Limits, Sleeper, Token};
use crate::native::{
    MapError, comment_ids, comment_record, listing, malformed, num_id, replies_to_root, s, seg, ts,
};
use crate::shared;

/// Records per page (Forgejo's default maximum).
pub const PER_PAGE: u64 = 50;

/// The API base for a host: `https://<host>/api/v1`.
pub fn api_base_for_host(host: &str) -> String {
    format!("https://{host}/api/v1")
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
    let id = num_id(v, "id").ok_or(MapError::missing("comment id"))?;
    Ok(Authored {
        record: comment_record(v, id, "created_at", "updated_at")?,
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
    let id = num_id(v, "id").ok_or(MapError::missing("review id"))?;
    let submitted = if v.get("submitted_at").is_some() {
        ts(v, "submitted_at")?
    } else {
        ts(v, "created_at")?
    }
    .ok_or(MapError::missing("review submitted_at"))?;
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

/// Maps one commit status (D-R94) of a combined status answer whose
/// forge-reported revision is `sha` (a status of its own naming another
/// revision keeps its own): its `id`, `context` as the name, `status` by
/// the seed's table, `created_at`. A status carries no start, terminal
/// time or log: none is set, and a completed one is `never_started: true`
/// only for `cancelled`/`canceled`/`skipped` (the seed's explicit
/// never-started report), `false` otherwise (which the assembler refuses
/// for want of a native start, never inventing one).
pub fn commit_status(v: &Value, sha: Option<&str>) -> Result<FetchedCheck, MapError> {
    let id = num_id(v, "id").ok_or(MapError::missing("check id"))?;
    let (status, conclusion) = map::check_status(s(v, "status").unwrap_or(""))?;
    let never_started = conclusion.map(|c| {
        matches!(
            c,
            probity_core::context::CheckConclusion::Cancelled
                | probity_core::context::CheckConclusion::Skipped
        )
    });
    Ok(FetchedCheck {
        check: CheckInput {
            id: Some(id),
            name: s(v, "context").unwrap_or("").to_owned(),
            status: status.as_str().to_owned(),
            conclusion: conclusion.map(|c| c.as_str().to_owned()),
            created_at: ts(v, "created_at")?,
            head_sha: s(v, "sha").or(sha).map(str::to_owned),
            started_at: None,
            completed_at: None,
            never_started,
            log: None,
        },
        log: None,
    })
}

/// The Forgejo adapter for one repository.
#[derive(Debug)]
pub struct Forgejo<S: Sleeper> {
    client: Client<S>,
    owner: String,
    name: String,
    /// The change proposal's reviews, read once for reviews and threads.
    reviews: Option<(Vec<Value>, u64)>,
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
        let (owner, name) = shared::owner_and_name(repository)?;
        let client = Client::new(
            api_base,
            token,
            vec![("Accept", "application/json")],
            limits,
            sleeper,
        )?;
        Ok(Self {
            client,
            owner,
            name,
            reviews: None,
        })
    }

    fn repo_path(&self) -> String {
        format!("/repos/{}/{}", seg(&self.owner), seg(&self.name))
    }

    fn get(&mut self, path: &str) -> Result<(Value, http::Response), ForgeError> {
        shared::get(&mut self.client, path)
    }

    fn page(&mut self, path: &str, page: u64) -> Result<(Vec<Value>, Option<u64>), ForgeError> {
        let (v, resp) = self.get(&format!("{path}?limit={PER_PAGE}&page={page}"))?;
        let items = match &v {
            Value::Array(items) => items.clone(),
            // A combined commit status: the page's statuses, each with the
            // answer's `sha` (the forge-reported revision) unless it names
            // its own; `{}` (no status at all) is an empty page.
            Value::Object(o) if path.ends_with("/status") => match o.get("statuses") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(items)) => {
                    let sha = o.get("sha").cloned().unwrap_or(Value::Null);
                    items
                        .iter()
                        .map(|item| {
                            let mut item = item.clone();
                            if let Value::Object(m) = &mut item {
                                m.entry("sha").or_insert_with(|| sha.clone());
                            }
                            item
                        })
                        .collect()
                }
                Some(_) => return Err(malformed(path, "statuses is not a list")),
            },
            _ => return Err(malformed(path, "no list in the page")),
        };
        let total = resp
            .header("x-total-count")
            .and_then(|t| t.trim().parse().ok());
        Ok((items, total))
    }

    /// A listing within the window, paged by `page`/`limit` with
    /// `X-Total-Count`: the first pages (oldest) or the last pages
    /// backwards (newest).
    fn list(&mut self, path: &str, window: Window) -> Result<(Vec<Value>, u64), ForgeError> {
        let (max, max_pages) = shared::window_caps(window, PER_PAGE, 2);
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

impl<S: Sleeper> Forgejo<S> {
    fn raw_reviews(
        &mut self,
        number: u64,
        window: Window,
    ) -> Result<(Vec<Value>, u64), ForgeError> {
        if let Some(r) = &self.reviews {
            return Ok(r.clone());
        }
        let path = format!("{}/pulls/{number}/reviews", self.repo_path());
        let r = self.list(&path, window)?;
        self.reviews = Some(r.clone());
        Ok(r)
    }
}

/// A review comment's conversation: Forgejo's own key (the review, the
/// file, and the signed line: `position` on the new side, else
/// `original_position` on the old side), as its web view and its
/// `FetchCodeConversation` group comments.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct ConversationKey {
    review: u64,
    path: String,
    /// `right` for a new-side line, `left` for an old-side one.
    side: Option<&'static str>,
    line: Option<u64>,
}

fn conversation_key(review: u64, c: &Value) -> ConversationKey {
    let pos = c.get("position").and_then(Value::as_u64).filter(|n| *n > 0);
    let orig = c
        .get("original_position")
        .and_then(Value::as_u64)
        .filter(|n| *n > 0);
    let (side, line) = match (pos, orig) {
        (Some(l), _) => (Some("right"), Some(l)),
        (None, Some(l)) => (Some("left"), Some(l)),
        (None, None) => (None, None),
    };
    ConversationKey {
        review,
        path: s(c, "path").unwrap_or("").to_owned(),
        side,
        line,
    }
}

/// D8: review comments grouped into threads. A thread is one conversation
/// (`ConversationKey`); its comments in forge order (creation time, then
/// ID); its identity and `created_at` are its root (first) comment's;
/// every later comment replies to the root (the API has no reply edge). It
/// is resolved when the root comment names a `resolver` (Forgejo marks the
/// conversation on its first comment); a deleted resolver leaves
/// `resolved_by_actor_id` null. `outdated` is `false`: the API exposes no
/// such observation and it is never inferred. A conversation with a
/// comment that lacks its ID or a valid time is `invalid_metadata` as a
/// whole (and its comments are counted too).
pub fn group_threads(comments: &[(u64, Value)]) -> FetchedThreads {
    let mut groups: BTreeMap<ConversationKey, Vec<&Value>> = BTreeMap::new();
    for (review, c) in comments {
        groups
            .entry(conversation_key(*review, c))
            .or_default()
            .push(c);
    }
    let mut out = FetchedThreads::default();
    for (key, members) in groups {
        let mapped: Result<Vec<Authored<CommentInput>>, MapError> =
            members.iter().map(|c| comment(c)).collect();
        let Ok(mut mapped) = mapped.map_err(|_| ()).and_then(|m| {
            if m.iter().any(|c| c.record.created_at.is_none()) {
                Err(())
            } else {
                Ok(m)
            }
        }) else {
            out.threads.invalid += 1;
            out.comments.invalid += members.len() as u64;
            continue;
        };
        // Forge order: creation time (canonical, so it sorts), then ID.
        let order = |c: &Authored<CommentInput>| {
            let id: u64 = c
                .record
                .id
                .as_deref()
                .and_then(|i| i.parse().ok())
                .unwrap_or(0);
            (c.record.created_at.clone(), id)
        };
        mapped.sort_by_key(order);
        let ids = comment_ids(&mapped);
        let Some(root_id) = ids.first().cloned() else {
            continue;
        };
        let root = members
            .iter()
            .find(|c| num_id(c, "id").as_deref() == Some(root_id.as_str()))
            .copied();
        let resolver = root
            .and_then(|r| r.get("resolver"))
            .filter(|u| !u.is_null());
        let resolved_by = match resolver.map(|u| author(Some(u))) {
            Some(Author::Actor(a)) => Some(a),
            _ => None,
        };
        let reviewed_sha = root
            .and_then(|r| s(r, "commit_id"))
            .filter(|c| !c.is_empty())
            .map(str::to_owned);
        out.threads.items.push(ThreadInput {
            id: Some(root_id.clone()),
            created_at: mapped.first().and_then(|c| c.record.created_at.clone()),
            comment_ids: ids.clone(),
            replies: replies_to_root(&ids),
            review_id: Some(key.review.to_string()),
            reviewed_sha,
            path: Some(key.path).filter(|p| !p.is_empty()),
            line: key.line.and_then(|l| i64::try_from(l).ok()),
            side: key.side.map(str::to_owned),
            start_line: None,
            original_line: None,
            original_start_line: None,
            original_side: None,
            resolved: resolver.is_some(),
            resolved_by_actor_id: resolved_by.as_ref().map(|a| a.id.clone()),
            outdated: false,
            minimized: None,
        });
        out.resolvers.extend(resolved_by);
        out.comments.items.extend(mapped);
    }
    out
}

impl<S: Sleeper> ForgePort for Forgejo<S> {
    fn repository(&mut self) -> Result<RepositoryInfo, ForgeError> {
        let path = self.repo_path();
        let (v, _) = self.get(&path)?;
        shared::repository_info(&v, &path, num_id(&v, "id"))
    }

    fn entity(&mut self, entity: EntityRef) -> Result<FetchedEntity, ForgeError> {
        let path = shared::pull_or_issue(&self.repo_path(), entity);
        let (v, _) = self.get(&path)?;
        let merged = match entity.kind {
            EntityKind::ChangeProposal => v.get("merged").and_then(Value::as_bool),
            EntityKind::WorkItem => {
                shared::refuse_pull_as_issue(&v, &path)?;
                None
            }
        };
        let state = map::entity_state(entity.kind, s(&v, "state").unwrap_or(""), merged)?;
        // Forgejo's labels are objects: only a named one is a label.
        let labels = v
            .get("labels")
            .and_then(Value::as_array)
            .map(|ls| {
                ls.iter()
                    .filter_map(|l| s(l, "name").map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        let id = num_id(&v, "id");
        Ok(FetchedEntity {
            entity: shared::repo_entity(&v, &path, entity, id, state, labels)?,
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
        Ok(listing(raw, 0, |c| comment(c).map(Some)))
    }

    fn reviews(
        &mut self,
        number: u64,
        window: Window,
    ) -> Result<Listing<Authored<ReviewInput>>, ForgeError> {
        let (raw, beyond) = self.raw_reviews(number, window)?;
        Ok(listing(&raw, beyond, review))
    }

    /// D8: the review comments of every submitted review in the window
    /// (`GET …/pulls/{n}/reviews/{id}/comments`, one unpaged response per
    /// review), grouped into conversations by [`group_threads`]. The
    /// threads of reviews beyond the window are not read: the reviews'
    /// own `profile_bound` gap already marks the scope partial.
    fn review_threads(
        &mut self,
        number: u64,
        window: Window,
    ) -> Result<FetchedThreads, ForgeError> {
        let (raw, _) = self.raw_reviews(number, window)?;
        let base = format!("{}/pulls/{number}/reviews", self.repo_path());
        let mut comments = Vec::new();
        for r in &raw {
            // Unsubmitted requests hold no visible comments.
            if matches!(s(r, "state"), Some("PENDING" | "REQUEST_REVIEW")) {
                continue;
            }
            let Some(rid) = r.get("id").and_then(Value::as_u64) else {
                continue;
            };
            if r.get("comments_count").and_then(Value::as_u64) == Some(0) {
                continue;
            }
            let path = format!("{base}/{rid}/comments");
            let (v, _) = self.get(&path)?;
            let list = v.as_array().ok_or_else(|| malformed(&path, "not a list"))?;
            comments.extend(list.iter().map(|c| (rid, c.clone())));
        }
        Ok(group_threads(&comments))
    }

    /// D-R94: the combined commit status of `head_sha` (the latest status
    /// of each context), paged like every listing.
    fn checks(
        &mut self,
        head_sha: &str,
        window: Window,
    ) -> Result<Listing<FetchedCheck>, ForgeError> {
        let path = format!("{}/commits/{}/status", self.repo_path(), seg(head_sha));
        let (raw, beyond) = self.list(&path, window)?;
        Ok(listing(&raw, beyond, |v| commit_status(v, None).map(Some)))
    }

    /// A commit status has no log: no check answers a handle.
    fn check_log(&mut self, log: &str, _: u64) -> Result<LogText, ForgeError> {
        Err(ForgeError::Unsupported {
            what: format!("check log {log} (a Forgejo commit status has no log)"),
        })
    }

    fn permission(&mut self, actor: &ActorRef) -> Result<ActorRole, ForgeError> {
        let path = shared::permission_path(&self.repo_path(), actor)?;
        let (v, _) = self.get(&path)?;
        let p = s(&v, "permission").ok_or_else(|| malformed(&path, "no permission"))?;
        Ok(map::permission(p)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn c(id: u64, path: &str, pos: u64, orig: u64, at: &str) -> Value {
        json!({ "id": id, "body": "x", "user": { "id": 5, "login": "eve" },
                "resolver": null, "created_at": at, "updated_at": at, "path": path,
                "commit_id": "", "position": pos, "original_position": orig })
    }

    /// D8: Forgejo's conversation key is the review, the file and the
    /// signed line; the same line in another review, or on the other
    /// side, is another conversation.
    #[test]
    fn d8_the_conversation_key_is_review_path_and_signed_line() {
        let t0 = "2026-01-01T00:00:00Z";
        let t1 = "2026-01-01T00:00:01Z";
        let comments = vec![
            (1, c(10, "a.rs", 3, 0, t0)),
            (1, c(12, "a.rs", 3, 0, t1)),
            (2, c(11, "a.rs", 3, 0, t0)),
            (1, c(13, "a.rs", 0, 3, t0)),
            (1, c(14, "b.rs", 3, 0, t0)),
        ];
        let t = group_threads(&comments);
        let mut ids: Vec<_> = t
            .threads
            .items
            .iter()
            .map(|t| (t.id.clone().unwrap_or_default(), t.comment_ids.len()))
            .collect();
        ids.sort();
        let want = [("10", 2), ("11", 1), ("13", 1), ("14", 1)];
        let want: Vec<_> = want.iter().map(|(i, n)| ((*i).to_owned(), *n)).collect();
        assert_eq!(ids, want);
        // The same creation time: the lower ID is the root.
        let same = vec![(1, c(21, "a.rs", 3, 0, t0)), (1, c(20, "a.rs", 3, 0, t0))];
        let t = group_threads(&same);
        assert_eq!(t.threads.items[0].id.as_deref(), Some("20"));
        assert!(t.threads.items[0].reviewed_sha.is_none());
    }
}
