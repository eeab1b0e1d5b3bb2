//! Every input in `fuzz/corpus/<target>/` (what `cargo fuzz` found interesting, minimised,
//! and the inputs that once failed) replayed through its target's check on stable.

use std::path::PathBuf;

fn corpus(target: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target)
}

#[test]
fn every_corpus_input_passes_its_check() {
    let mut failures = Vec::new();
    for &(target, check) in tierfft_fuzz::TARGETS {
        let dir = corpus(target);
        let entries =
            std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("corpus {}: {e}", dir.display()));
        let mut count = 0;
        for entry in entries {
            let path = entry.expect("corpus entry").path();
            let data = std::fs::read(&path).expect("corpus file");
            // A panic is a failure too: caught so that every input is reported.
            match std::panic::catch_unwind(|| check(&data)) {
                Ok(Ok(())) => {}
                Ok(Err(e)) => failures.push(format!("{}: {e}", path.display())),
                Err(_) => failures.push(format!("{}: panicked", path.display())),
            }
            count += 1;
        }
        println!("{target}: {count} corpus inputs");
        assert!(count >= 8, "corpus {} holds {count} inputs", dir.display());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
