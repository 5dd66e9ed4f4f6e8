//! `probity context fetch` end to end with the real binary against
//! scripted GitHub, GitLab and Forgejo servers on 127.0.0.1 (no test
//! reaches the network): a change proposal and an issue of each forge
//! produce trees `probity context verify` accepts, whose every JSON
//! document validates against the v1 bundle and the upstream draft with
//! the documented deltas (`golden/tests/support/upstream_draft.rs`); typed
//! errors; and the token never appears in stdout, stderr or any written
//! file.

#[path = "support/context.rs"]
mod context;
#[path = "../../../golden/tests/support/upstream_draft.rs"]
mod upstream_draft;

#[path = "../../forge/tests/fixtures/github/scenario.rs"]
mod scenario;
#[path = "../../forge/tests/fixtures/forgejo/scenario.rs"]
mod scenario_forgejo;
#[path = "../../forge/tests/fixtures/gitlab/scenario.rs"]
mod scenario_gitlab;

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use context::{BIN, assemble_to, assert_success, json_out, verify_tree};
use probity_core::context::Node;
use probity_testkit::http::{HttpServer, Reply, Request, Script};
use serde_json::Value;

const TOKEN_ENV: &str = "PROBITY_TEST_FORGE_TOKEN";
const TOKEN: &str = "tok-ab12cd34ef56gh78ij90";

/// The proxy variables a fetch must not see (the servers are on loopback).
const PROXIES: [&str; 5] = [
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
];

/// `probity context fetch --forge FORGE --host HOST --repo REPO
/// --api-base BASE`, with no proxy variable and no `GITHUB_TOKEN` set.
fn fetch_cmd(forge: &str, host: &str, repo: &str, api_base: &str) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.args(["context", "fetch", "--forge", forge, "--host", host])
        .args(["--repo", repo, "--api-base", api_base])
        .env_remove("GITHUB_TOKEN");
    for v in PROXIES {
        cmd.env_remove(v);
    }
    cmd
}

fn fetch<S: AsRef<OsStr>>(server: &HttpServer, extra: &[S]) -> Output {
    fetch_cmd("github", "github.com", "acme/widgets", server.base())
        .args(["--token-env", TOKEN_ENV])
        .args(extra)
        .env(TOKEN_ENV, TOKEN)
        .output()
        .unwrap()
}

/// Every file under `root` (recursively) with its bytes.
fn files(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.display().to_string(), fs::read(&p).unwrap()));
            }
        }
    }
    out
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

fn assert_no_token(o: &Output, root: &Path) {
    assert!(!contains(&o.stdout, TOKEN), "the token is on stdout");
    assert!(!contains(&o.stderr, TOKEN), "the token is on stderr");
    let written = files(root);
    assert!(!written.is_empty());
    for (path, bytes) in written {
        assert!(!contains(&bytes, TOKEN), "the token is in {path}");
    }
}

/// The tree's files as the verifier reads them (no link followed).
fn tree_files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let observed = probity_store::context_dir::observe_dir(dir).unwrap();
    observed
        .entries
        .into_iter()
        .filter_map(|(path, node)| match node {
            Node::File(bytes) => Some((path, bytes)),
            _ => None,
        })
        .collect()
}

/// `probity context verify` accepts the tree, and every JSON document of
/// it validates against the v1 bundle and (when `PROBITY_UPSTREAM_SCHEMAS`
/// is set; the skip is reported otherwise) the upstream draft with the
/// documented deltas.
fn verify(dir: &Path, digest: &str) {
    let o = verify_tree(dir, digest);
    assert_success(&o);
    assert_eq!(json_out(&o)["verified"], true);
    let label = format!("the tree {}", dir.display());
    let checked = upstream_draft::validate_tree(&label, &tree_files(dir));
    assert!(checked.bundle >= 3, "{label}: {checked:?}");
    assert!(
        checked.upstream.is_none_or(|n| n == checked.bundle),
        "{label}: {checked:?}"
    );
}

/// A fetch's arguments: `ITEM NUMBER --out DIR`, then `--input-out INPUT`
/// when given, then `extra`.
fn item_args(
    item: &str,
    number: &str,
    dir: &Path,
    input: Option<&Path>,
    extra: &[&str],
) -> Vec<String> {
    let mut args = vec![
        item.to_owned(),
        number.to_owned(),
        "--out".to_owned(),
        path_str(dir),
    ];
    if let Some(input) = input {
        args.extend(["--input-out".to_owned(), path_str(input)]);
    }
    args.extend(extra.iter().map(|a| (*a).to_owned()));
    args
}

