//! Red team round 6, finding 2 (round 8, 05: on demand): a push without
//! `--atomic` whose notes update loses a race after the hook allowed it.
//! Git applies each ref of such a push in a transaction of its own, so the
//! protected branch moved and the notes it was judged with never landed.
//! The `reference-transaction` hook `hooks install --server` writes beside
//! `pre-receive` refuses a protected update the judgment allowed unless the
//! notes it was judged with are in place, or in the same transaction
//! (D-R149). On a real bare remote with the server hooks; the legitimate
//! flows beside it (an atomic push, notes pushed first, a plain push of a
//! branch whose notes the server holds) land.

mod support;

use std::path::Path;

use probity_git::fixture::Fixture;
use support::*;

/// `git push --no-verify <args>` (no client hook): Ok, or Err(git's
/// output, the server's words included).
fn push(f: &Fixture, args: &[&str]) -> Result<(), String> {
    let mut all = vec!["push", "--no-verify"];
    all.extend_from_slice(args);
    f.git(&all).map(|_| ()).map_err(|e| e.to_string())
}

/// The change in the worktree, reviewed, committed on `main` and
/// published to this clone's notes, merged with the server's so they
/// fast-forward: what an agent holds before pushing. Returns the commit.
fn reviewed_and_published(f: &Fixture, inputs: &Path) -> String {
    approve_live(f.root(), inputs);
    let c = commit_all(f, "the reviewed change");
    probity_ok(f.root(), &["publish"]);
    merge_remote_notes(f);
    c
}

/// A second pusher's notes, on the server under `refs/racer/notes` (an
/// unprotected ref): a fast-forward of the server's notes adding one note
/// on an id no commit has. Returns its commit.
fn racers_notes(f: &Fixture, server: &Path) -> String {
    let (_d, racer) = clone_as(f, server, "racer");
    let _ = f.git_in(
        &racer,
        &[
            "fetch",
            "-q",
            "origin",
            "+refs/notes/probity:refs/notes/probity",
        ],
    );
    let junk = "f0".repeat(20);
    f.git_in(
        &racer,
        &["notes", "--ref=probity", "add", "-f", "-m", "x", &junk],
    )
    .unwrap();
    f.git_in(
        &racer,
        &[
            "push",
            "-q",
            "--no-verify",
            "origin",
            "refs/notes/probity:refs/racer/notes",
        ],
    )
    .unwrap();
    rev(f, server, "refs/racer/notes").unwrap()
}

/// Puts the race on the server deterministically: `pre-receive` becomes a
/// wrapper that runs Probity's (moved beside it) on the same stdin and,
/// once it allowed the push, moves `refs/notes/probity` to `racer`, as a
/// second pusher's notes-only push landing between the judgment and the ref
/// updates would. Probity's hook then runs below a shell, not as git's own
/// child.
fn race_after_judgment(server: &Path, racer: &str) {
    after_judgment(
        server,
        &format!(
            "env -u GIT_QUARANTINE_PATH -u GIT_OBJECT_DIRECTORY -u GIT_ALTERNATE_OBJECT_DIRECTORIES \
             git update-ref refs/notes/probity {racer}"
        ),
    );
}

/// `pre-receive` becomes a wrapper that runs Probity's (moved beside it,
/// `pre-receive.probity`) on the same stdin and, once it allowed the push,
/// runs the shell line `then` in the repository.
fn after_judgment(server: &Path, then: &str) {
    let hooks = server.join("hooks");
    std::fs::rename(hooks.join("pre-receive"), hooks.join("pre-receive.probity")).unwrap();
    let wrapper = format!(
        "#!/bin/sh\nin=$(cat)\nprintf '%s\\n' \"$in\" | \"$(dirname \"$0\")/pre-receive.probity\" || exit 1\n{then}\n"
    );
    probity_testkit::write_executable(&hooks.join("pre-receive"), wrapper.as_bytes()).unwrap();
}

