//! The GitHub adapter against a scripted server on 127.0.0.1 (no test
//! reaches the network): pagination, rate limits, typed errors, deleted
//! authors, unmapped values, and the collected input assembled end to end.

mod common;
#[path = "fixtures/github/scenario.rs"]
mod scenario;

use common::prelude::*;
use probity_forge::github::GitHub;
use probity_ports::forge::{collect, default_profile};
use scenario::{REPO, not_found, rate_limited, unauthorized};

const TOKEN: &str = "test-token-5f0c2a9e7b1d";

const GH: Fixture<GitHub<FakeSleeper>> =
    Fixture::of(GitHub::new, Forge::Github, "github.com", TOKEN).scripting(42, 7);

#[test]
fn a_pull_request_is_collected_and_assembles() {
    let server = HttpServer::script(scenario::pull_42()).unwrap();
    let input = GH.collected(&server, &GH.change());

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
    let ids = comment_ids(&input);
    assert_eq!(ids.len(), 8, "{ids:?}");
    let author = |id: &str| comment_author(&input, id);
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
    let check = |id: &str| check(&input, id);
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

    let a = assembled(&input);
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
    let (blobs, api): (Vec<_>, Vec<_>) = seen
        .iter()
        .cloned()
        .partition(|r| r.target.starts_with("/blobs/"));
    for r in &blobs {
        let auth = r.headers.get("authorization");
        assert_eq!(auth, None, "a redirect carried the credential");
    }
    assert_bearer(&api, TOKEN);
    assert!(seen.iter().any(|r| r.target.ends_with("&page=2")));
    assert!(seen.iter().any(|r| r.target == "/blobs/job-111.log"));
}

#[test]
fn an_issue_is_collected_with_an_empty_body() {
    let server = HttpServer::script(scenario::issue_7()).unwrap();
    let input = GH.collected(&server, &GH.item());
    assert_eq!(input.entity.kind, "work_item");
    assert_eq!(input.entity.state, "closed");
    assert_eq!(input.entity.body.as_deref(), Some(""));
    assert_eq!(input.entity.head_sha, None);
    assert_eq!(input.comments.len(), 1);
    assert_eq!(assembled(&input).gaps.rows().count(), 0);
    // No pull-request endpoint was asked for a work item.
    assert!(server.seen().iter().all(|r| !r.target.contains("/pulls/")));
}

#[test]
fn pagination_stops_at_the_window_and_counts_the_rest() {
    let server = HttpServer::script(scenario::pull_42()).unwrap();
    let mut gh = GH.adapter(&server);
    let e = GH.change().entity;
    // Oldest: page 1 fills the window; the last page counts the rest
    // (pages of 2: 2 + 4 records in all).
    let l = gh.comments(e, window(1, RecordSelection::Oldest)).unwrap();
    assert_eq!((l.items.len(), l.beyond_window), (2, 4));
    // Newest: the last page fills the window; page 1 is left.
    let l = gh.comments(e, window(3, RecordSelection::Newest)).unwrap();
    assert_eq!((l.items.len(), l.beyond_window), (4, 2));
    let first = l.items[0].record.id.as_deref();
    assert_eq!(first, Some("IC_kwDOAcme0003"), "newest pages first");
    // A window that covers everything reads both pages.
    let l = gh
        .comments(e, window(100, RecordSelection::Oldest))
        .unwrap();
    assert_eq!((l.items.len(), l.beyond_window), (6, 0));
}

#[test]
fn a_profile_bound_fetch_is_a_profile_bound_gap() {
    // Oldest, a window of one: page 1 (two comments) is read; the last
    // page counts the four left.
    let script = scenario::pull_42();
    scenarios::a_profile_bound_fetch_is_a_gap(&GH, script, &GH.change(), ("comments", 4), None);
}

#[test]
fn a_rate_limit_is_waited_out_then_retried() {
    let comments = format!("{REPO}/issues/7/comments?per_page=100");
    let ok = Reply::json(include_str!("fixtures/github/issue-7-comments.json"));
    let script = scenario::issue_7().get(&comments, vec![rate_limited(3), ok]);
    scenarios::rate_limits_are_waited_out(&GH, script, &comments, &GH.item(), (1, &[3]));
}

