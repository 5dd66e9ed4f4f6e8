//! The Anthropic Messages adapter against a scripted server on 127.0.0.1
//! that answers in the API's documented shapes (content blocks, `tool_use`,
//! `stop_reason`, `usage`, error objects). No test reaches the network.

use std::time::Duration;

use probity_core::snapshot_tools::REVIEWER_FRAME;
use probity_core::snapshot_tools::tool_specs;
use probity_core::snapshot_tools::{Message, ModelRequest, StopReason, Usage, Verdict};
use probity_core::snapshot_tools::{ModelSettings, Provider, Temperature};
use probity_model::anthropic::{ANTHROPIC_VERSION, DEFAULT_MAX_TOKENS};
use probity_model::{AnthropicMessages, CallOptions};
use probity_ports::snapshot::{ChatModel, LoopRunError, ModelError, run_review};
use serde_json::{Value, json};

mod common;

use common::{Mem, Waits, new_loop, options};
use probity_testkit::TickingStopwatch;
use probity_testkit::http::{HttpServer, Reply};

const KEY: &str = "sk-ant-test-0123456789";

fn messages_api(base: &str, options: CallOptions, waits: &Waits) -> AnthropicMessages {
    AnthropicMessages::new(
        common::config(base.to_owned(), "claude-scripted", KEY),
        options,
    )
    .with_sleeper(waits.sleeper())
}

/// A Messages response with `content` blocks.
fn answer(content: Value, stop_reason: &str) -> Value {
    json!({
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-scripted",
        "content": content, "stop_reason": stop_reason, "stop_sequence": null,
        "usage": {"input_tokens": 120, "output_tokens": 30}
    })
}

fn say(text: &str) -> Value {
    answer(json!([{"type": "text", "text": text}]), "end_turn")
}

fn tool_use(calls: &[(&str, &str, Value)]) -> Value {
    answer(
        Value::Array(
            calls
                .iter()
                .map(|(id, name, input)| {
                    json!({"type": "tool_use", "id": id, "name": name, "input": input})
                })
                .collect(),
        ),
        "tool_use",
    )
}

fn error(kind: &str, message: &str) -> Value {
    json!({"type": "error", "error": {"type": kind, "message": message}})
}

fn expected_tools() -> Value {
    Value::Array(
        tool_specs()
            .iter()
            .map(|t| {
                json!({"name": t.name, "description": t.description, "input_schema": t.input_schema})
            })
            .collect(),
    )
}

fn ask(messages: Vec<Message>) -> ModelRequest {
    ModelRequest {
        messages,
        offer_tools: true,
    }
}

#[test]
fn a_tool_use_round_trip_drives_the_review_loop() {
    let server = HttpServer::sequence(vec![
        Reply::value(
            200,
            tool_use(&[
                ("toolu_1", "read", json!({"path": "src/a.rs"})),
                ("toolu_2", "read", json!({"path": "../secret"})),
            ]),
        ),
        Reply::value(200, say("a() returns 1 as claimed.\nVERDICT: PASS\n")),
    ])
    .unwrap();
    let base = server.base();
    let mut lp = new_loop();
    let review = common::review_quietly(
        &mut lp,
        &mut messages_api(
            base,
            CallOptions {
                temperature: Temperature::parse("0.3"),
                seed: Some(99),
                max_tokens: None,
                max_retries: 0,
            },
            &Waits::default(),
        ),
    )
    .unwrap();
    let seen = server.seen();
    assert_eq!(review.verdict(), Some(&Verdict::Pass));
    assert_eq!(review.usage.reported_calls, 2);
    assert_eq!(review.usage.input_tokens, 240);

    let first = &seen[0];
    common::assert_posted_to(first, "/v1/messages");
    assert_eq!(first.header("x-api-key"), Some(KEY));
    assert_eq!(first.header("anthropic-version"), Some(ANTHROPIC_VERSION));
    assert_eq!(first.header("content-type"), Some("application/json"));
    assert_eq!(first.header("authorization"), None);
    assert_eq!(
        first.json(),
        json!({
            "model": "claude-scripted",
            "max_tokens": DEFAULT_MAX_TOKENS,
            "system": REVIEWER_FRAME,
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "Review this diff."}]},
            ],
            "stream": false,
            "tools": expected_tools(),
            "tool_choice": {"type": "auto"},
            "temperature": 0.3,
        })
    );
    // The second request: the assistant's tool_use blocks, then both tool
    // results in one user turn.
    let second = seen[1].json();
    assert_eq!(second["system"], REVIEWER_FRAME);
    assert_eq!(second["tool_choice"], json!({"type": "auto"}));
    assert!(second.get("seed").is_none());
    let turns = second["messages"].as_array().unwrap();
    assert_eq!(turns.len(), 3);
    assert_eq!(
        turns[1],
        json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "src/a.rs"}},
            {"type": "tool_use", "id": "toolu_2", "name": "read", "input": {"path": "../secret"}},
        ]})
    );
    assert_eq!(turns[2]["role"], "user");
    let results = turns[2]["content"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    assert_eq!(
        results[0],
        json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": "pub fn a() -> u8 { 1 }\n"})
    );
    assert_eq!(results[1]["type"], "tool_result");
    assert_eq!(results[1]["tool_use_id"], "toolu_2");
    common::assert_content_contains(&results[1], "escapes the repository root");
}

