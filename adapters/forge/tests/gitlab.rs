//! The GitLab adapter against a scripted server on 127.0.0.1 (no test
//! reaches the network): `X-Next-Page` pagination to the profile's bounds,
//! D10 issue discussions, merge-request threads (D8: the discussion ID),
//! jobs as checks, bots established through the users API, rate limits
//! (`Retry-After`, `RateLimit-Reset`), typed 401/404 errors that never show
//! the token, deleted authors, unmapped values, and the collected input
//! assembled end to end.

mod common;
#[path = "fixtures/gitlab/scenario.rs"]
mod scenario;

use common::prelude::*;
use probity_forge::gitlab::GitLab;
use scenario::{PROJECT, not_found, rate_limited, unauthorized};

const TOKEN: &str = "glpat-test-0123456789";

const GL: Fixture<GitLab<FakeSleeper>> =
    Fixture::of(GitLab::new, Forge::Gitlab, "gitlab.example", TOKEN).scripting(5, 3);

/// Also D8 (GitLab): a merge request's non-individual discussion is a
/// thread whose identity is the discussion `id` and whose `created_at` is
/// its first note's.
#[test]
fn a_merge_request_is_collected_and_assembles() {
    let server = HttpServer::script(scenario::merge_request_5()).unwrap();
    let input = GL.collected(&server, &GL.change());

    assert_eq!(input.source.repository_id.as_deref(), Some("278964"));
    assert_eq!(input.source.repository.as_deref(), Some("acme/widgets"));
    assert_eq!(input.entity.id.as_deref(), Some("91000005"));
    assert_eq!(input.entity.number, 5);
    // `locked` is GitLab's merge-in-progress lock: open.
    assert_eq!(input.entity.state, "open");
    assert_eq!(input.entity.head_sha.as_deref(), Some(scenario::HEAD));
    assert_eq!(input.entity.author_id.as_deref(), Some("11"));

    // Individual notes and the thread's notes are comments; the system
    // note is not.
    let mut ids = comment_ids(&input);
    ids.sort();
    assert_eq!(ids, ["1201", "1203", "1204", "1205", "1206"]);
    assert_eq!(comment_author(&input, "1206"), None);

    assert_eq!(input.threads.len(), 1);
    let t = &input.threads[0];
    assert_eq!(
        t.id.as_deref(),
        Some("3107030b7a2b4f7a8d0d8e2c0ad9c7d8b1b2c3d4")
    );
    assert_eq!(t.comment_ids, ["1203", "1204"]);
    assert_eq!(t.replies[0].parent_comment_id, "1203");
    assert_eq!((t.line, t.side.as_deref()), (Some(12), Some("right")));
    assert!(t.resolved && !t.outdated);
    assert_eq!(t.resolved_by_actor_id.as_deref(), Some("13"));

    // No formal reviews: a partial history_unavailable gap.
    assert!(input.reviews.is_empty());
    let gaps = gap_rows(&input);
    assert_eq!(gaps, [("reviews", "history_unavailable", 1)]);

    let check = |id: &str| check(&input, id);
    assert_eq!(check("5001").conclusion.as_deref(), Some("failure"));
    assert!(check("5001").log.as_deref().unwrap().contains("FAILED"));
    assert_eq!(check("5002").never_started, Some(true));
    assert_eq!(check("5003").status, "queued");

    let actor = |id: &str| actor(&input, id);
    assert_eq!(actor("11").role.as_deref(), Some("write"));
    assert_eq!(actor("12").role.as_deref(), Some("maintain"));
    assert_eq!(actor("13").role.as_deref(), Some("admin"));
    assert_eq!(actor("77").kind, "bot");

    let a = assembled(&input);
    // The unregistered bot and the deleted author are not admitted.
    assert_eq!(
        a.gaps
            .count(GapScope::Comments, GapCode::AuthorizationFailed),
        2
    );
    assert_eq!(
        a.gaps.count(GapScope::Reviews, GapCode::HistoryUnavailable),
        1
    );
    assert_eq!(a.gaps.count(GapScope::Checks, GapCode::InvalidMetadata), 0);
    assert!(a.tree.files().keys().any(|p| p.ends_with("/log.txt")));

    let seen = server.seen();
    assert!(
        seen.iter()
            .any(|r| r.target.ends_with("discussions?per_page=100&page=2"))
    );
    assert_bearer(&seen, TOKEN);
    // Discussions were read once for comments and threads.
    assert_eq!(asked(&seen, |t| t.contains("/discussions")), 2);
}

