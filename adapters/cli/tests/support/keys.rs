//! Signing in the team tests: the principals, their keys made with
//! `ssh-keygen`, allowed-signers files and a server that requires them,
//! and `probity attest --sign` with a given key.

use std::path::{Path, PathBuf};
use std::process::Command;

use probity_git::fixture::Fixture;

use super::output_ok;

/// The agent's signing principal in the team tests.
pub const AGENT: &str = "agent@example.invalid";
/// CI's signing principal in the team tests.
pub const CI: &str = "ci@example.invalid";
/// The maintainer's (alice's) signing principal in the team tests.
pub const ALICE: &str = "alice@example.invalid";

/// Keys for the agent, CI and alice, made in a new directory and listed
/// (as [`AGENT`], [`CI`], [`ALICE`]) in `f`'s `.probity/allowed_signers`,
/// written and not committed: (the keys' directory, agent, ci, alice).
pub fn team_signers(f: &Fixture) -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let keys = tempfile::tempdir().unwrap();
    let agent = keygen(keys.path(), "agent");
    let ci = keygen(keys.path(), "ci");
    let alice = keygen(keys.path(), "alice");
    let signers = format!(
        "{AGENT} {}\n{CI} {}\n{ALICE} {}\n",
        public(&agent),
        public(&ci),
        public(&alice)
    );
    f.write(".probity/allowed_signers", signers).unwrap();
    (keys, agent, ci, alice)
}

/// `ssh-keygen -t ed25519 -N "" -f dir/name`; returns the private key path.
pub fn keygen(dir: &Path, name: &str) -> PathBuf {
    let key = dir.join(name);
    output_ok(
        std::process::Command::new("ssh-keygen")
            .args(["-q", "-t", "ed25519", "-N", "", "-C", name, "-f"])
            .arg(&key)
            .stdin(std::process::Stdio::null()),
    );
    key
}

pub fn public(key: &Path) -> String {
    std::fs::read_to_string(key.with_extension("pub"))
        .unwrap()
        .trim()
        .to_string()
}

/// An allowed-signers file (git's format) listing `principal key` lines.
pub fn allowed(dir: &Path, entries: &[(&str, &Path)]) -> PathBuf {
    let p = dir.join("allowed_signers");
    let text: String = entries
        .iter()
        .map(|(who, key)| format!("{who} {}\n", public(key)))
        .collect();
    std::fs::write(&p, text).unwrap();
    p
}

/// Makes `server` require signatures by the signers `allowed_signers`
/// lists.
pub fn require_signatures(f: &Fixture, server: &Path, allowed_signers: &Path) {
    for (k, v) in [
        ("probity.requireSignature", "true"),
        (
            "probity.allowedSignersFile",
            allowed_signers.to_str().unwrap(),
        ),
    ] {
        f.git_in(server, &["config", k, v]).unwrap();
    }
}

/// [`require_signatures`] with alice (`alice@example.invalid`, her key
/// made in `keys`) the only signer; returns her key.
pub fn require_alice(f: &Fixture, server: &Path, keys: &Path) -> PathBuf {
    let alice = keygen(keys, "alice");
    require_signatures(
        f,
        server,
        &allowed(keys, &[("alice@example.invalid", &alice)]),
    );
    alice
}

/// `probity attest --lineage L --sign` in `cwd`, signing with `key` (set as
/// `probity.signingKey` there; `home` is the signer's HOME).
pub fn sign_with(cwd: &Path, key: &Path, home: &Path, lineage: &str) {
    output_ok(
        Command::new("git")
            .args(["config", "probity.signingKey"])
            .arg(key)
            .current_dir(cwd),
    );
    output_ok(
        Command::new(env!("CARGO_BIN_EXE_probity"))
            .arg("--cwd")
            .arg(cwd)
            .args(["attest", "--lineage", lineage, "--sign"])
            .env("HOME", home),
    );
}