/// The attack: the agent pushes `main` and its notes without `--atomic`
/// while a second pusher's notes land between the hook's judgment and the
/// ref updates. The notes update fails (its old value moved); `main` is
/// refused at its own transaction, `notes_not_in_place`, naming the next
/// step. Nothing of the push lands: the server's notes are the racer's.
/// Then the next step (merge the server's notes, `--atomic`) lands.
#[test]
fn a_push_without_atomic_whose_notes_lose_the_race_does_not_land() {
    let (f, _dir, server) = hooked_origin();
    let inputs = tempfile::tempdir().unwrap();
    let main_before = rev(&f, &server, "main");
    let racer = racers_notes(&f, &server);
    write_medium_change(&f);
    let delivered = reviewed_and_published(&f, inputs.path());
    race_after_judgment(&server, &racer);
    let err = push(&f, &["origin", "main", "refs/notes/probity"]).unwrap_err();
    assert_eq!(rev(&f, &server, "main"), main_before, "{err}");
    assert_eq!(
        rev(&f, &server, "refs/notes/probity").as_deref(),
        Some(racer.as_str())
    );
    assert!(err.contains("notes_not_in_place"), "{err}");
    assert!(err.contains("--atomic"), "{err}");
    // The next step: the server's notes merged, one atomic push.
    let hooks = server.join("hooks");
    std::fs::rename(hooks.join("pre-receive.probity"), hooks.join("pre-receive")).unwrap();
    f.git(&[
        "fetch",
        "-q",
        "origin",
        "+refs/notes/probity:refs/notes/probity-remote",
    ])
    .unwrap();
    merge_notes(&f, "refs/notes/probity-remote");
    push(&f, &["--atomic", "origin", "main", "refs/notes/probity"]).unwrap();
    assert_eq!(rev(&f, &server, "main"), Some(delivered.clone()));
    let named = f
        .git_in(&server, &["notes", "--ref=probity", "show", &delivered])
        .unwrap();
    assert!(!named.is_empty());
}

/// The same race with `--atomic`: one transaction, whose notes update
/// fails on its old value, so neither ref moves (git's own rule, kept).
#[test]
fn an_atomic_push_that_loses_the_race_lands_nothing() {
    let (f, _dir, server) = hooked_origin();
    let inputs = tempfile::tempdir().unwrap();
    let main_before = rev(&f, &server, "main");
    let racer = racers_notes(&f, &server);
    write_medium_change(&f);
    reviewed_and_published(&f, inputs.path());
    race_after_judgment(&server, &racer);
    push(&f, &["--atomic", "origin", "main", "refs/notes/probity"]).unwrap_err();
    assert_eq!(rev(&f, &server, "main"), main_before);
    assert_eq!(rev(&f, &server, "refs/notes/probity"), Some(racer));
}

/// Without a race, a push without `--atomic` that brings its notes after
/// the protected branch (git sends them in the order the server lists its
/// refs, so `refs/heads/main` first) is refused at `main`'s transaction,
/// the next step named, nothing landed; `--atomic` lands. A branch whose
/// notes the server already holds (pushed first, alone) lands with a plain
/// push, as does `probity push`.
#[test]
fn pushes_that_bring_their_notes_land_atomically_or_notes_first() {
    let (f, _dir, server) = hooked_origin();
    let inputs = tempfile::tempdir().unwrap();
    let main_before = rev(&f, &server, "main");
    let notes_before = rev(&f, &server, "refs/notes/probity");
    write_medium_change(&f);
    let first = reviewed_and_published(&f, inputs.path());
    let err = push(&f, &["origin", "main", "refs/notes/probity"]).unwrap_err();
    assert!(err.contains("notes_not_in_place"), "{err}");
    assert!(err.contains("git push --atomic"), "{err}");
    assert!(err.contains("probity push"), "{err}");
    assert_eq!(rev(&f, &server, "main"), main_before);
    assert_eq!(rev(&f, &server, "refs/notes/probity"), notes_before);
    push(&f, &["--atomic", "origin", "main", "refs/notes/probity"]).unwrap();
    assert_eq!(rev(&f, &server, "main"), Some(first));
    // Notes first, alone; then the branch with a plain push.
    f.write("src/parser.rs", "// parser\nfn parse() {}\nfn again() {}\n")
        .unwrap();
    let second = reviewed_and_published(&f, inputs.path());
    push(&f, &["origin", "refs/notes/probity"]).unwrap();
    push(&f, &["origin", "main"]).unwrap();
    assert_eq!(rev(&f, &server, "main"), Some(second));
    // And `probity push`, which pushes atomically.
    f.write("src/parser.rs", "// parser\nfn parse() {}\nfn third() {}\n")
        .unwrap();
    approve_live(f.root(), inputs.path());
    let third = commit_all(&f, "the third change");
    probity_ok(f.root(), &["push", "origin", "main"]);
    assert_eq!(rev(&f, &server, "main"), Some(third));
}

