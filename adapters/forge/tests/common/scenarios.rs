//! The scenarios the three forges go through alike: each runs one forge's
//! [`Fixture`] against that forge's scripted answers and asserts what
//! every adapter must make of them (docs/ARCHITECTURE.md, "forge": a
//! timeout on every request, rate limits waited within a bounded total,
//! typed refusals that never show the token, bounded responses, gaps
//! instead of empty histories). A failure names the forge in its test's
//! name (each forge's test file calls these from its own tests).

use std::fmt::Debug;
use std::time::{Duration, Instant};

use probity_core::context::{Assembly, ContextInput, GapCode, GapScope, RecordSelection};
use probity_forge::http::Limits;
use probity_ports::forge::{CollectError, CollectRequest, ForgeError, ForgePort, default_profile};
use probity_testkit::http::{HttpServer, Reply, Script};

use super::{
    FakeSleeper, Fixture, actor, asked, assembled, assembled_gap, assert_refused, clock_at, gap_of,
    gap_rows, max_wait, secs, tiny_responses, window,
};

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
    /// The work item's state, as collected.
    pub state: &'a str,
}

/// A reply held back far beyond the configured timeout is the typed timeout
/// error for the required singleton (collection stops) and a `fetch_failed`
/// gap for the optional listing (the rest collected), each well before the
/// reply would come; the port call itself answers the timeout error.
pub fn stalls_time_out<F: ForgePort + Debug>(f: &Fixture<F>, s: Stalls<'_>) {
    let limits = Limits {
        timeout: TIMEOUT,
        ..Limits::default()
    };
    let request = f.item();
    let stalled = |(path, reply): (&str, Reply)| {
        let server = HttpServer::script((s.script)().get(path, vec![reply.delay(STALL)])).unwrap();
        let forge = f.with(&server, Default::default(), limits);
        (server, forge)
    };

    let (server, mut forge) = stalled(s.singleton.clone());
    let started = Instant::now();
    let e = f.collect(&mut forge, &request).unwrap_err();
    let took = started.elapsed();
    assert!(
        matches!(&e, CollectError::Forge(f) if timed_out(f)),
        "{e:?}"
    );
    assert!(took < PROMPT, "{took:?}");
    // The request was sent (and seen); only its answer never came in time.
    let seen = server.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].target, s.singleton.0);
    assert!(!format!("{e:?}").contains(f.token));

    let (server, mut forge) = stalled(s.listing.clone());
    let started = Instant::now();
    let input = f.collect(&mut forge, &request).unwrap();
    let took = started.elapsed();
    assert!(took < PROMPT, "{took:?}");
    assert!(input.comments.is_empty());
    assert_eq!(gap_rows(&input), [("comments", "fetch_failed", 1)]);
    assert_eq!(input.entity.state, s.state);
    assert!(server.seen().iter().any(|r| r.target == s.listing.0));
    let e = forge
        .comments(request.entity, window(100, RecordSelection::Newest))
        .unwrap_err();
    assert!(timed_out(&e), "{e:?}");
}

/// Collects `request` (its kind's default profile) from `script`'s
/// server under `limits` and a clock at 1000: the server, the sleeper
/// (what it was asked to sleep) and the collection's outcome.
fn on_a_clock<F: ForgePort + Debug>(
    f: &Fixture<F>,
    script: Script,
    request: &CollectRequest,
    limits: Limits,
) -> (HttpServer, FakeSleeper, Result<ContextInput, CollectError>) {
    let server = HttpServer::script(script).unwrap();
    let sleeper = clock_at(1000);
    let outcome = f.collect(&mut f.with(&server, sleeper.clone(), limits), request);
    (server, sleeper, outcome)
}

/// `script` answers `target` with rate limits before the answer: each
/// is waited out (the sleeps `slept`, in seconds, a clock at 1000) and
/// `target` asked again, and `request` is collected whole (`comments`
/// comments, no gap).
pub fn rate_limits_are_waited_out<F: ForgePort + Debug>(
    f: &Fixture<F>,
    script: Script,
    target: &str,
    request: &CollectRequest,
    (comments, slept): (usize, &[u64]),
) {
    let (server, sleeper, input) = on_a_clock(f, script, request, Default::default());
    let input = input.unwrap();
    assert_eq!(input.comments.len(), comments);
    assert!(input.acquisition_gaps.is_empty(), "{:?}", gap_rows(&input));
    assert_eq!(*sleeper.slept.borrow(), secs(slept));
    assert_eq!(asked(&server.seen(), |t| t == target), slept.len() + 1);
}

