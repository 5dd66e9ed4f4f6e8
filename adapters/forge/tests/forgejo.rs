//! The Forgejo adapter against a scripted server on 127.0.0.1 (no test
//! reaches the network): the merged state, D8 dismissed reviews and review
//! threads keyed by their root comment, D9 permissions, `X-Total-Count`
//! paging to the profile's bounds, rate limits, typed 401/404 errors that
//! never show the token, deleted authors, unmapped values, and checks
//! collected as commit statuses through the seed's table (D-R94).

mod common;
#[path = "fixtures/forgejo/scenario.rs"]
mod scenario;

use common::prelude::*;
use probity_core::context::ReviewInput;
use probity_forge::forgejo::Forgejo;
use probity_forge::http::Limits;
use probity_ports::forge::{Authored, Listing, Window};
use scenario::{REPO, not_found, rate_limited, unauthorized};

const TOKEN: &str = "forgejo-test-token-42";

const FJ: Fixture<Forgejo<FakeSleeper>> =
    Fixture::of(Forgejo::new, Forge::Forgejo, "codeberg.example", TOKEN).scripting(9, 4);

/// Pull request 9's reviews within `window`, read from a fresh adapter.
fn reviews_of_9(server: &HttpServer, window: Window) -> Listing<Authored<ReviewInput>> {
    FJ.adapter(server).reviews(9, window).unwrap()
}

#[test]
fn a_pull_request_is_collected_with_its_gaps_and_assembles() {
    let server = HttpServer::script(scenario::pull_9()).unwrap();
    let req = FJ.change();
    let input = FJ.collected(&server, &req);
    assert_eq!(input.source.repository_id.as_deref(), Some("4242"));
    assert_eq!(input.source.repository.as_deref(), Some("acme/widgets"));
    // merged: true wins over the native `closed`.
    assert_eq!(input.entity.state, "merged");
    assert_eq!(input.entity.id.as_deref(), Some("88009"));
    assert_eq!(
        input.entity.created_at.as_deref(),
        Some("2026-09-08T10:15:30.000000000Z")
    );
    assert_eq!(comment_author(&input, "7002"), None);
    // D8: dismissed: true is `dismissed`; the review request is omitted.
    let states: Vec<_> = input
        .reviews
        .iter()
        .map(|r| (r.id.clone().unwrap(), r.state.clone()))
        .collect();
    assert_eq!(
        states,
        [
            ("601".to_owned(), "changes_requested".to_owned()),
            ("602".to_owned(), "dismissed".to_owned())
        ]
    );
    // D9: owner and admin are admin.
    let role = |id: &str| {
        input
            .actors
            .iter()
            .find(|a| a.id == id)
            .and_then(|a| a.role.clone())
    };
    assert_eq!(role("301").as_deref(), Some("write"));
    assert_eq!(role("302").as_deref(), Some("admin"));
    assert_eq!(role("303").as_deref(), Some("admin"));
    // Review threads are collected (see the D8 test), and checks are
    // (D-R94, see its test): no acquisition gap.
    assert_eq!(input.threads.len(), 2);
    assert_eq!(input.checks.len(), 3);
    assert!(
        input.acquisition_gaps.is_empty(),
        "{:?}",
        input.acquisition_gaps
    );
    let a = assembled(&input);
    assert_eq!(a.gaps.count(GapScope::Checks, GapCode::Unsupported), 0);
    // The two deleted authors (the Ghost placeholder, `user: null`).
    assert_eq!(
        a.gaps
            .count(GapScope::Comments, GapCode::AuthorizationFailed),
        2
    );
    assert_eq!(a.gaps.count(GapScope::Reviews, GapCode::InvalidMetadata), 0);
    assert!(a.tree.files().contains_key("state/threads.json"));
    assert_bearer(&server.seen(), TOKEN);
}

#[test]
fn an_issue_is_collected_completely() {
    let server = HttpServer::script(scenario::issue_4()).unwrap();
    let req = FJ.item();
    let input = FJ.collected(&server, &req);
    assert_eq!(input.entity.state, "open");
    assert_eq!(input.entity.body.as_deref(), Some(""));
    assert_eq!(input.comments.len(), 1);
    assert!(input.acquisition_gaps.is_empty());
    let a = assembled(&input);
    assert_eq!(a.gaps.rows().count(), 0);
}

