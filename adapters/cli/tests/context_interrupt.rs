//! C5 for the trees `probity context assemble` and `probity context fetch`
//! write, with real signals to a real `probity`: a tree is written into a
//! sibling `.probity-context-*` under an owner lock and renamed into place
//! whole. SIGINT or SIGTERM mid-write removes the partial tree and its lock
//! before the process ends by the signal (and never leaves a partial tree
//! under the destination's name); what a SIGKILLed writer left is removed
//! by the next write beside it, never what a live writer holds.
//!
//! A tree of the examples is written in milliseconds, too fast to signal
//! reliably, so most of these tests slow the writer down with the
//! test-only `PROBITY_TEST_CONTEXT_WRITE_PAUSE_MS` (a pause after each
//! file; compiled into debug builds only, see
//! `adapters/store/src/context_dir.rs`). The large-tree test uses no pause:
//! it signals a writer that is busy writing, as a user's Ctrl-C would.

#[path = "support/context.rs"]
mod context;
#[path = "../../forge/tests/fixtures/gitlab/scenario.rs"]
mod scenario_gitlab;

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use probity_testkit::http::HttpServer;
use serde_json::Value;

use context::{BIN, catching_signals, example, names};

const PAUSE_ENV: &str = "PROBITY_TEST_CONTEXT_WRITE_PAUSE_MS";
const PARTIAL_PREFIX: &str = ".probity-context-";
const TOKEN: &str = "tok-ab12cd34ef56gh78ij90";

/// `probity` with SIGINT and SIGTERM at their default disposition and
/// unblocked, whatever this test process inherited (a test run started in
/// the background inherits an ignored SIGINT, which Probity rightly keeps
/// ignoring), so Probity installs its own handlers for both.
fn probity() -> Command {
    let mut cmd = Command::new(BIN);
    cmd.env_remove(PAUSE_ENV)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    catching_signals(&mut cmd);
    cmd
}

fn assemble(input: &Path, out: &Path) -> Command {
    let mut cmd = probity();
    cmd.args(["context", "assemble", "--input"])
        .arg(input)
        .arg("--out")
        .arg(out);
    cmd
}

/// The partial trees (not their lock files) being written in `dir`.
fn partials(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.starts_with(PARTIAL_PREFIX) && !n.ends_with(".owner")
        })
        .collect();
    v.sort();
    v
}

/// How many files a partial tree holds (best effort: it may go at any
/// moment).
fn files_in(dir: &Path) -> usize {
    let mut n = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(e.path()),
                Ok(_) => n += 1,
                Err(_) => {}
            }
        }
    }
    n
}

/// Waits until a writer's partial tree in `dir` holds at least `files`
/// files; `None` if the writer ended first.
fn wait_for_partial(child: &mut Child, dir: &Path, files: usize) -> Option<PathBuf> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(p) = partials(dir).into_iter().find(|p| files_in(p) >= files) {
            return Some(p);
        }
        if child.try_wait().unwrap().is_some() {
            return None;
        }
        assert!(Instant::now() < deadline, "no partial tree appeared");
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn signal(child: &Child, sig: libc::c_int) {
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: kill(2) to our own child, which has not been reaped yet.
    assert_eq!(unsafe { libc::kill(pid, sig) }, 0);
}

fn ended_by(status: ExitStatus, sig: libc::c_int) -> bool {
    status.signal() == Some(sig)
}

fn digest_of(out: &std::process::Output) -> String {
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    v["index_digest"].as_str().unwrap().to_owned()
}

fn verifies(dir: &Path, digest: &str) -> bool {
    Command::new(BIN)
        .args(["context", "verify"])
        .arg(dir)
        .args(["--index-digest", digest])
        .output()
        .unwrap()
        .status
        .success()
}

/// The work-item example with `n` comments: a tree of `n` + 10 files.
fn large_input(dir: &Path, n: usize) -> PathBuf {
    let mut doc: Value =
        serde_json::from_slice(&std::fs::read(example("work-item.json")).unwrap()).unwrap();
    doc["profile"]["included_sources"] = serde_json::json!(["entity", "comments"]);
    doc["profile"]["bounds"]["max_records_per_source"] = n.into();
    doc["profile"]["bounds"]["max_source_bytes"] = 1_000_000.into();
    doc["acquisition_gaps"] = serde_json::json!([]);
    doc.as_object_mut().unwrap().remove("agent_runs");
    doc["comments"] = (0..n)
        .map(|i| {
            serde_json::json!({
                "id": format!("{}", 100_000 + i),
                "author_id": "101",
                "created_at": "2026-10-01T10:00:00Z",
                "body": format!("Comment {i}: seen again on the nightly run."),
            })
        })
        .collect();
    let path = dir.join("large.json");
    std::fs::write(&path, doc.to_string()).unwrap();
    path
}