/// D10: every note of an issue's discussions is staged as a comment, and
/// an issue has no threads (threads exist only for merge requests).
#[test]
fn d10_issue_discussion_notes_are_comments_without_threads() {
    let server = HttpServer::script(scenario::issue_3()).unwrap();
    let input = GL.collected(&server, &GL.item());
    assert_eq!(input.entity.state, "open");
    assert_eq!(input.entity.body.as_deref(), Some(""));
    assert_eq!(comment_ids(&input), ["1301", "1302"]);
    assert!(input.threads.is_empty());
    // dave is no member (404): unverified, his note not admitted.
    assert_eq!(role_of(&input, "14"), (None, false));
    let count = assembled_gap(&input, GapScope::Comments, GapCode::AuthorizationFailed);
    assert_eq!(count, 1);
}

#[test]
fn x_next_page_pagination_stops_at_the_window() {
    let server = HttpServer::script(scenario::merge_request_5()).unwrap();
    let comments = |max_records, selection| {
        let l = GL
            .adapter(&server)
            .comments(GL.change().entity, window(max_records, selection))
            .unwrap();
        let ids: Vec<_> = l
            .items
            .iter()
            .map(|c| c.record.id.clone().unwrap())
            .collect();
        (ids, l.beyond_window)
    };
    // Oldest, a window of one: page 1 (two discussions, one a system
    // note); X-Total counts the three discussions left.
    let l = comments(1, RecordSelection::Oldest);
    assert_eq!(l, (vec!["1201".to_owned()], 3));
    // Newest: the last page (X-Total-Pages) first; page 1 is left.
    let l = comments(1, RecordSelection::Newest);
    assert_eq!(l, (vec!["1205".to_owned(), "1206".to_owned()], 2));
    // A covering window reads both pages.
    let l = GL
        .adapter(&server)
        .comments(GL.change().entity, window(100, RecordSelection::Oldest))
        .unwrap();
    assert_eq!((l.items.len(), l.beyond_window), (3, 0));
    let page1 = asked(&server.seen(), |t| {
        t.ends_with("discussions?per_page=100&page=1")
    });
    assert_eq!(page1, 3);
}

#[test]
fn unmapped_states_and_missing_entities_are_typed() {
    let bad = include_str!("fixtures/gitlab/mr-5.json").replace("\"locked\"", "\"reopened\"");
    let script = scenario::merge_request_5().get(
        &format!("{PROJECT}/merge_requests/5"),
        vec![Reply::json(bad)],
    );
    let server = HttpServer::script(script).unwrap();
    let mut gl = GL.adapter(&server);
    let e = GL.collect(&mut gl, &GL.change()).unwrap_err();
    assert!(
        matches!(e, CollectError::Forge(ForgeError::InvalidMetadata { ref value, .. }) if value == "reopened"),
        "{e:?}"
    );
    let req = GL.request(EntityKind::ChangeProposal, 6);
    let e = GL.collect(&mut gl, &req).unwrap_err();
    assert!(
        matches!(e, CollectError::Forge(ForgeError::NotFound { .. })),
        "{e:?}"
    );
    assert!(!format!("{e}").contains(TOKEN));
}

