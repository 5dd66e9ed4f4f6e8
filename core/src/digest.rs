//! SHA-256 identities with versioned domain separators.
//!
//! Every hashed preimage in Probity is `domain || 0x00 || bytes`, where the
//! domain is a versioned ASCII label such as `probity/paths-digest/v1` and the
//! bytes are canonical (RFC 8785 JSON, see [`crate::canonical`]) or raw
//! evidence bytes. Identities render as `sha256:<64 lowercase hex>`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha2::{Digest as _, Sha256};

/// A versioned domain separator. The label is part of every preimage, so two
/// documents of different kinds can never share an identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Domain(&'static str);

impl Domain {
    /// Creates a domain separator. Labels are compile-time constants.
    pub const fn new(label: &'static str) -> Self {
        Self(label)
    }

    /// The label, e.g. `probity/paths-digest/v1`.
    pub const fn label(self) -> &'static str {
        self.0
    }
}

/// A SHA-256 identity, rendered `sha256:<hex>`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sha256Digest([u8; 32]);

impl Sha256Digest {
    /// Hashes `domain || 0x00 || bytes`.
    pub fn of(domain: Domain, bytes: &[u8]) -> Self {
        let mut h = Sha256::new();
        h.update(domain.0.as_bytes());
        h.update([0u8]);
        h.update(bytes);
        Self(h.finalize().into())
    }

    /// A plain SHA-256 of bytes, without a domain. Used only where an external
    /// format fixes the preimage (e.g. a file digest in a manifest).
    pub fn plain(bytes: &[u8]) -> Self {
        Self(Sha256::digest(bytes).into())
    }

    /// Wraps raw digest bytes.
    pub const fn from_bytes(bytes: [u8; 32]) -> Self {
        Self(bytes)
    }

    /// The raw digest bytes.
    pub const fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// Lowercase hex of the 32 bytes, without the `sha256:` prefix.
    pub fn hex(&self) -> String {
        let mut s = String::with_capacity(64);
        for b in self.0 {
            s.push(HEX[(b >> 4) as usize] as char);
            s.push(HEX[(b & 0xf) as usize] as char);
        }
        s
    }

    /// Parses bare lowercase hex (64 characters).
    pub fn from_hex(hex: &str) -> Result<Self, DigestParseError> {
        let bytes = hex.as_bytes();
        if bytes.len() != 64 {
            return Err(DigestParseError::Length(bytes.len()));
        }
        let mut out = [0u8; 32];
        for (i, pair) in bytes.chunks_exact(2).enumerate() {
            out[i] = (nibble(pair[0])? << 4) | nibble(pair[1])?;
        }
        Ok(Self(out))
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

fn nibble(c: u8) -> Result<u8, DigestParseError> {
    match c {
        b'0'..=b'9' => Ok(c - b'0'),
        b'a'..=b'f' => Ok(c - b'a' + 10),
        _ => Err(DigestParseError::NotLowerHex),
    }
}

/// Why a string is not a `sha256:<hex>` identity.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DigestParseError {
    /// The rendered form lacks the `sha256:` prefix.
    #[error("a digest must start with `sha256:`")]
    Prefix,
    /// The hex part is not exactly 64 characters; carries the length found
    /// (in bytes).
    #[error("a digest must have 64 hex characters, found {0}")]
    Length(usize),
    /// The hex part holds a character outside `0-9a-f` (uppercase hex
    /// included).
    #[error("a digest must be lowercase hex")]
    NotLowerHex,
}

/// A plain SHA-256 fed in pieces (a large file read in chunks by an
/// adapter); the same digest as [`Sha256Digest::plain`] of the whole.
#[derive(Debug, Clone, Default)]
pub struct PlainSha256(Sha256);

impl PlainSha256 {
    /// Adds bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// The digest of everything added.
    pub fn finish(self) -> Sha256Digest {
        Sha256Digest(self.0.finalize().into())
    }
}

/// A domain-separated SHA-256 fed in pieces (evidence streamed from a file
/// or a process by an adapter); the same digest as [`Sha256Digest::of`] of
/// the whole.
#[derive(Debug, Clone)]
pub struct DomainSha256(Sha256);

impl DomainSha256 {
    /// Starts `domain || 0x00 || ...`.
    pub fn new(domain: Domain) -> Self {
        let mut h = Sha256::new();
        h.update(domain.0.as_bytes());
        h.update([0u8]);
        Self(h)
    }

    /// Adds bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// The digest of everything added.
    pub fn finish(self) -> Sha256Digest {
        Sha256Digest(self.0.finalize().into())
    }
}

impl fmt::Display for Sha256Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sha256:{}", self.hex())
    }
}

impl fmt::Debug for Sha256Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl FromStr for Sha256Digest {
    type Err = DigestParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let hex = s.strip_prefix("sha256:").ok_or(DigestParseError::Prefix)?;
        Self::from_hex(hex)
    }
}

impl Serialize for Sha256Digest {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Sha256Digest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

impl schemars::JsonSchema for Sha256Digest {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Sha256Digest".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^sha256:[0-9a-f]{64}$",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domain_separates_identical_bytes() {
        let a = Sha256Digest::of(Domain::new("probity/a/v1"), b"x");
        let b = Sha256Digest::of(Domain::new("probity/b/v1"), b"x");
        assert_ne!(a, b);
    }

    #[test]
    fn renders_and_parses() {
        let d = Sha256Digest::of(Domain::new("probity/test/v1"), b"");
        let s = d.to_string();
        assert!(s.starts_with("sha256:") && s.len() == 71);
        assert_eq!(s.parse::<Sha256Digest>(), Ok(d));
    }

    #[test]
    fn preimage_is_label_nul_bytes() {
        // sha256("t\0abc") computed independently.
        let d = Sha256Digest::of(Domain::new("t"), b"abc");
        assert_eq!(d, Sha256Digest::plain(b"t\0abc"));
    }

    #[test]
    fn streamed_domain_digest_equals_whole() {
        let d = Domain::new("probity/test/v1");
        let mut h = DomainSha256::new(d);
        h.update(b"ab");
        h.update(b"");
        h.update(b"c");
        assert_eq!(h.finish(), Sha256Digest::of(d, b"abc"));
    }

    #[test]
    fn rejects_malformed() {
        assert_eq!(
            "md5:00".parse::<Sha256Digest>(),
            Err(DigestParseError::Prefix)
        );
        assert_eq!(
            "sha256:00".parse::<Sha256Digest>(),
            Err(DigestParseError::Length(2))
        );
        let upper = format!("sha256:{}", "A".repeat(64));
        assert_eq!(
            upper.parse::<Sha256Digest>(),
            Err(DigestParseError::NotLowerHex)
        );
    }
}
