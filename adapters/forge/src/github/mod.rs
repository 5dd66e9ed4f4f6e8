//! GitHub (REST v3, plus one GraphQL query for review threads) behind the
//! forge port.
//!
//! Endpoints: `GET /repos/{o}/{r}` (repository node ID), `/pulls/{n}` or
//! `/issues/{n}` (the entity), `/issues/{n}/comments`, `/pulls/{n}/reviews`,
//! `/commits/{sha}/check-runs`, `/actions/jobs/{id}` (a check run's
//! creation time, D7: a job's ID is its check run's ID) and
//! `/actions/jobs/{id}/logs`, `/collaborators/{login}/permission`; and
//! `POST /graphql` `reviewThreads` (REST has no review-thread node ID, nor
//! its resolution or outdated state, D8). Listings follow the `Link` header
//! within the profile's window. Every native value passes a table in
//! [`map`].

pub mod map;

use probity_core::context::RecordSelection;
use probity_core::context::{ActorRole, EntityKind};
use probity_core::context::{CheckInput, CommentInput, ReplyInput, ReviewInput, ThreadInput};
use probity_ports::forge::{
    ActorRef, Author, Authored, EntityRef, FetchedCheck, FetchedEntity, FetchedThreads, ForgeError,
    ForgePort, Listing, LogText, RepositoryInfo, Window,
};
use serde_json::{Value, json};

use crate::http::{self, Client, Limits, Sleeper, Token};
use crate::native::{
    MapError, comment_ids, comment_record, labels, listing, malformed, s, seg, ts,
};
use crate::shared;

/// Records per page (GitHub's maximum).
pub const PER_PAGE: u64 = 100;
/// Review threads per GraphQL page.
pub const THREADS_PER_PAGE: u64 = 50;
/// Comments read per review thread.
pub const COMMENTS_PER_THREAD: u64 = 100;

/// The REST API base for a host: `api.github.com` for `github.com`, else
/// GitHub Enterprise Server's `https://<host>/api/v3`.
pub fn api_base_for_host(host: &str) -> String {
    if host == "github.com" {
        "https://api.github.com".to_owned()
    } else {
        format!("https://{host}/api/v3")
    }
}

/// The GraphQL endpoint next to a REST base (`…/api/v3` → `…/api/graphql`,
/// otherwise `<base>/graphql`).
pub fn graphql_url(base: &str) -> String {
    let base = base.trim_end_matches('/');
    match base.strip_suffix("/api/v3") {
        Some(root) => format!("{root}/api/graphql"),
        None => format!("{base}/graphql"),
    }
}

/// The GitHub adapter for one repository.
#[derive(Debug)]
pub struct GitHub<S: Sleeper> {
    client: Client<S>,
    owner: String,
    name: String,
    graphql: String,
}

/// A record author from a REST `user` object (or a GraphQL `author`,
/// whose type is `__typename` and whose ID is `id`). `null` and the ghost
/// placeholder are a deleted author.
pub fn author(user: Option<&Value>) -> Author {
    let Some(u) = user.filter(|u| !u.is_null()) else {
        return Author::Deleted;
    };
    let login = s(u, "login");
    if login == Some(map::GHOST_LOGIN) {
        return Author::Deleted;
    }
    let id = s(u, "node_id").or_else(|| s(u, "id"));
    let kind = s(u, "type").or_else(|| s(u, "__typename")).unwrap_or("");
    match (id, map::actor_kind(kind)) {
        (Some(id), Ok(kind)) => Author::Actor(ActorRef {
            id: id.to_owned(),
            login: login.map(str::to_owned),
            kind,
        }),
        (Some(id), Err(_)) => Author::Unmapped { id: id.to_owned() },
        // A user object without an ID: withheld.
        (None, _) => Author::Deleted,
    }
}

/// Maps one issue comment (REST).
pub fn comment(v: &Value) -> Result<Authored<CommentInput>, MapError> {
    let id = s(v, "node_id").ok_or(MapError::missing("comment node_id"))?;
    Ok(Authored {
        record: comment_record(v, id.to_owned(), "created_at", "updated_at")?,
        author: author(v.get("user")),
    })
}