/// D8 (GitLab): the thread ID is the opaque discussion `id`, its time the
/// first note's `created_at`; later notes reply to the first.
#[test]
fn d8_a_merge_request_thread_is_its_discussion() {
    let server = HttpServer::script(scenario::merge_request_5()).unwrap();
    let t = GL.threads(&server, RecordSelection::Oldest);
    assert_eq!(t.threads.items.len(), 1);
    let th = &t.threads.items[0];
    assert_eq!(
        th.id.as_deref(),
        Some("3107030b7a2b4f7a8d0d8e2c0ad9c7d8b1b2c3d4")
    );
    assert_eq!(
        th.created_at.as_deref(),
        Some("2026-09-08T13:00:00.000000000Z")
    );
    assert_eq!(th.comment_ids, ["1203", "1204"]);
    assert_eq!(th.reviewed_sha.as_deref(), Some(scenario::HEAD));
    assert_eq!(th.path.as_deref(), Some("src/cache.rs"));
    // Individual notes are comments, not threads.
    assert_eq!(t.comments.items.len(), 2);
}

#[test]
fn deleted_authors_are_null_and_never_admitted() {
    // `author: null` on one note, the ghost account on another.
    let page2 = include_str!("fixtures/gitlab/mr-5-discussions-page2.json").replace(
        r#""author": { "id": 77, "username": "project_278964_bot_1a2b", "name": "CI helper", "state": "active" }"#,
        r#""author": null"#,
    );
    assert!(page2.contains(r#""author": null"#));
    let script = scenario::merge_request_5().get(
        &format!("{PROJECT}/merge_requests/5/discussions?per_page=100&page=2"),
        vec![
            Reply::json(page2)
                .header("X-Page", "2")
                .header("X-Per-Page", "100")
                .header("X-Total", "5")
                .header("X-Total-Pages", "2")
                .header("X-Next-Page", ""),
        ],
    );
    let server = HttpServer::script(script).unwrap();
    let input = GL.collected(&server, &GL.change());
    assert_eq!(comment_author(&input, "1205"), None, "author: null");
    assert_eq!(comment_author(&input, "1206"), None, "the ghost account");
    // Neither became an actor row, and no user lookup was made for them.
    assert!(input.actors.iter().all(|a| a.id != "77" && a.id != "1"));
    assert!(server.seen().iter().all(|r| r.target != "/users/1"));
    let count = assembled_gap(&input, GapScope::Comments, GapCode::AuthorizationFailed);
    assert_eq!(count, 2);
}

#[test]
fn a_profile_bound_fetch_is_a_profile_bound_gap() {
    // Page 1 (two discussions) fills the window; X-Total counts the three
    // discussions left.
    let (script, page2) = (
        scenario::merge_request_5(),
        "discussions?per_page=100&page=2",
    );
    scenarios::a_profile_bound_fetch_is_a_gap(
        &GL,
        script,
        &GL.change(),
        ("comments", 3),
        Some(page2),
    );
}

#[test]
fn a_rate_limit_is_waited_out_then_retried() {
    let d = format!("{PROJECT}/issues/3/discussions?per_page=100&page=1");
    // Retry-After first, then GitLab's RateLimit-Reset only.
    let ok = Reply::json(include_str!("fixtures/gitlab/issue-3-discussions.json"))
        .header("X-Page", "1")
        .header("X-Total", "1")
        .header("X-Total-Pages", "1")
        .header("X-Next-Page", "");
    let script = scenario::issue_3().get(
        &d,
        vec![
            rate_limited(Some(3), None),
            rate_limited(None, Some(1010)),
            ok,
        ],
    );
    scenarios::rate_limits_are_waited_out(&GL, script, &d, &GL.item(), (2, &[3, 10]));
}

#[test]
fn a_rate_limit_beyond_the_total_wait_is_a_typed_error() {
    // The project (required): RateLimit-Reset 50 s away, 20 s allowed.
    let required = Script::new().get(PROJECT, vec![rate_limited(None, Some(1050))]);
    // An optional listing: the total is shared, then a fetch_failed gap.
    let d = format!("{PROJECT}/issues/3/discussions?per_page=100&page=1");
    let listing = scenario::issue_3().get(&d, vec![rate_limited(Some(15), None)]);
    scenarios::rate_limits_beyond_the_total(&GL, (required, Some(listing)), &GL.item());
}

#[test]
fn unauthorized_and_not_found_are_typed_and_never_show_the_token() {
    let missing =
        scenario::merge_request_5().get(&format!("{PROJECT}/merge_requests/5"), vec![not_found()]);
    scenarios::refusals_are_typed(&GL, (PROJECT, unauthorized()), missing, &GL.change());

    // A refused optional listing (the pipelines) is a fetch_failed gap.
    let script = scenario::merge_request_5().get(
        &format!(
            "{PROJECT}/pipelines?sha={}&sort=asc&per_page=100&page=1",
            scenario::HEAD
        ),
        vec![unauthorized()],
    );
    scenarios::a_refused_listing_is_a_gap(&GL, script, &GL.change(), "checks");
}

#[test]
fn unmapped_job_statuses_and_access_levels_are_never_invented() {
    // A job status no row lists: that check is invalid_metadata, the
    // others are kept.
    let jobs = include_str!("fixtures/gitlab/pipeline-4001-jobs.json")
        .replace(r#""status": "manual""#, r#""status": "delayed""#);
    // Planner (15) has no v1 role: bob stays unverified.
    let planner = r#"{ "id": 12, "username": "bob", "name": "bob", "state": "active", "access_level": 15, "expires_at": null }"#;
    let script = scenario::merge_request_5()
        .get(
            &format!("{PROJECT}/pipelines/4001/jobs?per_page=100&page=1"),
            vec![
                Reply::json(jobs)
                    .header("X-Total", "3")
                    .header("X-Total-Pages", "1")
                    .header("X-Next-Page", ""),
            ],
        )
        .get(
            &format!("{PROJECT}/members/all/12"),
            vec![Reply::json(planner)],
        );
    let input = GL.collected(&HttpServer::script(script).unwrap(), &GL.change());
    let ids: Vec<_> = input.checks.iter().filter_map(|c| c.id.clone()).collect();
    assert_eq!(ids, ["5001", "5002"]);
    assert!(
        gap_rows(&input).contains(&("checks", "invalid_metadata", 1)),
        "{:?}",
        gap_rows(&input)
    );
    assert_eq!(role_of(&input, "12"), (None, false));
    let count = assembled_gap(&input, GapScope::Checks, GapCode::InvalidMetadata);
    assert_eq!(count, 1);
}

#[test]
fn responses_are_bounded_before_parsing() {
    let server = HttpServer::script(scenario::merge_request_5()).unwrap();
    scenarios::an_oversized_repository_is_refused(&GL, &server);
    // A trace over max_source_bytes is read to one byte more and handed
    // over as oversized (the assembler refuses it undecoded).
    // Every body in the fixture fits in 60 bytes, the 69-byte trace does not.
    let trace = format!("{PROJECT}/jobs/5001/trace");
    let a = scenarios::an_oversized_log_is_refused(&GL, &server, (&trace, 60), &GL.change());
    assert_eq!(a.gaps.count(GapScope::Comments, GapCode::SourceTooLarge), 0);
}

#[test]
fn a_failed_listing_is_a_fetch_failed_gap_never_an_empty_history() {
    let script = scenario::merge_request_5().get(
        &format!("{PROJECT}/merge_requests/5/discussions?per_page=100&page=1"),
        vec![Reply::status(502, "{}")],
    );
    let input = GL.collected(&HttpServer::script(script).unwrap(), &GL.change());
    assert!(input.comments.is_empty() && input.threads.is_empty());
    // The discussions carry both the comments and the threads: both
    // scopes say so (reviews also keeps its history_unavailable row).
    let g = gap_rows(&input);
    assert!(g.contains(&("reviews", "fetch_failed", 1)), "{g:?}");
    assert!(
        g.iter()
            .any(|(s, c, n)| *s == "comments" && *c == "fetch_failed" && *n >= 1),
        "{g:?}"
    );
    let count = assembled_gap(&input, GapScope::Comments, GapCode::FetchFailed);
    assert!(count >= 1, "{count}");
}

#[test]
fn a_registered_bot_login_is_admitted_and_a_human_login_is_not_a_bot() {
    // alice is a human account (the users API says `bot: false`). Only the
    // deleted author is left out now.
    let bot = ("project_278964_bot_1a2b", "77");
    scenarios::a_registered_bot_is_admitted(&GL, scenario::merge_request_5(), (bot, "11"), 1);
}

/// Regression (issue 13 audit): a failed `GET /users/{id}` was discarded
/// (`.ok()`), so a 503 or a rate limit made the author an unmapped actor
/// (`actors` `invalid_metadata`), as if GitLab had answered something no
/// table maps. Only a 404 keeps that meaning; any other failure is the
/// `actors` scope's `fetch_failed` gap (no actor row either way: fail
/// closed).
#[test]
fn a_failed_user_lookup_is_a_fetch_failed_gap_not_an_unmapped_actor() {
    let req = GL.item();
    for (failure, code) in [
        (Reply::status(503, "{}"), "fetch_failed"),
        (
            Reply::status(429, "{}").header("Retry-After", "600"),
            "fetch_failed",
        ),
        (Reply::status(404, "{}"), "invalid_metadata"),
    ] {
        let script = scenario::issue_3().get("/users/11", vec![failure]);
        let server = HttpServer::script(script).unwrap();
        let mut gl = GL.with(&server, FakeSleeper::default(), max_wait(10));
        let input = GL.collect(&mut gl, &req).unwrap();
        let actor_gaps: Vec<_> = gap_rows(&input)
            .into_iter()
            .filter(|g| g.0 == "actors")
            .collect();
        assert_eq!(actor_gaps, [("actors", code, 1)], "{code}");
        assert!(input.actors.iter().all(|a| a.id != "11"));
        let want = GapCode::parse(code).unwrap();
        assert_eq!(assembled_gap(&input, GapScope::Actors, want), 1, "{code}");
    }
}

/// A timeout on every request (scenarios::stalls_time_out): the project held
/// back, then the issue's discussions.
#[test]
fn a_stalled_reply_times_out_in_bounded_time() {
    let discussions = format!("{PROJECT}/issues/3/discussions?per_page=100&page=1");
    let project = Reply::json(include_str!("fixtures/gitlab/project.json"));
    let listed = Reply::json(include_str!("fixtures/gitlab/issue-3-discussions.json"))
        .header("X-Total", "1")
        .header("X-Total-Pages", "1");
    let stalls = scenarios::Stalls {
        script: scenario::issue_3,
        singleton: (PROJECT, project),
        listing: (&discussions, listed),
        state: "open",
    };
    scenarios::stalls_time_out(&GL, stalls);
}

/// The token only as a header to the API base: a job trace redirected to
/// another host (object storage; here a second server) is fetched without
/// it, and every request to the API carries it.
#[test]
fn a_redirect_to_another_host_never_carries_the_token() {
    let trace = Reply::new(
        200,
        include_bytes!("fixtures/gitlab/job-5001.trace").to_vec(),
    )
    .header("Content-Type", "text/plain");
    let from = format!("{PROJECT}/jobs/5001/trace");
    let (elsewhere, server) = scenarios::redirected_away(
        scenario::merge_request_5(),
        &from,
        ("/storage/job-5001.trace", trace),
    );
    let input = GL.collected(&server, &GL.change());
    let check = check(&input, "5001");
    assert!(check.log.as_deref().unwrap().contains("FAILED"), "followed");
    let seen = server.seen();
    assert!(seen.iter().any(|r| r.target == from));
    assert_redirect_kept_the_token(&elsewhere, "/storage/job-5001.trace", &seen, TOKEN);
}
