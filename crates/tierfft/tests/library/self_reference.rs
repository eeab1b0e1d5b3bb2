//! The repository speaks of itself only. Its docs, comments and messages are read by users
//! who never saw the work periods the figures were taken in, the numbered tickets the work
//! was tracked by, or the design notes the default SAR scene came from, so none of those may
//! be named: a figure cites the docs/BENCHMARKS.md section it comes from by its title (date,
//! commit and card), work is described by what it did, and the default scene is the
//! reference scene.
//!
//! The words searched for are assembled from pieces below, so this file is checked too and
//! does not match itself.

use std::fs;
use std::path::{Path, PathBuf};

/// A numbered work period.
const PERIOD: &str = concat!("ses", "sion");
/// A numbered ticket.
const TICKET: &str = concat!("iss", "ue");
/// The design notes, in the plural; and the singular, which is caught only with a note's
/// number (a random-number seed stays legitimate).
const NOTE: &str = concat!("se", "ed");

/// What to write instead, at the end of a failure.
const ADVICE: &str = "Cite a BENCHMARKS section by its title instead (docs/BENCHMARKS.md, \
\"DATE, commit HASH\", the start of its heading) or say what the work was, rather than its \
period or ticket number; call the default scene the reference scene; name a paper rather \
than the note that cited it.";

/// Directories never read, wherever they are: build output, version control, dependencies,
/// the device tools' carried builds and loaders, Python environments and `tierfft sar`'s
/// default output folder.
const SKIP_NAMES: &[&str] = &[
    "target",
    ".git",
    "node_modules",
    ".carry",
    ".gl",
    ".venv",
    "venv",
    "__pycache__",
    "sar-out",
];

/// Directories never read, relative to the repository root: the fuzzers' inputs and finds.
const SKIP_PATHS: &[&str] = &["fuzz/corpus", "fuzz/artifacts"];

/// Extensions of the text files read anywhere; every file under [`ALL_UNDER`] is read too.
const EXTENSIONS: &[&str] = &["md", "rs", "py", "pyi", "sh", "toml"];

/// Directories whose every (text) file is read, whatever its name.
const ALL_UNDER: &[&str] = &["scripts", ".ci"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

/// Whether `text[at..]` starts with `word` and `word` starts a word there.
fn word_at(text: &[u8], at: usize, word: &[u8]) -> bool {
    text[at..].starts_with(word) && (at == 0 || !word_byte(text[at - 1]))
}

/// Where `word` (lowercase), optionally plural, is followed by separators and a digit:
/// "word 19", "words 3 to 16", "word-18", "word #4", also across a line break.
fn numbered(text: &[u8], word: &str) -> Vec<usize> {
    let word = word.as_bytes();
    let mut found = Vec::new();
    for at in 0..text.len() {
        if !word_at(text, at, word) {
            continue;
        }
        let mut i = at + word.len();
        if text.get(i) == Some(&b's') {
            i += 1;
        }
        let gap = text[i..]
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'-' | b'#'))
            .count();
        if gap > 0 && text.get(i + gap).is_some_and(u8::is_ascii_digit) {
            found.push(at);
        }
    }
    found
}

/// Where the design notes are named: the plural as a word of its own (an identifier's
/// underscores count as word breaks), or the singular followed by a note's number ("0NN").
fn notes(text: &[u8]) -> Vec<usize> {
    let note = NOTE.as_bytes();
    let mut found = Vec::new();
    for at in 0..text.len() {
        if !word_at(text, at, note) {
            continue;
        }
        let i = at + note.len();
        let plural = text.get(i) == Some(&b's') && !text.get(i + 1).is_some_and(|&b| word_byte(b));
        let gap = text[i..]
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        let numbered = gap > 0
            && text.get(i + gap) == Some(&b'0')
            && text.get(i + gap + 1).is_some_and(u8::is_ascii_digit);
        if plural || numbered {
            found.push(at);
        }
    }
    found
}

/// Byte offsets in `text` of everything the repository must not say, in order.
fn offences(text: &str) -> Vec<usize> {
    let lower = text.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let mut found = numbered(bytes, PERIOD);
    found.extend(numbered(bytes, TICKET));
    found.extend(notes(bytes));
    found.sort_unstable();
    found.dedup();
    found
}

/// Whether the file at `rel` (relative to the root, '/'-separated) is one to read.
fn is_text_source(rel: &str) -> bool {
    let by_extension = Path::new(rel)
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.contains(&e));
    by_extension
        || ALL_UNDER
            .iter()
            .any(|dir| rel.strip_prefix(dir).is_some_and(|r| r.starts_with('/')))
}

