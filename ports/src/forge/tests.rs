//! The collection driver over a port answering fixed records: gaps for
//! every partial fetch, actors and their roles, the logs a profile selects,
//! and the input document read back.

use std::collections::BTreeMap;

use probity_core::context::{ActorRole, EntityKind, Forge};
use probity_core::context::{
    CheckInput, CommentInput, ContextInput, EntityInput, INPUT_FORMAT, ReviewInput,
};

use super::*;

/// A port answering fixed records (no I/O).
struct Fake {
    threads_fail: bool,
    roles: BTreeMap<String, ActorRole>,
    logs_asked: Vec<String>,
}

fn human(id: &str, login: &str) -> Author {
    Author::Actor(ActorRef {
        id: id.into(),
        login: Some(login.into()),
        kind: ActorKindRef::Human,
    })
}

fn comment(id: &str, at: &str) -> CommentInput {
    CommentInput {
        id: Some(id.into()),
        author_id: None,
        created_at: Some(at.into()),
        updated_at: None,
        body: format!("comment {id}"),
    }
}

fn check(id: &str, at: &str, conclusion: &str) -> FetchedCheck {
    FetchedCheck {
        check: CheckInput {
            id: Some(id.into()),
            name: format!("check {id}"),
            status: "completed".into(),
            conclusion: Some(conclusion.into()),
            created_at: Some(at.into()),
            head_sha: Some(HEAD.into()),
            started_at: Some(at.into()),
            completed_at: Some(at.into()),
            never_started: Some(false),
            log: None,
        },
        log: Some(format!("log-{id}")),
    }
}

const HEAD: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

impl ForgePort for Fake {
    fn repository(&mut self) -> Result<RepositoryInfo, ForgeError> {
        Ok(RepositoryInfo {
            repository_id: Some("R_kgDOFake".into()),
            repository: "acme/widgets".into(),
        })
    }
    fn entity(&mut self, e: EntityRef) -> Result<FetchedEntity, ForgeError> {
        Ok(FetchedEntity {
            entity: EntityInput {
                kind: e.kind.as_str().into(),
                id: Some("PR_kwDOFake".into()),
                number: 1,
                title: Some("t".into()),
                state: "open".into(),
                author_id: None,
                created_at: Some("2026-01-01T00:00:00Z".into()),
                updated_at: Some("2026-01-01T00:00:00Z".into()),
                labels: vec![],
                body: Some("b".into()),
                head_sha: Some(HEAD.into()),
            },
            author: human("U_a", "alice"),
        })
    }
    fn comments(
        &mut self,
        _: EntityRef,
        _: Window,
    ) -> Result<Listing<Authored<CommentInput>>, ForgeError> {
        Ok(Listing {
            items: vec![
                Authored {
                    record: comment("IC_1", "2026-01-01T01:00:00Z"),
                    author: human("U_a", "alice"),
                },
                // The same ID named as a bot elsewhere: conflicting.
                Authored {
                    record: comment("IC_2", "2026-01-01T02:00:00Z"),
                    author: Author::Actor(ActorRef {
                        id: "U_b".into(),
                        login: Some("bob".into()),
                        kind: ActorKindRef::Bot,
                    }),
                },
                Authored {
                    record: comment("IC_3", "2026-01-01T03:00:00Z"),
                    author: human("U_b", "bob"),
                },
                Authored {
                    record: comment("IC_4", "2026-01-01T04:00:00Z"),
                    author: Author::Unmapped { id: "O_org".into() },
                },
            ],
            invalid: 2,
            beyond_window: 3,
            history_unavailable: false,
            fetch_failed: 0,
        })
    }
    fn reviews(&mut self, _: u64, _: Window) -> Result<Listing<Authored<ReviewInput>>, ForgeError> {
        Ok(Listing::default())
    }
    fn review_threads(&mut self, _: u64, _: Window) -> Result<FetchedThreads, ForgeError> {
        if self.threads_fail {
            return Err(ForgeError::InputTooLarge {
                what: "threads".into(),
                limit: 1,
            });
        }
        Ok(FetchedThreads::default())
    }
    fn checks(&mut self, head: &str, _: Window) -> Result<Listing<FetchedCheck>, ForgeError> {
        assert_eq!(head, HEAD);
        Ok(Listing {
            items: vec![
                // No creation time: the assembler cannot retain it,
                // so it takes no place in the log window.
                FetchedCheck {
                    check: CheckInput {
                        created_at: None,
                        ..check("CR_nodate", "2026-01-01T00:40:00Z", "failure").check
                    },
                    log: Some("log-CR_nodate".into()),
                },
                check("CR_old", "2026-01-01T00:10:00Z", "failure"),
                check("CR_new", "2026-01-01T00:20:00Z", "failure"),
                check("CR_ok", "2026-01-01T00:30:00Z", "success"),
            ],
            ..Listing::default()
        })
    }
    fn check_log(&mut self, log: &str, _: u64) -> Result<LogText, ForgeError> {
        self.logs_asked.push(log.to_owned());
        Ok(LogText {
            text: "boom\n".into(),
            oversized: false,
        })
    }
    fn permission(&mut self, a: &ActorRef) -> Result<ActorRole, ForgeError> {
        self.roles
            .get(a.login.as_deref().unwrap_or(""))
            .copied()
            .ok_or(ForgeError::NotFound {
                what: "permission".into(),
                status: 404,
            })
    }
}

