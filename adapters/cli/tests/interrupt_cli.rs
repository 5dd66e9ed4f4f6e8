//! Clean interruption (issue 12): a run killed at any moment (Ctrl-C of a
//! hook, SIGTERM, SIGKILL) used to leave a full copy of the Git index in
//! the git dir every time (hundreds of them, hundreds of MB). Every such
//! copy is now held under an owner lock, and the next run removes what a
//! dead owner left, never what a live one holds; a run ended by SIGINT,
//! SIGTERM or SIGHUP removes its own before it goes.

mod support;

use std::process::{Command, Stdio};
use std::time::Duration;

use support::signals::{in_tmp, signal_when, wait_group_gone};
use support::{isolated, medium_change, pre_receive_args, rev_parse, string_at};

/// Ctrl-C or SIGTERM during `finalize --evidence-cmd` (signalling the
/// whole foreground group): the check runs in its own process group, so the
/// signal reaches only Probity, which must stop the check too, exit as
/// interrupted, and change nothing (it once left the check running).
#[test]
fn ctrl_c_during_an_evidence_command_stops_the_check_and_changes_nothing() {
    use std::os::unix::process::CommandExt;
    let f = medium_change();
    let dir = tempfile::tempdir().unwrap();
    let lineage = support::started_awaiting_evidence(f.root(), dir.path());
    let before = support::store_snapshot(&f);

    let pidfile = dir.path().join("check.pid");
    let script = format!("echo $$ > {}; exec sleep 60", pidfile.display());
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_probity"));
    isolated(&mut cmd)
        .args(["--cwd", f.root().to_str().unwrap()])
        .args(["finalize", "--lineage", &lineage, "--evidence-cmd", "--"])
        .args(["sh", "-c", &script])
        .env_remove("GIT_DIR")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        // The "terminal's" foreground group: Probity leads it.
        .process_group(0);
    let mut probity = cmd.spawn().unwrap();
    let mut waited = Duration::ZERO;
    let check_pid = loop {
        if let Some(pid) = std::fs::read_to_string(&pidfile)
            .ok()
            .and_then(|s| s.trim().parse::<u32>().ok())
        {
            break pid;
        }
        assert!(waited < Duration::from_secs(30), "the check never started");
        std::thread::sleep(Duration::from_millis(20));
        waited += Duration::from_millis(20);
    };
    let group = format!("-{}", probity.id());
    // SIGTERM, not SIGINT: a test run started in the background (CI)
    // inherits an ignored SIGINT, which Probity rightly keeps ignoring.
    // Ctrl-C takes the same path when it is not ignored.
    let sent = Command::new("kill")
        .args(["-TERM", "--", &group])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = probity.wait().unwrap();
    assert!(!status.success(), "an interrupted finalize never succeeds");
    // The check is gone (give the kernel a moment to reap it).
    let mut alive = true;
    for _ in 0..100 {
        let probe = Command::new("kill")
            .args(["-0", &check_pid.to_string()])
            .stderr(Stdio::null())
            .status()
            .unwrap();
        alive = probe.success();
        if !alive {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    if alive {
        let _ = Command::new("kill")
            .args(["-KILL", &check_pid.to_string()])
            .status();
    }
    assert!(
        !alive,
        "the evidence command outlived the interrupted finalize"
    );
    assert_eq!(before, support::store_snapshot(&f));
}

/// The names in `dir` starting with `prefix`, sorted.
fn named(dir: &std::path::Path, prefix: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(prefix))
        .collect();
    v.sort();
    v
}

/// Kills runs of `cmd()` (SIGKILL, up to 40) once their scratch (a
/// directory `prefix*` in `tmp`) holds `inside`, until one leaves its
/// scratch behind; the next run then succeeds and removes it: nothing is
/// left in `tmp`.
fn killed_scratch_is_scavenged(
    tmp: &std::path::Path,
    mut cmd: impl FnMut() -> Command,
    prefix: &str,
    inside: &str,
) {
    let appeared = || {
        named(tmp, prefix)
            .iter()
            .any(|n| tmp.join(n).join(inside).exists())
    };
    let left = (0..40).any(|_| {
        signal_when(&mut cmd(), appeared, "-KILL").is_some() && !named(tmp, prefix).is_empty()
    });
    assert!(
        left,
        "no run was killed while its scratch ({prefix}*) existed"
    );
    let status = cmd().status().unwrap();
    assert_eq!(status.code(), Some(0), "the next run succeeds");
    assert_eq!(named(tmp, ""), Vec::<String>::new());
}

/// A clone whose `HEAD` is a reviewed commit with its review published as
/// a note: the server gate's range form judges `base..HEAD` from it.
struct Published {
    f: probity_git::fixture::Fixture,
    base: String,
    _inputs: tempfile::TempDir,
}

impl Published {
    fn new() -> Self {
        let f = medium_change();
        let base = rev_parse(&f, "HEAD");
        let inputs = tempfile::tempdir().unwrap();
        support::approve_live(f.root(), inputs.path());
        f.commit_all("reviewed").unwrap();
        let range = format!("{base}..HEAD");
        support::probity_ok(f.root(), &["publish", "--range", &range]);
        Published {
            f,
            base,
            _inputs: inputs,
        }
    }

    fn range(&self) -> String {
        format!("{}..HEAD", self.base)
    }

    /// The server gate over the published commit.
    fn gate(&self, tmp: &std::path::Path) -> Command {
        let range = self.range();
        in_tmp(
            self.f.root(),
            tmp,
            &pre_receive_args(&range, "refs/heads/main"),
        )
    }
}

/// The server gate verifies in memory (D-R112): a run writes nothing,
/// neither in the temporary directory (it once made a scratch store
/// there, which a SIGKILL left behind) nor in the repository, whichever
/// signal ends it and whenever.
#[test]
fn the_server_gate_writes_nothing_whichever_signal_ends_it() {
    let p = Published::new();
    let tmp = tempfile::tempdir().unwrap();
    let git_dir = p.f.root().join(".git");
    let before = everything_left(&git_dir, tmp.path());
    let t = std::time::Instant::now();
    let ok = p.gate(tmp.path()).status().unwrap();
    assert_eq!(ok.code(), Some(0), "the published commit is allowed");
    let length = t.elapsed();
    assert_eq!(everything_left(&git_dir, tmp.path()), before);
    for (signal, fraction) in [
        ("-KILL", 0.2),
        ("-TERM", 0.35),
        ("-INT", 0.5),
        ("-HUP", 0.65),
        ("-KILL", 0.8),
    ] {
        let mut child = p.gate(tmp.path()).spawn().unwrap();
        let pid = child.id();
        std::thread::sleep(length.mul_f64(fraction));
        let _ = Command::new("kill")
            .args([signal, &pid.to_string()])
            .stderr(Stdio::null())
            .status();
        child.wait().unwrap();
        wait_group_gone(pid);
        assert_eq!(
            everything_left(&git_dir, tmp.path()),
            before,
            "a server gate ended by {signal} wrote something"
        );
        assert_eq!(named(tmp.path(), ""), Vec::<String>::new());
    }
}

/// SIGKILL while `export-context` holds its scratch repository: the next
/// export removes it, told by its dead owner's lock.
#[test]
fn an_export_scratch_left_by_a_killed_export_is_scavenged_by_the_next_export() {
    let f = medium_change();
    let st = support::probity_ok(f.root(), &["start"]);
    let lineage = string_at(&st.json, "lineage_id");
    let tmp = tempfile::tempdir().unwrap();
    let export = || {
        in_tmp(
            f.root(),
            tmp.path(),
            &["export-context", "--lineage", &lineage],
        )
    };
    killed_scratch_is_scavenged(tmp.path(), export, "probity-export-", "objects");
}

/// A lineage folder without its state (what an older Probity killed
/// between making the folder and writing its state left, or a recovery's
/// successor being made) is no corruption: validate and status answer as
/// without it and change no byte, and start works beside it.
#[test]
fn a_lineage_folder_without_state_fails_no_command() {
    let f = medium_change();
    let inputs = tempfile::tempdir().unwrap();
    let done = support::approve_live(f.root(), inputs.path());
    let lineage = string_at(&done, "lineage_id");
    let validate = ["validate", "--gate", "pre-commit"];
    let status = ["status", "--lineage", lineage.as_str()];
    let v0 = support::probity(f.root(), &validate);
    let s0 = support::probity(f.root(), &status);
    assert_eq!(v0.code, 0, "{}{}", v0.stdout, v0.stderr);
    assert_eq!(s0.code, 0, "{}{}", s0.stdout, s0.stderr);
    let orphan = f
        .root()
        .join(".git/probity/reviews/v1/review-00000000000000aa");
    std::fs::create_dir(&orphan).unwrap();
    std::fs::write(orphan.join("LOCK"), b"").unwrap();
    let before = support::store_snapshot(&f);
    for _ in 0..2 {
        let v = support::probity(f.root(), &validate);
        assert_eq!((v.code, &v.json), (v0.code, &v0.json), "{}", v.stderr);
        let s = support::probity(f.root(), &status);
        assert_eq!((s.code, &s.json), (s0.code, &s0.json), "{}", s.stderr);
        assert_eq!(support::store_snapshot(&f), before, "nothing changed");
    }
    f.write("src/more.rs", "fn more() {}\n").unwrap();
    let st = support::probity_ok(f.root(), &["start"]);
    assert_ne!(st.json["lineage_id"], done["lineage_id"]);
    // Not told by an owner lock: left alone.
    assert!(orphan.join("LOCK").is_file());
}

/// Everything an interrupted run could leave where Probity writes, as
/// readable names: in the git dir, every `probity-*` entry (index copies,
/// the signature and literal-key files handed to ssh-keygen,
/// `probity-sig-*` and `probity-key-*`, and their owner locks) and git's
/// `index.lock`; in the store, any hidden entry (temp files, lineage
/// folders being made, their owner locks) and any lineage folder without
/// its state or that no target index names; in the private temporary
/// directory, anything at all (export scratch repositories, server-gate
/// scratch stores, `probity mcp` document directories `probity-mcp-*`,
/// signature files when the git dir took none, their owner locks).
fn everything_left(git_dir: &std::path::Path, tmp: &std::path::Path) -> Vec<String> {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            out.push(e.path());
            if e.file_type().unwrap().is_dir() {
                walk(&e.path(), out);
            }
        }
    }
    // `probity-` covers `probity-index-`, `probity-sig-`, `probity-key-`.
    let mut left: Vec<String> = named(git_dir, "probity-");
    left.extend(named(git_dir, "index.lock"));
    let store = git_dir.join("probity/reviews/v1");
    let mut all = Vec::new();
    walk(&store, &mut all);
    let hidden = |p: &std::path::Path| {
        p.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'))
    };
    left.extend(
        all.iter()
            .filter(|p| hidden(p))
            .map(|p| p.strip_prefix(git_dir).unwrap_or(p).display().to_string()),
    );
    let mut indexed = std::collections::BTreeSet::new();
    let mut targets = Vec::new();
    walk(&store.join("index/target"), &mut targets);
    for t in targets {
        indexed.insert(std::fs::read_to_string(&t).unwrap().trim().to_string());
    }
    for name in named(&store, "review-") {
        let dir = store.join(&name);
        if !dir.join("state.json").is_file() {
            left.push(format!("{name} (no state)"));
        } else if !indexed.contains(&name) && !dir.join("superseded-by").is_file() {
            left.push(format!("{name} (no index names it)"));
        }
    }
    left.extend(named(tmp, "").into_iter().map(|n| format!("$TMPDIR/{n}")));
    left
}

