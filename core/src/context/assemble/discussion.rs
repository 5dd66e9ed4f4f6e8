//! The entity, its comments, reviews and review threads.

use super::*;

pub(super) struct EntityOut {
    pub(super) kind: EntityKind,
    pub(super) id: StructuralId,
    pub(super) updated_at: Timestamp,
    pub(super) content_path: String,
    pub(super) head_sha: Option<GitOid>,
}

pub(super) fn build_entity(
    a: &mut Assembler,
    kind: EntityKind,
    e: &input::EntityInput,
) -> Result<EntityOut, AssembleError> {
    let invalid = |what: &str| abort(GapCode::InvalidMetadata, what.to_owned());
    let id_raw =
        e.id.as_deref()
            .ok_or_else(|| invalid("entity id is missing"))?;
    let id = a
        .structural(IdKind::Entity, id_raw)?
        .ok_or_else(|| invalid("entity id is invalid or unsafe"))?;
    if e.number < 1 {
        return Err(invalid("entity number must be positive"));
    }
    let state = EntityState::parse(&e.state).map_err(|x| invalid(&x.to_string()))?;
    if kind == EntityKind::WorkItem && state == EntityState::Merged {
        return Err(invalid("a work item cannot be merged"));
    }
    let created = ts_opt(&e.created_at)
        .map_err(|x| invalid(&x.to_string()))?
        .ok_or_else(|| invalid("entity created_at is missing"))?;
    let updated = ts_opt(&e.updated_at)
        .map_err(|x| invalid(&x.to_string()))?
        .ok_or_else(|| invalid("entity updated_at is missing"))?;
    let head_sha = match &e.head_sha {
        Some(h) => Some(GitOid::parse(h).map_err(|x| invalid(&x.to_string()))?),
        None => None,
    };

    let mut meta_filter = FilterSummary::unchanged();
    // Title: a required singleton; empty or unsafe aborts.
    let title_raw = e
        .title
        .as_deref()
        .ok_or_else(|| invalid("entity title is missing"))?;
    let title = a.display(title_raw)?;
    if title.is_rejected() {
        return Err(abort(GapCode::UnsafeContent, "entity title is unsafe"));
    }
    if title.text.is_empty() {
        return Err(invalid("entity title is empty after filtering"));
    }
    meta_filter.absorb(&title.summary);

    // Author and body authorization.
    let author_id = match &e.author_id {
        Some(raw) => Some(
            a.structural(IdKind::Actor, raw)?
                .ok_or_else(|| invalid("entity author_id is invalid or unsafe"))?,
        ),
        None => None,
    };
    if !a.admitted(author_id.as_ref()) {
        return Err(abort(
            GapCode::AuthorizationFailed,
            "the entity body author is missing, unverifiable or below the admission threshold",
        ));
    }
    let body = e
        .body
        .as_deref()
        .ok_or_else(|| abort(GapCode::FetchFailed, "the entity body is missing"))?;
    if body.len() as u64 > a.profile.bounds.max_source_bytes {
        return Err(abort(
            GapCode::SourceTooLarge,
            "the entity body exceeds max_source_bytes",
        ));
    }
    let key = a.key(KeyKind::Entity, &id);
    let fb = a.filter_text(body, a.profile.bounds.max_record_bytes)?;
    if fb.is_rejected() {
        return Err(abort(GapCode::UnsafeContent, "the entity body is unsafe"));
    }
    let content_path = format!("records/{ENTITY_ORDER_KEY}-{}.md", key.hex());
    let bytes = record_bytes("entity", &id, author_id.as_ref(), &created, &fb.text)?;
    a.add_file(
        content_path.clone(),
        bytes,
        "entity_record",
        "text/markdown",
        Some(fb.summary.clone()),
    );

    let (author_login, login_filter) = match &author_id {
        Some(aid) => a.login(aid)?,
        None => (None, FilterSummary::unchanged()),
    };
    meta_filter.absorb(&login_filter);
    a.index_filter.absorb(&login_filter);
    if let Some(aid) = &author_id {
        a.referenced.insert(aid.clone());
    }

    // Labels: bound, drop empty and unsafe, re-unique, sort, max_labels.
    let mut labels = BTreeSet::new();
    for l in &e.labels {
        let f = a.display(l)?;
        meta_filter.absorb(&display_contribution(&f));
        if !f.is_rejected() && !f.text.is_empty() {
            labels.insert(f.text);
        }
    }
    let max_labels = usize::try_from(a.profile.bounds.max_labels).unwrap_or(usize::MAX);
    let mut labels: Vec<String> = labels.into_iter().collect();
    if labels.len() > max_labels {
        a.gaps.add(
            GapScope::Entity,
            GapCode::ProfileBound,
            (labels.len() - max_labels) as u64,
        );
        labels.truncate(max_labels);
        meta_filter.status = FilterStatus::Truncated;
    }

    let meta = json!({
        "kind": kind.as_str(),
        "id": id.as_str(),
        "number": e.number,
        "title": title.text,
        "state": state.as_str(),
        "author_id": author_id.as_ref().map(StructuralId::as_str),
        "author": author_login,
        "created_at": created.canonical(),
        "updated_at": updated.canonical(),
        "labels": labels,
    });
    a.add_json(
        "entity/metadata.json",
        DocSchema::Entity,
        &meta,
        "entity_metadata",
        Some(meta_filter),
    )?;
    a.records.push(Record {
        kind: "entity",
        id: id.clone(),
        key,
        created_at: created,
        updated_at: Some(updated),
        author: Some((author_id, author_login)),
        content_path: Some(content_path.clone()),
        metadata_path: None,
        log_path: None,
        filter: fb.summary,
    });
    Ok(EntityOut {
        kind,
        id,
        updated_at: updated,
        content_path,
        head_sha,
    })
}

