//! The stdio framing guard: every line a client sends passes here before
//! the MCP service sees it, so no input can make the server hold unbounded
//! memory or leave a client waiting for an answer that never comes.
//!
//! - A line longer than [`MAX_FRAME_BYTES`] is read past without being held
//!   and answered `-32600` (invalid request) with `id: null` (its id was
//!   never read).
//! - A line that is not JSON is answered `-32700` (parse error) with
//!   `id: null`, as JSON-RPC 2.0 requires.
//! - A `tools/call` request whose `params` do not have the request's shape
//!   (an object with a string `name` and, if present, an object
//!   `arguments`) is answered `-32602` (invalid params) with its id.
//!
//! Everything else is forwarded unchanged. Answers from the guard and from
//! the service are written whole, one line at a time, by one writer.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc::UnboundedSender;

/// The largest JSON-RPC message the server reads: 4 MiB, far above any
/// request the three tools take (a pattern is at most 1000 bytes).
pub const MAX_FRAME_BYTES: usize = 4 * 1024 * 1024;

/// What the guard decided about one complete line.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Hand the line to the service.
    Forward,
    /// Answer with this JSON-RPC error response; do not forward.
    Answer(Value),
    /// Nothing to do (a blank line).
    Skip,
}

fn error_response(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The answer to a line over [`MAX_FRAME_BYTES`].
pub fn oversized() -> Value {
    error_response(
        Value::Null,
        -32600,
        &format!("invalid request: a message is at most {MAX_FRAME_BYTES} bytes"),
    )
}

/// Judges one complete line (without its newline).
pub fn judge(line: &[u8]) -> Verdict {
    let trimmed = line.trim_ascii();
    if trimmed.is_empty() {
        return Verdict::Skip;
    }
    let msg: Value = match serde_json::from_slice(trimmed) {
        Ok(v) => v,
        Err(e) => {
            return Verdict::Answer(error_response(
                Value::Null,
                -32700,
                &format!("parse error: {e}"),
            ));
        }
    };
    let is_call = msg.get("method").and_then(Value::as_str) == Some("tools/call");
    if let (true, Some(id)) = (is_call, msg.get("id")) {
        let params = msg.get("params");
        let problem = match params {
            None => Some("`params` is missing".to_string()),
            Some(Value::Object(p)) => match (p.get("name"), p.get("arguments")) {
                (Some(Value::String(_)), None | Some(Value::Object(_)) | Some(Value::Null)) => None,
                (Some(Value::String(_)), Some(_)) => {
                    Some("`params.arguments` must be an object".into())
                }
                (Some(_), _) => Some("`params.name` must be a string".into()),
                (None, _) => Some("`params.name` is missing".into()),
            },
            Some(_) => Some("`params` must be an object".into()),
        };
        if let Some(problem) = problem {
            return Verdict::Answer(error_response(
                id.clone(),
                -32602,
                &format!("invalid params for tools/call: {problem}"),
            ));
        }
    }
    Verdict::Forward
}

/// Reads the client's stream line by line with a bounded buffer, answering
/// what [`judge`] answers through `answers` and forwarding the rest to
/// `service`. Returns at the end of the client's stream (the service then
/// sees its input end).
pub async fn guard<I, S>(input: I, mut service: S, answers: UnboundedSender<Vec<u8>>)
where
    I: AsyncRead + Unpin,
    S: AsyncWrite + Unpin,
{
    let mut reader = BufReader::new(input);
    let mut line: Vec<u8> = Vec::new();
    let mut discarding = false;
    while let Ok(buf) = reader.fill_buf().await {
        if buf.is_empty() {
            // End of stream: a last line without a newline still counts,
            // and so does its bound.
            if discarding {
                let _ = answers.send(line_of(&oversized()));
            } else if !line.is_empty() {
                deliver(&line, &mut service, &answers).await;
            }
            break;
        }
        let (chunk, done) = match buf.iter().position(|b| *b == b'\n') {
            Some(i) => (&buf[..i], true),
            None => (buf, false),
        };
        if !discarding {
            if line.len() + chunk.len() > MAX_FRAME_BYTES {
                discarding = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let used = chunk.len() + usize::from(done);
        reader.consume(used);
        if done {
            if discarding {
                let _ = answers.send(line_of(&oversized()));
                discarding = false;
            } else {
                deliver(&line, &mut service, &answers).await;
            }
            line.clear();
        }
    }
    let _ = service.shutdown().await;
}

async fn deliver<S: AsyncWrite + Unpin>(
    line: &[u8],
    service: &mut S,
    answers: &UnboundedSender<Vec<u8>>,
) {
    match judge(line) {
        Verdict::Skip => {}
        Verdict::Answer(v) => {
            let _ = answers.send(line_of(&v));
        }
        Verdict::Forward => {
            let mut framed = line.to_vec();
            framed.push(b'\n');
            let _ = service.write_all(&framed).await;
            let _ = service.flush().await;
        }
    }
}

fn line_of(v: &Value) -> Vec<u8> {
    let mut s = v.to_string().into_bytes();
    s.push(b'\n');
    s
}

/// Copies the service's output, line by line, to the writer's queue.
pub async fn relay<O: AsyncRead + Unpin>(output: O, lines: UnboundedSender<Vec<u8>>) {
    let mut reader = BufReader::new(output);
    loop {
        let mut line = Vec::new();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                if lines.send(line).is_err() {
                    break;
                }
            }
        }
    }
    // Drain anything left so the service never blocks on a full pipe.
    let _ = tokio::io::copy(&mut reader.take(u64::MAX), &mut tokio::io::sink()).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(v: &Verdict) -> Option<(i64, Value)> {
        match v {
            Verdict::Answer(a) => Some((a["error"]["code"].as_i64()?, a["id"].clone())),
            _ => None,
        }
    }

    #[test]
    fn lines_are_judged_as_json_rpc_requires() {
        assert_eq!(judge(b"  "), Verdict::Skip);
        assert_eq!(code(&judge(b"not json")), Some((-32700, Value::Null)));
        assert_eq!(code(&judge(b"{\"jsonrpc\":")), Some((-32700, Value::Null)));
        for bad in [
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call"}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":[]}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":3}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read","arguments":"x"}}"#,
        ] {
            assert_eq!(
                code(&judge(bad.as_bytes())),
                Some((-32602, json!(7))),
                "{bad}"
            );
        }
        for ok in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"path":"a"}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        ] {
            assert_eq!(judge(ok.as_bytes()), Verdict::Forward, "{ok}");
        }
        assert_eq!(oversized()["error"]["code"], -32600);
        assert_eq!(oversized()["id"], Value::Null);
    }

    /// A `tools/list` request whose line (without its newline) is exactly
    /// `len` bytes, padded in an ignored `params` member.
    fn request_of(len: usize, id: u64) -> Vec<u8> {
        let head =
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{"pad":""#);
        let tail = r#""}}"#;
        let mut line = head.into_bytes();
        line.resize(len - tail.len(), b'a');
        line.extend_from_slice(tail.as_bytes());
        assert_eq!(line.len(), len);
        line
    }

    /// Runs the guard over `input` to its end: (what the service was
    /// handed, the guard's own answers in order).
    fn guarded(input: &[u8]) -> (Vec<u8>, Vec<Value>) {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let mut forwarded = Vec::new();
        rt.block_on(guard(input, &mut forwarded, tx));
        let mut answers = Vec::new();
        while let Ok(line) = rx.try_recv() {
            assert_eq!(line.last(), Some(&b'\n'), "an answer is one whole line");
            answers.push(serde_json::from_slice(&line).unwrap());
        }
        (forwarded, answers)
    }

    /// The bound is the line's bytes without its newline: a message of
    /// exactly [`MAX_FRAME_BYTES`] is forwarded whole, byte for byte; one
    /// byte more is answered -32600 (`id: null`) and never reaches the
    /// service; the line after it is read as usual.
    #[test]
    fn a_message_of_exactly_the_bound_passes_and_one_byte_more_is_refused() {
        let exact = request_of(MAX_FRAME_BYTES, 1);
        let over = request_of(MAX_FRAME_BYTES + 1, 2);
        let next = br#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#;
        let input = [&exact[..], b"\n", &over, b"\n", next, b"\n"].concat();
        let (forwarded, answers) = guarded(&input);
        assert_eq!(answers, [oversized()]);
        let lines: Vec<&[u8]> = forwarded
            .strip_suffix(b"\n")
            .unwrap()
            .split(|b| *b == b'\n')
            .collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0] == exact.as_slice(), "the bound-sized line, whole");
        assert_eq!(lines[1], next);

        // The refusal comes in the order of the lines: between the two
        // forwarded ones nothing of the oversized line was handed on.
        let (forwarded, answers) = guarded(&[&over[..], b"\n", next, b"\n"].concat());
        assert_eq!(answers, [oversized()]);
        assert_eq!(forwarded, [&next[..], b"\n"].concat());
    }

    /// The same bound holds for a last line the stream ends without a
    /// newline: exactly the bound is forwarded, one byte more is answered.
    #[test]
    fn an_unterminated_last_line_is_bounded_the_same_way() {
        let exact = request_of(MAX_FRAME_BYTES, 1);
        let (forwarded, answers) = guarded(&exact);
        assert!(answers.is_empty(), "{answers:?}");
        assert!(forwarded == [&exact[..], b"\n"].concat());

        let over = request_of(MAX_FRAME_BYTES + 1, 2);
        let (forwarded, answers) = guarded(&over);
        assert!(forwarded.is_empty());
        assert_eq!(answers, [oversized()]);
    }
}
