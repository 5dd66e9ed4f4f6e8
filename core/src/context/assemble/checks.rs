//! Checks, their logs and workflow runs.

use super::*;

pub(super) fn build_checks(
    a: &mut Assembler,
    checks: &[input::CheckInput],
    head: Option<&GitOid>,
) -> Result<(), AssembleError> {
    let dups = duplicates(checks.iter().map(|c| c.id.as_deref()));
    let mut ok = Vec::new();
    for c in checks {
        let id = a.unique_id(IdKind::Record, c.id.as_deref(), &dups)?;
        match (id, validate_check(c, head)) {
            (Some(id), Some(meta)) => {
                let key = a.key(KeyKind::Check, &id);
                ok.push((meta.created_at, key, id, meta, c));
            }
            _ => a.gaps.add(GapScope::Checks, GapCode::InvalidMetadata, 1),
        }
    }
    ok.sort_by_key(|x| (x.0, x.1));
    let kept = a.bounded(GapScope::Checks, ok);
    for (created, key, id, meta, c) in kept {
        let name = a.display(&c.name)?;
        if !name.is_rejected() && name.text.is_empty() {
            a.gaps.add(GapScope::Checks, GapCode::InvalidMetadata, 1);
            continue;
        }
        let check = |id, metadata_path, log_path, filter| Record {
            kind: "check",
            id,
            key,
            created_at: created,
            updated_at: None,
            author: None,
            content_path: None,
            metadata_path,
            log_path,
            filter,
        };
        if name.is_rejected() {
            a.gaps.add(GapScope::Checks, GapCode::UnsafeContent, 1);
            a.records.push(check(id, None, None, name.summary));
            continue;
        }
        let dir = format!("checks/{}", key.hex());
        let mut doc = Map::new();
        doc.insert("id".into(), json!(id.as_str()));
        doc.insert("name".into(), json!(name.text));
        doc.insert("status".into(), json!(meta.status.as_str()));
        doc.insert("created_at".into(), json!(created.canonical()));
        doc.insert("head_sha".into(), json!(meta.head_sha.as_str()));
        if let Some(cn) = meta.conclusion {
            doc.insert("conclusion".into(), json!(cn.as_str()));
        }
        if let Some(t) = meta.started_at {
            doc.insert("started_at".into(), json!(t.canonical()));
        }
        if let Some(t) = meta.completed_at {
            doc.insert("completed_at".into(), json!(t.canonical()));
        }
        if let Some(n) = meta.never_started {
            doc.insert("never_started".into(), json!(n));
        }
        let metadata_path = format!("{dir}/metadata.json");
        a.add_json(
            &metadata_path,
            DocSchema::Check,
            &Value::Object(doc),
            "check_metadata",
            Some(name.summary.clone()),
        )?;
        let log_path = check_log(a, &dir, &meta, c)?;
        a.records
            .push(check(id, Some(metadata_path), log_path, name.summary));
    }
    Ok(())
}

pub(super) fn check_log(
    a: &mut Assembler,
    dir: &str,
    meta: &CheckMeta,
    c: &input::CheckInput,
) -> Result<Option<String>, AssembleError> {
    let wanted = a.profile.includes(Source::CheckLogs)
        && match a.profile.check_log_selection {
            LogSelection::None => false,
            LogSelection::All => true,
            LogSelection::Failed => meta.conclusion.is_some_and(CheckConclusion::is_failed),
        };
    if !wanted {
        return Ok(None);
    }
    let Some(log) = c.log.as_deref() else {
        if meta.status == CheckStatus::Completed {
            a.gaps.add(GapScope::CheckLogs, GapCode::FetchFailed, 1);
        }
        return Ok(None);
    };
    if log.len() as u64 > a.profile.bounds.max_source_bytes {
        a.gaps.add(GapScope::CheckLogs, GapCode::SourceTooLarge, 1);
        return Ok(None);
    }
    let f = a.filter_text(log, a.profile.bounds.max_log_bytes)?;
    if f.is_rejected() {
        a.gaps.add(GapScope::CheckLogs, GapCode::UnsafeContent, 1);
        return Ok(None);
    }
    let path = format!("{dir}/log.txt");
    a.add_file(
        path.clone(),
        f.text.into_bytes(),
        "check_log",
        "text/plain",
        Some(f.summary),
    );
    Ok(Some(path))
}

pub(super) struct CheckMeta {
    pub(super) status: CheckStatus,
    pub(super) conclusion: Option<CheckConclusion>,
    pub(super) created_at: Timestamp,
    pub(super) head_sha: GitOid,
    pub(super) started_at: Option<Timestamp>,
    pub(super) completed_at: Option<Timestamp>,
    pub(super) never_started: Option<bool>,
}