/// Rate limits beyond the 20 s total (a clock at 1000). `required`
/// rate-limits the required singleton: collecting `request` is
/// `RateLimited` having waited nothing, nothing was slept, and the error
/// never shows the token. `listing`, when given, rate-limits the comments
/// listing for 15 s, then beyond the total: the 15 s are waited once, and
/// the listing is a `fetch_failed` gap with nothing collected for it.
pub fn rate_limits_beyond_the_total<F: ForgePort + Debug>(
    f: &Fixture<F>,
    (required, listing): (Script, Option<Script>),
    request: &CollectRequest,
) {
    let (_, sleeper, e) = on_a_clock(f, required, request, max_wait(20));
    let e = e.unwrap_err();
    assert!(
        matches!(
            e,
            CollectError::Forge(ForgeError::RateLimited { waited_secs: 0, .. })
        ),
        "{e:?}"
    );
    assert!(sleeper.slept.borrow().is_empty());
    assert!(!e.to_string().contains(f.token) && !format!("{e:?}").contains(f.token));

    let Some(listing) = listing else { return };
    let (_, sleeper, input) = on_a_clock(f, listing, request, max_wait(20));
    let input = input.unwrap();
    assert!(input.comments.is_empty());
    assert_eq!(gap_rows(&input), [("comments", "fetch_failed", 1)]);
    assert_eq!(*sleeper.slept.borrow(), secs(&[15]));
}

/// A 401 (`unauthorized`) for the required `singleton`, then a 404 for the
/// entity (`entity_missing`): both typed, neither showing the token.
pub fn refusals_are_typed<F: ForgePort + Debug>(
    f: &Fixture<F>,
    (singleton, unauthorized): (&str, Reply),
    entity_missing: Script,
    request: &CollectRequest,
) {
    let server = HttpServer::script(Script::new().get(singleton, vec![unauthorized])).unwrap();
    assert_refused(&mut f.adapter(&server), request, 401, f.token);
    let server = HttpServer::script(entity_missing).unwrap();
    assert_refused(&mut f.adapter(&server), request, 404, f.token);
}

/// `script` refuses an optional listing: `request` is collected with a
/// `fetch_failed` gap of one for its `scope`, never an empty history.
pub fn a_refused_listing_is_a_gap<F: ForgePort + Debug>(
    f: &Fixture<F>,
    script: Script,
    request: &CollectRequest,
    scope: &str,
) {
    let input = f.collected(&HttpServer::script(script).unwrap(), request);
    assert!(
        gap_rows(&input).contains(&(scope, "fetch_failed", 1)),
        "{:?}",
        gap_rows(&input)
    );
}

/// A profile of one record per source, oldest first: the `scope` listing
/// stops at the window, its gap is `profile_bound` counting the `left`
/// records (which the assembler's row includes), and the page `unread`
/// (a target's end), when given, was never asked for.
pub fn a_profile_bound_fetch_is_a_gap<F: ForgePort + Debug>(
    f: &Fixture<F>,
    script: Script,
    request: &CollectRequest,
    (scope, left): (&str, i64),
    unread: Option<&str>,
) {
    let server = HttpServer::script(script).unwrap();
    let mut profile = default_profile(request.entity.kind);
    profile.bounds.max_records_per_source = 1;
    profile.record_selection = "oldest".into();
    let input = probity_ports::forge::collect(&mut f.adapter(&server), request, &profile).unwrap();
    assert_eq!(gap_of(&input, scope), ("profile_bound", left));
    if let Some(page) = unread {
        assert!(
            server.seen().iter().all(|r| !r.target.ends_with(page)),
            "no page beyond the window was read"
        );
    }
    // The assembler adds what it drops from the fetched pages to the same row.
    let scope = GapScope::parse(scope).unwrap();
    let count = assembled_gap(&input, scope, GapCode::ProfileBound);
    assert!(count >= left.unsigned_abs(), "{count}");
}

