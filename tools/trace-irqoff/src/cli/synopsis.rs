// SPDX-License-Identifier: GPL-2.0
//! The synopses of `Documentation/trace-irqoff-cli.rst` against the clap definitions, as
//! the man pages are made from them (`cmd/man.rs`): for every command (and every nested
//! one), a block between `.. synopsis COMMAND start` and `.. synopsis COMMAND end` holds
//! the synopsis rendered here from clap's arguments; `TIO_BLESS=1` writes it there (as
//! tio-logic does for the module's tables). The prose is checked too: every option is
//! described in its command's section, and no option the reference names is missing.
//!
//! The form, one per command: `trace-irqoff records [--cpu <CPU>]... [--kind <hard|soft>]`:
//! options in definition order, then the positionals, then `<COMMAND>`; `[...]` when not
//! required, `...` after one that repeats, `-o|--output` for one with a short name, the
//! possible values for the value name where clap has them. Global options are in the
//! block of `trace-irqoff` itself, and `--help`, `--version` and hidden options (tests'
//! `--scrapes`, `--reads`; `explain --last`, refused with a hint) in none.

use clap::{Arg, ArgAction, CommandFactory};

use super::Cli;

const DOC: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../Documentation/trace-irqoff-cli.rst"
);

/// Lines of a synopsis are cut before this column (the reference's lines are about 90).
const WIDTH: usize = 88;

/// The clap definitions as `trace-irqoff man` and `--help` see them (globals propagated).
fn cli() -> clap::Command {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// Every command, nested ones too, with its path (`records`, `a b`); the CLI itself first,
/// as `trace-irqoff`.
fn commands(cmd: &clap::Command) -> Vec<(String, clap::Command)> {
    fn walk(path: &str, cmd: &clap::Command, out: &mut Vec<(String, clap::Command)>) {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            let p = if path.is_empty() {
                sub.get_name().to_string()
            } else {
                format!("{path} {}", sub.get_name())
            };
            out.push((p.clone(), sub.clone()));
            walk(&p, sub, out);
        }
    }
    let mut out = vec![("trace-irqoff".to_string(), cmd.clone())];
    walk("", cmd, &mut out);
    out
}

fn is_help(a: &Arg) -> bool {
    matches!(
        a.get_action(),
        ArgAction::Help | ArgAction::HelpShort | ArgAction::HelpLong | ArgAction::Version
    )
}

/// The arguments a command's synopsis shows: its own, not hidden, not `--help`; for the
/// CLI itself the global ones.
fn shown(path: &str, cmd: &clap::Command) -> Vec<Arg> {
    cmd.get_arguments()
        .filter(|a| !a.is_hide_set() && !is_help(a))
        .filter(|a| (path == "trace-irqoff") == a.is_global_set())
        .cloned()
        .collect()
}

/// An argument's value: its possible values (`hard|soft`), or its value name (`MS`).
fn value(a: &Arg) -> String {
    let pv: Vec<String> = a
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| v.get_name().to_string())
        .collect();
    if !pv.is_empty() {
        return pv.join("|");
    }
    match a.get_value_names() {
        Some(names) => names
            .iter()
            .map(|n| n.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        None => a.get_id().as_str().to_uppercase(),
    }
}

fn render_arg(a: &Arg) -> String {
    let repeats = matches!(a.get_action(), ArgAction::Append | ArgAction::Count);
    let dots = if repeats { "..." } else { "" };
    if a.is_positional() {
        let v = value(a);
        return if a.is_required_set() {
            format!("<{v}>{dots}")
        } else {
            format!("[{v}]{dots}")
        };
    }
    let mut s = match (a.get_short(), a.get_long()) {
        (Some(c), Some(l)) => format!("-{c}|--{l}"),
        (Some(c), None) => format!("-{c}"),
        (None, Some(l)) => format!("--{l}"),
        (None, None) => unreachable!("an option without a name"),
    };
    if a.get_action().takes_values() {
        s += &format!(" <{}>", value(a));
    }
    if a.is_required_set() {
        format!("{s}{dots}")
    } else {
        format!("[{s}]{dots}")
    }
}

/// The synopsis of one command, as its block holds it: `::`, then its lines, cut between
/// arguments before [`WIDTH`], continued four columns further in; `indent` is the marker's.
fn synopsis(path: &str, cmd: &clap::Command, indent: &str) -> String {
    let args = shown(path, cmd);
    let mut words = vec![if path == "trace-irqoff" {
        path.to_string()
    } else {
        format!("trace-irqoff {path}")
    }];
    words.extend(args.iter().filter(|a| !a.is_positional()).map(render_arg));
    words.extend(args.iter().filter(|a| a.is_positional()).map(render_arg));
    if cmd.has_subcommands() {
        words.push(
            if cmd.is_subcommand_required_set() {
                "<COMMAND>"
            } else {
                "[COMMAND]"
            }
            .into(),
        );
    }
    let first = format!("{indent}  ");
    let cont = format!("{indent}      ");
    let mut lines = vec![format!("{first}{}", words[0])];
    for w in &words[1..] {
        let last = lines.last_mut().expect("a line");
        if last.chars().count() + 1 + w.chars().count() <= WIDTH {
            *last += &format!(" {w}");
        } else {
            lines.push(format!("{cont}{w}"));
        }
    }
    format!("\n{indent}::\n\n{}\n\n", lines.join("\n"))
}