fn path_str(p: &Path) -> String {
    p.to_str().unwrap().to_owned()
}

/// A scratch directory with the tree's path (`ctx`) and the input's
/// (`input.json`) in it, neither written.
fn scratch() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ctx");
    let input = tmp.path().join("input.json");
    (tmp, dir, input)
}

/// Asserts the `--json` fetch `o` succeeded and its tree `dir` verifies;
/// returns its answer and index digest.
fn fetched(o: &Output, dir: &Path) -> (Value, String) {
    assert_success(o);
    let v = json_out(o);
    let digest = v["index_digest"].as_str().unwrap().to_owned();
    verify(dir, &digest);
    (v, digest)
}

/// Asserts the fetch `o` exited `code` with `text` on stderr.
fn assert_refused(o: &Output, code: i32, text: &str) {
    assert_eq!(o.status.code(), Some(code));
    assert!(String::from_utf8_lossy(&o.stderr).contains(text));
}

/// The written input document, asserted to be of the input format with no
/// credential in it.
fn written_input(input: &Path) -> Value {
    let doc: Value = serde_json::from_slice(&fs::read(input).unwrap()).unwrap();
    assert_eq!(doc["format"], "probity-context-input/1");
    assert_eq!(doc["credentials"], Value::Array(vec![]));
    doc
}

/// Asserts the request carried the test token as its bearer credential.
fn assert_bearer(r: &Request) {
    assert_eq!(
        r.headers.get("authorization").map(String::as_str),
        Some(&*format!("Bearer {TOKEN}"))
    );
}

#[test]
fn a_pull_request_is_fetched_assembled_and_verifies() {
    // A reviewer pasted the collector's token into a comment: it is a
    // registered run credential, so the tree carries its mask.
    let page2 = include_str!("../../forge/tests/fixtures/github/issue-42-comments-page2.json")
        .replace(
            "How is the cache invalidated when the schema changes?",
            &format!("How is the cache invalidated? (debug: {TOKEN})"),
        );
    let comments = format!("{}/issues/42/comments?per_page=100", scenario::REPO);
    let script = scenario::pull_42().get(
        &format!("{comments}&page=2"),
        vec![Reply::json(page2).header(
            "Link",
            &format!("<{{base}}{comments}&page=1>; rel=\"prev\""),
        )],
    );
    let server = HttpServer::script(script).unwrap();
    let (tmp, dir, input) = scratch();
    let o = fetch(
        &server,
        &item_args("--change", "42", &dir, Some(&input), &["--json"]),
    );
    let (v, digest) = fetched(&o, &dir);
    assert_eq!(digest.len(), 64);
    let gaps = v["gaps"].as_array().unwrap();
    assert!(
        gaps.iter()
            .any(|g| g["scope"] == "comments" && g["code"] == "authorization_failed"),
        "{gaps:?}"
    );
    assert_no_token(&o, tmp.path());

    // The tree holds the redacted comment, the staged failed log, and the
    // resolved thread.
    let all = files(&dir);
    assert!(
        all.iter()
            .any(|(_, b)| contains(b, "[REDACTED:secret.registered_credential]"))
    );
    assert!(all.iter().any(|(p, _)| p.ends_with("log.txt")));
    let threads = fs::read_to_string(dir.join("state/threads.json")).unwrap();
    assert!(threads.contains("\"resolved\":true"), "{threads}");

    // The written input assembles again (the token masked there too).
    written_input(&input);
    let again = tmp.path().join("again");
    let o = assemble_to(&input, &again, false);
    assert_success(&o);

    // The plain answer is the digest, as `context assemble` prints it.
    let dir2 = tmp.path().join("ctx2");
    let o = fetch(&server, &item_args("--change", "42", &dir2, None, &[]));
    assert!(o.status.success());
    assert_eq!(String::from_utf8_lossy(&o.stdout), format!("{digest}\n"));
    verify(&dir2, &digest);

    // A registered bot login is admitted: one authorization gap fewer.
    let dir3 = tmp.path().join("ctx3");
    let bot = ["--bot-role", "ci-helper[bot]=review", "--json"];
    let o = fetch(&server, &item_args("--change", "42", &dir3, None, &bot));
    let (with_bot, _) = fetched(&o, &dir3);
    let count = |v: &Value| {
        v["gaps"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["scope"] == "comments" && g["code"] == "authorization_failed")
            .map(|g| g["count"].as_u64().unwrap())
    };
    assert_eq!(count(&with_bot), count(&v).map(|c| c - 1));
    let o = fetch(
        &server,
        &item_args("--change", "42", &dir3, None, &["--bot-role", "nobody"]),
    );
    assert_eq!(o.status.code(), Some(2));

    // Only the API saw the credential.
    for r in server.seen() {
        if !r.target.starts_with("/blobs/") {
            assert_bearer(&r);
        }
    }
}

