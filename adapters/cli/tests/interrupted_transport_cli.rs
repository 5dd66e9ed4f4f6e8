//! Interrupted is never torn (issue 21 §7): `bundle import`, `publish` and
//! `push` ended at any moment (SIGINT, SIGTERM, SIGKILL) leave no lock
//! file, no scratch ref and no review the store cannot reach, and the next
//! run of the same command succeeds. A signal never kills a git child that
//! holds a lock: it is asked to stop (SIGTERM, git removes its own lock
//! files) and waited for.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use probity_git::fixture::Fixture;
use support::signals::group_running;
use support::*;

/// `probity --cwd <cwd> args...`, quiet, as the leader of its own process
/// group (so the test can wait until every git it started is gone), with
/// SIGINT and SIGHUP at their default dispositions (a test started in the
/// background inherits them ignored).
fn quiet(cwd: &Path, args: &[&str]) -> Command {
    support::signals::detached(cwd, args)
}

/// Waits (bounded, 30 s: a SIGKILLed run's git children finish their
/// work) until no process of the group `pgid` runs.
fn wait_group_gone(pgid: u32) {
    let started = Instant::now();
    while group_running(pgid) {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "process group {pgid} outlived its leader by 30 s"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// `kill <signal> <pid>`.
fn send(signal: &str, pid: u32) -> bool {
    Command::new("kill")
        .args([signal, &pid.to_string()])
        .stderr(Stdio::null())
        .status()
        .unwrap()
        .success()
}

/// Runs `cmd` until `appeared()` holds, then sends `signal` to Probity
/// alone and waits for it and its group (bounded). None: the run ended
/// before `appeared()` held.
fn signal_when(cmd: &mut Command, appeared: impl Fn() -> bool, signal: &str) -> Option<ExitStatus> {
    signal_when_then(cmd, appeared, signal, || {})
}

/// [`signal_when`], running `then` once Probity ended by the signal and
/// before waiting for its group.
fn signal_when_then(
    cmd: &mut Command,
    appeared: impl Fn() -> bool,
    signal: &str,
    then: impl FnOnce(),
) -> Option<ExitStatus> {
    let mut child = cmd.spawn().unwrap();
    let pid = child.id();
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            wait_group_gone(pid);
            return None;
        }
        if appeared() {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the run neither ended nor reached the moment in 60 s"
        );
        std::thread::yield_now();
    }
    assert!(send(signal, pid));
    let status = child.wait().unwrap();
    then();
    wait_group_gone(pid);
    Some(status)
}

/// Runs `cmd` and sends `signal` to Probity alone after `delay`; waits for
/// it and its group. None: the run ended before the signal.
/// `ctrl-c` is SIGINT to Probity's whole process group, its git children
/// included, as a terminal sends it.
fn signal_after(cmd: &mut Command, delay: Duration, signal: &str) -> Option<ExitStatus> {
    use std::os::unix::process::ExitStatusExt;
    let mut child = cmd.spawn().unwrap();
    let pid = child.id();
    std::thread::sleep(delay);
    let sent = child.try_wait().unwrap().is_none()
        && if signal == "ctrl-c" {
            Command::new("kill")
                .args(["-INT", "--", &format!("-{pid}")])
                .stderr(Stdio::null())
                .status()
                .unwrap()
                .success()
        } else {
            send(signal, pid)
        };
    let status = child.wait().unwrap();
    wait_group_gone(pid);
    (sent && status.signal().is_some()).then_some(status)
}

/// Every path below `dir` (not following links).
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        out.push(e.path());
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            walk(&e.path(), out);
        }
    }
}

/// Git's lock files (`*.lock`: a ref's, `packed-refs.lock`, `index.lock`,
/// `config.lock`, `shallow.lock`) anywhere in the git dir `git_dir`.
fn lock_files(git_dir: &Path) -> Vec<String> {
    let mut all = Vec::new();
    walk(git_dir, &mut all);
    all.into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "lock"))
        .map(|p| p.strip_prefix(git_dir).unwrap_or(&p).display().to_string())
        .collect()
}

