//! C5, the host lifecycle of a context tree, with the real binary: a
//! context tree lives outside every repository; the agent gets a verified
//! read-only copy; the copy and a tree assembled for the run are removed on
//! every controlled exit (the agent's success or failure, SIGTERM), and
//! what a killed run abandoned is removed by the next run, by its owner
//! lock.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_probity");

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/context")
        .join(name)
}

/// `probity` with its temporary directory pinned to `tmp`.
fn probity(tmp: &Path) -> Command {
    let mut c = Command::new(BIN);
    c.env("TMPDIR", tmp);
    c
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn the_agent_gets_a_read_only_copy_and_nothing_outlives_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let scratch = tmp.path().join("tmp");
    std::fs::create_dir(&scratch).unwrap();
    let report = tmp.path().join("report");
    // The agent records where its tree is, the tree root's mode and one
    // file's, then fails with 3.
    let script = format!(
        "printf '%s\\n' \"$PROBITY_CONTEXT_DIR\" > {r}; stat -c %a \"$PROBITY_CONTEXT_DIR\" >> {r}; stat -c %a \"$PROBITY_CONTEXT_DIR/index.json\" >> {r}; exit 3",
        r = report.display()
    );
    let o = probity(&scratch)
        .args(["context", "run", "--json", "--input"])
        .arg(example("change-proposal.json"))
        .args(["--", "sh", "-c", &script])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
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
    assert_eq!(names(&scratch), Vec::<String>::new(), "nothing is left");
}

#[test]
fn a_sigterm_removes_the_trees_and_a_killed_runs_leftovers_go_next_time() {
    let tmp = tempfile::tempdir().unwrap();
    let scratch = tmp.path().join("tmp");
    std::fs::create_dir(&scratch).unwrap();
    let started = tmp.path().join("started");
    let script = format!("touch {}; exec sleep 60", started.display());
    let mut child = probity(&scratch)
        .args(["context", "run", "--input"])
        .arg(example("change-proposal.json"))
        .args(["--", "sh", "-c", &script])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut waited = Duration::ZERO;
    while !started.exists() {
        assert!(waited < Duration::from_secs(30), "the agent never started");
        std::thread::sleep(Duration::from_millis(20));
        waited += Duration::from_millis(20);
    }
    assert!(!names(&scratch).is_empty(), "the trees exist while it runs");
    let sent = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = child.wait().unwrap();
    {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(15));
    }
    assert_eq!(names(&scratch), Vec::<String>::new(), "removed at once");

    // What a SIGKILLed run abandons: a read-only copy and its unheld lock.
    let dead = scratch.join("probity-context-run-dead");
    std::fs::create_dir(&dead).unwrap();
    std::fs::write(dead.join("index.json"), b"{}").unwrap();
    std::fs::write(scratch.join("probity-context-run-dead.owner"), b"").unwrap();
    let o = probity(&scratch)
        .args(["context", "run", "--input"])
        .arg(example("change-proposal.json"))
        .args(["--", "true"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(names(&scratch), Vec::<String>::new());
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
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["error"]["code"], "context_dir_in_repository");
    assert_eq!(names(&repo), vec![".git".to_string()], "nothing written");
}
