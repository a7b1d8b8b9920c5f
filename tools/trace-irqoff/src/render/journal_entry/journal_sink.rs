// SPDX-License-Identifier: GPL-2.0
//! Where `journal`'s entries go: the systemd journal over its native protocol (the
//! `libsystemd` crate: a datagram to journald's socket, a sealed memfd for an entry too
//! large for one), or stdout (`--print`, one line or one JSON object an entry); the tests
//! give a sink of their own.

use std::path::Path;

use anyhow::Result;

use super::{Entry, Priority};
use crate::error::Problem;
use crate::output;

/// Something entries are written to.
pub trait Sink {
    /// Writes one entry. A failure of the journal is a [`Problem`] (the command goes on
    /// and counts it); a closed stdout is `output::ClosedPipe` (the command ends).
    fn send(&mut self, e: &Entry) -> Result<()>;
}

/// The journal: journald's native protocol, through `libsystemd::logging::journal_send`.
pub struct Journal;

impl Journal {
    /// The journal, where journald listens on this machine.
    pub fn open() -> Result<Self, Problem> {
        let socket = libsystemd::logging::SD_JOURNAL_SOCK_PATH;
        if !Path::new(socket).exists() {
            return Err(Problem::failure(
                format!("cannot write to the journal: {socket} does not exist"),
                "run it where systemd-journald runs, or add --print to write the entries to stdout",
            ));
        }
        Ok(Journal)
    }
}

impl Sink for Journal {
    fn send(&mut self, e: &Entry) -> Result<()> {
        use libsystemd::logging::Priority as P;
        let priority = match e.priority {
            Priority::Warning => P::Warning,
            Priority::Notice => P::Notice,
            Priority::Info => P::Info,
        };
        let fields = e.fields.iter().map(|(k, v)| (*k, v.as_str()));
        libsystemd::logging::journal_send(priority, &e.message, fields).map_err(|err| {
            Problem::failure(
                format!("cannot write to the journal: {err}"),
                "see systemctl status systemd-journald",
            )
            .into()
        })
    }
}

/// stdout (`--print`): each entry on a line, its priority's name first; with `--json`
/// one object of every field a line, as `journalctl -o json` gives them (strings).
pub struct Print {
    pub json: bool,
}

impl Sink for Print {
    fn send(&mut self, e: &Entry) -> Result<()> {
        output::print(&line(e, self.json))
    }
}

/// How [`Print`] writes `e`.
pub fn line(e: &Entry, json: bool) -> String {
    if json {
        let map: serde_json::Map<String, serde_json::Value> = e
            .all()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.into()))
            .collect();
        format!("{}\n", serde_json::Value::Object(map))
    } else {
        format!("{:<7} {}\n", e.priority.name(), e.message)
    }
}

/// A test's sink: keeps what it is given; refuses the entries of `refuse` (their
/// message) as the journal would when journald is away.
#[cfg(test)]
#[derive(Default)]
pub struct Recording {
    pub entries: Vec<Entry>,
    pub refuse: Option<String>,
}

#[cfg(test)]
impl Sink for Recording {
    fn send(&mut self, e: &Entry) -> Result<()> {
        if self.refuse.as_deref() == Some(e.message.as_str()) {
            return Err(Problem::failure("cannot write to the journal: refused", "test").into());
        }
        self.entries.push(e.clone());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claim: `--print` gives one line an entry, its priority first, and with `--json` one
    /// JSON object a line holding every field as a string, `PRIORITY` and `MESSAGE`
    /// included, as `journalctl -o json` shows them.
    #[test]
    fn printed_entries_are_one_line_each() {
        let e = Entry {
            priority: Priority::Warning,
            message: "cpu 1: hardirq off 101.2 ms by sh[1]".into(),
            fields: vec![
                ("TRACE_IRQOFF_CPU", "1".into()),
                ("TRACE_IRQOFF_STACK", "a\nb".into()),
            ],
        };
        assert_eq!(
            line(&e, false),
            "warning cpu 1: hardirq off 101.2 ms by sh[1]\n"
        );
        let j = line(&e, true);
        assert_eq!(j.lines().count(), 1);
        let v: serde_json::Value = serde_json::from_str(&j).unwrap();
        assert_eq!(v["PRIORITY"], "4");
        assert_eq!(v["MESSAGE"], "cpu 1: hardirq off 101.2 ms by sh[1]");
        assert_eq!(v["TRACE_IRQOFF_CPU"], "1");
        assert_eq!(v["TRACE_IRQOFF_STACK"], "a\nb");
    }
}
