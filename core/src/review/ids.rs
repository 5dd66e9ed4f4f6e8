//! Identifiers and small value types, each parsed once at the boundary.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::calendar::UtcInstant;
use crate::review::lens::Lens;

/// Why a value is not a valid identifier.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    /// A tree, blob, commit or entry id that is not 40 (SHA-1) or 64
    /// (SHA-256) lowercase hex characters; carries the refused text.
    #[error("`{0}` is not a git object id (40 or 64 lowercase hex characters)")]
    ObjectId(String),
    /// A lineage id without the `review-` prefix or whose suffix is not
    /// exactly 16 lowercase hex characters (R2.9).
    #[error("`{0}` is not a lineage id (`review-` and 16 lowercase hex characters)")]
    LineageId(String),
    /// A finding id with an unknown lens prefix, a number that is not three
    /// digits, or a position outside 1..=999.
    #[error("`{0}` is not a finding id (`R<1-4>-<NNN>`)")]
    FindingId(String),
    /// A path that is empty, absolute, contains NUL, or has an empty, `.`
    /// or `..` component.
    #[error("`{value}` is not a repository-relative path: {why}")]
    RepoPath {
        /// The refused path, as given.
        value: String,
        /// Which rule it broke: `empty`, `contains NUL`, `absolute`,
        /// `empty component` or `` `.` or `..` component ``.
        why: &'static str,
    },
    /// A required text that is empty or only ECMA-262 whitespace.
    #[error("must not be empty or whitespace")]
    Blank,
    /// A start nonce that is not 32 lowercase hex characters.
    #[error("`{0}` is not a nonce (32 lowercase hex characters)")]
    Nonce(String),
    /// A timestamp not in the exact `YYYY-MM-DDTHH:MM:SSZ` form (second
    /// precision, UTC, `Z` suffix).
    #[error("`{0}` is not a UTC timestamp (YYYY-MM-DDTHH:MM:SSZ)")]
    Timestamp(String),
}

/// `string_newtype!(check, schema: /// docs Name, ...)`: one validated
/// string newtype per name, each parsed by `check` and described by the
/// JSON schema `schema` returns.
macro_rules! string_newtype {
    ($parse:path, $schema:path: $($(#[$m:meta])* $name:ident),+ $(,)?) => {$(
        $(#[$m])*
        #[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(String);

        impl $name {
            /// Parses and validates.
            pub fn parse(s: impl Into<String>) -> Result<Self, IdError> {
                let s = s.into();
                $parse(&s)?;
                Ok(Self(s))
            }
            /// The validated string.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({:?})", stringify!($name), self.0)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.0)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                Self::parse(s).map_err(serde::de::Error::custom)
            }
        }

        impl JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                $schema()
            }
        }
    )+};
}

