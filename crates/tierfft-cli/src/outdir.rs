//! The output folder of a command that writes several files (`tierfft sar --out DIR`): every
//! file is written into a staging folder inside it and moved into place only when the whole
//! run has succeeded, so a failed run leaves the folder as it was, never a mix of this run's
//! files and an earlier run's.

use std::path::{Path, PathBuf};

use crate::CliResult;

/// Staging folders are named this and the process id.
const STAGING_PREFIX: &str = ".tierfft-partial-";

/// Removes staging folders in `out` left by runs that were killed (their process is gone;
/// Linux, where `/proc` tells; elsewhere they stay until removed by hand).
fn remove_abandoned(out: &Path) {
    let Ok(entries) = std::fs::read_dir(out) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(STAGING_PREFIX))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        let gone = Path::new("/proc/self").exists() && !Path::new(&format!("/proc/{pid}")).exists();
        if gone || pid == std::process::id() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

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
        remove_abandoned(out);
        let staging = out.join(format!("{STAGING_PREFIX}{}", std::process::id()));
        let mut staged = Staged {
            out: out.to_path_buf(),
            staging,
            created_out,
            committed: false,
        };
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

    /// Moves every staged file into `out` (each rename replaces an earlier run's file of the
    /// same name at once), then removes the files there that `owned` says an earlier run of
    /// this command wrote and this run did not (a run with more targets' extra figures, say).
    /// Other files in `out` are left alone.
    pub fn commit(mut self, owned: impl Fn(&str) -> bool) -> CliResult<()> {
        let cannot = |e: std::io::Error| format!("cannot update '{}': {e}", self.out.display());
        let mut written = Vec::new();
        for entry in std::fs::read_dir(&self.staging).map_err(cannot)? {
            let name = entry.map_err(cannot)?.file_name();
            std::fs::rename(self.staging.join(&name), self.out.join(&name)).map_err(cannot)?;
            written.push(name);
        }
        for entry in std::fs::read_dir(&self.out).map_err(cannot)? {
            let entry = entry.map_err(cannot)?;
            let name = entry.file_name();
            let stale = !written.contains(&name) && owned(&name.to_string_lossy());
            if stale && entry.file_type().map_err(cannot)?.is_file() {
                std::fs::remove_file(entry.path()).map_err(cannot)?;
            }
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
        // A killed run's staging folder (no such process) is cleared by the next run.
        let abandoned = out.join(format!("{STAGING_PREFIX}{}", u32::MAX - 1));
        std::fs::create_dir_all(&abandoned).expect("dir");
        std::fs::write(abandoned.join("focused.npy"), "partial").expect("write");
        drop(Staged::begin(&out).expect("begin"));
        if cfg!(target_os = "linux") {
            assert!(!abandoned.exists());
        }
        let _ = std::fs::remove_dir_all(&out);
    }
}
