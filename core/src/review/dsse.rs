//! Signed attestations: the in-toto statement of `probity attest` in a DSSE
//! envelope (<https://github.com/secure-systems-lab/dsse>, protocol v1),
//! signed with an SSH key (`ssh-keygen -Y sign -n probity`).
//!
//! Pure: the pre-authentication encoding (PAE), the envelope's canonical
//! bytes, a bounded strict parser, base64 (both alphabets, as DSSE asks of
//! verifiers), and the SSHSIG blob (OpenSSH `PROTOCOL.sshsig`): its armor,
//! its fields and the SHA-256 fingerprint of the key inside it. Whether a
//! signature verifies, and whether its key is allowed, is for `ssh-keygen`
//! (an adapter) and the allowed-signers file to say.
//!
//! The `sig` field holds the base64 of the SSHSIG *blob* (the bytes inside
//! the `-----BEGIN SSH SIGNATURE-----` armor), not of the armored text: the
//! armor is a transport encoding of those bytes, and DSSE's `sig` is
//! already one. The blob carries the public key, the namespace and the hash
//! algorithm, so `keyid` (the key's `SHA256:` fingerprint, as `ssh-keygen
//! -l` prints it) is derived from the signature itself and must agree with
//! it.

use serde::{Deserialize, Serialize};

use crate::canonical::{CanonicalError, canonical_bytes};
use crate::digest::Sha256Digest;
use crate::review::export::base64;

/// DSSE `payloadType` of an in-toto statement.
pub const PAYLOAD_TYPE: &str = "application/vnd.in-toto+json";
/// The SSH signature namespace (`ssh-keygen -Y sign -n probity`): a
/// signature made for another purpose (a Git commit: `git`, a file:
/// `file`) never verifies as an attestation.
pub const NAMESPACE: &str = "probity";
/// The largest envelope accepted, in bytes. A statement is a receipt (14
/// fields) and two subjects: a few KiB. 1 MiB leaves room for many
/// signatures and refuses anything that is not an envelope before parsing
/// it.
pub const MAX_ENVELOPE_BYTES: usize = 1 << 20;
/// The most signatures one envelope may carry.
pub const MAX_SIGNATURES: usize = 16;

const MAGIC: &[u8; 6] = b"SSHSIG";
const ARMOR_BEGIN: &str = "-----BEGIN SSH SIGNATURE-----";
const ARMOR_END: &str = "-----END SSH SIGNATURE-----";

/// Why bytes are not a usable envelope or signature. Nothing about
/// cryptographic validity: these are shapes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvelopeError {
    /// The bytes are over [`MAX_ENVELOPE_BYTES`]; refused before parsing.
    #[error("the envelope is {size} bytes; at most {max} are accepted")]
    TooLarge {
        /// The bytes given.
        size: usize,
        /// The bound, [`MAX_ENVELOPE_BYTES`].
        max: usize,
    },
    /// Not the envelope's JSON shape (not JSON, a missing or unknown
    /// field), or a payload that is not a Probity statement; carries why.
    #[error("not a DSSE envelope: {0}")]
    Malformed(String),
    /// A `payloadType` other than [`PAYLOAD_TYPE`]; carries the one given.
    #[error("payloadType is `{0}`; Probity attestations are `{PAYLOAD_TYPE}`")]
    PayloadType(String),
    /// More than [`MAX_SIGNATURES`] signatures; carries how many.
    #[error("the envelope carries {0} signatures; at most {MAX_SIGNATURES} are accepted")]
    TooManySignatures(usize),
    /// The payload or a signature does not decode as base64 (either
    /// alphabet).
    #[error("{field} is not base64: {detail}")]
    Base64 {
        /// Which field: `payload` or `signatures[<i>].sig`.
        field: String,
        /// Why it does not decode, e.g. `bad padding`.
        detail: String,
    },
    /// A signature's decoded bytes are not a well-formed SSHSIG blob.
    #[error("signature {index} is not an SSH signature (SSHSIG): {detail}")]
    NotSshSig {
        /// The signature's 0-based index in `signatures`.
        index: usize,
        /// What is wrong with the blob.
        detail: String,
    },
    /// A signature's `keyid` is not the fingerprint of the key inside its
    /// SSHSIG blob.
    #[error("signature {index}: keyid `{keyid}` is not the fingerprint of its key ({fingerprint})")]
    KeyIdMismatch {
        /// The signature's 0-based index in `signatures`.
        index: usize,
        /// The `keyid` given.
        keyid: String,
        /// The blob's key fingerprint, `SHA256:` and unpadded base64.
        fingerprint: String,
    },
}

