//! The model adapter against a local HTTP server on 127.0.0.1 that scripts
//! chat-completions answers (tool calls, then a review): the testkit's
//! server answering its replies in order, stopped when dropped.

use std::time::{Duration, Instant};

use probity_core::snapshot_tools::tool_specs;
use probity_core::snapshot_tools::{LENGTH_RETRY_PROMPT, REVIEWER_FRAME};
use probity_core::snapshot_tools::{Message, ModelRequest, StopReason, Usage, Verdict};
use probity_core::snapshot_tools::{ModelSettings, Temperature};
use probity_model::{CallOptions, ModelConfig, OpenAiChat};
use probity_ports::snapshot::ChatModel;
use probity_ports::snapshot::{LoopRunError, ModelError, run_review};
use serde_json::{Value, json};

mod common;

use common::{Mem, Waits, new_loop, options};
use probity_testkit::TickingStopwatch;
use probity_testkit::http::{HttpServer, Reply, dead_url};

/// Serves `script` (status, body, delay) at `<base>/v1`.
fn serve(script: Vec<(u16, Value, u64)>) -> (String, HttpServer) {
    let server = HttpServer::sequence(
        script
            .into_iter()
            .map(|(status, body, delay)| {
                Reply::value(status, body).delay(Duration::from_millis(delay))
            })
            .collect(),
    )
    .unwrap();
    (format!("{}/v1", server.base()), server)
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

fn chat(base_url: String) -> OpenAiChat {
    OpenAiChat::new(ModelConfig {
        base_url,
        model: "scripted".into(),
        api_key: Some("test-key".into()),
    })
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
        &TickingStopwatch::at(0),
        20_000,
        &mut |e| events.push(e.event.clone()),
    )
    .unwrap();
    let seen = server.seen();
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
    common::assert_posted_to(first, "/v1/chat/completions");
    assert_eq!(
        first
            .header("authorization")
            .map(str::to_ascii_lowercase)
            .as_deref(),
        Some("bearer test-key"),
        "{first:?}"
    );
    assert_eq!(first.json()["model"], "scripted");
    assert_eq!(first.json()["tool_choice"], "auto");
    assert_eq!(first.json()["tools"].as_array().unwrap().len(), 3);
    assert_eq!(first.json()["messages"][0]["content"], REVIEWER_FRAME);

    let msgs = seen[1].json()["messages"].as_array().unwrap().clone();
    assert_eq!(msgs[2]["role"], "assistant");
    assert_eq!(msgs[2]["tool_calls"][1]["id"], "c2");
    assert_eq!(
        msgs[3],
        json!({"role": "tool", "tool_call_id": "c1", "content": "pub fn a() -> u8 { 1 }\n"})
    );
    assert_eq!(msgs[4]["tool_call_id"], "c2");
    common::assert_content_contains(&msgs[4], "escapes the repository root");
    let msgs = seen[2].json()["messages"].as_array().unwrap().clone();
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
    let review = common::review_quietly(&mut lp, &mut chat(url)).unwrap();
    assert_eq!(server.seen().len(), 1);
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
    let review = common::review_quietly(&mut lp, &mut chat(url)).unwrap();
    let seen = server.seen();
    assert!(review.length_retried);
    assert_eq!(seen[1].json()["tool_choice"], "none");
    let last = seen[1].json()["messages"]
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
    // A 4xx other than 429 is answered at once, never retried.
    let (url, server) = serve(vec![(404, json!({"error": "no such model"}), 0)]);
    let mut lp = new_loop();
    let err = common::review_quietly(&mut lp, &mut chat(url)).unwrap_err();
    assert_eq!(server.seen().len(), 1);
    match err {
        LoopRunError::Model(ModelError::Status { status, body }) => {
            assert_eq!(status, 404);
            assert!(body.contains("no such model"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_slow_model_runs_into_the_shared_timeout() {
    let (url, server) = serve(vec![(200, text("VERDICT: PASS", "stop"), 1500)]);
    let mut lp = new_loop();
    let err = common::review_within(&mut lp, &mut chat(url), 300).unwrap_err();
    drop(server);
    assert!(
        matches!(
            err,
            LoopRunError::Timeout {
                timeout_ms: 300,
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn nothing_listening_is_a_transport_error() {
    let url = format!("{}/v1", dead_url().unwrap());
    let mut lp = new_loop();
    let err = common::review_within(&mut lp, &mut chat(url), 5_000).unwrap_err();
    assert!(
        matches!(err, LoopRunError::Model(ModelError::Transport(_))),
        "{err:?}"
    );
}

// --- Providers (issue 10 §3): the chat-completions wire shapes ---

const KEY: &str = "sk-test-0123456789abcdef";

fn chat_with(base: &str, options: CallOptions, waits: &Waits) -> OpenAiChat {
    OpenAiChat::with_options(
        common::config(format!("{base}/v1"), "scripted", KEY),
        options,
    )
    .with_sleeper(waits.sleeper())
}

/// What a model at `base` with `max_retries` and `waits` answers an empty
/// request offering tools (none given) within `timeout_ms`.
fn ask_plain(
    base: &str,
    max_retries: u32,
    waits: &Waits,
    timeout_ms: u64,
) -> Result<probity_core::snapshot_tools::ModelResponse, ModelError> {
    chat_with(base, options(max_retries), waits).complete(&ask(vec![], true), &[], timeout_ms)
}

fn ask(messages: Vec<Message>, offer_tools: bool) -> ModelRequest {
    ModelRequest {
        messages,
        offer_tools,
    }
}

fn expected_tools() -> Value {
    Value::Array(
        tool_specs()
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.input_schema}})
            })
            .collect(),
    )
}

/// The body the round trip below sends: `messages`, the tools offered
/// with `tool_choice`, temperature 0.2 and seed 1234.
fn sent_body(messages: &[Value], tool_choice: &str) -> Value {
    json!({
        "model": "scripted",
        "messages": messages,
        "stream": false,
        "tools": expected_tools(),
        "tool_choice": tool_choice,
        "temperature": 0.2,
        "seed": 1234,
    })
}

#[test]
fn a_tool_call_round_trip_sends_the_documented_bodies() {
    let server = HttpServer::sequence(vec![
        Reply::value(
            200,
            json!({"id": "chatcmpl-1", "object": "chat.completion", "model": "scripted",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": null,
                    "tool_calls": [{"id": "call_1", "type": "function",
                        "function": {"name": "read", "arguments": "{\"path\":\"src/a.rs\"}"}}]},
                    "finish_reason": "tool_calls"}],
                "usage": {"prompt_tokens": 50, "completion_tokens": 7, "total_tokens": 57}}),
        ),
        Reply::value(200, text("a() returns 1.\nVERDICT: PASS", "stop")),
    ])
    .unwrap();
    let base = server.base();
    let waits = Waits::default();
    let mut model = chat_with(
        base,
        CallOptions {
            temperature: Temperature::parse("0.2"),
            seed: Some(1234),
            max_tokens: None,
            max_retries: 0,
        },
        &waits,
    );
    let specs = tool_specs();
    let mut messages = vec![
        Message::System {
            content: "frame".into(),
        },
        Message::User {
            content: "diff".into(),
        },
    ];
    let first = model
        .complete(&ask(messages.clone(), true), &specs, 10_000)
        .unwrap();
    assert_eq!(first.stop, StopReason::ToolUse);
    assert_eq!(
        first.usage,
        Some(Usage {
            input_tokens: 50,
            output_tokens: 7,
            cost_micro_usd: None
        })
    );
    messages.push(Message::Assistant {
        content: None,
        tool_calls: first.tool_calls.clone(),
    });
    messages.push(Message::Tool {
        tool_call_id: "call_1".into(),
        content: "pub fn a() -> u8 { 1 }\n".into(),
    });
    let second = model
        .complete(&ask(messages, false), &specs, 10_000)
        .unwrap();
    assert_eq!(
        second.text.as_deref(),
        Some("a() returns 1.\nVERDICT: PASS")
    );
    assert!(second.tool_calls.is_empty());
    let seen = server.seen();
    let opening = vec![
        json!({"role": "system", "content": "frame"}),
        json!({"role": "user", "content": "diff"}),
    ];
    assert_eq!(seen[0].json(), sent_body(&opening, "auto"));
    let answered = [
        opening,
        vec![
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_1",
                "type": "function", "function": {"name": "read",
                    "arguments": "{\"path\":\"src/a.rs\"}"}}]}),
            json!({"role": "tool", "tool_call_id": "call_1", "content": "pub fn a() -> u8 { 1 }\n"}),
        ],
    ]
    .concat();
    assert_eq!(seen[1].json(), sent_body(&answered, "none"));
    assert_eq!(
        (seen[0].method.as_str(), seen[0].target.as_str()),
        ("POST", "/v1/chat/completions")
    );
    assert_eq!(
        seen[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(seen[0].header("content-type"), Some("application/json"));
    assert!(waits.taken().is_empty());
}

#[test]
fn a_429_with_retry_after_is_waited_then_retried() {
    let server = HttpServer::sequence(vec![
        Reply::value(429, json!({"error": {"message": "slow down"}})).header("Retry-After", "7"),
        Reply::value(200, text("VERDICT: PASS", "stop")),
    ])
    .unwrap();
    let base = server.base();
    let waits = Waits::default();
    let r = ask_plain(base, 3, &waits, 60_000).unwrap();
    assert_eq!(r.text.as_deref(), Some("VERDICT: PASS"));
    assert_eq!(waits.taken(), [Duration::from_secs(7)]);
    let seen = server.seen();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].json(), seen[1].json());
}

