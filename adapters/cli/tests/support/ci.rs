//! `ci/probity-gate.sh`, the forge CI form of the gate, run for real with
//! the built `probity` first on PATH and only the variables a test gives.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The script the GitHub Action and the GitLab template run.
pub fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ci/probity-gate.sh")
}

/// Runs the script in `cwd` with only `vars` (plus PATH with the built
/// probity first, `home` as HOME and no system git configuration): no
/// variable of the outer CI leaks in.
pub fn gate(cwd: &Path, home: &Path, vars: &[(&str, &str)]) -> Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_probity"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = std::env::join_paths(
        std::iter::once(bin).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    Command::new(script())
        .current_dir(cwd)
        .env_clear()
        .env("PATH", path)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .envs(vars.iter().copied())
        .output()
        .expect("run ci/probity-gate.sh")
}