/// The DSSE pre-authentication encoding:
/// `"DSSEv1" SP LEN(type) SP type SP LEN(body) SP body`, lengths in ASCII
/// decimal with no leading zeros. This is what is signed, never the body
/// alone, so a signature cannot be replayed under another type.
pub(crate) fn pae(payload_type: &str, body: &[u8]) -> Vec<u8> {
    let t = payload_type.as_bytes();
    let mut out = Vec::with_capacity(32 + t.len() + body.len());
    out.extend_from_slice(b"DSSEv1 ");
    out.extend_from_slice(t.len().to_string().as_bytes());
    out.push(b' ');
    out.extend_from_slice(t);
    out.push(b' ');
    out.extend_from_slice(body.len().to_string().as_bytes());
    out.push(b' ');
    out.extend_from_slice(body);
    out
}

/// The PAE of an in-toto statement: the bytes `ssh-keygen` signs.
pub fn statement_pae(statement: &[u8]) -> Vec<u8> {
    pae(PAYLOAD_TYPE, statement)
}

/// The JSON envelope (DSSE `envelope.md`): what `attest --sign` prints,
/// what `attest verify` parses, and what bundles and notes carry.
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct Envelope {
    /// `payloadType`: the media type of the payload;
    /// `application/vnd.in-toto+json` for a Probity attestation.
    #[serde(rename = "payloadType")]
    pub payload_type: String,
    /// Base64 of the statement's canonical bytes.
    pub payload: String,
    /// The signatures over the PAE of `payloadType` and the payload bytes;
    /// at least one in a bundle, at most 16.
    pub signatures: Vec<EnvelopeSignature>,
}

/// One signature of an envelope.
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct EnvelopeSignature {
    /// Unauthenticated hint (DSSE): the `SHA256:` fingerprint of the key.
    /// Optional on input; when present it must match the signature's key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keyid: Option<String>,
    /// Base64 of the SSHSIG blob.
    pub sig: String,
}

/// An SSHSIG blob, parsed (OpenSSH `PROTOCOL.sshsig`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SshSig {
    /// The whole blob (what the armor carries).
    pub blob: Vec<u8>,
    /// The signer's public key, SSH wire format.
    pub public_key: Vec<u8>,
    /// The key type named inside the public key, e.g. `ssh-ed25519`.
    pub key_type: String,
    /// The namespace the signature was made for; [`NAMESPACE`] for an
    /// attestation (checked when it is verified, not when parsed).
    pub namespace: String,
    /// The hash the signed message went through, as the blob names it
    /// (`sha512` or `sha256` in `PROTOCOL.sshsig`; not checked here).
    pub hash_algorithm: String,
}

impl SshSig {
    /// The key's fingerprint as `ssh-keygen -l` prints it:
    /// `SHA256:` + unpadded base64 of SHA-256 over the public key blob.
    pub fn fingerprint(&self) -> String {
        fingerprint(&self.public_key)
    }

    /// The armored text `ssh-keygen -Y verify -s` reads.
    pub fn armored(&self) -> String {
        armor(&self.blob)
    }
}

/// `SHA256:<unpadded base64>` of a public key blob.
pub fn fingerprint(public_key: &[u8]) -> String {
    let b = base64(Sha256Digest::plain(public_key).as_bytes());
    format!("SHA256:{}", b.trim_end_matches('='))
}

