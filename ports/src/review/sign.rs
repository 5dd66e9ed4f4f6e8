//! Signed attestations: the port through which SSH signatures are made and
//! checked (`ssh-keygen -Y`, in `probity-git`), and the two use cases on
//! it: [`sign_statement`] (`probity attest --sign`) and
//! [`verify_envelope`] (`probity attest verify`, and any server-side gate
//! that holds envelopes: see [`check_attestations`]).
//!
//! A verified envelope says who vouched for which bytes: a key listed in
//! the allowed-signers file signed the DSSE PAE of exactly the statement
//! the verifier re-derived. It says nothing about how the key is kept or
//! how well its holder judged (docs/threat-model.md).

use std::path::{Path, PathBuf};

use probity_core::review::{EnvelopeError, SshSig};
use probity_core::review::{NAMESPACE, dearmor, envelope_bytes, parse_envelope, statement_pae};

use super::AdapterError;

/// What a verifier accepts, from Git configuration
/// (`probity.requireSignature`, `probity.allowedSignersFile`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SignaturePolicy {
    /// Gates deny an attestation without a valid, allowed signature.
    pub require_signature: bool,
    /// An allowed-signers file in Git's own format (`gpg.ssh.allowedSignersFile`,
    /// `ssh-keygen(1)` ALLOWED SIGNERS): `principal[,principal] [options] key`.
    pub allowed_signers: Option<PathBuf>,
}

/// Who vouched: the principal the allowed-signers file names for the key,
/// and the key.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Signer {
    /// The principal the allowed-signers file lists for the key, under
    /// which the signature verified.
    pub principal: String,
    /// `SHA256:` fingerprint of the key, as `ssh-keygen -l` prints it.
    pub keyid: String,
    /// The key's SSH algorithm name, from the signature (`ssh-ed25519`).
    pub key_type: String,
}

/// Making and checking SSH signatures in the `probity` namespace. Every
/// method is one bounded `ssh-keygen -Y` run; a failure to run it is an
/// error, never an answer.
pub trait SshSignatures {
    /// Refuses an allowed-signers file that cannot be used, before any
    /// `ssh-keygen` run reads it: not a regular file (a FIFO, a directory,
    /// a device), over the adapter's bound, or unreadable.
    fn check_allowed_signers(&self, allowed_signers: &Path) -> Result<(), AllowedSignersError>;
    /// Signs `message` with the configured key (`ssh-keygen -Y sign -n
    /// probity`); returns what `ssh-keygen` printed (armored SSHSIG text).
    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, AdapterError>;
    /// Whether `signature` is a valid signature over `message` by the key
    /// it carries, whoever holds that key (`-Y check-novalidate`).
    fn check(&self, signature: &SshSig, message: &[u8]) -> Result<bool, AdapterError>;
    /// Whether `allowed_signers` may list the signature's key: `false` only
    /// when it certainly does not (core's
    /// [`allowed_signers_may_list`](probity_core::review::allowed_signers_may_list)
    /// over the file's bytes), so no `ssh-keygen` runs for it. The default
    /// cannot tell (`true`): every signature is asked of the tool.
    fn may_list(&self, allowed_signers: &Path, signature: &SshSig) -> Result<bool, AdapterError> {
        let _ = (allowed_signers, signature);
        Ok(true)
    }
    /// The principals `allowed_signers` lists for the signature's key
    /// (`-Y find-principals`); empty when none.
    fn find_principals(
        &self,
        allowed_signers: &Path,
        signature: &SshSig,
    ) -> Result<Vec<String>, AdapterError>;
    /// Whether `signature` verifies over `message` for `principal` under
    /// `allowed_signers`, its options (validity windows) included
    /// (`-Y verify`).
    fn verify(
        &self,
        allowed_signers: &Path,
        principal: &str,
        signature: &SshSig,
        message: &[u8],
    ) -> Result<bool, AdapterError>;
}

