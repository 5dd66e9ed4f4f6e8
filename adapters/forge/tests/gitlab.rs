//! The GitLab adapter against a scripted server on 127.0.0.1: `X-Next-Page`
//! pagination, D10 issue discussions, merge-request threads, jobs as
//! checks, bots established through the users API, and the collected input
//! assembled end to end.

#[path = "fixtures/gitlab/scenario.rs"]
mod scenario;

use probity_core::context::assemble::assemble;
use probity_core::context::profile::RecordSelection;
use probity_core::context::tree::{GapCode, GapScope};
use probity_core::context::types::{EntityKind, Forge};
use probity_forge::fixture::{Reply, ScriptServer};
use probity_forge::gitlab::GitLab;
use probity_forge::http::{Limits, SystemSleeper, Token};
use probity_ports::forge::{
    CollectError, CollectRequest, EntityRef, ForgeError, ForgePort, Window, collect,
    default_profile,
};
use scenario::PROJECT;

const TOKEN: &str = "glpat-test-0123456789";

fn adapter(server: &ScriptServer) -> GitLab<SystemSleeper> {
    GitLab::new(
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
        forge: Forge::Gitlab,
        host: "gitlab.example".into(),
        entity: EntityRef { kind, number },
        bot_roles: Default::default(),
    }
}

#[test]
fn a_merge_request_is_collected_and_assembles() {
    let server = ScriptServer::start(scenario::merge_request_5()).unwrap();
    let mut gl = adapter(&server);
    let req = request(EntityKind::ChangeProposal, 5);
    let input = collect(&mut gl, &req, &default_profile(EntityKind::ChangeProposal)).unwrap();

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
    let mut ids: Vec<_> = input
        .comments
        .iter()
        .map(|c| c.id.clone().unwrap())
        .collect();
    ids.sort();
    assert_eq!(ids, ["1201", "1203", "1204", "1205", "1206"]);
    let ghost = input
        .comments
        .iter()
        .find(|c| c.id.as_deref() == Some("1206"))
        .unwrap();
    assert_eq!(ghost.author_id, None);

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
    let gaps: Vec<_> = input
        .acquisition_gaps
        .iter()
        .map(|g| (g.scope.as_str(), g.code.as_str(), g.count))
        .collect();
    assert_eq!(gaps, [("reviews", "history_unavailable", 1)]);

    let check = |id: &str| {
        input
            .checks
            .iter()
            .find(|c| c.id.as_deref() == Some(id))
            .unwrap()
    };
    assert_eq!(check("5001").conclusion.as_deref(), Some("failure"));
    assert!(check("5001").log.as_deref().unwrap().contains("FAILED"));
    assert_eq!(check("5002").never_started, Some(true));
    assert_eq!(check("5003").status, "queued");

    let actor = |id: &str| input.actors.iter().find(|a| a.id == id).unwrap();
    assert_eq!(actor("11").role.as_deref(), Some("write"));
    assert_eq!(actor("12").role.as_deref(), Some("maintain"));
    assert_eq!(actor("13").role.as_deref(), Some("admin"));
    assert_eq!(actor("77").kind, "bot");

    let a = assemble(&input).unwrap();
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
    for r in &seen {
        assert_eq!(
            r.headers.get("authorization").map(String::as_str),
            Some(&*format!("Bearer {TOKEN}"))
        );
    }
    // Discussions were read once for comments and threads.
    let pages = seen
        .iter()
        .filter(|r| r.target.contains("/discussions"))
        .count();
    assert_eq!(pages, 2);
}

#[test]
fn issue_discussion_notes_are_comments_without_threads() {
    let server = ScriptServer::start(scenario::issue_3()).unwrap();
    let mut gl = adapter(&server);
    let req = request(EntityKind::WorkItem, 3);
    let input = collect(&mut gl, &req, &default_profile(EntityKind::WorkItem)).unwrap();
    assert_eq!(input.entity.state, "open");
    assert_eq!(input.entity.body.as_deref(), Some(""));
    let ids: Vec<_> = input
        .comments
        .iter()
        .map(|c| c.id.clone().unwrap())
        .collect();
    assert_eq!(ids, ["1301", "1302"]);
    assert!(input.threads.is_empty());
    // dave is no member (404): unverified, his note not admitted.
    let dave = input.actors.iter().find(|a| a.id == "14").unwrap();
    assert_eq!((dave.role.as_deref(), dave.role_verified), (None, false));
    let a = assemble(&input).unwrap();
    assert_eq!(
        a.gaps
            .count(GapScope::Comments, GapCode::AuthorizationFailed),
        1
    );
}

#[test]
fn x_next_page_pagination_stops_at_the_window() {
    let server = ScriptServer::start(scenario::merge_request_5()).unwrap();
    let e = EntityRef {
        kind: EntityKind::ChangeProposal,
        number: 5,
    };
    let window = |max_records, selection| Window {
        max_records,
        selection,
    };
    // Oldest, a window of one: page 1 (two discussions, one a system
    // note); X-Total counts the three discussions left.
    let l = adapter(&server)
        .comments(e, window(1, RecordSelection::Oldest))
        .unwrap();
    let ids: Vec<_> = l
        .items
        .iter()
        .map(|c| c.record.id.clone().unwrap())
        .collect();
    assert_eq!((ids, l.beyond_window), (vec!["1201".to_owned()], 3));
    // Newest: the last page (X-Total-Pages) first; page 1 is left.
    let l = adapter(&server)
        .comments(e, window(1, RecordSelection::Newest))
        .unwrap();
    let ids: Vec<_> = l
        .items
        .iter()
        .map(|c| c.record.id.clone().unwrap())
        .collect();
    assert_eq!(
        (ids, l.beyond_window),
        (vec!["1205".to_owned(), "1206".to_owned()], 2)
    );
    // A covering window reads both pages.
    let l = adapter(&server)
        .comments(e, window(100, RecordSelection::Oldest))
        .unwrap();
    assert_eq!((l.items.len(), l.beyond_window), (3, 0));
    let page1 = server
        .seen()
        .iter()
        .filter(|r| r.target.ends_with("discussions?per_page=100&page=1"))
        .count();
    assert_eq!(page1, 3);
}

#[test]
fn unmapped_states_and_missing_entities_are_typed() {
    let bad = include_str!("fixtures/gitlab/mr-5.json").replace("\"locked\"", "\"reopened\"");
    let script = scenario::merge_request_5().get(
        &format!("{PROJECT}/merge_requests/5"),
        vec![Reply::json(bad)],
    );
    let server = ScriptServer::start(script).unwrap();
    let mut gl = adapter(&server);
    let req = request(EntityKind::ChangeProposal, 5);
    let e = collect(&mut gl, &req, &default_profile(EntityKind::ChangeProposal)).unwrap_err();
    assert!(
        matches!(e, CollectError::Forge(ForgeError::InvalidMetadata { ref value, .. }) if value == "reopened"),
        "{e:?}"
    );
    let req = request(EntityKind::ChangeProposal, 6);
    let e = collect(&mut gl, &req, &default_profile(EntityKind::ChangeProposal)).unwrap_err();
    assert!(
        matches!(e, CollectError::Forge(ForgeError::NotFound { .. })),
        "{e:?}"
    );
    assert!(!format!("{e}").contains(TOKEN));
}