/// Whether an allowed-signers file (`ssh-keygen`'s format: principals,
/// options, key type, base64 key) may list the key `public_key` (SSH wire
/// format): `false` only when it certainly does not. Comment lines (`#`)
/// list nothing. A line lists the key when it holds that key's base64 as
/// a word; a line whose options field holds `cert-authority` lists only
/// certificates (`*-cert-v01@openssh.com` keys), and only one whose bytes
/// hold that authority's key (a certificate carries the key that signed
/// it): a plain key never verifies under an authority line, whatever it
/// signed. A gate asks `ssh-keygen` about a signature only when this is
/// `true`: a key no allowed signer holds costs no process, however many
/// signatures carry it (red team rounds 2 and 4, D-R119, D-R126).
pub fn allowed_signers_may_list(file: &[u8], public_key: &[u8]) -> bool {
    let key = base64(public_key);
    let certificate = is_certificate_key(public_key);
    file.split(|b| *b == b'\n').any(|line| {
        let line = String::from_utf8_lossy(line);
        let words = allowed_signers_words(&line);
        if words.first().is_none_or(|w| w.starts_with('#')) {
            return false;
        }
        if words.iter().any(|w| *w == key) {
            return true;
        }
        // `principals options keytype base64`: the options are the second
        // field when the line has four or more (a key type never holds `=`
        // or a comma, options may).
        certificate
            && words.len() >= 4
            && allowed_signers_options(words[1]).any(|o| o.eq_ignore_ascii_case("cert-authority"))
            && decode_base64(words[3]).is_ok_and(|ca| {
                !ca.is_empty() && public_key.windows(ca.len()).any(|w| w == ca.as_slice())
            })
    })
}

/// Whether an SSH wire-format public key is a certificate: its type name
/// (the first string) ends in `-cert-v01@openssh.com`.
pub fn is_certificate_key(public_key: &[u8]) -> bool {
    let Some((len, rest)) = public_key.split_first_chunk::<4>() else {
        return false;
    };
    let len = u32::from_be_bytes(*len) as usize;
    rest.get(..len)
        .is_some_and(|name| name.ends_with(b"-cert-v01@openssh.com"))
}

/// An allowed-signers line's fields: split at unquoted white space (an
/// options field may quote values holding spaces).
fn allowed_signers_words(line: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let (mut start, mut quoted) = (None, false);
    for (i, c) in line.char_indices() {
        match c {
            '"' => {
                quoted = !quoted;
                start.get_or_insert(i);
            }
            c if c.is_ascii_whitespace() && !quoted => {
                if let Some(s) = start.take() {
                    words.push(&line[s..i]);
                }
            }
            _ => {
                start.get_or_insert(i);
            }
        }
    }
    if let Some(s) = start {
        words.push(&line[s..]);
    }
    words
}

/// An options field's options: split at unquoted commas.
fn allowed_signers_options(field: &str) -> impl Iterator<Item = &str> {
    let mut quoted = false;
    field.split(move |c| {
        if c == '"' {
            quoted = !quoted;
        }
        c == ',' && !quoted
    })
}

/// A parsed envelope: the payload bytes and each signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedEnvelope {
    /// The decoded payload: the statement's bytes.
    pub payload: Vec<u8>,
    /// Each signature's SSHSIG blob, parsed, in envelope order; may be
    /// empty (an unsigned envelope).
    pub signatures: Vec<SshSig>,
}

/// Builds the envelope for `statement` signed by the SSHSIG `signature`;
/// returns its canonical bytes (RFC 8785, no trailing newline).
pub fn envelope_bytes(statement: &[u8], signature: &SshSig) -> Result<Vec<u8>, CanonicalError> {
    canonical_bytes(&Envelope {
        payload_type: PAYLOAD_TYPE.into(),
        payload: base64(statement),
        signatures: vec![EnvelopeSignature {
            keyid: Some(signature.fingerprint()),
            sig: base64(&signature.blob),
        }],
    })
}

/// An envelope as a DSSE consumer reads it: the fields the specification
/// defines, any other field ignored (DSSE `envelope.md`: consumers must
/// ignore unknown fields). What Probity writes and carries in bundles is
/// the strict [`Envelope`].
#[derive(Deserialize)]
struct ConsumedEnvelope {
    #[serde(rename = "payloadType")]
    payload_type: String,
    payload: String,
    signatures: Vec<ConsumedSignature>,
}

/// One signature as a DSSE consumer reads it (unknown fields ignored).
#[derive(Deserialize)]
struct ConsumedSignature {
    #[serde(default)]
    keyid: Option<String>,
    sig: String,
}