/// Why an allowed-signers file is not used (nothing in it was consulted).
#[derive(Debug, thiserror::Error)]
pub enum AllowedSignersError {
    /// No file at the path (or a link to nothing).
    #[error("the allowed-signers file {path} does not exist")]
    NotFound {
        /// The path, as displayed.
        path: String,
    },
    /// A FIFO, a directory or a device: never read.
    #[error(
        "the allowed-signers file {path} is not a regular file (a FIFO, directory or device is never read)"
    )]
    NotRegular {
        /// The path, as displayed.
        path: String,
    },
    /// Over the bound.
    #[error("the allowed-signers file {path} is larger than the {limit}-byte limit")]
    TooLarge {
        /// The path, as displayed.
        path: String,
        /// The bound, in bytes.
        limit: u64,
    },
    /// It cannot be inspected, opened or read.
    #[error("the allowed-signers file {path} is not readable: {reason}")]
    Unreadable {
        /// The path, as displayed.
        path: String,
        /// Why, as the operating system put it.
        reason: String,
    },
}

impl AllowedSignersError {
    /// The stable code: the one every unusable input file answers, but
    /// `allowed_signers_not_found` for a path with no file.
    pub fn code(&self) -> &'static str {
        match self {
            AllowedSignersError::NotFound { .. } => "allowed_signers_not_found",
            AllowedSignersError::NotRegular { .. } => "input_not_regular",
            AllowedSignersError::TooLarge { .. } => "input_too_large",
            AllowedSignersError::Unreadable { .. } => "unreadable_input",
        }
    }
}

/// Why the configured signing key file is not handed to `ssh-keygen`
/// (checked before it runs, so a FIFO, a device or a huge file never
/// reaches it).
#[derive(Debug, thiserror::Error)]
pub enum SigningKeyError {
    /// No file at the path (or a link to nothing).
    #[error("the signing key {path} does not exist")]
    NotFound {
        /// The path, as displayed.
        path: String,
    },
    /// A FIFO, a directory or a device: never read.
    #[error(
        "the signing key {path} is not a regular file (a FIFO, directory or device is never read)"
    )]
    NotRegular {
        /// The path, as displayed.
        path: String,
    },
    /// Over the bound: no SSH key file is this large.
    #[error("the signing key {path} is larger than the {limit}-byte limit for a key file")]
    TooLarge {
        /// The path, as displayed.
        path: String,
        /// The bound, in bytes.
        limit: u64,
    },
    /// It cannot be inspected, opened or read.
    #[error("the signing key {path} is not readable: {reason}")]
    Unreadable {
        /// The path, as displayed.
        path: String,
        /// Why, as the operating system put it.
        reason: String,
    },
}

impl SigningKeyError {
    /// The stable code: the one every unusable input file answers, but
    /// `signing_key_not_found` for a path with no file.
    pub fn code(&self) -> &'static str {
        match self {
            SigningKeyError::NotFound { .. } => "signing_key_not_found",
            SigningKeyError::NotRegular { .. } => "input_not_regular",
            SigningKeyError::TooLarge { .. } => "input_too_large",
            SigningKeyError::Unreadable { .. } => "unreadable_input",
        }
    }
}

