//! SSH signatures without `ssh-keygen`: [`FakeKey`] (a key that makes
//! SSHSIG blobs) and [`FakeSsh`] (the [`SshSignatures`] port over fake keys
//! and in-memory allowed-signers files), so the signing and verifying
//! drivers run on in-memory adapters.
//!
//! A fake signature is no cryptography: its bytes are a SHA-256 over the
//! public key, the namespace and the message, so it is valid exactly over
//! the message it was made for, by the key it carries, in its namespace.
//! Anyone can forge one (the public key is all it takes); what it models is
//! what the drivers decide from a port's answers, never the strength of a
//! key.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use probity_core::digest::{Domain, Sha256Digest};
use probity_core::review::{NAMESPACE, SshSig, armor, fingerprint, parse_sshsig};
use probity_ports::review::{AdapterError, AllowedSignersError, SshSignatures};

/// The key type every fake key names.
pub const FAKE_KEY_TYPE: &str = "ssh-ed25519";

const SIGNATURE: Domain = Domain::new("probity-testkit/ssh-signature");

/// Why the fake port could not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FakeSshError {
    /// `sign` without a signing key ([`FakeSsh::signing_with`]).
    #[error("the fake ssh-keygen has no signing key")]
    NoKey,
    /// The test made the tool fail ([`FakeSsh::failing`]).
    #[error("injected failure of the fake ssh-keygen")]
    Injected,
}

fn string(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
    out.extend_from_slice(bytes);
}

/// A fake SSH key, named by a seed: the same seed, the same key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FakeKey {
    public_key: Vec<u8>,
}

impl FakeKey {
    /// The key of `seed`.
    pub fn new(seed: &str) -> Self {
        let mut public_key = Vec::new();
        string(&mut public_key, FAKE_KEY_TYPE.as_bytes());
        string(
            &mut public_key,
            Sha256Digest::plain(seed.as_bytes()).as_bytes(),
        );
        Self { public_key }
    }

    /// The public key, SSH wire format.
    pub fn public_key(&self) -> &[u8] {
        &self.public_key
    }

    /// The key's `SHA256:` fingerprint, as `ssh-keygen -l` prints it.
    pub fn fingerprint(&self) -> String {
        fingerprint(&self.public_key)
    }

    /// The SSHSIG blob this key makes over `message` in `namespace`.
    pub fn signature_blob(&self, namespace: &str, message: &[u8]) -> Vec<u8> {
        blob(&self.public_key, namespace, "sha512", message)
    }

    /// The same blob, parsed.
    pub fn signature(&self, namespace: &str, message: &[u8]) -> SshSig {
        match parse_sshsig(&self.signature_blob(namespace, message)) {
            Ok(sig) => sig,
            // The blob is built field by field to the format the parser
            // reads (a test of this module parses one).
            Err(e) => unreachable!("a fake SSHSIG blob parses: {e}"),
        }
    }

    /// What `ssh-keygen -Y sign -n <namespace>` prints for `message`: the
    /// armored blob.
    pub fn armored(&self, namespace: &str, message: &[u8]) -> Vec<u8> {
        armor(&self.signature_blob(namespace, message)).into_bytes()
    }
}

fn blob(public_key: &[u8], namespace: &str, hash: &str, message: &[u8]) -> Vec<u8> {
    let mut signed = Vec::new();
    string(&mut signed, public_key);
    string(&mut signed, namespace.as_bytes());
    signed.extend_from_slice(message);
    let sig = Sha256Digest::of(SIGNATURE, &signed);
    let mut out = b"SSHSIG".to_vec();
    out.extend_from_slice(&1u32.to_be_bytes());
    string(&mut out, public_key);
    string(&mut out, namespace.as_bytes());
    string(&mut out, b"");
    string(&mut out, hash.as_bytes());
    string(&mut out, sig.as_bytes());
    out
}

/// An allowed-signers file as the fake port sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AllowedFile {
    /// A readable file listing `(principal, public key, valid now)`: a
    /// listed key whose options exclude it now (an expired validity
    /// window) is found by `find-principals` and refused by `verify`.
    Listed(Vec<(String, Vec<u8>, bool)>),
    /// A FIFO, a directory or a device.
    NotRegular,
    /// Over the adapter's bound.
    TooLarge,
    /// It cannot be read.
    Unreadable,
}

/// The [`SshSignatures`] port over fake keys. Every `sign`, `check`,
/// `find_principals` and `verify` counts as one `ssh-keygen` run
/// ([`FakeSsh::runs`]); checking the allowed-signers file does not.
#[derive(Debug, Default)]
pub struct FakeSsh {
    key: Option<FakeKey>,
    namespace: Option<String>,
    printed: Option<Vec<u8>>,
    files: BTreeMap<PathBuf, AllowedFile>,
    failing: bool,
    runs: AtomicU32,
}

impl FakeSsh {
    /// A port with no signing key and no allowed-signers file.
    pub fn new() -> Self {
        Self::default()
    }

    /// Signs with `key` (in the `probity` namespace unless
    /// [`FakeSsh::signing_in`] says otherwise).
    pub fn signing_with(mut self, key: &FakeKey) -> Self {
        self.key = Some(key.clone());
        self
    }

    /// Signs in `namespace` instead of `probity` (a misconfigured signer).
    pub fn signing_in(mut self, namespace: &str) -> Self {
        self.namespace = Some(namespace.to_string());
        self
    }

