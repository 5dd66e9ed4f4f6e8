//! What the three forge adapters' tests share: the check of "a timeout on
//! every request" (docs/ARCHITECTURE.md, "forge"), run over each forge's
//! own scenario.

use std::time::{Duration, Instant};

use probity_core::context::EntityKind;
use probity_core::context::RecordSelection;
use probity_forge::http::Limits;
use probity_ports::forge::{
    CollectError, CollectRequest, EntityRef, ForgeError, ForgePort, Window, collect,
    default_profile,
};
use probity_testkit::http::{HttpServer, Reply, Script};

/// How long a stalled reply waits: far beyond [`TIMEOUT`].
const STALL: Duration = Duration::from_secs(5);
/// The request timeout the stall checks configure.
const TIMEOUT: Duration = Duration::from_millis(200);
/// What "well before the reply would come" means (the stall is 5 s).
const PROMPT: Duration = Duration::from_secs(3);

fn timed_out(e: &ForgeError) -> bool {
    matches!(e, ForgeError::Transport { message, .. } if message == "the request timed out")
}

/// One forge's work item and the two requests whose replies are held back.
pub struct Stalls<'a> {
    /// The forge's scenario for the work item, answering everything.
    pub script: fn() -> Script,
    /// The required singleton (the repository or project): its path and
    /// its reply.
    pub singleton: (&'a str, Reply),
    /// An optional listing (the item's comments): its path and its reply.
    pub listing: (&'a str, Reply),
    /// The collection request for the work item.
    pub request: CollectRequest,
    /// The work item's number.
    pub number: u64,
    /// The work item's state, as collected.
    pub state: &'a str,
    /// The token the adapter sends, which no error may show.
    pub token: &'a str,
}

/// A reply held back far beyond the configured timeout is the typed timeout
/// error for the required singleton (collection stops) and a `fetch_failed`
/// gap for the optional listing (the rest collected), each well before the
/// reply would come; the port call itself answers the timeout error.
pub fn stalls_time_out<P: ForgePort>(s: Stalls<'_>, adapter: impl Fn(&HttpServer, Limits) -> P) {
    let limits = Limits {
        timeout: TIMEOUT,
        ..Limits::default()
    };
    let profile = default_profile(EntityKind::WorkItem);

    let (path, reply) = s.singleton;
    let server = HttpServer::script((s.script)().get(path, vec![reply.delay(STALL)])).unwrap();
    let mut forge = adapter(&server, limits);
    let started = Instant::now();
    let e = collect(&mut forge, &s.request, &profile).unwrap_err();
    let took = started.elapsed();
    assert!(
        matches!(&e, CollectError::Forge(f) if timed_out(f)),
        "{e:?}"
    );
    assert!(took < PROMPT, "{took:?}");
    // The request was sent (and seen); only its answer never came in time.
    let seen = server.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].target, path);
    assert!(!format!("{e:?}").contains(s.token));

    let (path, reply) = s.listing;
    let server = HttpServer::script((s.script)().get(path, vec![reply.delay(STALL)])).unwrap();
    let mut forge = adapter(&server, limits);
    let started = Instant::now();
    let input = collect(&mut forge, &s.request, &profile).unwrap();
    let took = started.elapsed();
    assert!(took < PROMPT, "{took:?}");
    assert!(input.comments.is_empty());
    let gaps: Vec<_> = input
        .acquisition_gaps
        .iter()
        .map(|g| (g.scope.as_str(), g.code.as_str(), g.count))
        .collect();
    assert_eq!(gaps, [("comments", "fetch_failed", 1)]);
    assert_eq!(input.entity.state, s.state);
    assert!(server.seen().iter().any(|r| r.target == path));
    let e = forge
        .comments(
            EntityRef {
                kind: EntityKind::WorkItem,
                number: s.number,
            },
            Window {
                max_records: 100,
                selection: RecordSelection::Newest,
            },
        )
        .unwrap_err();
    assert!(timed_out(&e), "{e:?}");
}