/// Issue 12: runs of every kind that writes (start, finalize, validate,
/// export-context; the server gate writes nothing, tested above) ended by
/// SIGKILL, SIGTERM, SIGINT or SIGHUP at moments spread over each run's
/// length leave nothing of any kind once the next run of each kind ran:
/// no index copy, no store temp file, no lineage folder half made or never
/// indexed, no export scratch.
#[test]
fn interrupted_runs_of_every_kind_leave_nothing_after_the_next_runs() {
    let p = Published::new();
    let f = &p.f;
    let git_dir = f.root().join(".git");
    let tmp = tempfile::tempdir().unwrap();
    let inputs = tempfile::tempdir().unwrap();
    let clean = support::input(inputs.path(), "r.json", support::CLEAN_RESULT);
    let evidence = support::input(inputs.path(), "ev.txt", "tests passed\n");
    let change = std::cell::Cell::new(0u32);
    // A new candidate: one more file.
    let new_candidate = || {
        change.set(change.get() + 1);
        let n = change.get();
        f.write(&format!("src/c{n}.rs"), format!("fn c{n}() {{}}\n"))
            .unwrap();
    };
    // A new candidate started to completion: its lineage and the
    // arguments of its `finalize`.
    let started = || {
        new_candidate();
        let st = support::probity_ok(f.root(), &["start"]);
        let lineage = string_at(&st.json, "lineage_id");
        let mut args = support::finalize_args(
            &lineage,
            st.json["selected_lenses"].as_array().unwrap(),
            &clean,
        );
        args.extend(["--evidence".into(), evidence.clone()]);
        (lineage, args)
    };
    let (exported, _) = started();
    let kinds = ["start", "finalize", "validate", "export-context"];
    // A run of `kind`: a start of a candidate no lineage holds yet, a
    // finalize of a lineage just started.
    let cmd_for = |kind: &str| {
        let args: Vec<String> = match kind {
            "start" => {
                new_candidate();
                vec!["start".into()]
            }
            "finalize" => started().1,
            "validate" => ["validate", "--gate", "pre-commit"]
                .map(String::from)
                .to_vec(),
            "export-context" => vec![
                "export-context".into(),
                "--lineage".into(),
                exported.clone(),
            ],
            other => panic!("no run of kind {other}"),
        };
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        in_tmp(f.root(), tmp.path(), &args)
    };
    // One run of each kind to completion, timed: the interrupts are spread
    // over that length.
    let mut length = Vec::new();
    for kind in kinds {
        let mut cmd = cmd_for(kind);
        let t = std::time::Instant::now();
        let status = cmd.status().unwrap();
        assert!(status.code().is_some_and(|c| c <= 1), "{kind}: {status}");
        length.push(t.elapsed());
    }
    // What each kind of run makes that no other kind does (a start or a
    // finalize makes an index copy first, as a gate does).
    let own = |kind: &str| -> Vec<String> {
        match kind {
            "start" | "finalize" => everything_left(&git_dir, tmp.path())
                .into_iter()
                .filter(|n| n.starts_with("probity/reviews/") || n.contains(" (no "))
                .collect(),
            // The artifacts themselves, not their owner locks (made first).
            "validate" => named(&git_dir, "probity-index-")
                .into_iter()
                .filter(|n| !n.ends_with(".owner"))
                .collect(),
            "export-context" => named(tmp.path(), "probity-export-")
                .into_iter()
                .filter(|n| tmp.path().join(n).join("objects").exists())
                .collect(),
            other => panic!("no run of kind {other}"),
        }
    };
    // Nine rounds of each kind: signalled as soon as the run made
    // something temporary, or something of its own kind (SIGKILL, SIGTERM,
    // SIGINT, SIGHUP), or at a fifth, a third, a half, four fifths of its
    // length.
    enum When {
        Anything,
        Own,
        At(f64),
    }
    let rounds = [
        ("-KILL", When::Anything),
        ("-KILL", When::Own),
        ("-TERM", When::Own),
        ("-INT", When::Own),
        ("-HUP", When::Own),
        ("-KILL", When::At(0.2)),
        ("-HUP", When::At(0.35)),
        ("-TERM", When::At(0.5)),
        ("-INT", When::At(0.8)),
    ];
    // One run of `kind` signalled `when`: what it left that was not there
    // before, or None when it ended before the signal reached it.
    let interrupt = |signal: &str, when: &When, k: usize, kind: &str| -> Option<Vec<String>> {
        let mut cmd = cmd_for(kind);
        // Only what this run makes counts: the runs before may have
        // left something already.
        let before = everything_left(&git_dir, tmp.path());
        let before_own = own(kind);
        let status = match when {
            When::Anything => signal_when(
                &mut cmd,
                || everything_left(&git_dir, tmp.path()) != before,
                signal,
            ),
            When::Own => signal_when(
                &mut cmd,
                || own(kind).iter().any(|n| !before_own.contains(n)),
                signal,
            ),
            When::At(fraction) => {
                let mut child = cmd.spawn().unwrap();
                let pid = child.id();
                std::thread::sleep(length[k].mul_f64(*fraction));
                let sent = Command::new("kill")
                    .args([signal, &pid.to_string()])
                    .stderr(Stdio::null())
                    .status()
                    .unwrap();
                let status = child.wait().unwrap();
                wait_group_gone(pid);
                sent.success().then_some(status)
            }
        };
        if status.is_none_or(|s| s.code().is_some()) {
            return None;
        }
        let new: Vec<String> = everything_left(&git_dir, tmp.path())
            .into_iter()
            .filter(|n| !before.contains(n))
            .collect();
        if signal != "-KILL" {
            // A signalled run removes what it made before it ends, but
            // for a lineage it had moved into place before an index
            // named it: that the next start settles, by the owner lock
            // it leaves.
            let settled_later = |n: &String| {
                n.contains("/.new-") && n.ends_with(".owner") || n.ends_with("(no index names it)")
            };
            assert!(
                new.iter().all(settled_later),
                "{kind} ended by {signal} left {new:?}"
            );
        }
        Some(new)
    };
    let mut interrupted = 0;
    let mut ended_by = std::collections::BTreeMap::<&str, usize>::new();
    let mut killed_left = std::collections::BTreeSet::new();
    for &(signal, ref when) in &rounds {
        for (k, kind) in kinds.iter().enumerate() {
            if let Some(new) = interrupt(signal, when, k, kind) {
                interrupted += 1;
                *ended_by.entry(signal).or_default() += 1;
                if signal == "-KILL" {
                    killed_left.extend(new);
                }
            }
        }
    }
    let runs = rounds.len() * kinds.len();
    assert!(
        interrupted * 3 >= runs * 2,
        "only {interrupted} of {runs} runs were interrupted"
    );
    // Every signal of the rounds ended runs (SIGHUP too: a run that ignored
    // it would have finished instead).
    for (signal, _) in &rounds {
        assert!(
            ended_by.get(signal).is_some_and(|n| *n > 0),
            "no run was ended by {signal}: {ended_by:?}"
        );
    }
    // Each kind's own leftovers were there to be found. A store entry lives
    // for microseconds of a start, so when the rounds above happened to
    // miss every one, SIGKILLs as soon as one appears are repeated, a
    // bounded number of times, until one is left (the window is timing,
    // not the property under test: that the next runs remove it).
    for (what, prefix, kind) in [
        ("an index copy", "probity-index-", "validate"),
        ("a store entry", "probity/reviews/v1/", "start"),
        (
            "an export scratch",
            "$TMPDIR/probity-export-",
            "export-context",
        ),
    ] {
        let k = kinds.iter().position(|&x| x == kind).unwrap();
        let left = |killed: &std::collections::BTreeSet<String>| {
            killed.iter().any(|n| n.starts_with(prefix))
        };
        for _ in 0..40 {
            if left(&killed_left) {
                break;
            }
            for kill in [When::Own, When::Anything] {
                if let Some(new) = interrupt("-KILL", &kill, k, kind) {
                    killed_left.extend(new);
                }
            }
        }
        assert!(
            left(&killed_left),
            "no SIGKILL left {what}: {killed_left:?}"
        );
    }
    // The next run of each kind, to completion.
    for kind in kinds {
        let status = cmd_for(kind).status().unwrap();
        assert!(status.code().is_some_and(|c| c <= 1), "{kind}: {status}");
    }
    assert_eq!(everything_left(&git_dir, tmp.path()), Vec::<String>::new());
}

