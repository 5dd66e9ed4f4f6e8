//! No thread outlives an `ssh-keygen` call that ended normally (found by
//! the `allowed_signers` fuzz target, docs/reliability.md): the call's
//! stdin writer and its two output readers were spawned and never joined,
//! so each call left up to three threads finishing behind it, and
//! LeakSanitizer caught their thread-local destructor records at exit.
//! Alone in its file, so no other test's threads are counted.

use probity_core::review::dearmor;
use probity_git::sign::SshKeygen;
use probity_ports::review::SshSignatures;

/// `ssh-keygen -Y sign -n probity` over `hi\n` by alice's ed25519 key.
const SIGNATURE: &str = "-----BEGIN SSH SIGNATURE-----
U1NIU0lHAAAAAQAAADMAAAALc3NoLWVkMjU1MTkAAAAgJUWrY0F9dIY9ichlILSnDoXeJJ
6kgvAqasJPZc0iVLIAAAAHcHJvYml0eQAAAAAAAAAGc2hhNTEyAAAAUwAAAAtzc2gtZWQy
NTUxOQAAAEBPwYdddWt6VWcBqNdg0fZc+jFly5S4IVK8i86pOYe7x3OAmjYbMMaKpANvnz
ySZLlkY2NDAIGNTU+ORQL99McH
-----END SSH SIGNATURE-----
";

const ALLOWED: &str = "alice@example.org ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICVFq2NBfXSGPYnIZSC0pw6F3iSepILwKmrCT2XNIlSy\n";

fn threads() -> usize {
    probity_testkit::threads::live_threads().expect("/proc/self/task")
}

#[test]
fn a_finished_ssh_keygen_call_leaves_no_thread_behind() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("allowed_signers");
    std::fs::write(&file, ALLOWED).unwrap();
    let sig = dearmor(SIGNATURE.as_bytes()).unwrap();
    let ssh = SshKeygen::new(None, None, dir.path().to_path_buf());
    let before = threads();
    for _ in 0..200 {
        ssh.check_allowed_signers(&file).unwrap();
        assert_eq!(
            ssh.find_principals(&file, &sig).unwrap(),
            vec!["alice@example.org".to_string()]
        );
        // Counted at once, with no pause: a thread still finishing counts.
        assert_eq!(threads(), before, "a thread outlived the call");
    }
}
