//! Helpers of the model-review tests (`model_review_cli.rs`,
//! `model_review_guards_cli.rs`): the scripted model's environment, a
//! started lineage, its state and transcripts.

#![allow(dead_code)]

use crate::support::model_server::{Lens, role_server};
use crate::support::*;

pub fn env(url: &str) -> Vec<(&'static str, String)> {
    vec![
        ("PROBITY_MODEL_BASE_URL", url.to_string()),
        ("PROBITY_MODEL", "scripted".to_string()),
    ]
}

pub fn review(f: &probity_git::fixture::Fixture, url: &str, args: &[&str]) -> Run {
    let env = env(url);
    let pairs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let mut all = vec!["review"];
    all.extend_from_slice(args);
    probity_env(f.root(), &all, &pairs)
}

pub fn started(f: &probity_git::fixture::Fixture) -> String {
    let st = probity_ok(f.root(), &["start"]);
    st.json["lineage_id"].as_str().unwrap().to_string()
}

/// The medium change with a review started: the fixture and the lineage.
pub fn medium_started() -> (probity_git::fixture::Fixture, String) {
    let f = medium_change();
    let lineage = started(&f);
    (f, lineage)
}

/// The claim of the inferential finding the model-review tests script.
pub const BEFORE_PARSE: &str = "more() may be called before parse() initialises state";

/// The roles a `review --lineage` answer ran, in order.
pub fn roles_of(r: &Run) -> Vec<String> {
    r.json["roles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["role"].as_str().unwrap().to_string())
        .collect()
}

/// An inferential lens finding at `src/parser.rs:3`.
pub fn inferential(claim: &str) -> Lens {
    Lens::Inferential {
        location: "src/parser.rs:3".into(),
        claim: claim.into(),
    }
}

/// A BLOCKER lens finding at `src/parser.rs:3`.
pub fn blocker(claim: &str) -> Lens {
    Lens::Blocker {
        location: "src/parser.rs:3".into(),
        claim: claim.into(),
    }
}

pub fn state_of(f: &probity_git::fixture::Fixture, lineage: &str) -> serde_json::Value {
    lineage_json(f, lineage, "state.json")
}

pub fn transcripts(f: &probity_git::fixture::Fixture, lineage: &str) -> Vec<String> {
    std::fs::read_dir(lineage_dir(f, lineage).join("transcripts"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

/// The validator's transcript likewise: kept only once `finalize
/// --validation` took its document. Here the base moves while the
/// validator is asked (a commit of another file), so finalize refuses the
/// fix (`base_changed`) and the store stays as it was.
/// A lineage whose BLOCKER (from a scripted lens) was admitted to
/// correction, forecast at one line and fixed in the worktree: the next
/// step is `review --lineage L --validate`.
pub fn fixed_and_awaiting_the_validator() -> (probity_git::fixture::Fixture, String) {
    let f = medium_change();
    let lineage = started(&f);
    let server = role_server(Lens::Blocker {
        location: "src/parser.rs:3".into(),
        claim: "more() does nothing the caller relies on".into(),
    });
    let r = review(&f, &server.base_url, &["--lineage", &lineage]);
    assert_eq!(r.json["action"], "forecast_correction", "{}", r.stdout);
    let forecast = probity(
        f.root(),
        &["finalize", "--lineage", &lineage, "--correction-lines", "1"],
    );
    assert_eq!(forecast.code, 0, "{}", forecast.stdout);
    f.write(
        "src/parser.rs",
        "// parser\nfn parse() {}\nfn more() { parse() }\n",
    )
    .unwrap();
    (f, lineage)
}

/// A configuration running `script` (under `/bin/sh -c`) as the agent of
/// the `command` provider, written into `dir`.
pub fn agent_config(dir: &std::path::Path, script: &str) -> String {
    let config = serde_json::json!({
        "reviewModelProvider": "command",
        "reviewModelCommand": ["/bin/sh", "-c", script],
    });
    input(dir, "agent.json", &config.to_string())
}

/// `probity review` without `--json`: the human answer.
pub fn review_human(f: &probity_git::fixture::Fixture, url: &str, args: &[&str]) -> Run {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_probity"));
    isolated(&mut cmd)
        .arg("--cwd")
        .arg(f.root())
        .arg("review")
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("http_proxy")
        .env_remove("HTTP_PROXY")
        .env_remove("ALL_PROXY");
    for (k, v) in env(url) {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        json: serde_json::Value::Null,
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

pub fn state_path(f: &probity_git::fixture::Fixture, lineage: &str) -> std::path::PathBuf {
    lineage_dir(f, lineage).join("state.json")
}

/// A high-risk change (`src/auth/token.rs`, four lenses) with a review
/// started: the fixture and the lineage.
pub fn high_risk_started() -> (probity_git::fixture::Fixture, String) {
    let f = parser_base();
    f.write(
        "src/auth/token.rs",
        "pub fn check(t: &str) -> bool {\n    !t.is_empty()\n}\n",
    )
    .unwrap();
    let lineage = started(&f);
    (f, lineage)
}

/// A high-risk change (four lenses) reviewed by a `command` agent that
/// waits until `want` agents are in flight at once (bounded: alone too
/// long, it fails), recording how many were in flight when it started.
pub fn high_risk_run(jobs: &str, want: usize) -> (Run, Vec<usize>) {
    let (f, lineage) = high_risk_started();
    let dir = tempfile::tempdir().unwrap();
    let flight = dir.path().join("in-flight");
    std::fs::create_dir(&flight).unwrap();
    let log = dir.path().join("seen");
    // Deterministic: no timing is asserted. An agent proceeds once `want`
    // markers exist (its own among them); the 30 s bound only turns a
    // run that never reaches `want` into a failure instead of a hang.
    let script = format!(
        r#"cat >/dev/null
me=$(mktemp "$FLIGHT/agent.XXXXXX")
ls "$FLIGHT" | wc -l >> "$SEEN"
i=0
while [ "$(ls "$FLIGHT" | wc -l)" -lt {want} ]; do
  i=$((i+1)); if [ $i -gt 600 ]; then echo "alone too long" >&2; exit 1; fi
  sleep 0.05
done
printf '{{"findings":[],"evidence":["judged beside the other lenses"]}}'
[ {want} -gt 1 ] || rm "$me""#
    );
    let config = agent_config(dir.path(), &script);
    let (flight_s, log_s) = (flight.display().to_string(), log.display().to_string());
    let r = probity_env(
        f.root(),
        &[
            "review",
            "--lineage",
            &lineage,
            "--jobs",
            jobs,
            "--config",
            &config,
        ],
        &[("FLIGHT", &flight_s), ("SEEN", &log_s)],
    );
    let seen = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    (r, seen)
}