/// Maps one review (REST); `None` for an unsubmitted (`PENDING`) review.
pub fn review(v: &Value) -> Result<Option<Authored<ReviewInput>>, MapError> {
    let state = s(v, "state").ok_or(MapError::missing("review state"))?;
    let Some(state) = map::review_state(state)? else {
        return Ok(None);
    };
    let id = s(v, "node_id").ok_or(MapError::missing("review node_id"))?;
    // The canonical time is the submission; a submitted review without it
    // is invalid (never the pending review's start).
    let submitted = ts(v, "submitted_at")?.ok_or(MapError::missing("review submitted_at"))?;
    Ok(Some(Authored {
        record: ReviewInput {
            id: Some(id.to_owned()),
            author_id: None,
            state: state.as_str().to_owned(),
            submitted_at: Some(submitted),
            updated_at: None,
            reviewed_sha: s(v, "commit_id").map(str::to_owned),
            body: s(v, "body").unwrap_or("").to_owned(),
            // REST exposes neither who dismissed a review nor when: `null`.
            dismissed_at: None,
            dismissed_by_actor_id: None,
        },
        author: author(v.get("user")),
    }))
}

/// Maps one check run (REST); `job_created_at` is the Actions job's
/// `created_at` (D7), `None` when there is no job.
pub fn check_run(v: &Value, job_created_at: Option<&str>) -> Result<CheckInput, MapError> {
    let f = map::check_fields(
        s(v, "status").unwrap_or(""),
        s(v, "conclusion"),
        s(v, "started_at"),
        s(v, "completed_at"),
    )?;
    let created = job_created_at.map(map::timestamp).transpose()?;
    Ok(CheckInput {
        id: s(v, "node_id").map(str::to_owned),
        name: s(v, "name").unwrap_or("").to_owned(),
        status: f.status.as_str().to_owned(),
        conclusion: f.conclusion.map(|c| c.as_str().to_owned()),
        created_at: created,
        head_sha: s(v, "head_sha").map(str::to_owned),
        started_at: f.started_at,
        completed_at: f.completed_at,
        never_started: f.never_started,
        log: None,
    })
}

/// A mapped review thread: the thread, its comments, its resolver.
pub type MappedThread = (ThreadInput, Vec<Authored<CommentInput>>, Option<ActorRef>);

/// Maps one GraphQL review thread: the thread, its comments, and the
/// resolver. The thread's `created_at` is its first comment's (D8).
pub fn thread(v: &Value) -> Result<MappedThread, MapError> {
    let id = s(v, "id").ok_or(MapError::missing("review thread id"))?;
    let nodes = v
        .pointer("/comments/nodes")
        .and_then(Value::as_array)
        .ok_or(MapError::missing("review thread comments"))?;
    let mut comments = Vec::new();
    let mut replies = Vec::new();
    for c in nodes {
        let cid = s(c, "id").ok_or(MapError::missing("review comment id"))?;
        if let Some(parent) = c.pointer("/replyTo/id").and_then(Value::as_str) {
            replies.push(ReplyInput {
                comment_id: cid.to_owned(),
                parent_comment_id: parent.to_owned(),
            });
        }
        comments.push(Authored {
            record: comment_record(c, cid.to_owned(), "createdAt", "updatedAt")?,
            author: author(c.get("author")),
        });
    }
    let first = nodes.first();
    let created = first.map(|c| ts(c, "createdAt")).transpose()?.flatten();
    let side = s(v, "diffSide").map(map::side).transpose()?;
    let int = |k: &str| v.get(k).and_then(Value::as_i64);
    let resolver = match v.get("resolvedBy") {
        Some(u) if !u.is_null() => match author(Some(&json!({
            "__typename": "User",
            "login": u.get("login"),
            "id": u.get("id"),
        }))) {
            Author::Actor(a) => Some(a),
            _ => None,
        },
        _ => None,
    };
    let resolved = v
        .get("isResolved")
        .and_then(Value::as_bool)
        .ok_or(MapError::missing("review thread isResolved"))?;
    let outdated = v
        .get("isOutdated")
        .and_then(Value::as_bool)
        .ok_or(MapError::missing("review thread isOutdated"))?;
    Ok((
        ThreadInput {
            id: Some(id.to_owned()),
            created_at: created,
            comment_ids: comment_ids(&comments),
            replies,
            review_id: first
                .and_then(|c| c.pointer("/pullRequestReview/id"))
                .and_then(Value::as_str)
                .map(str::to_owned),
            reviewed_sha: first
                .and_then(|c| c.pointer("/originalCommit/oid"))
                .and_then(Value::as_str)
                .map(str::to_owned),
            path: s(v, "path").map(str::to_owned),
            line: int("line"),
            side: side.map(|x| x.as_str().to_owned()),
            start_line: int("startLine"),
            original_line: int("originalLine"),
            original_start_line: int("originalStartLine"),
            original_side: None,
            resolved,
            resolved_by_actor_id: resolver.as_ref().map(|r| r.id.clone()),
            outdated,
            minimized: None,
        },
        comments,
        resolver,
    ))
}

