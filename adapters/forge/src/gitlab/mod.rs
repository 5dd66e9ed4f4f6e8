//! GitLab (REST v4) behind the forge port.
//!
//! Endpoints: `GET /projects/{path}` (the project ID and
//! `path_with_namespace`), `/merge_requests/{iid}` or `/issues/{iid}`,
//! `/{merge_requests|issues}/{iid}/discussions` (D10: an issue's discussion
//! notes are comments; a merge request's individual notes are comments and
//! its other discussions are threads), `/pipelines?sha=&sort=asc` and
//! `/pipelines/{id}/jobs` (checks), `/jobs/{id}/trace` (logs),
//! `/members/all/{user id}` (roles) and `GET /users/{id}` (whether an
//! author is a bot: embedded author objects do not say). Listings page by
//! `page` with `X-Next-Page`, `X-Total` and `X-Total-Pages`. GitLab has no
//! formal review records: `reviews` is a partial `history_unavailable`.

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
    MapError, comment_ids, comment_record, labels, malformed, num_id, replies_to_root, s, seg, ts,
};
use crate::shared::{self, EntityParts};

/// Records per page (GitLab's maximum).
pub const PER_PAGE: u64 = 100;

/// The API base for a host: `https://<host>/api/v4`.
pub fn api_base_for_host(host: &str) -> String {
    format!("https://{host}/api/v4")
}

fn header_u64(resp: &http::Response, name: &str) -> Option<u64> {
    resp.header(name).and_then(|v| v.trim().parse().ok())
}

/// What `GET /users/{id}` established about an account.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum UserKind {
    /// It answered, with `bot`.
    Known {
        /// The account is a bot.
        bot: bool,
    },
    /// It answered 404, or without `bot`: the kind cannot be mapped
    /// (`invalid_metadata`).
    Unsaid,
    /// The lookup failed otherwise (`fetch_failed`).
    Failed,
}

/// The GitLab adapter for one project.
#[derive(Debug)]
pub struct GitLab<S: Sleeper> {
    client: Client<S>,
    project: String,
    /// User ID → what `GET /users/{id}` said of it.
    kinds: BTreeMap<u64, UserKind>,
    /// The entity's discussions, read once for comments and threads.
    discussions: Option<(Vec<Value>, u64)>,
}

impl<S: Sleeper> GitLab<S> {
    /// An adapter for the project `path` (`group/sub/name`) at `api_base`.
    pub fn new(
        api_base: &str,
        path: &str,
        token: Option<Token>,
        limits: Limits,
        sleeper: S,
    ) -> Result<Self, ForgeError> {
        let ok = path.contains('/')
            && !path.starts_with('/')
            && !path.ends_with('/')
            && !path.contains("//");
        if !ok {
            return Err(ForgeError::NotFound {
                what: format!("project `{path}` (expected GROUP/NAME)"),
                status: 0,
            });
        }
        let client = Client::new(
            api_base,
            token,
            vec![("Accept", "application/json")],
            limits,
            sleeper,
        )?;
        Ok(Self {
            client,
            project: path.to_owned(),
            kinds: BTreeMap::new(),
            discussions: None,
        })
    }

    fn project_path(&self) -> String {
        format!("/projects/{}", seg(&self.project))
    }

    fn get(&mut self, path: &str) -> Result<Value, ForgeError> {
        Ok(shared::get(&mut self.client, path)?.0)
    }

    fn page(&mut self, path: &str, page: u64) -> Result<(Vec<Value>, http::Response), ForgeError> {
        let query = format!("per_page={PER_PAGE}&page={page}");
        let url = self.client.url(&shared::with_query(path, &query));
        let (v, resp) = shared::get_url(&mut self.client, path, &url)?;
        let items = v
            .as_array()
            .cloned()
            .ok_or_else(|| malformed(path, "no list in the page"))?;
        Ok((items, resp))
    }