/// Comments: validate, admit, select, filter. Returns retained comments by
/// forge ID.
pub(super) fn build_comments(
    a: &mut Assembler,
    comments: &[input::CommentInput],
) -> Result<BTreeMap<String, Retained>, AssembleError> {
    let dups = duplicates(comments.iter().map(|c| c.id.as_deref()));
    let mut ok = Vec::new();
    for c in comments {
        let id = a.unique_id(IdKind::Record, c.id.as_deref(), &dups)?;
        let author = a.optional_actor(c.author_id.as_deref())?;
        let (Some(id), Some(author), Ok(Some(created)), Ok(updated)) =
            (id, author, ts_opt(&c.created_at), ts_opt(&c.updated_at))
        else {
            a.gaps.add(GapScope::Comments, GapCode::InvalidMetadata, 1);
            continue;
        };
        if !a.admits(GapScope::Comments, author.as_ref()) {
            continue;
        }
        let key = a.key(KeyKind::Comment, &id);
        ok.push((created, key, id, author, updated, c));
    }
    ok.sort_by_key(|x| (x.0, x.1));
    let kept = a.bounded(GapScope::Comments, ok);
    let mut out = BTreeMap::new();
    for (created, key, id, author, updated, c) in kept {
        let (path, f) = a.body_record(
            GapScope::Comments,
            "comment",
            "comment_record",
            &id,
            &key,
            author.as_ref(),
            &created,
            &c.body,
        )?;
        let login = a.record_author(author.as_ref())?;
        out.insert(
            id.as_str().to_owned(),
            Retained {
                key,
                created_at: created,
                content_path: path.clone(),
            },
        );
        a.records.push(Record {
            kind: "comment",
            id,
            key,
            created_at: created,
            updated_at: updated,
            author: Some((author, login)),
            content_path: path,
            metadata_path: None,
            log_path: None,
            filter: f,
        });
    }
    Ok(out)
}

type Reviews = (BTreeMap<String, Retained>, Vec<Value>);