/// The scratch notes refs (`refs/notes/probity-*`) and their owner locks
/// left in the repository at `cwd` (git dir `git_dir`).
fn scratch_left(f: &Fixture, cwd: &Path, git_dir: &Path) -> Vec<String> {
    let refs = f
        .git_in(cwd, &["for-each-ref", "--format=%(refname)", "refs/notes/"])
        .unwrap();
    let mut left: Vec<String> = String::from_utf8(refs)
        .unwrap()
        .lines()
        .filter(|r| *r != "refs/notes/probity")
        .map(String::from)
        .collect();
    for e in std::fs::read_dir(git_dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with("probity-notes-") {
            left.push(name);
        }
    }
    left
}

/// The store's lineages that hold a state no target index names and no
/// successor supersedes: reviews nothing can find.
fn unreachable_reviews(git_dir: &Path) -> Vec<String> {
    let store = git_dir.join("probity/reviews/v1");
    let mut targets = Vec::new();
    walk(&store.join("index/target"), &mut targets);
    let indexed: std::collections::BTreeSet<String> = targets
        .iter()
        .filter(|t| t.is_file())
        .map(|t| std::fs::read_to_string(t).unwrap().trim().to_string())
        .collect();
    let mut out = Vec::new();
    for e in std::fs::read_dir(&store).into_iter().flatten().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.starts_with("review-") {
            continue;
        }
        let dir = store.join(&name);
        if dir.join("state.json").is_file()
            && !indexed.contains(&name)
            && !dir.join("superseded-by").is_file()
        {
            out.push(name);
        }
    }
    out
}

/// A developer clone with a reviewed, committed change on `main`, a bare
/// `origin` with the server hook installed (holding the base only), the
/// review's bundle exported to a file, and a second clone `b` of the
/// developer clone (it has the commits, not the review).
struct World {
    f: Fixture,
    _remote_dir: tempfile::TempDir,
    remote: PathBuf,
    _inputs: tempfile::TempDir,
    lineage: String,
    base: String,
    tip: String,
    bundle: PathBuf,
    _b_dir: tempfile::TempDir,
    b: PathBuf,
}

/// Runs `cmd` to its end and asserts it exited 0 (`what` and its stderr
/// the failure message).
fn runs_to_completion(cmd: &mut Command, what: &str) {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{what}: {stderr}");
}

/// `probity bundle export --lineage LINEAGE --out OUT`; returns OUT.
fn export_bundle(f: &Fixture, lineage: &str, out: &Path) -> PathBuf {
    let to = out.to_str().unwrap();
    probity_ok(
        f.root(),
        &["bundle", "export", "--lineage", lineage, "--out", to],
    );
    out.to_path_buf()
}

/// A plain clone `b` of `f` in a directory of its own.
fn clone_b(f: &Fixture) -> (tempfile::TempDir, PathBuf) {
    let b_dir = tempfile::tempdir().unwrap();
    let b = b_dir.path().join("b");
    let (from, to) = (f.root().to_str().unwrap(), b.to_str().unwrap());
    f.git(&["clone", "-q", from, to]).unwrap();
    (b_dir, b)
}

impl World {
    fn new() -> Self {
        let (f, remote_dir, remote) = hooked_origin();
        let inputs = tempfile::tempdir().unwrap();
        let base = rev(&f, f.root(), "HEAD");
        write_medium_change(&f);
        let lineage = string_at(&approve_live(f.root(), inputs.path()), "lineage_id");
        f.commit_all("reviewed").unwrap();
        let tip = rev(&f, f.root(), "HEAD");
        let bundle = export_bundle(&f, &lineage, &inputs.path().join("bundle.json"));
        let (b_dir, b) = clone_b(&f);
        World {
            f,
            _remote_dir: remote_dir,
            remote,
            _inputs: inputs,
            lineage,
            base,
            tip,
            bundle,
            _b_dir: b_dir,
            b,
        }
    }

    fn import(&self) -> Command {
        quiet(
            &self.b,
            &["bundle", "import", self.bundle.to_str().unwrap()],
        )
    }

    fn publish(&self) -> Command {
        let range = format!("{}..HEAD", self.base);
        quiet(self.f.root(), &["publish", "--range", &range])
    }

    fn push(&self) -> Command {
        quiet(self.f.root(), &["push", "origin", "main"])
    }