#[test]
fn an_issue_is_fetched_and_its_input_reassembles_to_the_same_digest() {
    let server = HttpServer::script(scenario::issue_7()).unwrap();
    let (tmp, dir, input) = scratch();
    let o = fetch(
        &server,
        &item_args("--issue", "7", &dir, Some(&input), &["--json"]),
    );
    let (v, digest) = fetched(&o, &dir);
    assert_eq!(v["gaps"], Value::Array(vec![]));
    let entity = fs::read_to_string(dir.join("entity/metadata.json")).unwrap();
    assert!(entity.contains("\"kind\":\"work_item\""), "{entity}");
    assert!(entity.contains("\"state\":\"closed\""), "{entity}");

    let again = tmp.path().join("again");
    let o2 = assemble_to(&input, &again, false);
    assert_success(&o2);
    assert_eq!(String::from_utf8_lossy(&o2.stdout), format!("{digest}\n"));
    assert_no_token(&o, tmp.path());
}

#[test]
fn a_refused_token_is_a_typed_error_and_writes_nothing() {
    let server =
        HttpServer::script(Script::new().get(scenario::REPO, vec![scenario::unauthorized()]))
            .unwrap();
    let (_tmp, dir, input) = scratch();
    let o = fetch(
        &server,
        &item_args("--change", "42", &dir, Some(&input), &["--json"]),
    );
    assert_eq!(o.status.code(), Some(3));
    let v = json_out(&o);
    assert_eq!(v["error"]["code"], "forge_unauthorized");
    assert!(
        v["error"]["next_action"]
            .as_str()
            .unwrap()
            .contains(TOKEN_ENV)
    );
    assert!(!dir.exists() && !input.exists());
    assert!(!contains(&o.stdout, TOKEN) && !contains(&o.stderr, TOKEN));

    // Not found: the same, exit 3.
    let server = HttpServer::script(scenario::pull_42()).unwrap();
    let o = fetch(&server, &item_args("--change", "43", &dir, None, &[]));
    assert_refused(&o, 3, "forge_not_found");
    assert!(!dir.exists());
}

#[test]
fn missing_tokens_bad_hosts_and_existing_outputs_are_refused_before_fetching() {
    let server = HttpServer::script(scenario::pull_42()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ctx");
    let d = dir.to_str().unwrap();

    let o = fetch_cmd("github", "github.com", "acme/widgets", server.base())
        .args(["--change", "42", "--out", d])
        .args(["--token-env", "PROBITY_TEST_UNSET_VAR"])
        .env_remove("PROBITY_TEST_UNSET_VAR")
        .output()
        .unwrap();
    assert_refused(&o, 2, "token_missing");

    // A token too short to be registered and masked by its exact value.
    let o = fetch_cmd("github", "github.com", "acme/widgets", server.base())
        .args(["--change", "42", "--out", d])
        .env("GITHUB_TOKEN", "short")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad_token") && !err.contains("short"), "{err}");

    let o = fetch(
        &server,
        &["--change", "42", "--out", d, "--host", "GitHub.com"],
    );
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );

    fs::create_dir(&dir).unwrap();
    let o = fetch(&server, &["--change", "42", "--out", d]);
    assert_refused(&o, 4, "context_dir_exists");
    assert!(server.seen().is_empty(), "nothing was fetched");
}

#[test]
fn a_gitlab_merge_request_is_fetched_assembled_and_verifies() {
    let (tmp, dir, _) = scratch();
    let server = HttpServer::script(scenario_gitlab::merge_request_5()).unwrap();
    let o = fetch_gitlab(
        &server,
        &item_args("--change", "5", &dir, None, &["--json"]),
    );
    let (v, _) = fetched(&o, &dir);
    let gaps = v["gaps"].as_array().unwrap();
    assert!(
        gaps.iter()
            .any(|g| g["scope"] == "reviews" && g["code"] == "history_unavailable"),
        "{gaps:?}"
    );
    let index = fs::read_to_string(dir.join("index.json")).unwrap();
    assert!(index.contains("\"forge\":\"gitlab\""), "{index}");
    assert!(index.contains("\"repository_id\":\"278964\""), "{index}");
    assert_no_token(&o, tmp.path());
    // GITLAB_TOKEN is the default variable for --forge gitlab.
    assert!(
        server
            .seen()
            .iter()
            .all(|r| r.headers.get("authorization") == Some(&format!("Bearer {TOKEN}")))
    );
}