#[test]
fn review_pages_follow_the_total_count() {
    let server = HttpServer::script(scenario::pull_9()).unwrap();
    // Oldest, a window of one: page 1 (a page of two); one review left.
    let l = reviews_of_9(&server, window(1, RecordSelection::Oldest));
    assert_eq!((l.items.len(), l.beyond_window), (2, 1));
    // Newest: the last page first (the unsubmitted request, omitted).
    let l = reviews_of_9(&server, window(1, RecordSelection::Newest));
    assert_eq!((l.items.len(), l.beyond_window), (0, 2));
    let l = reviews_of_9(&server, window(100, RecordSelection::Newest));
    assert_eq!((l.items.len(), l.beyond_window), (2, 0));
}

#[test]
fn unmapped_values_are_invalid_metadata() {
    let bad = include_str!("fixtures/forgejo/issue-4.json").replace("\"open\"", "\"reopened\"");
    let script = scenario::issue_4().get(&format!("{REPO}/issues/4"), vec![Reply::json(bad)]);
    let server = HttpServer::script(script).unwrap();
    let mut fj = FJ.adapter(&server);
    let req = FJ.item();
    let e = FJ.collect(&mut fj, &req).unwrap_err();
    assert!(
        matches!(e, CollectError::Forge(ForgeError::InvalidMetadata { ref value, .. }) if value == "reopened"),
        "{e:?}"
    );
    // An unknown review state omits that review and counts it.
    let reviews = include_str!("fixtures/forgejo/pull-9-reviews-page1.json")
        .replace("\"REQUEST_CHANGES\"", "\"CHANGES_REQUESTED\"");
    let script = scenario::pull_9().get(
        &format!("{REPO}/pulls/9/reviews?limit=50&page=1"),
        vec![Reply::json(reviews).header("X-Total-Count", "3")],
    );
    let server = HttpServer::script(script).unwrap();
    let l = reviews_of_9(&server, window(100, RecordSelection::Oldest));
    assert_eq!((l.items.len(), l.invalid), (1, 1));
}

/// D8 (Forgejo): review comments are grouped into threads by Forgejo's own
/// conversation key (review, file, signed line); a thread's identity and
/// `created_at` are its root comment's, later comments reply to the root,
/// the root's `resolver` resolves it, and `outdated` is never inferred.
#[test]
fn d8_review_threads_are_conversations_keyed_by_their_root_comment() {
    let server = HttpServer::script(scenario::pull_9()).unwrap();
    let t = FJ.threads(&server, RecordSelection::Newest);
    assert_eq!((t.threads.invalid, t.comments.invalid), (0, 0));
    let threads: Vec<_> = t.threads.items.iter().collect();
    assert_eq!(threads.len(), 2);
    let cache = threads
        .iter()
        .find(|t| t.path.as_deref() == Some("src/cache.rs"))
        .unwrap();
    // The root is the first comment in forge order, whatever the API order.
    assert_eq!(cache.id.as_deref(), Some("9101"));
    assert_eq!(cache.comment_ids, ["9101", "9102"]);
    assert_eq!(
        cache.created_at.as_deref(),
        Some("2026-09-08T13:00:00.000000000Z")
    );
    assert_eq!(cache.replies.len(), 1);
    assert_eq!(
        (
            cache.replies[0].comment_id.as_str(),
            cache.replies[0].parent_comment_id.as_str()
        ),
        ("9102", "9101")
    );
    assert_eq!(cache.review_id.as_deref(), Some("601"));
    assert_eq!(
        (cache.line, cache.side.as_deref()),
        (Some(12), Some("right"))
    );
    assert_eq!(cache.reviewed_sha.as_deref(), Some(scenario::HEAD));
    assert!(cache.resolved && !cache.outdated);
    assert_eq!(cache.resolved_by_actor_id.as_deref(), Some("303"));
    assert_eq!(t.resolvers.len(), 1);
    // An old-side line is `left`; its author was deleted.
    let lib = threads
        .iter()
        .find(|t| t.path.as_deref() == Some("src/lib.rs"))
        .unwrap();
    assert_eq!(lib.id.as_deref(), Some("9103"));
    assert_eq!((lib.line, lib.side.as_deref()), (Some(4), Some("left")));
    assert!(!lib.resolved && lib.resolved_by_actor_id.is_none());
    let deleted = t
        .comments
        .items
        .iter()
        .find(|c| c.record.id.as_deref() == Some("9103"))
        .unwrap();
    assert_eq!(deleted.author.id(), None);
    // Only the review with code comments was asked for them; the reviews
    // were listed once.
    let seen = server.seen();
    let asked: Vec<_> = seen
        .iter()
        .filter(|r| r.target.contains("/comments") && r.target.contains("/reviews/"))
        .map(|r| r.target.clone())
        .collect();
    assert_eq!(asked, [format!("{REPO}/pulls/9/reviews/601/comments")]);

    // A comment without its time makes its whole conversation
    // invalid_metadata, never a thread with a guessed time.
    let bad = include_str!("fixtures/forgejo/pull-9-review-601-comments.json").replace(
        r#""created_at": "2026-09-08T15:30:00+02:00""#,
        r#""created_at": "yesterday""#,
    );
    let script = scenario::pull_9().get(
        &format!("{REPO}/pulls/9/reviews/601/comments"),
        vec![Reply::json(bad)],
    );
    let t = FJ.threads(
        &HttpServer::script(script).unwrap(),
        RecordSelection::Newest,
    );
    assert_eq!(t.threads.items.len(), 1);
    assert_eq!((t.threads.invalid, t.comments.invalid), (1, 2));
}

