//! Shell completions and man pages come from the CLI definition (issue 22
//! §1), and the shells load them.

mod support;

use std::process::Command;

use support::output_ok;

fn probity(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_probity"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn completions_name_every_command_and_bash_loads_them() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = probity(&["completions", shell]);
        assert!(out.status.success(), "{shell}");
        let text = String::from_utf8(out.stdout).unwrap();
        for command in ["start", "finalize", "validate", "policy", "push", "list"] {
            assert!(text.contains(command), "{shell} lacks {command}");
        }
    }
    // bash parses the script and registers the completion function.
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("probity.bash");
    std::fs::write(&script, probity(&["completions", "bash"]).stdout).unwrap();
    let check = output_ok(Command::new("bash").arg("-c").arg(format!(
        "source '{}' && complete -p probity",
        script.display()
    )));
    assert!(String::from_utf8_lossy(&check.stdout).contains("probity"));
    // An unknown shell is a usage error.
    assert_eq!(probity(&["completions", "tcsh"]).status.code(), Some(2));
}

#[test]
fn man_pages_are_written_for_every_command() {
    let page = probity(&["man"]);
    assert!(page.status.success());
    let text = String::from_utf8(page.stdout).unwrap();
    assert!(
        text.starts_with(".ie") || text.contains(".TH probity"),
        "{text}"
    );
    let dir = tempfile::tempdir().unwrap();
    let out = probity(&["man", "--out-dir", dir.path().to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for page in ["probity.1", "probity-start.1", "probity-policy-check.1"] {
        assert!(dir.path().join(page).is_file(), "{page}");
    }
    // Where there is man(1), it renders the page.
    if Command::new("man").arg("--version").output().is_ok() {
        output_ok(
            Command::new("man")
                .arg(dir.path().join("probity-start.1"))
                .env("MANPAGER", "cat")
                .env("PAGER", "cat"),
        );
    }
    // A directory that does not exist: a usage error, nothing written.
    let missing = dir.path().join("nope");
    let r = probity(&["man", "--out-dir", missing.to_str().unwrap(), "--json"]);
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stdout).contains("bad_out_dir"));
    assert!(!missing.exists());
}
