//! The floors of the crate, and the test that keeps them: a module imports (`crate::…`) only
//! from its own floor and the floors below. Data flows up the list: what a user asks for
//! (spec), how it will run (plan), the code that runs it (kernel), the devices that run it
//! (backend), and what is built from whole transforms (nd, distributed). The debug views and
//! tools stand on everything. docs/ARCHITECTURE.md draws the same list.
//!
//! Unit tests are exempt (a `tests.rs` file, or a `#[cfg(test)]` module or `use`): a test
//! may check a lower floor against a higher one, as the kernel tests check against the
//! reference transform.

use std::collections::HashMap;
use std::path::Path;

/// The floors, lowest first, each with the top-level modules (under `src/`) it holds.
const FLOORS: &[(&str, &[&str])] = &[
    ("error", &["error"]),
    // Factors and primes, twiddles, double-double, precisions and device words, layouts.
    ("base", &["base"]),
    // What a user asks for: transforms, fused operations, checksums, resampling, DCT/DST.
    ("spec", &["spec", "weights", "checksum", "resample", "trig"]),
    ("plan", &["plan"]),
    ("kernel", &["kernel"]),
    // Devices and their transforms; `extended`: double-double transforms on the CPU.
    ("backend", &["backend", "extended"]),
    ("nd", &["nd"]),
    ("distributed", &["distributed"]),
    // Debug views (`debug`: kernel source, the reference transform, NVRTC, kernel
    // registers), the fuzzing check, and the crate root's re-exports.
    ("views and tools", &["debug", "fuzzing", "lib", "layers"]),
];

/// The floor (index into [`FLOORS`]) of a top-level module.
fn floor_of(module: &str) -> Option<usize> {
    FLOORS
        .iter()
        .position(|(_, modules)| modules.contains(&module))
}

/// Every `.rs` file under `dir`, with the top-level module it belongs to.
fn sources(dir: &Path, top: Option<&str>, out: &mut Vec<(String, std::path::PathBuf)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("src/ is readable")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("UTF-8 file names")
            .to_string();
        let module = top.map_or(name.clone(), str::to_string);
        if path.is_dir() {
            sources(&path, Some(&module), out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push((module, path));
        }
    }
}

/// The lines of `text` that are not comments or test code.
fn code_lines(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut after_cfg_test = false;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if after_cfg_test {
            after_cfg_test = false;
            if t.starts_with("mod ") || t.starts_with("pub mod ") {
                break; // the rest of the file is the test module
            }
            if t.starts_with("use ") || t.starts_with("pub use ") {
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
        out.push((i + 1, line));
    }
    out
}

/// The top-level modules `line` names through `crate::`: `crate::a::…` and each name of
/// `crate::{a, b::…}`, with the root's re-exports (`crate::Fft`) followed to their module.
fn imports(line: &str, reexports: &HashMap<String, String>) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        let names: Vec<&str> = if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            group[..end]
                .split(',')
                .map(|n| n.trim().split("::").next().unwrap_or(""))
                .collect()
        } else {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            vec![&rest[..end]]
        };
        for name in names.into_iter().filter(|n| !n.is_empty()) {
            found.push(reexports.get(name).cloned().unwrap_or(name.to_string()));
        }
    }
    found
}

/// The root's re-exports: the name a `pub use` in lib.rs gives, and the module it comes from.
fn root_reexports(lib: &str) -> HashMap<String, String> {
    let mut map = HashMap::new();
    let code: String = code_lines(lib)
        .into_iter()
        .map(|(_, l)| l)
        .collect::<Vec<_>>()
        .join(" ");
    for statement in code.split(';') {
        let Some(path) = statement.trim().strip_prefix("pub use ") else {
            continue;
        };
        let module = path.split("::").next().unwrap_or("").trim().to_string();
        let names = match (path.find('{'), path.rfind('}')) {
            (Some(a), Some(b)) => path[a + 1..b].split(',').collect(),
            _ => vec![path.rsplit("::").next().unwrap_or("")],
        };
        for name in names {
            let name = name.trim().rsplit(" as ").next().unwrap_or("").trim();
            if !name.is_empty() {
                map.insert(name.to_string(), module.clone());
            }
        }
    }
    map
}

#[test]
fn every_import_runs_down_the_floors() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, None, &mut files);
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("lib.rs");
    let reexports = root_reexports(&lib);
    let mut upward = Vec::new();
    let mut unplaced = Vec::new();
    for (module, path) in &files {
        let Some(floor) = floor_of(module) else {
            unplaced.push(module.clone());
            continue;
        };
        if path.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(path).expect("a source file");
        for (line_no, line) in code_lines(&text) {
            for target in imports(line, &reexports) {
                // Names that are not modules of the crate (macros, `crate::Result`'s own
                // module is `error`) fall through `floor_of` as `None`.
                if let Some(to) = floor_of(&target).filter(|&to| to > floor) {
                    upward.push(format!(
                        "{}:{line_no}: {module} ({}) imports {target} ({}): move what it needs \
                         down to the {} floor or below, or the importing code up",
                        path.strip_prefix(&src).unwrap_or(path).display(),
                        FLOORS[floor].0,
                        FLOORS[to].0,
                        FLOORS[floor].0,
                    ));
                }
            }
        }
    }
    unplaced.sort();
    unplaced.dedup();
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
}

/// The checker itself: it finds an upward import, follows re-exports and skips test code.
#[test]
fn the_check_sees_what_it_must() {
    let reexports = root_reexports("pub use backend::{Device, Fft};\npub use spec::FftSpec;");
    assert_eq!(
        imports("use crate::{Fft, spec::Layout, plan};", &reexports),
        ["backend", "spec", "plan"]
    );
    assert_eq!(
        imports("let x = crate::nd::NdSpec::new(&[2]);", &reexports),
        ["nd"]
    );
    let text = "use crate::plan::Plan;\n// crate::backend in a comment\n#[cfg(test)]\nuse crate::nd;\nfn f() {}\n#[cfg(test)]\nmod tests {\n    use crate::backend;\n}\n";
    let lines: Vec<usize> = code_lines(text).into_iter().map(|(n, _)| n).collect();
    assert_eq!(lines, [1, 5]);
    assert!(floor_of("backend") > floor_of("plan"));
    assert_eq!(floor_of("no_such_module"), None);
}