/// D8 (Forgejo): a submitted review with `dismissed: true` maps to
/// `dismissed` whatever its native state; an unsubmitted review request is
/// omitted.
#[test]
fn d8_a_dismissed_review_is_dismissed() {
    let server = HttpServer::script(scenario::pull_9()).unwrap();
    let l = reviews_of_9(&server, window(100, RecordSelection::Oldest));
    let states: Vec<_> = l
        .items
        .iter()
        .map(|r| (r.record.id.as_deref().unwrap(), r.record.state.as_str()))
        .collect();
    // 602 is natively APPROVED with dismissed: true; 603 is a request.
    assert_eq!(states, [("601", "changes_requested"), ("602", "dismissed")]);
    // The API exposes neither who dismissed it nor when.
    assert_eq!(l.items[1].record.dismissed_by_actor_id, None);
}

/// D9: Forgejo permissions map owner/admin → admin, write → write, read →
/// read, none → none; anything else, or a failed lookup, leaves the actor
/// unverified (fail closed).
#[test]
fn d9_permissions_map_and_unmapped_ones_stay_unverified() {
    let perm = |p: &str| format!(r#"{{ "permission": "{p}", "role_name": "{p}" }}"#);
    let script = scenario::pull_9()
        .get(
            &format!("{REPO}/collaborators/alice/permission"),
            vec![Reply::json(perm("read"))],
        )
        .get(
            &format!("{REPO}/collaborators/bob/permission"),
            vec![Reply::json(perm("maintain"))],
        )
        .get(
            &format!("{REPO}/collaborators/carol/permission"),
            vec![not_found()],
        );
    let server = HttpServer::script(script).unwrap();
    let req = FJ.change();
    let input = FJ.collected(&server, &req);
    let role = |id: &str| role_of(&input, id);
    assert_eq!(role("301"), (Some("read"), true));
    assert_eq!(role("302"), (None, false), "maintain is not a Forgejo row");
    assert_eq!(role("303"), (None, false), "a 404 is unverified");
    for (native, v1) in [
        ("owner", "admin"),
        ("admin", "admin"),
        ("write", "write"),
        ("none", "none"),
    ] {
        let script = scenario::pull_9().get(
            &format!("{REPO}/collaborators/alice/permission"),
            vec![Reply::json(perm(native))],
        );
        let server = HttpServer::script(script).unwrap();
        let input = FJ.collected(&server, &req);
        assert_eq!(actor(&input, "301").role.as_deref(), Some(v1), "{native}");
    }
}

#[test]
fn deleted_authors_are_null_and_never_admitted() {
    // `user: null` and the Ghost placeholder (id -1); the Actions user
    // (id -2) is an account no table maps.
    let comments = r#"[
      { "id": 7201, "user": null, "body": "Orphaned.", "created_at": "2026-08-02T11:00:00+02:00", "updated_at": "2026-08-02T11:00:00+02:00" },
      { "id": 7202, "user": { "id": -1, "login": "Ghost", "username": "Ghost" }, "body": "Ghosted.", "created_at": "2026-08-02T12:00:00+02:00", "updated_at": "2026-08-02T12:00:00+02:00" },
      { "id": 7203, "user": { "id": -2, "login": "forgejo-actions", "username": "forgejo-actions" }, "body": "From a workflow.", "created_at": "2026-08-02T13:00:00+02:00", "updated_at": "2026-08-02T13:00:00+02:00" }
    ]"#;
    let script = scenario::issue_4().get(
        &format!("{REPO}/issues/4/comments"),
        vec![Reply::json(comments)],
    );
    let server = HttpServer::script(script).unwrap();
    let req = FJ.item();
    let input = FJ.collected(&server, &req);
    let author = |id: &str| comment_author(&input, id);
    assert_eq!(author("7201"), None);
    assert_eq!(author("7202"), None);
    assert_eq!(author("7203").as_deref(), Some("-2"));
    assert!(input.actors.iter().all(|a| a.id != "-1" && a.id != "-2"));
    let gaps = gap_rows(&input);
    assert_eq!(gaps, [("actors", "invalid_metadata", 1)]);
    let a = assembled(&input);
    // The deleted authors are not admitted; the unmapped account's record
    // has no actor row to admit it by.
    assert_eq!(
        a.gaps
            .count(GapScope::Comments, GapCode::AuthorizationFailed),
        2
    );
    assert_eq!(
        a.gaps.count(GapScope::Comments, GapCode::InvalidMetadata),
        1
    );
}

