//! Running a tool a test reads from (cargo, node): it must start and
//! succeed, or the test fails naming it and its stderr.

use std::process::Command;

/// The stdout of `cmd` (`what` names it), which must start and exit
/// successfully.
pub fn stdout_of(cmd: &mut Command, what: &str) -> Vec<u8> {
    let out = cmd.output().unwrap_or_else(|e| panic!("run {what}: {e}"));
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The stdout of `cargo <args>` run in this crate's folder, which must
/// succeed.
#[allow(dead_code)] // Not every test that runs a tool runs cargo.
pub fn cargo_stdout(args: &[&str]) -> Vec<u8> {
    stdout_of(
        Command::new(env!("CARGO"))
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR")),
        &format!("cargo {}", args[0]),
    )
}