/// The status-specific timestamp rules of `check.schema.json`; `None` is
/// `invalid_metadata`. Fields forbidden for the status are omitted.
pub(super) fn validate_check(c: &input::CheckInput, head: Option<&GitOid>) -> Option<CheckMeta> {
    let status = CheckStatus::parse(&c.status).ok()?;
    let created_at = ts_opt(&c.created_at).ok()??;
    let head_sha = GitOid::parse(c.head_sha.as_deref()?).ok()?;
    if Some(&head_sha) != head {
        return None;
    }
    let started = ts_opt(&c.started_at).ok()?;
    let completed = ts_opt(&c.completed_at).ok()?;
    let mut m = CheckMeta {
        status,
        conclusion: None,
        created_at,
        head_sha,
        started_at: None,
        completed_at: None,
        never_started: None,
    };
    match status {
        CheckStatus::Queued => {}
        CheckStatus::InProgress => m.started_at = Some(started?),
        CheckStatus::Completed => {
            let conclusion = CheckConclusion::parse(c.conclusion.as_deref()?).ok()?;
            let never = c.never_started?;
            m.conclusion = Some(conclusion);
            m.never_started = Some(never);
            if never {
                if started.is_some()
                    || !matches!(
                        conclusion,
                        CheckConclusion::Failure
                            | CheckConclusion::Skipped
                            | CheckConclusion::Cancelled
                    )
                {
                    return None;
                }
                m.completed_at = Some(completed.unwrap_or(created_at));
            } else {
                m.started_at = Some(started?);
                m.completed_at = Some(completed?);
            }
        }
    }
    Some(m)
}

pub(super) fn build_runs(
    a: &mut Assembler,
    runs: &[input::AgentRunInput],
) -> Result<(Vec<Value>, FilterSummary), AssembleError> {
    let dups = duplicates(runs.iter().map(|r| r.id.as_deref()));
    let mut ok = Vec::new();
    let mut summary = FilterSummary::unchanged();
    for r in runs {
        let id = a.unique_id(IdKind::AgentRun, r.id.as_deref(), &dups)?;
        let keys: Result<BTreeSet<HexDigest>, _> = r
            .result_record_keys
            .iter()
            .map(|k| HexDigest::parse(k))
            .collect();
        let (
            Some(id),
            Ok(status),
            Ok(input_rev),
            Ok(head),
            Ok(commit),
            Ok(started),
            Ok(Some(completed)),
            Ok(keys),
        ) = (
            id,
            RunStatus::parse(&r.status),
            HexDigest::parse(&r.input_revision),
            r.input_head_sha.as_deref().map(GitOid::parse).transpose(),
            r.resulting_commit_sha
                .as_deref()
                .map(GitOid::parse)
                .transpose(),
            ts_opt(&r.started_at),
            ts_opt(&r.completed_at),
            keys,
        )
        else {
            a.gaps.add(GapScope::AgentRuns, GapCode::InvalidMetadata, 1);
            continue;
        };
        ok.push((
            completed, id, status, input_rev, head, commit, started, keys, r,
        ));
    }
    ok.sort_by(|x, y| (x.0, x.1.as_str()).cmp(&(y.0, y.1.as_str())));
    let kept = a.bounded(GapScope::AgentRuns, ok);
    let mut docs = Vec::new();
    for (completed, id, status, input_rev, head, commit, started, keys, r) in kept {
        let agent = a.display(&r.agent)?;
        if agent.is_rejected() {
            a.gaps.add(GapScope::AgentRuns, GapCode::UnsafeContent, 1);
            summary.absorb(&display_contribution(&agent));
            continue;
        }
        if agent.text.is_empty() {
            a.gaps.add(GapScope::AgentRuns, GapCode::InvalidMetadata, 1);
            continue;
        }
        summary.absorb(&agent.summary);
        let mut d = Map::new();
        d.insert("id".into(), json!(id.as_str()));
        d.insert("agent".into(), json!(agent.text));
        d.insert("status".into(), json!(status.as_str()));
        d.insert("input_revision".into(), json!(input_rev.hex()));
        if let Some(h) = head {
            d.insert("input_head_sha".into(), json!(h.as_str()));
        }
        let keys: Vec<String> = keys.iter().map(HexDigest::hex).collect();
        d.insert("result_record_keys".into(), json!(keys));
        if let Some(c) = commit {
            d.insert("resulting_commit_sha".into(), json!(c.as_str()));
        }
        if let Some(s) = started {
            d.insert("started_at".into(), json!(s.canonical()));
        }
        d.insert("completed_at".into(), json!(completed.canonical()));
        docs.push(Value::Object(d));
    }
    Ok((docs, summary))
}