    /// Clone b's store gone: the next import writes the record again.
    fn forget_import(&self) {
        let store = self.b.join(".git/probity");
        if store.exists() {
            std::fs::remove_dir_all(store).unwrap();
        }
    }

    /// Nothing published here yet: the next publish writes the note.
    fn forget_publish(&self) {
        let _ = self.f.git(&["update-ref", "-d", "refs/notes/probity"]);
    }

    /// The remote back at the base, without notes or review trees (as its
    /// administrator would reset it, no hook involved): the next push
    /// delivers the reviewed commit again.
    fn forget_push(&self) {
        let g = |args: &[&str]| self.f.git_in(&self.remote, args).unwrap();
        g(&["update-ref", "refs/heads/main", &self.base]);
        let refs = g(&[
            "for-each-ref",
            "--format=%(refname)",
            "refs/notes/",
            "refs/probity/",
        ]);
        for r in String::from_utf8(refs).unwrap().lines() {
            g(&["update-ref", "-d", r]);
        }
        // Nor does this clone remember the remote at the tip.
        let _ = self
            .f
            .git(&["update-ref", "-d", "refs/remotes/origin/main"]);
        self.forget_publish();
    }

    /// The store of clone b names the bundle's review by its target.
    fn imported(&self) -> bool {
        let gate = probity(
            &self.b,
            &["validate", "--gate", "pre-push", "--range", "HEAD~1..HEAD"],
        );
        gate.json["decision"] == "allow" && gate.json["lineage_id"] == self.lineage.as_str()
    }

    fn published(&self) -> bool {
        self.f
            .git(&["notes", "--ref=probity", "show", &self.tip])
            .is_ok_and(|n| String::from_utf8_lossy(&n).contains(&self.lineage))
    }

    fn pushed(&self) -> bool {
        rev_opt(&self.f, &self.remote, "refs/heads/main").as_deref() == Some(self.tip.as_str())
            && self
                .f
                .git_in(&self.remote, &["notes", "--ref=probity", "show", &self.tip])
                .is_ok_and(|n| String::from_utf8_lossy(&n).contains(&self.lineage))
    }

    /// What an interrupted run may never leave, once the next run ran:
    /// lock files in either clone or the remote, scratch refs or their
    /// owner locks, reviews no index reaches.
    fn leftovers(&self) -> Vec<String> {
        let mut left = Vec::new();
        for (cwd, git_dir) in [
            (self.f.root().to_path_buf(), self.f.root().join(".git")),
            (self.b.clone(), self.b.join(".git")),
            (self.remote.clone(), self.remote.clone()),
        ] {
            left.extend(
                lock_files(&git_dir)
                    .into_iter()
                    .map(|l| format!("lock {l}")),
            );
            left.extend(scratch_left(&self.f, &cwd, &git_dir));
            left.extend(
                unreachable_reviews(&git_dir)
                    .into_iter()
                    .map(|l| format!("unreachable {l}")),
            );
        }
        left
    }
}

fn rev_opt(f: &Fixture, cwd: &Path, r: &str) -> Option<String> {
    f.git_in(cwd, &["rev-parse", "-q", "--verify", r])
        .ok()
        .map(|b| String::from_utf8(b).unwrap().trim().to_string())
}

fn rev(f: &Fixture, cwd: &Path, r: &str) -> String {
    rev_opt(f, cwd, r).unwrap()
}

/// An import SIGKILLed once its record is on disk (the lineage's
/// `state.json` appeared: moved into place, its target index maybe not
/// yet written) is completed by the next import: the review is reachable
/// by its target. It used to answer `written: 0` and repair nothing, and
/// the review was unreachable for good.
#[test]
fn an_import_killed_after_its_record_is_completed_by_the_next_run() {
    let w = World::new();
    let store = w.b.join(".git/probity/reviews/v1");
    let state = store.join(&w.lineage).join("state.json");
    // The torn moment is a few fsyncs long: SIGKILLs as soon as the record
    // appears are repeated (bounded) until one lands in it.
    let mut torn = false;
    for _ in 0..50 {
        w.forget_import();
        let killed = signal_when(&mut w.import(), || state.is_file(), "-KILL");
        if killed.is_some() && !unreachable_reviews(&w.b.join(".git")).is_empty() {
            torn = true;
            break;
        }
    }
    assert!(torn, "no SIGKILL left a record without its index");
    assert!(!w.imported(), "the torn record is not reachable yet");
    let again = probity_ok(&w.b, &["bundle", "import", w.bundle.to_str().unwrap()]);
    assert_eq!(again.json["written"], 1, "the rerun completed the record");
    assert!(w.imported(), "the rerun made the review reachable");
    assert_eq!(w.leftovers(), Vec::<String>::new());
    // And the run after that has nothing left to do.
    let third = probity(&w.b, &["bundle", "import", w.bundle.to_str().unwrap()]);
    assert_eq!(third.json["written"], 0, "{}{}", third.stdout, third.stderr);
}