const THREADS_QUERY: &str = "query($owner:String!,$name:String!,$number:Int!,$first:Int!,$after:String){\
repository(owner:$owner,name:$name){pullRequest(number:$number){\
reviewThreads(first:$first,after:$after){totalCount pageInfo{hasNextPage endCursor} \
nodes{id isResolved isOutdated path line startLine originalLine originalStartLine diffSide \
resolvedBy{login id} \
comments(first:100){totalCount nodes{id body createdAt updatedAt replyTo{id} \
originalCommit{oid} pullRequestReview{id} author{__typename login ... on Node{id}}}}}}}}}";

impl<S: Sleeper> GitHub<S> {
    /// An adapter for `owner/name` at `api_base` (see [`api_base_for_host`]).
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
            vec![
                ("Accept", "application/vnd.github+json"),
                ("X-GitHub-Api-Version", "2022-11-28"),
            ],
            limits,
            sleeper,
        )?;
        let graphql = graphql_url(client.base());
        Ok(Self {
            client,
            owner,
            name,
            graphql,
        })
    }

    fn repo_path(&self) -> String {
        format!("/repos/{}/{}", seg(&self.owner), seg(&self.name))
    }

    fn get(&mut self, path: &str) -> Result<(Value, http::Response), ForgeError> {
        shared::get(&mut self.client, path)
    }

    /// One page: its items and its links (checked to stay on the base).
    fn page(
        &mut self,
        what: &str,
        url: &str,
        items: fn(&Value) -> Option<&Vec<Value>>,
    ) -> Result<(Vec<Value>, std::collections::BTreeMap<String, String>), ForgeError> {
        let (v, resp) = shared::get_url(&mut self.client, what, url)?;
        let list = items(&v)
            .cloned()
            .ok_or_else(|| malformed(what, "no list in the page"))?;
        let links = resp
            .header("link")
            .map(http::parse_link)
            .unwrap_or_default();
        for l in links.values() {
            self.client.check_same_base(what, l)?;
        }
        Ok((list, links))
    }

    /// A listing within the window: the first pages (oldest) or the last
    /// pages (newest, from `rel="last"` backwards). Returns the raw items
    /// and how many records were left unfetched.
    fn list(
        &mut self,
        path: &str,
        window: Window,
        items: fn(&Value) -> Option<&Vec<Value>>,
    ) -> Result<(Vec<Value>, u64), ForgeError> {
        let first = self
            .client
            .url(&shared::with_query(path, &format!("per_page={PER_PAGE}")));
        // Pages needed to fill the window, plus the first and last.
        let (max, max_pages) = shared::window_caps(window, PER_PAGE, 3);
        let (page1, links1) = self.page(path, &first, items)?;
        let Some(next1) = links1.get("next").cloned() else {
            return Ok((page1, 0));
        };
        let last = links1.get("last").cloned();
        // A page with a next one is full: its length is the page size
        // (whatever per_page the forge honoured).
        let page_size = page1.len() as u64;
        let total_from_last = |last_url: &str, last_len: usize| -> Option<u64> {
            let n = http::page_number(last_url)?;
            Some(n.saturating_sub(1) * page_size + last_len as u64)
        };
        match (window.selection, last) {
            (RecordSelection::Newest, Some(last_url)) => {
                let mut out = Vec::new();
                let (last_items, mut links) = self.page(path, &last_url, items)?;
                let total = total_from_last(&last_url, last_items.len());
                out.extend(last_items);
                let mut pages = 1;
                let mut reached_first = false;
                while out.len() < max && pages < max_pages {
                    match links.get("prev").cloned() {
                        Some(prev) if http::page_number(&prev).unwrap_or(1) > 1 => {
                            let (more, l) = self.page(path, &prev, items)?;
                            out.extend(more);
                            links = l;
                            pages += 1;
                        }
                        _ => {
                            out.extend(page1.iter().cloned());
                            reached_first = true;
                            break;
                        }
                    }
                }
                let beyond = if reached_first {
                    0
                } else {
                    shared::left_unread(total, out.len())
                };
                Ok((out, beyond))
            }
            (_, last) => {
                let mut out = page1;
                let mut next = Some(next1);
                let mut pages = 1;
                while out.len() < max && pages < max_pages {
                    let Some(url) = next.take() else { break };
                    let (more, l) = self.page(path, &url, items)?;
                    out.extend(more);
                    next = l.get("next").cloned();
                    pages += 1;
                }
                if next.is_none() {
                    return Ok((out, 0));
                }
                // Count what is left from the last page.
                let beyond = match last {
                    Some(last_url) => {
                        let (last_items, _) = self.page(path, &last_url, items)?;
                        shared::left_unread(total_from_last(&last_url, last_items.len()), out.len())
                    }
                    None => 1,
                };
                Ok((out, beyond))
            }
        }
    }

    /// One GraphQL query. A `RATE_LIMITED` answer (HTTP 200, the limit in
    /// the body) is waited out and retried like a REST rate limit, within
    /// the client's bounded total (then `RateLimited`).
    fn graphql(&mut self, what: &str, variables: Value) -> Result<Value, ForgeError> {
        let url = self.graphql.clone();
        let body = json!({"query": THREADS_QUERY, "variables": variables});
        loop {
            let resp = self.client.post_json(what, &url, &body)?;
            let v = http::json(what, &resp)?;
            let Some(errors) = v
                .get("errors")
                .and_then(Value::as_array)
                .filter(|e| !e.is_empty())
            else {
                return Ok(v);
            };
            let kind = errors[0].get("type").and_then(Value::as_str).unwrap_or("");
            return Err(match kind {
                "RATE_LIMITED" => {
                    self.client.wait_out_reported(what, &resp)?;
                    continue;
                }
                "NOT_FOUND" => ForgeError::NotFound {
                    what: what.to_owned(),
                    status: 200,
                },
                "FORBIDDEN" => ForgeError::Unauthorized {
                    what: what.to_owned(),
                    status: 200,
                },
                _ => malformed(what, "the GraphQL answer has errors"),
            });
        }
    }
}