#[test]
fn retry_after_as_an_http_date_and_in_milliseconds() {
    // A date in the past asks for no wait; `retry-after-ms` wins over
    // `Retry-After`, and is really waited with the thread sleeper.
    let server = HttpServer::sequence(vec![
        Reply::value(503, json!({})).header("Retry-After", "Sun, 06 Nov 1994 08:49:37 GMT"),
        Reply::value(429, json!({}))
            .header("Retry-After", "600")
            .header("retry-after-ms", "60"),
        Reply::value(200, text("ok", "stop")),
    ])
    .unwrap();
    let base = server.base();
    let started = Instant::now();
    let r = OpenAiChat::with_options(
        ModelConfig {
            base_url: format!("{base}/v1"),
            model: "m".into(),
            api_key: None,
        },
        options(3),
    )
    .complete(&ask(vec![], true), &[], 30_000)
    .unwrap();
    assert_eq!(r.text.as_deref(), Some("ok"));
    assert!(started.elapsed() >= Duration::from_millis(60));
    assert!(started.elapsed() < Duration::from_secs(20));
    let seen = server.seen();
    assert_eq!(seen.len(), 3);
    assert_eq!(seen[0].header("authorization"), None);
}

#[test]
fn server_errors_are_retried_with_backoff_then_a_typed_error() {
    let script = (0..4)
        .map(|i| Reply::value(500 + i, json!({"error": {"message": format!("down {i}")}})))
        .collect();
    let server = HttpServer::sequence(script).unwrap();
    let base = server.base();
    let waits = Waits::default();
    let err = ask_plain(base, 3, &waits, 60_000).unwrap_err();
    assert_eq!(server.seen().len(), 4);
    assert_eq!(waits.taken(), [500, 1000, 2000].map(Duration::from_millis));
    common::assert_status(err, 503, "down 3");
}

