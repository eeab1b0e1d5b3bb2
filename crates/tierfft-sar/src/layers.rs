//! The floors of the crate, and the test that keeps them: a file imports (`crate::…`) only
//! from its own floor and the floors below, and no files import each other round a circle.
//! Data flow up the list: what a raw product says, the scene (parameters, geometry, echoes), the filters computed
//! from it, focusing (plans, builders, executors), and the quality of the focused image.
//! docs/ARCHITECTURE.md draws the same list.
//!
//! Unit tests are exempt (a `tests.rs` file, or a `#[cfg(test)]` module or `use`): a test
//! may check a lower floor against a higher one, as the filters' tests simulate echoes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The floors, lowest first, each with the top-level modules (under `src/`) it holds.
const FLOORS: &[(&str, &[&str])] = &[
    ("error", &["error"]),
    ("product", &["product"]),
    ("scene", &["scene"]),
    ("filters", &["filters"]),
    ("focus", &["focus"]),
    ("quality", &["quality"]),
    // The crate root's declarations and re-exports, and this test.
    ("root", &["lib", "layers"]),
];

/// The floor (index into [`FLOORS`]) of a top-level module.
fn floor_of(module: &str) -> Option<usize> {
    FLOORS
        .iter()
        .position(|(_, modules)| modules.contains(&module))
}

/// Every `.rs` file under `dir`, relative to `src`.
fn sources(src: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("src/ is readable")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            sources(src, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path.strip_prefix(src).expect("under src").to_path_buf());
        }
    }
}

/// The top-level module a file (relative to `src`) belongs to.
fn top_module(file: &Path) -> String {
    let first = file
        .components()
        .next()
        .and_then(|c| c.as_os_str().to_str())
        .expect("UTF-8 file names");
    first.trim_end_matches(".rs").to_string()
}

/// The text of `text` that is not comments or test code.
fn code(text: &str) -> String {
    let mut out = String::new();
    let mut after_cfg_test = false;
    let mut skipping_use = false;
    for line in text.lines() {
        let t = line.trim_start();
        if skipping_use {
            skipping_use = !t.contains(';');
            continue;
        }
        if after_cfg_test {
            after_cfg_test = false;
            if t.starts_with("mod ") || t.starts_with("pub mod ") {
                break; // the rest of the file is the test module
            }
            if t.starts_with("use ") || t.starts_with("pub use ") {
                skipping_use = !t.contains(';');
                continue;
            }
        }
        if t.starts_with("#[cfg(test)]") {
            after_cfg_test = true;
            continue;
        }
        if t.starts_with("//") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The paths `text` names through `crate::`, each as its segments: `crate::a::b::C` and
/// each path of a group, `crate::a::{b, c::{d, e}}` (over several lines too).
fn imports(text: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `tierfft_crate::` and the like
        }
        let mut chars = rest.char_indices().peekable();
        tree(rest, &mut chars, Vec::new(), &mut found);
    }
    found
}

/// One path (or group) of a `use` tree at `chars`, after `prefix`, into `out`.
fn tree(
    text: &str,
    chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>,
    mut prefix: Vec<String>,
    out: &mut Vec<Vec<String>>,
) {
    loop {
        while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
        if chars.next_if(|&(_, c)| c == '{').is_some() {
            loop {
                tree(text, chars, prefix.clone(), out);
                while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
                match chars.next() {
                    Some((_, ',')) => {
                        while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
                        if chars.next_if(|&(_, c)| c == '}').is_some() {
                            return;
                        }
                    }
                    _ => return,
                }
            }
        }
        let start = chars.peek().map_or(text.len(), |&(i, _)| i);
        let mut end = start;
        while let Some((i, c)) = chars.next_if(|&(_, c)| c.is_alphanumeric() || c == '_') {
            end = i + c.len_utf8();
        }
        let name = &text[start..end];
        if !name.is_empty() && name != "self" {
            prefix.push(name.to_string());
        }
        let colons = chars.next_if(|&(_, c)| c == ':').is_some()
            && chars.next_if(|&(_, c)| c == ':').is_some();
        if name.is_empty() || !colons {
            if !prefix.is_empty() {
                out.push(prefix);
            }
            return;
        }
    }
}

/// The file (relative to `src`) a path's segments name: the longest prefix that is a file
/// (`a/b.rs` or `a/b/mod.rs`); a name the crate root holds resolves to `lib.rs`.
fn resolve(src: &Path, path: &[String]) -> PathBuf {
    for k in (1..=path.len()).rev() {
        let dir: PathBuf = path[..k].iter().collect();
        for file in [dir.with_extension("rs"), dir.join("mod.rs")] {
            if src.join(&file).is_file() {
                return file;
            }
        }
    }
    PathBuf::from("lib.rs")
}