fn is_lower_hex(s: &str) -> bool {
    s.bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The schema of every git object id: SHA-1 or SHA-256 hex.
fn object_id_schema() -> schemars::Schema {
    schemars::json_schema!({"type": "string", "pattern": "^([0-9a-f]{40}|[0-9a-f]{64})$"})
}

fn check_object_id(s: &str) -> Result<(), IdError> {
    if (s.len() == 40 || s.len() == 64) && is_lower_hex(s) {
        Ok(())
    } else {
        Err(IdError::ObjectId(s.to_string()))
    }
}

string_newtype!(check_object_id, object_id_schema:
    /// A git tree object id (SHA-1 or SHA-256 repositories).
    TreeId,
    /// A git blob object id.
    BlobId,
    /// A git commit object id.
    CommitId,
    /// Any git object id a tree entry names: a blob, or the commit of a
    /// gitlink.
    ObjectId,
);

fn lineage_schema() -> schemars::Schema {
    schemars::json_schema!({"type": "string", "pattern": "^review-[0-9a-f]{16}$"})
}

fn check_lineage(s: &str) -> Result<(), IdError> {
    match s.strip_prefix("review-") {
        Some(hex) if hex.len() == 16 && is_lower_hex(hex) => Ok(()),
        _ => Err(IdError::LineageId(s.to_string())),
    }
}

string_newtype!(check_lineage, lineage_schema:
    /// A lineage id: `review-` and 16 hex characters, always derived by code.
    LineageId
);

fn nonce_schema() -> schemars::Schema {
    schemars::json_schema!({"type": "string", "pattern": "^[0-9a-f]{32}$"})
}

fn check_nonce(s: &str) -> Result<(), IdError> {
    if s.len() == 32 && is_lower_hex(s) {
        Ok(())
    } else {
        Err(IdError::Nonce(s.to_string()))
    }
}

string_newtype!(check_nonce, nonce_schema:
    /// A start nonce from the clock port: 128 bits as 32 hex characters.
    Nonce
);

fn timestamp_schema() -> schemars::Schema {
    schemars::json_schema!({"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$"})
}

/// A review timestamp is the one instant type's canonical seconds form:
/// what [`UtcInstant::parse_rfc3339`] reads and
/// [`UtcInstant::rfc3339_seconds`] writes back byte for byte.
fn check_timestamp(s: &str) -> Result<(), IdError> {
    match UtcInstant::parse_rfc3339(s) {
        Ok(t) if t.rfc3339_seconds() == s => Ok(()),
        _ => Err(IdError::Timestamp(s.to_string())),
    }
}

string_newtype!(check_timestamp, timestamp_schema:
    /// A UTC timestamp with second precision, `YYYY-MM-DDTHH:MM:SSZ`: the
    /// seconds form of the one instant type ([`UtcInstant`]).
    Timestamp
);

impl Timestamp {
    /// Renders seconds since the Unix epoch (UTC).
    pub fn from_unix_seconds(secs: u64) -> Self {
        let secs = i64::try_from(secs).unwrap_or(i64::MAX);
        Self(UtcInstant::from_unix_seconds(secs).rfc3339_seconds())
    }

    /// The instant it names.
    pub fn instant(&self) -> UtcInstant {
        // Parsed at construction: the one parser read it then.
        UtcInstant::parse_rfc3339(&self.0).unwrap_or(UtcInstant::from_unix_seconds(0))
    }

    /// Seconds since the Unix epoch (UTC); `None` for a year before 1970.
    pub fn unix_seconds(&self) -> Option<u64> {
        u64::try_from(self.instant().unix_seconds()).ok()
    }
}

fn repo_path_schema() -> schemars::Schema {
    schemars::json_schema!({"type": "string", "minLength": 1})
}

fn check_repo_path(s: &str) -> Result<(), IdError> {
    let err = |why| {
        Err(IdError::RepoPath {
            value: s.to_string(),
            why,
        })
    };
    if s.is_empty() {
        return err("empty");
    }
    if s.contains('\0') {
        return err("contains NUL");
    }
    if s.starts_with('/') {
        return err("absolute");
    }
    for comp in s.split('/') {
        match comp {
            "" => return err("empty component"),
            "." | ".." => return err("`.` or `..` component"),
            _ => {}
        }
    }
    Ok(())
}

string_newtype!(check_repo_path, repo_path_schema:
    /// A repository-relative path as git records it: `/`-separated, UTF-8,
    /// no empty, `.` or `..` components.
    RepoPath
);

/// ECMA-262's `\s` (WhiteSpace and LineTerminator): exactly what the
/// published schemas' `"pattern": "\\S"` treats as blank, so parsing and
/// the schema agree on every string (Rust's `char::is_whitespace` differs on
/// U+0085, which ECMA-262 treats as text, and U+FEFF, which it treats as
/// space).
pub(crate) fn is_ecma_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\u{b}' | '\u{c}' | ' ' | '\u{a0}' | '\u{feff}'
            | '\n' | '\r' | '\u{2028}' | '\u{2029}'
            // The other space separators (Unicode category Zs).
            | '\u{1680}' | '\u{2000}'..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}'
    )
}

fn non_blank_schema() -> schemars::Schema {
    schemars::json_schema!({"type": "string", "minLength": 1, "pattern": "\\S"})
}

fn check_non_blank(s: &str) -> Result<(), IdError> {
    if s.chars().all(is_ecma_whitespace) {
        Err(IdError::Blank)
    } else {
        Ok(())
    }
}

string_newtype!(check_non_blank, non_blank_schema:
    /// A string that is neither empty nor only whitespace.
    NonBlank
);

/// A finding id: the lens's fixed prefix and a 1-based position, `R3-001`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FindingId {
    lens: Lens,
    position: u16,
}