/// Why an attestation was not signed, or is not accepted. [`code`] is the
/// stable reason code; [`is_denial`] tells a gate's denial (the input was
/// read and found wanting) from an error (it could not be read or checked).
///
/// [`code`]: SignatureError::code
/// [`is_denial`]: SignatureError::is_denial
#[derive(Debug, thiserror::Error)]
pub enum SignatureError {
    /// No envelope, or an envelope with no signature.
    #[error("the attestation is not signed")]
    Missing,
    /// A signature that does not verify, made in another namespace, or over
    /// other bytes than the statement the verifier derived.
    #[error("the signature is not valid for this attestation: {0}")]
    Invalid(String),
    /// A valid signature by a key the allowed-signers file does not list
    /// (or lists with options that exclude it now).
    #[error("signed by {keyid}, which {allowed_signers} does not allow")]
    SignerNotAllowed {
        /// `SHA256:` fingerprint of the signing key.
        keyid: String,
        /// The allowed-signers file consulted, as a path.
        allowed_signers: String,
    },
    /// Not an envelope (truncated, oversized, a defined field of the wrong
    /// type, not base64, a `sig` that is not an SSH signature; unknown
    /// fields are ignored, as DSSE asks of consumers).
    #[error("{0}")]
    Envelope(#[from] EnvelopeError),
    /// A signature is required or being checked, and no allowed-signers
    /// file is configured.
    #[error("no allowed-signers file is configured (git config probity.allowedSignersFile)")]
    NoAllowedSigners,
    /// The allowed-signers file is not a regular file, is over its bound,
    /// or cannot be read (checked before any signature is).
    #[error("{0}")]
    AllowedSigners(#[from] AllowedSignersError),
    /// `--sign` without a key.
    #[error(
        "no signing key is configured (git config probity.signingKey, or user.signingKey with gpg.format=ssh)"
    )]
    NoSigningKey,
    /// The configured key file is missing, not a regular file, over its
    /// bound or unreadable (checked before `ssh-keygen` runs).
    #[error("{0}")]
    SigningKey(SigningKeyError),
    /// What `ssh-keygen -Y sign` printed is not an SSH signature.
    #[error("ssh-keygen did not print an SSH signature: {0}")]
    BadSignerOutput(String),
    /// `ssh-keygen` could not be run, timed out, or failed.
    #[error("ssh-keygen: {0}")]
    Tool(AdapterError),
    /// The envelope or statement could not be serialized.
    #[error("could not serialize the envelope: {0}")]
    Serialize(String),
}

impl SignatureError {
    /// The stable reason code.
    pub fn code(&self) -> &'static str {
        match self {
            SignatureError::Missing => "signature_missing",
            SignatureError::Invalid(_) => "signature_invalid",
            SignatureError::SignerNotAllowed { .. } => "signer_not_allowed",
            SignatureError::Envelope(_) => "bad_envelope",
            SignatureError::NoAllowedSigners => "allowed_signers_missing",
            SignatureError::AllowedSigners(e) => e.code(),
            SignatureError::NoSigningKey => "signing_key_missing",
            SignatureError::SigningKey(e) => e.code(),
            SignatureError::BadSignerOutput(_) => "bad_signature_output",
            SignatureError::Tool(_) => "signing_tool",
            SignatureError::Serialize(_) => "serialize",
        }
    }

    /// A gate's denial (exit 1), as opposed to an error.
    pub fn is_denial(&self) -> bool {
        matches!(
            self,
            SignatureError::Missing
                | SignatureError::Invalid(_)
                | SignatureError::SignerNotAllowed { .. }
        )
    }
}

/// `probity attest --sign`: signs the DSSE PAE of `statement` (exactly the
/// canonical bytes `probity attest` prints) and returns the envelope's
/// canonical bytes. The signature `ssh-keygen` printed is parsed before it
/// is used: anything that is not an SSHSIG in the `probity` namespace is
/// refused.
pub fn sign_statement<P: SshSignatures + ?Sized>(
    port: &P,
    statement: &[u8],
) -> Result<Vec<u8>, SignatureError> {
    let printed = port
        .sign(&statement_pae(statement))
        .map_err(SignatureError::Tool)?;
    let sig = dearmor(&printed).map_err(SignatureError::BadSignerOutput)?;
    if sig.namespace != NAMESPACE {
        return Err(SignatureError::BadSignerOutput(format!(
            "namespace `{}`, expected `{}`",
            sig.namespace, NAMESPACE
        )));
    }
    envelope_bytes(statement, &sig).map_err(|e| SignatureError::Serialize(e.to_string()))
}

