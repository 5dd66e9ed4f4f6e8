//! The pre-push gate's denial as `probity push` reports it (issue 21 §5,
//! D-R79): built once here for both paths (the gate `probity push` runs
//! over a dry run, and the managed hook's gate inside the push, which
//! leaves it in the file `probity push` made), so both answers are the same
//! typed `push_denied`.

use serde::Serialize;

use probity_ports::review as drivers;

use crate::output::{CliError, ErrorKind};

/// The environment variable naming the file a managed pre-push hook's
/// gate writes its denial to (the [`CliError`] `probity push` then
/// returns), so a denial judged inside the push's own connection is the
/// same typed `push_denied` as one judged before it. Only a report: the
/// hook's exit status is what refuses the push.
pub const VERDICT_ENV: &str = "PROBITY_PUSH_VERDICT";

/// The environment variable naming the remote as `probity push` was given
/// it (`origin`), for the verdict's words: git hands the hook the URL.
pub const VERDICT_REMOTE_ENV: &str = "PROBITY_PUSH_REMOTE";

/// The largest verdict read back.
const MAX_VERDICT_BYTES: u64 = 64 * 1024;

/// The denial a managed hook wrote (see [`VERDICT_ENV`]); none when it
/// wrote nothing or what it wrote is not one.
pub fn read_verdict(path: &std::path::Path) -> Option<CliError> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_VERDICT_BYTES)
        .read_to_end(&mut bytes)
        .ok()?;
    let v: Verdict = serde_json::from_slice(&bytes).ok()?;
    Some(CliError::new(
        ErrorKind::Conflict,
        "push_denied",
        v.message,
        v.next_action,
    ))
}

/// What a managed hook's gate writes for `probity push`: its denial, as
/// `push_denied`'s message and next step.
#[derive(Debug, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Verdict {
    message: String,
    next_action: String,
}

/// Whether this gate runs in the managed hook of a `probity push` that
/// asked for its denial ([`VERDICT_ENV`]).
pub fn verdict_requested() -> bool {
    std::env::var_os(VERDICT_ENV).is_some()
}

/// The remote a verdict names: as `probity push` was given it
/// ([`VERDICT_REMOTE_ENV`]), else `hooked` (what git handed the hook).
pub fn verdict_remote(hooked: &str) -> String {
    std::env::var(VERDICT_REMOTE_ENV).unwrap_or_else(|_| hooked.to_string())
}

/// Writes `denial` (a `push_denied`) for the `probity push` whose managed
/// hook this gate runs in, when [`VERDICT_ENV`] names the file it made:
/// only into an existing, empty regular file, never following a link,
/// never creating one. Best effort: the hook's exit status refuses the
/// push.
pub fn write_verdict(denial: &CliError) {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let Some(path) = std::env::var_os(VERDICT_ENV) else {
        return;
    };
    let verdict = Verdict {
        message: denial.message.clone(),
        next_action: denial.next_action.to_string(),
    };
    let Ok(bytes) = serde_json::to_vec(&verdict) else {
        return;
    };
    // Only the empty file `probity push` made: a name set by hand never
    // has a byte of anything overwritten.
    let file = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path);
    if let Ok(mut f) = file
        && f.metadata().is_ok_and(|m| m.is_file() && m.len() == 0)
    {
        let _ = f.write_all(&bytes);
    }
}

/// `push_denied` for the repository policy's denial of a push to `remote`
/// (as the server will apply it).
pub fn policy_denied(remote: &str, den: &drivers::ReceiveDenial) -> CliError {
    CliError::new(
        ErrorKind::Conflict,
        "push_denied",
        format!(
            "probity push refused: the repository policy of {remote} denies this push ({}): {}; nothing was pushed",
            den.reason_code, den.message
        ),
        crate::authority_cmd::push_next_step(&den.reason_code),
    )
}

/// `push_denied` for the pre-push gate's denial `d` of a push to `remote`,
/// naming each delivery. A new ref is measured against what the remote
/// holds: a teammate's push this clone has not fetched leaves its history
/// unmeasured, and the denial is this clone's stale view, not the change
/// (issue 21 §5): then the next step is to fetch first (one more
/// `ls-remote`, only on this failure path).
pub fn gate_denied(
    repo: &probity_git::Repo,
    remote: &str,
    d: &probity_core::review::GateDecision,
) -> CliError {
    let code = crate::output::wire_name(d.reason_code());
    let mut message = format!(
        "probity push refused: the pre-push gate denies this push ({code}): {}",
        d.message()
    );
    for r in d.deliveries() {
        message.push_str(&format!("; {}", crate::output::delivery_summary(r)));
    }
    message.push_str("; nothing was pushed");
    let unfetched = repo.unfetched_remote_tips(remote).unwrap_or_default();
    if !unfetched.is_empty() {
        let named: Vec<String> = unfetched
            .iter()
            .map(|(name, c)| format!("{name} at {c}"))
            .collect();
        message.push_str(&format!(
            "; {remote} holds commits this clone has not fetched ({}), and a new ref is measured against what {remote} holds",
            named.join(", ")
        ));
        return CliError::new(
            ErrorKind::Conflict,
            "push_denied",
            message,
            format!(
                "fetch first: `git fetch {remote}`, then `probity push` again (only what {remote} lacks is judged then)"
            ),
        );
    }
    CliError::new(
        ErrorKind::Conflict,
        "push_denied",
        message,
        crate::authority_cmd::push_next_step(&code),
    )
}
