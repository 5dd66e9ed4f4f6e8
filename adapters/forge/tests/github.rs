//! The GitHub adapter against a scripted server on 127.0.0.1 (no test
//! reaches the network): pagination, rate limits, typed errors, deleted
//! authors, unmapped values, and the collected input assembled end to end.

mod common;
#[path = "fixtures/github/scenario.rs"]
mod scenario;

use common::{
    FakeSleeper, assert_oversized_repository_refused, assert_redirect_kept_the_token,
    assert_refused, gap_rows, tiny_responses,
};

use std::time::Duration;

use probity_core::context::RecordSelection;
use probity_core::context::{EntityKind, Forge};
use probity_core::context::{GapCode, GapScope};
use probity_forge::github::GitHub;
use probity_forge::http::Limits;
use probity_ports::context::assemble;
use probity_ports::forge::{
    CollectError, CollectRequest, EntityRef, ForgeError, ForgePort, Window, collect,
    default_profile,
};
use probity_testkit::http::{HttpServer, Reply, Script};
use scenario::{REPO, not_found, rate_limited, unauthorized};

const TOKEN: &str = "test-token-5f0c2a9e7b1d";

fn adapter(server: &HttpServer, sleeper: FakeSleeper, limits: Limits) -> GitHub<FakeSleeper> {
    common::connect(GitHub::new, server, TOKEN, limits, sleeper)
}

fn request(kind: EntityKind, number: u64) -> CollectRequest {
    common::request_on(Forge::Github, "github.com", kind, number)
}

fn pr42() -> CollectRequest {
    request(EntityKind::ChangeProposal, 42)
}