#[test]
fn a_rate_limit_beyond_the_total_wait_is_a_typed_error() {
    // x-ratelimit-reset in 50s, but only 20s of waiting are allowed.
    let limited = Reply::status(403, include_str!("fixtures/github/rate-limited.json"))
        .header("x-ratelimit-remaining", "0")
        .header("x-ratelimit-reset", "1050");
    let script = Script::new().get(REPO, vec![limited]);
    scenarios::rate_limits_beyond_the_total(&GH, (script, None), &GH.change());

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
    let sleeper = clock_at(1000);
    let e = GH
        .with(&server, sleeper.clone(), max_wait(20))
        .repository()
        .unwrap_err();
    let waited = match e {
        ForgeError::RateLimited { waited_secs, .. } => Some(waited_secs),
        _ => None,
    };
    assert_eq!(waited, Some(15), "{e:?}");
    assert_eq!(*sleeper.slept.borrow(), secs(&[15]));
}

#[test]
fn unauthorized_and_not_found_are_typed_and_never_show_the_token() {
    let missing = scenario::pull_42().get(&format!("{REPO}/pulls/42"), vec![not_found()]);
    scenarios::refusals_are_typed(&GH, (REPO, unauthorized()), missing, &GH.change());
}

#[test]
fn unmapped_native_values_are_invalid_metadata() {
    // The entity: assembly cannot start.
    let locked = include_str!("fixtures/github/pull-42.json")
        .replace(r#""state": "open""#, r#""state": "locked""#);
    let script = scenario::pull_42().get(&format!("{REPO}/pulls/42"), vec![Reply::json(locked)]);
    let server = HttpServer::script(script).unwrap();
    let e = GH
        .collect(&mut GH.adapter(&server), &GH.change())
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
    let input = GH.collected(&HttpServer::script(script).unwrap(), &GH.change());
    assert_eq!(input.reviews.len(), 1);
    assert_eq!(gap_of(&input, "reviews"), ("invalid_metadata", 1));
    let count = assembled_gap(&input, GapScope::Reviews, GapCode::InvalidMetadata);
    assert_eq!(count, 1);
}

#[test]
fn a_failed_listing_is_a_fetch_failed_gap_never_an_empty_history() {
    let script = scenario::pull_42()
        .get(
            &format!("{REPO}/pulls/42/reviews?per_page=100"),
            vec![Reply::status(502, "{}")],
        )
        .post("/graphql", vec![Reply::status(500, "{}")]);
    scenarios::failed_reviews_are_gaps(&GH, script, &GH.change());
}

#[test]
fn responses_are_bounded_before_parsing() {
    let server = HttpServer::script(scenario::pull_42()).unwrap();
    scenarios::an_oversized_repository_is_refused(&GH, &server);
    // A log over the profile's max_source_bytes is read to one byte more
    // and handed over as oversized (the assembler refuses it undecoded).
    // The bodies in the fixture fit in 100 bytes, the log does not.
    let log = format!("{REPO}/actions/jobs/111/logs");
    scenarios::an_oversized_log_is_refused(&GH, &server, (&log, 100), &GH.change());
}

#[test]
fn a_profile_for_another_kind_fetches_nothing() {
    let server = HttpServer::script(scenario::pull_42()).unwrap();
    let mut gh = GH.adapter(&server);
    let e = collect(
        &mut gh,
        &GH.change(),
        &default_profile(EntityKind::WorkItem),
    )
    .unwrap_err();
    assert!(matches!(e, CollectError::KindMismatch { .. }), "{e:?}");
    let mut bad = default_profile(EntityKind::ChangeProposal);
    bad.included_sources.push("comments".into());
    let e = collect(&mut gh, &GH.change(), &bad).unwrap_err();
    assert!(matches!(e, CollectError::Profile(_)), "{e:?}");
    assert!(server.seen().is_empty());
}

#[test]
fn a_registered_bot_login_is_admitted_and_a_human_login_is_not_a_bot() {
    // Only the deleted authors and the unverified human are left out now.
    let bot = ("ci-helper[bot]", "BOT_kgDOHelper");
    scenarios::a_registered_bot_is_admitted(&GH, scenario::pull_42(), (bot, "U_kgDOAlice"), 3);
}

/// D7: a GitHub check run has no creation time of its own; it takes the
/// Actions job's `created_at` (the job's ID is the check run's ID), and a
/// check with no job (a third-party app) has none: `invalid_metadata`,
/// never a runner-observed time.
#[test]
fn d7_check_creation_time_is_the_actions_jobs_created_at() {
    let server = HttpServer::script(scenario::pull_42()).unwrap();
    let mut gh = GH.adapter(&server);
    let l = gh
        .checks(scenario::HEAD, window(100, RecordSelection::Newest))
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
    let input = GH.collect(&mut gh, &GH.change()).unwrap();
    let count = assembled_gap(&input, GapScope::Checks, GapCode::InvalidMetadata);
    assert_eq!(count, 1);
}

/// D8 (GitHub): a review thread's identity is its GraphQL node ID and its
/// `created_at` its first comment's.
#[test]
fn d8_a_review_thread_is_its_node_id_and_first_comment_time() {
    let server = HttpServer::script(scenario::pull_42()).unwrap();
    let t = GH.threads(&server, RecordSelection::Newest);
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
        let mut gh = GH.with(&server, FakeSleeper::default(), max_wait(10));
        let input = GH.collect(&mut gh, &GH.change()).unwrap();
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
        let a = assembled(&input);
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
    let sleeper = clock_at(1000);
    let mut gh = GH.with(&server, sleeper.clone(), Default::default());
    let window = window(100, RecordSelection::Newest);
    let t = gh.review_threads(42, window).unwrap();
    assert_eq!(t.threads.items.len(), 1);
    assert_eq!(*sleeper.slept.borrow(), secs(&[30]));

    // Beyond the total (20 s allowed, 30 s asked): a typed error without
    // sleeping, and the listing is a fetch_failed gap.
    let script = scenario::pull_42().post("/graphql", vec![limited()]);
    let server = HttpServer::script(script).unwrap();
    let sleeper = clock_at(1000);
    let mut gh = GH.with(&server, sleeper.clone(), max_wait(20));
    let e = gh.review_threads(42, window).unwrap_err();
    assert!(matches!(e, ForgeError::RateLimited { .. }), "{e:?}");
    assert!(sleeper.slept.borrow().is_empty());
}

/// A timeout on every request (scenarios::stalls_time_out): the repository
/// held back, then the issue's comments.
#[test]
fn a_stalled_reply_times_out_in_bounded_time() {
    let comments = format!("{REPO}/issues/7/comments?per_page=100");
    let repo = Reply::json(include_str!("fixtures/github/repo.json"));
    let listed = Reply::json(include_str!("fixtures/github/issue-7-comments.json"));
    let stalls = scenarios::Stalls {
        script: scenario::issue_7,
        singleton: (REPO, repo),
        listing: (&comments, listed),
        state: "closed",
    };
    scenarios::stalls_time_out(&GH, stalls);
}

/// The token only as a header to the API base: a log redirect to another
/// host (another origin: a second server) is followed without it.
#[test]
fn a_redirect_to_another_host_never_carries_the_token() {
    let log = Reply::new(200, include_bytes!("fixtures/github/job-111.log").to_vec())
        .header("Content-Type", "text/plain");
    let (elsewhere, server) = scenarios::redirected_away(
        scenario::pull_42(),
        &format!("{REPO}/actions/jobs/111/logs"),
        ("/storage/job-111.log", log),
    );
    let input = GH.collected(&server, &GH.change());
    let check = check(&input, "CR_kwDOAcme0111");
    assert!(check.log.as_deref().unwrap().contains("FAILED"), "followed");
    assert_redirect_kept_the_token(&elsewhere, "/storage/job-111.log", &server.seen(), TOKEN);
}
