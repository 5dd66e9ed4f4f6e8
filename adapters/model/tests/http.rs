//! The model adapter against a local HTTP server on 127.0.0.1 that scripts
//! chat-completions answers (tool calls, then a review). The server handles
//! a bounded number of requests and stops by itself after a deadline.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use probity_core::snapshot_tools::review_loop::{LENGTH_RETRY_PROMPT, REVIEWER_FRAME};
use probity_core::snapshot_tools::{
    BudgetLimits, EntryKind, GrepQuery, ListEntry, RawGrep, RawRead, ReviewLoop, Session,
    SnapshotPath, SubjectError, Verdict,
};
use probity_model::{ModelConfig, OpenAiChat};
use probity_ports::snapshot::{Clock, ModelError, ReviewError, SnapshotReader, run_review};
use serde_json::{Value, json};

/// One recorded request.
struct Recorded {
    head: String,
    body: Value,
}

/// Serves `script` (status, body, delay) to one request each, in order.
fn serve(script: Vec<(u16, Value, u64)>) -> (String, JoinHandle<Vec<Recorded>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    listener.set_nonblocking(true).unwrap();
    let handle = std::thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut seen = Vec::new();
        for (status, body, delay) in script {
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
            std::thread::sleep(Duration::from_millis(delay));
            let text = body.to_string();
            let _ = write!(
                stream,
                "HTTP/1.1 {status} Scripted\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
                text.len()
            );
            let _ = stream.flush();
        }
        seen
    });
    (format!("http://{addr}/v1"), handle)
}

fn tool_calls(calls: &[(&str, &str, Value)]) -> Value {
    json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls":
        calls.iter().map(|(id, name, args)| json!({"id": id, "type": "function",
            "function": {"name": name, "arguments": args.to_string()}})).collect::<Vec<_>>()
    }, "finish_reason": "tool_calls"}]})
}

fn text(t: &str, finish: &str) -> Value {
    json!({"choices": [{"message": {"role": "assistant", "content": t}, "finish_reason": finish}]})
}

struct Mem;
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

struct Wall(Instant);
impl Clock for Wall {
    fn elapsed_ms(&self) -> u64 {
        self.0.elapsed().as_millis() as u64
    }
}

fn chat(base_url: String) -> OpenAiChat {
    OpenAiChat::new(ModelConfig {
        base_url,
        model: "scripted".into(),
        api_key: Some("test-key".into()),
    })
}

fn new_loop() -> ReviewLoop {
    ReviewLoop::new(
        Session::new(BudgetLimits::default()),
        REVIEWER_FRAME.into(),
        "Review this diff.".into(),
        vec![],
    )
}

#[test]
fn scripted_tool_calls_drive_the_review_loop_over_http() {
    let (url, server) = serve(vec![
        (
            200,
            tool_calls(&[
                ("c1", "read", json!({"path": "src/a.rs"})),
                ("c2", "read", json!({"path": "../secret"})),
            ]),
            0,
        ),
        (
            200,
            tool_calls(&[("c3", "list", json!({"glob": "*.rs"}))]),
            0,
        ),
        (
            200,
            text("a() returns 1 as claimed.\nVERDICT: PASS\n", "stop"),
            0,
        ),
    ]);
    let mut model = chat(url);
    let mut events = Vec::new();
    let mut lp = new_loop();
    let review = run_review(
        &mut lp,
        &mut model,
        &Mem,
        &Wall(Instant::now()),
        20_000,
        &mut |e| events.push(e.event.clone()),
    )
    .unwrap();
    let seen = server.join().unwrap();
    assert_eq!(seen.len(), 3);
    assert_eq!(review.verdict(), Some(&Verdict::Pass));
    assert_eq!(review.model_calls, 3);
    assert_eq!(
        review.footer.as_deref(),
        Some(
            "read 1 file (23 B) beyond the declared context: src/a.rs; also 1 listing (9 B); 1 tool call failed or was refused"
        )
    );
    assert_eq!(
        events,
        [
            "review.snapshot.read",
            "review.snapshot.read",
            "review.snapshot.list"
        ]
    );

    let first = &seen[0];
    assert!(
        first.head.starts_with("POST /v1/chat/completions HTTP/1.1"),
        "{}",
        first.head
    );
    assert!(
        first
            .head
            .to_ascii_lowercase()
            .contains("authorization: bearer test-key"),
        "{}",
        first.head
    );
    assert_eq!(first.body["model"], "scripted");
    assert_eq!(first.body["tool_choice"], "auto");
    assert_eq!(first.body["tools"].as_array().unwrap().len(), 3);
    assert_eq!(first.body["messages"][0]["content"], REVIEWER_FRAME);

    let msgs = seen[1].body["messages"].as_array().unwrap();
    assert_eq!(msgs[2]["role"], "assistant");
    assert_eq!(msgs[2]["tool_calls"][1]["id"], "c2");
    assert_eq!(
        msgs[3],
        json!({"role": "tool", "tool_call_id": "c1", "content": "pub fn a() -> u8 { 1 }\n"})
    );
    assert_eq!(msgs[4]["tool_call_id"], "c2");
    assert!(
        msgs[4]["content"]
            .as_str()
            .unwrap()
            .contains("escapes the repository root")
    );
    let msgs = seen[2].body["messages"].as_array().unwrap();
    assert_eq!(msgs.last().unwrap()["content"], "src/a.rs\n");
}