#[test]
fn a_pull_request_is_collected_and_assembles() {
    let server = HttpServer::script(scenario::pull_42()).unwrap();
    let mut gh = adapter(&server, FakeSleeper::default(), Limits::default());
    let profile = default_profile(EntityKind::ChangeProposal);
    let input = collect(&mut gh, &pr42(), &profile).unwrap();

    assert_eq!(input.source.repository_id.as_deref(), Some("R_kgDOAcmeWg"));
    assert_eq!(input.source.repository.as_deref(), Some("acme/widgets"));
    assert_eq!(input.entity.id.as_deref(), Some("PR_kwDOAcmeWg42"));
    assert_eq!(input.entity.state, "open");
    assert_eq!(input.entity.author_id.as_deref(), Some("U_kgDOAlice"));
    assert_eq!(input.entity.head_sha.as_deref(), Some(scenario::HEAD));
    assert_eq!(input.entity.labels, ["performance", "cache"]);
    assert_eq!(
        input.entity.created_at.as_deref(),
        Some("2026-09-08T10:15:30.000000000Z")
    );

    // Both comment pages, plus the two review-thread comments.
    let ids: Vec<_> = input
        .comments
        .iter()
        .map(|c| c.id.clone().unwrap())
        .collect();
    assert_eq!(ids.len(), 8, "{ids:?}");
    let author = |id: &str| {
        input
            .comments
            .iter()
            .find(|c| c.id.as_deref() == Some(id))
            .unwrap()
            .author_id
            .clone()
    };
    // `user: null` and the ghost placeholder are deleted authors.
    assert_eq!(author("IC_kwDOAcme0002"), None);
    assert_eq!(author("IC_kwDOAcme0003"), None);
    assert_eq!(author("IC_kwDOAcme0004").as_deref(), Some("BOT_kgDOHelper"));
    // Timestamps are normalized to UTC with nine digits.
    let bot = input
        .comments
        .iter()
        .find(|c| c.id.as_deref() == Some("IC_kwDOAcme0004"))
        .unwrap();
    assert_eq!(
        bot.created_at.as_deref(),
        Some("2026-09-08T09:00:00.000000000Z")
    );

    // The pending review is omitted; the dismissed one has no dismisser.
    let states: Vec<_> = input.reviews.iter().map(|r| r.state.as_str()).collect();
    assert_eq!(states, ["changes_requested", "dismissed"]);
    assert!(input.reviews[1].dismissed_by_actor_id.is_none());

    let t = &input.threads[0];
    assert_eq!(t.id.as_deref(), Some("PRRT_kwDOAcme0001"));
    assert_eq!(
        t.created_at.as_deref(),
        Some("2026-09-08T13:00:00.000000000Z")
    );
    assert_eq!(t.side.as_deref(), Some("right"));
    assert_eq!(t.resolved_by_actor_id.as_deref(), Some("U_kgDOCarol"));
    assert_eq!(t.replies[0].parent_comment_id, "PRRC_kwDOAcme0001");

    // D7: created_at from the Actions job; none for a third-party check.
    let check = |id: &str| {
        input
            .checks
            .iter()
            .find(|c| c.id.as_deref() == Some(id))
            .unwrap()
    };
    assert_eq!(
        check("CR_kwDOAcme0111").created_at.as_deref(),
        Some("2026-09-08T10:16:00.000000000Z")
    );
    assert!(
        check("CR_kwDOAcme0111")
            .log
            .as_deref()
            .unwrap()
            .contains("FAILED")
    );
    assert!(check("CR_kwDOAcme0112").log.is_none(), "not a failed check");
    assert!(check("CR_kwDOAcme0113").created_at.is_none());
    // Queued: the native started_at is dropped, not copied.
    assert!(check("CR_kwDOAcme0113").started_at.is_none());

    let role = |login: &str| {
        let a = input
            .actors
            .iter()
            .find(|a| a.login.as_deref() == Some(login))
            .unwrap();
        (a.kind.clone(), a.role.clone(), a.role_verified)
    };
    assert_eq!(role("alice"), ("human".into(), Some("write".into()), true));
    assert_eq!(role("bob"), ("human".into(), Some("maintain".into()), true));
    assert_eq!(role("carol"), ("human".into(), Some("admin".into()), true));
    // A collaborator-permission 404 leaves the actor unverified.
    assert_eq!(role("dave"), ("human".into(), None, false));
    assert_eq!(role("ci-helper[bot]"), ("bot".into(), None, false));
    assert!(
        input.acquisition_gaps.is_empty(),
        "{:?}",
        input.acquisition_gaps
    );

    let a = assemble(&input).unwrap();
    // Deleted (2), unregistered bot (1) and unverified (1) authors.
    assert_eq!(
        a.gaps
            .count(GapScope::Comments, GapCode::AuthorizationFailed),
        4
    );
    // The check without a job has no creation time (D7).
    assert_eq!(a.gaps.count(GapScope::Checks, GapCode::InvalidMetadata), 1);
    assert!(
        a.tree.files().keys().any(|p| p.ends_with("/log.txt")),
        "the failed check's log is staged"
    );

    // The credential went only to the API, never to the log redirect.
    let seen = server.seen();
    for r in &seen {
        let auth = r.headers.get("authorization");
        if r.target.starts_with("/blobs/") {
            assert_eq!(auth, None, "a redirect carried the credential");
        } else {
            assert_eq!(auth.map(String::as_str), Some(&*format!("Bearer {TOKEN}")));
        }
    }
    assert!(seen.iter().any(|r| r.target.ends_with("&page=2")));
    assert!(seen.iter().any(|r| r.target == "/blobs/job-111.log"));
}

#[test]
fn an_issue_is_collected_with_an_empty_body() {
    let server = HttpServer::script(scenario::issue_7()).unwrap();
    let mut gh = adapter(&server, FakeSleeper::default(), Limits::default());
    let req = request(EntityKind::WorkItem, 7);
    let input = collect(&mut gh, &req, &default_profile(EntityKind::WorkItem)).unwrap();
    assert_eq!(input.entity.kind, "work_item");
    assert_eq!(input.entity.state, "closed");
    assert_eq!(input.entity.body.as_deref(), Some(""));
    assert_eq!(input.entity.head_sha, None);
    assert_eq!(input.comments.len(), 1);
    let a = assemble(&input).unwrap();
    assert_eq!(a.gaps.rows().count(), 0);
    // No pull-request endpoint was asked for a work item.
    assert!(server.seen().iter().all(|r| !r.target.contains("/pulls/")));
}