/// The record the gate leaves for its push's transactions, damaged
/// between the two hooks (as a full disk or another process could): the
/// transaction hook fails closed, the pusher is told the server is at
/// fault without its paths, the detail goes to `probity-server.log`, and
/// nothing of the atomic push lands.
#[test]
fn a_damaged_record_refuses_the_push_as_the_servers_fault() {
    let (f, _dir, server) = hooked_origin();
    let inputs = tempfile::tempdir().unwrap();
    let main_before = rev(&f, &server, "main");
    after_judgment(
        &server,
        "for r in probity-receive/*; do echo junk > \"$r\"; done",
    );
    write_medium_change(&f);
    reviewed_and_published(&f, inputs.path());
    let err = push(&f, &["--atomic", "origin", "main", "refs/notes/probity"]).unwrap_err();
    assert!(err.contains("server_misconfigured"), "{err}");
    assert!(!err.contains(server.to_str().unwrap()), "{err}");
    assert_eq!(rev(&f, &server, "main"), main_before);
    assert_eq!(rev(&f, &server, "refs/notes/probity"), None);
    let log = std::fs::read_to_string(server.join("probity-server.log")).unwrap();
    assert!(log.contains("judged-notes record"), "{log}");
}

/// Run by hand, under no `receive-pack`, the transaction hook passes
/// whatever it is given and writes nothing; every state but `prepared`
/// passes unread; the state is required.
#[test]
fn the_transaction_hook_outside_a_push_passes_and_writes_nothing() {
    let (f, _dir, server) = hooked_origin();
    let _ = &f;
    let listing = |p: &Path| {
        let mut v: Vec<String> = std::fs::read_dir(p)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let before = listing(&server);
    for state in ["prepared", "committed", "aborted", "preparing"] {
        let r = probity_stdin(
            &server,
            &["validate", "reference-transaction", state],
            b"not three fields\n",
        );
        assert_eq!(r.code, 0, "{state}: {}{}", r.stdout, r.stderr);
    }
    assert_eq!(listing(&server), before);
    let r = probity(&server, &["validate", "reference-transaction"]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert_eq!(r.json["error"]["code"], "usage");
}

/// A ref that would block the notes ref (git refuses a ref where another's
/// name continues below it): in a push git applies update by update, the
/// notes creation would fail beside it while a protected ref landed. The
/// hook refuses creating one, `notes_ref_blocked`, nothing moves; the
/// notes are then created as usual.
#[test]
fn a_ref_that_would_block_the_notes_ref_is_refused() {
    let (f, _dir, server) = hooked_origin();
    let inputs = tempfile::tempdir().unwrap();
    let listing = |f: &Fixture| f.git_in(&server, &["for-each-ref"]).unwrap();
    let before = listing(&f);
    for blocker in ["HEAD:refs/notes/probity/x", "HEAD:refs/notes"] {
        let err = push(&f, &["origin", blocker]).unwrap_err();
        assert!(err.contains("notes_ref_blocked"), "{blocker}: {err}");
        assert!(err.contains("under another name"), "{err}");
        assert_eq!(listing(&f), before, "{blocker}");
    }
    write_medium_change(&f);
    let delivered = reviewed_and_published(&f, inputs.path());
    push(&f, &["--atomic", "origin", "main", "refs/notes/probity"]).unwrap();
    assert_eq!(rev(&f, &server, "main"), Some(delivered));
}

/// Red team round 9, 02: the racer's notes descend from the push's own
/// notes commit N but drop its note (a child of N whose tree is the
/// server's old notes tree: a fast-forward of the server's tip that keeps
/// every line the server holds, so its own push is allowed). A notes tip
/// descending from N need not hold N's notes: the judged update lands only
/// with the notes ref at N itself, or set to N in the same transaction.
#[test]
fn notes_that_descend_from_the_pushs_own_but_drop_its_note_do_not_count() {
    let (f, _dir, server) = hooked_origin();
    let inputs = tempfile::tempdir().unwrap();
    let main_before = rev(&f, &server, "main");
    write_medium_change(&f);
    let delivered = reviewed_and_published(&f, inputs.path());
    let n = rev(&f, f.root(), "refs/notes/probity").unwrap();
    let base = rev(&f, &server, "refs/notes/probity");
    // N': N's child with the server's old notes tree (none yet: empty).
    let tree = match &base {
        Some(b) => format!("{b}^{{tree}}"),
        None => String::from_utf8(f.git(&["mktree"]).unwrap())
            .unwrap()
            .trim()
            .to_string(),
    };
    let dropped = String::from_utf8(
        f.git(&["commit-tree", &tree, "-p", &n, "-m", "drop"])
            .unwrap(),
    )
    .unwrap()
    .trim()
    .to_string();
    push(&f, &["origin", &format!("{dropped}:refs/racer/notes")]).unwrap();
    race_after_judgment(&server, &dropped);
    let err = push(&f, &["origin", "main", "refs/notes/probity"]).unwrap_err();
    assert!(err.contains("notes_not_in_place"), "{err}");
    assert_eq!(rev(&f, &server, "main"), main_before);
    let named = f.git_in(
        &server,
        &["grep", "-l", "-F", &delivered, "refs/notes/probity", "--"],
    );
    assert!(named.is_err() || named.unwrap().is_empty());
}

/// A pkt-line of `data` (git's protocol framing: four hex digits of the
/// whole length, then the bytes).
fn pkt(data: &str) -> Vec<u8> {
    let mut out = format!("{:04x}", data.len() + 4).into_bytes();
    out.extend_from_slice(data.as_bytes());
    out
}

/// A hand-written push client, as any pusher can run: `git receive-pack
/// SERVER` fed exactly `commands` (`old new ref`, full ids), in order and
/// duplicates included (git's own client never sends a ref twice), then a
/// pack of `revs` from `f`. Returns receive-pack's report and stderr.
fn raw_push(f: &Fixture, server: &Path, commands: &[String], revs: &str) -> String {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let mut pack = Command::new("git")
        .args(["pack-objects", "--stdout", "--revs", "-q"])
        .current_dir(f.root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    pack.stdin
        .take()
        .unwrap()
        .write_all(revs.as_bytes())
        .unwrap();
    let pack = pack.wait_with_output().unwrap().stdout;
    let mut input = Vec::new();
    for (i, c) in commands.iter().enumerate() {
        let caps = if i == 0 { "\0report-status" } else { "" };
        input.extend(pkt(&format!("{c}{caps}\n")));
    }
    input.extend_from_slice(b"0000");
    input.extend(pack);
    let mut rp = Command::new("git")
        .arg("receive-pack")
        .arg(server)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    rp.stdin.take().unwrap().write_all(&input).unwrap();
    let out = rp.wait_with_output().unwrap();
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Red team round 10, 01: a push naming `refs/notes/probity` twice, from a
/// hand-written client, without `--atomic`: the notes to N (judged), the
/// reviewed `main`, then the notes deleted. The notes rules and the
/// judgment read the first update only, and git applies each in order, so
/// `main` landed and the notes were gone. A push naming a ref twice is now
/// refused whole at `pre-receive`; nothing moves.
#[test]
fn a_push_naming_a_ref_twice_is_refused_whole() {
    let (f, _dir, server) = hooked_origin();
    let inputs = tempfile::tempdir().unwrap();
    // A first delivery, so the server holds notes O.
    write_medium_change(&f);
    approve_live(f.root(), inputs.path());
    commit_all(&f, "the first change");
    probity_ok(f.root(), &["push", "origin", "main"]);
    let (x, o) = (
        rev(&f, &server, "main").unwrap(),
        rev(&f, &server, "refs/notes/probity").unwrap(),
    );
    f.write("src/parser.rs", "// parser\nfn parse() {}\nfn again() {}\n")
        .unwrap();
    let y = reviewed_and_published(&f, inputs.path());
    let n = rev(&f, f.root(), "refs/notes/probity").unwrap();
    let zeros = "0".repeat(40);
    let commands = [
        format!("{o} {n} refs/notes/probity"),
        format!("{x} {y} refs/heads/main"),
        format!("{n} {zeros} refs/notes/probity"),
    ];
    let out = raw_push(&f, &server, &commands, &format!("{y}\n{n}\n^{x}\n^{o}\n"));
    assert!(out.contains("bad_receive_input"), "{out}");
    assert!(out.contains("refs/notes/probity"), "{out}");
    assert_eq!(rev(&f, &server, "main"), Some(x), "{out}");
    assert_eq!(
        rev(&f, &server, "refs/notes/probity"),
        Some(o.clone()),
        "{out}"
    );
    // The same with no protected ref: the notes cannot be deleted so.
    let commands = [
        format!("{o} {o} refs/notes/probity"),
        format!("{o} {zeros} refs/notes/probity"),
    ];
    let out = raw_push(&f, &server, &commands, "");
    assert!(out.contains("bad_receive_input"), "{out}");
    assert!(rev(&f, &server, "refs/notes/probity").is_some(), "{out}");
}

/// The gate cannot write its record (a file stands where its directory
/// goes: a full disk or a broken permission answers the same): the push is
/// refused as the server's fault, without the server's paths, nothing
/// moves, and the detail is in `probity-server.log`. Once the
/// administrator clears it, the same push lands.
#[test]
fn a_record_that_cannot_be_written_refuses_the_push_as_the_servers_fault() {
    let (f, _dir, server) = hooked_origin();
    let inputs = tempfile::tempdir().unwrap();
    let main_before = rev(&f, &server, "main");
    let blocker = server.join("probity-receive");
    std::fs::write(&blocker, b"not a directory").unwrap();
    write_medium_change(&f);
    let delivered = reviewed_and_published(&f, inputs.path());
    let err = push(&f, &["--atomic", "origin", "main", "refs/notes/probity"]).unwrap_err();
    assert!(err.contains("server_misconfigured"), "{err}");
    // The server's words (git's own `To <url>` line names the remote).
    let said: String = err.lines().filter(|l| l.starts_with("remote:")).collect();
    assert!(!said.contains(server.to_str().unwrap()), "{err}");
    assert_eq!(rev(&f, &server, "main"), main_before);
    assert_eq!(rev(&f, &server, "refs/notes/probity"), None);
    let log = std::fs::read_to_string(server.join("probity-server.log")).unwrap();
    assert!(log.contains("probity-receive"), "{log}");
    std::fs::remove_file(&blocker).unwrap();
    push(&f, &["--atomic", "origin", "main", "refs/notes/probity"]).unwrap();
    assert_eq!(rev(&f, &server, "main"), Some(delivered));
}