/// Issue 12: the files Probity hands `ssh-keygen` (a signature to check,
/// `probity-sig-*`; a literal signing key's public half, `probity-key-*`)
/// are scratch artifacts under owner locks. A SIGTERM, SIGINT or SIGHUP while
/// `ssh-keygen` runs removes them before Probity ends (they used to stay:
/// the signal ended the process before any destructor ran); after a
/// SIGKILL the next run of the same kind removes them. Deterministic: a
/// stand-in `ssh-keygen` records its pid and sleeps, and the signal is
/// sent once the file and the stand-in both exist.
#[test]
fn ssh_keygen_scratch_files_go_on_interruption_and_after_sigkill() {
    let f = medium_change();
    let git_dir = f.root().join(".git");
    let inputs = tempfile::tempdir().unwrap();
    let lineage = string_at(
        &support::approve_live(f.root(), inputs.path()),
        "lineage_id",
    );
    let key = support::keygen(inputs.path(), "alice");
    f.git(&["config", "probity.signingKey", key.to_str().unwrap()])
        .unwrap();
    let signed = support::probity(f.root(), &["attest", "--lineage", &lineage, "--sign"]);
    assert_eq!(signed.code, 0, "{}", signed.stderr);
    let envelope = support::input(inputs.path(), "envelope.json", &signed.stdout);
    let list = support::allowed(inputs.path(), &[("alice@example.com", &key)]);
    // From here on the key is a literal one (its file is written for
    // ssh-keygen), so `attest --sign` makes `probity-key-*`.
    let literal = format!("key::{}", support::public(&key));
    f.git(&["config", "probity.signingKey", &literal]).unwrap();
    let marks = tempfile::tempdir().unwrap();
    let pid_file = marks.path().join("pid");
    let slow = marks.path().join("slow-ssh-keygen");
    probity_testkit::write_executable(
        &slow,
        format!(
            "#!/bin/sh\necho $$ > '{}.tmp' && mv '{0}.tmp' '{0}'\nexec sleep 60\n",
            pid_file.display()
        )
        .as_bytes(),
    )
    .unwrap();
    let failing = marks.path().join("failing-ssh-keygen");
    probity_testkit::write_executable(&failing, b"#!/bin/sh\nexit 1\n").unwrap();
    let verify = [
        "attest",
        "verify",
        "--envelope",
        envelope.as_str(),
        "--lineage",
        lineage.as_str(),
        "--allowed-signers",
        list.to_str().unwrap(),
    ];
    let sign = ["attest", "--lineage", lineage.as_str(), "--sign"];
    for (args, prefix) in [(&verify[..], "probity-sig-"), (&sign[..], "probity-key-")] {
        for signal in ["-TERM", "-INT", "-HUP", "-KILL"] {
            let tmp = tempfile::tempdir().unwrap();
            let _ = std::fs::remove_file(&pid_file);
            let mut cmd = in_tmp(f.root(), tmp.path(), args);
            cmd.env("PROBITY_SSH_KEYGEN", &slow);
            let status = signal_when(
                &mut cmd,
                || pid_file.exists() && !named(&git_dir, prefix).is_empty(),
                signal,
            );
            assert!(status.is_some(), "{prefix} {signal}: the run ended first");
            let shim: u32 = std::fs::read_to_string(&pid_file)
                .unwrap()
                .trim()
                .parse()
                .unwrap();
            // Whether the stand-in ended (a zombie holds nothing), waiting
            // up to 5 s for a signal on its way.
            let ended = || {
                (0..1000).any(|_| {
                    let gone = std::fs::read_to_string(format!("/proc/{shim}/stat"))
                        .map_or(true, |s| s.contains(") Z ") || s.contains(") X "));
                    if !gone {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    gone
                })
            };
            if signal == "-KILL" {
                // The orphaned stand-in holds the owner lock (inherited,
                // as a git child's is) until it ends: end it.
                let _ = Command::new("kill")
                    .args(["-KILL", &shim.to_string()])
                    .status();
                assert!(ended(), "{prefix}: the stand-in did not end");
                assert!(
                    !named(&git_dir, prefix).is_empty(),
                    "{prefix}: a SIGKILL left nothing to scavenge"
                );
                // The next run of the kind removes what the dead owner left
                // (before its own ssh-keygen fails).
                let mut next = in_tmp(f.root(), tmp.path(), args);
                next.env("PROBITY_SSH_KEYGEN", &failing);
                let st = next.status().unwrap();
                assert!(st.code().is_some(), "{prefix}: {st}");
            } else {
                // The signal stopped the stand-in too.
                assert!(ended(), "{prefix} {signal}: ssh-keygen outlived the run");
            }
            assert_eq!(
                named(&git_dir, prefix),
                Vec::<String>::new(),
                "{prefix} {signal}"
            );
            assert_eq!(named(tmp.path(), ""), Vec::<String>::new(), "{signal}");
        }
    }
}

/// Issue 12: the private directory `probity mcp --authority` writes a
/// submitted document to (`probity-mcp-*` in TMPDIR) is a scratch artifact:
/// what a killed server left (its owner gone) is removed by the next
/// server that writes one, and its own is gone when the call ends.
#[test]
fn an_mcp_document_directory_left_by_a_killed_server_is_scavenged() {
    use std::io::Write as _;
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    // What a SIGKILLed server leaves: the directory and its unheld lock.
    let dead = tmp.path().join("probity-mcp-dead");
    std::fs::create_dir(&dead).unwrap();
    std::fs::write(dead.join("result.json"), b"{}").unwrap();
    std::fs::write(tmp.path().join("probity-mcp-dead.owner"), b"").unwrap();
    let mut child = in_tmp(f.root(), tmp.path(), &["mcp", "--authority"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for v in [
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "probity-test", "version": "0"}}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "lens_submit",
                       "arguments": {"lens": "reliability", "result": {}}}}),
    ] {
        writeln!(stdin, "{v}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\"id\":2"), "{text}");
    assert_eq!(named(tmp.path(), ""), Vec::<String>::new());
}

