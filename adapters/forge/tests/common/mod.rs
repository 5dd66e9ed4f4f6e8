//! What the three forge adapters' tests share: each forge's [`Fixture`]
//! (how its adapter is built against a scripted server, the requests it
//! is asked, the token it sends), the helpers every test reads its
//! answers with, and the scenarios the three forges go through alike
//! ([`scenarios`]), each given that forge's scripted answers and what it
//! must make of them.

#![allow(dead_code)]

pub mod scenarios;

/// What every forge's tests use, in one import (each test file uses its
/// own part of it).
#[allow(unused_imports)]
pub mod prelude {
    pub use super::scenarios;
    pub use super::{
        FakeSleeper, Fixture, actor, asked, assembled, assembled_gap, assert_bearer,
        assert_redirect_kept_the_token, check, clock_at, comment_author, comment_ids, gap_of,
        gap_rows, max_wait, role_of, secs, window,
    };
    pub use probity_core::context::{EntityKind, Forge, GapCode, GapScope, RecordSelection};
    pub use probity_ports::forge::{CollectError, CollectRequest, ForgeError, ForgePort};
    pub use probity_testkit::http::{HttpServer, Reply, Script};
}

use std::cell::RefCell;
use std::fmt::Debug;
use std::rc::Rc;
use std::time::Duration;

use probity_core::context::RecordSelection;
use probity_core::context::{ActorInput, CheckInput, EntityKind, Forge};
use probity_core::context::{Assembly, ContextInput, GapCode, GapScope};
use probity_forge::http::{Limits, Sleeper, Token};
use probity_ports::context::assemble;
use probity_ports::forge::{
    CollectError, CollectRequest, EntityRef, FetchedThreads, ForgeError, ForgePort, Window,
    collect, default_profile,
};
use probity_testkit::http::{HttpServer, Request};

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

/// A [`FakeSleeper`] whose clock reads `now`.
pub fn clock_at(now: u64) -> FakeSleeper {
    FakeSleeper {
        now,
        ..FakeSleeper::default()
    }
}

/// Whole seconds as durations (what a [`FakeSleeper`] is asked to sleep).
pub fn secs(s: &[u64]) -> Vec<Duration> {
    s.iter().map(|s| Duration::from_secs(*s)).collect()
}

/// The default limits but for the total rate-limit wait: `secs`.
pub fn max_wait(secs: u64) -> Limits {
    Limits {
        max_total_wait: Duration::from_secs(secs),
        ..Limits::default()
    }
}

/// The limits under which the repository answer (more than 64 bytes in
/// every scenario) is too large.
pub fn tiny_responses() -> Limits {
    Limits {
        max_response_bytes: 64,
        ..Limits::default()
    }
}

/// A window of `max_records` records chosen by `selection`.
pub fn window(max_records: u64, selection: RecordSelection) -> Window {
    Window {
        max_records,
        selection,
    }
}

/// The constructor the three adapters share: API base, repository (or
/// project path), token, limits, sleeper.
pub type New<F> = fn(&str, &str, Option<Token>, Limits, FakeSleeper) -> Result<F, ForgeError>;

/// One forge as its tests meet it: the adapter built for `acme/widgets`
/// on a scripted server, the collection requests naming its host, the
/// token it sends (which no error or rendering may show), and the numbers
/// of the change proposal and the work item its scenarios script.
pub struct Fixture<F> {
    /// The adapter's constructor.
    pub new: New<F>,
    /// The forge the collection requests name.
    pub forge: Forge,
    /// The host the collection requests name.
    pub host: &'static str,
    /// The token the adapter sends.
    pub token: &'static str,
    /// The scripted change proposal's number.
    pub change: u64,
    /// The scripted work item's number.
    pub item: u64,
}

impl<F> Fixture<F> {
    /// The fixture of the adapter `new` builds, for `forge` at `host`,
    /// sending `token` (no scripted entity yet: see [`Fixture::scripting`]).
    pub const fn of(new: New<F>, forge: Forge, host: &'static str, token: &'static str) -> Self {
        Self {
            new,
            forge,
            host,
            token,
            change: 0,
            item: 0,
        }
    }

    /// This fixture with the change proposal `change` and the work item
    /// `item` scripted.
    pub const fn scripting(self, change: u64, item: u64) -> Self {
        Self {
            change,
            item,
            ..self
        }
    }
}

impl<F: ForgePort + Debug> Fixture<F> {
    /// The adapter on `server` with the default limits and a clock at 0.
    pub fn adapter(&self, server: &HttpServer) -> F {
        self.with(server, FakeSleeper::default(), Limits::default())
    }