fn as_list(v: &Value) -> Option<&Vec<Value>> {
    v.as_array()
}

fn check_runs_list(v: &Value) -> Option<&Vec<Value>> {
    v.get("check_runs").and_then(Value::as_array)
}

impl<S: Sleeper> ForgePort for GitHub<S> {
    fn repository(&mut self) -> Result<RepositoryInfo, ForgeError> {
        let path = self.repo_path();
        let (v, _) = self.get(&path)?;
        let id = s(&v, "node_id").map(str::to_owned);
        shared::repository_info(&v, &path, id)
    }

    fn entity(&mut self, entity: EntityRef) -> Result<FetchedEntity, ForgeError> {
        let path = shared::pull_or_issue(&self.repo_path(), entity);
        let (v, _) = self.get(&path)?;
        let merged = match entity.kind {
            EntityKind::ChangeProposal => Some(
                v.get("merged")
                    .and_then(Value::as_bool)
                    .ok_or_else(|| ForgeError::from(MapError::missing("pull request merged")))?,
            ),
            EntityKind::WorkItem => {
                shared::refuse_pull_as_issue(&v, &path)?;
                None
            }
        };
        let state = map::entity_state(entity.kind, s(&v, "state").unwrap_or(""), merged)?;
        let id = s(&v, "node_id").map(str::to_owned);
        // An empty description is `null` on GitHub: the empty body.
        Ok(FetchedEntity {
            entity: shared::repo_entity(&v, &path, entity, id, state, labels(&v))?,
            author: author(v.get("user")),
        })
    }

    fn comments(
        &mut self,
        entity: EntityRef,
        window: Window,
    ) -> Result<Listing<Authored<CommentInput>>, ForgeError> {
        let path = format!("{}/issues/{}/comments", self.repo_path(), entity.number);
        let (raw, beyond) = self.list(&path, window, as_list)?;
        Ok(listing(&raw, beyond, |v| comment(v).map(Some)))
    }

    fn reviews(
        &mut self,
        number: u64,
        window: Window,
    ) -> Result<Listing<Authored<ReviewInput>>, ForgeError> {
        let path = format!("{}/pulls/{number}/reviews", self.repo_path());
        let (raw, beyond) = self.list(&path, window, as_list)?;
        Ok(listing(&raw, beyond, review))
    }

