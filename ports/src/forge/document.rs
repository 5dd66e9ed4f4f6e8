//! The normalized-input document as JSON: the exact shape `probity context
//! assemble --input` reads back.

use probity_core::context::ContextInput;
use serde_json::{Map, Value, json};

fn opt(map: &mut Map<String, Value>, key: &str, v: Option<Value>) {
    if let Some(v) = v {
        map.insert(key.to_owned(), v);
    }
}

/// The normalized-input document as JSON (`--input-out`), the exact shape
/// `probity context assemble --input` reads back.
pub fn input_document(input: &ContextInput) -> Value {
    let p = &input.profile;
    let e = &input.entity;
    let mut entity = Map::new();
    entity.insert("kind".into(), json!(e.kind));
    entity.insert("id".into(), json!(e.id));
    entity.insert("number".into(), json!(e.number));
    entity.insert("title".into(), json!(e.title));
    entity.insert("state".into(), json!(e.state));
    entity.insert("author_id".into(), json!(e.author_id));
    entity.insert("created_at".into(), json!(e.created_at));
    entity.insert("updated_at".into(), json!(e.updated_at));
    entity.insert("labels".into(), json!(e.labels));
    entity.insert("body".into(), json!(e.body));
    opt(
        &mut entity,
        "head_sha",
        e.head_sha.as_ref().map(|v| json!(v)),
    );
    let actors: Vec<Value> = input
        .actors
        .iter()
        .map(|a| {
            json!({"id": a.id, "kind": a.kind, "login": a.login, "role": a.role,
                   "role_verified": a.role_verified,
                   "bot_identity_verified": a.bot_identity_verified, "bot_role": a.bot_role})
        })
        .collect();
    let comments: Vec<Value> = input
        .comments
        .iter()
        .map(|c| {
            let mut m = Map::new();
            m.insert("id".into(), json!(c.id));
            m.insert("author_id".into(), json!(c.author_id));
            m.insert("created_at".into(), json!(c.created_at));
            opt(
                &mut m,
                "updated_at",
                c.updated_at.as_ref().map(|v| json!(v)),
            );
            m.insert("body".into(), json!(c.body));
            Value::Object(m)
        })
        .collect();
    let reviews: Vec<Value> = input
        .reviews
        .iter()
        .map(|r| {
            let mut m = Map::new();
            m.insert("id".into(), json!(r.id));
            m.insert("author_id".into(), json!(r.author_id));
            m.insert("state".into(), json!(r.state));
            m.insert("submitted_at".into(), json!(r.submitted_at));
            opt(
                &mut m,
                "updated_at",
                r.updated_at.as_ref().map(|v| json!(v)),
            );
            opt(
                &mut m,
                "reviewed_sha",
                r.reviewed_sha.as_ref().map(|v| json!(v)),
            );
            m.insert("body".into(), json!(r.body));
            if r.state == "dismissed" {
                m.insert("dismissed_at".into(), json!(r.dismissed_at));
                m.insert(
                    "dismissed_by_actor_id".into(),
                    json!(r.dismissed_by_actor_id),
                );
            }
            Value::Object(m)
        })
        .collect();
    let threads: Vec<Value> = input
        .threads
        .iter()
        .map(|t| {
            let mut m = Map::new();
            m.insert("id".into(), json!(t.id));
            m.insert("created_at".into(), json!(t.created_at));
            m.insert("comment_ids".into(), json!(t.comment_ids));
            let replies: Vec<Value> = t
                .replies
                .iter()
                .map(|r| json!({"comment_id": r.comment_id, "parent_comment_id": r.parent_comment_id}))
                .collect();
            m.insert("replies".into(), Value::Array(replies));
            let s = |v: &Option<String>| v.as_ref().map(|v| json!(v));
            let n = |v: &Option<i64>| v.map(|v| json!(v));
            opt(&mut m, "review_id", s(&t.review_id));
            opt(&mut m, "reviewed_sha", s(&t.reviewed_sha));
            opt(&mut m, "path", s(&t.path));
            opt(&mut m, "line", n(&t.line));
            opt(&mut m, "side", s(&t.side));
            opt(&mut m, "start_line", n(&t.start_line));
            opt(&mut m, "original_line", n(&t.original_line));
            opt(&mut m, "original_start_line", n(&t.original_start_line));
            opt(&mut m, "original_side", s(&t.original_side));
            m.insert("resolved".into(), json!(t.resolved));
            opt(&mut m, "resolved_by_actor_id", s(&t.resolved_by_actor_id));
            m.insert("outdated".into(), json!(t.outdated));
            opt(&mut m, "minimized", t.minimized.map(|v| json!(v)));
            Value::Object(m)
        })
        .collect();
    let checks: Vec<Value> = input
        .checks
        .iter()
        .map(|c| {
            let mut m = Map::new();
            let s = |v: &Option<String>| v.as_ref().map(|v| json!(v));
            m.insert("id".into(), json!(c.id));
            m.insert("name".into(), json!(c.name));
            m.insert("status".into(), json!(c.status));
            opt(&mut m, "conclusion", s(&c.conclusion));
            m.insert("created_at".into(), json!(c.created_at));
            m.insert("head_sha".into(), json!(c.head_sha));
            opt(&mut m, "started_at", s(&c.started_at));
            opt(&mut m, "completed_at", s(&c.completed_at));
            opt(&mut m, "never_started", c.never_started.map(|v| json!(v)));
            opt(&mut m, "log", s(&c.log));
            Value::Object(m)
        })
        .collect();
    let agent_runs: Vec<Value> = input
        .agent_runs
        .iter()
        .map(|r| {
            let mut m = Map::new();
            let s = |v: &Option<String>| v.as_ref().map(|v| json!(v));
            m.insert("id".into(), json!(r.id));
            m.insert("agent".into(), json!(r.agent));
            m.insert("status".into(), json!(r.status));
            m.insert("input_revision".into(), json!(r.input_revision));
            opt(&mut m, "input_head_sha", s(&r.input_head_sha));
            m.insert("result_record_keys".into(), json!(r.result_record_keys));
            opt(&mut m, "resulting_commit_sha", s(&r.resulting_commit_sha));
            opt(&mut m, "started_at", s(&r.started_at));
            m.insert("completed_at".into(), json!(r.completed_at));
            Value::Object(m)
        })
        .collect();
    let gaps: Vec<Value> = input
        .acquisition_gaps
        .iter()
        .map(|g| json!({"scope": g.scope, "code": g.code, "count": g.count}))
        .collect();
    json!({
        "format": input.format,
        "source": {
            "forge": input.source.forge,
            "host": input.source.host,
            "repository_id": input.source.repository_id,
            "repository": input.source.repository,
        },
        "profile": {
            "entity_kind": p.entity_kind,
            "included_sources": p.included_sources,
            "record_selection": p.record_selection,
            "check_log_selection": p.check_log_selection,
            "bounds": {
                "max_records_per_source": p.bounds.max_records_per_source,
                "max_source_bytes": p.bounds.max_source_bytes,
                "max_record_bytes": p.bounds.max_record_bytes,
                "max_log_bytes": p.bounds.max_log_bytes,
                "max_metadata_string_bytes": p.bounds.max_metadata_string_bytes,
                "max_labels": p.bounds.max_labels,
            },
            "admission": {"human_min_role": p.admission.human_min_role},
        },
        "entity": Value::Object(entity),
        "actors": actors,
        "bot_roles": input.bot_roles,
        "credentials": input.credentials,
        "comments": comments,
        "reviews": reviews,
        "threads": threads,
        "checks": checks,
        "agent_runs": agent_runs,
        "acquisition_gaps": gaps,
    })
}
