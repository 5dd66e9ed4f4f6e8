//! A scripted HTTP/1.1 server on 127.0.0.1 for tests, one for every
//! adapter that speaks HTTP (the forges, the model endpoints, the CLI's
//! model runs). No test reaches the network.
//!
//! [`HttpServer::serve`] answers every request with a handler's [`Reply`]
//! (status, headers, body, a delay before answering). Each connection
//! carries one request (`Connection: close`); reads time out
//! ([`READ_TIMEOUT`]) and a body over [`MAX_BODY`] is refused with a 413.
//! Every request is recorded ([`Request`]: method, target, version,
//! lowercased headers, body) before it is answered, so a test sees what was
//! asked and with which credential ([`HttpServer::seen`]). Dropping the
//! server stops it: the accept loop is woken and the thread joined.
//!
//! Two scripted forms are built on it:
//!
//! - routes, with [`HttpServer::script`]: each route of a [`Script`]
//!   (method and exact target) answers its replies in order, the last one
//!   repeating; anything else is a 404. `{base}` in a reply's headers or
//!   body is replaced by the server's `http://127.0.0.1:PORT`.
//! - replies in order, with [`HttpServer::sequence`]: the n-th request
//!   gets the n-th reply, whatever it asks; once the replies are spent the
//!   connection is closed unanswered.
//!
//! [`dead_url`] is a base URL nothing listens on.
//!
//! ```
//! use std::io::{Read, Write};
//! use probity_testkit::http::{HttpServer, Reply, Script};
//!
//! let server = HttpServer::script(
//!     Script::new().get("/a", vec![Reply::json(r#"{"next":"{base}/b"}"#)]),
//! )?;
//! let mut stream = std::net::TcpStream::connect(server.base().trim_start_matches("http://"))?;
//! stream.write_all(b"GET /a HTTP/1.1\r\nAuthorization: Bearer t\r\n\r\n")?;
//! let mut answer = String::new();
//! stream.read_to_string(&mut answer)?;
//! assert!(answer.starts_with("HTTP/1.1 200 "));
//! assert!(answer.ends_with(&format!(r#"{{"next":"{}/b"}}"#, server.base())));
//! let seen = server.seen();
//! assert_eq!((seen[0].method.as_str(), seen[0].target.as_str()), ("GET", "/a"));
//! assert_eq!(seen[0].header("Authorization"), Some("Bearer t"));
//! # Ok::<(), std::io::Error>(())
//! ```

use std::collections::BTreeMap;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::Value;

/// The largest request body the server reads (16 MiB); a longer one is
/// answered 413 unread, without asking the handler.
pub const MAX_BODY: usize = 16 << 20;

/// How long the server waits on a silent client before giving up on the
/// connection.
pub const READ_TIMEOUT: Duration = Duration::from_secs(5);

/// The most a request line and its headers may take together.
const MAX_HEAD: u64 = 64 << 10;

/// A request the server saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The request method (`GET`, `POST`).
    pub method: String,
    /// The request target, path and query, as sent.
    pub target: String,
    /// The protocol version of the request line (`HTTP/1.1`).
    pub version: String,
    /// Request headers, names lowercased (a repeated name keeps its last
    /// value).
    pub headers: BTreeMap<String, String>,
    /// The request body.
    pub body: Vec<u8>,
}

impl Request {
    /// A header's value (the name compared case-insensitively).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }

    /// The body as JSON (`Null` when it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

/// One scripted answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The HTTP status code.
    pub status: u16,
    /// Response headers, in order (`Content-Length` and `Connection` are
    /// the server's).
    pub headers: Vec<(String, String)>,
    /// The response body.
    pub body: Vec<u8>,
    /// How long the server waits before answering.
    pub delay: Duration,
    /// Close the connection without answering.
    hang_up: bool,
}

impl Reply {
    /// A 200 JSON reply.
    pub fn json(body: impl Into<Vec<u8>>) -> Self {
        Self::status(200, body)
    }

    /// A JSON reply (`Content-Type: application/json`) with a status.
    pub fn status(status: u16, body: impl Into<Vec<u8>>) -> Self {
        Self::new(status, body).header("Content-Type", "application/json")
    }