    /// A listing within the window: the first pages (oldest) or, when
    /// `X-Total-Pages` is given, the last pages backwards (newest). Returns
    /// the items and how many were left unfetched (`X-Total`, else at least
    /// one while `X-Next-Page` remains).
    fn list(&mut self, path: &str, window: Window) -> Result<(Vec<Value>, u64), ForgeError> {
        let (max, max_pages) = shared::window_caps(window, PER_PAGE, 2);
        let (first, resp) = self.page(path, 1)?;
        let total = header_u64(&resp, "x-total");
        let total_pages = header_u64(&resp, "x-total-pages");
        let next = header_u64(&resp, "x-next-page");
        if next.is_none() {
            return Ok((first, 0));
        }
        let mut out = Vec::new();
        let more;
        match (window.selection, total_pages) {
            (RecordSelection::Newest, Some(last)) if last > 1 => {
                let mut page = last;
                let mut pages = 0;
                loop {
                    if page == 1 {
                        out.extend(first.iter().cloned());
                        more = false;
                        break;
                    }
                    let (items, _) = self.page(path, page)?;
                    out.extend(items);
                    pages += 1;
                    page -= 1;
                    if out.len() >= max || pages >= max_pages {
                        more = true;
                        break;
                    }
                }
            }
            _ => {
                out = first;
                let mut next = next;
                let mut pages = 1;
                while out.len() < max && pages < max_pages {
                    let Some(p) = next else { break };
                    let (items, resp) = self.page(path, p)?;
                    out.extend(items);
                    next = header_u64(&resp, "x-next-page");
                    pages += 1;
                }
                more = next.is_some();
            }
        }
        if !more {
            return Ok((out, 0));
        }
        let beyond = shared::left_unread(total, out.len());
        Ok((out, beyond))
    }

    /// Whether user `id` is a bot (`GET /users/{id}`, cached).
    fn user_kind(&mut self, id: u64) -> UserKind {
        if let Some(k) = self.kinds.get(&id) {
            return *k;
        }
        let k = match self.get(&format!("/users/{id}")) {
            Ok(u) => match u.get("bot").and_then(Value::as_bool) {
                Some(bot) => UserKind::Known { bot },
                None => UserKind::Unsaid,
            },
            // No such user: nothing to map (as an answer that does not say).
            Err(ForgeError::NotFound { .. }) => UserKind::Unsaid,
            // No answer at all (a 5xx, a timeout, a rate limit).
            Err(_) => UserKind::Failed,
        };
        self.kinds.insert(id, k);
        k
    }

    /// A record author from an embedded user object. `null` and the ghost
    /// account are a deleted author; an account whose kind cannot be
    /// established is unmapped (no actor row, fail closed).
    fn author(&mut self, user: Option<&Value>) -> Author {
        let Some(u) = user.filter(|u| !u.is_null()) else {
            return Author::Deleted;
        };
        let login = s(u, "username");
        if login == Some(map::GHOST_USERNAME) {
            return Author::Deleted;
        }
        let Some(id) = u.get("id").and_then(Value::as_u64) else {
            return Author::Deleted;
        };
        match self.user_kind(id) {
            UserKind::Known { bot } => Author::Actor(ActorRef {
                id: id.to_string(),
                login: login.map(str::to_owned),
                kind: if bot {
                    ActorKindRef::Bot
                } else {
                    ActorKindRef::Human
                },
            }),
            UserKind::Unsaid => Author::Unmapped { id: id.to_string() },
            UserKind::Failed => Author::Unfetched { id: id.to_string() },
        }
    }

    fn note(&mut self, n: &Value) -> Result<Authored<CommentInput>, MapError> {
        let id = num_id(n, "id").ok_or(MapError::missing("note id"))?;
        let record = comment_record(n, id, "created_at", "updated_at")?;
        Ok(Authored {
            record,
            author: self.author(n.get("author")),
        })
    }

    fn entity_kind_path(entity: EntityRef) -> &'static str {
        match entity.kind {
            EntityKind::ChangeProposal => "merge_requests",
            EntityKind::WorkItem => "issues",
        }
    }

    fn discussions(
        &mut self,
        entity: EntityRef,
        window: Window,
    ) -> Result<(Vec<Value>, u64), ForgeError> {
        if let Some(d) = &self.discussions {
            return Ok(d.clone());
        }
        let path = format!(
            "{}/{}/{}/discussions",
            self.project_path(),
            Self::entity_kind_path(entity),
            entity.number
        );
        let d = self.list(&path, window)?;
        self.discussions = Some(d.clone());
        Ok(d)
    }
}

/// The notes of a discussion that are comments (system notes, GitLab's
/// own event lines, are not).
fn user_notes(d: &Value) -> Vec<&Value> {
    d.get("notes")
        .and_then(Value::as_array)
        .map(|ns| {
            ns.iter()
                .filter(|n| !n.get("system").and_then(Value::as_bool).unwrap_or(false))
                .collect()
        })
        .unwrap_or_default()
}

