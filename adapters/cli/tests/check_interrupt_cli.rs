//! Issue 20 §1: a check interrupted together with Probity leaves no
//! process behind, not even one that left its process group.

mod support;

use std::process::Command;
use std::time::Duration;

use support::signals::{in_tmp, signal_when};
use support::{medium_change, sh_check_args};

/// Whether process `pid` runs (not a zombie).
fn running(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X")
    })
}

/// Issue 20 §1: a check interrupted with Probity (SIGINT, SIGTERM) leaves
/// no process, not even one that left its group (`setsid`) before the
/// signal: Probity, its child subreaper, ends it on the way out.
#[test]
fn an_interrupted_check_leaves_no_process_even_one_that_left_its_group() {
    for signal in ["-INT", "-TERM"] {
        let f = medium_change();
        let tmp = tempfile::tempdir().unwrap();
        let inputs = tempfile::tempdir().unwrap();
        let lineage = support::started_awaiting_evidence(f.root(), inputs.path());
        let before = support::store_snapshot(&f);
        let pidfile = inputs.path().join("daemon.pid");
        let script = format!(
            "setsid sh -c 'echo $$ > {p}.tmp; mv {p}.tmp {p}; exec sleep 60' >/dev/null 2>&1 </dev/null & sleep 60",
            p = pidfile.display()
        );
        let mut cmd = in_tmp(
            f.root(),
            tmp.path(),
            &sh_check_args("finalize", &lineage, &script),
        );
        let status = signal_when(&mut cmd, || pidfile.is_file(), signal);
        assert!(status.is_some(), "the check ended before the signal");
        let pid = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .to_string();
        let mut left = running(&pid);
        for _ in 0..200 {
            if !left {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
            left = running(&pid);
        }
        if left {
            let _ = Command::new("kill").args(["-9", &pid]).status();
        }
        assert!(
            !left,
            "{signal}: the daemon {pid} outlived the interrupted check"
        );
        assert_eq!(support::store_snapshot(&f), before, "{signal}");
    }
}
