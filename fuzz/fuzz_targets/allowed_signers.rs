//! Allowed-signers files: the file a policy names in the protected base
//! (or a server's `probity.allowedSignersFile`). Probity does not parse
//! its lines itself: it reads the file through the bounded regular-file
//! reader, hands a scratch copy to `ssh-keygen -Y find-principals`, and
//! reads back what that prints. This target runs exactly that path
//! (`SshKeygen::check_allowed_signers`, `find_principals`) against a fixed
//! genuine SSHSIG signature, so it is slow (one `ssh-keygen` per input).
//! Beyond not panicking: every principal reported is written in the file
//! (quotes aside), none was read lossily, and no scratch file outlives the
//! call.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use probity_core::review::dearmor;
use probity_git::sign::SshKeygen;
use probity_ports::review::SshSignatures;

/// `ssh-keygen -Y sign -n probity` over `hi\n` by the ed25519 key the
/// seed corpus names (`alice@example.org`).
const SIGNATURE: &str = "-----BEGIN SSH SIGNATURE-----
U1NIU0lHAAAAAQAAADMAAAALc3NoLWVkMjU1MTkAAAAgJUWrY0F9dIY9ichlILSnDoXeJJ
6kgvAqasJPZc0iVLIAAAAHcHJvYml0eQAAAAAAAAAGc2hhNTEyAAAAUwAAAAtzc2gtZWQy
NTUxOQAAAEBPwYdddWt6VWcBqNdg0fZc+jFly5S4IVK8i86pOYe7x3OAmjYbMMaKpANvnz
ySZLlkY2NDAIGNTU+ORQL99McH
-----END SSH SIGNATURE-----
";

fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("probity-fuzz-signers-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("a scratch directory");
        d
    })
}

fuzz_target!(|data: &[u8]| {
    let dir = dir();
    let file = dir.join("allowed_signers");
    std::fs::write(&file, data).expect("the input file is written");
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).expect("a scratch directory");
    let sig = dearmor(SIGNATURE.as_bytes()).expect("the fixed signature parses");
    {
        let ssh = SshKeygen::new(None, None, tmp.clone());
        if ssh.check_allowed_signers(&file).is_ok()
            && let Ok(principals) = ssh.find_principals(&file, &sig)
        {
            // ssh-keygen prints a quoted principal list unquoted. Each
            // principal's bytes are the file's own: one read lossily (a
            // U+FFFD standing for bytes that are not UTF-8) is not.
            let raw: Vec<u8> = data.iter().copied().filter(|b| *b != b'"').collect();
            for p in &principals {
                let p = p.as_bytes();
                assert!(
                    !p.is_empty() && raw.windows(p.len()).any(|w| w == p),
                    "{:?} is not in the file as written",
                    String::from_utf8_lossy(p)
                );
            }
        }
    }
    let left: Vec<_> = std::fs::read_dir(&tmp)
        .expect("the scratch directory is read")
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "scratch files outlived the call: {left:?}");
});
