//! The Forgejo adapter against a scripted server on 127.0.0.1: the merged
//! state, D8 dismissed reviews, D9 permissions, `X-Total-Count` paging, the
//! deleted-account placeholder, and the sources not collected yet recorded
//! as `unsupported` gaps.

#[path = "fixtures/forgejo/scenario.rs"]
mod scenario;

use probity_core::context::assemble::assemble;
use probity_core::context::profile::RecordSelection;
use probity_core::context::tree::{GapCode, GapScope};
use probity_core::context::types::{EntityKind, Forge};
use probity_forge::fixture::{Reply, ScriptServer};
use probity_forge::forgejo::Forgejo;
use probity_forge::http::{Limits, SystemSleeper, Token};
use probity_ports::forge::{
    CollectError, CollectRequest, EntityRef, ForgeError, ForgePort, Window, collect,
    default_profile,
};
use scenario::REPO;

const TOKEN: &str = "forgejo-test-token-42";

fn adapter(server: &ScriptServer) -> Forgejo<SystemSleeper> {
    Forgejo::new(
        server.base(),
        "acme/widgets",
        Some(Token::new(TOKEN.into()).unwrap()),
        Limits::default(),
        SystemSleeper,
    )
    .unwrap()
}

fn request(kind: EntityKind, number: u64) -> CollectRequest {
    CollectRequest {
        forge: Forge::Forgejo,
        host: "codeberg.example".into(),
        entity: EntityRef { kind, number },
        bot_roles: Default::default(),
    }
}

#[test]
fn a_pull_request_is_collected_with_its_gaps_and_assembles() {
    let server = ScriptServer::start(scenario::pull_9()).unwrap();
    let mut fj = adapter(&server);
    let req = request(EntityKind::ChangeProposal, 9);
    let input = collect(&mut fj, &req, &default_profile(EntityKind::ChangeProposal)).unwrap();
    assert_eq!(input.source.repository_id.as_deref(), Some("4242"));
    assert_eq!(input.source.repository.as_deref(), Some("acme/widgets"));
    // merged: true wins over the native `closed`.
    assert_eq!(input.entity.state, "merged");
    assert_eq!(input.entity.id.as_deref(), Some("88009"));
    assert_eq!(
        input.entity.created_at.as_deref(),
        Some("2026-09-08T10:15:30.000000000Z")
    );
    let ghost = input
        .comments
        .iter()
        .find(|c| c.id.as_deref() == Some("7002"))
        .unwrap();
    assert_eq!(ghost.author_id, None);
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
    // Threads and checks are not collected: never an empty history.
    let gaps: Vec<_> = input
        .acquisition_gaps
        .iter()
        .map(|g| (g.scope.as_str(), g.code.as_str(), g.count))
        .collect();
    assert_eq!(
        gaps,
        [
            ("checks", "unsupported", 1),
            ("comments", "unsupported", 1),
            ("reviews", "unsupported", 1),
        ]
    );
    let a = assemble(&input).unwrap();
    assert_eq!(a.gaps.count(GapScope::Checks, GapCode::Unsupported), 1);
    assert_eq!(
        a.gaps
            .count(GapScope::Comments, GapCode::AuthorizationFailed),
        1
    );
    for r in server.seen() {
        assert_eq!(
            r.headers.get("authorization").map(String::as_str),
            Some(&*format!("Bearer {TOKEN}"))
        );
    }
}

#[test]
fn an_issue_is_collected_completely() {
    let server = ScriptServer::start(scenario::issue_4()).unwrap();
    let mut fj = adapter(&server);
    let req = request(EntityKind::WorkItem, 4);
    let input = collect(&mut fj, &req, &default_profile(EntityKind::WorkItem)).unwrap();
    assert_eq!(input.entity.state, "open");
    assert_eq!(input.entity.body.as_deref(), Some(""));
    assert_eq!(input.comments.len(), 1);
    assert!(input.acquisition_gaps.is_empty());
    let a = assemble(&input).unwrap();
    assert_eq!(a.gaps.rows().count(), 0);
}

#[test]
fn review_pages_follow_the_total_count() {
    let server = ScriptServer::start(scenario::pull_9()).unwrap();
    let window = |max_records, selection| Window {
        max_records,
        selection,
    };
    // Oldest, a window of one: page 1 (a page of two); one review left.
    let l = adapter(&server)
        .reviews(9, window(1, RecordSelection::Oldest))
        .unwrap();
    assert_eq!((l.items.len(), l.beyond_window), (2, 1));
    // Newest: the last page first (the unsubmitted request, omitted).
    let l = adapter(&server)
        .reviews(9, window(1, RecordSelection::Newest))
        .unwrap();
    assert_eq!((l.items.len(), l.beyond_window), (0, 2));
    let l = adapter(&server)
        .reviews(9, window(100, RecordSelection::Newest))
        .unwrap();
    assert_eq!((l.items.len(), l.beyond_window), (2, 0));
}

#[test]
fn unmapped_values_are_invalid_metadata() {
    let bad = include_str!("fixtures/forgejo/issue-4.json").replace("\"open\"", "\"reopened\"");
    let script = scenario::issue_4().get(&format!("{REPO}/issues/4"), vec![Reply::json(bad)]);
    let server = ScriptServer::start(script).unwrap();
    let mut fj = adapter(&server);
    let req = request(EntityKind::WorkItem, 4);
    let e = collect(&mut fj, &req, &default_profile(EntityKind::WorkItem)).unwrap_err();
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
    let server = ScriptServer::start(script).unwrap();
    let l = adapter(&server)
        .reviews(
            9,
            Window {
                max_records: 100,
                selection: RecordSelection::Oldest,
            },
        )
        .unwrap();
    assert_eq!((l.items.len(), l.invalid), (1, 1));
}