#[test]
fn pagination_stops_at_the_window_and_counts_the_rest() {
    let server = HttpServer::script(scenario::pull_42()).unwrap();
    let mut gh = adapter(&server, FakeSleeper::default(), Limits::default());
    let e = EntityRef {
        kind: EntityKind::ChangeProposal,
        number: 42,
    };
    // Oldest: page 1 fills the window; the last page counts the rest
    // (pages of 2: 2 + 4 records in all).
    let l = gh
        .comments(
            e,
            Window {
                max_records: 1,
                selection: RecordSelection::Oldest,
            },
        )
        .unwrap();
    assert_eq!((l.items.len(), l.beyond_window), (2, 4));
    // Newest: the last page fills the window; page 1 is left.
    let l = gh
        .comments(
            e,
            Window {
                max_records: 3,
                selection: RecordSelection::Newest,
            },
        )
        .unwrap();
    assert_eq!((l.items.len(), l.beyond_window), (4, 2));
    assert_eq!(
        l.items[0].record.id.as_deref(),
        Some("IC_kwDOAcme0003"),
        "newest pages first"
    );
    // A window that covers everything reads both pages.
    let l = gh
        .comments(
            e,
            Window {
                max_records: 100,
                selection: RecordSelection::Oldest,
            },
        )
        .unwrap();
    assert_eq!((l.items.len(), l.beyond_window), (6, 0));
}

#[test]
fn a_profile_bound_fetch_is_a_profile_bound_gap() {
    let server = HttpServer::script(scenario::pull_42()).unwrap();
    let mut gh = adapter(&server, FakeSleeper::default(), Limits::default());
    let mut profile = default_profile(EntityKind::ChangeProposal);
    profile.bounds.max_records_per_source = 1;
    profile.record_selection = "oldest".into();
    let input = collect(&mut gh, &pr42(), &profile).unwrap();
    let gap = input
        .acquisition_gaps
        .iter()
        .find(|g| g.scope == "comments")
        .unwrap();
    assert_eq!((gap.code.as_str(), gap.count), ("profile_bound", 4));
    // The assembler adds what it drops from the fetched pages to the same row.
    let a = assemble(&input).unwrap();
    assert!(a.gaps.count(GapScope::Comments, GapCode::ProfileBound) >= 4);
}

#[test]
fn a_rate_limit_is_waited_out_then_retried() {
    let comments = format!("{REPO}/issues/7/comments?per_page=100");
    let script = scenario::issue_7().get(
        &comments,
        vec![
            rate_limited(3),
            Reply::json(include_str!("fixtures/github/issue-7-comments.json")),
        ],
    );
    let server = HttpServer::script(script).unwrap();
    let sleeper = FakeSleeper::default();
    let mut gh = adapter(&server, sleeper.clone(), Limits::default());
    let req = request(EntityKind::WorkItem, 7);
    let input = collect(&mut gh, &req, &default_profile(EntityKind::WorkItem)).unwrap();
    assert_eq!(input.comments.len(), 1);
    assert!(input.acquisition_gaps.is_empty());
    assert_eq!(*sleeper.slept.borrow(), [Duration::from_secs(3)]);
    let asked = server
        .seen()
        .iter()
        .filter(|r| r.target == comments)
        .count();
    assert_eq!(asked, 2);
}