/// Verifies one DSSE envelope against the statement the verifier derived
/// itself (`expected_statement`: the canonical bytes `probity attest`
/// prints for the lineage) and the allowed signers of `policy`.
///
/// In order, each answer final:
/// 1. no allowed-signers file → [`SignatureError::NoAllowedSigners`]; one
///    that is not a regular file, over its bound or unreadable →
///    [`SignatureError::AllowedSigners`] (before any `ssh-keygen` run);
/// 2. not an envelope (over [`MAX_ENVELOPE_BYTES`](probity_core::review::MAX_ENVELOPE_BYTES), truncated,
///    unknown fields, another payload type, a `sig` that is not an SSHSIG)
///    → [`SignatureError::Envelope`];
/// 3. no signature → `signature_missing`;
/// 4. a payload other than `expected_statement` → `signature_invalid`
///    (the envelope vouches for other bytes);
/// 5. per signature: another namespace, or not valid over the PAE →
///    `signature_invalid`; valid, but its key unlisted (or excluded by its
///    options) → `signer_not_allowed`; otherwise the [`Signer`].
///
/// With several signatures the first accepted one answers; when none is,
/// the first signature's refusal does. `policy.require_signature` is not
/// consulted here (the caller asked for a verification); see
/// [`check_attestations`] for the gate's use.
pub fn verify_envelope<P: SshSignatures + ?Sized>(
    port: &P,
    envelope: &[u8],
    expected_statement: &[u8],
    policy: &SignaturePolicy,
) -> Result<Signer, SignatureError> {
    verify_envelope_bounded(
        port,
        envelope,
        expected_statement,
        policy,
        &mut Failures::new(),
    )
}

/// How many signatures by certificates [`Failures`] lets fail for one
/// statement before it tries no other certificate (D-R126): a
/// `cert-authority` line lists every certificate carrying its key, so the
/// allowed signers do not bound the keys a note's junk can name; at most
/// three `ssh-keygen` runs each.
const MAX_FAILED_CERTIFICATE_SIGNATURES: usize = 4;

/// Signatures that failed to verify for one statement: per key
/// fingerprint, past [`MAX_FAILED_PER_KEY`] a key's other signatures are
/// not tried (D-R119); and past [`MAX_FAILED_CERTIFICATE_SIGNATURES`]
/// failures by certificates, no certificate is tried (D-R126).
#[derive(Default)]
struct Failures {
    per_key: std::collections::BTreeMap<String, usize>,
    certificates: usize,
}

impl Failures {
    fn new() -> Self {
        Self::default()
    }

    /// Whether `sig` is not to be tried again for this statement.
    fn exhausted(&self, sig: &SshSig) -> bool {
        self.per_key
            .get(&sig.fingerprint())
            .is_some_and(|n| *n >= MAX_FAILED_PER_KEY)
            || (self.certificates >= MAX_FAILED_CERTIFICATE_SIGNATURES
                && probity_core::review::is_certificate_key(&sig.public_key))
    }

    /// Counts a signature by `sig`'s key that did not verify.
    fn record(&mut self, sig: &SshSig) {
        *self.per_key.entry(sig.fingerprint()).or_default() += 1;
        if probity_core::review::is_certificate_key(&sig.public_key) {
            self.certificates += 1;
        }
    }
}

/// [`verify_envelope`], sharing `failed` with the other envelopes of one
/// statement.
fn verify_envelope_bounded<P: SshSignatures + ?Sized>(
    port: &P,
    envelope: &[u8],
    expected_statement: &[u8],
    policy: &SignaturePolicy,
    failed: &mut Failures,
) -> Result<Signer, SignatureError> {
    let allowed = policy
        .allowed_signers
        .as_deref()
        .ok_or(SignatureError::NoAllowedSigners)?;
    port.check_allowed_signers(allowed)?;
    let parsed = parse_envelope(envelope)?;
    if parsed.signatures.is_empty() {
        return Err(SignatureError::Missing);
    }
    if parsed.payload != expected_statement {
        return Err(SignatureError::Invalid(
            "the envelope carries another statement than the one derived for this lineage".into(),
        ));
    }
    let message = statement_pae(&parsed.payload);
    let mut first_refusal = None;
    for sig in &parsed.signatures {
        if failed.exhausted(sig) {
            continue;
        }
        match verify_one(port, allowed, sig, &message) {
            Ok(signer) => return Ok(signer),
            Err(e) if e.is_denial() => {
                failed.record(sig);
                first_refusal.get_or_insert(e);
            }
            Err(e) => return Err(e),
        }
    }
    Err(first_refusal.unwrap_or(SignatureError::Missing))
}