    /// A reply with a status and a body and no headers yet (add a
    /// `Content-Type` with [`Reply::header`]).
    pub fn new(status: u16, body: impl Into<Vec<u8>>) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body: body.into(),
            delay: Duration::ZERO,
            hang_up: false,
        }
    }

    /// A JSON reply with a status whose body is `value` serialized.
    pub fn value(status: u16, value: Value) -> Self {
        Self::status(status, value.to_string())
    }

    /// No answer: the server closes the connection once it has read the
    /// request (after the delay, if one is set).
    pub fn hang_up() -> Self {
        Self {
            hang_up: true,
            ..Self::new(0, Vec::new())
        }
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Waits `delay` before answering.
    pub fn delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    fn with_base(mut self, base: &str) -> Self {
        for (_, v) in &mut self.headers {
            *v = v.replace("{base}", base);
        }
        self.body = String::from_utf8_lossy(&self.body)
            .replace("{base}", base)
            .into_bytes();
        self
    }
}

/// Scripted routes for [`HttpServer::script`]: `(method, target) →
/// replies`, answered in order, the last one repeating.
#[derive(Debug, Default, Clone)]
pub struct Script {
    routes: BTreeMap<(String, String), Vec<Reply>>,
}

impl Script {
    /// No routes: every request is a 404.
    pub fn new() -> Self {
        Self::default()
    }

    /// `method target` answers `replies` in order (the last repeats; none
    /// is a 404).
    pub fn route(mut self, method: &str, target: &str, replies: Vec<Reply>) -> Self {
        self.routes
            .insert((method.to_owned(), target.to_owned()), replies);
        self
    }

    /// `GET target` answers `replies` in order (the last repeats).
    pub fn get(self, target: &str, replies: Vec<Reply>) -> Self {
        self.route("GET", target, replies)
    }

    /// `POST target` answers `replies` in order (the last repeats).
    pub fn post(self, target: &str, replies: Vec<Reply>) -> Self {
        self.route("POST", target, replies)
    }
}

/// The running server on 127.0.0.1; stopped (and its thread joined) when
/// dropped.
pub struct HttpServer {
    addr: SocketAddr,
    base: String,
    seen: Arc<Mutex<Vec<Request>>>,
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for HttpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpServer")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl HttpServer {
    /// Binds 127.0.0.1 on a free port and answers every request with
    /// `handler`'s reply, one request at a time, on a thread.
    pub fn serve<H>(handler: H) -> io::Result<Self>
    where
        H: FnMut(&Request) -> Reply + Send + 'static,
    {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        Self::start(listener, handler)
    }

    /// Serves `script`: each route answers its replies in order, the last
    /// one repeating; any other request is a 404. `{base}` in a reply's
    /// headers or body becomes [`HttpServer::base`].
    pub fn script(script: Script) -> io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let base = base_of(listener.local_addr()?);
        let mut routes: BTreeMap<_, _> = script
            .routes
            .into_iter()
            .map(|(route, replies)| (route, (replies, 0usize)))
            .collect();
        Self::start(listener, move |request: &Request| {
            let route = (request.method.clone(), request.target.clone());
            let reply = match routes.get_mut(&route) {
                Some((replies, next)) if !replies.is_empty() => {
                    let i = (*next).min(replies.len() - 1);
                    *next += 1;
                    replies[i].clone()
                }
                _ => Reply::status(404, r#"{"message":"Not Found"}"#),
            };
            reply.with_base(&base)
        })
    }

    /// Serves `replies` in order, one a request whatever it asks; once
    /// they are spent, connections are closed unanswered.
    pub fn sequence(replies: Vec<Reply>) -> io::Result<Self> {
        let mut replies = replies.into_iter();
        Self::serve(move |_: &Request| replies.next().unwrap_or_else(Reply::hang_up))
    }