#[test]
fn a_provider_without_tool_calls_takes_the_single_call_path() {
    let (url, server) = serve(vec![(
        200,
        text("Fine.\nVERDICT: FAIL src/a.rs:1", "stop"),
        0,
    )]);
    let mut lp = new_loop();
    let review = run_review(
        &mut lp,
        &mut chat(url),
        &Mem,
        &Wall(Instant::now()),
        20_000,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(server.join().unwrap().len(), 1);
    assert_eq!(review.verdict(), Some(&Verdict::Fail));
    assert_eq!(review.footer, None);
    assert!(review.rendered().ends_with("VERDICT: FAIL src/a.rs:1\n"));
}

#[test]
fn one_length_retry_over_http() {
    let (url, server) = serve(vec![
        (200, text("The change is long and I was cut", "length"), 0),
        (200, text("Short.\nVERDICT: PASS", "stop"), 0),
    ]);
    let mut lp = new_loop();
    let review = run_review(
        &mut lp,
        &mut chat(url),
        &Mem,
        &Wall(Instant::now()),
        20_000,
        &mut |_| {},
    )
    .unwrap();
    let seen = server.join().unwrap();
    assert!(review.length_retried);
    assert_eq!(seen[1].body["tool_choice"], "none");
    let last = seen[1].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        last,
        json!({"role": "user", "content": LENGTH_RETRY_PROMPT})
    );
}

#[test]
fn an_http_error_is_a_model_error() {
    let (url, server) = serve(vec![(503, json!({"error": "overloaded"}), 0)]);
    let mut lp = new_loop();
    let err = run_review(
        &mut lp,
        &mut chat(url),
        &Mem,
        &Wall(Instant::now()),
        20_000,
        &mut |_| {},
    )
    .unwrap_err();
    server.join().unwrap();
    match err {
        ReviewError::Model(ModelError::Status { status, body }) => {
            assert_eq!(status, 503);
            assert!(body.contains("overloaded"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_slow_model_runs_into_the_shared_timeout() {
    let (url, server) = serve(vec![(200, text("VERDICT: PASS", "stop"), 1500)]);
    let mut lp = new_loop();
    let err = run_review(
        &mut lp,
        &mut chat(url),
        &Mem,
        &Wall(Instant::now()),
        300,
        &mut |_| {},
    )
    .unwrap_err();
    server.join().unwrap();
    assert!(
        matches!(
            err,
            ReviewError::Timeout {
                timeout_ms: 300,
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn nothing_listening_is_a_transport_error() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    drop(listener);
    let mut lp = new_loop();
    let err = run_review(
        &mut lp,
        &mut chat(url),
        &Mem,
        &Wall(Instant::now()),
        5_000,
        &mut |_| {},
    )
    .unwrap_err();
    assert!(
        matches!(err, ReviewError::Model(ModelError::Transport(_))),
        "{err:?}"
    );
}