fn fake() -> Fake {
    Fake {
        threads_fail: false,
        roles: BTreeMap::from([("alice".to_owned(), ActorRole::Write)]),
        logs_asked: vec![],
    }
}

fn request() -> CollectRequest {
    CollectRequest {
        forge: Forge::Github,
        host: "github.com".into(),
        entity: EntityRef {
            kind: EntityKind::ChangeProposal,
            number: 1,
        },
        bot_roles: BTreeMap::new(),
    }
}

fn gaps(input: &ContextInput) -> Vec<(String, String, i64)> {
    input
        .acquisition_gaps
        .iter()
        .map(|g| (g.scope.clone(), g.code.clone(), g.count))
        .collect()
}

#[test]
fn collect_records_every_partial_fetch_as_a_gap() {
    let mut profile = default_profile(EntityKind::ChangeProposal);
    profile.included_sources.push("agent_runs".into());
    profile.bounds.max_records_per_source = 2;
    profile.record_selection = "newest".into();
    let mut port = Fake {
        threads_fail: true,
        ..fake()
    };
    let input = collect(&mut port, &request(), &profile).unwrap();
    let s = |a: &str, b: &str, n: i64| (a.to_owned(), b.to_owned(), n);
    assert_eq!(
        gaps(&input),
        [
            // The conflicting ID and the unmapped account type.
            s("actors", "invalid_metadata", 2),
            s("agent_runs", "unsupported", 1),
            s("comments", "invalid_metadata", 2),
            s("comments", "profile_bound", 3),
            // The review comments came with the failed threads.
            s("comments", "source_too_large", 1),
            s("reviews", "source_too_large", 1),
        ]
    );
    // The conflicting actor has no row; the unmapped one neither.
    let ids: Vec<_> = input.actors.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(ids, ["U_a"]);
    assert_eq!(input.actors[0].role.as_deref(), Some("write"));
    assert_eq!(input.comments[3].author_id.as_deref(), Some("O_org"));
    // Logs only within the newest window of two (CR_new, CR_ok), and
    // only the failed one's: never CR_old's.
    assert_eq!(port.logs_asked, ["log-CR_new"]);
    let with_log: Vec<_> = input
        .checks
        .iter()
        .filter(|c| c.log.is_some())
        .map(|c| c.id.as_deref().unwrap_or(""))
        .collect();
    assert_eq!(with_log, ["CR_new"]);
    assert_eq!(input.checks.len(), 4);
}

#[test]
fn a_failed_permission_lookup_leaves_the_actor_unverified() {
    let mut port = Fake {
        roles: BTreeMap::new(),
        ..fake()
    };
    let input = collect(
        &mut port,
        &request(),
        &default_profile(EntityKind::ChangeProposal),
    )
    .unwrap();
    let alice = input.actors.iter().find(|a| a.id == "U_a").unwrap();
    assert_eq!((alice.role.as_deref(), alice.role_verified), (None, false));
}

#[test]
fn the_input_document_reads_back_strictly_and_identically() {
    let mut port = fake();
    let input = collect(
        &mut port,
        &request(),
        &default_profile(EntityKind::ChangeProposal),
    )
    .unwrap();
    let doc = input_document(&input);
    let bytes = serde_json::to_vec(&doc).unwrap();
    let back: ContextInput = probity_core::canonical::from_slice_strict(&bytes).unwrap();
    assert_eq!(input_document(&back), doc);
    assert_eq!(doc["format"], INPUT_FORMAT);
    assert_eq!(doc["checks"].as_array().map(Vec::len), Some(4));
}