#[test]
fn a_rate_limit_beyond_the_total_wait_is_a_typed_error() {
    // x-ratelimit-reset in 50s, but only 20s of waiting are allowed.
    let script = Script::new().get(
        REPO,
        vec![
            Reply::status(403, include_str!("fixtures/github/rate-limited.json"))
                .header("x-ratelimit-remaining", "0")
                .header("x-ratelimit-reset", "1050"),
        ],
    );
    let server = HttpServer::script(script).unwrap();
    let sleeper = FakeSleeper {
        now: 1000,
        ..FakeSleeper::default()
    };
    let limits = Limits {
        max_total_wait: Duration::from_secs(20),
        ..Limits::default()
    };
    let mut gh = adapter(&server, sleeper.clone(), limits);
    let e = collect(
        &mut gh,
        &pr42(),
        &default_profile(EntityKind::ChangeProposal),
    )
    .unwrap_err();
    assert!(
        matches!(e, CollectError::Forge(ForgeError::RateLimited { .. })),
        "{e:?}"
    );
    assert!(sleeper.slept.borrow().is_empty());

    // Within the bound: the reset is waited for, and the total is shared.
    let script = Script::new().get(
        REPO,
        vec![
            Reply::status(403, "{}")
                .header("x-ratelimit-remaining", "0")
                .header("x-ratelimit-reset", "1015"),
            Reply::status(429, "{}").header("retry-after", "10"),
        ],
    );
    let server = HttpServer::script(script).unwrap();
    let mut gh = adapter(&server, sleeper.clone(), limits);
    let e = gh.repository().unwrap_err();
    assert!(
        matches!(
            e,
            ForgeError::RateLimited {
                waited_secs: 15,
                ..
            }
        ),
        "{e:?}"
    );
    assert_eq!(*sleeper.slept.borrow(), [Duration::from_secs(15)]);
}

#[test]
fn unauthorized_and_not_found_are_typed_and_never_show_the_token() {
    let server = HttpServer::script(Script::new().get(REPO, vec![unauthorized()])).unwrap();
    let mut gh = adapter(&server, FakeSleeper::default(), Limits::default());
    assert_refused(&mut gh, &pr42(), 401, TOKEN);

    let script = scenario::pull_42().get(&format!("{REPO}/pulls/42"), vec![not_found()]);
    let server = HttpServer::script(script).unwrap();
    let mut gh = adapter(&server, FakeSleeper::default(), Limits::default());
    assert_refused(&mut gh, &pr42(), 404, TOKEN);
}