    /// `sign` prints `bytes` instead of a signature.
    pub fn printing(mut self, bytes: &[u8]) -> Self {
        self.printed = Some(bytes.to_vec());
        self
    }

    /// `path` lists `key` for `principal`, valid now.
    pub fn allowing(self, path: &str, principal: &str, key: &FakeKey) -> Self {
        self.listing(path, principal, key, true)
    }

    /// `path` lists `key` for `principal`, with options that exclude it
    /// now.
    pub fn allowing_expired(self, path: &str, principal: &str, key: &FakeKey) -> Self {
        self.listing(path, principal, key, false)
    }

    fn listing(mut self, path: &str, principal: &str, key: &FakeKey, valid: bool) -> Self {
        let entry = (principal.to_string(), key.public_key.clone(), valid);
        match self.files.get_mut(Path::new(path)) {
            Some(AllowedFile::Listed(list)) => list.push(entry),
            _ => {
                self.files
                    .insert(PathBuf::from(path), AllowedFile::Listed(vec![entry]));
            }
        }
        self
    }

    /// `path` is `file` (an unusable file: not regular, too large,
    /// unreadable).
    pub fn with_file(mut self, path: &str, file: AllowedFile) -> Self {
        self.files.insert(PathBuf::from(path), file);
        self
    }

    /// Every run fails with [`FakeSshError::Injected`].
    pub fn failing(mut self) -> Self {
        self.failing = true;
        self
    }

    /// How many `ssh-keygen` runs were made.
    pub fn runs(&self) -> u32 {
        self.runs.load(Ordering::SeqCst)
    }

    fn run(&self) -> Result<(), AdapterError> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        if self.failing {
            return Err(Box::new(FakeSshError::Injected));
        }
        Ok(())
    }

    fn listed(&self, path: &Path) -> &[(String, Vec<u8>, bool)] {
        match self.files.get(path) {
            Some(AllowedFile::Listed(list)) => list,
            _ => &[],
        }
    }
}

impl SshSignatures for FakeSsh {
    fn check_allowed_signers(&self, allowed_signers: &Path) -> Result<(), AllowedSignersError> {
        let path = allowed_signers.display().to_string();
        match self.files.get(allowed_signers) {
            Some(AllowedFile::Listed(_)) => Ok(()),
            Some(AllowedFile::NotRegular) => Err(AllowedSignersError::NotRegular { path }),
            Some(AllowedFile::TooLarge) => Err(AllowedSignersError::TooLarge {
                path,
                limit: 1 << 20,
            }),
            Some(AllowedFile::Unreadable) => Err(AllowedSignersError::Unreadable {
                path,
                reason: "permission denied".into(),
            }),
            None => Err(AllowedSignersError::Unreadable {
                path,
                reason: "no such file".into(),
            }),
        }
    }

    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, AdapterError> {
        self.run()?;
        if let Some(p) = &self.printed {
            return Ok(p.clone());
        }
        let key = self.key.as_ref().ok_or(FakeSshError::NoKey)?;
        let namespace = self.namespace.as_deref().unwrap_or(NAMESPACE);
        Ok(key.armored(namespace, message))
    }

    fn check(&self, signature: &SshSig, message: &[u8]) -> Result<bool, AdapterError> {
        self.run()?;
        Ok(signature.blob
            == blob(
                &signature.public_key,
                &signature.namespace,
                &signature.hash_algorithm,
                message,
            ))
    }

    fn find_principals(
        &self,
        allowed_signers: &Path,
        signature: &SshSig,
    ) -> Result<Vec<String>, AdapterError> {
        self.run()?;
        Ok(self
            .listed(allowed_signers)
            .iter()
            .filter(|(_, key, _)| *key == signature.public_key)
            .map(|(p, _, _)| p.clone())
            .collect())
    }

    fn verify(
        &self,
        allowed_signers: &Path,
        principal: &str,
        signature: &SshSig,
        message: &[u8],
    ) -> Result<bool, AdapterError> {
        let valid = self.check(signature, message)?;
        let listed = self
            .listed(allowed_signers)
            .iter()
            .any(|(p, key, now)| p == principal && *key == signature.public_key && *now);
        Ok(valid && listed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use probity_core::review::dearmor;

    #[test]
    fn a_fake_signature_is_valid_only_over_its_message_by_its_key() {
        let alice = FakeKey::new("alice");
        assert_ne!(alice, FakeKey::new("bob"));
        let sig = alice.signature(NAMESPACE, b"m");
        assert_eq!(sig.key_type, FAKE_KEY_TYPE);
        assert_eq!(sig.fingerprint(), alice.fingerprint());
        assert_eq!(dearmor(&alice.armored("probity", b"m")).unwrap(), sig);
        let port = FakeSsh::new()
            .signing_with(&alice)
            .allowing("signers", "alice", &alice);
        assert!(port.check(&sig, b"m").unwrap());
        assert!(!port.check(&sig, b"n").unwrap());
        let path = Path::new("signers");
        assert_eq!(port.find_principals(path, &sig).unwrap(), ["alice"]);
        assert!(port.verify(path, "alice", &sig, b"m").unwrap());
        assert!(!port.verify(path, "bob", &sig, b"m").unwrap());
        assert_eq!(port.sign(b"m").unwrap(), alice.armored("probity", b"m"));
        assert_eq!(port.runs(), 6);
        assert!(port.check_allowed_signers(path).is_ok());
        assert!(port.check_allowed_signers(Path::new("other")).is_err());
        assert!(FakeSsh::new().sign(b"m").is_err(), "no key");
    }
}
