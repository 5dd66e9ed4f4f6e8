//! C5, the host lifecycle of a context tree, with the real binary: a
//! context tree lives outside every repository; the agent gets a verified
//! read-only copy; the copy and a tree assembled for the run are removed on
//! every controlled exit (the agent's success or failure, SIGINT,
//! SIGTERM, a signal while the trees are being written), and what a killed
//! run abandoned is removed by the next run, by its owner lock.

#[path = "support/context.rs"]
mod context;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use context::{BIN, catching_signals, example, names};

/// `probity` with its temporary directory pinned to `tmp`.
fn probity(tmp: &Path) -> Command {
    let mut c = Command::new(BIN);
    c.env("TMPDIR", tmp)
        .env_remove("PROBITY_TEST_CONTEXT_WRITE_PAUSE_MS");
    c
}

/// [`probity`] with SIGINT and SIGTERM at their default disposition and
/// unblocked, whatever this test process inherited (a test run started in
/// the background inherits an ignored SIGINT, which Probity rightly keeps
/// ignoring), so Probity catches both.
fn probity_catching_signals(tmp: &Path) -> Command {
    let mut c = probity(tmp);
    catching_signals(&mut c);
    c
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let mut waited = Duration::ZERO;
    while !done() {
        assert!(waited < Duration::from_secs(30), "{what} never happened");
        std::thread::sleep(Duration::from_millis(5));
        waited += Duration::from_millis(5);
    }
}

fn alive(pid: &str) -> bool {
    Command::new("kill")
        .args(["-0", pid])
        .stderr(Stdio::null())
        .status()
        .unwrap()
        .success()
}

/// A temporary directory and `tmp` in it, made: the temporary directory a
/// run is pinned to.
fn scratch_dirs() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let scratch = tmp.path().join("tmp");
    std::fs::create_dir(&scratch).unwrap();
    (tmp, scratch)
}

/// `context run [--json] --input <the change-proposal example>` from
/// `cmd` (the agent's argv follows).
fn run_example(mut cmd: Command, json: bool) -> Command {
    cmd.args(["context", "run"]);
    if json {
        cmd.arg("--json");
    }
    cmd.arg("--input").arg(example("change-proposal.json"));
    cmd
}