/// A bot login (`bot`: its login and actor ID) and a human's (`human`:
/// `alice`'s actor ID) registered with the `review` role: the bot is
/// admitted with it, the human stays a human without one, and
/// `unadmitted` comments are still not admitted (their authors deleted or
/// unverified). Answers the collected input.
pub fn a_registered_bot_is_admitted<F: ForgePort + Debug>(
    f: &Fixture<F>,
    script: Script,
    (bot, human): ((&str, &str), &str),
    unadmitted: u64,
) -> ContextInput {
    let mut request = f.change();
    request.bot_roles.insert(bot.0.into(), "review".into());
    // A human account never becomes a bot through the registry.
    request.bot_roles.insert("alice".into(), "review".into());
    let input = f.collected(&HttpServer::script(script).unwrap(), &request);
    assert_eq!(input.bot_roles, ["review"]);
    let bot = actor(&input, bot.1);
    let bot = (bot.kind.as_str(), bot.bot_role.as_deref());
    assert_eq!(bot, ("bot", Some("review")));
    let alice = actor(&input, human);
    let alice = (alice.kind.as_str(), alice.bot_role.as_deref());
    assert_eq!(alice, ("human", None));
    let count = assembled_gap(&input, GapScope::Comments, GapCode::AuthorizationFailed);
    assert_eq!(count, unadmitted);
    input
}

/// `script` fails the reviews listing: reviews and threads are empty and
/// both their scopes are `fetch_failed` (the review comments come with
/// the threads, so the comment source is incomplete too).
pub fn failed_reviews_are_gaps<F: ForgePort + Debug>(
    f: &Fixture<F>,
    script: Script,
    request: &CollectRequest,
) {
    let input = f.collected(&HttpServer::script(script).unwrap(), request);
    assert!(input.reviews.is_empty() && input.threads.is_empty());
    assert_eq!(
        gap_rows(&input),
        [
            ("comments", "fetch_failed", 1),
            ("reviews", "fetch_failed", 2)
        ]
    );
    let count = assembled_gap(&input, GapScope::Reviews, GapCode::FetchFailed);
    assert_eq!(count, 2);
}

/// A response over `max_response_bytes` (64) is refused before it is
/// parsed: the repository answer is the typed `InputTooLarge` error.
pub fn an_oversized_repository_is_refused<F: ForgePort + Debug>(
    f: &Fixture<F>,
    server: &HttpServer,
) {
    let e = f
        .with(server, Default::default(), tiny_responses())
        .repository()
        .unwrap_err();
    assert!(
        matches!(e, ForgeError::InputTooLarge { limit: 64, .. }),
        "{e:?}"
    );
}

/// A log over 10 bytes is read to one byte more and handed over as
/// oversized; collected under a profile whose `max_source_bytes` the log
/// exceeds, it is one `check_logs` `source_too_large` record (the
/// assembler refuses it undecoded). Answers the assembly.
pub fn an_oversized_log_is_refused<F: ForgePort + Debug>(
    f: &Fixture<F>,
    server: &HttpServer,
    (log, max_source_bytes): (&str, i64),
    request: &CollectRequest,
) -> Assembly {
    let mut forge = f.adapter(server);
    let text = forge.check_log(log, 10).unwrap();
    assert!(text.oversized);
    assert_eq!(text.text.len(), 11);
    let mut profile = default_profile(request.entity.kind);
    profile.bounds.max_source_bytes = max_source_bytes;
    let input = probity_ports::forge::collect(&mut forge, request, &profile).unwrap();
    let a = assembled(&input);
    assert_eq!(
        a.gaps.count(GapScope::CheckLogs, GapCode::SourceTooLarge),
        1
    );
    a
}

/// Another host (a second server) answering `away` with `reply`, and the
/// API server answering `script` with `from` redirected there: (the other
/// host, the API server).
pub fn redirected_away(
    script: Script,
    from: &str,
    (away, reply): (&str, Reply),
) -> (HttpServer, HttpServer) {
    let elsewhere = HttpServer::script(Script::new().get(away, vec![reply])).unwrap();
    let location = format!("{}{away}", elsewhere.base());
    let redirect = Reply::status(302, "").header("Location", &location);
    let api = HttpServer::script(script.get(from, vec![redirect])).unwrap();
    (elsewhere, api)
}
