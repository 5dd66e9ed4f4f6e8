//! The server gate's input, installation and trust material, through a
//! bare remote with the hook (split from transport_cli.rs): malformed and
//! oversized hook input, install and uninstall, concurrent unreviewed
//! pushes, signatures and the allowed-signers file, stacks, rebases and
//! long stacks at the server.

mod support;

use std::path::Path;

use support::transport::*;
use support::*;

/// Alice's key as the signing key, and the approved change's envelope
/// signed with it (`envelope.json` among the inputs): (key, envelope).
fn signed_envelope(s: &Setup) -> (std::path::PathBuf, String) {
    let lineage = s.approve();
    let key = keygen(s.inputs.path(), "alice");
    s.f.git(&["config", "probity.signingKey", key.to_str().unwrap()])
        .unwrap();
    let signed = probity(s.f.root(), &["attest", "--lineage", &lineage, "--sign"]);
    assert_eq!(signed.code, 0, "{}", signed.stderr);
    let envelope = input(s.inputs.path(), "envelope.json", &signed.stdout);
    (key, envelope)
}

/// The arguments of `attest verify --envelope ENVELOPE --allowed-signers
/// SIGNERS`.
fn verify_args<'a>(envelope: &'a str, signers: &'a str) -> [&'a str; 6] {
    [
        "attest",
        "verify",
        "--envelope",
        envelope,
        "--allowed-signers",
        signers,
    ]
}

/// `n` empty commits of `tree` on `tip` (messages `PREFIX0`...): the new
/// tip.
fn empty_commits(s: &Setup, tree: &str, mut tip: String, n: usize, prefix: &str) -> String {
    for i in 0..n {
        let message = format!("{prefix}{i}");
        let out =
            s.f.git(&["commit-tree", tree, "-p", &tip, "-m", &message])
                .unwrap();
        tip = String::from_utf8(out).unwrap().trim().to_string();
    }
    tip
}

/// Two reviewed commits (`first SLICE`, then `src/lexer.rs` as `second
/// SLICE`): the tip.
fn reviewed_stack(s: &Setup, slice: &str) -> String {
    s.approve();
    s.f.commit_all(&format!("first {slice}")).unwrap();
    s.f.write("src/lexer.rs", "fn lex() {}\n").unwrap();
    s.approve();
    s.f.commit_all(&format!("second {slice}")).unwrap();
    s.rev("HEAD")
}

#[test]
fn malformed_hook_input_is_a_typed_error() {
    let s = Setup::new();
    let r = probity_stdin(
        &s.server,
        &["validate", "--gate", "pre-receive"],
        b"not three fields\n",
    );
    assert_eq!(r.code, 3, "{}", r.stdout);
    assert_eq!(r.json["error"]["code"], "bad_receive_input");
}

/// Regression (issue 12): pre-receive input over its 4 MiB bound
/// (`MAX_RECEIVE_BYTES`) is `input_too_large`, as the pre-push hook's
/// input and every other bounded input are (it was `bad_receive_input`).
#[test]
fn oversized_pre_receive_input_is_input_too_large() {
    let s = Setup::new();
    let line = format!("{} {} refs/heads/a\n", "1".repeat(40), "0".repeat(40));
    let flood = line.repeat(probity_core::review::MAX_RECEIVE_BYTES / line.len() + 1);
    let r = probity_stdin(
        &s.server,
        &["validate", "--gate", "pre-receive"],
        flood.as_bytes(),
    );
    assert_eq!(r.code, 3, "{}", r.stdout);
    assert_eq!(r.json["error"]["code"], "input_too_large", "{}", r.stdout);
}

#[test]
fn the_server_hook_install_is_idempotent_and_never_overwrites_a_foreign_hook() {
    let s = Setup::new();
    let again = probity_ok(&s.server, &["hooks", "install", "--server"]);
    assert_eq!(again.json["hooks"][0]["action"], "unchanged");
    let hook = s.server.join("hooks/pre-receive");
    let text = std::fs::read_to_string(&hook).unwrap();
    assert!(text.contains("validate --gate pre-receive"), "{text}");
    // The client hooks are not touched.
    assert!(!s.server.join("hooks/pre-push").exists());
    std::fs::write(&hook, "#!/bin/sh\nexit 0\n").unwrap();
    let r = probity(&s.server, &["hooks", "install", "--server"]);
    assert_eq!(r.code, 4);
    assert_eq!(r.json["error"]["code"], "hook_exists");
    assert_eq!(
        std::fs::read_to_string(&hook).unwrap(),
        "#!/bin/sh\nexit 0\n"
    );
}