    fn start<H>(listener: TcpListener, mut handler: H) -> io::Result<Self>
    where
        H: FnMut(&Request) -> Reply + Send + 'static,
    {
        let addr = listener.local_addr()?;
        let seen = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (s, st) = (Arc::clone(&seen), Arc::clone(&stop));
        let handle = std::thread::Builder::new()
            .name(format!("http-server-{}", addr.port()))
            .spawn(move || {
                for stream in listener.incoming() {
                    if st.load(Ordering::SeqCst) {
                        break;
                    }
                    match stream {
                        // One request per connection; a client that fails
                        // to finish its request only loses its own.
                        Ok(stream) => {
                            let _ = exchange(&stream, &mut handler, &s);
                        }
                        Err(_) => std::thread::sleep(Duration::from_millis(5)),
                    }
                }
            })?;
        Ok(Self {
            addr,
            base: base_of(addr),
            seen,
            stop,
            handle: Some(handle),
        })
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// Every request so far, in the order they arrived.
    pub fn seen(&self) -> Vec<Request> {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let Some(handle) = self.handle.take() else {
            return;
        };
        // Wake the accept loop; it sees `stop` and ends. Should nothing
        // connect while the thread still runs, leave it rather than hang.
        let woken = TcpStream::connect_timeout(&self.addr, Duration::from_secs(5)).is_ok();
        if woken || handle.is_finished() {
            let _ = handle.join();
        }
    }
}

/// A base URL (`http://127.0.0.1:PORT`) nothing listens on: the port was
/// free a moment ago and is closed again.
pub fn dead_url() -> io::Result<String> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    drop(listener);
    Ok(base_of(addr))
}

fn base_of(addr: SocketAddr) -> String {
    format!("http://{addr}")
}