#[test]
fn unmapped_native_values_are_invalid_metadata() {
    // The entity: assembly cannot start.
    let locked = include_str!("fixtures/github/pull-42.json")
        .replace(r#""state": "open""#, r#""state": "locked""#);
    let script = scenario::pull_42().get(&format!("{REPO}/pulls/42"), vec![Reply::json(locked)]);
    let server = HttpServer::script(script).unwrap();
    let mut gh = adapter(&server, FakeSleeper::default(), Limits::default());
    let e = collect(
        &mut gh,
        &pr42(),
        &default_profile(EntityKind::ChangeProposal),
    )
    .unwrap_err();
    match e {
        CollectError::Forge(ForgeError::InvalidMetadata { value, .. }) => {
            assert_eq!(value, "locked")
        }
        other => panic!("{other:?}"),
    }
    // An optional record: omitted and counted, the rest collected.
    let reviews = include_str!("fixtures/github/pull-42-reviews.json").replace(
        r#""state": "CHANGES_REQUESTED""#,
        r#""state": "REQUEST_CHANGES""#,
    );
    let script = scenario::pull_42().get(
        &format!("{REPO}/pulls/42/reviews?per_page=100"),
        vec![Reply::json(reviews)],
    );
    let server = HttpServer::script(script).unwrap();
    let mut gh = adapter(&server, FakeSleeper::default(), Limits::default());
    let input = collect(
        &mut gh,
        &pr42(),
        &default_profile(EntityKind::ChangeProposal),
    )
    .unwrap();
    assert_eq!(input.reviews.len(), 1);
    let gap = input
        .acquisition_gaps
        .iter()
        .find(|g| g.scope == "reviews")
        .unwrap();
    assert_eq!((gap.code.as_str(), gap.count), ("invalid_metadata", 1));
    let a = assemble(&input).unwrap();
    assert_eq!(a.gaps.count(GapScope::Reviews, GapCode::InvalidMetadata), 1);
}

#[test]
fn a_failed_listing_is_a_fetch_failed_gap_never_an_empty_history() {
    let script = scenario::pull_42()
        .get(
            &format!("{REPO}/pulls/42/reviews?per_page=100"),
            vec![Reply::status(502, "{}")],
        )
        .post("/graphql", vec![Reply::status(500, "{}")]);
    let server = HttpServer::script(script).unwrap();
    let mut gh = adapter(&server, FakeSleeper::default(), Limits::default());
    let input = collect(
        &mut gh,
        &pr42(),
        &default_profile(EntityKind::ChangeProposal),
    )
    .unwrap();
    assert!(input.reviews.is_empty() && input.threads.is_empty());
    let gaps = gap_rows(&input);
    // Reviews and threads failed; the review comments came with the
    // threads, so the comment source is incomplete too.
    assert_eq!(
        gaps,
        [
            ("comments", "fetch_failed", 1),
            ("reviews", "fetch_failed", 2)
        ]
    );
    let a = assemble(&input).unwrap();
    assert_eq!(a.gaps.count(GapScope::Reviews, GapCode::FetchFailed), 2);
}

#[test]
fn responses_are_bounded_before_parsing() {
    let server = HttpServer::script(scenario::pull_42()).unwrap();
    let mut gh = adapter(&server, FakeSleeper::default(), tiny_responses());
    assert_oversized_repository_refused(&mut gh);

    // A log over the profile's max_source_bytes is read to one byte more
    // and handed over as oversized (the assembler refuses it undecoded).
    let mut gh = adapter(&server, FakeSleeper::default(), Limits::default());
    let log = gh
        .check_log(&format!("{REPO}/actions/jobs/111/logs"), 10)
        .unwrap();
    assert!(log.oversized);
    assert_eq!(log.text.len(), 11);
    let mut profile = default_profile(EntityKind::ChangeProposal);
    // The bodies in the fixture fit in 100 bytes, the log does not.
    profile.bounds.max_source_bytes = 100;
    let input = collect(&mut gh, &pr42(), &profile).unwrap();
    let a = assemble(&input).unwrap();
    assert_eq!(
        a.gaps.count(GapScope::CheckLogs, GapCode::SourceTooLarge),
        1
    );
}

#[test]
fn a_profile_for_another_kind_fetches_nothing() {
    let server = HttpServer::script(scenario::pull_42()).unwrap();
    let mut gh = adapter(&server, FakeSleeper::default(), Limits::default());
    let e = collect(&mut gh, &pr42(), &default_profile(EntityKind::WorkItem)).unwrap_err();
    assert!(matches!(e, CollectError::KindMismatch { .. }), "{e:?}");
    let mut bad = default_profile(EntityKind::ChangeProposal);
    bad.included_sources.push("comments".into());
    let e = collect(&mut gh, &pr42(), &bad).unwrap_err();
    assert!(matches!(e, CollectError::Profile(_)), "{e:?}");
    assert!(server.seen().is_empty());
}

#[test]
fn a_registered_bot_login_is_admitted_and_a_human_login_is_not_a_bot() {
    let server = HttpServer::script(scenario::pull_42()).unwrap();
    let mut gh = adapter(&server, FakeSleeper::default(), Limits::default());
    let mut req = pr42();
    req.bot_roles
        .insert("ci-helper[bot]".into(), "review".into());
    // A human account never becomes a bot through the registry.
    req.bot_roles.insert("alice".into(), "review".into());
    let input = collect(&mut gh, &req, &default_profile(EntityKind::ChangeProposal)).unwrap();
    assert_eq!(input.bot_roles, ["review"]);
    let bot = input
        .actors
        .iter()
        .find(|a| a.id == "BOT_kgDOHelper")
        .unwrap();
    assert_eq!(bot.bot_role.as_deref(), Some("review"));
    let alice = input.actors.iter().find(|a| a.id == "U_kgDOAlice").unwrap();
    assert_eq!(
        (alice.kind.as_str(), alice.bot_role.as_deref()),
        ("human", None)
    );
    let a = assemble(&input).unwrap();
    // Only the deleted authors and the unverified human are left out now.
    assert_eq!(
        a.gaps
            .count(GapScope::Comments, GapCode::AuthorizationFailed),
        3
    );
}

/// D7: a GitHub check run has no creation time of its own; it takes the
/// Actions job's `created_at` (the job's ID is the check run's ID), and a
/// check with no job (a third-party app) has none: `invalid_metadata`,
/// never a runner-observed time.
#[test]
fn d7_check_creation_time_is_the_actions_jobs_created_at() {
    let server = HttpServer::script(scenario::pull_42()).unwrap();
    let mut gh = adapter(&server, FakeSleeper::default(), Limits::default());
    let l = gh
        .checks(
            scenario::HEAD,
            Window {
                max_records: 100,
                selection: RecordSelection::Newest,
            },
        )
        .unwrap();
    let created = |id: &str| {
        l.items
            .iter()
            .find(|c| c.check.id.as_deref() == Some(id))
            .unwrap()
            .check
            .created_at
            .clone()
    };
    // The job's created_at (10:16:00), not the run's started_at (10:16:05).
    assert_eq!(
        created("CR_kwDOAcme0111").as_deref(),
        Some("2026-09-08T10:16:00.000000000Z")
    );
    assert_eq!(created("CR_kwDOAcme0113"), None);
    let seen = server.seen();
    assert!(
        seen.iter()
            .any(|r| r.target == format!("{REPO}/actions/jobs/111"))
    );
    // The third-party check's job lookup answers 404: no job, no time.
    let input = collect(
        &mut gh,
        &pr42(),
        &default_profile(EntityKind::ChangeProposal),
    )
    .unwrap();
    let a = assemble(&input).unwrap();
    assert_eq!(a.gaps.count(GapScope::Checks, GapCode::InvalidMetadata), 1);
}

/// D8 (GitHub): a review thread's identity is its GraphQL node ID and its
/// `created_at` its first comment's.
#[test]
fn d8_a_review_thread_is_its_node_id_and_first_comment_time() {
    let server = HttpServer::script(scenario::pull_42()).unwrap();
    let mut gh = adapter(&server, FakeSleeper::default(), Limits::default());
    let t = gh
        .review_threads(
            42,
            Window {
                max_records: 100,
                selection: RecordSelection::Newest,
            },
        )
        .unwrap();
    let th = &t.threads.items[0];
    assert_eq!(th.id.as_deref(), Some("PRRT_kwDOAcme0001"));
    assert_eq!(
        th.created_at.as_deref(),
        Some("2026-09-08T13:00:00.000000000Z")
    );
    assert_eq!(
        th.comment_ids.first().map(String::as_str),
        Some("PRRC_kwDOAcme0001")
    );
}

/// Regression (issue 13 audit): a failed Actions job lookup was discarded
/// (`.ok()`), so a 503, a timeout or a rate limit read as "no job" (D7):
/// the check became `invalid_metadata` and its log was silently never
/// fetched. Only a 404 means no job; any other failure is the checks
/// scope's `fetch_failed` gap.
#[test]
fn a_failed_job_lookup_is_a_fetch_failed_gap_not_a_check_without_a_job() {
    let job = format!("{REPO}/actions/jobs/111");
    for failure in [Reply::status(503, "{}"), rate_limited(600)] {
        let script = scenario::pull_42().get(&job, vec![failure]);
        let server = HttpServer::script(script).unwrap();
        let limits = Limits {
            max_total_wait: Duration::from_secs(10),
            ..Limits::default()
        };
        let mut gh = adapter(&server, FakeSleeper::default(), limits);
        let input = collect(
            &mut gh,
            &pr42(),
            &default_profile(EntityKind::ChangeProposal),
        )
        .unwrap();
        let gaps: Vec<_> = input
            .acquisition_gaps
            .iter()
            .filter(|g| g.scope == "checks")
            .map(|g| (g.code.as_str(), g.count))
            .collect();
        assert_eq!(gaps, [("fetch_failed", 1)]);
        assert!(
            input
                .checks
                .iter()
                .all(|c| c.id.as_deref() != Some("CR_kwDOAcme0111"))
        );
        // The check whose job lookup failed is fetch_failed; the one with
        // no job (a 404) stays invalid_metadata.
        let a = assemble(&input).unwrap();
        assert_eq!(a.gaps.count(GapScope::Checks, GapCode::FetchFailed), 1);
        assert_eq!(a.gaps.count(GapScope::Checks, GapCode::InvalidMetadata), 1);
    }
}

/// Regression (issue 13 audit): a GraphQL answer with `errors[].type ==
/// "RATE_LIMITED"` (HTTP 200) was `RateLimited { waited_secs: 0 }` at once,
/// where a REST rate limit is waited out within the bounded total. It is
/// now waited out the same way (its `x-ratelimit-reset`, `Retry-After`, or
/// a minute), through the same sleeper and the same shared total.
#[test]
fn a_graphql_rate_limit_is_waited_out_within_the_total() {
    let limited = || {
        Reply::json(r#"{"errors":[{"type":"RATE_LIMITED","message":"API rate limit exceeded"}]}"#)
            .header("x-ratelimit-remaining", "0")
            .header("x-ratelimit-reset", "1030")
    };
    let threads = Reply::json(include_str!("fixtures/github/graphql-threads-42.json"));
    let script = scenario::pull_42().post("/graphql", vec![limited(), threads]);
    let server = HttpServer::script(script).unwrap();
    let sleeper = FakeSleeper {
        now: 1000,
        ..FakeSleeper::default()
    };
    let mut gh = adapter(&server, sleeper.clone(), Limits::default());
    let window = Window {
        max_records: 100,
        selection: RecordSelection::Newest,
    };
    let t = gh.review_threads(42, window).unwrap();
    assert_eq!(t.threads.items.len(), 1);
    assert_eq!(*sleeper.slept.borrow(), [Duration::from_secs(30)]);

    // Beyond the total (20 s allowed, 30 s asked): a typed error without
    // sleeping, and the listing is a fetch_failed gap.
    let script = scenario::pull_42().post("/graphql", vec![limited()]);
    let server = HttpServer::script(script).unwrap();
    let sleeper = FakeSleeper {
        now: 1000,
        ..FakeSleeper::default()
    };
    let limits = Limits {
        max_total_wait: Duration::from_secs(20),
        ..Limits::default()
    };
    let mut gh = adapter(&server, sleeper.clone(), limits);
    let e = gh.review_threads(42, window).unwrap_err();
    assert!(matches!(e, ForgeError::RateLimited { .. }), "{e:?}");
    assert!(sleeper.slept.borrow().is_empty());
}

/// A timeout on every request (common::stalls_time_out): the repository
/// held back, then the issue's comments.
#[test]
fn a_stalled_reply_times_out_in_bounded_time() {
    let comments = format!("{REPO}/issues/7/comments?per_page=100");
    common::stalls_time_out(
        common::Stalls {
            script: scenario::issue_7,
            singleton: (REPO, Reply::json(include_str!("fixtures/github/repo.json"))),
            listing: (
                &comments,
                Reply::json(include_str!("fixtures/github/issue-7-comments.json")),
            ),
            request: request(EntityKind::WorkItem, 7),
            number: 7,
            state: "closed",
            token: TOKEN,
        },
        |server, limits| adapter(server, FakeSleeper::default(), limits),
    );
}

/// The token only as a header to the API base: a log redirect to another
/// host (another origin: a second server) is followed without it.
#[test]
fn a_redirect_to_another_host_never_carries_the_token() {
    let elsewhere = HttpServer::script(Script::new().get(
        "/storage/job-111.log",
        vec![
            Reply::new(200, include_bytes!("fixtures/github/job-111.log").to_vec())
                .header("Content-Type", "text/plain"),
        ],
    ))
    .unwrap();
    let script = scenario::pull_42().get(
        &format!("{REPO}/actions/jobs/111/logs"),
        vec![Reply::status(302, "").header(
            "Location",
            &format!("{}/storage/job-111.log", elsewhere.base()),
        )],
    );
    let server = HttpServer::script(script).unwrap();
    let mut gh = adapter(&server, FakeSleeper::default(), Limits::default());
    let input = collect(
        &mut gh,
        &pr42(),
        &default_profile(EntityKind::ChangeProposal),
    )
    .unwrap();
    let check = input
        .checks
        .iter()
        .find(|c| c.id.as_deref() == Some("CR_kwDOAcme0111"))
        .unwrap();
    assert!(check.log.as_deref().unwrap().contains("FAILED"), "followed");
    assert_redirect_kept_the_token(&elsewhere, "/storage/job-111.log", &server.seen(), TOKEN);
}