/// D-R149: `hooks install --server` writes the `reference-transaction`
/// hook beside `pre-receive`; a foreign one of either is `hook_exists`
/// with neither written, and `uninstall --server` removes both.
#[test]
fn the_server_install_writes_both_hooks_or_neither() {
    let s = Setup::new();
    let hooks = s.server.join("hooks");
    let txn = hooks.join("reference-transaction");
    let installed = std::fs::read_to_string(&txn).unwrap();
    assert!(
        installed.contains("[ \"$1\" = prepared ] || exit 0")
            && installed.contains("validate reference-transaction \"$1\""),
        "{installed}"
    );
    let again = probity_ok(&s.server, &["hooks", "install", "--server"]);
    let names: Vec<&str> = again.json["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["hook"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["pre-receive", "reference-transaction"]);
    assert_eq!(again.json["hooks"][1]["action"], "unchanged");
    // A foreign reference-transaction hook: nothing written, pre-receive
    // included.
    let r = probity_ok(&s.server, &["hooks", "uninstall", "--server"]);
    assert_eq!(r.json["hooks"][1]["action"], "removed", "{}", r.stdout);
    assert!(!hooks.join("pre-receive").exists() && !txn.exists());
    std::fs::write(&txn, "#!/bin/sh\nexit 0\n").unwrap();
    let r = probity(&s.server, &["hooks", "install", "--server"]);
    assert_eq!(r.code, 4, "{}", r.stdout);
    assert_eq!(r.json["error"]["code"], "hook_exists");
    assert!(!hooks.join("pre-receive").exists());
    assert_eq!(
        std::fs::read_to_string(&txn).unwrap(),
        "#!/bin/sh\nexit 0\n"
    );
    let r = probity_ok(&s.server, &["hooks", "uninstall", "--server"]);
    assert_eq!(r.json["hooks"][1]["action"], "not_ours");
    std::fs::remove_file(&txn).unwrap();
    let r = probity_ok(&s.server, &["hooks", "install", "--server"]);
    assert_eq!(r.json["hooks"][0]["action"], "installed");
    assert_eq!(r.json["hooks"][1]["action"], "installed");
    assert_eq!(std::fs::read_to_string(&txn).unwrap(), installed);
}

/// `hooks uninstall --server` (R8.10): removes only Probity's own, unedited
/// pre-receive hook; an edited one and another's are kept byte for byte.
#[test]
fn the_server_hook_uninstall_removes_only_its_own_unedited_hook() {
    let s = Setup::new();
    let hook = s.server.join("hooks/pre-receive");
    // Edited after install: kept.
    let installed = std::fs::read_to_string(&hook).unwrap();
    let edited = installed.replace("exec ", "echo audit >&2\nexec ");
    std::fs::write(&hook, &edited).unwrap();
    let r = probity_ok(&s.server, &["hooks", "uninstall", "--server"]);
    assert_eq!(r.json["hooks"][0]["action"], "preserved_user_edits");
    assert_eq!(std::fs::read_to_string(&hook).unwrap(), edited);
    // Another's: kept.
    std::fs::write(&hook, "#!/bin/sh\nexit 0\n").unwrap();
    let r = probity(&s.server, &["hooks", "uninstall", "--server"]);
    assert_eq!(r.json["hooks"][0]["action"], "not_ours");
    assert_eq!(
        std::fs::read_to_string(&hook).unwrap(),
        "#!/bin/sh\nexit 0\n"
    );
    // Probity's, unedited: removed, and a second uninstall has nothing to do.
    std::fs::write(&hook, &installed).unwrap();
    let r = probity(&s.server, &["hooks", "uninstall", "--server"]);
    assert_eq!(r.json["hooks"][0]["action"], "removed", "{}", r.stdout);
    assert!(!hook.exists());
    let r = probity(&s.server, &["hooks", "uninstall", "--server"]);
    assert_eq!(r.json["hooks"][0]["action"], "nothing");
}

#[test]
fn concurrent_unreviewed_pushes_from_two_clones_are_each_denied() {
    let s = Setup::new();
    let (_da, a) = s.clone_server();
    let (_db, b) = s.clone_server();
    for (clone, name) in [(&a, "a.rs"), (&b, "b.rs")] {
        std::fs::write(clone.join(name), "fn x() {}\n").unwrap();
        s.f.git_in(clone, &["add", "-A"]).unwrap();
        s.f.git_in(clone, &["commit", "-q", "-m", "unreviewed"])
            .unwrap();
    }
    let before = s.server_rev("main");
    let results: Vec<Result<(), String>> = std::thread::scope(|scope| {
        let ha = scope.spawn(|| push_in(&s.f, &a, &["origin", "main"]));
        let hb = scope.spawn(|| push_in(&s.f, &b, &["origin", "main"]));
        vec![ha.join().unwrap(), hb.join().unwrap()]
    });
    for r in results {
        let err = r.unwrap_err();
        assert!(err.contains("receipt_missing"), "{err}");
    }
    assert_eq!(s.server_rev("main"), before);
}

/// `probity.requireSignature` on the server: an unsigned review is no
/// authority (`signature_missing`), a review signed by a key the server's
/// allowed-signers file does not list is `signer_not_allowed`, and once
/// `probity attest --sign` by a listed key has added its envelope to the
/// lineage, `probity push` carries it in the note and the server allows
/// (the unsigned bundle published before it stays in the append-only
/// notes, and is simply no authority).
#[test]
fn a_server_that_requires_signatures_allows_only_a_listed_signer() {
    let s = Setup::new();
    let keys = tempfile::tempdir().unwrap();
    let alice = keygen(keys.path(), "alice");
    let mallory = keygen(keys.path(), "mallory");
    let signers = allowed(keys.path(), &[("alice@example.invalid", &alice)]);
    require_signatures(&s.f, &s.server, &signers);
    let lineage = s.approve();
    s.f.commit_all("reviewed").unwrap();
    let tip = s.rev("HEAD");
    probity_ok(s.f.root(), &["publish"]);
    let err = s
        .push(&["--atomic", "origin", "main", "refs/notes/probity"])
        .unwrap_err();
    assert!(err.contains("signature_missing"), "{err}");
    assert!(
        err.contains(&format!("probity attest --lineage {lineage} --sign")),
        "{err}"
    );
    assert_ne!(s.server_rev("main"), Some(tip.clone()));

    // Signed, but by a key the server does not list.
    let sign = |key: &std::path::Path| {
        s.f.git(&["config", "probity.signingKey", key.to_str().unwrap()])
            .unwrap();
        output_ok(
            std::process::Command::new(env!("CARGO_BIN_EXE_probity"))
                .args(["--cwd", s.f.root().to_str().unwrap()])
                .args(["attest", "--lineage", &lineage, "--sign"])
                .env("HOME", keys.path()),
        );
        probity_ok(s.f.root(), &["publish"]);
    };
    sign(&mallory);
    let err = s
        .push(&["--atomic", "origin", "main", "refs/notes/probity"])
        .unwrap_err();
    assert!(err.contains("signer_not_allowed"), "{err}");
    // The pusher is not shown the server's allowed-signers path.
    assert!(!err.contains(signers.to_str().unwrap()), "{err}");
    assert_ne!(s.server_rev("main"), Some(tip.clone()));

    // Signed by alice too: allowed, with the two older bundles (unsigned,
    // and carrying mallory's envelope only) still in the note.
    sign(&alice);
    let lines = note(&s.f, s.f.root(), &tip).unwrap();
    assert_eq!(
        lines
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .count(),
        3
    );
    s.push(&["--atomic", "origin", "main", "refs/notes/probity"])
        .unwrap();
    assert_eq!(s.server_rev("main"), Some(tip));
}

/// Reviewed work the server allows, as the local gates judge it: a stack
/// of two reviewed commits pushed at once, each with its note.
#[test]
fn the_server_allows_a_reviewed_stack() {
    let s = Setup::new();
    let tip = reviewed_stack(&s, "reviewed slice");
    probity_ok(s.f.root(), &["push", "origin", "main"]);
    assert_eq!(s.server_rev("main"), Some(tip));
}

/// A commit rebased onto reviewed upstream work that touches none of its
/// paths: the server allows it by the rebase proof, checked against the
/// trees the review froze (they travel inside the notes history, anchored
/// by publish, since the rebased commit no longer contains them; no other
/// ref is pushed).
#[test]
fn the_server_allows_a_delivery_rebased_onto_reviewed_upstream_work() {
    let s = Setup::new();
    let lineage = s.approve();
    s.f.commit_all("reviewed here").unwrap();
    // The tree the review froze: after the rebase no commit holds it.
    let frozen = s.rev("HEAD^{tree}");
    // Meanwhile another clone lands reviewed work on another path.
    let (_d, b) = s.clone_server();
    transport::land_reviewed_upstream(&s.f, &b, s.inputs.path());
    // Here: rebase onto it, then push with the review's notes and trees.
    s.f.git(&["pull", "-q", "--rebase", "origin", "main"])
        .unwrap();
    let tip = s.rev("HEAD");
    probity_ok(s.f.root(), &["push", "origin", "main"]);
    assert_eq!(s.server_rev("main"), Some(tip.clone()));
    // The note on the rebased commit names the review; the server holds
    // the trees it froze.
    let n = note(&s.f, &s.server, &tip).unwrap();
    assert!(String::from_utf8_lossy(&n).contains(&lineage));
    let objects = s.server.to_str().unwrap();
    assert!(
        s.f.git(&[
            "--git-dir",
            objects,
            "cat-file",
            "-e",
            &format!("{frozen}^{{tree}}")
        ])
        .is_ok(),
        "the server holds the review's candidate tree {frozen}"
    );
    let refs =
        s.f.git(&["--git-dir", objects, "for-each-ref", "refs/probity/"])
            .unwrap();
    assert!(refs.is_empty(), "{}", String::from_utf8_lossy(&refs));
}

/// A FIFO or a device given as a bundle or an envelope is refused at once
/// (a FIFO used to block the import forever), nothing written.
#[test]
fn a_non_regular_bundle_or_envelope_is_refused_at_once() {
    let s = Setup::new();
    let fifo = s.inputs.path().join("fifo");
    fifo::mkfifo(&fifo);
    let before = store_snapshot(&s.f);
    for path in [fifo.to_str().unwrap(), "/dev/zero"] {
        let i = probity(s.f.root(), &["bundle", "import", path]);
        i.assert_refused(3, "input_not_regular");
        let v = probity(s.f.root(), &["attest", "verify", "--envelope", path]);
        v.assert_refused(3, "input_not_regular");
    }
    assert!(store_snapshot(&s.f) == before, "the store changed");
}

/// Regression (issue 12): an allowed-signers file (`--allowed-signers` or
/// `probity.allowedSignersFile`) that is a FIFO blocked `attest verify`
/// forever, a directory or a device answered a misleading "does not allow"
/// denial, and an oversized one went to `ssh-keygen` whole. Each is now a
/// typed error (exit 3) before `ssh-keygen` runs at all.
#[test]
fn a_non_regular_or_oversized_allowed_signers_file_is_refused_before_ssh_keygen() {
    let s = Setup::new();
    let (key, envelope) = signed_envelope(&s);
    // A real file of this key verifies (the path the refusals leave).
    let good = allowed(s.inputs.path(), &[("alice@example.com", &key)]);
    probity_ok(s.f.root(), &verify_args(&envelope, good.to_str().unwrap()));

    let fifo = s.inputs.path().join("signers.fifo");
    fifo::mkfifo(&fifo);
    let dir = s.inputs.path().join("signers.d");
    std::fs::create_dir(&dir).unwrap();
    let big = s.inputs.path().join("big_signers");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(probity_git::sign::MAX_ALLOWED_SIGNERS_BYTES + 1)
        .unwrap();
    // A stand-in ssh-keygen that leaves a mark: it must never run.
    let shim = s.inputs.path().join("ssh-keygen-shim");
    let ran = s.inputs.path().join("ssh-keygen-ran");
    probity_testkit::write_executable(
        &shim,
        format!("#!/bin/sh\ntouch '{}'\nexit 0\n", ran.display()).as_bytes(),
    )
    .unwrap();
    let env = [("PROBITY_SSH_KEYGEN", shim.to_str().unwrap())];
    for (path, code) in [
        (fifo.as_path(), "input_not_regular"),
        (dir.as_path(), "input_not_regular"),
        (Path::new("/dev/null"), "input_not_regular"),
        (big.as_path(), "input_too_large"),
    ] {
        let p = path.to_str().unwrap();
        // The flag, then the configuration.
        let by_flag = probity_bounded(s.f.root(), &verify_args(&envelope, p), &env, 30);
        s.f.git(&["config", "probity.allowedSignersFile", p])
            .unwrap();
        let by_config = probity_bounded(
            s.f.root(),
            &["attest", "verify", "--envelope", &envelope],
            &env,
            30,
        );
        for r in [by_flag, by_config] {
            assert_eq!(r.code, 3, "{p}: {}{}", r.stdout, r.stderr);
            assert_eq!(r.json["error"]["code"], code, "{p}: {}", r.stdout);
            assert!(!ran.exists(), "{p}: ssh-keygen ran");
        }
    }
}

/// `ssh-keygen` reads the allowed-signers file as it was checked, from a
/// private scratch copy: the user's path is opened once, by the bounded
/// reader, so swapping it for a FIFO after the check cannot make the run
/// block (found by audit: ssh-keygen opened the user's path itself). A
/// recording stand-in shows what each run was handed, then runs the real
/// ssh-keygen, and verification still succeeds.
#[test]
fn ssh_keygen_reads_a_checked_copy_of_the_allowed_signers_file() {
    let s = Setup::new();
    let (key, envelope) = signed_envelope(&s);
    let good = allowed(s.inputs.path(), &[("alice@example.com", &key)]);
    let log = s.inputs.path().join("handed");
    let shim = s.inputs.path().join("ssh-keygen-recorder");
    probity_testkit::write_executable(
        &shim,
        format!(
            "#!/bin/sh\nprev=\nfor a in \"$@\"; do\n  if [ \"$prev\" = -f ] && [ -f \"$a\" ] && grep -q alice@example.com \"$a\"; then\n    printf '%s\\n' \"$a\" >> '{log}'\n    cat \"$a\" >> '{log}.bytes'\n  fi\n  prev=$a\ndone\nexec ssh-keygen \"$@\"\n",
            log = log.display()
        )
        .as_bytes(),
    )
    .unwrap();
    let env = [("PROBITY_SSH_KEYGEN", shim.to_str().unwrap())];
    let ok = probity_bounded(
        s.f.root(),
        &verify_args(&envelope, good.to_str().unwrap()),
        &env,
        60,
    );
    assert_eq!(ok.code, 0, "{}{}", ok.stdout, ok.stderr);
    let handed = std::fs::read_to_string(&log).unwrap();
    let paths: Vec<&str> = handed.lines().collect();
    assert!(!paths.is_empty(), "ssh-keygen was handed the file");
    for p in &paths {
        assert_ne!(*p, good.to_str().unwrap(), "the user's own path");
        assert!(
            Path::new(p)
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("probity-allowed-")),
            "{p}"
        );
        assert!(!Path::new(p).exists(), "{p} is removed after the run");
    }
    let original = std::fs::read_to_string(&good).unwrap();
    assert_eq!(
        std::fs::read_to_string(format!("{}.bytes", log.display())).unwrap(),
        original.repeat(paths.len()),
        "each copy holds the checked bytes"
    );
}