    fn review_threads(
        &mut self,
        number: u64,
        window: Window,
    ) -> Result<FetchedThreads, ForgeError> {
        let what = format!(
            "{}/pulls/{number} review threads (GraphQL)",
            self.repo_path()
        );
        let mut out = FetchedThreads::default();
        let mut after: Option<String> = None;
        let mut total = 0;
        let mut fetched = 0u64;
        loop {
            let v = self.graphql(
                &what,
                json!({"owner": self.owner, "name": self.name, "number": number,
                       "first": THREADS_PER_PAGE, "after": after}),
            )?;
            let conn = v
                .pointer("/data/repository/pullRequest/reviewThreads")
                .filter(|c| !c.is_null())
                .ok_or_else(|| ForgeError::NotFound {
                    what: what.clone(),
                    status: 200,
                })?;
            total = conn
                .get("totalCount")
                .and_then(Value::as_u64)
                .unwrap_or(total);
            let nodes = conn
                .get("nodes")
                .and_then(Value::as_array)
                .ok_or_else(|| malformed(&what, "no nodes"))?;
            for n in nodes {
                fetched += 1;
                match thread(n) {
                    Ok((t, comments, resolver)) => {
                        let have = comments.len() as u64;
                        let all = n
                            .pointer("/comments/totalCount")
                            .and_then(Value::as_u64)
                            .unwrap_or(have);
                        out.comments.beyond_window += all.saturating_sub(have);
                        out.comments.items.extend(comments);
                        out.resolvers.extend(resolver);
                        out.threads.items.push(t);
                    }
                    Err(_) => out.threads.invalid += 1,
                }
            }
            let has_next = conn
                .pointer("/pageInfo/hasNextPage")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            after = conn
                .pointer("/pageInfo/endCursor")
                .and_then(Value::as_str)
                .map(str::to_owned);
            if !has_next || after.is_none() || fetched >= window.max_records || nodes.is_empty() {
                break;
            }
        }
        out.threads.beyond_window = total.saturating_sub(fetched);
        Ok(out)
    }

    fn checks(
        &mut self,
        head_sha: &str,
        window: Window,
    ) -> Result<Listing<FetchedCheck>, ForgeError> {
        let path = format!("{}/commits/{}/check-runs", self.repo_path(), seg(head_sha));
        let (raw, beyond) = self.list(&path, window, check_runs_list)?;
        let mut out = Listing {
            beyond_window: beyond,
            ..Listing::default()
        };
        for v in &raw {
            // D7: the Actions job's created_at (a job's ID is its check
            // run's ID); a check run without a job (the lookup answers
            // 404) has no creation time and the assembler counts it
            // invalid_metadata. Any other failure of the lookup (a 5xx, a
            // timeout, a rate limit) is no answer at all: the check is
            // left out as fetch_failed, never taken for one without a job.
            let job = match v.get("id").and_then(Value::as_u64) {
                Some(id) => {
                    let job_path = format!("{}/actions/jobs/{id}", self.repo_path());
                    match self.get(&job_path) {
                        Ok((j, _)) => Some((id, j)),
                        Err(ForgeError::NotFound { .. }) => None,
                        Err(_) => {
                            out.fetch_failed += 1;
                            continue;
                        }
                    }
                }
                None => None,
            };
            let created = job.as_ref().and_then(|(_, j)| s(j, "created_at"));
            match check_run(v, created) {
                Ok(check) => {
                    let log = job
                        .as_ref()
                        .map(|(id, _)| format!("{}/actions/jobs/{id}/logs", self.repo_path()));
                    out.items.push(FetchedCheck { check, log });
                }
                Err(_) => out.invalid += 1,
            }
        }
        Ok(out)
    }

    fn check_log(&mut self, log: &str, max_bytes: u64) -> Result<LogText, ForgeError> {
        shared::bounded_log(&mut self.client, log, max_bytes)
    }

    fn permission(&mut self, actor: &ActorRef) -> Result<ActorRole, ForgeError> {
        let path = shared::permission_path(&self.repo_path(), actor)?;
        let (v, _) = self.get(&path)?;
        Ok(map::permission(s(&v, "role_name"), s(&v, "permission"))?)
    }
}
