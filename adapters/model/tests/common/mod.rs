//! A scripted HTTP server on 127.0.0.1 for the model adapter's tests: it
//! answers each request with the next scripted reply (status, headers,
//! body, delay), records what it was sent, and stops by itself after the
//! script or a deadline. No test reaches the network.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use probity_core::snapshot_tools::review_loop::REVIEWER_FRAME;
use probity_core::snapshot_tools::{
    BudgetLimits, EntryKind, GrepQuery, ListEntry, RawGrep, RawRead, ReviewLoop, Session,
    SnapshotPath, SubjectError,
};
use probity_ports::snapshot::{SnapshotReader, Stopwatch};
use serde_json::Value;

/// One recorded request.
pub struct Recorded {
    /// The request line and headers, as sent.
    pub head: String,
    /// The body as JSON (`Null` when it is not JSON).
    pub body: Value,
}

impl Recorded {
    /// A header's value (names compared case-insensitively).
    pub fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_owned())
        })
    }
}

/// One scripted reply.
#[derive(Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    pub delay_ms: u64,
}

impl Reply {
    pub fn json(status: u16, body: Value) -> Self {
        Self::raw(status, &body.to_string())
    }

    pub fn raw(status: u16, body: &str) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body: body.to_owned(),
            delay_ms: 0,
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    pub fn delay(mut self, ms: u64) -> Self {
        self.delay_ms = ms;
        self
    }
}

/// Serves `script`, one reply per request, in order; answers the base URL
/// (`http://127.0.0.1:<port>`) and a handle that yields what was sent.
pub fn serve(script: Vec<Reply>) -> (String, JoinHandle<Vec<Recorded>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    listener.set_nonblocking(true).unwrap();
    let handle = std::thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut seen = Vec::new();
        for reply in script {
            let stream = loop {
                match listener.accept() {
                    Ok((s, _)) => break Some(s),
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        if Instant::now() > deadline {
                            break None;
                        }
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    Err(_) => break None,
                }
            };
            let Some(mut stream) = stream else { break };
            stream.set_nonblocking(false).unwrap();
            stream
                .set_read_timeout(Some(Duration::from_secs(5)))
                .unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut head = String::new();
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                head.push_str(&line);
            }
            let mut buf = vec![0u8; length.min(1 << 22)];
            reader.read_exact(&mut buf).unwrap();
            seen.push(Recorded {
                head,
                body: serde_json::from_slice(&buf).unwrap_or(Value::Null),
            });
            std::thread::sleep(Duration::from_millis(reply.delay_ms));
            let mut extra = String::new();
            for (k, v) in &reply.headers {
                extra.push_str(&format!("{k}: {v}\r\n"));
            }
            let _ = write!(
                stream,
                "HTTP/1.1 {} Scripted\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{}",
                reply.status,
                reply.body.len(),
                reply.body
            );
            let _ = stream.flush();
        }
        seen
    });
    (format!("http://{addr}"), handle)
}

/// A sleeper that records the waits asked for and never waits.
#[derive(Clone, Default)]
pub struct Waits(pub Arc<Mutex<Vec<Duration>>>);

impl Waits {
    pub fn sleeper(&self) -> impl FnMut(Duration) + Send + 'static {
        let waits = self.0.clone();
        move |d| waits.lock().unwrap().push(d)
    }

    pub fn taken(&self) -> Vec<Duration> {
        self.0.lock().unwrap().clone()
    }
}

/// A base URL nothing listens on.
pub fn dead_url() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    url
}

/// A snapshot of one file, `src/a.rs`.
pub struct Mem;
impl SnapshotReader for Mem {
    fn read(&self, path: &SnapshotPath) -> Result<RawRead, SubjectError> {
        match path.as_bytes() {
            b"src/a.rs" => Ok(RawRead::File(b"pub fn a() -> u8 { 1 }\n".to_vec())),
            _ => Err(SubjectError::NotInSnapshot {
                path: path.display().into_owned(),
                why: "no such tracked file".into(),
            }),
        }
    }
    fn grep(&self, _q: &GrepQuery, _max: usize) -> Result<RawGrep, SubjectError> {
        Ok(RawGrep::default())
    }
    fn list(&self) -> Result<Vec<ListEntry>, SubjectError> {
        Ok(vec![ListEntry {
            path: b"src/a.rs".to_vec(),
            kind: EntryKind::File,
        }])
    }
}

/// The wall clock.
pub struct Wall(pub Instant);
impl Stopwatch for Wall {
    fn elapsed_ms(&self) -> u64 {
        self.0.elapsed().as_millis() as u64
    }
}

/// A verdict review loop with the default budget.
pub fn new_loop() -> ReviewLoop {
    loop_with(BudgetLimits::default())
}

/// A verdict review loop with `limits`.
pub fn loop_with(limits: BudgetLimits) -> ReviewLoop {
    ReviewLoop::new(
        Session::new(limits),
        REVIEWER_FRAME.into(),
        "Review this diff.".into(),
        vec![],
    )
}