fn is_individual(d: &Value) -> bool {
    d.get("individual_note")
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

impl<S: Sleeper> ForgePort for GitLab<S> {
    fn repository(&mut self) -> Result<RepositoryInfo, ForgeError> {
        let path = self.project_path();
        let v = self.get(&path)?;
        let full = s(&v, "path_with_namespace")
            .ok_or_else(|| malformed(&path, "no path_with_namespace"))?
            .to_owned();
        Ok(RepositoryInfo {
            repository_id: num_id(&v, "id"),
            repository: full,
        })
    }

    fn entity(&mut self, entity: EntityRef) -> Result<FetchedEntity, ForgeError> {
        let path = format!(
            "{}/{}/{}",
            self.project_path(),
            Self::entity_kind_path(entity),
            entity.number
        );
        let v = self.get(&path)?;
        let state = map::entity_state(entity.kind, s(&v, "state").unwrap_or(""))?;
        let iid = shared::matching_number(&v, "iid", entity.number, &path)?;
        let labels = labels(&v);
        let head_sha = match entity.kind {
            EntityKind::ChangeProposal => s(&v, "sha")
                .or_else(|| v.pointer("/diff_refs/head_sha").and_then(Value::as_str))
                .map(str::to_owned),
            EntityKind::WorkItem => None,
        };
        let author = self.author(v.get("author"));
        let parts = EntityParts {
            kind: entity.kind,
            id: num_id(&v, "id"),
            number: iid,
            number_field: "iid",
            state,
            labels,
            head_sha,
        };
        Ok(FetchedEntity {
            entity: shared::entity_input(&v, &path, "description", parts)?,
            author,
        })
    }

    fn comments(
        &mut self,
        entity: EntityRef,
        window: Window,
    ) -> Result<Listing<Authored<CommentInput>>, ForgeError> {
        let (ds, beyond) = self.discussions(entity, window)?;
        let mut out = Listing {
            beyond_window: beyond,
            ..Listing::default()
        };
        for d in &ds {
            // D10: on an issue every discussion note is a comment; on a
            // merge request threads carry their own notes.
            if entity.kind == EntityKind::ChangeProposal && !is_individual(d) {
                continue;
            }
            for n in user_notes(d) {
                match self.note(n) {
                    Ok(c) => out.items.push(c),
                    Err(_) => out.invalid += 1,
                }
            }
        }
        Ok(out)
    }

    fn reviews(
        &mut self,
        _number: u64,
        _window: Window,
    ) -> Result<Listing<Authored<ReviewInput>>, ForgeError> {
        // Approvals have no immutable review record IDs: no formal v1
        // reviews, and the history is unavailable.
        Ok(Listing {
            history_unavailable: true,
            ..Listing::default()
        })
    }

    fn review_threads(
        &mut self,
        number: u64,
        window: Window,
    ) -> Result<FetchedThreads, ForgeError> {
        let entity = EntityRef {
            kind: EntityKind::ChangeProposal,
            number,
        };
        let (ds, _) = self.discussions(entity, window)?;
        let mut out = FetchedThreads::default();
        for d in &ds {
            if is_individual(d) {
                continue;
            }
            let notes = user_notes(d);
            let Some(first) = notes.first().copied() else {
                continue;
            };
            let mut comments = Vec::new();
            let mut bad = false;
            for n in &notes {
                match self.note(n) {
                    Ok(c) => comments.push(c),
                    Err(_) => bad = true,
                }
            }
            let created = ts(first, "created_at").ok().flatten();
            let id = s(d, "id").map(str::to_owned);
            if bad || id.is_none() || created.is_none() {
                out.threads.invalid += 1;
                out.comments.invalid += notes.len() as u64;
                continue;
            }
            // Every note has its ID (else the thread is invalid above):
            // the first is the root.
            let ids = comment_ids(&comments);
            let replies = replies_to_root(&ids);
            let resolvable: Vec<&&Value> = notes
                .iter()
                .filter(|n| {
                    n.get("resolvable")
                        .and_then(Value::as_bool)
                        .unwrap_or(false)
                })
                .collect();
            let resolved = !resolvable.is_empty()
                && resolvable
                    .iter()
                    .all(|n| n.get("resolved").and_then(Value::as_bool).unwrap_or(false));
            let resolver = if resolved {
                match first.get("resolved_by").map(|u| self.author(Some(u))) {
                    Some(Author::Actor(a)) => Some(a),
                    _ => None,
                }
            } else {
                None
            };
            let pos = first.get("position").filter(|p| !p.is_null());
            let new_line = pos.and_then(|p| p.get("new_line")).and_then(Value::as_i64);
            let old_line = pos.and_then(|p| p.get("old_line")).and_then(Value::as_i64);
            // A line on the new side is `right`, a removed line `left`.
            let (line, side) = match (new_line, old_line) {
                (Some(l), _) => (Some(l), Some("right".to_owned())),
                (None, Some(l)) => (Some(l), Some("left".to_owned())),
                (None, None) => (None, None),
            };
            let path = pos
                .and_then(|p| s(p, "new_path").or_else(|| s(p, "old_path")))
                .map(str::to_owned);
            out.threads.items.push(ThreadInput {
                id,
                created_at: created,
                comment_ids: ids,
                replies,
                review_id: None,
                reviewed_sha: pos.and_then(|p| s(p, "head_sha")).map(str::to_owned),
                path,
                line,
                side,
                start_line: None,
                original_line: None,
                original_start_line: None,
                original_side: None,
                resolved,
                resolved_by_actor_id: resolver.as_ref().map(|r| r.id.clone()),
                // No outdated observation in this API: never inferred.
                outdated: false,
                minimized: None,
            });
            out.resolvers.extend(resolver);
            out.comments.items.extend(comments);
        }
        Ok(out)
    }

    fn checks(
        &mut self,
        head_sha: &str,
        window: Window,
    ) -> Result<Listing<FetchedCheck>, ForgeError> {
        // The API lists pipelines newest first by default; ask for the
        // oldest first, the order every other listing pages in, so that
        // the window's end is the right one.
        let path = format!("{}/pipelines?sha={head_sha}&sort=asc", self.project_path());
        let (pipelines, mut beyond) = self.list(&path, window)?;
        let mut out = Listing::default();
        for p in &pipelines {
            let Some(pid) = p.get("id").and_then(Value::as_u64) else {
                out.invalid += 1;
                continue;
            };
            let jobs_path = format!("{}/pipelines/{pid}/jobs", self.project_path());
            let (jobs, more) = self.list(&jobs_path, window)?;
            beyond += more;
            for j in &jobs {
                let fields = map::job_fields(
                    s(j, "status").unwrap_or(""),
                    s(j, "started_at"),
                    s(j, "finished_at"),
                );
                let created = ts(j, "created_at");
                match (fields, created, num_id(j, "id")) {
                    (Ok(f), Ok(created), Some(id)) => {
                        let head = j
                            .pointer("/commit/id")
                            .and_then(Value::as_str)
                            .or_else(|| s(p, "sha"))
                            .map(str::to_owned);
                        out.items.push(FetchedCheck {
                            check: CheckInput {
                                id: Some(id.clone()),
                                name: s(j, "name").unwrap_or("").to_owned(),
                                status: f.status.as_str().to_owned(),
                                conclusion: f.conclusion.map(|c| c.as_str().to_owned()),
                                created_at: created,
                                head_sha: head,
                                started_at: f.started_at,
                                completed_at: f.completed_at,
                                never_started: f.never_started,
                                log: None,
                            },
                            log: Some(format!("{}/jobs/{id}/trace", self.project_path())),
                        });
                    }
                    _ => out.invalid += 1,
                }
            }
        }
        out.beyond_window = beyond;
        Ok(out)
    }

    fn check_log(&mut self, log: &str, max_bytes: u64) -> Result<LogText, ForgeError> {
        shared::bounded_log(&mut self.client, log, max_bytes)
    }

    fn permission(&mut self, actor: &ActorRef) -> Result<ActorRole, ForgeError> {
        let id: u64 = actor.id.parse().map_err(|_| ForgeError::InvalidMetadata {
            what: "member id".into(),
            value: actor.id.clone(),
        })?;
        let path = format!("{}/members/all/{id}", self.project_path());
        let v = self.get(&path)?;
        let level = v
            .get("access_level")
            .and_then(Value::as_i64)
            .ok_or_else(|| malformed(&path, "no access_level"))?;
        Ok(map::access_level(level)?)
    }
}
