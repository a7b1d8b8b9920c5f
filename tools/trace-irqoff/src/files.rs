// SPDX-License-Identifier: GPL-2.0
//! Output files written whole or not at all.

use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use tempfile::NamedTempFile;

use crate::error::Problem;

/// A file that appears complete or not at all: a temporary file in the target's directory,
/// created up front so that an unusable path fails before any work is done, and renamed
/// over the target at the end (readers such as node_exporter never see half a file).
pub struct AtomicFile {
    path: PathBuf,
    tmp: NamedTempFile,
}

impl AtomicFile {
    /// Checks that `path` can be written, by creating the temporary file beside it.
    pub fn create(path: &Path) -> Result<Self> {
        if path.is_dir() {
            return Err(Problem::usage(
                format!("{} is a directory", path.display()),
                "give a file name inside it",
            )
            .into());
        }
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        if !dir.is_dir() {
            return Err(Problem::usage(
                format!(
                    "cannot write {}: the directory {} does not exist",
                    path.display(),
                    dir.display()
                ),
                "create it first, or choose another path",
            )
            .into());
        }
        // 0666 less the umask, as for any file the user creates (a temporary file is 0600).
        let tmp = tempfile::Builder::new()
            .prefix(".trace-irqoff-")
            .permissions(std::fs::Permissions::from_mode(0o666))
            .tempfile_in(dir)
            .map_err(|e| match e.kind() {
                io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem => {
                    Problem::failure(
                        format!(
                            "cannot write {}: no permission to create files in {}",
                            path.display(),
                            dir.display()
                        ),
                        "choose a directory you can write to, e.g. /tmp",
                    )
                    .into()
                }
                _ => anyhow::Error::new(e).context(format!("cannot write {}", path.display())),
            })?;
        Ok(Self {
            path: path.to_path_buf(),
            tmp,
        })
    }

    /// Writes `data` and puts the file in place.
    pub fn commit(mut self, data: &[u8]) -> Result<()> {
        let what = || format!("writing {}", self.path.display());
        self.tmp.write_all(data).with_context(what)?;
        self.tmp.as_file().sync_all().with_context(what)?;
        let path = self.path.clone();
        self.tmp
            .persist(&path)
            .map_err(|e| e.error)
            .with_context(|| format!("writing {}", path.display()))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appears_whole_at_commit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        std::fs::write(&path, "old").unwrap();
        let f = AtomicFile::create(&path).unwrap();
        // Until the commit the old content stays, and the temporary file is hidden.
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        f.commit(b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["out.json"]);
    }

    #[test]
    fn unusable_paths_are_refused_up_front() {
        let dir = tempfile::tempdir().unwrap();
        let e = AtomicFile::create(&dir.path().join("nope/x.json"))
            .err()
            .unwrap();
        let p = e.downcast_ref::<Problem>().unwrap();
        assert!(
            p.sentence.ends_with("nope does not exist"),
            "{}",
            p.sentence
        );
        let e = AtomicFile::create(dir.path()).err().unwrap();
        assert!(e.to_string().ends_with("is a directory"));
    }
}