pub(super) fn build_reviews(
    a: &mut Assembler,
    reviews: &[input::ReviewInput],
) -> Result<Reviews, AssembleError> {
    let dups = duplicates(reviews.iter().map(|r| r.id.as_deref()));
    let mut ok = Vec::new();
    for r in reviews {
        let id = a.unique_id(IdKind::Record, r.id.as_deref(), &dups)?;
        let author = a.optional_actor(r.author_id.as_deref())?;
        let dismissed_by = a.optional_actor(r.dismissed_by_actor_id.as_deref())?;
        let sha = r.reviewed_sha.as_deref().map(GitOid::parse).transpose();
        let (
            Some(id),
            Some(author),
            Some(dismissed_by),
            Ok(state),
            Ok(Some(submitted)),
            Ok(updated),
            Ok(dismissed_at),
            Ok(sha),
        ) = (
            id,
            author,
            dismissed_by,
            FormalReviewState::parse(&r.state),
            ts_opt(&r.submitted_at),
            ts_opt(&r.updated_at),
            ts_opt(&r.dismissed_at),
            sha,
        )
        else {
            a.gaps.add(GapScope::Reviews, GapCode::InvalidMetadata, 1);
            continue;
        };
        if !a.admits(GapScope::Reviews, author.as_ref()) {
            continue;
        }
        let key = a.key(KeyKind::Review, &id);
        ok.push((
            submitted,
            key,
            id,
            author,
            updated,
            state,
            sha,
            dismissed_at,
            dismissed_by,
            r,
        ));
    }
    ok.sort_by_key(|x| (x.0, x.1));
    let kept = a.bounded(GapScope::Reviews, ok);
    let mut out = BTreeMap::new();
    let mut rows = Vec::new();
    // Formal review arrays sort by submitted_at and then review ID.
    let mut kept = kept;
    kept.sort_by(|x, y| (x.0, x.2.as_str()).cmp(&(y.0, y.2.as_str())));
    for (submitted, key, id, author, updated, state, sha, dismissed_at, dismissed_by, r) in kept {
        let (path, f) = a.body_record(
            GapScope::Reviews,
            "review",
            "review_record",
            &id,
            &key,
            author.as_ref(),
            &submitted,
            &r.body,
        )?;
        let login = a.record_author(author.as_ref())?;
        let mut row = Map::new();
        row.insert("id".into(), json!(id.as_str()));
        row.insert("record_key".into(), json!(key.hex()));
        row.insert("state".into(), json!(state.as_str()));
        row.insert("submitted_at".into(), json!(submitted.canonical()));
        if let Some(s) = &sha {
            row.insert("reviewed_sha".into(), json!(s.as_str()));
        }
        if state == FormalReviewState::Dismissed {
            row.insert(
                "dismissed_at".into(),
                json!(dismissed_at.map(|t| t.canonical())),
            );
            row.insert(
                "dismissed_by_actor_id".into(),
                json!(dismissed_by.as_ref().map(StructuralId::as_str)),
            );
            if let Some(d) = &dismissed_by {
                a.referenced.insert(d.clone());
            }
        }
        rows.push(Value::Object(row));
        out.insert(
            id.as_str().to_owned(),
            Retained {
                key,
                created_at: submitted,
                content_path: path.clone(),
            },
        );
        a.records.push(Record {
            kind: "review",
            id,
            key,
            created_at: submitted,
            updated_at: updated,
            author: Some((author, login)),
            content_path: path,
            metadata_path: None,
            log_path: None,
            filter: f,
        });
    }
    Ok((out, rows))
}

pub(super) struct ThreadOut {
    pub(super) key: HexDigest,
    pub(super) created_at: Timestamp,
    pub(super) review_id: Option<String>,
    pub(super) paths: Vec<String>,
    pub(super) unresolved_current: bool,
    pub(super) relation: Value,
    pub(super) state: Value,
}

pub(super) fn positive(v: Option<i64>) -> Result<Option<i64>, ()> {
    match v {
        Some(n) if n < 1 => Err(()),
        other => Ok(other),
    }
}

