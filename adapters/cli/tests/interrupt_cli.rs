//! Clean interruption (issue 12): a run killed at any moment (Ctrl-C of a
//! hook, SIGTERM, SIGKILL) used to leave a full copy of the Git index in
//! the git dir every time (hundreds of them, hundreds of MB). Every such
//! copy is now held under an owner lock, and the next run removes what a
//! dead owner left, never what a live one holds; a run ended by SIGINT,
//! SIGTERM or SIGHUP removes its own before it goes.

mod support;

use std::process::{Command, Stdio};
use std::time::Duration;

use support::{isolated, medium_change};

fn leftovers(git_dir: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(git_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("probity-index-"))
        .collect();
    v.sort();
    v
}

/// A repository whose index is large enough (3,000 files) that a gate's
/// copy of it lives for a moment a test can catch.
fn large_change() -> probity_git::fixture::Fixture {
    let f = support::parser_base();
    for d in 0..30 {
        for i in 0..100 {
            f.write(&format!("d{d}/f{i}.txt"), format!("{d}/{i}\n"))
                .unwrap();
        }
    }
    f.commit_all("many files").unwrap();
    support::write_medium_change(&f);
    f
}

fn gate(cwd: &std::path::Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_probity"));
    isolated(&mut cmd)
        .args(["--cwd", cwd.to_str().unwrap()])
        .args(["validate", "--gate", "pre-commit"])
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

#[test]
fn runs_killed_at_any_moment_leave_nothing_after_the_next_run() {
    let f = medium_change();
    let git_dir = f.root().join(".git");
    // Kill runs at staggered moments, with SIGKILL (no destructor runs).
    for i in 0..24u64 {
        let mut child = gate(f.root()).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(i % 8 * 3));
        let _ = child.kill();
        let _ = child.wait();
    }
    let status = gate(f.root()).status().unwrap();
    assert!(status.code().is_some());
    assert_eq!(leftovers(&git_dir), Vec::<String>::new());
}

/// SIGTERM (or Ctrl-C, or SIGHUP) while the gate's index copy exists: the
/// run stops its git child, removes the copy and its owner lock, and ends by
/// the signal; nothing is left for a next run to find.
#[test]
fn a_signalled_run_removes_its_index_copy_before_it_ends() {
    use std::os::unix::process::ExitStatusExt;
    let f = large_change();
    let git_dir = f.root().join(".git");
    let mut caught = 0;
    for _ in 0..40 {
        let mut child = gate(f.root()).spawn().unwrap();
        // Wait for the copy to appear, then signal Probity alone (not its
        // group: its git child must be stopped by Probity itself).
        let mut seen = false;
        while child.try_wait().unwrap().is_none() {
            if !leftovers(&git_dir).is_empty() {
                seen = true;
                break;
            }
            std::thread::yield_now();
        }
        if !seen {
            let _ = child.wait();
            continue;
        }
        let sent = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let status = child.wait().unwrap();
        if status.signal() == Some(15) {
            caught += 1;
            assert_eq!(
                leftovers(&git_dir),
                Vec::<String>::new(),
                "an interrupted run leaves nothing, at once"
            );
        }
        if caught >= 5 {
            break;
        }
    }
    assert!(caught > 0, "no run was caught while its index copy existed");
    assert!(!git_dir.join("index.lock").exists());
}

#[test]
fn a_dead_owners_copy_is_removed_and_a_live_ones_is_kept() {
    let f = medium_change();
    let git_dir = f.root().join(".git");
    // What a killed run leaves: the copy and its (no longer held) lock.
    std::fs::write(git_dir.join("probity-index-killed"), vec![0u8; 1 << 20]).unwrap();
    std::fs::write(git_dir.join("probity-index-killed.owner"), b"").unwrap();
    // A run in progress: its lock is held (here by this test).
    std::fs::write(git_dir.join("probity-index-running"), b"copy").unwrap();
    let held = std::fs::File::create(git_dir.join("probity-index-running.owner")).unwrap();
    held.lock().unwrap();
    let status = gate(f.root()).status().unwrap();
    assert!(status.code().is_some());
    assert_eq!(
        leftovers(&git_dir),
        vec!["probity-index-running", "probity-index-running.owner"]
    );
    drop(held);
    gate(f.root()).status().unwrap();
    assert_eq!(leftovers(&git_dir), Vec::<String>::new());
}

/// Ctrl-C or SIGTERM during `finalize --evidence-cmd` (signalling the
/// whole foreground group): the check runs in its own process group, so the
/// signal reaches only Probity, which must stop the check too, exit as
/// interrupted, and change nothing (it once left the check running).
#[test]
fn ctrl_c_during_an_evidence_command_stops_the_check_and_changes_nothing() {
    use std::os::unix::process::CommandExt;
    let f = medium_change();
    let dir = tempfile::tempdir().unwrap();
    let st = support::probity(f.root(), &["start"]);
    assert_eq!(st.code, 0, "{}{}", st.stdout, st.stderr);
    let lineage = st.json["lineage_id"].as_str().unwrap().to_string();
    let clean = support::input(dir.path(), "r.json", support::CLEAN_RESULT);
    let mut args = vec!["finalize".to_string(), "--lineage".into(), lineage.clone()];
    for lens in st.json["selected_lenses"].as_array().unwrap() {
        args.push("--result".into());
        args.push(format!("{}={clean}", lens.as_str().unwrap()));
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let v = support::probity(f.root(), &args);
    assert_eq!(v.json["state"], "validating", "{}", v.stdout);
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