/// The scratch notes ref `publish` writes the new notes into
/// (`refs/notes/probity-write-<random>`, adapters/git/src/notes.rs
/// `ScratchRef`, moved onto `refs/notes/probity` by compare-and-swap and
/// then deleted) is a temporary artifact like any other: a SIGTERM, SIGINT
/// or SIGHUP while it exists removes it before the run ends, and what a
/// SIGKILL left is removed by the next run. Nothing else may be left under
/// `refs/` (the git invariant: refs only under `refs/probity/` and
/// `refs/notes/probity`). Before the fix, `ScratchRef` was removed only by
/// its `Drop`, so every signalled publish left its scratch ref for good.
#[test]
fn a_signalled_publish_leaves_no_scratch_notes_ref() {
    let f = medium_change();
    let inputs = tempfile::tempdir().unwrap();
    let base = rev_parse(&f, "HEAD");
    support::approve_live(f.root(), inputs.path());
    f.commit_all("reviewed").unwrap();
    let range = format!("{base}..HEAD");
    let tmp = tempfile::tempdir().unwrap();
    let notes_dir = f.root().join(".git/refs/notes");
    let scratch_exists = || {
        std::fs::read_dir(&notes_dir)
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("probity-write-")
            })
    };
    let refs = || {
        let out = f
            .git(&["for-each-ref", "--format=%(refname)", "refs/"])
            .unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(String::from)
            .filter(|r| r != "refs/heads/main" && r != "refs/notes/probity")
            .collect::<Vec<_>>()
    };
    let publish = || in_tmp(f.root(), tmp.path(), &["publish", "--range", &range]);
    for signal in ["-TERM", "-INT", "-HUP", "-KILL"] {
        let mut caught = false;
        for _ in 0..40 {
            // Nothing published yet: this publish writes the note.
            let _ = f.git(&["update-ref", "-d", "refs/notes/probity"]);
            if signal_when(&mut publish(), scratch_exists, signal)
                .is_some_and(|s| s.code().is_none())
            {
                caught = true;
                break;
            }
        }
        assert!(
            caught,
            "{signal}: no publish was caught with its scratch ref"
        );
        if signal == "-KILL" {
            // The next run settles what the killed one left.
            let status = publish().status().unwrap();
            assert_eq!(status.code(), Some(0));
        }
        assert_eq!(refs(), Vec::<String>::new(), "{signal} left refs");
        // Nor the scratch ref's owner lock.
        let locks: Vec<String> = std::fs::read_dir(f.root().join(".git"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("probity-notes-"))
            .collect();
        assert_eq!(locks, Vec::<String>::new(), "{signal} left owner locks");
        // Nor its reflog.
        let logs: Vec<String> = std::fs::read_dir(f.root().join(".git/logs/refs/notes"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("probity-"))
            .collect();
        assert_eq!(logs, Vec::<String>::new(), "{signal} left a scratch reflog");
    }
}

/// An interrupted `probity demo` (SIGINT, SIGTERM) removes its scratch
/// repositories from `$TMPDIR`, with whatever its gits wrote there: the
/// `probity-demo-*` directory was never registered, so every interrupted
/// demo left a work tree and a bare remote behind.
#[test]
fn an_interrupted_demo_leaves_no_scratch_repository() {
    let cwd = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    support::signals::each_signal_leaves_nothing(
        || in_tmp(cwd.path(), tmp.path(), &["demo"]),
        || support::signals::names_starting(tmp.path(), "probity-demo-"),
        "the demo's repositories",
    );
}