/// A reviewed stack pushed without its notes is warned about too (a
/// stack's report names no single lineage, which used to hide it).
#[test]
fn the_pre_push_hook_warns_for_a_stack_pushed_without_its_notes() {
    let s = Setup::new();
    let tip = reviewed_stack(&s, "slice");
    let base = s.rev("HEAD~2");
    let line = format!("refs/heads/main {tip} refs/heads/main {base}\n");
    let (code, err) = hook_gate(s.f.root(), &line);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("is not pushed"), "{err}");
    assert!(err.contains(&tip), "{err}");
}

/// The server judges a stack with the same bound as every other gate
/// (1,000 commits): 300 commits that change no bytes are a delivery, not
/// "too large" (the server once stopped at 256 with a dead-end next step).
#[test]
fn the_server_judges_long_stacks_with_the_gate_bound() {
    let s = Setup::new();
    let head = s.rev("HEAD");
    let tree = s.rev("HEAD^{tree}");
    let tip = empty_commits(&s, &tree, head, 300, "e");
    s.f.git(&["update-ref", "refs/heads/main", &tip]).unwrap();
    s.push(&["origin", "main"]).unwrap();
    assert_eq!(s.server_rev("main").as_deref(), Some(tip.as_str()));

    // Past the bound: the gate's own denial and a next step that fits it.
    let tip = empty_commits(&s, &tree, tip, 1001, "f");
    s.f.git(&["update-ref", "refs/heads/main", &tip]).unwrap();
    let err = s.push(&["origin", "main"]).unwrap_err();
    assert!(err.contains("DENY: delivery_too_large"), "{err}");
    assert!(err.contains("push the stack in parts"), "{err}");
    assert!(!err.contains("republish"), "{err}");
}