/// A `reference-transaction` hook that, the first time `ref` is being
/// updated ("prepared": git holds the ref's lock), records its pid in
/// `pid` and sleeps a second (less than the grace an interrupted run
/// gives its children): git holds the lock until the hook returns.
fn hold_lock_hook(git_dir: &Path, reference: &str, pid: &Path) {
    let hooks = git_dir.join("hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    let marker = pid.with_extension("once");
    probity_testkit::write_executable(
        &hooks.join("reference-transaction"),
        format!(
            "#!/bin/sh\n\
             [ \"$1\" = prepared ] || exit 0\n\
             grep -q ' {reference}$' || exit 0\n\
             [ -e '{marker}' ] && exit 0\n\
             : > '{marker}'\n\
             echo $$ > '{pid}.tmp' && mv '{pid}.tmp' '{pid}'\n\
             exec sleep 1\n",
            marker = marker.display(),
            pid = pid.display(),
        )
        .as_bytes(),
    )
    .unwrap();
}

/// Ends the stand-in hook whose pid is in `pid` (it outlives git).
fn end_hook(pid: &Path) {
    if let Ok(text) = std::fs::read_to_string(pid) {
        let _ = send("-KILL", text.trim().parse().unwrap());
    }
}

/// SIGTERM or SIGINT reaching `probity publish` (or `probity push`) while
/// its git child holds a ref's lock: the child is waited for (publish's
/// `update-ref` finishes its update, its signals held back) or asked to
/// stop (push's `git push`, on which git removes its lock file), and the
/// next run succeeds. It used
/// to be SIGKILLed and leave `refs/notes/probity.lock` (or the
/// remote-tracking ref's lock) behind: every later publish failed "cannot
/// lock ref". Deterministic: a `reference-transaction` hook holds git in
/// the transaction (the lock taken) until the signal arrives.
#[test]
fn a_signal_never_leaves_the_lock_of_a_git_child_behind() {
    let w = World::new();
    let git_dir = w.f.root().join(".git");
    let marks = tempfile::tempdir().unwrap();
    for (what, reference) in [
        ("publish", "refs/notes/probity"),
        ("push", "refs/remotes/origin/main"),
    ] {
        for signal in ["-TERM", "-INT"] {
            w.forget_push();
            let pid = marks.path().join(format!("{what}{signal}.pid"));
            hold_lock_hook(&git_dir, reference, &pid);
            let mut cmd = if what == "publish" {
                w.publish()
            } else {
                w.push()
            };
            // The stand-in hook outlives git: ended before the group is
            // waited for.
            let status = signal_when_then(&mut cmd, || pid.is_file(), signal, || end_hook(&pid));
            let status = status.unwrap_or_else(|| panic!("{what} {signal}: ended first"));
            assert!(status.code().is_none(), "{what} {signal}: {status}");
            assert_eq!(
                lock_files(&git_dir),
                Vec::<String>::new(),
                "{what} {signal} left git's lock"
            );
            let next = if what == "publish" {
                w.publish()
            } else {
                w.push()
            }
            .status()
            .unwrap();
            assert_eq!(next.code(), Some(0), "{what} {signal}: the next run");
            assert!(
                if what == "publish" {
                    w.published()
                } else {
                    w.pushed()
                },
                "{what} {signal}"
            );
            assert_eq!(w.leftovers(), Vec::<String>::new(), "{what} {signal}");
        }
    }
}

/// A path remote's `receive-pack` runs in Probity's own process group, so
/// a terminal's Ctrl-C reaches it: `probity push` starts it with the
/// interrupting signals blocked (D-R124), as it starts its `git push`.
/// git starts it with none blocked whatever its own mask, and a Ctrl-C
/// between the first lock file it creates and git's cleanup handler
/// (installed only then) left the remote's `HEAD.lock`: every later push
/// failed "cannot lock ref 'HEAD'". Read from /proc by a
/// `reference-transaction` hook, a child of `receive-pack`.
#[cfg(target_os = "linux")]
#[test]
fn a_path_remotes_receive_pack_runs_with_interrupts_blocked() {
    let w = World::new();
    w.forget_push();
    let seen = tempfile::tempdir().unwrap();
    let masks = seen.path().join("masks");
    probity_testkit::write_executable(
        &w.remote.join("hooks").join("reference-transaction"),
        format!(
            "#!/bin/sh\n\
             cat > /dev/null\n\
             [ \"$1\" = prepared ] || exit 0\n\
             grep '^SigBlk:' /proc/$PPID/status >> '{}'\n",
            masks.display()
        )
        .as_bytes(),
    )
    .unwrap();
    runs_to_completion(&mut w.push(), "push");
    assert!(w.pushed());
    let text = std::fs::read_to_string(&masks).unwrap();
    assert!(!text.is_empty(), "the hook never ran");
    for line in text.lines() {
        let hex = line.trim_start_matches("SigBlk:").trim();
        let mask = u64::from_str_radix(hex, 16).unwrap();
        for (name, sig) in [("HUP", 1), ("INT", 2), ("QUIT", 3), ("TERM", 15)] {
            assert_ne!(
                mask & (1 << (sig - 1)),
                0,
                "receive-pack runs with SIG{name} deliverable: {line}"
            );
        }
    }
}

/// `shelter-exec` (internal, D-R124) runs its program with the
/// interrupting signals blocked, in place of itself; one it cannot start
/// is `shelter_exec_failed` on stderr, exit 7.
#[cfg(target_os = "linux")]
#[test]
fn shelter_exec_blocks_the_interrupting_signals_or_says_why_it_could_not_run() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_probity"))
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    let out = run(&["shelter-exec", "grep", "^SigBlk:", "/proc/self/status"]);
    assert_eq!(out.status.code(), Some(0));
    let line = String::from_utf8(out.stdout).unwrap();
    let mask = u64::from_str_radix(line.trim_start_matches("SigBlk:").trim(), 16).unwrap();
    for sig in [1, 2, 3, 15] {
        assert_ne!(mask & (1 << (sig - 1)), 0, "signal {sig}: {line}");
    }
    let out = run(&["shelter-exec", "/nonexistent/git-receive-pack", "r.git"]);
    assert_eq!(out.status.code(), Some(7));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("shelter_exec_failed"), "{err}");
    assert!(err.contains("/nonexistent/git-receive-pack"), "{err}");
}