#[test]
fn no_wait_runs_past_the_calls_budget() {
    let server = HttpServer::sequence(vec![
        Reply::value(429, json!({})).header("Retry-After", "120"),
    ])
    .unwrap();
    let base = server.base();
    let waits = Waits::default();
    let err = ask_plain(base, 3, &waits, 5_000).unwrap_err();
    assert_eq!(err, ModelError::Timeout);
    assert!(waits.taken().is_empty());
    assert_eq!(server.seen().len(), 1);
}

#[test]
fn zero_retries_answers_the_first_429() {
    let server =
        HttpServer::sequence(vec![Reply::value(429, json!({"error": "limited"}))]).unwrap();
    let base = server.base();
    let waits = Waits::default();
    let err = ask_plain(base, 0, &waits, 5_000).unwrap_err();
    assert!(
        matches!(err, ModelError::Status { status: 429, .. }),
        "{err:?}"
    );
    assert!(waits.taken().is_empty());
    assert_eq!(server.seen().len(), 1);
}

#[test]
fn a_client_error_body_is_cut_and_never_carries_the_key() {
    let body = format!(
        "{{\"error\": \"invalid key {KEY}\", \"pad\": \"{}\"}}",
        "x".repeat(5000)
    );
    let server = HttpServer::sequence(vec![Reply::status(401, body.as_str())]).unwrap();
    let base = server.base();
    let waits = Waits::default();
    let mut model = chat_with(base, options(3), &waits);
    let err = model.complete(&ask(vec![], true), &[], 5_000).unwrap_err();
    assert_eq!(server.seen().len(), 1);
    let ModelError::Status { status, body } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(*status, 401);
    assert!(body.chars().count() <= 2000);
    assert!(body.contains("invalid key <redacted>"), "{body}");
    for shown in [err.to_string(), format!("{err:?}"), format!("{model:?}")] {
        assert!(!shown.contains(KEY), "{shown}");
    }
    // Nor does a transport error.
    let err = ask_plain(&dead_url().unwrap(), 0, &waits, 5_000).unwrap_err();
    assert!(matches!(err, ModelError::Transport(_)), "{err:?}");
    assert!(!format!("{err} {err:?}").contains(KEY));
}