/// The regression: the signal thread removed the partial tree while the
/// main thread went on writing into it, so the removal failed (a directory
/// not empty) and the partial tree stayed without its owner lock, never to
/// be scavenged; or the finished tree was renamed into place while being
/// removed, leaving a partial tree under the destination's name. Now every
/// change to a partial tree happens outside the cleanup: the destination
/// holds nothing, or the whole tree.
#[test]
fn a_signal_while_a_large_tree_is_written_leaves_nothing_partial() {
    let tmp = tempfile::tempdir().unwrap();
    let input = large_input(tmp.path(), 3000);
    // The whole tree's digest, assembled only if a signal came too late.
    let mut digest = None;
    let mut whole_digest = || -> String {
        digest
            .get_or_insert_with(|| {
                let reference = tmp.path().join("reference");
                std::fs::create_dir(&reference).unwrap();
                let out = assemble(&input, &reference.join("ctx"))
                    .arg("--json")
                    .stdout(Stdio::piped())
                    .output()
                    .unwrap();
                assert!(out.status.success());
                digest_of(&out)
            })
            .clone()
    };

    let mut caught = 0;
    for round in 0..12 {
        let sig = if round % 2 == 0 {
            libc::SIGTERM
        } else {
            libc::SIGINT
        };
        let parent = tmp.path().join(format!("round-{round}"));
        std::fs::create_dir(&parent).unwrap();
        let mut child = assemble(&input, &parent.join("ctx")).spawn().unwrap();
        // Busy writing: at least 50 of its 3,010 files are there.
        if wait_for_partial(&mut child, &parent, 50).is_none() {
            child.wait().unwrap();
            continue;
        }
        signal(&child, sig);
        let status = child.wait().unwrap();
        if !ended_by(status, sig) {
            continue;
        }
        caught += 1;
        let left = names(&parent);
        if left == ["ctx"] {
            // Renamed into place just before the signal: whole.
            assert!(
                verifies(&parent.join("ctx"), &whole_digest()),
                "round {round}"
            );
        } else {
            assert_eq!(left, Vec::<String>::new(), "round {round}: signal {sig}");
        }
    }
    assert!(caught > 0, "no writer was signalled mid-write");
}

/// `probity context fetch --forge gitlab` of issue 8 from the scripted
/// GitLab (the token in `GITLAB_TOKEN`).
fn fetch(server: &HttpServer, out: &Path) -> Command {
    let mut cmd = probity();
    cmd.args(["context", "fetch", "--forge", "gitlab"])
        .args(["--host", "gitlab.example", "--repo", "acme/widgets"])
        .args(["--issue", "8", "--api-base", server.base(), "--out"])
        .arg(out)
        .env("GITLAB_TOKEN", TOKEN)
        .env_remove("GITHUB_TOKEN");
    for v in [
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
    ] {
        cmd.env_remove(v);
    }
    cmd
}

