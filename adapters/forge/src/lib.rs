//! `probity-forge`: forge adapters for the entity-context-snapshot forge
//! port (`probity_ports::forge`, C4). One module per forge: GitHub,
//! GitLab and Forgejo (Forgejo checks: commit statuses, D-R94).
//!
//! HTTP is blocking `ureq` with a timeout on every request, every body
//! read under a byte bound before it is parsed, rate limits waited out
//! within a bounded total through an injectable [`http::Sleeper`], and the
//! credential sent only as a request header ([`http::Token`] never
//! renders). Mapping tables (native vocabulary → v1) are pure functions in
//! each forge's `map` module, tested row by row.

#![forbid(unsafe_code)]

pub mod forgejo;
pub mod github;
pub mod gitlab;
pub mod http;
mod native;
mod shared;
