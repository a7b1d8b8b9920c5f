// SPDX-License-Identifier: GPL-2.0
//! `man [--dir DIR]`: the man pages, from the clap definitions: trace-irqoff(1), and one
//! page per command, trace-irqoff-status(1) and so on, which the main page refers to.

use std::path::Path;

use anyhow::{Context, Result};
use clap::CommandFactory;

use super::Outcome;
use crate::cli::{Cli, ManArgs};
use crate::output;
use crate::source::files::AtomicFile;

/// The EXIT STATUS section, the same on every page (roff).
const EXIT_STATUS: &str = r#".SH "EXIT STATUS"
.TP
\fB0\fR
Success. Also \fBwatch\fR and \fBtop \-\-live\fR ended by \fB\-\-count\fR or Ctrl\-C, and output cut short by a closed pipe.
.TP
\fB1\fR
Something failed although the command line was fine: permission denied (run as root), the module busy (a new period while enabled) or without a feature, its files could not be read, another \fBrecord\fR is running, no event ring for \fBrecord \-\-last\fR, an output file could not be written, \fBserve\fR could not listen.
.TP
\fB2\fR
The command line is wrong: an unknown option, a value out of range or malformed, whether the CLI or the module refused it (\fB\-\-period 0\fR, \fBset period \-5\fR, \fB\-\-cpus 5\-9\fR where those CPUs do not exist, \fB\-\-cpu 7\fR the module does not report); or the module is not loaded, or the \fB\-\-proc\-root\fR directory does not exist.
.TP
\fB3\fR
\fBrecord \-\-until\fR, \fBwatch \-\-until\fR: a window of at least that many ms was recorded.
.TP
\fB4\fR
\fBexplain\fR: verdict no: none of the delays asked about was held by an irq\-off window (0: verdict yes).
.TP
\fB5\fR
\fBexplain\fR: verdict unknown: no delay, or every one too short to tell or before the windows held.
.TP
\fB130\fR
\fBrecord\fR was interrupted (SIGINT, SIGTERM or SIGHUP); what it saw is saved, and the module restored. \fBexplain\fR was interrupted; it answered for what it traced.
"#;

/// The SEE ALSO section: the reference documents, where the Debian package installs them
/// (`tools/debian/build-debs`) and in the sources.
const SEE_ALSO: &str = ".SH \"SEE ALSO\"\n/usr/share/doc/trace\\-irqoff/trace\\-irqoff\\-cli.rst.gz (this command's reference: the views, the causes, JSON, metrics), trace\\-irqoff.rst.gz (the module and its /proc files) and tag\\-wait.rst.gz, as the Debian package installs them; Documentation/ in the trace_irqoff sources; rtla\\-timerlat(1)\n";

pub fn run(a: &ManArgs) -> Result<Outcome> {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    match &a.dir {
        None => output::print(&page(&cmd)?)?,
        Some(dir) => {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            write(dir, &cmd)?;
            for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
                write(dir, sub)?;
            }
        }
    }
    Ok(Outcome::Done)
}

fn write(dir: &Path, cmd: &clap::Command) -> Result<()> {
    let man = clap_mangen::Man::new(cmd.clone());
    AtomicFile::create(&dir.join(man.get_filename()))?.commit(page(cmd)?.as_bytes())
}

/// One page: clap_mangen's sections, then EXIT STATUS and SEE ALSO before the version.
fn page(cmd: &clap::Command) -> Result<String> {
    let man = clap_mangen::Man::new(cmd.clone());
    let mut w = Vec::new();
    let what = || "rendering the man page";
    man.render_title(&mut w).with_context(what)?;
    man.render_name_section(&mut w).with_context(what)?;
    man.render_synopsis_section(&mut w).with_context(what)?;
    man.render_description_section(&mut w).with_context(what)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut w).with_context(what)?;
    }
    if cmd.has_subcommands() {
        man.render_subcommands_section(&mut w).with_context(what)?;
    }
    if cmd.get_after_help().is_some() || cmd.get_after_long_help().is_some() {
        man.render_extra_section(&mut w).with_context(what)?;
    }
    w.extend_from_slice(EXIT_STATUS.as_bytes());
    w.extend_from_slice(SEE_ALSO.as_bytes());
    if cmd.get_version().is_some() {
        man.render_version_section(&mut w).with_context(what)?;
    }
    Ok(String::from_utf8_lossy(&w).into_owned())
}
