//! The derived outputs: views, actor state and the index.

use super::*;

pub(super) fn build_views(
    a: &mut Assembler,
    entity: &EntityOut,
    comments: &BTreeMap<String, Retained>,
    reviews: &BTreeMap<String, Retained>,
    threads: &[ThreadOut],
) -> Result<(), AssembleError> {
    let mut conv: Vec<&Retained> = comments
        .values()
        .chain(reviews.values())
        .filter(|r| r.content_path.is_some())
        .collect();
    conv.sort_by_key(|x| (x.created_at, x.key));
    let mut timeline = vec![entity.content_path.clone()];
    timeline.extend(conv.iter().filter_map(|r| r.content_path.clone()));
    a.add_file(
        "views/timeline.order".into(),
        order_bytes(&timeline),
        "timeline_view",
        "text/plain",
        None,
    );
    let mut ordered: Vec<&ThreadOut> = threads.iter().collect();
    ordered.sort_by_key(|x| (x.created_at, x.key));
    let unresolved: Vec<String> = ordered
        .iter()
        .filter(|t| t.unresolved_current)
        .flat_map(|t| t.paths.iter().cloned())
        .collect();
    a.add_file(
        "views/unresolved-review.order".into(),
        order_bytes(&unresolved),
        "unresolved_review_view",
        "text/plain",
        None,
    );
    for (rid, r) in reviews {
        let Some(p) = &r.content_path else { continue };
        let mut lines = vec![p.clone()];
        for t in ordered
            .iter()
            .filter(|t| t.review_id.as_deref() == Some(rid.as_str()))
        {
            lines.extend(t.paths.iter().cloned());
        }
        a.add_file(
            format!("views/reviews/{}.order", r.key.hex()),
            order_bytes(&lines),
            "review_view",
            "text/plain",
            None,
        );
    }
    Ok(())
}

pub(super) fn build_actor_state(a: &mut Assembler) -> Result<(), AssembleError> {
    let mut rows = Vec::new();
    let mut summary = FilterSummary::unchanged();
    let mut missing = 0u64;
    let referenced: Vec<StructuralId> = a.referenced.iter().cloned().collect();
    // Actor-state arrays sort by actor ID's UTF-8 byte order (BTreeSet).
    for id in referenced {
        let Some(actor) = a.actors.get(id.as_str()) else {
            missing += 1;
            continue;
        };
        let (login, lf) = a.login(&actor.id)?;
        summary.absorb(&lf);
        let (role, verified) = match actor.kind {
            ActorKind::Bot => (json!("bot"), false),
            ActorKind::Human => (
                json!(actor.role.map(ActorRole::as_str)),
                actor.role_verified,
            ),
        };
        rows.push(json!({
            "id": actor.id.as_str(),
            "kind": actor.kind.as_str(),
            "login": login,
            "role": role,
            "role_verified": verified,
        }));
    }
    a.gaps
        .add(GapScope::Actors, GapCode::InvalidMetadata, missing);
    a.add_json(
        "state/actors.json",
        DocSchema::ActorState,
        &json!({"actors": rows}),
        "actor_state",
        Some(summary),
    )
}

pub(super) fn build_index(
    a: &Assembler,
    entity: &EntityOut,
    repository: &Repository,
    collection_digest: HexDigest,
) -> Result<Value, AssembleError> {
    let mut files = Vec::new();
    for (path, entry) in &a.files {
        let bytes = a.tree.get(path).unwrap_or_default();
        let mut f = Map::new();
        f.insert("path".into(), json!(path));
        f.insert("role".into(), json!(entry.role));
        f.insert("media_type".into(), json!(entry.media_type));
        f.insert("bytes".into(), json!(bytes.len()));
        f.insert("sha256".into(), json!(HexDigest::of(bytes).hex()));
        if let Some(s) = &entry.filter {
            f.insert("filter".into(), s.to_json());
        }
        files.push(Value::Object(f));
    }
    let mut recs: Vec<&Record> = a.records.iter().collect();
    recs.sort_by_key(|x| (x.created_at, x.key));
    let records: Vec<Value> = recs
        .iter()
        .map(|r| {
            let mut m = Map::new();
            m.insert("kind".into(), json!(r.kind));
            m.insert("id".into(), json!(r.id.as_str()));
            m.insert("record_key".into(), json!(r.key.hex()));
            m.insert("created_at".into(), json!(r.created_at.canonical()));
            if let Some(u) = r.updated_at {
                m.insert("updated_at".into(), json!(u.canonical()));
            }
            if let Some((aid, login)) = &r.author {
                m.insert(
                    "author_id".into(),
                    json!(aid.as_ref().map(StructuralId::as_str)),
                );
                m.insert("author".into(), json!(login));
            }
            for (k, v) in [
                ("content_path", &r.content_path),
                ("metadata_path", &r.metadata_path),
                ("log_path", &r.log_path),
            ] {
                if let Some(p) = v {
                    m.insert(k.into(), json!(p));
                }
            }
            m.insert("filter".into(), r.filter.to_json());
            Value::Object(m)
        })
        .collect();
    Ok(json!({
        "schema_version": 1,
        "filter_version": a.creds.version().as_str(),
        "collection_profile": collection_digest.hex(),
        "filter": a.index_filter.to_json(),
        "source": {
            "forge": a.forge.as_str(),
            "host": a.host.as_str(),
            "repository_id": a.repository_id.as_str(),
            "repository": repository.as_str(),
        },
        "entity": {
            "kind": entity.kind.as_str(),
            "id": entity.id.as_str(),
            "updated_at": entity.updated_at.canonical(),
        },
        "files": files,
        "records": records,
        "gaps": a.gaps.to_json(),
    }))
}