#[test]
fn malformed_json_is_a_protocol_error() {
    let bodies = [
        "{\"choices\": [",
        "<html>502 Bad Gateway</html>",
        "{\"choices\": []}",
    ];
    common::assert_protocol_errors(&bodies, |base| ask_plain(base, 0, &Waits::default(), 5_000));
}

#[test]
fn prose_instead_of_json_is_just_text() {
    // The adapter answers what the model said; the loop decides.
    let prose = "I think the change is fine, no JSON from me.";
    let r = common::answer_of(vec![Reply::value(200, text(prose, "stop"))], |base| {
        chat_with(base, options(0), &Waits::default()).complete(
            &ask(vec![], true),
            &tool_specs(),
            5_000,
        )
    })
    .unwrap();
    common::assert_just_text(&r, prose);
}

#[test]
fn usage_and_a_gateway_cost_reach_the_review() {
    let answer = |t: &str, finish: &str, tokens: (u64, u64), cost: f64| {
        let mut v = text(t, finish);
        v["usage"] =
            json!({"prompt_tokens": tokens.0, "completion_tokens": tokens.1, "cost": cost});
        v
    };
    let server = HttpServer::sequence(vec![
        Reply::value(
            200,
            answer(
                "The change is long and I was cut",
                "length",
                (1000, 300),
                0.0031,
            ),
        ),
        Reply::value(
            200,
            answer("Short.\nVERDICT: PASS", "stop", (1300, 10), 0.0011),
        ),
    ])
    .unwrap();
    let base = server.base();
    let mut lp = new_loop();
    let review =
        common::review_quietly(&mut lp, &mut chat_with(base, options(0), &Waits::default()))
            .unwrap();
    drop(server);
    assert_eq!(review.usage.reported_calls, 2);
    assert_eq!(review.usage.input_tokens, 2300);
    assert_eq!(review.usage.output_tokens, 310);
    assert_eq!(review.usage.cost_micro_usd, Some(4200));
}

#[test]
fn a_model_calling_tools_past_the_budget_gets_tool_choice_none() {
    let answers = vec![
        tool_calls(&[("c1", "read", json!({"path": "src/a.rs"}))]),
        tool_calls(&[("c2", "list", json!({}))]),
        text("VERDICT: PASS", "stop"),
    ];
    let (review, seen) = common::review_past_one_call(answers, |base| {
        chat_with(base, options(0), &Waits::default())
    });
    assert_eq!(review.verdict(), Some(&Verdict::Pass));
    assert_eq!(
        common::tool_choices(&seen),
        [json!("auto"), json!("none"), json!("none")]
    );
    let last = seen[2].json()["messages"].as_array().unwrap().clone();
    assert_eq!(last[last.len() - 1]["tool_call_id"], "c2");
    assert!(
        last[last.len() - 1]["content"]
            .as_str()
            .unwrap()
            .starts_with("budget exhausted")
    );
}

#[test]
fn build_makes_an_openai_model_from_the_settings() {
    let server = HttpServer::sequence(vec![Reply::value(200, text("ok", "stop"))]).unwrap();
    let base = server.base();
    let settings = ModelSettings {
        model: Some("from-file".into()),
        api_key_env: Some("MY_MODEL_KEY".into()),
        seed: Some(5),
        ..ModelSettings::default()
    };
    let mut model = probity_model::build(&settings, |k| match k {
        "PROBITY_MODEL_BASE_URL" => Some(format!("{base}/v1")),
        "MY_MODEL_KEY" => Some(KEY.into()),
        _ => None,
    })
    .unwrap();
    model.complete(&ask(vec![], true), &[], 5_000).unwrap();
    let seen = server.seen();
    assert_eq!(seen[0].json()["model"], "from-file");
    assert_eq!(seen[0].json()["seed"], 5);
    assert_eq!(
        seen[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
}