fn verify_one<P: SshSignatures + ?Sized>(
    port: &P,
    allowed: &Path,
    sig: &SshSig,
    message: &[u8],
) -> Result<Signer, SignatureError> {
    if sig.namespace != NAMESPACE {
        return Err(SignatureError::Invalid(format!(
            "made in namespace `{}`, not `{}`",
            sig.namespace, NAMESPACE
        )));
    }
    let not_allowed = || SignatureError::SignerNotAllowed {
        keyid: sig.fingerprint(),
        allowed_signers: allowed.display().to_string(),
    };
    // A key no allowed signer holds is refused before any tool runs.
    if !port.may_list(allowed, sig).map_err(SignatureError::Tool)? {
        return Err(not_allowed());
    }
    if !port.check(sig, message).map_err(SignatureError::Tool)? {
        return Err(SignatureError::Invalid(format!(
            "the signature by {} does not verify over the statement's PAE",
            sig.fingerprint()
        )));
    }
    let principals = port
        .find_principals(allowed, sig)
        .map_err(SignatureError::Tool)?;
    for principal in principals {
        if port
            .verify(allowed, &principal, sig, message)
            .map_err(SignatureError::Tool)?
        {
            return Ok(Signer {
                principal,
                keyid: sig.fingerprint(),
                key_type: sig.key_type.clone(),
            });
        }
    }
    Err(not_allowed())
}

/// The gate's use: the envelopes a bundle carries (its `attestations`)
/// for one statement. Without `policy.require_signature` nothing is
/// checked (`Ok(None)`: an unsigned attestation is what Probity has always
/// accepted). With it: no envelope → `signature_missing`; otherwise the
/// first envelope that verifies gives the signer, and when none does, the
/// first envelope's refusal answers.
pub fn check_attestations<P: SshSignatures + ?Sized>(
    port: &P,
    envelopes: &[&[u8]],
    expected_statement: &[u8],
    policy: &SignaturePolicy,
) -> Result<Option<Signer>, SignatureError> {
    if !policy.require_signature {
        return Ok(None);
    }
    let mut first_refusal = None;
    let mut failed = Failures::new();
    for env in envelopes {
        match verify_envelope_bounded(port, env, expected_statement, policy, &mut failed) {
            Ok(signer) => return Ok(Some(signer)),
            Err(e) => {
                first_refusal.get_or_insert(e);
            }
        }
    }
    Err(first_refusal.unwrap_or(SignatureError::Missing))
}

/// How many signatures by one key [`verified_keys`] tries for one
/// statement before it stops trying that key: a key has one valid
/// signature per statement and hash (two hashes are allowed), so a third
/// failure is a note that carries junk.
const MAX_FAILED_PER_KEY: usize = 2;

