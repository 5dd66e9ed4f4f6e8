//! What the MCP targets share: an in-memory client stream and answer sink,
//! an in-memory snapshot, and the check every server answer must pass.

use std::collections::BTreeMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use probity_core::snapshot_tools::{
    EntryKind, GrepHit, GrepQuery, ListEntry, RawGrep, RawRead, SnapshotPath, SubjectError,
};
use probity_ports::snapshot::SnapshotReader;
use serde_json::Value;

/// Everything a server wrote, kept for the checks.
#[derive(Clone, Default)]
pub struct Sink(pub Arc<Mutex<Vec<u8>>>);

impl tokio::io::AsyncWrite for Sink {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend_from_slice(buf);
        Poll::Ready(Ok(buf.len()))
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

impl Sink {
    /// What was written.
    pub fn bytes(&self) -> Vec<u8> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// A two-file snapshot held in memory.
pub struct InMemory(pub BTreeMap<Vec<u8>, Vec<u8>>);

impl InMemory {
    /// `a.md` and `src/lib.rs`.
    pub fn sample() -> Self {
        Self(BTreeMap::from([
            (b"a.md".to_vec(), b"alpha\nbeta\n".to_vec()),
            (
                b"src/lib.rs".to_vec(),
                b"pub fn beta() -> u32 { 42 }\n".to_vec(),
            ),
        ]))
    }
}

impl SnapshotReader for InMemory {
    fn read(&self, path: &SnapshotPath) -> Result<RawRead, SubjectError> {
        match self.0.get(path.as_bytes()) {
            Some(bytes) => Ok(RawRead::File(bytes.clone())),
            None => Err(SubjectError::NotInSnapshot {
                path: String::from_utf8_lossy(path.as_bytes()).into_owned(),
                why: "no such file".into(),
            }),
        }
    }
    fn grep(&self, _: &GrepQuery, _: usize) -> Result<RawGrep, SubjectError> {
        Ok(RawGrep {
            hits: Vec::<GrepHit>::new(),
            more: false,
            skipped: Vec::new(),
        })
    }
    fn list(&self) -> Result<Vec<ListEntry>, SubjectError> {
        Ok(self
            .0
            .keys()
            .map(|p| ListEntry {
                path: p.clone(),
                kind: EntryKind::File,
            })
            .collect())
    }
}

/// Every line a server wrote is one whole JSON-RPC 2.0 message (an object
/// with `"jsonrpc":"2.0"`), and every error the framing guard answers
/// itself carries one of its three codes.
pub fn check_answers(out: &[u8]) {
    for line in out.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        let v: Value = serde_json::from_slice(line).unwrap_or_else(|e| {
            panic!(
                "a server line is not JSON ({e}): {:?}",
                String::from_utf8_lossy(line)
            )
        });
        assert_eq!(v.get("jsonrpc"), Some(&Value::from("2.0")), "{v}");
    }
}

/// Each line of the client's stream as the framing guard judges it: an
/// answer it gives itself is a JSON-RPC error of its own codes, with the
/// request's id or null.
pub fn check_judged(input: &[u8]) {
    use probity_mcp::frame::{Verdict, judge};
    for line in input.split(|b| *b == b'\n') {
        if let Verdict::Answer(v) = judge(line) {
            let code = v["error"]["code"].as_i64();
            assert!(matches!(code, Some(-32600 | -32700 | -32602)), "{v}");
            assert_eq!(v["jsonrpc"], "2.0");
        }
    }
}