impl FindingId {
    /// The id of the `position`-th (1-based) finding of `lens`.
    pub fn new(lens: Lens, position: u16) -> Result<Self, IdError> {
        if position == 0 || position > 999 {
            return Err(IdError::FindingId(format!(
                "{}-{position:03}",
                lens.prefix()
            )));
        }
        Ok(Self { lens, position })
    }
    /// The lens whose prefix the id carries.
    pub fn lens(&self) -> Lens {
        self.lens
    }
    /// The 1-based position within the lens's result.
    pub fn position(&self) -> u16 {
        self.position
    }
    /// Parses `R3-001`.
    pub fn parse(s: &str) -> Result<Self, IdError> {
        let bad = || IdError::FindingId(s.to_string());
        let (prefix, num) = s.split_once('-').ok_or_else(bad)?;
        let lens = Lens::from_prefix(prefix).ok_or_else(bad)?;
        if num.len() != 3 || !num.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let position: u16 = num.parse().map_err(|_| bad())?;
        Self::new(lens, position).map_err(|_| bad())
    }
}

impl fmt::Display for FindingId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{:03}", self.lens.prefix(), self.position)
    }
}

impl fmt::Debug for FindingId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl Serialize for FindingId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for FindingId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::parse(&s).map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for FindingId {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "FindingId".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string", "pattern": "^R[1-4]-(00[1-9]|0[1-9][0-9]|[1-9][0-9]{2})$"})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_blank_follows_ecma_262_whitespace() {
        // Regression: U+0085 alone was refused and U+FEFF alone accepted,
        // the opposite of the schemas' `\S` (ECMA-262).
        assert!(NonBlank::parse("\u{85}").is_ok());
        assert!(NonBlank::parse("\u{feff}").is_err());
        assert!(NonBlank::parse("\u{200b}").is_ok()); // format char, not space
        for blank in [
            "",
            " ",
            "\t\n\r\u{b}\u{c}",
            "\u{a0}\u{3000}\u{2028}\u{2029}\u{1680}\u{202f}",
        ] {
            assert!(NonBlank::parse(blank).is_err(), "{blank:?}");
        }
        assert!(NonBlank::parse(" x ").is_ok());
    }

    #[test]
    fn repo_paths() {
        assert!(RepoPath::parse("src/a.rs").is_ok());
        for bad in ["", "/a", "a//b", "a/./b", "../a", "a/..", "a\0b"] {
            assert!(RepoPath::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn finding_ids_round_trip() {
        let id = FindingId::new(Lens::Reliability, 1).unwrap();
        assert_eq!(id.to_string(), "R3-001");
        assert_eq!(FindingId::parse("R3-001").unwrap(), id);
        for bad in ["R5-001", "R3-1", "R3-000", "X-001", "R3-0001"] {
            assert!(FindingId::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn timestamps() {
        assert_eq!(
            Timestamp::from_unix_seconds(0).as_str(),
            "1970-01-01T00:00:00Z"
        );
        assert_eq!(
            Timestamp::from_unix_seconds(1_796_000_000).as_str(),
            "2026-11-30T00:53:20Z"
        );
        assert!(Timestamp::parse("2026-11-29 03:33:20Z").is_err());
        for secs in [0, 59, 86_399, 951_782_400, 1_796_000_000, 4_102_444_799] {
            assert_eq!(
                Timestamp::from_unix_seconds(secs).unix_seconds(),
                Some(secs)
            );
        }
    }

    #[test]
    fn timestamps_are_read_by_the_one_rfc_3339_parser() {
        // A second-precision review timestamp is the one instant type's
        // canonical seconds form: a date that does not exist, a leap
        // second, a fraction, an offset or a lowercase `t`/`z` is refused.
        for bad in [
            "2026-02-30T00:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-11-29T24:00:00Z",
            "2026-11-29T23:59:60Z",
            "2026-11-29T03:33:20.5Z",
            "2026-11-29T03:33:20+00:00",
            "2026-11-29t03:33:20Z",
            "2026-11-29T03:33:20z",
        ] {
            assert!(
                matches!(Timestamp::parse(bad), Err(IdError::Timestamp(v)) if v == bad),
                "{bad}"
            );
        }
        let t = Timestamp::parse("2024-02-29T23:59:59Z").unwrap();
        let instant = t.instant();
        assert_eq!(instant.rfc3339_seconds(), "2024-02-29T23:59:59Z");
        assert_eq!(instant.rfc3339_nanos(), "2024-02-29T23:59:59.000000000Z");
        assert_eq!(
            crate::context::Timestamp::parse(t.as_str())
                .unwrap()
                .canonical(),
            instant.rfc3339_nanos()
        );
    }

    #[test]
    fn lineage_ids() {
        assert!(LineageId::parse("review-0123456789abcdef").is_ok());
        assert!(LineageId::parse("review-0123456789ABCDEF").is_err());
        assert!(LineageId::parse("review-01").is_err());
    }
}