/// A deterministic sequence of fractions in [0.05, 0.95) (a linear
/// congruential generator): where in a run's length each signal lands.
struct Delays(u64);

impl Delays {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        0.05 + 0.9 * ((self.0 >> 33) as f64 / (1u64 << 31) as f64)
    }
}

/// Issue 21 §7: `bundle import`, `publish` and `push` (to a bare remote
/// with the server hook) ended by SIGINT, SIGTERM or SIGKILL (to Probity
/// alone) or Ctrl-C (SIGINT to its whole process group) at moments spread
/// over each run's length (deterministic seeds), ten times per signal and
/// command: after each, the next run of the same command
/// succeeds and delivers what the command promises (the review reachable,
/// the note written, the commit and its note on the remote), and nothing
/// is left: no lock file in either clone or the remote, no scratch notes
/// ref nor its owner lock, no review that no index reaches.
#[test]
fn import_publish_and_push_killed_at_random_points_are_completed_by_the_next_run() {
    let w = World::new();
    type Cmd = fn(&World) -> Command;
    type Check = fn(&World) -> bool;
    let commands: [(&str, Cmd, Cmd, Check); 3] = [
        (
            "import",
            |w| {
                w.forget_import();
                w.import()
            },
            World::import,
            World::imported,
        ),
        (
            "publish",
            |w| {
                w.forget_publish();
                w.publish()
            },
            World::publish,
            World::published,
        ),
        (
            "push",
            |w| {
                w.forget_push();
                w.push()
            },
            World::push,
            World::pushed,
        ),
    ];
    for (k, (what, fresh, again, done)) in commands.iter().enumerate() {
        // Three runs to completion, timed: the signals are spread over the
        // shortest.
        let mut length = Duration::MAX;
        for _ in 0..3 {
            let t = Instant::now();
            runs_to_completion(&mut fresh(&w), what);
            length = length.min(t.elapsed());
            assert!(done(&w), "{what}: the uninterrupted run");
        }
        let mut ended = 0;
        for (s, signal) in ["-INT", "-TERM", "-KILL", "ctrl-c"].iter().enumerate() {
            let mut delays = Delays(0x5eed + 31 * k as u64 + s as u64);
            for round in 0..10 {
                let delay = length.mul_f64(delays.next());
                if signal_after(&mut fresh(&w), delay, signal).is_some() {
                    ended += 1;
                }
                runs_to_completion(
                    &mut again(&w),
                    &format!("{what} {signal} round {round} (after {delay:?}): the next run"),
                );
                assert!(done(&w), "{what} {signal} round {round}: not completed");
                assert_eq!(
                    w.leftovers(),
                    Vec::<String>::new(),
                    "{what} {signal} round {round} (after {delay:?})"
                );
            }
        }
        // The signals landed in runs, not only after them.
        assert!(
            ended >= 12,
            "{what}: only {ended} of 30 runs were signalled"
        );
    }
}