/// Every text file to read under `dir`, as paths relative to `root`, sorted.
fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        let rel = path
            .strip_prefix(root)
            .expect("a path under the root")
            .to_string_lossy()
            .replace('\\', "/");
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let meta = fs::symlink_metadata(&path).expect("a file's metadata");
        if meta.is_dir() {
            let skipped = name.is_some_and(|n| SKIP_NAMES.contains(&n.as_str()))
                || SKIP_PATHS.contains(&rel.as_str());
            if !skipped {
                walk(root, &path, out);
            }
        } else if meta.is_file() && is_text_source(&rel) {
            out.push(rel);
        }
    }
}

/// `file:line: the line` for each offence in the repository's text files, and the files read.
fn findings(root: &Path) -> (Vec<String>, Vec<String>) {
    let mut files = Vec::new();
    walk(root, root, &mut files);
    let mut found = Vec::new();
    for rel in &files {
        let bytes = fs::read(root.join(rel)).unwrap_or_else(|e| panic!("reading {rel}: {e}"));
        if bytes.contains(&0) {
            continue; // binary
        }
        let text = String::from_utf8_lossy(&bytes);
        for at in offences(&text) {
            let line = text[..at].matches('\n').count() + 1;
            let shown = text.lines().nth(line - 1).unwrap_or("").trim();
            found.push(format!("{rel}:{line}: {shown}"));
        }
    }
    (found, files)
}

#[test]
fn the_repository_speaks_of_itself_only() {
    let root = root();
    let (found, files) = findings(&root);
    // The walk must have read the repository, or an empty result would pass.
    for known in [
        "README.md",
        "docs/BENCHMARKS.md",
        "crates/tierfft/src/lib.rs",
        "crates/tierfft/tests/library/self_reference.rs",
        "scripts/device-run.sh",
    ] {
        assert!(
            files.iter().any(|f| f == known),
            "{known} was not read from {} ({} files read)",
            root.display(),
            files.len()
        );
    }
    assert!(
        found.is_empty(),
        "{} place(s) name a work period, a ticket number or a design note:\n{}\n\n{ADVICE}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn the_patterns_catch_what_they_should_and_nothing_else() {
    let p = PERIOD;
    let t = TICKET;
    let n = NOTE;
    let up = |s: &str| {
        let mut c = s.chars();
        c.next()
            .map(|f| f.to_uppercase().chain(c).collect::<String>())
            .unwrap_or_default()
    };
    let caught = [
        format!("measured in {p} 27"),
        format!("{} 3 (commit d3b9f38)", up(p)),
        format!("over {p}s 3 to 16"),
        format!("in {p}s 4 and 5"),
        format!("the {p}-18 figures"),
        format!("in\n{p}\n12"),
        format!("({t} 19)"),
        format!("{t}s 12 and 14"),
        format!("{}'s target", up(&format!("{t} 20"))),
        format!("{t} #4"),
        format!("the {n}s' scene"),
        format!("as the {n}s place them"),
        format!("{} put two targets", up(&format!("the {n}s"))),
        format!("fn the_{n}s_pair()"),
        format!("({n} 004)"),
        format!("{n} 001's butterfly"),
    ];
    for text in &caught {
        assert_eq!(offences(text).len(), 1, "not caught: {text:?}");
    }
    let allowed = [
        format!("bound by instruction {t}, not memory"),
        format!("stalls per {t}: barrier"),
        format!("instructions {t}d per cycle"),
        format!("{n} = 19"),
        format!("{} of the noise generator", up(n)),
        format!("same {n}, same echoes; {n}ed echoes"),
        format!("t{t} 3"),
        format!("a {p} of 3 hours"),
        format!("{n} 0 and {n} 42"),
        format!("{n}s{n}"),
        format!("the {n}'s chirp"),
        "the reference scene's five targets".to_string(),
    ];
    for text in &allowed {
        assert!(offences(text).is_empty(), "caught wrongly: {text:?}");
    }
    // Offsets point at the word, so that the line reported is the word's.
    let two = format!("one\n{p} 3 and\n({t} 4)\n");
    let text = two.as_str();
    let lines: Vec<usize> = offences(text)
        .into_iter()
        .map(|at| text[..at].matches('\n').count() + 1)
        .collect();
    assert_eq!(lines, [2, 3]);
}