/// Every key whose signature, in any of `envelopes`, verifies over exactly
/// `expected_statement` under `allowed_signers`, with every principal it
/// verified under (one entry per key, whatever number of envelopes carry
/// it): what a repository policy's roles are assigned from
/// ([`probity_core::review::RepoPolicy::assign_roles`]). An
/// envelope that is malformed or vouches for another statement, and a
/// signature that does not verify or whose key is unlisted, contributes
/// nothing; only a failure to run `ssh-keygen` is an error.
pub fn verified_keys<P: SshSignatures + ?Sized>(
    port: &P,
    envelopes: &[&[u8]],
    expected_statement: &[u8],
    allowed_signers: &Path,
) -> Result<Vec<probity_core::review::VerifiedKey>, SignatureError> {
    use probity_core::review::VerifiedKey;
    let mut keys: Vec<VerifiedKey> = Vec::new();
    // Signatures by a key that failed to verify, per key: past
    // `MAX_FAILED_PER_KEY` its other signatures are not tried.
    let mut failed = Failures::new();
    let message = statement_pae(expected_statement);
    for env in envelopes {
        let Ok(parsed) = parse_envelope(env) else {
            continue;
        };
        if parsed.payload != expected_statement {
            continue;
        }
        for sig in &parsed.signatures {
            let keyid = sig.fingerprint();
            // One verified signature per key is all a role needs, and a key
            // whose signatures keep failing, or that no allowed signer
            // holds, is not asked of the tool again: the work per statement
            // is bounded by the allowed signers, not by the signatures a
            // note carries (red team round 2).
            if sig.namespace != NAMESPACE
                || keys.iter().any(|k| k.keyid == keyid)
                || failed.exhausted(sig)
                || !port
                    .may_list(allowed_signers, sig)
                    .map_err(SignatureError::Tool)?
            {
                continue;
            }
            if !port.check(sig, &message).map_err(SignatureError::Tool)? {
                failed.record(sig);
                continue;
            }
            let mut principals = Vec::new();
            for p in port
                .find_principals(allowed_signers, sig)
                .map_err(SignatureError::Tool)?
            {
                if port
                    .verify(allowed_signers, &p, sig, &message)
                    .map_err(SignatureError::Tool)?
                {
                    principals.push(p);
                }
            }
            if principals.is_empty() {
                failed.record(sig);
                continue;
            }
            principals.sort();
            principals.dedup();
            keys.push(VerifiedKey { keyid, principals });
        }
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;
    use probity_core::review::base64;
    use probity_core::review::{PAYLOAD_TYPE, parse_sshsig};

    /// A port with fixed answers: which messages verify, which keys are
    /// listed.
    struct Fake {
        valid_over: Vec<u8>,
        listed: bool,
    }

    impl SshSignatures for Fake {
        fn check_allowed_signers(&self, _: &Path) -> Result<(), AllowedSignersError> {
            Ok(())
        }
        fn sign(&self, _: &[u8]) -> Result<Vec<u8>, AdapterError> {
            Ok(b"not a signature".to_vec())
        }
        fn check(&self, _: &SshSig, message: &[u8]) -> Result<bool, AdapterError> {
            Ok(message == self.valid_over.as_slice())
        }
        fn find_principals(&self, _: &Path, _: &SshSig) -> Result<Vec<String>, AdapterError> {
            Ok(if self.listed {
                vec!["alice".into()]
            } else {
                vec![]
            })
        }
        fn verify(&self, _: &Path, _: &str, s: &SshSig, m: &[u8]) -> Result<bool, AdapterError> {
            self.check(s, m)
        }
    }

    fn blob() -> Vec<u8> {
        fn s(out: &mut Vec<u8>, b: &[u8]) {
            out.extend_from_slice(&(b.len() as u32).to_be_bytes());
            out.extend_from_slice(b);
        }
        let mut key = Vec::new();
        s(&mut key, b"ssh-ed25519");
        s(&mut key, &[1u8; 32]);
        let mut out = b"SSHSIG".to_vec();
        out.extend_from_slice(&1u32.to_be_bytes());
        s(&mut out, &key);
        s(&mut out, b"probity");
        s(&mut out, b"");
        s(&mut out, b"sha512");
        s(&mut out, b"sig");
        out
    }

    fn envelope(statement: &[u8]) -> Vec<u8> {
        envelope_bytes(statement, &parse_sshsig(&blob()).unwrap()).unwrap()
    }

    fn policy(required: bool) -> SignaturePolicy {
        SignaturePolicy {
            require_signature: required,
            allowed_signers: Some(PathBuf::from("allowed_signers")),
        }
    }

    /// Counts every tool run; keys are told apart by the first byte of
    /// their key material.
    struct Counting {
        listed: Vec<u8>,
        valid: Vec<u8>,
        message: Vec<u8>,
        runs: std::cell::Cell<usize>,
    }

    fn key_of(sig: &SshSig) -> u8 {
        sig.public_key[sig.public_key.len() - 32]
    }

    impl SshSignatures for Counting {
        fn check_allowed_signers(&self, _: &Path) -> Result<(), AllowedSignersError> {
            Ok(())
        }
        fn sign(&self, _: &[u8]) -> Result<Vec<u8>, AdapterError> {
            Ok(Vec::new())
        }
        fn may_list(&self, _: &Path, sig: &SshSig) -> Result<bool, AdapterError> {
            Ok(self.listed.contains(&key_of(sig)))
        }
        fn check(&self, sig: &SshSig, message: &[u8]) -> Result<bool, AdapterError> {
            self.runs.set(self.runs.get() + 1);
            Ok(message == self.message.as_slice()
                && self.valid.contains(&key_of(sig))
                && sig.blob.ends_with(b"good"))
        }
        fn find_principals(&self, _: &Path, sig: &SshSig) -> Result<Vec<String>, AdapterError> {
            self.runs.set(self.runs.get() + 1);
            Ok(vec![format!("p{}", key_of(sig))])
        }
        fn verify(&self, _: &Path, _: &str, s: &SshSig, m: &[u8]) -> Result<bool, AdapterError> {
            self.check(s, m)
        }
    }

    /// An envelope over `statement` signed by key `key` with `sig` bytes.
    fn signed_by(statement: &[u8], key: u8, sig: &[u8]) -> Vec<u8> {
        signed_with(statement, "ssh-ed25519", key, sig)
    }

    /// [`signed_by`] with a key of type `key_type`.
    fn signed_with(statement: &[u8], key_type: &str, key: u8, sig: &[u8]) -> Vec<u8> {
        fn s(out: &mut Vec<u8>, b: &[u8]) {
            out.extend_from_slice(&(b.len() as u32).to_be_bytes());
            out.extend_from_slice(b);
        }
        let mut public = Vec::new();
        s(&mut public, key_type.as_bytes());
        s(&mut public, &[key; 32]);
        let mut blob = b"SSHSIG".to_vec();
        blob.extend_from_slice(&1u32.to_be_bytes());
        s(&mut blob, &public);
        s(&mut blob, b"probity");
        s(&mut blob, b"");
        s(&mut blob, b"sha512");
        s(&mut blob, sig);
        envelope_bytes(statement, &parse_sshsig(&blob).unwrap()).unwrap()
    }

    /// Red team round 2: a note whose envelopes carry many signatures made
    /// the server run `ssh-keygen` three times for each. A key no allowed
    /// signer holds costs no run; a listed key is verified once, and tried
    /// at most twice more when its signatures fail; so the runs per
    /// statement are bounded by the allowed signers, not by the note.
    #[test]
    fn the_tool_runs_per_statement_are_bounded_by_the_allowed_signers() {
        let stmt = b"{\"s\":1}";
        let port = Counting {
            listed: vec![1, 2],
            valid: vec![1, 2, 9],
            message: statement_pae(stmt),
            runs: std::cell::Cell::new(0),
        };
        let mut envs = Vec::new();
        // Valid signatures by 200 unlisted keys (one key repeated: its
        // material is the same byte), junk by listed key 2, then key 1's
        // valid signature, key 1 again, and key 2's valid one after its
        // junk.
        for _ in 0..200 {
            envs.push(signed_by(stmt, 9, b"good"));
        }
        for i in 0..50u8 {
            envs.push(signed_by(stmt, 2, &[b'x', i]));
        }
        envs.push(signed_by(stmt, 1, b"good"));
        for _ in 0..50 {
            envs.push(signed_by(stmt, 1, b"good"));
        }
        envs.push(signed_by(stmt, 2, b"good"));
        // Key 2: two failed checks, then never tried again (its valid
        // signature after 50 junk ones is not reached: a denial, never an
        // allow). Key 1: check, find, verify, once. The same bound where
        // `probity.requireSignature` asks any allowed signature: key 1's is
        // found after key 2's two failures.
        only_key_1_verifies(&port, &envs, stmt, 2 + 3);
    }

    /// Key 1 alone verifies among `envs`, both for the roles
    /// ([`verified_keys`]) and for any allowed signature
    /// ([`check_attestations`]), each after `runs` tool runs.
    fn only_key_1_verifies(port: &Counting, envs: &[Vec<u8>], stmt: &[u8], runs: usize) {
        let refs: Vec<&[u8]> = envs.iter().map(Vec::as_slice).collect();
        port.runs.set(0);
        let keys = verified_keys(port, &refs, stmt, Path::new("allowed")).unwrap();
        let ids: Vec<String> = keys.iter().map(|k| k.principals.join(",")).collect();
        assert_eq!(ids, ["p1"]);
        assert_eq!(port.runs.get(), runs, "{} runs", port.runs.get());
        port.runs.set(0);
        let signer = check_attestations(port, &refs, stmt, &policy(true))
            .unwrap()
            .unwrap();
        assert_eq!(signer.principal, "p1");
        assert_eq!(port.runs.get(), runs, "{} runs", port.runs.get());
    }

    /// Red team round 4: under a `cert-authority` line every certificate
    /// may be listed, so the allowed signers no longer bound the keys a
    /// note names. 16 envelopes of 16 junk certificate signatures (256
    /// distinct keys) cost four checks per statement, then no certificate
    /// is tried (D-R126); a plain key's valid signature still counts.
    #[test]
    fn certificate_signatures_that_fail_are_tried_at_most_four_times_per_statement() {
        let stmt = b"{\"s\":1}";
        let port = Counting {
            listed: (0..=255).collect(),
            valid: vec![1, 7],
            message: statement_pae(stmt),
            runs: std::cell::Cell::new(0),
        };
        let cert = "ssh-ed25519-cert-v01@openssh.com";
        let mut envs = Vec::new();
        for k in 0..=255u8 {
            if k != 1 && k != 7 {
                envs.push(signed_with(stmt, cert, k, b"junk"));
            }
        }
        // A certificate's valid signature after the junk: not reached (a
        // denial, never an allow); a plain listed key's is.
        envs.push(signed_with(stmt, cert, 7, b"good"));
        envs.push(signed_by(stmt, 1, b"good"));
        only_key_1_verifies(&port, &envs, stmt, 4 + 3);
    }

    #[test]
    fn verification_answers_in_order() {
        let stmt = b"{\"s\":1}";
        let ok = Fake {
            valid_over: statement_pae(stmt),
            listed: true,
        };
        let env = envelope(stmt);
        let signer = verify_envelope(&ok, &env, stmt, &policy(false)).unwrap();
        assert_eq!(signer.principal, "alice");
        // No allowed signers: an error before anything is read.
        let none = SignaturePolicy::default();
        assert!(matches!(
            verify_envelope(&ok, &env, stmt, &none),
            Err(SignatureError::NoAllowedSigners)
        ));
        // Other bytes than the derived statement.
        let e = verify_envelope(&ok, &env, b"{\"s\":2}", &policy(false)).unwrap_err();
        assert_eq!(e.code(), "signature_invalid");
        // A signature over something else (the PAE is what is signed).
        let bare = Fake {
            valid_over: stmt.to_vec(),
            listed: true,
        };
        let e = verify_envelope(&bare, &env, stmt, &policy(false)).unwrap_err();
        assert_eq!(e.code(), "signature_invalid");
        // Valid, unlisted.
        let unlisted = Fake {
            valid_over: statement_pae(stmt),
            listed: false,
        };
        let e = verify_envelope(&unlisted, &env, stmt, &policy(false)).unwrap_err();
        assert_eq!(e.code(), "signer_not_allowed");
        assert!(e.is_denial());
        // Signer output that is not a signature is refused.
        let e = sign_statement(&ok, stmt).unwrap_err();
        assert_eq!(e.code(), "bad_signature_output");
        assert!(!e.is_denial());
    }

    #[test]
    fn a_gate_checks_only_when_required_and_any_envelope_may_vouch() {
        let stmt = b"{\"s\":1}";
        let ok = Fake {
            valid_over: statement_pae(stmt),
            listed: true,
        };
        assert_eq!(
            check_attestations(&ok, &[], stmt, &policy(false)).unwrap(),
            None
        );
        let e = check_attestations(&ok, &[], stmt, &policy(true)).unwrap_err();
        assert_eq!(e.code(), "signature_missing");
        let env = envelope(stmt);
        let unsigned = format!(
            "{{\"payload\":\"{}\",\"payloadType\":\"{}\",\"signatures\":[]}}",
            base64(stmt),
            PAYLOAD_TYPE
        );
        let both: [&[u8]; 3] = [b"{", unsigned.as_bytes(), &env];
        let signer = check_attestations(&ok, &both, stmt, &policy(true)).unwrap();
        assert_eq!(signer.map(|s| s.principal), Some("alice".into()));
        // None vouches: the first envelope's refusal answers.
        let e = check_attestations(&ok, &both[..2], stmt, &policy(true)).unwrap_err();
        assert_eq!(e.code(), "bad_envelope");
        let e = check_attestations(&ok, &both[1..2], stmt, &policy(true)).unwrap_err();
        assert_eq!(e.code(), "signature_missing");
    }
}