#[test]
fn a_profile_bound_fetch_is_a_profile_bound_gap() {
    // Page 1 of the reviews (two of three) is read; X-Total-Count says one
    // is left.
    let (script, page2) = (scenario::pull_9(), "reviews?limit=50&page=2");
    scenarios::a_profile_bound_fetch_is_a_gap(
        &FJ,
        script,
        &FJ.change(),
        ("reviews", 1),
        Some(page2),
    );
}

#[test]
fn a_rate_limit_is_waited_out_then_retried() {
    let comments = format!("{REPO}/issues/4/comments");
    // Retry-After first, then a reset time only (X-RateLimit-Reset).
    let script = scenario::issue_4().get(
        &comments,
        vec![
            rate_limited(Some(3), None),
            rate_limited(None, Some(1010)),
            Reply::json(include_str!("fixtures/forgejo/issue-4-comments.json")),
        ],
    );
    scenarios::rate_limits_are_waited_out(&FJ, script, &comments, &FJ.item(), (1, &[3, 10]));
}

#[test]
fn a_rate_limit_beyond_the_total_wait_is_a_typed_error() {
    // The repository (required): a typed error, nothing slept.
    let required = Script::new().get(REPO, vec![rate_limited(Some(60), None)]);
    // An optional listing: the total is shared, then a fetch_failed gap.
    let limited = vec![rate_limited(Some(15), None), rate_limited(Some(15), None)];
    let listing = scenario::issue_4().get(&format!("{REPO}/issues/4/comments"), limited);
    scenarios::rate_limits_beyond_the_total(&FJ, (required, Some(listing)), &FJ.item());
}

#[test]
fn unauthorized_and_not_found_are_typed_and_never_show_the_token() {
    let missing = scenario::pull_9().get(&format!("{REPO}/pulls/9"), vec![not_found()]);
    scenarios::refusals_are_typed(&FJ, (REPO, unauthorized()), missing, &FJ.change());
    // A refused optional listing is a fetch_failed gap, never an empty
    // history.
    let script = scenario::pull_9().get(&format!("{REPO}/issues/9/comments"), vec![unauthorized()]);
    scenarios::a_refused_listing_is_a_gap(&FJ, script, &FJ.change(), "comments");
}