/// A recovered chain's import SIGKILLed once its successor's record is on
/// disk (its supersession marker maybe not yet written) is completed by the
/// next import: the predecessor is marked superseded by the successor and
/// no pending successor is left. The rerun used to skip every record the
/// store held, so the marker was never written.
#[test]
fn a_chain_import_killed_after_its_successor_is_written_is_completed_by_the_next_run() {
    let (f, _remote_dir, _remote) = hooked_origin();
    let inputs = tempfile::tempdir().unwrap();
    write_medium_change(&f);
    let first = approve_live(f.root(), inputs.path());
    let l1 = string_at(&first, "lineage_id");
    let rev = string_at(&first, "store_revision");
    f.write(
        "src/parser.rs",
        "// parser\nfn parse() {}\nfn more() { 2 }\n",
    )
    .unwrap();
    recover_scope_changed_at(&f, &l1, &rev, "edited after approval", "maintainer");
    let l2 = string_at(&approve_live(f.root(), inputs.path()), "lineage_id");
    f.commit_all("reviewed twice").unwrap();
    let bundle = export_bundle(&f, &l2, &inputs.path().join("chain.json"));
    let (_b_dir, b) = clone_b(&f);
    let store = b.join(".git/probity/reviews/v1");
    let successor = store.join(&l2).join("state.json");
    let marker = store.join(&l1).join("superseded-by");
    let pending = store.join(&l1).join("successor.pending");
    let import = || quiet(&b, &["bundle", "import", bundle.to_str().unwrap()]);
    let mut torn = false;
    for _ in 0..50 {
        let _ = std::fs::remove_dir_all(b.join(".git/probity"));
        let killed = signal_when(&mut import(), || successor.is_file(), "-KILL");
        if killed.is_some() && !marker.is_file() {
            torn = true;
            break;
        }
    }
    assert!(torn, "no SIGKILL left a successor without its marker");
    probity_ok(&b, &["bundle", "import", bundle.to_str().unwrap()]);
    assert_eq!(
        std::fs::read_to_string(&marker).ok(),
        Some(format!("{l2}\n")),
        "the rerun marked the predecessor superseded"
    );
    assert!(!pending.exists(), "no pending successor is left");
    assert_eq!(unreachable_reviews(&b.join(".git")), Vec::<String>::new());
    let gate = probity(
        &b,
        &["validate", "--gate", "pre-push", "--range", "HEAD~1..HEAD"],
    );
    assert_eq!(gate.json["decision"], "allow", "{}", gate.stdout);
    assert_eq!(gate.json["lineage_id"], l2.as_str());
}
