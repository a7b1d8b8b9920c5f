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
///
/// A target that exists and is not a regular file (`/dev/null`, `/dev/stdout`, a FIFO) is
/// opened and written in place instead: renaming over it would replace the device node
/// with a regular file (as root, `-o /dev/null` did exactly that to the machine's
/// `/dev/null`).
pub struct AtomicFile {
    path: PathBuf,
    target: Target,
}

/// Where the data goes.
enum Target {
    /// A temporary file, renamed over the path at the commit.
    Renamed(NamedTempFile),
    /// The path itself, opened for writing: a device or a FIFO.
    InPlace(std::fs::File),
}

impl AtomicFile {
    /// Checks that `path` can be written, by creating the temporary file beside it, or by
    /// opening it when it is a device or a FIFO.
    pub fn create(path: &Path) -> Result<Self> {
        // Follows symbolic links: /dev/stdout is one, to the terminal or a pipe.
        if let Ok(meta) = std::fs::metadata(path) {
            if !meta.is_file() && !meta.is_dir() {
                let file = std::fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .with_context(|| format!("cannot write {}", path.display()))?;
                return Ok(Self {
                    path: path.to_path_buf(),
                    target: Target::InPlace(file),
                });
            }
        }
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
            target: Target::Renamed(tmp),
        })
    }

    /// Writes `data` and puts the file in place.
    pub fn commit(self, data: &[u8]) -> Result<()> {
        let path = self.path;
        let what = || format!("writing {}", path.display());
        match self.target {
            Target::InPlace(mut file) => file.write_all(data).with_context(what),
            Target::Renamed(mut tmp) => {
                tmp.write_all(data).with_context(what)?;
                tmp.as_file().sync_all().with_context(what)?;
                tmp.persist(&path).map_err(|e| e.error).with_context(what)?;
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claim: an AtomicFile over an existing file leaves the old content readable until
    /// commit, then the path holds exactly the new content and no temporary file is left
    /// in the directory.
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

    /// Claim: AtomicFile::create refuses at once a path whose directory does not exist
    /// (saying so, as a Problem) and a path that is a directory.
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

    /// Claim: a target that is not a regular file (a FIFO here; /dev/null is one too) is
    /// written in place and stays what it was, with no temporary file left beside it.
    #[test]
    fn fifo_is_written_in_place_not_replaced() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        // The FIFO's reader, so that opening it for writing does not wait.
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        AtomicFile::create(&fifo)
            .unwrap()
            .commit(b"through the pipe")
            .unwrap();
        assert_eq!(reader.join().unwrap(), b"through the pipe");
        assert!(std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo());
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["pipe"]);
    }
}
