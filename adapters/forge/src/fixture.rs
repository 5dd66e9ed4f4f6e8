//! A scripted HTTP/1.1 server on 127.0.0.1 for tests (feature `fixture`):
//! each route (method and exact request target) answers its scripted
//! replies in order, the last one repeating; anything else is a 404. Every
//! request is recorded (method, target, lowercased headers, body) so tests
//! can check what was asked and with which credential. `{base}` in a reply's
//! headers or body is replaced by the server's `http://127.0.0.1:PORT`.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// One scripted answer.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The HTTP status code.
    pub status: u16,
    /// Response headers, in order (`{base}` replaced).
    pub headers: Vec<(String, String)>,
    /// The response body (`{base}` replaced).
    pub body: Vec<u8>,
}

impl Reply {
    /// A 200 JSON reply.
    pub fn json(body: impl Into<Vec<u8>>) -> Self {
        Self::status(200, body)
    }
    /// A JSON reply with a status.
    pub fn status(status: u16, body: impl Into<Vec<u8>>) -> Self {
        Self {
            status,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: body.into(),
        }
    }
    /// Adds a header.
    pub fn header(mut self, k: &str, v: &str) -> Self {
        self.headers.push((k.to_owned(), v.to_owned()));
        self
    }
}

/// A request the server saw.
#[derive(Debug, Clone)]
pub struct Seen {
    /// The request method.
    pub method: String,
    /// The request target, path and query, as sent.
    pub target: String,
    /// Request headers, names lowercased.
    pub headers: BTreeMap<String, String>,
    /// The request body.
    pub body: Vec<u8>,
}

type Routes = BTreeMap<(String, String), (Vec<Reply>, usize)>;

/// The running server; stopped when dropped.
pub struct ScriptServer {
    base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

/// Scripted routes: `(method, target) → replies`.
#[derive(Debug, Default, Clone)]
pub struct Script {
    routes: BTreeMap<(String, String), Vec<Reply>>,
}

impl Script {
    /// No routes: every request is a 404.
    pub fn new() -> Self {
        Self::default()
    }
    /// `GET target` answers `replies` in order (the last repeats).
    pub fn get(mut self, target: &str, replies: Vec<Reply>) -> Self {
        self.routes
            .insert(("GET".into(), target.to_owned()), replies);
        self
    }
    /// `POST target` answers `replies` in order (the last repeats).
    pub fn post(mut self, target: &str, replies: Vec<Reply>) -> Self {
        self.routes
            .insert(("POST".into(), target.to_owned()), replies);
        self
    }
}

impl ScriptServer {
    /// Binds 127.0.0.1 on a free port and serves `script` on a thread.
    pub fn start(script: Script) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let base = format!("http://{}", listener.local_addr()?);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let routes: Routes = script
            .routes
            .into_iter()
            .map(|(k, v)| (k, (v, 0)))
            .collect();
        let (b, s, st) = (base.clone(), Arc::clone(&seen), Arc::clone(&stop));
        let handle = std::thread::spawn(move || serve(listener, routes, &b, &s, &st));
        Ok(Self {
            base,
            seen,
            stop,
            handle: Some(handle),
        })
    }
    /// `http://127.0.0.1:PORT`.
    pub fn base(&self) -> &str {
        &self.base
    }
    /// Every request so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

impl Drop for ScriptServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop.
        let _ = TcpStream::connect(self.base.trim_start_matches("http://"));
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

fn serve(
    listener: TcpListener,
    mut routes: Routes,
    base: &str,
    seen: &Mutex<Vec<Seen>>,
    stop: &AtomicBool,
) {
    for stream in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let Ok(stream) = stream else { continue };
        // One request per connection (`Connection: close`).
        let _ = handle(stream, &mut routes, base, seen);
    }
}

fn handle(
    stream: TcpStream,
    routes: &mut Routes,
    base: &str,
    seen: &Mutex<Vec<Seen>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_owned();
    let target = parts.next().unwrap_or("").to_owned();
    let mut headers = BTreeMap::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 {
            break;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
        }
    }
    let len: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    reader.read_exact(&mut body)?;
    if let Ok(mut s) = seen.lock() {
        s.push(Seen {
            method: method.clone(),
            target: target.clone(),
            headers,
            body,
        });
    }
    let reply = match routes.get_mut(&(method, target)) {
        Some((replies, next)) if !replies.is_empty() => {
            let i = (*next).min(replies.len() - 1);
            *next += 1;
            replies[i].clone()
        }
        _ => Reply::status(404, r#"{"message":"Not Found"}"#),
    };
    let body = String::from_utf8_lossy(&reply.body).replace("{base}", base);
    let mut out = format!("HTTP/1.1 {} X\r\nConnection: close\r\n", reply.status);
    for (k, v) in &reply.headers {
        out.push_str(&format!("{k}: {}\r\n", v.replace("{base}", base)));
    }
    out.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    let mut stream = stream;
    stream.write_all(out.as_bytes())?;
    stream.write_all(body.as_bytes())?;
    stream.flush()
}
