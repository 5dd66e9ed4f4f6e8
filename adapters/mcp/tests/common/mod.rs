//! What the MCP tests share: a one-tool handler, the client's opening
//! (`initialize`, then `notifications/initialized`) and an in-process
//! session over a byte stream that answers each frame the client sends.

#![allow(dead_code)]

use probity_mcp::{ToolAnswer, ToolDef, ToolHandler};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};

/// A server of one tool, `name`, read-only, whose calls answer
/// `answer(arguments)`; its instructions are its description.
pub struct OneTool {
    /// The tool's name.
    pub name: &'static str,
    /// What the tool says of itself (and the server's instructions).
    pub description: &'static str,
    /// The tool's input schema.
    pub input_schema: Value,
    /// The text a call answers, from the call's arguments.
    pub answer: fn(&Value) -> String,
}

impl ToolHandler for OneTool {
    fn instructions(&self) -> String {
        self.description.into()
    }

    fn tools(&self) -> Vec<ToolDef> {
        vec![ToolDef {
            name: self.name.into(),
            description: self.description.into(),
            input_schema: self.input_schema.clone(),
            read_only: true,
        }]
    }

    fn call(&self, name: &str, args: &Value) -> Option<ToolAnswer> {
        (name == self.name).then(|| ToolAnswer {
            text: (self.answer)(args),
            is_error: false,
        })
    }
}

/// The client's `initialize` request (id 1).
pub fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "probity-test", "version": "0"}}})
}

/// The client's `notifications/initialized` (no answer).
pub fn initialized() -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
}

/// A JSON value as one frame: its line and the newline.
pub fn frame(v: &Value) -> Vec<u8> {
    format!("{v}\n").into_bytes()
}

/// One session over an in-memory stream: `serve` runs on its own thread
/// over the server's end; the client sends [`initialize`], then
/// [`initialized`], then each of `frames` as given (newlines included),
/// reading after each request the next answer (a line with an `id`,
/// notifications passed over). Returns the answers, the initialize's
/// first, once the server has returned `Ok`.
pub fn session<E: std::fmt::Debug + Send + 'static>(
    serve: impl FnOnce(ReadHalf<DuplexStream>, WriteHalf<DuplexStream>) -> Result<(), E>
    + Send
    + 'static,
    frames: Vec<Vec<u8>>,
) -> Vec<Value> {
    let (client, server_io) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server_io);
    let handle = std::thread::spawn(move || serve(server_read, server_write));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let answers = rt.block_on(async move {
        let (client_read, mut client_write) = tokio::io::split(client);
        let mut lines = BufReader::new(client_read).lines();
        let mut answers = Vec::new();
        let requests = std::iter::once(frame(&initialize())).chain(frames);
        for (i, bytes) in requests.enumerate() {
            client_write.write_all(&bytes).await.unwrap();
            loop {
                let line = lines
                    .next_line()
                    .await
                    .unwrap()
                    .expect("server closed the stream");
                let v: Value = serde_json::from_str(&line).unwrap();
                if v.get("id").is_some() {
                    answers.push(v);
                    break;
                }
            }
            if i == 0 {
                client_write
                    .write_all(&frame(&initialized()))
                    .await
                    .unwrap();
            }
        }
        drop(client_write);
        answers
    });
    handle.join().unwrap().unwrap();
    answers
}