/// Reads one request from `stream`, records it, and answers it with
/// `handler`'s reply.
fn exchange(
    stream: &TcpStream,
    handler: &mut impl FnMut(&Request) -> Reply,
    seen: &Mutex<Vec<Request>>,
) -> io::Result<()> {
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    stream.set_write_timeout(Some(READ_TIMEOUT))?;
    let mut reader = BufReader::new(stream);
    let mut head = (&mut reader).take(MAX_HEAD);
    let mut line = String::new();
    head.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let mut part = || parts.next().unwrap_or_default().to_owned();
    let (method, target, version) = (part(), part(), part());
    let mut headers = BTreeMap::new();
    loop {
        let mut h = String::new();
        if head.read_line(&mut h)? == 0 {
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
    let length: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut request = Request {
        method,
        target,
        version,
        headers,
        body: Vec::new(),
    };
    let reply = if length > MAX_BODY {
        record(seen, &request);
        Reply::status(
            413,
            r#"{"message":"request body over the test server's bound"}"#,
        )
    } else {
        request.body = vec![0; length];
        reader.read_exact(&mut request.body)?;
        record(seen, &request);
        handler(&request)
    };
    if !reply.delay.is_zero() {
        std::thread::sleep(reply.delay);
    }
    if reply.hang_up {
        return Ok(());
    }
    let mut out = format!(
        "HTTP/1.1 {} Scripted\r\nConnection: close\r\n",
        reply.status
    );
    for (k, v) in &reply.headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str(&format!("Content-Length: {}\r\n\r\n", reply.body.len()));
    let mut stream = stream;
    stream.write_all(out.as_bytes())?;
    stream.write_all(&reply.body)?;
    stream.flush()
}

fn record(seen: &Mutex<Vec<Request>>, request: &Request) {
    seen.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(request.clone());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sends one raw request and answers the raw response.
    fn send(server: &HttpServer, request: &[u8]) -> io::Result<String> {
        let mut stream = TcpStream::connect(server.addr)?;
        stream.write_all(request)?;
        let mut answer = String::new();
        stream.read_to_string(&mut answer)?;
        Ok(answer)
    }

    #[test]
    fn a_script_repeats_its_last_reply_and_answers_404_otherwise() {
        let server = HttpServer::script(Script::new().post(
            "/x?q=1",
            vec![
                Reply::status(201, "first").header("Location", "{base}/y"),
                Reply::json("{base}"),
            ],
        ))
        .unwrap();
        let post = b"POST /x?q=1 HTTP/1.1\r\nContent-Length: 4\r\nX-Key: K\r\n\r\nbody";
        let first = send(&server, post).unwrap();
        assert!(first.starts_with("HTTP/1.1 201 "), "{first}");
        assert!(first.contains(&format!("Location: {}/y\r\n", server.base())));
        assert!(first.ends_with("\r\n\r\nfirst"), "{first}");
        for _ in 0..2 {
            let again = send(&server, post).unwrap();
            assert!(again.ends_with(&format!("\r\n\r\n{}", server.base())));
        }
        let other = send(&server, b"GET /x?q=1 HTTP/1.1\r\n\r\n").unwrap();
        assert!(other.starts_with("HTTP/1.1 404 "), "{other}");
        let seen = server.seen();
        assert_eq!(seen.len(), 4);
        assert_eq!(seen[0].method, "POST");
        assert_eq!(seen[0].target, "/x?q=1");
        assert_eq!(seen[0].version, "HTTP/1.1");
        assert_eq!(seen[0].header("x-key"), Some("K"));
        assert_eq!(seen[0].headers.get("x-key").map(String::as_str), Some("K"));
        assert_eq!(seen[0].body, b"body");
        assert_eq!(seen[3].method, "GET");
    }

    #[test]
    fn a_sequence_answers_in_order_then_hangs_up() {
        let server = HttpServer::sequence(vec![
            Reply::value(429, serde_json::json!({"n": 1})).header("Retry-After", "3"),
            Reply::value(200, serde_json::json!({"n": 2})).delay(Duration::from_millis(20)),
        ])
        .unwrap();
        let body = br#"{"ask":true}"#;
        let post = [
            format!(
                "POST /v1 HTTP/1.1\r\ncontent-length: {}\r\n\r\n",
                body.len()
            )
            .as_bytes(),
            body,
        ]
        .concat();
        let first = send(&server, &post).unwrap();
        assert!(first.starts_with("HTTP/1.1 429 "), "{first}");
        assert!(first.contains("Retry-After: 3\r\n"), "{first}");
        assert!(
            first.contains("Content-Type: application/json\r\n"),
            "{first}"
        );
        assert!(first.ends_with(r#"{"n":1}"#), "{first}");
        assert!(send(&server, &post).unwrap().ends_with(r#"{"n":2}"#));
        assert_eq!(send(&server, &post).unwrap(), "");
        let seen = server.seen();
        assert_eq!(seen.len(), 3);
        assert_eq!(seen[0].json(), serde_json::json!({"ask": true}));
        assert_eq!(seen[0].header("Content-Length"), Some("12"));
    }

    #[test]
    fn a_handler_sees_each_request_and_drop_stops_the_server() {
        let server = HttpServer::serve(|r: &Request| {
            Reply::json(format!("{}", r.json()["n"].as_u64().unwrap_or(0) + 1))
        })
        .unwrap();
        let answer = send(
            &server,
            b"POST / HTTP/1.1\r\nContent-Length: 7\r\n\r\n{\"n\":4}",
        )
        .unwrap();
        assert!(answer.ends_with("\r\n\r\n5"), "{answer}");
        let oversized = format!(
            "POST / HTTP/1.1\r\nContent-Length: {}\r\n\r\n",
            MAX_BODY + 1
        );
        let refused = send(&server, oversized.as_bytes()).unwrap();
        assert!(refused.starts_with("HTTP/1.1 413 "), "{refused}");
        assert_eq!(server.seen()[1].body, b"");
        let addr = server.addr;
        drop(server);
        // Nothing answers as this server did. (Another test's server may
        // have bound the freed port meanwhile; it answers otherwise.)
        if let Ok(mut stream) = TcpStream::connect(addr) {
            let _ = stream.write_all(b"POST / HTTP/1.1\r\nContent-Length: 7\r\n\r\n{\"n\":4}");
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            let mut answer = String::new();
            let _ = stream.read_to_string(&mut answer);
            assert!(
                !answer.ends_with("\r\n\r\n5"),
                "the dropped server answered: {answer}"
            );
        }
    }

    #[test]
    fn nothing_listens_on_a_dead_url() {
        let url = dead_url().unwrap();
        let addr = url.trim_start_matches("http://");
        assert!(TcpStream::connect(addr).is_err());
    }
}
