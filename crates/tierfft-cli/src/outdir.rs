//! The output folder of a command that writes several files (`tierfft sar --out DIR`): every
//! file is written into a staging folder inside it and moved into place only when the whole
//! run has succeeded, so a failed run leaves the folder as it was, never a mix of this run's
//! files and an earlier run's.

use std::path::{Path, PathBuf};

use crate::CliResult;

/// A run's outputs on their way into `out`. Dropped without [`Staged::commit`] (an error
/// returned with `?`), it removes what it wrote, and `out` itself if it created it.
pub struct Staged {
    out: PathBuf,
    staging: PathBuf,
    created_out: bool,
    committed: bool,
}

impl Staged {
    /// Creates `out` if missing and a fresh staging folder in it.
    pub fn begin(out: &Path) -> CliResult<Staged> {
        let shown = out.display();
        if out.exists() && !out.is_dir() {
            return Err(format!("--out '{shown}' is a file, not a folder").into());
        }
        let created_out = !out.exists();
        std::fs::create_dir_all(out).map_err(|e| format!("cannot create '{shown}': {e}"))?;
        let staging = out.join(format!(".tierfft-partial-{}", std::process::id()));
        let mut staged = Staged {
            out: out.to_path_buf(),
            staging,
            created_out,
            committed: false,
        };
        // A folder of that name is left over from a killed run of the same process id.
        let _ = std::fs::remove_dir_all(&staged.staging);
        if let Err(e) = std::fs::create_dir(&staged.staging) {
            staged.committed = true; // nothing of ours to clean but `out`
            staged.remove_out_if_created();
            return Err(format!("cannot write into '{shown}': {e}").into());
        }
        Ok(staged)
    }

    /// The folder this run writes into until the commit.
    pub fn dir(&self) -> &Path {
        &self.staging
    }

    /// Where this run writes `name` until the commit.
    pub fn path(&self, name: &str) -> PathBuf {
        self.staging.join(name)
    }

    /// Moves every staged file into `out`, after removing the files there that `owned` says
    /// an earlier run of this command wrote (a smaller earlier run's extra target figures,
    /// say); other files in `out` are left alone.
    pub fn commit(mut self, owned: impl Fn(&str) -> bool) -> CliResult<()> {
        let cannot = |e: std::io::Error| format!("cannot update '{}': {e}", self.out.display());
        for entry in std::fs::read_dir(&self.out).map_err(cannot)? {
            let entry = entry.map_err(cannot)?;
            let name = entry.file_name();
            if entry.file_type().map_err(cannot)?.is_file() && owned(&name.to_string_lossy()) {
                std::fs::remove_file(entry.path()).map_err(cannot)?;
            }
        }
        for entry in std::fs::read_dir(&self.staging).map_err(cannot)? {
            let entry = entry.map_err(cannot)?;
            std::fs::rename(entry.path(), self.out.join(entry.file_name())).map_err(cannot)?;
        }
        std::fs::remove_dir(&self.staging).map_err(cannot)?;
        self.committed = true;
        Ok(())
    }

    fn remove_out_if_created(&self) {
        if self.created_out {
            // Only if empty: never anything that is not ours.
            let _ = std::fs::remove_dir(&self.out);
        }
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.staging);
            self.remove_out_if_created();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tierfft-outdir-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn a_commit_replaces_what_the_command_owns_and_keeps_the_rest() {
        let out = temp("commit");
        std::fs::create_dir_all(&out).expect("dir");
        for f in ["a.png", "old-extra.png", "notes.txt"] {
            std::fs::write(out.join(f), "old").expect("write");
        }
        let staged = Staged::begin(&out).expect("begin");
        std::fs::write(staged.path("a.png"), "new").expect("write");
        staged
            .commit(|name| name.ends_with(".png"))
            .expect("commit");
        let mut names: Vec<String> = std::fs::read_dir(&out)
            .expect("list")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["a.png", "notes.txt"]);
        assert_eq!(
            std::fs::read_to_string(out.join("a.png")).expect("read"),
            "new"
        );
        let _ = std::fs::remove_dir_all(&out);
    }

    #[test]
    fn a_failed_run_leaves_the_folder_as_it_was() {
        let out = temp("fail");
        std::fs::create_dir_all(&out).expect("dir");
        std::fs::write(out.join("a.png"), "old").expect("write");
        {
            let staged = Staged::begin(&out).expect("begin");
            std::fs::write(staged.path("a.png"), "new").expect("write");
            std::fs::write(staged.path("b.png"), "new").expect("write");
        }
        let names: Vec<_> = std::fs::read_dir(&out).expect("list").collect();
        assert_eq!(names.len(), 1);
        assert_eq!(
            std::fs::read_to_string(out.join("a.png")).expect("read"),
            "old"
        );
        let _ = std::fs::remove_dir_all(&out);
        // A folder it created goes again.
        drop(Staged::begin(&out).expect("begin"));
        assert!(!out.exists());
    }
}
