//! What the three forge adapters' tests share: the check of "a timeout on
//! every request" (docs/ARCHITECTURE.md, "forge"), run over each forge's
//! own scenario.

#![allow(dead_code)]

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use probity_core::context::ContextInput;
use probity_core::context::RecordSelection;
use probity_core::context::{EntityKind, Forge};
use probity_forge::http::{Limits, Sleeper, Token};
use probity_ports::forge::{
    CollectError, CollectRequest, EntityRef, ForgeError, ForgePort, Window, collect,
    default_profile,
};
use probity_testkit::http::{HttpServer, Reply, Request, Script};

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

/// A sleeper that records what it was asked to sleep and reads a fixed
/// clock: rate-limit waits are checked without waiting.
#[derive(Debug, Clone, Default)]
pub struct FakeSleeper {
    /// Every sleep asked for, in order (shared by the clones).
    pub slept: Rc<RefCell<Vec<Duration>>>,
    /// The Unix time `now_unix` answers.
    pub now: u64,
}

impl Sleeper for FakeSleeper {
    fn sleep(&mut self, d: Duration) {
        self.slept.borrow_mut().push(d);
    }
    fn now_unix(&self) -> u64 {
        self.now
    }
}

/// The collected input's acquisition gaps as (scope, code, count) rows.
pub fn gap_rows(input: &ContextInput) -> Vec<(&str, &str, i64)> {
    input
        .acquisition_gaps
        .iter()
        .map(|g| (g.scope.as_str(), g.code.as_str(), g.count))
        .collect()
}

/// A redirect to another host never carries the token: `elsewhere` was
/// asked once, for `target`, with no `authorization` header and no header
/// holding the token; every request the API server saw (`api`) carried it
/// as a bearer token.
pub fn assert_redirect_kept_the_token(
    elsewhere: &HttpServer,
    target: &str,
    api: &[Request],
    token: &str,
) {
    let away = elsewhere.seen();
    assert_eq!(away.len(), 1);
    assert_eq!(away[0].target, target);
    assert_eq!(away[0].header("authorization"), None);
    for (name, value) in &away[0].headers {
        assert!(!value.contains(token), "{name} carried the token");
    }
    for r in api {
        assert_eq!(
            r.header("authorization"),
            Some(&*format!("Bearer {token}")),
            "{}",
            r.target
        );
    }
}

/// A response over `max_response_bytes` (64) is refused before it is
/// parsed: the repository answer is the typed `InputTooLarge` error.
pub fn assert_oversized_repository_refused<P: ForgePort>(forge: &mut P) {
    let e = forge.repository().unwrap_err();
    assert!(
        matches!(e, ForgeError::InputTooLarge { limit: 64, .. }),
        "{e:?}"
    );
}

/// The limits under which the repository answer (more than 64 bytes in
/// every scenario) is too large.
pub fn tiny_responses() -> Limits {
    Limits {
        max_response_bytes: 64,
        ..Limits::default()
    }
}

/// The constructor the three adapters share: API base, repository (or
/// project path), token, limits, sleeper.
pub type New<F, S> = fn(&str, &str, Option<Token>, Limits, S) -> Result<F, ForgeError>;

/// The adapter `new` builds for `acme/widgets` on the scripted `server`,
/// sending `token`.
pub fn connect<F, S>(
    new: New<F, S>,
    server: &HttpServer,
    token: &str,
    limits: Limits,
    sleeper: S,
) -> F {
    let token = Token::new(token.into()).unwrap();
    new(server.base(), "acme/widgets", Some(token), limits, sleeper).unwrap()
}

/// The collection request for the `kind` item `number` on `forge` at
/// `host`, no bot role registered.
pub fn request_on(forge: Forge, host: &str, kind: EntityKind, number: u64) -> CollectRequest {
    CollectRequest {
        forge,
        host: host.into(),
        entity: EntityRef { kind, number },
        bot_roles: Default::default(),
    }
}

/// Collecting `request` (its kind's default profile) from `forge` is the
/// typed refusal for HTTP `status`: `Unauthorized` for 401, `NotFound` for
/// 404; neither the error (displayed or debugged) nor the adapter's debug
/// form shows `token`.
pub fn assert_refused<P: ForgePort + std::fmt::Debug>(
    forge: &mut P,
    request: &CollectRequest,
    status: u16,
    token: &str,
) {
    let e = collect(forge, request, &default_profile(request.entity.kind)).unwrap_err();
    // (the kind the error says, the status it carries)
    let typed = match &e {
        CollectError::Forge(ForgeError::Unauthorized { status: s, .. }) => (401, *s),
        CollectError::Forge(ForgeError::NotFound { status: s, .. }) => (404, *s),
        _ => (0, 0),
    };
    assert_eq!(typed, (status, status), "{e:?}");
    for shown in [e.to_string(), format!("{e:?}"), format!("{forge:?}")] {
        assert!(!shown.contains(token), "{shown}");
    }
}