#[test]
fn responses_are_bounded_before_parsing() {
    let server = HttpServer::script(scenario::pull_9()).unwrap();
    scenarios::an_oversized_repository_is_refused(&FJ, &server);
    // An optional listing over the bound is source_too_large, unparsed
    // (the repository and the issue fit in 1 KiB, the comments do not).
    let script = scenario::issue_4().get(
        &format!("{REPO}/issues/4/comments"),
        vec![Reply::json(format!("[{}]", " ".repeat(2000)))],
    );
    let server = HttpServer::script(script).unwrap();
    let limits = Limits {
        max_response_bytes: 1024,
        ..Limits::default()
    };
    let mut fj = FJ.with(&server, FakeSleeper::default(), limits);
    let input = FJ.collect(&mut fj, &FJ.item()).unwrap();
    assert!(input.comments.is_empty());
    assert_eq!(gap_rows(&input), [("comments", "source_too_large", 1)]);
}

#[test]
fn a_failed_listing_is_a_fetch_failed_gap_never_an_empty_history() {
    let script = scenario::pull_9().get(
        &format!("{REPO}/pulls/9/reviews?limit=50&page=1"),
        vec![Reply::status(502, "{}")],
    );
    scenarios::failed_reviews_are_gaps(&FJ, script, &FJ.change());
}

#[test]
fn a_bot_role_never_turns_a_forgejo_account_into_a_bot() {
    // Forgejo exposes no bot flag: a registered login is not enough to
    // establish provider-positive bot identity (ADR 0107).
    let server = HttpServer::script(scenario::pull_9()).unwrap();
    let mut req = FJ.change();
    req.bot_roles.insert("alice".into(), "review".into());
    let input = FJ.collected(&server, &req);
    assert!(
        input
            .actors
            .iter()
            .all(|a| a.kind == "human" && a.bot_role.is_none())
    );
    let alice = actor(&input, "301");
    assert_eq!(alice.role.as_deref(), Some("write"));
}

/// A timeout on every request (scenarios::stalls_time_out): the repository
/// held back, then the issue's comments.
#[test]
fn a_stalled_reply_times_out_in_bounded_time() {
    let comments = format!("{REPO}/issues/4/comments");
    let repo = Reply::json(include_str!("fixtures/forgejo/repo.json"));
    let listed = Reply::json(include_str!("fixtures/forgejo/issue-4-comments.json"));
    let stalls = scenarios::Stalls {
        script: scenario::issue_4,
        singleton: (REPO, repo),
        listing: (&comments, listed),
        state: "open",
    };
    scenarios::stalls_time_out(&FJ, stalls);
}

/// The token only as a header to the API base: an API answer redirected
/// to another host (here a second server) is fetched without it, and every
/// request to the API, before and after the redirect, carries it.
#[test]
fn a_redirect_to_another_host_never_carries_the_token() {
    let mirrored = Reply::json(include_str!("fixtures/forgejo/issue-4-comments.json"));
    let comments = format!("{REPO}/issues/4/comments");
    let (elsewhere, server) = scenarios::redirected_away(
        scenario::issue_4(),
        &comments,
        ("/mirror/issues/4/comments", mirrored),
    );
    let input = FJ.collected(&server, &FJ.item());
    assert_eq!(input.comments.len(), 1, "followed");
    let seen = server.seen();
    let asked = seen.iter().position(|r| r.target == comments).unwrap();
    assert!(asked + 1 < seen.len(), "the API was asked again afterwards");
    assert_redirect_kept_the_token(&elsewhere, "/mirror/issues/4/comments", &seen, TOKEN);
}