/// The text between the markers of `name` (after the start marker's line, up to the end
/// marker's line) as byte offsets, and the markers' indentation.
fn block(doc: &str, name: &str) -> Option<(usize, usize, String)> {
    let start = format!(".. synopsis {name} start\n");
    let s = doc.find(&start)?;
    let line = doc[..s].rfind('\n').map_or(0, |i| i + 1);
    let indent = doc[line..s].to_string();
    let a = s + start.len();
    let e = doc[a..].find(&format!(".. synopsis {name} end"))? + a;
    let b = doc[..e].rfind('\n').map_or(0, |i| i + 1);
    Some((a, b, indent))
}

/// Claim: for every command (nested ones too) the reference has a synopsis block, and it
/// holds the synopsis clap's definitions give: an option, positional or command added,
/// renamed, made required or repeatable, or given other values in `cli.rs` fails here
/// until the reference shows it (the expected block is printed; `TIO_BLESS=1` writes it).
#[test]
fn reference_synopses_are_the_definitions() {
    let mut doc = std::fs::read_to_string(DOC).expect("the reference");
    let bless = std::env::var_os("TIO_BLESS").is_some();
    let mut wrong = Vec::new();
    for (path, cmd) in commands(&cli()) {
        let Some((a, b, indent)) = block(&doc, &path) else {
            wrong.push(format!("no block `.. synopsis {path} start` ... `end`"));
            continue;
        };
        let want = synopsis(&path, &cmd, &indent);
        if doc[a..b] != want {
            if bless {
                doc.replace_range(a..b, &want);
            } else {
                wrong.push(format!("the synopsis of {path} is, from cli.rs:\n{want}"));
            }
        }
    }
    if bless {
        std::fs::write(DOC, &doc).expect("writing the reference");
    }
    assert!(
        wrong.is_empty(),
        "Documentation/trace-irqoff-cli.rst:\n{}",
        wrong.join("\n")
    );
}

/// The reference split by command: for each definition-list entry of its Commands
/// section (a term at column 0 in backquotes, an indented body), the commands its term
/// names and its text, the synopsis blocks taken out. Before Commands, and what names no
/// command: the CLI's own part (`trace-irqoff`).
fn sections(doc: &str, names: &[String]) -> Vec<(Vec<String>, String)> {
    let start = doc
        .find("\nCommands\n========\n")
        .expect("the Commands section");
    let end = doc.find("\nJSON\n====\n").expect("the JSON section");
    let mut out = vec![(
        vec!["trace-irqoff".to_string()],
        without_blocks(&doc[..start]),
    )];
    let mut cur: Option<(Vec<String>, String)> = None;
    for line in doc[start..end].lines() {
        let top = !line.is_empty() && !line.starts_with(' ');
        if top {
            if let Some(c) = cur.take() {
                out.push(c);
            }
            // A heading, a paragraph or a table row at column 0 names no command: what
            // it holds is checked against every command.
            let mut named: Vec<String> = Vec::new();
            if line.starts_with("``") {
                named = literals(line)
                    .iter()
                    .filter_map(|l| first_command(l, names))
                    .collect();
            }
            if named.is_empty() {
                named.push("trace-irqoff".into());
            }
            cur = Some((named, String::new()));
        }
        if let Some((_, text)) = cur.as_mut() {
            text.push_str(line);
            text.push('\n');
        }
    }
    out.extend(cur);
    out.into_iter()
        .map(|(n, t)| (n, without_blocks(&t)))
        .collect()
}