/// Sends `kill FLAG` to the child.
fn signal(flag: &str, child: &std::process::Child) {
    let sent = Command::new("kill")
        .args([flag, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
}

/// The run's stdout as JSON.
fn json_of(o: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Asserts the run exited `code`, its stderr (then `more`) the message.
fn assert_exit(o: &std::process::Output, code: i32, more: &str) {
    assert_eq!(
        o.status.code(),
        Some(code),
        "{}{more}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Asserts nothing is left in `dir`.
fn assert_empty(dir: &Path, what: &str) {
    assert_eq!(names(dir), Vec::<String>::new(), "{what}");
}

/// Spawns the run with its output discarded.
fn spawn_quiet(mut cmd: Command) -> std::process::Child {
    cmd.stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Spawns the example's `context run` from `cmd`, the agent `sh -c
/// SCRIPT`, its output discarded.
fn spawn_agent(cmd: Command, script: &str) -> std::process::Child {
    let mut run = run_example(cmd, false);
    run.args(["--", "sh", "-c", script]);
    spawn_quiet(run)
}

/// [`spawn_agent`] with the agent `WRITE FILE; exec sleep 60`.
fn spawn_sleeper(cmd: Command, write: &str, file: &Path) -> std::process::Child {
    spawn_agent(cmd, &format!("{write} {}; exec sleep 60", file.display()))
}

#[test]
fn the_agent_gets_a_read_only_copy_and_nothing_outlives_the_run() {
    let (tmp, scratch) = scratch_dirs();
    let report = tmp.path().join("report");
    // The agent records where its tree is, the tree root's mode and one
    // file's, then fails with 3.
    let script = format!(
        "printf '%s\\n' \"$PROBITY_CONTEXT_DIR\" > {r}; stat -c %a \"$PROBITY_CONTEXT_DIR\" >> {r}; stat -c %a \"$PROBITY_CONTEXT_DIR/index.json\" >> {r}; exit 3",
        r = report.display()
    );
    let o = run_example(probity(&scratch), true)
        .args(["--", "sh", "-c", &script])
        .output()
        .unwrap();
    assert_exit(&o, 3, "");
    let v = json_of(&o);
    assert_eq!(v["agent_exit"], 3);
    assert_eq!(v["sandbox_copy_removed"], true);
    assert_eq!(v["host_tree_removed"], true);
    let lines: Vec<String> = std::fs::read_to_string(&report)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(lines[1], "555", "the copy's root is read-only");
    assert_eq!(lines[2], "444", "its files are read-only");
    assert!(!Path::new(&lines[0]).exists(), "the copy is removed");
    assert_empty(&scratch, "nothing is left");
}

#[test]
fn a_sigterm_removes_the_trees_and_a_killed_runs_leftovers_go_next_time() {
    let (tmp, scratch) = scratch_dirs();
    let started = tmp.path().join("started");
    let mut child = spawn_sleeper(probity(&scratch), "touch", &started);
    let mut waited = Duration::ZERO;
    while !started.exists() {
        assert!(waited < Duration::from_secs(30), "the agent never started");
        std::thread::sleep(Duration::from_millis(20));
        waited += Duration::from_millis(20);
    }
    assert!(!names(&scratch).is_empty(), "the trees exist while it runs");
    signal("-TERM", &child);
    let status = child.wait().unwrap();
    {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(15));
    }
    assert_empty(&scratch, "removed at once");

    // What a SIGKILLed run abandons: a read-only copy and its unheld lock.
    let dead = scratch.join("probity-context-run-dead");
    std::fs::create_dir(&dead).unwrap();
    std::fs::write(dead.join("index.json"), b"{}").unwrap();
    std::fs::write(scratch.join("probity-context-run-dead.owner"), b"").unwrap();
    let o = run_example(probity(&scratch), false)
        .args(["--", "true"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_empty(&scratch, "");
}

#[test]
fn a_tree_inside_a_repository_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    let out = repo.join("ctx");
    let o = Command::new(BIN)
        .args(["context", "assemble", "--json", "--input"])
        .arg(example("change-proposal.json"))
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3));
    let v = json_of(&o);
    assert_eq!(v["error"]["code"], "context_dir_in_repository");
    assert_eq!(names(&repo), vec![".git".to_string()], "nothing written");
}

/// Ctrl-C (SIGINT) to `probity context run`: the agent is stopped, the
/// sandbox copy and the host tree assembled for the run are removed, and
/// `probity` ends by SIGINT.
#[test]
fn a_sigint_stops_the_agent_and_removes_the_trees() {
    use std::os::unix::process::ExitStatusExt;
    let (tmp, scratch) = scratch_dirs();
    let pidfile = tmp.path().join("agent.pid");
    let mut child = spawn_sleeper(probity_catching_signals(&scratch), "echo $$ >", &pidfile);
    let mut agent = String::new();
    wait_for("the agent's start", || {
        agent = std::fs::read_to_string(&pidfile)
            .unwrap_or_default()
            .trim()
            .to_owned();
        !agent.is_empty()
    });
    let left = names(&scratch);
    assert!(
        left.iter().any(|n| n.starts_with("probity-context-run-"))
            && left.iter().any(|n| n.starts_with("probity-context-host-")),
        "both trees exist while the agent runs: {left:?}"
    );
    signal("-INT", &child);
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGINT));
    assert_empty(&scratch, "removed at once");
    wait_for("the agent's end", || !alive(&agent));
}

/// A signal while `context run` is still writing its trees (the host tree,
/// then the sandbox copy, each into a `.probity-context-*` partial tree
/// first; slowed down by the test-only pause of debug builds): nothing is
/// left, and the agent never starts.
#[test]
fn a_signal_while_the_trees_are_written_leaves_nothing() {
    use std::os::unix::process::ExitStatusExt;
    if !cfg!(debug_assertions) {
        eprintln!("skipped: the write pause exists in debug builds only");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let started = tmp.path().join("started");
    // SIGINT while the host tree is written, SIGTERM while the copy is.
    for (sig, flag, host_done) in [
        (libc::SIGINT, "-INT", false),
        (libc::SIGTERM, "-TERM", true),
    ] {
        let scratch = tmp.path().join(format!("tmp{sig}"));
        std::fs::create_dir(&scratch).unwrap();
        let mut paused = probity_catching_signals(&scratch);
        paused.env("PROBITY_TEST_CONTEXT_WRITE_PAUSE_MS", "100");
        let mut run = run_example(paused, false);
        run.args(["--", "touch"]).arg(&started);
        let mut child = spawn_quiet(run);
        let dirs = |prefix: &str| -> Vec<std::path::PathBuf> {
            std::fs::read_dir(&scratch)
                .map(|entries| {
                    entries
                        .flatten()
                        .map(|e| e.path())
                        .filter(|p| {
                            p.is_dir()
                                && p.file_name()
                                    .is_some_and(|n| n.to_string_lossy().starts_with(prefix))
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        wait_for("the tree being written", || {
            let writing = dirs(".probity-context-")
                .iter()
                .any(|p| std::fs::read_dir(p).is_ok_and(|mut d| d.next().is_some()));
            writing && dirs("probity-context-host-").is_empty() != host_done
        });
        signal(flag, &child);
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(sig));
        assert_empty(&scratch, &format!("signal {sig}: nothing left"));
        assert!(!started.exists(), "the agent never ran");
    }
}

/// Whether this test process runs as root and may make a private mount
/// namespace (`unshare -m`): the condition under which `context run` gives
/// its agent a read-only bind mount.
fn mount_namespace_available() -> bool {
    // SAFETY: geteuid(2) cannot fail and touches no memory.
    let root = unsafe { libc::geteuid() } == 0;
    root && Command::new("unshare")
        .args(["-m", "true"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// An agent script that tries, as whoever it runs as, to chmod, remount,
/// write into and create in its copy, recording each outcome in `report`.
fn tampering_agent(report: &Path) -> String {
    format!(
        "d=\"$PROBITY_CONTEXT_DIR\"; r={r}; \
         chmod 0644 \"$d/index.json\" 2>>$r && echo chmod-ok >> $r; \
         chmod u+w \"$d\" 2>>$r && echo chmod-dir-ok >> $r; \
         mount -o remount,rw,bind \"$d\" 2>>$r && echo remount-ok >> $r; \
         unshare -rm sh -c \"mount -o remount,rw,bind '$d' && touch '$d/userns'\" 2>>$r \
           && echo userns-ok >> $r; \
         {{ printf x >> \"$d/index.json\"; }} 2>>$r && echo write-ok >> $r; \
         touch \"$d/planted\" 2>>$r && echo create-ok >> $r; \
         exit 0",
        r = report.display()
    )
}

/// Assembles the example into `dir` (kept: `context run --dir`) and
/// answers its root-index digest.
fn assemble_host(dir: &Path) -> String {
    let o = Command::new(BIN)
        .args(["context", "assemble", "--json", "--input"])
        .arg(example("change-proposal.json"))
        .arg("--out")
        .arg(dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v["index_digest"].as_str().unwrap().to_owned()
}

/// Every file of a tree, path → bytes.
fn tree_bytes(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(
                    p.strip_prefix(dir).unwrap().to_path_buf(),
                    std::fs::read(&p).unwrap(),
                );
            }
        }
    }
    out
}

/// Issue 23 §4: an agent running as root gets its copy as a read-only
/// bind mount in a private mount namespace, and without `CAP_SYS_ADMIN`
/// (D-R93) it cannot remount it writable: every chmod, write and create
/// fails with EROFS, the run answers which protection held, and the copy
/// verifies after the run.
#[test]
fn a_root_agent_cannot_write_its_copy_through_the_read_only_bind_mount() {
    if !mount_namespace_available() {
        eprintln!("skipped: needs root and `unshare -m` (a private mount namespace)");
        return;
    }
    let (tmp, scratch) = scratch_dirs();
    let report = tmp.path().join("report");
    let o = run_example(probity(&scratch), true)
        .args(["--", "sh", "-c", &tampering_agent(&report)])
        .output()
        .unwrap();
    let said = std::fs::read_to_string(&report).unwrap_or_default();
    assert_exit(&o, 0, &format!("\nagent: {said}"));
    let v = json_of(&o);
    assert_eq!(v["protection"], "mount_namespace_read_only_bind", "{v}");
    assert_eq!(v["agent_exit"], 0);
    assert!(!said.contains("-ok"), "the agent changed its copy: {said}");
    assert_eq!(
        said.matches("Read-only file system").count(),
        4,
        "chmod (twice), write and create fail with EROFS: {said}"
    );
    assert!(
        !said.contains("remount-ok") && !said.contains("userns-ok"),
        "neither a remount nor a user namespace undoes the bind: {said}"
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!stderr.contains("modes only"), "{stderr}");
    assert_empty(&scratch, "nothing is left");

    let o = run_example(probity(&scratch), false)
        .args(["--", "true"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stderr.contains("read-only bind mount in a private mount namespace"),
        "the text answer names the protection: {stderr}"
    );
}

/// Issue 23 §4, the fallback: a `probity` without `CAP_SYS_ADMIN` (a real
/// condition: its bounding set lacks it, as in most containers; any
/// unprivileged user) cannot make a mount namespace and seals the copy by
/// file modes only. An agent that can override them (root here, or the
/// copy's owner) writes into the copy; the hash after the run finds the
/// change and the run is refused (`context_copy_changed`, exit 6), the copy
/// removed and the host tree untouched.
#[test]
fn without_a_mount_namespace_a_copy_the_agent_changed_is_refused() {
    let (tmp, scratch) = scratch_dirs();
    let host = tmp.path().join("host");
    let digest = assemble_host(&host);
    let before = tree_bytes(&host);
    // SAFETY: geteuid(2) cannot fail and touches no memory.
    let root = unsafe { libc::geteuid() } == 0;
    let without_sys_admin = |scratch: &Path| {
        let mut c = if root {
            let mut c = Command::new("setpriv");
            c.args(["--bounding-set=-sys_admin", "--inh-caps=-sys_admin", "--"])
                .arg(BIN);
            c
        } else {
            Command::new(BIN)
        };
        c.env("TMPDIR", scratch)
            .env_remove("PROBITY_TEST_CONTEXT_WRITE_PAUSE_MS")
            .args(["context", "run", "--json", "--dir"])
            .arg(&host)
            .args(["--index-digest", &digest]);
        c
    };

    // A well-behaved agent: the run succeeds and says what held.
    let o = without_sys_admin(&scratch)
        .args(["--", "true"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v = json_of(&o);
    assert_eq!(v["protection"], "modes_only", "{v}");

    let report = tmp.path().join("report");
    let o = without_sys_admin(&scratch)
        .args(["--", "sh", "-c", &tampering_agent(&report)])
        .output()
        .unwrap();
    let said = std::fs::read_to_string(&report).unwrap_or_default();
    assert!(said.contains("write-ok"), "the modes did not hold: {said}");
    assert_exit(&o, 6, &format!("\nagent: {said}"));
    let v = json_of(&o);
    assert_eq!(v["error"]["code"], "context_copy_changed", "{v}");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.contains("modes only"), "{message}");
    assert_empty(&scratch, "the copy is removed");
    assert_eq!(tree_bytes(&host), before, "the host tree is untouched");
    let o = Command::new(BIN)
        .args(["context", "verify"])
        .arg(&host)
        .args(["--index-digest", &digest])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}