/// D-R94: Forgejo checks are the commit statuses of the captured HEAD, the
/// latest of each context (`GET /repos/{o}/{r}/commits/{sha}/status`, paged
/// by `X-Total-Count`), mapped by the seed's Forgejo table. A commit status
/// has no start time of its own: a `pending` one is a queued check, which
/// needs none, and is emitted with the combined answer's `sha`; a completed
/// one (`success`, `failure`, `error`, `warning`) cannot satisfy the
/// seed's rule that a completed check that did not explicitly never start
/// has a native `started_at`, so the assembler counts it
/// `invalid_metadata` and never invents the time. No log is fetched (a
/// status has none).
#[test]
fn d_r94_checks_are_commit_statuses_mapped_by_the_seed_table() {
    let server = HttpServer::script(scenario::pull_9()).unwrap();
    let req = FJ.change();
    let input = FJ.collected(&server, &req);
    // The default profile reads the newest first: sorted here by ID.
    let mut sorted = input.checks.clone();
    sorted.sort_by(|a, b| a.id.cmp(&b.id));
    let checks: Vec<_> = sorted
        .iter()
        .map(|c| {
            (
                c.id.clone().unwrap(),
                c.name.as_str(),
                c.status.as_str(),
                c.conclusion.as_deref(),
                c.never_started,
            )
        })
        .collect();
    assert_eq!(
        checks,
        [
            (
                "9101".to_owned(),
                "ci/build",
                "completed",
                Some("success"),
                Some(false)
            ),
            ("9102".to_owned(), "ci/lint", "queued", None, None),
            (
                "9103".to_owned(),
                "ci/coverage",
                "completed",
                Some("neutral"),
                Some(false)
            ),
        ]
    );
    for c in &input.checks {
        assert_eq!(c.head_sha.as_deref(), Some(scenario::HEAD));
        assert_eq!(
            (&c.started_at, &c.completed_at, &c.log),
            (&None, &None, &None)
        );
    }
    let lint = &sorted[1];
    assert_eq!(
        lint.created_at.as_deref(),
        Some("2026-09-08T10:21:00.000000000Z")
    );
    let a = assembled(&input);
    // The two completed statuses lack a native start: invalid_metadata.
    assert_eq!(a.gaps.count(GapScope::Checks, GapCode::InvalidMetadata), 2);
    let metas: Vec<_> = a
        .tree
        .files()
        .iter()
        .filter(|(p, _)| p.starts_with("checks/") && p.ends_with("/metadata.json"))
        .map(|(_, b)| serde_json::from_slice::<serde_json::Value>(b).unwrap())
        .collect();
    assert_eq!(metas.len(), 1, "only the queued status is emitted");
    assert_eq!(metas[0]["status"], "queued");
    assert_eq!(metas[0]["head_sha"], scenario::HEAD);
    assert_eq!(metas[0]["name"], "ci/lint");
    assert!(metas[0].get("started_at").is_none());
    // Both pages were read, for the HEAD only; no log was asked for.
    let targets: Vec<String> = server.seen().into_iter().map(|r| r.target).collect();
    assert_eq!(
        targets.iter().filter(|t| t.contains("/status?")).count(),
        2,
        "{targets:?}"
    );
    assert!(
        targets
            .iter()
            .all(|t| !t.contains("/commits/") || t.contains(scenario::HEAD))
    );
}