    /// The adapter on `server` with `sleeper` and `limits`.
    pub fn with(&self, server: &HttpServer, sleeper: FakeSleeper, limits: Limits) -> F {
        let token = Token::new(self.token.into()).unwrap();
        (self.new)(server.base(), "acme/widgets", Some(token), limits, sleeper).unwrap()
    }

    /// The collection request for the `kind` item `number`, no bot role
    /// registered.
    pub fn request(&self, kind: EntityKind, number: u64) -> CollectRequest {
        CollectRequest {
            forge: self.forge,
            host: self.host.into(),
            entity: EntityRef { kind, number },
            bot_roles: Default::default(),
        }
    }

    /// The collection request for the scripted change proposal.
    pub fn change(&self) -> CollectRequest {
        self.request(EntityKind::ChangeProposal, self.change)
    }

    /// The collection request for the scripted work item.
    pub fn item(&self) -> CollectRequest {
        self.request(EntityKind::WorkItem, self.item)
    }

    /// The scripted change proposal's review threads (a window of 100
    /// chosen by `selection`), read from a fresh adapter on `server`.
    pub fn threads(&self, server: &HttpServer, selection: RecordSelection) -> FetchedThreads {
        self.adapter(server)
            .review_threads(self.change, window(100, selection))
            .unwrap()
    }

    /// Collects `request` from `forge` under its kind's default profile.
    pub fn collect(
        &self,
        forge: &mut F,
        request: &CollectRequest,
    ) -> Result<ContextInput, CollectError> {
        collect(forge, request, &default_profile(request.entity.kind))
    }

    /// Collects `request` from a fresh adapter on `server` under its
    /// kind's default profile; the collection succeeds.
    pub fn collected(&self, server: &HttpServer, request: &CollectRequest) -> ContextInput {
        self.collect(&mut self.adapter(server), request).unwrap()
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

/// The first acquisition gap of `scope` as (code, count).
pub fn gap_of<'a>(input: &'a ContextInput, scope: &str) -> (&'a str, i64) {
    let gap = input
        .acquisition_gaps
        .iter()
        .find(|g| g.scope == scope)
        .unwrap();
    (gap.code.as_str(), gap.count)
}

/// `input` assembled (it must assemble).
pub fn assembled(input: &ContextInput) -> Assembly {
    assemble(input).unwrap()
}

/// How many records of `scope` the assembled `input` counts under `code`.
pub fn assembled_gap(input: &ContextInput, scope: GapScope, code: GapCode) -> u64 {
    assembled(input).gaps.count(scope, code)
}

/// The author of the collected comment `id` (`None`: no actor).
pub fn comment_author(input: &ContextInput, id: &str) -> Option<String> {
    input
        .comments
        .iter()
        .find(|c| c.id.as_deref() == Some(id))
        .unwrap()
        .author_id
        .clone()
}

/// The collected check `id`.
pub fn check<'a>(input: &'a ContextInput, id: &str) -> &'a CheckInput {
    input
        .checks
        .iter()
        .find(|c| c.id.as_deref() == Some(id))
        .unwrap()
}

/// The collected actor `id`.
pub fn actor<'a>(input: &'a ContextInput, id: &str) -> &'a ActorInput {
    input.actors.iter().find(|a| a.id == id).unwrap()
}

/// The collected actor `id`'s role and whether it was verified.
pub fn role_of<'a>(input: &'a ContextInput, id: &str) -> (Option<&'a str>, bool) {
    let a = actor(input, id);
    (a.role.as_deref(), a.role_verified)
}

/// The collected comments' IDs, in order.
pub fn comment_ids(input: &ContextInput) -> Vec<String> {
    input
        .comments
        .iter()
        .map(|c| c.id.clone().unwrap())
        .collect()
}

/// How many requests in `seen` had a target `matches` accepts.
pub fn asked(seen: &[Request], matches: impl Fn(&str) -> bool) -> usize {
    seen.iter().filter(|r| matches(&r.target)).count()
}

/// Every request in `seen` carried `token` as a bearer token.
pub fn assert_bearer(seen: &[Request], token: &str) {
    for r in seen {
        assert_eq!(
            r.header("authorization"),
            Some(&*format!("Bearer {token}")),
            "{}",
            r.target
        );
    }
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
    assert_bearer(api, token);
}

/// Collecting `request` (its kind's default profile) from `forge` is the
/// typed refusal for HTTP `status`: `Unauthorized` for 401, `NotFound` for
/// 404; neither the error (displayed or debugged) nor the adapter's debug
/// form shows `token`.
pub fn assert_refused<P: ForgePort + Debug>(
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