/// `probity context fetch --forge gitlab` (the token in `GITLAB_TOKEN`,
/// its default variable) against the scripted GitLab.
fn fetch_gitlab<S: AsRef<OsStr>>(server: &HttpServer, extra: &[S]) -> Output {
    fetch_cmd("gitlab", "gitlab.example", "acme/widgets", server.base())
        .args(extra)
        .env("GITLAB_TOKEN", TOKEN)
        .output()
        .unwrap()
}

#[test]
fn a_gitlab_issue_is_fetched_assembled_and_verifies() {
    // Bob pasted the collector's token into his note: it is a registered
    // run credential, so the tree carries its mask.
    let discussions = include_str!("../../forge/tests/fixtures/gitlab/issue-8-discussions.json")
        .replace(
            "shows the cache key it used;",
            &format!("shows the cache key it used (with {TOKEN});"),
        );
    assert!(discussions.contains(TOKEN));
    let server =
        HttpServer::script(scenario_gitlab::issue_8_with_discussions(&discussions)).unwrap();
    let (tmp, dir, input) = scratch();
    let o = fetch_gitlab(
        &server,
        &item_args("--issue", "8", &dir, Some(&input), &["--json"]),
    );
    let (v, _) = fetched(&o, &dir);
    // Dave is no member (404: unverified), the bot has no registered role,
    // the ghost account is a deleted author: none of their notes is
    // admitted, and that is said. A work item has no reviews or checks.
    assert_eq!(
        v["gaps"],
        serde_json::json!([{"scope": "comments", "code": "authorization_failed", "count": 3}]),
    );
    assert_no_token(&o, tmp.path());

    let entity = fs::read_to_string(dir.join("entity/metadata.json")).unwrap();
    for field in [
        "\"kind\":\"work_item\"",
        "\"state\":\"closed\"",
        "\"number\":8",
        "\"id\":\"83000008\"",
        "\"labels\":[\"bug\",\"cache\"]",
    ] {
        assert!(entity.contains(field), "{field}: {entity}");
    }
    let index = fs::read_to_string(dir.join("index.json")).unwrap();
    assert!(index.contains("\"forge\":\"gitlab\""), "{index}");
    assert!(index.contains("\"repository_id\":\"278964\""), "{index}");
    // D10: the thread's three notes are comments (Carol's and Bob's are
    // admitted and staged), the issue has no threads, and the system note
    // is no comment.
    let all = files(&dir);
    let staged = |text: &str| all.iter().any(|(_, b)| contains(b, text));
    assert!(staged(
        "Root cause: the cache key omits the schema version."
    ));
    assert!(staged("Reproduced on main: after the schema bump"));
    assert!(staged("[REDACTED:secret.registered_credential]"));
    assert!(!staged("mentioned in merge request"));
    assert!(!staged("Confirmed on 2.3 as well."), "dave is not admitted");
    assert!(!all.iter().any(|(p, _)| p.contains("/threads/")));
    let threads = fs::read_to_string(dir.join("state/threads.json")).unwrap();
    assert!(threads.contains("\"threads\":[]"), "{threads}");

    // The written input: six comments (the system note left out), no
    // threads, the token masked; it assembles again.
    let doc = written_input(&input);
    assert_eq!(doc["threads"], Value::Array(vec![]));
    let ids: Vec<&str> = doc["comments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["1801", "1803", "1804", "1805", "1806", "1807"]);
    let again = tmp.path().join("again");
    let o2 = assemble_to(&input, &again, true);
    assert_success(&o2);
    verify(&again, json_out(&o2)["index_digest"].as_str().unwrap());
    assert!(!contains(&fs::read(&input).unwrap(), TOKEN));

    // A registered bot login is admitted: one authorization gap fewer.
    let dir2 = tmp.path().join("ctx-bot");
    let bot = ["--bot-role", "project_278964_bot_1a2b=review", "--json"];
    let o = fetch_gitlab(&server, &item_args("--issue", "8", &dir2, None, &bot));
    let (v2, _) = fetched(&o, &dir2);
    assert_eq!(
        v2["gaps"],
        serde_json::json!([{"scope": "comments", "code": "authorization_failed", "count": 2}]),
    );
    assert_no_token(&o, tmp.path());

    // Only the API saw the credential, and only the issue's sources were
    // asked for.
    let seen = server.seen();
    assert!(!seen.is_empty());
    for r in seen {
        assert_bearer(&r);
        assert!(
            !r.target.contains("merge_requests")
                && !r.target.contains("pipelines")
                && !r.target.contains("/jobs"),
            "{}",
            r.target
        );
    }
}

#[test]
fn a_forgejo_issue_and_pull_request_are_fetched_and_verify() {
    let tmp = tempfile::tempdir().unwrap();
    for (script, flag, number) in [
        (scenario_forgejo::issue_4(), "--issue", "4"),
        (scenario_forgejo::pull_9(), "--change", "9"),
    ] {
        let server = HttpServer::script(script).unwrap();
        let dir = tmp.path().join(format!("ctx-{number}"));
        let o = fetch_cmd("forgejo", "codeberg.example", "acme/widgets", server.base())
            .args([flag, number, "--json", "--out", dir.to_str().unwrap()])
            .env("FORGEJO_TOKEN", TOKEN)
            .output()
            .unwrap();
        let (v, _) = fetched(&o, &dir);
        let gaps = v["gaps"].as_array().unwrap();
        if flag == "--change" {
            // Checks are the HEAD's commit statuses (D-R94): the queued
            // one is a check; the two completed ones have no native start
            // and are counted, never given an invented one. Review
            // threads are collected too (D8: keyed by their root comment).
            assert!(gaps.iter().all(|g| g["code"] != "unsupported"), "{gaps:?}");
            assert!(
                gaps.iter().any(|g| g["scope"] == "checks"
                    && g["code"] == "invalid_metadata"
                    && g["count"] == 2),
                "{gaps:?}"
            );
            let checks: Vec<_> = std::fs::read_dir(dir.join("checks"))
                .unwrap()
                .map(|e| e.unwrap().path().join("metadata.json"))
                .collect();
            assert_eq!(checks.len(), 1);
            let meta: serde_json::Value =
                serde_json::from_slice(&std::fs::read(&checks[0]).unwrap()).unwrap();
            assert_eq!(
                (&meta["name"], &meta["status"], &meta["head_sha"]),
                (
                    &serde_json::json!("ci/lint"),
                    &serde_json::json!("queued"),
                    &serde_json::json!(scenario_forgejo::HEAD)
                )
            );
            let threads = std::fs::read_to_string(dir.join("state/threads.json")).unwrap();
            assert!(threads.contains("\"resolved\":true"), "{threads}");
        } else {
            assert!(gaps.is_empty(), "{gaps:?}");
        }
        assert_no_token(&o, tmp.path());
    }
}

#[test]
fn a_profile_file_selects_what_is_fetched() {
    let server = HttpServer::script(scenario::pull_42()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let profile = tmp.path().join("profile.json");
    let mut doc = serde_json::json!({
        "entity_kind": "change_proposal",
        "included_sources": ["entity", "comments"],
        "record_selection": "oldest",
        "check_log_selection": "none",
        "bounds": {
            "max_records_per_source": 10, "max_source_bytes": 65536, "max_record_bytes": 4096,
            "max_log_bytes": 4096, "max_metadata_string_bytes": 256, "max_labels": 5
        },
        "admission": { "human_min_role": "triage" }
    });
    fs::write(&profile, doc.to_string()).unwrap();
    let dir = tmp.path().join("ctx");
    let with_profile = ["--profile", profile.to_str().unwrap(), "--json"];
    let o = fetch(
        &server,
        &item_args("--change", "42", &dir, None, &with_profile),
    );
    fetched(&o, &dir);
    let collection = fs::read_to_string(dir.join("collection.json")).unwrap();
    assert!(
        collection.contains("\"human_min_role\":\"triage\""),
        "{collection}"
    );
    // Unselected sources are never asked for.
    for r in server.seen() {
        assert!(
            !r.target.contains("/reviews")
                && !r.target.contains("check-runs")
                && r.target != "/graphql",
            "{}",
            r.target
        );
    }

    // A work-item profile for a change proposal: refused before fetching.
    let server = HttpServer::script(scenario::pull_42()).unwrap();
    doc["entity_kind"] = "work_item".into();
    let wi = tmp.path().join("work-item.json");
    fs::write(&wi, doc.to_string()).unwrap();
    let dir2 = tmp.path().join("ctx2");
    let fetch_with_profile = |profile: &Path| {
        let with_profile = ["--profile", profile.to_str().unwrap()];
        fetch(
            &server,
            &item_args("--change", "42", &dir2, None, &with_profile),
        )
    };
    let o = fetch_with_profile(&wi);
    assert_refused(&o, 2, "profile_kind_mismatch");
    // A profile with a key given twice: rejected input.
    let dup = tmp.path().join("dup.json");
    fs::write(
        &dup,
        r#"{"entity_kind": "work_item", "entity_kind": "change_proposal"}"#,
    )
    .unwrap();
    let o = fetch_with_profile(&dup);
    assert_refused(&o, 3, "invalid_collection_profile");
    assert!(server.seen().is_empty() && !dir2.exists());
}

/// Regression (issue 13 audit): `--input-out` was written as soon as the
/// forge answered, before assembly, so a fetch the assembler refused (exit
/// 3: a repository answer without its `node_id` is `invalid_index_source`)
/// left the input file behind although exit 3 writes nothing. It is now
/// written only once the tree is written and verified.
#[test]
fn a_refused_assembly_leaves_no_input_out() {
    let script = scenario::pull_42().get(
        scenario::REPO,
        vec![Reply::json(r#"{"full_name": "acme/widgets"}"#)],
    );
    let server = HttpServer::script(script).unwrap();
    let (tmp, dir, input) = scratch();
    let o = fetch(
        &server,
        &item_args("--change", "42", &dir, Some(&input), &["--json"]),
    );
    assert_eq!(
        o.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert_eq!(json_out(&o)["error"]["code"], "invalid_index_source");
    let left: Vec<_> = fs::read_dir(tmp.path()).unwrap().collect();
    assert!(left.is_empty(), "nothing written: {left:?}");
}

/// `context fetch` with the given forge, repository and API base, the
/// test token set.
fn fetch_with(forge: &str, repo: &str, api_base: &str, out: &Path) -> Output {
    fetch_cmd(forge, "forge.example", repo, api_base)
        .args(["--change", "1", "--json", "--token-env", TOKEN_ENV])
        .arg("--out")
        .arg(out)
        .env(TOKEN_ENV, TOKEN)
        .output()
        .unwrap()
}

/// Regression (issue 13 audit): `--repo acme` (no slash) was
/// `forge_not_found … (HTTP 0)`, exit 3, and a plain-http `--api-base` to
/// another host than the loopback was `forge_transport`, exit 7, advising
/// to check the network. Both are usage errors (exit 2) saying what is
/// expected, refused before any request.
#[test]
fn a_malformed_repository_or_a_plain_http_api_base_is_a_usage_error() {
    let server = HttpServer::script(scenario::pull_42()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("ctx");
    for (forge, repo, expected) in [
        ("github", "acme", "OWNER/NAME"),
        ("github", "acme/widgets/extra", "OWNER/NAME"),
        ("forgejo", "/widgets", "OWNER/NAME"),
        ("gitlab", "widgets", "GROUP/NAME"),
    ] {
        let o = fetch_with(forge, repo, server.base(), &out);
        assert_eq!(o.status.code(), Some(2), "{repo}");
        let v = json_out(&o);
        assert_eq!(v["error"]["code"], "bad_repo", "{repo}: {v}");
        let msg = v["error"]["message"].as_str().unwrap();
        assert!(msg.contains(expected) && msg.contains(repo), "{msg}");
    }
    for base in [
        "http://forge.example/api/v3",
        "ftp://forge.example",
        // A user part that reads like loopback names forge.example.
        "http://127.0.0.1:1@forge.example/api/v3",
    ] {
        let o = fetch_with("github", "acme/widgets", base, &out);
        assert_eq!(o.status.code(), Some(2), "{base}");
        let v = json_out(&o);
        assert_eq!(v["error"]["code"], "bad_api_base", "{base}: {v}");
        let text = format!("{} {}", v["error"]["message"], v["error"]["next_action"]);
        assert!(text.contains("https://"), "{text}");
        assert!(!text.contains("network"), "{text}");
    }
    assert!(!out.exists());
    assert!(server.seen().is_empty(), "nothing was fetched");
}