/// D-R94: the seed's table, row by row through the adapter: every
/// status it lists maps, `cancelled`/`canceled`/`skipped` without a
/// start are never-started checks (completed at their creation time by
/// the assembler), and a status the table does not list, a missing ID, or
/// a revision other than the HEAD is `invalid_metadata`, never a check.
#[test]
fn d_r94_commit_status_rows_unmapped_ones_and_other_revisions() {
    let row = |id: u64, status: &str| {
        serde_json::json!({ "id": id, "status": status, "context": format!("c{id}"),
            "creator": { "id": 301, "login": "alice" },
            "created_at": "2026-09-08T10:20:00Z", "updated_at": "2026-09-08T10:20:00Z" })
    };
    let mut statuses: Vec<serde_json::Value> = [
        "pending",
        "waiting",
        "blocked",
        "running",
        "success",
        "failure",
        "error",
        "warning",
        "cancelled",
        "canceled",
        "skipped",
        "unknown",
    ]
    .iter()
    .enumerate()
    .map(|(i, s)| row(9200 + i as u64, s))
    .collect();
    let mut no_id = row(0, "success");
    no_id.as_object_mut().unwrap().remove("id");
    statuses.push(no_id);
    let body = |sha: &str, statuses: &[serde_json::Value]| {
        serde_json::json!({ "state": "pending", "sha": sha, "total_count": statuses.len(),
            "statuses": statuses })
        .to_string()
    };
    let path = format!("{REPO}/commits/{}/status?limit=50&page=1", scenario::HEAD);
    let script = scenario::pull_9().get(
        &path,
        vec![Reply::json(body(scenario::HEAD, &statuses)).header("X-Total-Count", "13")],
    );
    let server = HttpServer::script(script).unwrap();
    let window = window(100, RecordSelection::Oldest);
    let l = FJ.adapter(&server).checks(scenario::HEAD, window).unwrap();
    // "unknown" and the row without an ID.
    assert_eq!(l.invalid, 2);
    let got: Vec<_> = l
        .items
        .iter()
        .map(|c| {
            (
                c.check.status.as_str(),
                c.check.conclusion.as_deref(),
                c.check.never_started,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("queued", None, None),
            ("queued", None, None),
            ("queued", None, None),
            ("in_progress", None, None),
            ("completed", Some("success"), Some(false)),
            ("completed", Some("failure"), Some(false)),
            ("completed", Some("failure"), Some(false)),
            ("completed", Some("neutral"), Some(false)),
            ("completed", Some("cancelled"), Some(true)),
            ("completed", Some("cancelled"), Some(true)),
            ("completed", Some("skipped"), Some(true)),
        ]
    );
    // Through the assembler: the queued and never-started rows are
    // emitted; in_progress and the other completed ones lack a native
    // start.
    let server = HttpServer::script(scenario::pull_9().get(
        &path,
        vec![Reply::json(body(scenario::HEAD, &statuses)).header("X-Total-Count", "13")],
    ))
    .unwrap();
    let req = FJ.change();
    let input = FJ.collected(&server, &req);
    let a = assembled(&input);
    let emitted = a
        .tree
        .files()
        .keys()
        .filter(|p| p.starts_with("checks/") && p.ends_with("/metadata.json"))
        .count();
    assert_eq!(emitted, 6);
    assert_eq!(
        a.gaps.count(GapScope::Checks, GapCode::InvalidMetadata),
        2 + 5
    );

    // Another revision in the answer: no check is emitted for it.
    let other = "0".repeat(40);
    let server = HttpServer::script(scenario::pull_9().get(
        &format!("{REPO}/commits/{}/status?limit=50&page=1", scenario::HEAD),
        vec![Reply::json(body(&other, &statuses[..1])).header("X-Total-Count", "1")],
    ))
    .unwrap();
    let input = FJ.collected(&server, &req);
    let a = assembled(&input);
    assert!(
        a.tree.files().keys().all(|p| !p.starts_with("checks/")),
        "a status of another revision is never a check"
    );
    assert_eq!(a.gaps.count(GapScope::Checks, GapCode::InvalidMetadata), 1);

    // No status at all: Forgejo answers `{}` without a count: no check,
    // no gap (an empty history, as the forge reports it).
    let server = HttpServer::script(scenario::pull_9().get(
        &format!("{REPO}/commits/{}/status?limit=50&page=1", scenario::HEAD),
        vec![Reply::json("{}")],
    ))
    .unwrap();
    let l = FJ.adapter(&server).checks(scenario::HEAD, window).unwrap();
    assert!(l.items.is_empty() && l.invalid == 0 && l.beyond_window == 0);
}

/// D-R94: the window applies to the statuses as to every listing: the
/// newest one of three reads the last page only, the rest is
/// `profile_bound`.
#[test]
fn d_r94_commit_status_pages_follow_the_window() {
    let server = HttpServer::script(scenario::pull_9()).unwrap();
    let l = FJ
        .adapter(&server)
        .checks(scenario::HEAD, window(1, RecordSelection::Newest))
        .unwrap();
    let ids: Vec<_> = l
        .items
        .iter()
        .map(|c| c.check.id.clone().unwrap())
        .collect();
    assert_eq!((ids, l.beyond_window), (vec!["9103".to_owned()], 2));
    let l = FJ
        .adapter(&server)
        .checks(scenario::HEAD, window(100, RecordSelection::Oldest))
        .unwrap();
    assert_eq!((l.items.len(), l.beyond_window), (3, 0));
}