fn without_blocks(text: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with(".. synopsis ") {
            inside = t.ends_with(" start");
            continue;
        }
        if !inside {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The inline literals (``...``) of a text.
fn literals(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("``") {
        let Some(j) = rest[i + 2..].find("``") else {
            break;
        };
        out.push(rest[i + 2..i + 2 + j].to_string());
        rest = &rest[i + 2 + j + 2..];
    }
    out
}

/// The command a literal begins with (`record --last`, `trace-irqoff top --by stack`),
/// aliases included.
fn first_command(lit: &str, names: &[String]) -> Option<String> {
    let mut w = lit.split_whitespace().peekable();
    if w.peek() == Some(&"trace-irqoff") {
        w.next();
    }
    let first = w.next()?;
    let cli = cli();
    let sub = cli
        .get_subcommands()
        .find(|s| s.get_name() == first || s.get_all_aliases().any(|al| al == first))?;
    names.iter().find(|n| *n == sub.get_name()).cloned()
}

/// The options a literal names: its words that are `--name` or `-x` (brackets,
/// punctuation and `=VALUE` stripped); not other programs' (`--collector.textfile.directory`).
fn options_in(lit: &str) -> Vec<String> {
    lit.split_whitespace()
        .map(|w| w.trim_matches(|c: char| "[](),;:|".contains(c)))
        .map(|w| w.split('=').next().unwrap_or(""))
        .filter(|w| w.starts_with('-') && !w.contains(['.', '/']))
        .filter(|w| {
            let name = w.trim_start_matches('-');
            !name.is_empty()
                && name.starts_with(|c: char| c.is_ascii_lowercase())
                && name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                && (w.starts_with("--") || name.len() == 1)
        })
        .map(str::to_string)
        .collect()
}

/// Every spelling (`--long`, `-s`) of every argument of a command, hidden ones too.
fn spellings(cmd: &clap::Command) -> Vec<String> {
    let mut out = Vec::new();
    for a in cmd.get_arguments() {
        out.extend(
            a.get_long_and_visible_aliases()
                .into_iter()
                .flatten()
                .map(|l| format!("--{l}")),
        );
        out.extend(
            a.get_short_and_visible_aliases()
                .into_iter()
                .flatten()
                .map(|c| format!("-{c}")),
        );
    }
    out
}

/// Claim: every option the reference names exists: in a literal that begins with a
/// command (``record --last``, ``trace-irqoff top --by stack``, anywhere in the document
/// and in its literal blocks' command lines), that command has it; in one that begins
/// with an option (``--lines [--vmlinux FILE]``), a command of the section it is in has
/// it (before the Commands section: some command, or the CLI itself). An option renamed
/// or removed in `cli.rs` fails here until the prose follows.
#[test]
fn reference_names_no_option_clap_lacks() {
    let doc = without_blocks(&std::fs::read_to_string(DOC).expect("the reference"));
    let cli = cli();
    let all = commands(&cli);
    let names: Vec<String> = all.iter().map(|(p, _)| p.clone()).collect();
    let of = |name: &str| spellings(&all.iter().find(|(p, _)| p == name).expect("a command").1);
    let anywhere: Vec<String> = all.iter().flat_map(|(_, c)| spellings(c)).collect();
    let mut wrong = Vec::new();
    let mut check = |lit: &str, owners: &[String], whose: &str| {
        let (known, opts) = match first_command(lit, &names) {
            Some(cmd) => (of(&cmd), options_in(lit)),
            None if lit.trim_start().starts_with('-') => {
                let known = if owners.iter().any(|o| o == "trace-irqoff") {
                    anywhere.clone()
                } else {
                    owners.iter().flat_map(|o| of(o)).collect()
                };
                (known, options_in(lit))
            }
            None => return,
        };
        for o in opts {
            if !known.contains(&o) {
                wrong.push(format!(
                    "``{lit}`` (in {whose}): {o} is not an option there"
                ));
            }
        }
    };
    for (owners, text) in sections(&doc, &names) {
        let whose = owners.join(", ");
        for lit in literals(&text) {
            check(&lit, &owners, &whose);
        }
        // Command lines in literal blocks (`ExecStart=/usr/bin/trace-irqoff journal ...`).
        for line in text.lines().filter(|l| l.starts_with("    ")) {
            if let Some(i) = line.find("trace-irqoff ") {
                check(&line[i..], &[], &whose);
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "Documentation/trace-irqoff-cli.rst:\n{}",
        wrong.join("\n")
    );
}

/// Claim: every option of every command is described in the prose of that command's
/// section (outside its synopsis block), and every global option in the part before the
/// commands: an option added to `cli.rs` fails here until the reference says what it does
/// (blessing the synopsis alone does not pass it). Hidden options need no description.
#[test]
fn every_option_is_described() {
    let doc = std::fs::read_to_string(DOC).expect("the reference");
    let cli = cli();
    let all = commands(&cli);
    let names: Vec<String> = all.iter().map(|(p, _)| p.clone()).collect();
    let secs = sections(&doc, &names);
    let mut wrong = Vec::new();
    for (path, cmd) in &all {
        let text: String = secs
            .iter()
            .filter(|(owners, _)| owners.contains(path))
            .map(|(_, t)| t.as_str())
            .collect();
        if text.is_empty() {
            wrong.push(format!(
                "{path}: no section (a definition-list entry naming it)"
            ));
            continue;
        }
        let named: Vec<String> = literals(&text).iter().flat_map(|l| options_in(l)).collect();
        for a in shown(path, cmd).iter().filter(|a| !a.is_positional()) {
            let long = a.get_long().map(|l| format!("--{l}"));
            let short = a.get_short().map(|c| format!("-{c}"));
            if ![long.clone(), short]
                .into_iter()
                .flatten()
                .any(|s| named.contains(&s))
            {
                wrong.push(format!(
                    "{path}: {} is not described",
                    long.unwrap_or_default()
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "Documentation/trace-irqoff-cli.rst:\n{}",
        wrong.join("\n")
    );
}
