//! A minimal MCP client session over `probity mcp --authority`'s stdio
//! (newline-delimited JSON-RPC 2.0): initialize, then call tools, each
//! answer the command's `--json` document.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

/// `probity --cwd <cwd> mcp --authority`, isolated, its stdin and stdout
/// piped.
pub fn authority_command(cwd: &std::path::Path) -> Command {
    authority_command_with(cwd, &[])
}

/// [`authority_command`] with `extra` flags after `--authority`.
pub fn authority_command_with(cwd: &std::path::Path, extra: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_probity"));
    super::isolated(&mut cmd)
        .arg("--cwd")
        .arg(cwd)
        .args(["mcp", "--authority"])
        .args(extra)
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    cmd
}

/// A running `probity mcp --authority` and its pipes.
pub struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Session {
    /// Starts `probity --cwd <cwd> mcp --authority` and initializes it.
    pub fn start(cwd: &std::path::Path) -> Session {
        Self::start_with(cwd, &[])
    }

    /// [`Session::start`] of a server that runs the checks an agent gives
    /// (`--allow-evidence-cmd`).
    pub fn start_running_checks(cwd: &std::path::Path) -> Session {
        Self::start_with(cwd, &["--allow-evidence-cmd"])
    }

    /// [`Session::start`] with `extra` flags after `--authority`.
    pub fn start_with(cwd: &std::path::Path, extra: &[&str]) -> Session {
        let mut cmd = authority_command_with(cwd, extra);
        let mut child = cmd.spawn().expect("run probity mcp --authority");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut s = Session {
            child,
            stdin,
            stdout,
            next_id: 1,
        };
        let init = s.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "probity-test", "version": "0"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "probity", "{init}");
        s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        s
    }

    /// Writes one message (a JSON line).
    pub fn send(&mut self, v: &Value) {
        writeln!(self.stdin, "{v}").expect("write");
        self.stdin.flush().expect("flush");
    }

    /// Writes one raw line (a newline is added), as a client would send it.
    pub fn send_raw(&mut self, line: &[u8]) {
        self.stdin.write_all(line).expect("write");
        self.stdin.write_all(b"\n").expect("write");
        self.stdin.flush().expect("flush");
    }

    /// The next message the server writes.
    pub fn answer(&mut self) -> Value {
        let mut line = String::new();
        assert!(
            self.stdout.read_line(&mut line).expect("read") > 0,
            "server closed"
        );
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    /// Sends a bad frame and then a `ping` behind it: (the answer to the
    /// frame, the ping's answer). A frame left unanswered would make the
    /// ping's answer the only one, failing here rather than hanging.
    pub fn bad_frame(&mut self, frame: &[u8]) -> (Value, Value) {
        let id = self.next_id;
        self.next_id += 1;
        self.send_raw(frame);
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}));
        let (a, b) = (self.answer(), self.answer());
        // The frame's answer never carries the ping's id.
        match (a["id"] == json!(id), b["id"] == json!(id)) {
            (false, true) => (a, b),
            (true, false) => (b, a),
            _ => panic!("one answer each expected: {a} / {b}"),
        }
    }

    /// One request and its answer (messages without its id are skipped).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).expect("read") > 0,
                "server closed"
            );
            let v: Value = serde_json::from_str(&line).expect("JSON-RPC");
            if v["id"] == json!(id) {
                return v;
            }
        }
    }

    /// [`Session::start`] on `cwd`, then [`Session::start_review`].
    pub fn with_review(cwd: &std::path::Path) -> (Session, Value, String) {
        let mut s = Session::start(cwd);
        let (started, lineage) = s.start_review();
        (s, started, lineage)
    }

    /// Calls `start`, which must answer: its answer and the lineage.
    pub fn start_review(&mut self) -> (Value, String) {
        let (err, s) = self.call("start", json!({}));
        assert!(!err, "{s}");
        let lineage = s["lineage_id"].as_str().expect("lineage_id").to_string();
        (s, lineage)
    }

    /// Calls `finalize` of `lineage` with [`super::PARSER_UNKNOWN`] for
    /// every lens `started` selected: the review escalates. Its answer.
    pub fn finalize_escalated(&mut self, started: &Value, lineage: &str) -> Value {
        let results: serde_json::Map<String, Value> = started["selected_lenses"]
            .as_array()
            .expect("selected_lenses")
            .iter()
            .map(|lens| {
                (
                    lens.as_str().expect("a lens name").to_string(),
                    serde_json::from_str(super::PARSER_UNKNOWN).expect("JSON"),
                )
            })
            .collect();
        let (err, fin) = self.call("finalize", json!({"lineage": lineage, "results": results}));
        assert!(!err, "{fin}");
        assert_eq!(fin["state"], "escalated", "{fin}");
        fin
    }

    /// Calls a tool: (is_error, the answer document).
    pub fn call(&mut self, name: &str, args: Value) -> (bool, Value) {
        let r = self.request("tools/call", json!({"name": name, "arguments": args}));
        let result = &r["result"];
        assert!(result.is_object(), "{r}");
        let text = result["content"][0]["text"].as_str().expect("text");
        (
            result["isError"] == json!(true),
            serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}")),
        )
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