/// Parses an envelope as a DSSE consumer: bounded, unknown fields ignored
/// (the specification's rule for consumers), the Probity payload type,
/// every signature an SSHSIG blob whose `keyid` (when given and not empty:
/// an empty `keyid` is unset, as DSSE says) is its key's fingerprint. An
/// envelope with no signatures parses (it is unsigned, which the verifier
/// answers as `signature_missing`).
pub fn parse_envelope(bytes: &[u8]) -> Result<ParsedEnvelope, EnvelopeError> {
    if bytes.len() > MAX_ENVELOPE_BYTES {
        return Err(EnvelopeError::TooLarge {
            size: bytes.len(),
            max: MAX_ENVELOPE_BYTES,
        });
    }
    let env: ConsumedEnvelope =
        serde_json::from_slice(bytes).map_err(|e| EnvelopeError::Malformed(e.to_string()))?;
    if env.payload_type != PAYLOAD_TYPE {
        return Err(EnvelopeError::PayloadType(env.payload_type));
    }
    if env.signatures.len() > MAX_SIGNATURES {
        return Err(EnvelopeError::TooManySignatures(env.signatures.len()));
    }
    let payload = decode_base64(&env.payload).map_err(|detail| EnvelopeError::Base64 {
        field: "payload".into(),
        detail,
    })?;
    let mut signatures = Vec::with_capacity(env.signatures.len());
    for (index, s) in env.signatures.iter().enumerate() {
        let blob = decode_base64(&s.sig).map_err(|detail| EnvelopeError::Base64 {
            field: format!("signatures[{index}].sig"),
            detail,
        })?;
        let sig =
            parse_sshsig(&blob).map_err(|detail| EnvelopeError::NotSshSig { index, detail })?;
        if let Some(keyid) = s.keyid.as_ref().filter(|k| !k.is_empty())
            && *keyid != sig.fingerprint()
        {
            return Err(EnvelopeError::KeyIdMismatch {
                index,
                keyid: keyid.clone(),
                fingerprint: sig.fingerprint(),
            });
        }
        signatures.push(sig);
    }
    Ok(ParsedEnvelope {
        payload,
        signatures,
    })
}

/// Parses an SSHSIG blob (`"SSHSIG" u32(1) string(publickey)
/// string(namespace) string(reserved) string(hash_algorithm)
/// string(signature)`), with nothing after it.
pub fn parse_sshsig(blob: &[u8]) -> Result<SshSig, String> {
    let rest = blob
        .strip_prefix(MAGIC.as_slice())
        .ok_or("missing the SSHSIG preamble")?;
    let mut r = Reader(rest);
    let version = r.u32()?;
    if version != 1 {
        return Err(format!("unsupported SSHSIG version {version}"));
    }
    let public_key = r.string()?.to_vec();
    let namespace = utf8(r.string()?, "namespace")?;
    let _reserved = r.string()?;
    let hash_algorithm = utf8(r.string()?, "hash algorithm")?;
    let signature = r.string()?;
    if !r.0.is_empty() {
        return Err(format!("{} trailing bytes", r.0.len()));
    }
    let key_type = utf8(Reader(&public_key).string()?, "key type")?;
    if signature.is_empty() {
        return Err("empty signature".into());
    }
    Ok(SshSig {
        blob: blob.to_vec(),
        public_key,
        key_type,
        namespace,
        hash_algorithm,
    })
}

fn utf8(b: &[u8], what: &str) -> Result<String, String> {
    String::from_utf8(b.to_vec()).map_err(|_| format!("the {what} is not UTF-8"))
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if self.0.len() < n {
            return Err("truncated".into());
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Ok(a)
    }
    fn u32(&mut self) -> Result<u32, String> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn string(&mut self) -> Result<&'a [u8], String> {
        let n = self.u32()? as usize;
        self.take(n)
    }
}

/// The armored text of an SSHSIG blob, as `ssh-keygen -Y sign` writes it
/// (base64 lines of 70 characters between the markers).
pub fn armor(blob: &[u8]) -> String {
    let b = base64(blob);
    let mut out = String::with_capacity(b.len() + 80);
    out.push_str(ARMOR_BEGIN);
    out.push('\n');
    let mut rest = b.as_str();
    while !rest.is_empty() {
        let (line, tail) = rest.split_at(rest.len().min(70));
        out.push_str(line);
        out.push('\n');
        rest = tail;
    }
    out.push_str(ARMOR_END);
    out.push('\n');
    out
}

