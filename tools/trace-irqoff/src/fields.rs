// SPDX-License-Identifier: GPL-2.0
//! The words of the module's lines, as every reader of its files takes them: `key=value`
//! fields, lists of counts, and the error that says which line is wrong. Also the format
//! versions this CLI reads, which that error names.

use tio_logic::grammar;

/// Oldest and newest format versions this parser understands: the newest is the one the
/// module writes (`tio_logic::grammar`, the module's own grammar).
pub const MIN_RECORDS_VERSION: u32 = 1;
pub const RECORDS_VERSION: u32 = grammar::RECORDS_VERSION;
/// The `counters` format version this parser understands.
pub const COUNTERS_VERSION: u32 = grammar::COUNTERS_VERSION;

/// Why the records file could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ParseError {
    #[error("unsupported records format version {0} (this trace-irqoff reads versions {MIN_RECORDS_VERSION} to {RECORDS_VERSION})")]
    Version(String),
    #[error("unsupported counters format version {0} (this trace-irqoff reads version {COUNTERS_VERSION})")]
    CountersVersion(String),
    #[error("line {line}: {what}")]
    Malformed { line: usize, what: String },
    #[error("the records file ends early (no 'end' line)")]
    Truncated,
}

pub fn malformed(line: usize, what: impl Into<String>) -> ParseError {
    ParseError::Malformed {
        line,
        what: what.into(),
    }
}

/// `key=value` fields of a line after its first word.
pub struct Fields<'a> {
    pub line: usize,
    pairs: Vec<(&'a str, &'a str)>,
}

impl<'a> Fields<'a> {
    pub fn new(line: usize, words: impl Iterator<Item = &'a str>) -> Result<Self, ParseError> {
        let pairs = words
            .map(|w| {
                w.split_once('=')
                    .ok_or_else(|| malformed(line, format!("expected key=value, got '{w}'")))
            })
            .collect::<Result<_, _>>()?;
        Ok(Self { line, pairs })
    }

    pub fn str(&self, key: &str) -> Result<&'a str, ParseError> {
        self.pairs
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
            .ok_or_else(|| malformed(self.line, format!("missing '{key}'")))
    }

    pub fn num<T: std::str::FromStr>(&self, key: &str) -> Result<T, ParseError> {
        let v = self.str(key)?;
        v.parse()
            .map_err(|_| malformed(self.line, format!("'{key}' is not a number: '{v}'")))
    }

    /// A value that older module versions do not print, `None` then.
    pub fn opt_str(&self, key: &str) -> Option<&'a str> {
        self.pairs.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }

    /// A number that older module versions do not print, `None` then.
    pub fn opt_num<T: std::str::FromStr>(&self, key: &str) -> Result<Option<T>, ParseError> {
        if self.pairs.iter().any(|(k, _)| *k == key) {
            self.num(key).map(Some)
        } else {
            Ok(None)
        }
    }

    /// A number that older module versions do not print.
    pub fn num_or<T: std::str::FromStr>(&self, key: &str, default: T) -> Result<T, ParseError> {
        if self.pairs.iter().any(|(k, _)| *k == key) {
            self.num(key)
        } else {
            Ok(default)
        }
    }

    pub fn flag(&self, key: &str) -> Result<bool, ParseError> {
        match self.str(key)? {
            "0" => Ok(false),
            "1" => Ok(true),
            v => Err(malformed(
                self.line,
                format!("'{key}' must be 0 or 1, got '{v}'"),
            )),
        }
    }
}

pub fn counts<'a>(n: usize, words: impl Iterator<Item = &'a str>) -> Result<Vec<u64>, ParseError> {
    words
        .map(|w| {
            w.parse::<u64>()
                .map_err(|_| malformed(n, format!("count '{w}'")))
        })
        .collect()
}