/// The circles of `graph`, each as the files round it (the first repeated at the end).
fn circles(graph: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    // Depth-first, marking files in progress (1) and done (2); a back edge is a circle.
    let mut state: BTreeMap<&PathBuf, u8> = BTreeMap::new();
    let mut found = Vec::new();
    fn visit<'a>(
        file: &'a PathBuf,
        graph: &'a BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        state: &mut BTreeMap<&'a PathBuf, u8>,
        stack: &mut Vec<&'a PathBuf>,
        found: &mut Vec<Vec<PathBuf>>,
    ) {
        state.insert(file, 1);
        stack.push(file);
        for next in graph.get(file).into_iter().flatten() {
            match state.get(next) {
                Some(1) => {
                    let at = stack.iter().position(|f| *f == next).unwrap_or(0);
                    let mut circle: Vec<PathBuf> =
                        stack[at..].iter().map(|f| (*f).clone()).collect();
                    circle.push(next.clone());
                    found.push(circle);
                }
                Some(_) => {}
                None => visit(next, graph, state, stack, found),
            }
        }
        stack.pop();
        state.insert(file, 2);
    }
    for file in graph.keys() {
        if !state.contains_key(file) {
            visit(file, graph, &mut state, &mut Vec::new(), &mut found);
        }
    }
    found
}

#[test]
fn every_import_runs_down_the_floors_and_round_no_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &src, &mut files);
    let mut upward = Vec::new();
    let mut unplaced = BTreeSet::new();
    let mut graph: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for file in &files {
        let module = top_module(file);
        let Some(floor) = floor_of(&module) else {
            unplaced.insert(module);
            continue;
        };
        let edges = graph.entry(file.clone()).or_default();
        if file.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(src.join(file)).expect("a source file");
        for path in imports(&code(&text)) {
            let target = resolve(&src, &path);
            if target != *file {
                edges.insert(target.clone());
            }
            let to_module = top_module(&target);
            if let Some(to) = floor_of(&to_module).filter(|&to| to > floor) {
                upward.push(format!(
                    "{}: imports crate::{} ({}, floor {}): move what it needs down to the {} \
                     floor or below, or the importing code up",
                    file.display(),
                    path.join("::"),
                    target.display(),
                    FLOORS[to].0,
                    FLOORS[floor].0,
                ));
            }
        }
    }
    assert!(
        unplaced.is_empty(),
        "modules on no floor (add them to FLOORS in src/layers.rs and docs/ARCHITECTURE.md): \
         {unplaced:?}"
    );
    assert!(
        upward.is_empty(),
        "imports that run up the floors:\n{}",
        upward.join("\n")
    );
    let circles = circles(&graph);
    assert!(
        circles.is_empty(),
        "files that import each other round a circle (move what both need into a file below \
         them, or pass plain values):\n{}",
        circles
            .iter()
            .map(|c| c
                .iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join(" -> "))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The checker itself: it reads groups over lines, resolves paths to files, skips test
/// code and finds a circle.
#[test]
fn the_check_sees_what_it_must() {
    let text = "use crate::scene::{\n    params::Config,\n    doppler::{self, migration},\n};\n\
                let x = crate::filters::rcmc::halo(&spec);\n// crate::quality in a comment\n\
                #[cfg(test)]\nuse crate::focus;\nfn f() {}\n#[cfg(test)]\nmod tests {\n    \
                use crate::quality;\n}\n";
    let paths: Vec<String> = imports(&code(text)).iter().map(|p| p.join("::")).collect();
    assert_eq!(
        paths,
        [
            "scene::params::Config",
            "scene::doppler",
            "scene::doppler::migration",
            "filters::rcmc::halo"
        ]
    );
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let segments = |p: &str| p.split("::").map(str::to_string).collect::<Vec<_>>();
    assert_eq!(
        resolve(&src, &segments("scene::params::Config")),
        Path::new("scene/params.rs")
    );
    assert_eq!(
        resolve(&src, &segments("focus::Focuser")),
        Path::new("focus/mod.rs")
    );
    assert_eq!(resolve(&src, &segments("SarError")), Path::new("lib.rs"));
    let graph: BTreeMap<PathBuf, BTreeSet<PathBuf>> = [("a", "b"), ("b", "c"), ("c", "a")]
        .into_iter()
        .map(|(f, t)| (PathBuf::from(f), BTreeSet::from([PathBuf::from(t)])))
        .collect();
    assert_eq!(circles(&graph).len(), 1);
    assert!(floor_of("quality") > floor_of("focus"));
    assert_eq!(floor_of("no_such_module"), None);
}
