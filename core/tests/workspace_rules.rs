//! Rules of the workspace's shape that no compiler checks, read from the
//! resolved metadata (`cargo metadata`): every member inherits the
//! workspace lints (docs/ARCHITECTURE.md, "every crate"), and the runtimes
//! stay inside the crates that own them: HTTP (`ureq`) in the forge and
//! model adapters, tokio and rmcp in the MCP adapter ("forge", "mcp /
//! model").

use std::collections::BTreeMap;

#[path = "common/run.rs"]
mod run;

/// Which workspace members may depend directly on a runtime crate.
const RUNTIMES: &[(&str, &[&str])] = &[
    ("ureq", &["probity-forge", "probity-model"]),
    ("tokio", &["probity-mcp"]),
    ("rmcp", &["probity-mcp"]),
];

/// Each workspace member: its name, manifest text and direct dependencies
/// (normal and dev) by name.
fn members() -> Vec<(String, String, Vec<String>)> {
    let out = run::cargo_stdout(&[
        "metadata",
        "--format-version",
        "1",
        "--no-deps",
        "--offline",
    ]);
    let meta: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let ids: Vec<&str> = meta["workspace_members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| ids.contains(&p["id"].as_str().unwrap()))
        .map(|p| {
            let manifest = std::fs::read_to_string(p["manifest_path"].as_str().unwrap()).unwrap();
            let deps = p["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d["name"].as_str().unwrap().to_string())
                .collect();
            (p["name"].as_str().unwrap().to_string(), manifest, deps)
        })
        .collect()
}

/// Whether a manifest has `[lints]` with `workspace = true` under it.
fn inherits_lints(manifest: &str) -> bool {
    let mut in_lints = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_lints = line == "[lints]";
        } else if in_lints && line.replace(' ', "") == "workspace=true" {
            return true;
        }
    }
    false
}

#[test]
fn the_lints_check_reads_the_table() {
    assert!(inherits_lints(
        "[package]\nname = \"x\"\n\n[lints]\nworkspace = true\n"
    ));
    assert!(!inherits_lints(
        "[package]\nworkspace = true\n[lints.rust]\nx = 1\n"
    ));
    assert!(!inherits_lints("[package]\nname = \"x\"\n"));
}

#[test]
fn every_member_inherits_the_workspace_lints() {
    let members = members();
    assert!(members.len() >= 10, "found only {} members", members.len());
    let without: Vec<&String> = members
        .iter()
        .filter(|(_, manifest, _)| !inherits_lints(manifest))
        .map(|(name, _, _)| name)
        .collect();
    assert!(
        without.is_empty(),
        "these crates do not inherit the workspace lints (add `[lints]\\nworkspace = true`): {without:?}"
    );
}

#[test]
fn runtimes_stay_in_the_crates_that_own_them() {
    let mut users: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let members = members();
    for (name, _, deps) in &members {
        for (runtime, _) in RUNTIMES {
            if deps.iter().any(|d| d == runtime) {
                users.entry(runtime).or_default().push(name);
            }
        }
    }
    for (runtime, owners) in RUNTIMES {
        let found = users.get(runtime).cloned().unwrap_or_default();
        assert!(
            !found.is_empty(),
            "no crate depends on {runtime}: is the metadata read?"
        );
        let outside: Vec<&&str> = found.iter().filter(|n| !owners.contains(n)).collect();
        assert!(
            outside.is_empty(),
            "{runtime} is a direct dependency of {outside:?}; only {owners:?} may use it"
        );
    }
}
