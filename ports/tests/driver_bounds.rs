//! "Each driver is generic over only the port traits whose methods it
//! calls" (docs/ARCHITECTURE.md, "ports"), read from ports' shipped
//! sources: for every exported driver, each port trait its generics name
//! (a composite such as `ReviewStore` or `DeliveryGit` counts as each
//! trait it joins) has a method the driver reaches, itself or through the
//! helpers it calls. The compiler already refuses a call without its
//! bound; this refuses a bound without a call, which would make a
//! consumer implement methods that are never used.
//!
//! Reachability is by name (see `callgraph`), so it over-approximates: a
//! bound this finds unused is certainly unused.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

#[path = "../../core/tests/common/shipped.rs"]
mod shipped;

#[path = "../../core/tests/common/sources.rs"]
mod sources;

#[allow(dead_code)] // each test file uses part of it
#[path = "callgraph/mod.rs"]
mod callgraph;

use callgraph::{block_end, exported_drivers, ident_char, reached_from, rust_files};

/// A port trait: the traits it joins and the methods it declares.
#[derive(Debug, Default)]
struct Port {
    supers: Vec<String>,
    methods: BTreeSet<String>,
}

/// Every `pub trait` of `code`: its supertraits and its methods (named as
/// the call graph names them: `.name` with `self`, `::name` without).
fn ports_in(code: &str, out: &mut BTreeMap<String, Port>) {
    let b = code.as_bytes();
    for (at, _) in code.match_indices("pub trait ") {
        let head_end = code[at..].find('{').map(|o| at + o);
        let Some(open) = head_end else { continue };
        let head = &code[at + "pub trait ".len()..open];
        let (name, supers) = match head.split_once(':') {
            Some((n, s)) => (n, s),
            None => (head, ""),
        };
        let name: String = name
            .trim()
            .chars()
            .take_while(|c| ident_char(*c as u8))
            .collect();
        let supers = supers
            .split('+')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        let body = &code[open..block_end(b, open)];
        let mut methods = BTreeSet::new();
        for (f, _) in body.match_indices("fn ") {
            if f > 0 && ident_char(body.as_bytes()[f - 1]) {
                continue;
            }
            let m: String = body[f + 3..]
                .chars()
                .take_while(|c| ident_char(*c as u8))
                .collect();
            let sig_end = body[f..].find([';', '{']).map_or(body.len(), |e| f + e);
            let takes_self = body[f..sig_end]
                .split(|c: char| !ident_char(c as u8))
                .any(|w| w == "self");
            methods.insert(if takes_self {
                format!(".{m}")
            } else {
                format!("::{m}")
            });
        }
        out.insert(name, Port { supers, methods });
    }
}

/// The trait and every trait it joins, transitively.
fn joined<'a>(ports: &'a BTreeMap<String, Port>, name: &'a str) -> Vec<&'a str> {
    let mut out = vec![name];
    let mut i = 0;
    while i < out.len() {
        if let Some(p) = ports.get(out[i]) {
            for s in &p.supers {
                if !out.contains(&s.as_str()) {
                    out.push(s);
                }
            }
        }
        i += 1;
    }
    out
}

/// The port traits named in driver `name`'s signature (generics, `impl
/// Trait` arguments and `where` clause), from its definition in `code`.
fn bounds_of(code: &str, name: &str, ports: &BTreeMap<String, Port>) -> Option<BTreeSet<String>> {
    let def = format!("pub fn {name}");
    let at = code.match_indices(&def).find_map(|(at, _)| {
        let next = code.as_bytes().get(at + def.len())?;
        (!ident_char(*next)).then_some(at)
    })?;
    let open = at + code[at..].find('{')?;
    let sig = &code[at..open];
    Some(
        sig.split(|c: char| !ident_char(c as u8))
            .filter(|w| ports.contains_key(*w))
            .map(str::to_string)
            .collect(),
    )
}

/// (driver, trait) for every bound of one of `drivers` whose trait's
/// methods the driver never reaches in `codes`; and how many drivers'
/// bounds were read.
fn unused_bounds(codes: &[String], drivers: &BTreeSet<String>) -> (Vec<(String, String)>, usize) {
    let mut ports = BTreeMap::new();
    let mut graph = callgraph::Graph::new();
    for code in codes {
        ports_in(code, &mut ports);
        callgraph::call_graph(code, &mut graph);
    }
    let mut unused = Vec::new();
    let mut seen = 0;
    for driver in drivers {
        let Some(bounds) = codes.iter().find_map(|c| bounds_of(c, driver, &ports)) else {
            continue;
        };
        seen += 1;
        let reached = reached_from(&graph, driver);
        for bound in &bounds {
            for t in joined(&ports, bound) {
                let methods = &ports[t].methods;
                if !methods.is_empty() && methods.is_disjoint(&reached) {
                    unused.push((driver.clone(), t.to_string()));
                }
            }
        }
    }
    (unused, seen)
}

#[test]
fn every_drivers_bounds_are_traits_whose_methods_it_reaches() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let codes: Vec<String> = files
        .iter()
        .map(|f| shipped::shipped_code(&std::fs::read_to_string(f).unwrap()))
        .collect();
    let (unused, seen) = unused_bounds(&codes, &exported_drivers());
    assert!(seen > 30, "read the bounds of only {seen} drivers");
    assert!(
        unused.is_empty(),
        "(driver, port trait) bounds whose methods the driver never reaches: {unused:#?}"
    );
}

#[test]
fn the_check_finds_a_bound_never_used_through_helpers_or_composites() {
    let planted = "pub trait Reads { fn read(&self) -> u8; }\n\
                   pub trait Writes { fn write(&self, b: u8); }\n\
                   pub trait Both: Reads + Writes {}\n\
                   pub trait Clock { fn now(&self) -> u64; }\n\
                   fn helper<S: Reads>(s: &S) -> u8 { s.read() }\n\
                   pub fn fine<S: Reads, C: Clock>(s: &S, c: &C) -> u8 { c.now(); helper(s) }\n\
                   pub fn wide<S: Both>(s: &S) -> u8 { helper(s) }\n\
                   pub fn idle<C>(s: &impl Reads, c: &C) -> u8 where C: Clock { s.read() }\n";
    let drivers = ["fine", "wide", "idle"].map(String::from).into();
    let (unused, seen) = unused_bounds(&[shipped::shipped_code(planted)], &drivers);
    assert_eq!(seen, 3);
    assert_eq!(
        unused,
        [("idle", "Clock"), ("wide", "Writes")].map(|(d, t)| (d.to_string(), t.to_string()))
    );
}