#[test]
fn a_model_that_never_calls_a_tool() {
    let server = HttpServer::sequence(vec![Reply::value(
        200,
        say("Fine.\nVERDICT: FAIL src/a.rs:1"),
    )])
    .unwrap();
    let base = server.base();
    let mut lp = new_loop();
    let review = common::review_quietly(
        &mut lp,
        &mut messages_api(base, options(0), &Waits::default()),
    )
    .unwrap();
    assert_eq!(server.seen().len(), 1);
    assert_eq!(review.verdict(), Some(&Verdict::Fail));
    assert_eq!(review.footer, None);
}

#[test]
fn a_model_calling_tools_past_the_budget_gets_tool_choice_none() {
    let (review, seen) = common::review_past_one_call(
        vec![
            tool_use(&[("t1", "read", json!({"path": "src/a.rs"}))]),
            tool_use(&[("t2", "list", json!({}))]),
            say("VERDICT: PASS"),
        ],
        |base| messages_api(base, options(0), &Waits::default()),
    );
    assert_eq!(review.verdict(), Some(&Verdict::Pass));
    assert_eq!(
        common::tool_choices(&seen),
        [
            json!({"type": "auto"}),
            json!({"type": "none"}),
            json!({"type": "none"})
        ]
    );
    // The tools stay declared: the transcript has tool_use blocks.
    assert_eq!(seen[2].json()["tools"], expected_tools());
    let turns = seen[2].json()["messages"].as_array().unwrap().clone();
    let roles: Vec<&str> = turns.iter().map(|t| t["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "user", "assistant", "user"]);
    let last = &turns[4]["content"][0];
    assert_eq!(last["tool_use_id"], "t2");
    assert!(
        last["content"]
            .as_str()
            .unwrap()
            .starts_with("budget exhausted")
    );
}

#[test]
fn max_tokens_is_a_length_stop_and_text_blocks_are_joined() {
    let server = HttpServer::sequence(vec![Reply::value(
        200,
        answer(
            json!([{"type": "text", "text": "part one, "}, {"type": "text", "text": "part two"}]),
            "max_tokens",
        ),
    )])
    .unwrap();
    let base = server.base();
    let r = messages_api(base, options(0), &Waits::default())
        .complete(&ask(vec![]), &[], 5_000)
        .unwrap();
    drop(server);
    assert_eq!(r.text.as_deref(), Some("part one, part two"));
    assert_eq!(r.stop, StopReason::Length);
    assert_eq!(
        r.usage,
        Some(Usage {
            input_tokens: 120,
            output_tokens: 30,
            cost_micro_usd: None
        })
    );
}

#[test]
fn prose_instead_of_json_is_just_text() {
    let prose = "Looks good to me; I will not write JSON.";
    let r = common::answer_of(vec![Reply::value(200, say(prose))], |base| {
        messages_api(base, options(0), &Waits::default()).complete(
            &ask(vec![]),
            &tool_specs(),
            5_000,
        )
    })
    .unwrap();
    common::assert_just_text(&r, prose);
}

#[test]
fn a_429_with_retry_after_then_success() {
    let server = HttpServer::sequence(vec![
        Reply::value(
            429,
            error("rate_limit_error", "Number of requests exceeded"),
        )
        .header("retry-after", "3"),
        Reply::value(200, say("VERDICT: PASS")),
    ])
    .unwrap();
    let base = server.base();
    let waits = Waits::default();
    let r = messages_api(base, options(3), &waits)
        .complete(&ask(vec![]), &[], 60_000)
        .unwrap();
    assert_eq!(r.text.as_deref(), Some("VERDICT: PASS"));
    assert_eq!(waits.taken(), [Duration::from_secs(3)]);
    assert_eq!(server.seen().len(), 2);
}

#[test]
fn overloaded_529_is_retried_then_exhausted() {
    let script = vec![Reply::value(529, error("overloaded_error", "Overloaded")); 3];
    let server = HttpServer::sequence(script).unwrap();
    let base = server.base();
    let waits = Waits::default();
    let err = messages_api(base, options(2), &waits)
        .complete(&ask(vec![]), &[], 60_000)
        .unwrap_err();
    assert_eq!(server.seen().len(), 3);
    assert_eq!(waits.taken(), [500, 1000].map(Duration::from_millis));
    common::assert_status(err, 529, "overloaded_error");
}

#[test]
fn a_retry_that_cannot_start_in_time_is_a_timeout() {
    let server = HttpServer::sequence(vec![
        Reply::value(529, error("overloaded_error", "Overloaded")).header("retry-after", "30"),
    ])
    .unwrap();
    let base = server.base();
    let waits = Waits::default();
    let mut lp = new_loop();
    let err = run_review(
        &mut lp,
        &mut messages_api(base, options(3), &waits),
        &Mem,
        &TickingStopwatch::at(0),
        2_000,
        &mut |_| {},
    )
    .unwrap_err();
    drop(server);
    assert!(matches!(err, LoopRunError::Timeout { .. }), "{err:?}");
    assert!(waits.taken().is_empty());
}

#[test]
fn an_invalid_request_is_not_retried_and_never_shows_the_key() {
    let server = HttpServer::sequence(vec![Reply::value(
        400,
        error(
            "invalid_request_error",
            &format!("bad header x-api-key: {KEY}"),
        ),
    )])
    .unwrap();
    let base = server.base();
    let waits = Waits::default();
    let mut model = messages_api(base, options(3), &waits);
    let err = model.complete(&ask(vec![]), &[], 5_000).unwrap_err();
    assert_eq!(server.seen().len(), 1);
    assert!(waits.taken().is_empty());
    assert!(
        matches!(&err, ModelError::Status { status: 400, body } if body.contains("invalid_request_error")),
        "{err:?}"
    );
    for shown in [err.to_string(), format!("{err:?}"), format!("{model:?}")] {
        assert!(!shown.contains(KEY), "{shown}");
    }
}

#[test]
fn malformed_json_is_a_protocol_error() {
    let bodies = [
        "{\"content\": [",
        "event: message_start\ndata: {}\n\n",
        "{\"type\": \"message\"}",
    ];
    common::assert_protocol_errors(&bodies, |base| {
        messages_api(base, options(0), &Waits::default()).complete(&ask(vec![]), &[], 5_000)
    });
}

#[test]
fn build_makes_an_anthropic_model_from_the_settings() {
    let server = HttpServer::sequence(vec![Reply::value(200, say("ok"))]).unwrap();
    let base = server.base();
    let settings = ModelSettings {
        provider: Provider::Anthropic,
        base_url: Some(base.to_owned()),
        model: Some("claude-x".into()),
        temperature: Temperature::parse("0"),
        seed: Some(3),
        max_tokens: Some(777),
        ..ModelSettings::default()
    };
    let mut model = probity_model::build(&settings, |k| {
        (k == "PROBITY_MODEL_API_KEY").then(|| KEY.to_owned())
    })
    .unwrap();
    let r = model.complete(&ask(vec![]), &[], 5_000).unwrap();
    assert_eq!(r.text.as_deref(), Some("ok"));
    let seen = server.seen();
    assert_eq!(seen[0].json()["model"], "claude-x");
    assert_eq!(seen[0].json()["max_tokens"], 777);
    assert_eq!(seen[0].json()["temperature"], 0.0);
    assert!(seen[0].json().get("seed").is_none());
    assert_eq!(seen[0].header("x-api-key"), Some(KEY));
}