pub(super) fn build_threads(
    a: &mut Assembler,
    threads: &[input::ThreadInput],
    comments: &BTreeMap<String, Retained>,
    reviews: &BTreeMap<String, Retained>,
) -> Result<Vec<ThreadOut>, AssembleError> {
    let dups = duplicates(threads.iter().map(|t| t.id.as_deref()));
    let mut out = Vec::new();
    for t in threads {
        let id = a.unique_id(IdKind::Thread, t.id.as_deref(), &dups)?;
        let resolved_by = if t.resolved {
            a.optional_actor(t.resolved_by_actor_id.as_deref())?
        } else {
            Some(None)
        };
        let review_id = match t.review_id.as_deref() {
            Some(raw) => a.structural(IdKind::Record, raw)?.map(Some),
            None => Some(None),
        };
        let sha = t.reviewed_sha.as_deref().map(GitOid::parse).transpose();
        let side = t.side.as_deref().map(Side::parse).transpose();
        let oside = t.original_side.as_deref().map(Side::parse).transpose();
        let lines = (
            positive(t.line),
            positive(t.start_line),
            positive(t.original_line),
            positive(t.original_start_line),
        );
        let (
            Some(id),
            Ok(Some(created)),
            Some(resolved_by),
            Some(review_id),
            Ok(sha),
            Ok(side),
            Ok(oside),
            (Ok(line), Ok(start_line), Ok(original_line), Ok(original_start_line)),
        ) = (
            id,
            ts_opt(&t.created_at),
            resolved_by,
            review_id,
            sha,
            side,
            oside,
            lines,
        )
        else {
            a.gaps.add(GapScope::Reviews, GapCode::InvalidMetadata, 1);
            continue;
        };
        // Review file paths pass the complete pipeline before strict
        // structural validation; an unsafe path omits the relationship.
        let path = match t.path.as_deref() {
            Some(p) => {
                if !filter::structural_is_safe(&a.creds, p, a.max_meta())? {
                    a.gaps.add(GapScope::Reviews, GapCode::UnsafeContent, 1);
                    continue;
                }
                match RepositoryPath::parse(p) {
                    Ok(rp) => Some(rp),
                    Err(_) => {
                        a.gaps.add(GapScope::Reviews, GapCode::InvalidMetadata, 1);
                        continue;
                    }
                }
            }
            None => None,
        };
        // Only retained records with content paths, forge order, unique.
        let mut keys = Vec::new();
        let mut paths = Vec::new();
        let mut member = BTreeMap::new();
        for cid in &t.comment_ids {
            if let Some(Retained {
                key,
                content_path: Some(p),
                ..
            }) = comments.get(cid)
                && member.insert(cid.as_str(), *key).is_none()
            {
                keys.push(key.hex());
                paths.push(p.clone());
            }
        }
        if keys.is_empty() {
            continue;
        }
        // Reply edges in forge thread order (the reply's position in the
        // thread, then its parent's), whatever order the input lists them.
        let position = |cid: &str| t.comment_ids.iter().position(|x| x == cid);
        let mut edges: Vec<(usize, usize, HexDigest, HexDigest)> = t
            .replies
            .iter()
            .filter_map(|r| {
                let c = member.get(r.comment_id.as_str())?;
                let p = member.get(r.parent_comment_id.as_str())?;
                Some((
                    position(&r.comment_id)?,
                    position(&r.parent_comment_id)?,
                    *c,
                    *p,
                ))
            })
            .collect();
        edges.sort();
        edges.dedup();
        let replies: Vec<Value> = edges
            .iter()
            .map(|(_, _, c, p)| json!({"record_key": c.hex(), "parent_record_key": p.hex()}))
            .collect();
        let key = a.key(KeyKind::Thread, &id);
        let mut rel = Map::new();
        rel.insert("id".into(), json!(id.as_str()));
        rel.insert("thread_key".into(), json!(key.hex()));
        rel.insert("created_at".into(), json!(created.canonical()));
        rel.insert(
            "order_path".into(),
            json!(format!("threads/{}.order", key.hex())),
        );
        rel.insert("record_keys".into(), json!(keys));
        rel.insert("replies".into(), Value::Array(replies));
        if let Some(rid) = &review_id {
            rel.insert("review_id".into(), json!(rid.as_str()));
            if let Some(r) = reviews.get(rid.as_str()) {
                rel.insert("review_record_key".into(), json!(r.key.hex()));
            }
        }
        if let Some(s) = &sha {
            rel.insert("reviewed_sha".into(), json!(s.as_str()));
        }
        if let Some(p) = &path {
            rel.insert("path".into(), json!(p.as_str()));
        }
        for (name, v) in [
            ("line", line),
            ("start_line", start_line),
            ("original_line", original_line),
            ("original_start_line", original_start_line),
        ] {
            if let Some(n) = v {
                rel.insert(name.into(), json!(n));
            }
        }
        if let Some(s) = side {
            rel.insert("side".into(), json!(s.as_str()));
        }
        if let Some(s) = oside {
            rel.insert("original_side".into(), json!(s.as_str()));
        }
        let mut st = Map::new();
        st.insert("id".into(), json!(id.as_str()));
        st.insert("thread_key".into(), json!(key.hex()));
        st.insert("resolved".into(), json!(t.resolved));
        if t.resolved {
            st.insert(
                "resolved_by_actor_id".into(),
                json!(resolved_by.as_ref().map(StructuralId::as_str)),
            );
            if let Some(r) = &resolved_by {
                a.referenced.insert(r.clone());
            }
        }
        st.insert("outdated".into(), json!(t.outdated));
        if let Some(m) = t.minimized {
            st.insert("minimized".into(), json!(m));
        }
        out.push(ThreadOut {
            key,
            created_at: created,
            review_id: review_id.map(|r| r.as_str().to_owned()),
            paths,
            unresolved_current: !t.resolved && !t.outdated,
            relation: Value::Object(rel),
            state: Value::Object(st),
        });
    }
    // Relationship threads: created_at then thread ID.
    out.sort_by(|x, y| {
        (x.created_at, x.relation["id"].as_str()).cmp(&(y.created_at, y.relation["id"].as_str()))
    });
    for t in &out {
        let bytes = order_bytes(&t.paths);
        a.add_file(
            format!("threads/{}.order", t.key.hex()),
            bytes,
            "thread_order",
            "text/plain",
            None,
        );
    }
    Ok(out)
}