/// Reads armored SSHSIG text (what `ssh-keygen -Y sign` prints) into the
/// parsed signature. Anything else (not UTF-8, no markers, not base64, not
/// an SSHSIG blob) is an error naming why.
pub fn dearmor(text: &[u8]) -> Result<SshSig, String> {
    let text = std::str::from_utf8(text).map_err(|_| "not UTF-8 text".to_string())?;
    let t = text.trim();
    let inner = t
        .strip_prefix(ARMOR_BEGIN)
        .and_then(|r| r.strip_suffix(ARMOR_END))
        .ok_or("not an armored SSH signature (no BEGIN/END SSH SIGNATURE markers)")?;
    let joined: String = inner.split_whitespace().collect();
    let blob = decode_base64(&joined)?;
    parse_sshsig(&blob)
}

/// Decodes base64, standard or URL-safe alphabet (DSSE: verifiers MUST
/// accept either), with or without padding. Whitespace is refused.
pub fn decode_base64(s: &str) -> Result<Vec<u8>, String> {
    let trimmed = s.trim_end_matches('=');
    let pad = s.len() - trimmed.len();
    if pad > 2 || (pad > 0 && !s.len().is_multiple_of(4)) {
        return Err("bad padding".into());
    }
    if trimmed.len() % 4 == 1 {
        return Err("truncated".into());
    }
    let mut out = Vec::with_capacity(trimmed.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for (i, c) in trimmed.bytes().enumerate() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return Err(format!("invalid character at offset {i}")),
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    // Leftover bits must be zero (one encoding per byte string).
    if acc != 0 {
        return Err("non-zero trailing bits".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_allowed_signers_file_may_list_a_key_only_by_its_base64_or_an_authority() {
        let key = b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20abcdefghijklmnopqrstuvwxyz012345";
        let b64 = base64(key);
        let other = base64(b"another key");
        let file = |body: String| body.into_bytes();
        assert!(allowed_signers_may_list(
            &file(format!("bob@example.org ssh-ed25519 {b64} bob\n")),
            key
        ));
        assert!(allowed_signers_may_list(
            &file(format!(
                "a@x ssh-ed25519 {other}\nb@x namespaces=\"probity\",valid-after=\"20200101\" ssh-ed25519 {b64}\n"
            )),
            key
        ));
        // Only other keys: certainly not listed.
        assert!(!allowed_signers_may_list(
            &file(format!("a@x ssh-ed25519 {other}\n# {b64}x\n")),
            key
        ));
        assert!(!allowed_signers_may_list(b"", key));
        // A certificate authority lists the certificates it signed: ask
        // ssh-keygen about a certificate that carries the authority's key.
        let ca = b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20the certificate authority's key";
        let mut cert = b"\x00\x00\x00\x20ssh-ed25519-cert-v01@openssh.com".to_vec();
        cert.extend_from_slice(b"\x00\x00\x00\x05nonce principals and validity");
        cert.extend_from_slice(ca);
        assert!(is_certificate_key(&cert) && !is_certificate_key(key));
        let ca_line = format!(
            "*@x cert-authority,namespaces=\"a, b\" ssh-ed25519 {}\n",
            base64(ca)
        );
        assert!(allowed_signers_may_list(&file(ca_line.clone()), &cert));
        // A plain key never verifies under an authority line, and a
        // certificate of another authority does not either (D-R126).
        assert!(!allowed_signers_may_list(&file(ca_line.clone()), key));
        let other_ca = format!("*@x cert-authority ssh-ed25519 {other}\n");
        assert!(!allowed_signers_may_list(&file(other_ca), &cert));
        // The word in a comment, or as a principal, is no authority; a
        // key's base64 in a comment lists nothing (red team round 4).
        for body in [
            format!("# no cert-authority is trusted here\na@x ssh-ed25519 {other}\n"),
            format!("cert-authority@x ssh-ed25519 {other}\n"),
            format!("  # bob@example.org ssh-ed25519 {b64}\n"),
        ] {
            assert!(
                !allowed_signers_may_list(&file(body.clone()), key),
                "{body}"
            );
            assert!(
                !allowed_signers_may_list(&file(body.clone()), &cert),
                "{body}"
            );
        }
    }

    use super::*;

    /// The DSSE protocol's own test vector (protocol.md, "Test Vectors").
    #[test]
    fn pae_matches_the_spec_test_vector() {
        assert_eq!(
            pae("http://example.com/HelloWorld", b"hello world"),
            b"DSSEv1 29 http://example.com/HelloWorld 11 hello world".to_vec()
        );
        assert_eq!(pae("", b""), b"DSSEv1 0  0 ".to_vec());
        // Lengths are bytes, not characters.
        assert_eq!(
            pae("t", "é".as_bytes()),
            "DSSEv1 1 t 2 é".as_bytes().to_vec()
        );
        assert_eq!(
            statement_pae(b"{}"),
            b"DSSEv1 28 application/vnd.in-toto+json 2 {}".to_vec()
        );
    }

    /// A syntactically valid SSHSIG blob (the signature bytes are not a
    /// real signature: parsing is about shape).
    fn blob(namespace: &str) -> Vec<u8> {
        fn s(out: &mut Vec<u8>, b: &[u8]) {
            out.extend_from_slice(&(b.len() as u32).to_be_bytes());
            out.extend_from_slice(b);
        }
        let mut key = Vec::new();
        s(&mut key, b"ssh-ed25519");
        s(&mut key, &[7u8; 32]);
        let mut sig = Vec::new();
        s(&mut sig, b"ssh-ed25519");
        s(&mut sig, &[9u8; 64]);
        let mut out = b"SSHSIG".to_vec();
        out.extend_from_slice(&1u32.to_be_bytes());
        s(&mut out, &key);
        s(&mut out, namespace.as_bytes());
        s(&mut out, b"");
        s(&mut out, b"sha512");
        s(&mut out, &sig);
        out
    }

    #[test]
    fn an_sshsig_blob_parses_and_round_trips_through_its_armor() {
        let b = blob("probity");
        let sig = parse_sshsig(&b).unwrap();
        assert_eq!(sig.key_type, "ssh-ed25519");
        assert_eq!(sig.namespace, "probity");
        assert_eq!(sig.hash_algorithm, "sha512");
        assert!(sig.fingerprint().starts_with("SHA256:"));
        assert!(!sig.fingerprint().ends_with('='));
        let armored = sig.armored();
        assert!(
            armored
                .lines()
                .all(|l| l.len() <= 70 || l.starts_with("-----"))
        );
        assert_eq!(dearmor(armored.as_bytes()).unwrap(), sig);
    }

    #[test]
    fn what_is_not_an_sshsig_is_refused() {
        let b = blob("probity");
        assert!(parse_sshsig(&b[..b.len() - 1]).is_err());
        let mut extra = b.clone();
        extra.push(0);
        assert!(parse_sshsig(&extra).is_err());
        assert!(parse_sshsig(b"PGPSIG....").is_err());
        let mut v2 = b.clone();
        v2[9] = 2;
        assert!(parse_sshsig(&v2).is_err());
        assert!(dearmor(b"hello").is_err());
        assert!(
            dearmor(b"-----BEGIN SSH SIGNATURE-----\n!!\n-----END SSH SIGNATURE-----\n").is_err()
        );
        assert!(dearmor(&[0xff, 0xfe]).is_err());
    }

    #[test]
    fn base64_decodes_both_alphabets_and_refuses_the_rest() {
        assert_eq!(decode_base64("aGVsbG8gd29ybGQ=").unwrap(), b"hello world");
        assert_eq!(decode_base64("aGVsbG8gd29ybGQ").unwrap(), b"hello world");
        assert_eq!(decode_base64("//4A").unwrap(), vec![0xff, 0xfe, 0]);
        assert_eq!(decode_base64("__4A").unwrap(), vec![0xff, 0xfe, 0]);
        assert_eq!(decode_base64("").unwrap(), Vec::<u8>::new());
        for bad in [
            "a",
            "aGVsbG8 ",
            "aGV=sbG8",
            "aGVsbG8===",
            "aGVsbG9=",
            "a*==",
        ] {
            assert!(decode_base64(bad).is_err(), "{bad}");
        }
        for n in 0..40u8 {
            let bytes: Vec<u8> = (0..n).map(|i| i.wrapping_mul(37)).collect();
            assert_eq!(decode_base64(&base64(&bytes)).unwrap(), bytes);
        }
    }

    #[test]
    fn an_envelope_round_trips_and_binds_keyid_to_the_signature() {
        let sig = parse_sshsig(&blob("probity")).unwrap();
        let bytes = envelope_bytes(b"{\"a\":1}", &sig).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(v["payloadType"], PAYLOAD_TYPE);
        assert_eq!(v["signatures"][0]["keyid"], sig.fingerprint());
        let parsed = parse_envelope(&bytes).unwrap();
        assert_eq!(parsed.payload, b"{\"a\":1}");
        assert_eq!(parsed.signatures, vec![sig.clone()]);

        let mut other = v.clone();
        other["signatures"][0]["keyid"] = "SHA256:other".into();
        let e = parse_envelope(other.to_string().as_bytes()).unwrap_err();
        assert!(matches!(e, EnvelopeError::KeyIdMismatch { index: 0, .. }));

        // keyid is optional (DSSE); no signature at all parses (unsigned).
        let mut no_keyid = v.clone();
        no_keyid["signatures"][0]
            .as_object_mut()
            .unwrap()
            .remove("keyid");
        assert!(parse_envelope(no_keyid.to_string().as_bytes()).is_ok());
        let mut unsigned = v.clone();
        unsigned["signatures"] = serde_json::json!([]);
        assert!(
            parse_envelope(unsigned.to_string().as_bytes())
                .unwrap()
                .signatures
                .is_empty()
        );
    }

    #[test]
    fn bad_envelopes_are_typed_errors() {
        let sig = parse_sshsig(&blob("probity")).unwrap();
        let good = envelope_bytes(b"{}", &sig).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&good).unwrap();
        assert!(matches!(
            parse_envelope(&good[..good.len() / 2]),
            Err(EnvelopeError::Malformed(_))
        ));
        assert!(matches!(
            parse_envelope(&vec![b' '; MAX_ENVELOPE_BYTES + 1]),
            Err(EnvelopeError::TooLarge { .. })
        ));
        let mut t = v.clone();
        t["payloadType"] = "application/json".into();
        assert!(matches!(
            parse_envelope(t.to_string().as_bytes()),
            Err(EnvelopeError::PayloadType(_))
        ));
        // DSSE: a consumer ignores unknown fields, in the envelope and in a
        // signature, and reads an empty keyid as unset (issue 23 §5).
        let mut u = v.clone();
        u["extra"] = 1.into();
        u["signatures"][0]["extra"] = serde_json::json!({"a": [1]});
        assert_eq!(
            parse_envelope(u.to_string().as_bytes()).unwrap(),
            parse_envelope(&good).unwrap()
        );
        let mut k = v.clone();
        k["signatures"][0]["keyid"] = "".into();
        assert_eq!(
            parse_envelope(k.to_string().as_bytes()).unwrap(),
            parse_envelope(&good).unwrap()
        );
        // The defined fields keep their types.
        let mut n = v.clone();
        n["signatures"][0]["keyid"] = 7.into();
        assert!(matches!(
            parse_envelope(n.to_string().as_bytes()),
            Err(EnvelopeError::Malformed(_))
        ));
        let mut p = v.clone();
        p["payload"] = "!!".into();
        assert!(matches!(
            parse_envelope(p.to_string().as_bytes()),
            Err(EnvelopeError::Base64 { .. })
        ));
        let mut s = v.clone();
        s["signatures"][0]["sig"] = base64(b"not a signature").into();
        assert!(matches!(
            parse_envelope(s.to_string().as_bytes()),
            Err(EnvelopeError::NotSshSig { index: 0, .. })
        ));
        let mut many = v.clone();
        many["signatures"] =
            serde_json::Value::Array(vec![v["signatures"][0].clone(); MAX_SIGNATURES + 1]);
        assert!(matches!(
            parse_envelope(many.to_string().as_bytes()),
            Err(EnvelopeError::TooManySignatures(_))
        ));
    }
}
