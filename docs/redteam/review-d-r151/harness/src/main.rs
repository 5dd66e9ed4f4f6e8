use probity_git::{GitCli, Repo};
use serde_json::{Map, Value};
use std::path::Path;

fn rng(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

const CHARS: &[&str] = &[
    "a", "A", "_", "z", "Z", "0", "9", " ", "~", "\u{7f}", "\"", "\\", "/", "\n", "\t", "\r",
    "\u{8}", "\u{c}", "\u{0}", "\u{1}", "\u{1f}", "\u{e9}", "\u{2028}", "\u{2029}", "\u{1F600}",
    "\u{ff61}", "\u{fffd}", "\u{feff}", "-", ".", "@", "[", "{", "}",
];

fn s(r: &mut u64, ascii: bool) -> String {
    let n = rng(r) % 6;
    (0..n)
        .map(|_| loop {
            let c = CHARS[(rng(r) % CHARS.len() as u64) as usize];
            if !ascii || c.is_ascii() {
                break c;
            }
        })
        .collect()
}

fn val(r: &mut u64, d: u32) -> Value {
    match rng(r) % if d > 3 { 5 } else { 7 } {
        0 => Value::Null,
        1 => Value::Bool(rng(r) % 2 == 0),
        2 => {
            let m = (1u64 << 53) - 1;
            match rng(r) % 6 {
                0 => Value::from(m),
                1 => Value::from(-(m as i64)),
                2 => Value::from(0u64),
                3 => Value::from(-1i64),
                4 => Value::from((rng(r) % m) as i64 - (m / 2) as i64),
                _ => Value::from(rng(r) % 1_000_000_000_000_000),
            }
        }
        3 | 4 => Value::String(s(r, false)),
        5 => Value::Array((0..rng(r) % 4).map(|_| val(r, d + 1)).collect()),
        _ => {
            let mut m = Map::new();
            let ascii = rng(r) % 4 != 0;
            for _ in 0..rng(r) % 5 {
                m.insert(s(r, ascii), val(r, d + 1));
            }
            Value::Object(m)
        }
    }
}

fn canon() {
    let mut r = 0x9e3779b97f4a7c15u64;
    let mut plain = 0;
    for i in 0..300_000 {
        let v = val(&mut r, 0);
        let a = probity_core::canonical::canonical_value_bytes(&v).unwrap();
        let b = serde_json_canonicalizer::to_vec(&v).unwrap();
        if a != b {
            println!("DIFF at {i}: {v}\n ours {:?}\n jcs  {:?}", String::from_utf8_lossy(&a), String::from_utf8_lossy(&b));
            return;
        }
        if v.is_object() { plain += 1; }
    }
    // explicit edge cases
    let edges = [
        serde_json::json!({"A":1,"_":2,"a":3,"":4,"~":5,"\u{7f}":6," ":7}),
        serde_json::json!({"k": "\u{7f}\u{80}\u{9f}\u{a0}"}),
        serde_json::json!([9007199254740991u64, -9007199254740991i64, 0, -0]),
        serde_json::from_str::<Value>(r#"{"a":-0,"b":1E2,"c":100}"#).unwrap_or(Value::Null),
    ];
    for v in edges {
        let a = probity_core::canonical::canonical_value_bytes(&v);
        let b = serde_json_canonicalizer::to_vec(&v);
        println!("{v} -> ours {:?} jcs {:?}", a.map(|x| String::from_utf8(x).unwrap()), b.map(|x| String::from_utf8(x).unwrap()));
    }
    println!("canon: 300000 random values equal ({plain} objects)");
}

fn fmt_info(a: Result<Option<probity_git::objects::ObjectInfo>, probity_git::GitError>) -> String {
    match a {
        Ok(Some(i)) => format!("{} {} {}", i.oid, i.kind, i.size),
        Ok(None) => "MISSING".into(),
        Err(e) => format!("ERR {e}"),
    }
}

fn steps(repo_dir: &str, steps: &[String]) {
    let dir = Path::new(repo_dir);
    let long = Repo::discover(GitCli::default(), dir).expect("repo");
    for st in steps {
        if let Some(cmd) = st.strip_prefix("sh:") {
            let o = std::process::Command::new("sh").arg("-c").arg(cmd).current_dir(dir).output().unwrap();
            println!("$ {cmd} -> {}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr).trim());
        } else if let Some(spec) = st.strip_prefix("ask:") {
            let fresh = Repo::discover(GitCli::default(), dir).expect("repo");
            println!("ask {spec}\n   long-lived: {}\n   fresh:      {}", fmt_info(long.object_info(spec)), fmt_info(fresh.object_info(spec)));
        } else if let Some(rest) = st.strip_prefix("batch:") {
            let specs: Vec<&str> = rest.split(',').collect();
            let fresh = Repo::discover(GitCli::default(), dir).expect("repo");
            let a = long.objects_info(&specs);
            let b = fresh.objects_info(&specs);
            println!("batch {specs:?}\n   long-lived: {a:?}\n   fresh:      {b:?}");
        } else if let Some(rest) = st.strip_prefix("head:") {
            let (cap, spec) = rest.split_once(':').unwrap();
            let cap: usize = cap.parse().unwrap();
            let fresh = Repo::discover(GitCli::default(), dir).expect("repo");
            let f = |x: Result<Option<(probity_git::objects::ObjectInfo, Vec<u8>, bool)>, _>| match x {
                Ok(Some((i, b, w))) => format!("{} {} {:?} whole={w}", i.oid, i.size, String::from_utf8_lossy(&b)),
                Ok(None) => "MISSING".into(),
                Err(e) => format!("ERR {e:?}"),
            };
            println!("head {cap} {spec}\n   long-lived: {}\n   fresh:      {}", f(long.object_head(spec, cap)), f(fresh.object_head(spec, cap)));
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("canon") => canon(),
        Some("steps") => steps(&args[2], &args[3..]),
        Some("fuzz") => fuzz(&args[2], &args[3]),
        _ => eprintln!("usage"),
    }
}

fn fuzz(repo_dir: &str, specs_file: &str) {
    let dir = Path::new(repo_dir);
    let text = std::fs::read_to_string(specs_file).unwrap();
    let specs: Vec<&str> = text.split('\n').filter(|s| !s.is_empty()).collect();
    let long = Repo::discover(GitCli::default(), dir).expect("repo");
    let mut r = 0x1234_5678_9abc_def1u64;
    let (mut n, mut bad) = (0, 0);
    for round in 0..1500 {
        let k = 1 + (rng(&mut r) % 6) as usize;
        let batch: Vec<&str> = (0..k).map(|_| specs[(rng(&mut r) % specs.len() as u64) as usize]).collect();
        let fresh = Repo::discover(GitCli::default(), dir).expect("repo");
        let mode = rng(&mut r) % 4;
        let cap = [0usize, 1, 2, 3, 5, 8, 40, 100, 100000][(rng(&mut r) % 9) as usize];
        let (a, b) = match mode {
            0 => (format!("{:?}", long.objects_info(&batch)), format!("{:?}", fresh.objects_info(&batch))),
            1 => (format!("{:?}", long.object_info(batch[0])), format!("{:?}", fresh.object_info(batch[0]))),
            2 => (format!("{:?}", long.object_head(batch[0], cap)), format!("{:?}", fresh.object_head(batch[0], cap))),
            _ => {
                // object_heads errors on a missing one: compare per-spec results via head
                let la: Vec<String> = batch.iter().map(|s| format!("{:?}", long.object_head(s, cap))).collect();
                let fa: Vec<String> = batch.iter().map(|s| format!("{:?}", fresh.object_head(s, cap))).collect();
                let lb = format!("{:?}", long.object_heads(&batch, cap));
                let fb = format!("{:?}", fresh.object_heads(&batch, cap));
                (format!("{la:?}{lb}"), format!("{fa:?}{fb}"))
            }
        };
        n += 1;
        if a != b {
            bad += 1;
            if bad < 10 { println!("round {round} mode {mode} cap {cap} {batch:?}\n long  {a}\n fresh {b}"); }
        }
    }
    println!("fuzz: {n} batches, {bad} differ");
}