/// Runs `test` over a scratch directory when the write pause it needs
/// exists (debug builds only); says it is skipped otherwise.
fn with_write_pause(test: impl FnOnce(&Path)) {
    if !cfg!(debug_assertions) {
        eprintln!("skipped: the write pause exists in debug builds only");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    test(tmp.path());
}

/// A writer paused mid-write: its partial tree holds at least one file and
/// its owner lock is beside it.
fn paused_writer(mut cmd: Command, parent: &Path, pause_ms: u64) -> (Child, PathBuf) {
    let mut child = cmd.env(PAUSE_ENV, pause_ms.to_string()).spawn().unwrap();
    let partial = wait_for_partial(&mut child, parent, 1).expect("the writer ended mid-write");
    let mut lock = partial.as_os_str().to_owned();
    lock.push(".owner");
    assert!(
        Path::new(&lock).exists(),
        "the owner lock is held beside it"
    );
    (child, partial)
}

#[test]
fn sigint_and_sigterm_mid_write_remove_the_partial_tree() {
    with_write_pause(|tmp| {
        let server = HttpServer::script(scenario_gitlab::issue_8()).unwrap();
        // A tree assembled before, for `verify --copy-to`.
        let source = tmp.join("source");
        let out = assemble(&example("change-proposal.json"), &source)
            .arg("--json")
            .stdout(Stdio::piped())
            .output()
            .unwrap();
        assert!(out.status.success());
        let digest = digest_of(&out);
        for (sig, name) in [(libc::SIGINT, "int"), (libc::SIGTERM, "term")] {
            for writer in ["assemble", "fetch", "copy"] {
                let parent = tmp.join(format!("{writer}-{name}"));
                std::fs::create_dir(&parent).unwrap();
                let dest = parent.join("ctx");
                let cmd = match writer {
                    "assemble" => assemble(&example("change-proposal.json"), &dest),
                    "fetch" => fetch(&server, &dest),
                    _ => {
                        let mut c = probity();
                        c.args(["context", "verify"])
                            .arg(&source)
                            .args(["--index-digest", &digest, "--copy-to"])
                            .arg(&dest);
                        c
                    }
                };
                let (child, _) = paused_writer(cmd, &parent, 500);
                signal(&child, sig);
                let mut child = child;
                let status = child.wait().unwrap();
                assert!(ended_by(status, sig), "{writer}: {status:?}");
                assert_eq!(
                    names(&parent),
                    Vec::<String>::new(),
                    "{writer}, signal {sig}: no partial tree, no lock, no destination"
                );
            }
        }
    });
}

#[test]
fn a_sigkilled_writers_partial_tree_is_scavenged_by_the_next_write() {
    with_write_pause(|tmp| {
        let server = HttpServer::script(scenario_gitlab::issue_8()).unwrap();
        // A killed assemble's leftovers go with the next fetch beside them, a
        // killed fetch's with the next assemble.
        for (killed, next) in [("assemble", "fetch"), ("fetch", "assemble")] {
            let parent = tmp.join(format!("killed-{killed}"));
            std::fs::create_dir(&parent).unwrap();
            let command = |w: &str, dest: &Path| match w {
                "assemble" => assemble(&example("work-item.json"), dest),
                _ => fetch(&server, dest),
            };
            let (mut child, partial) =
                paused_writer(command(killed, &parent.join("a")), &parent, 500);
            signal(&child, libc::SIGKILL);
            assert!(ended_by(child.wait().unwrap(), libc::SIGKILL));
            let name = partial.file_name().unwrap().to_string_lossy().into_owned();
            // SIGKILL runs nothing: the partial tree and its (released) lock stay.
            assert_eq!(names(&parent), vec![name.clone(), format!("{name}.owner")]);
            let out = command(next, &parent.join("b"))
                .arg("--json")
                .stdout(Stdio::piped())
                .output()
                .unwrap();
            assert!(out.status.success(), "{next}");
            assert_eq!(
                names(&parent),
                vec!["b".to_string()],
                "{killed} then {next}"
            );
            assert!(verifies(&parent.join("b"), &digest_of(&out)));
        }
    });
}

#[test]
fn a_live_writers_partial_tree_is_never_scavenged() {
    with_write_pause(|tmp| {
        let parent = tmp.join("parent");
        std::fs::create_dir(&parent).unwrap();
        let mut slow = assemble(&example("change-proposal.json"), &parent.join("slow"));
        slow.arg("--json").stdout(Stdio::piped());
        let (slow, partial) = paused_writer(slow, &parent, 250);
        let name = partial.file_name().unwrap().to_string_lossy().into_owned();
        // Another write beside it, while it holds its lock: the slow writer's
        // partial tree is not touched, whatever its age.
        let out = assemble(&example("work-item.json"), &parent.join("fast"))
            .arg("--json")
            .stdout(Stdio::piped())
            .output()
            .unwrap();
        assert!(out.status.success());
        assert!(verifies(&parent.join("fast"), &digest_of(&out)));
        let left = names(&parent);
        assert!(
            left.contains(&name) && left.contains(&format!("{name}.owner")),
            "{left:?}"
        );
        let slow = slow.wait_with_output().unwrap();
        assert!(slow.status.success());
        assert_eq!(names(&parent), vec!["fast".to_string(), "slow".to_string()]);
        assert!(verifies(&parent.join("slow"), &digest_of(&slow)));
    });
}
