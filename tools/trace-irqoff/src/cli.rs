// SPDX-License-Identifier: GPL-2.0
//! The command line: every clap type, and the parsers of option values. Nothing here
//! touches the module.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::model::snapshot::Kind;

/// The heading the options of every command are shown under, apart from each command's
/// own.
const GLOBAL: &str = "Global options";

/// Find CPUs that ran with hard interrupts or softirqs off for too long, and who did it.
///
/// Reads and drives /proc/trace_irqoff (the trace_irqoff kernel module).
#[derive(Parser, Debug)]
#[command(name = "trace-irqoff", version, about, long_about = None, after_help = "Example: trace-irqoff enable && sleep 60 && trace-irqoff top")]
pub struct Cli {
    /// Root of the proc file system (tests, containers).
    #[arg(long, global = true, default_value = "/proc", value_name = "DIR", help_heading = GLOBAL)]
    pub proc_root: PathBuf,

    /// Machine-readable JSON output (stable; see Documentation/trace-irqoff-cli.rst).
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub json: bool,

    /// Show Rust symbols as the kernel printed them (mangled), not demangled.
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub raw_symbols: bool,

    /// When to colour the output (auto: on a terminal, unless NO_COLOR is set).
    #[arg(long, global = true, value_enum, default_value_t = ColorWhen::Auto, help_heading = GLOBAL)]
    pub color: ColorWhen,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Is the module loaded and enabled; period, threshold, per-CPU events and drops.
    #[command(after_help = "Example: trace-irqoff status --json")]
    Status,
    /// Start sampling, optionally setting the period and threshold first.
    #[command(after_help = "Example: trace-irqoff enable --period 10 --threshold 50")]
    Enable(EnableArgs),
    /// Stop sampling (records stay readable).
    #[command(after_help = "Example: trace-irqoff disable")]
    Disable,
    /// Forget all records, histograms and drop counters.
    #[command(after_help = "Example: trace-irqoff clear")]
    Clear,
    /// Set one tunable.
    #[command(after_help = "Example: trace-irqoff set threshold 100")]
    Set(SetArgs),
    /// The recorded events with their stacks, worst or newest first.
    #[command(
        visible_alias = "latency",
        after_help = "Example: trace-irqoff records --kind hard --cpu 3 --min 80 --since 10m"
    )]
    Records(RecordsArgs),
    /// Log2 latency histograms per kind, summed over CPUs or per CPU.
    #[command(after_help = "Example: trace-irqoff hist --per-cpu")]
    Hist(HistArgs),
    /// Who keeps doing this: records grouped by culprit; or, with --live, per CPU and kind.
    #[command(
        after_help = "Example: trace-irqoff top --by stack\nExample: trace-irqoff top --by cgroup   (which service, container or pod)\nExample: trace-irqoff top --live   (per CPU: events, last, min, avg, max; like rtla timerlat top)"
    )]
    Top(TopArgs),
    /// Live view, refreshed every --interval: on a terminal one line per window, newest
    /// first (new ones starred), fitted to the screen; on a pipe each window once, as it ends.
    #[command(after_help = "Example: trace-irqoff watch --interval 2s --until 100")]
    Watch(WatchArgs),
    /// Enable for a while, then save what happened to JSON and restore the previous state.
    #[command(
        after_help = "Example: trace-irqoff record --duration 30s -o incident.json --folded incident.folded\nExample: trace-irqoff record --until 50 -o caught.json   (ends at the next window of 50 ms or more, exit status 3)"
    )]
    Record(RecordArgs),
    /// One self-contained HTML page of an incident, for a browser or a ticket: host, kernel,
    /// settings, culprits, a per-CPU timeline, histograms, a flame graph and the in-window
    /// profiles; from a `record` file, or from the module.
    #[command(
        after_help = "Example: trace-irqoff report incident.json -o incident.html\nExample: trace-irqoff report -o now.html   (what the running module holds)"
    )]
    Report(ReportArgs),
    /// blk-mq tag starvation: waits per device, hardware queue and pool, and how long.
    #[command(after_help = "Example: trace-irqoff tagwait on && sleep 10 && trace-irqoff tagwait")]
    Tagwait(TagwaitArgs),
    /// Was this delay an irq-off window? Block requests, softirqs (a NIC's NET_RX with
    /// --netdev) and a task's CPUs (or, --wakeups, each wake-up of its threads in phases),
    /// traced for the next --for DURATION (or read --from a saved trace), each with the
    /// windows on the CPUs that serve it, or the sentence that none explains it; a verdict
    /// first (exit status 0 yes, 4 no, 5 unknown).
    #[command(
        after_help = "Example: trace-irqoff explain --for 10s --device nvme0n1\nExample: trace-irqoff explain --for 10s --netdev eth0\nExample: trace-irqoff explain --for 5s --pid 1234 --json\nExample: trace-irqoff explain --for 5s --wakeups --pid 1234 --min 5"
    )]
    Explain(ExplainArgs),
    /// Counters and latency histograms in the Prometheus text format (node_exporter).
    #[command(
        after_help = "Example: trace-irqoff metrics --textfile /var/lib/prometheus/node-exporter"
    )]
    Metrics(MetricsArgs),
    /// Serve /metrics over HTTP for Prometheus (trace-irqoff-exporter.service): the
    /// families of `metrics`, read from the module's counters on every scrape.
    #[command(
        after_help = "Example: trace-irqoff serve --listen 127.0.0.1:9809 & curl -s localhost:9809/metrics"
    )]
    Serve(ServeArgs),
    /// Every window in the systemd journal (trace-irqoff-journal.service): one structured
    /// entry per window as it ends, read from the module's event ring, rate-limited.
    #[command(
        after_help = "Fields: MESSAGE (\"cpu 1: hardirq off 101.2 ms by sh[2168] in irqoff_sample_hardirq_window [irqoff_sample]\"),
  TRACE_IRQOFF_CPU, _KIND (hard, soft), _CAUSE (bh-off, ksoftirqd-wait), _LATENCY_NS, _END,
  _CULPRIT, _LOCK_WAIT, _CONTEXT, _TASK, _PID, _CGROUP, _STACK (one frame a line); SYSLOG_IDENTIFIER=trace-irqoff.
PRIORITY: warning (4) from --warning on, notice (5) from the module's threshold on, info (6) below.

Example: systemctl enable --now trace-irqoff-journal && journalctl -t trace-irqoff -f
Example: trace-irqoff journal --print --json   (the entries on stdout, not in the journal)"
    )]
    Journal(JournalArgs),
    /// What trace-irqoff.service runs: apply /etc/trace-irqoff.conf (loading the module if
    /// needed) and put the prior state back on stop.
    #[command(
        after_help = "The file (TOML, every key optional; a key left out keeps the module's value):
  enable = true          start sampling (default true)
  period_ms = 10         sampling period, 1..1000 ms
  threshold_ms = 50      record windows of at least this many ms, 2 x period..10000
  cpus = \"0-3,8\"         CPUs sampled (default: every CPU but the nohz_full ones)
  tag_wait = false       blk-mq tag-wait tracking
  records_per_cpu = 16   at load: worst events kept per CPU and kind, 1..64
  watch = true           at load: in-window stacks by NMI (x86_64)

Example: trace-irqoff service check && systemctl restart trace-irqoff"
    )]
    Service(ServiceArgs),
    /// Shell completion script.
    #[command(
        after_help = "Example: trace-irqoff completions bash > /etc/bash_completion.d/trace-irqoff"
    )]
    Completions(CompletionsArgs),
    /// The man pages (roff), generated from these definitions.
    #[command(after_help = "Example: trace-irqoff man --dir /usr/local/share/man/man1")]
    Man(ManArgs),
}

#[derive(Args, Debug)]
pub struct EnableArgs {
    /// Sampling period in ms (1..1000).
    #[arg(long, value_name = "MS", value_parser = parse_whole_ms)]
    pub period: Option<u64>,
    /// Record stacks for latencies of at least this many ms (2 x period..10000).
    #[arg(long, value_name = "MS", value_parser = parse_whole_ms)]
    pub threshold: Option<u64>,
    /// Sample only these CPUs: a CPU list as the kernel writes one (0-3,8). Default: every
    /// CPU but the nohz_full ones.
    #[arg(long, value_name = "LIST")]
    pub cpus: Option<String>,
}

#[derive(Args, Debug)]
pub struct SetArgs {
    pub what: Tunable,
    /// Value in ms (a trailing "ms" is accepted).
    // A negative number is a value to refuse in plain words, not an option to escape.
    #[arg(value_parser = parse_whole_ms, allow_hyphen_values = true)]
    pub value: u64,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum Tunable {
    /// Sampling period (ms).
    Period,
    /// Record threshold (ms).
    Threshold,
}

#[derive(Args, Debug)]
pub struct RecordsArgs {
    /// Only these CPUs (repeatable).
    #[arg(long)]
    pub cpu: Vec<u32>,
    /// Only this kind.
    #[arg(long, value_enum)]
    pub kind: Option<Kind>,
    /// Only latencies of at least this many ms (decimals allowed: 1.5).
    #[arg(long = "min", value_name = "MS", value_parser = parse_ns)]
    pub min_ns: Option<u64>,
    /// Only events of the last DURATION (e.g. 10m, 1h).
    #[arg(long, value_parser = parse_positive)]
    pub since: Option<Duration>,
    /// Order: worst first, or newest first.
    #[arg(long, value_enum, default_value_t = Sort::Worst)]
    pub sort: Sort,
    /// Show at most this many records.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Frames shown per record with stacks (all in --json).
    #[arg(long, default_value_t = 12)]
    pub depth: usize,
    /// One line per window, also on a pipe (the default on a terminal).
    #[arg(long, conflicts_with_all = ["stacks", "lines"])]
    pub oneline: bool,
    /// Each record with its stacks, also on a terminal (the default on a pipe).
    #[arg(long)]
    pub stacks: bool,
    /// Read a file that `trace-irqoff record -o FILE` wrote instead of the module (any
    /// machine: its wall times come from the clock anchor saved in it).
    #[arg(long, value_name = "FILE")]
    pub from: Option<PathBuf>,
    // --lines shows the stacked view, also on a terminal.
    #[command(flatten)]
    pub lines: LinesArgs,
}

/// `--lines` and where it looks for debug information (records, top, watch, record,
/// report: `lines.rs`).
#[derive(Args, Debug, Clone, Default)]
pub struct LinesArgs {
    /// Each frame's source file and line, with inlined functions, from the kernel's and the
    /// modules' debug information (Debian: linux-image-RELEASE-dbg).
    #[arg(long)]
    pub lines: bool,
    /// The kernel's debug file (vmlinux with DWARF) for --lines.
    #[arg(long, value_name = "FILE", requires = "lines")]
    pub vmlinux: Option<PathBuf>,
    /// Where --lines looks for debug files: DIR/.build-id/xx/yyyy.debug,
    /// DIR/boot/vmlinux-RELEASE, DIR/lib/modules/RELEASE/**/NAME.ko (or .ko.xz, .ko.zst,
    /// .ko.gz); DIR/usr/lib/debug where DIR is an unpacked package [default:
    /// /usr/lib/debug].
    #[arg(long, value_name = "DIR", requires = "lines")]
    pub debug_dir: Option<PathBuf>,
}

/// What `top` groups records by (`model::culprit`, beside what it groups into).
pub use crate::model::culprit_group::By;

impl TopArgs {
    /// The grouping asked for, `--stack` being `--by stack`.
    pub fn grouping(&self) -> By {
        if self.stack {
            By::Stack
        } else {
            self.by
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum Sort {
    Worst,
    Newest,
}

#[derive(Args, Debug)]
pub struct HistArgs {
    /// One histogram per CPU.
    #[arg(long)]
    pub per_cpu: bool,
    /// Only this kind.
    #[arg(long, value_enum)]
    pub kind: Option<Kind>,
    /// Read a file that `trace-irqoff record -o FILE` wrote instead of the module (any
    /// machine: its wall times come from the clock anchor saved in it).
    #[arg(long, value_name = "FILE")]
    pub from: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct TopArgs {
    /// What to group records by: the culprit's function (its stack's first frame past
    /// the mechanism), its whole stack, or the culprit task's cgroup (its path: a
    /// service, container or pod).
    #[arg(long, value_enum, default_value_t = By::Culprit)]
    pub by: By,
    /// The same as --by stack.
    #[arg(long, conflicts_with = "by")]
    pub stack: bool,
    /// Show at most this many culprits.
    #[arg(long, default_value_t = 10)]
    pub limit: usize,
    /// Per CPU and kind: events and their average length, last, min and max of the
    /// recorded windows, and windows still open; since the command started, refreshed in
    /// place on a terminal (once otherwise, since load).
    #[arg(long, conflicts_with_all = ["stack", "by", "limit", "lines"])]
    pub live: bool,
    /// With --live: time between refreshes.
    #[arg(long, default_value = "1s", value_parser = parse_positive, requires = "live")]
    pub interval: Duration,
    /// With --live: stop after this many refreshes (default: until Ctrl-C; 1 when not on a terminal).
    #[arg(long, requires = "live")]
    pub count: Option<u64>,
    /// With --live: stop after this long (e.g. 30s, 5m), with a last refresh then; the
    /// summary line follows, as on Ctrl-C.
    #[arg(long, value_parser = parse_positive, requires = "live")]
    pub duration: Option<Duration>,
    /// Read a file that `trace-irqoff record -o FILE` wrote instead of the module (any
    /// machine: its wall times come from the clock anchor saved in it).
    #[arg(long, value_name = "FILE", conflicts_with = "live")]
    pub from: Option<PathBuf>,
    // --lines: each culprit's source line under its row (its worst window's frame).
    #[command(flatten)]
    pub lines: LinesArgs,
}

#[derive(Args, Debug)]
pub struct WatchArgs {
    /// Time between refreshes (e.g. 500ms, 2s).
    #[arg(long, default_value = "1s", value_parser = parse_positive)]
    pub interval: Duration,
    /// Stop after this many refreshes (default: until Ctrl-C).
    #[arg(long)]
    pub count: Option<u64>,
    /// Stop after this long (e.g. 30s, 5m), with a last refresh then; the summary line
    /// follows, as on Ctrl-C.
    #[arg(long, value_parser = parse_positive)]
    pub duration: Option<Duration>,
    /// End as soon as a window of at least MS ms is recorded (exit status 3).
    #[arg(long, value_name = "MS", value_parser = parse_whole_ms)]
    pub until: Option<u64>,
    /// On a terminal, each window with its stacks (default: one line per window, newest
    /// first, as many as the screen holds).
    #[arg(long)]
    pub stacks: bool,
    // --lines: the stacks' frames with their source lines (the stacked view on a terminal
    // too; `lines` in --json).
    #[command(flatten)]
    pub lines: LinesArgs,
}

#[derive(Args, Debug)]
pub struct RecordArgs {
    /// How long to record (e.g. 30s, 5m) [default: 30s; with --until, no limit].
    #[arg(long, value_parser = parse_positive)]
    pub duration: Option<Duration>,
    /// Hindsight: save the windows of the last DURATION (e.g. 10m) that the module's event
    /// ring still holds, and the module's records of that time, without recording anew.
    #[arg(long, value_parser = parse_positive, conflicts_with_all = ["duration", "until", "period", "threshold"])]
    pub last: Option<Duration>,
    /// End as soon as a window of at least MS ms is recorded, save and restore (exit
    /// status 3); lowers the threshold to MS while recording if it is higher.
    #[arg(long, value_name = "MS", value_parser = parse_whole_ms)]
    pub until: Option<u64>,
    /// Sampling period in ms while recording.
    #[arg(long, value_name = "MS", value_parser = parse_whole_ms)]
    pub period: Option<u64>,
    /// Threshold in ms while recording.
    #[arg(long, value_name = "MS", value_parser = parse_whole_ms)]
    pub threshold: Option<u64>,
    /// Where to write the JSON result.
    #[arg(short, long, default_value = "trace-irqoff-record.json")]
    pub output: PathBuf,
    /// Also write folded stacks (for flamegraph.pl, inferno) to this file.
    #[arg(long, value_name = "FILE")]
    pub folded: Option<PathBuf>,
    /// What a folded stack counts: its windows, or their length in whole ms.
    #[arg(long, value_enum, default_value_t = Weight::Count, requires = "folded")]
    pub weight: Weight,
    // --lines: the file keeps each frame's source lines (resolved on this machine when
    // recorded), which `records --from FILE` and `report FILE` show.
    #[command(flatten)]
    pub lines: LinesArgs,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// A file that `trace-irqoff record -o FILE` wrote (default: read the module).
    #[arg(value_name = "FILE")]
    pub from: Option<PathBuf>,
    /// Where to write the HTML page.
    #[arg(short, long, default_value = "trace-irqoff-report.html")]
    pub output: PathBuf,
    /// Draw the delays of `trace-irqoff explain --json > FILE`, or the wake-ups of
    /// `trace-irqoff explain --wakeups --pid PID --json > FILE`, beside the windows.
    #[arg(long, value_name = "FILE")]
    pub explain: Option<PathBuf>,
    // --lines: the stacks' frames with their source lines.
    #[command(flatten)]
    pub lines: LinesArgs,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum Weight {
    /// One per window.
    Count,
    /// The window's latency in ms.
    Latency,
}

#[derive(Args, Debug)]
pub struct MetricsArgs {
    /// Write DIR/trace_irqoff.prom atomically (node_exporter's textfile collector
    /// directory), instead of printing.
    #[arg(long, value_name = "DIR")]
    pub textfile: Option<PathBuf>,
    /// One latency histogram per CPU (about 80 series each) instead of one summed over
    /// CPUs; counters are per CPU either way.
    #[arg(long)]
    pub per_cpu: bool,
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address and port to listen on (loopback by default: put a proxy or a firewall rule
    /// in front before opening it to the network).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:9809")]
    pub listen: String,
    /// One latency histogram per CPU (about 80 series each) instead of one summed over
    /// CPUs; counters are per CPU either way.
    #[arg(long)]
    pub per_cpu: bool,
    /// Stop after serving this many scrapes (tests; default: until SIGTERM or Ctrl-C).
    #[arg(long, hide = true)]
    pub scrapes: Option<u64>,
}

#[derive(Args, Debug)]
pub struct JournalArgs {
    /// The rate limit's burst: how many windows are written at once after a quiet spell
    /// (the token bucket's size).
    #[arg(long, value_name = "N", default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..))]
    pub burst: u32,
    /// The rate limit's rate: how many windows a second are written beyond the burst (the
    /// bucket's refill); the others are dropped and counted.
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    pub rate: u32,
    /// At most one entry per this interval says how many windows were dropped (the rate
    /// limit, or overwritten in the event ring before being read).
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_positive)]
    pub summary_interval: Duration,
    /// Windows at least this long (ms) have the priority warning; shorter ones notice from
    /// the module's threshold on, info below.
    #[arg(long = "warning", value_name = "MS", default_value = "100", value_parser = parse_ns)]
    pub warning_ns: u64,
    /// Only windows of at least this many ms (default: every window the ring carries).
    #[arg(long = "min", value_name = "MS", value_parser = parse_ns)]
    pub min_ns: Option<u64>,
    /// Time between reads of the event ring.
    #[arg(long, default_value = "1s", value_parser = parse_positive)]
    pub interval: Duration,
    /// Write the entries to stdout instead of the journal: a line each, or with --json one
    /// JSON object of every field a line, as journalctl -o json shows them.
    #[arg(long)]
    pub print: bool,
    /// Stop after this many reads of the ring (tests; default: until SIGTERM or Ctrl-C).
    #[arg(long, hide = true)]
    pub reads: Option<u64>,
}

#[derive(Args, Debug)]
pub struct ServiceArgs {
    #[arg(value_enum)]
    pub action: ServiceAction,
    /// The configuration file (TOML; missing: the module's defaults, sampling on).
    #[arg(long, value_name = "FILE", default_value = crate::parse::conf::DEFAULT_PATH)]
    pub config: PathBuf,
    /// Where start saves the module's prior state for stop.
    #[arg(
        long,
        value_name = "FILE",
        default_value = "/run/trace-irqoff/prior.json"
    )]
    pub state: PathBuf,
    /// The program that loads and unloads the module (as modprobe: NAME PARAM=VALUE...,
    /// -r NAME).
    #[arg(long, value_name = "PROGRAM", default_value = "modprobe")]
    pub modprobe: String,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServiceAction {
    /// Check the file, save the prior state, load the module if needed, apply the file.
    Start,
    /// Put the saved state back (unload the module if start loaded it).
    Stop,
    /// Check the file only (exit status 2 and the reason if it is refused).
    Check,
}

#[derive(Args, Debug)]
pub struct ManArgs {
    /// Write trace-irqoff.1 and a trace-irqoff-COMMAND.1 for every command into DIR,
    /// instead of printing trace-irqoff.1.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// Trace the next DURATION from now (block requests, softirqs, task switches), then
    /// answer [default: 5s]. Ctrl-C ends it early and answers for what was traced.
    #[arg(long = "for", value_name = "DURATION", value_parser = parse_positive, conflicts_with = "from")]
    pub span: Option<Duration>,
    /// Deprecated: `--for` (it traced the next DURATION, it never looked back); refused
    /// with that hint.
    #[arg(long, value_name = "DURATION", hide = true)]
    pub last: Option<String>,
    /// A trace saved from tracefs (trace_clock mono) instead of tracing anew.
    #[arg(long, value_name = "FILE")]
    pub from: Option<PathBuf>,
    /// Only this block device's requests (nvme0n1, or MAJOR:MINOR).
    #[arg(long, value_name = "DEV")]
    pub device: Option<String>,
    /// Only this NIC's NET_RX softirq delays (eth0, as in /sys/class/net): those on the
    /// CPUs its rx queues' interrupts go to and RPS steers to; a window on another CPU
    /// never explains them. A virtual NIC (veth, lo: no interrupt) receives on the sending
    /// CPU, so on its RPS CPUs, or on any.
    #[arg(long, value_name = "DEV")]
    pub netdev: Option<String>,
    /// The CPUs this task ran on in the span, and the windows there.
    #[arg(long)]
    pub pid: Option<i32>,
    /// The same for every task of this cgroup (v2 path, /sys/fs/cgroup/PATH).
    #[arg(long, value_name = "PATH")]
    pub cgroup: Option<String>,
    /// With --pid or --cgroup: every wake-up of the task's threads instead of its span,
    /// split into timer lateness, delivery and run-queue wait, each joined with the
    /// windows on the CPU it happened on; slowest first (--min: the whole wake-up).
    #[arg(long)]
    pub wakeups: bool,
    /// Only delays (and wake-ups, whole) of at least this many ms (decimals allowed: 0.5).
    #[arg(long = "min", value_name = "MS", value_parser = parse_ns, default_value = "1")]
    pub min_ns: u64,
}

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    pub shell: clap_complete::Shell,
}

/// The one duration syntax of every option: a number with a unit (`ns`, `us`, `ms`, `s`,
/// `m`, `min`, `h`; decimals allowed: `1.5s`), or a bare number, which is milliseconds, or
/// several parts (`1m30s`).
pub fn parse_span(s: &str) -> Result<Duration, String> {
    let bad = || {
        format!("'{s}' is not a duration (e.g. 10, 1.5ms, 2s, 5m: a bare number is milliseconds)")
    };
    let t = s.trim();
    if t.is_empty() {
        return Err(bad());
    }
    if t.starts_with('-') && parse_span(&t[1..]).is_ok() {
        return Err(format!(
            "'{s}' is negative: a duration is 0 or more (e.g. 10, 1.5ms, 2s)"
        ));
    }
    let mut rest = t;
    let mut total: u128 = 0;
    while !rest.is_empty() {
        let num_len = rest
            .bytes()
            .take_while(|b| b.is_ascii_digit() || *b == b'.')
            .count();
        let (num, tail) = rest.split_at(num_len);
        let unit_len = tail
            .bytes()
            .take_while(|b| !b.is_ascii_digit() && *b != b'.')
            .count();
        let (unit, tail) = tail.split_at(unit_len);
        // A bare number is milliseconds only as the whole value: in "1m30" the "30" is refused.
        let ns_per: u128 = match unit.trim() {
            "" if rest.len() == t.len() => 1_000_000,
            "ns" => 1,
            "us" | "µs" => 1_000,
            "ms" => 1_000_000,
            "s" | "sec" => 1_000_000_000,
            "m" | "min" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return Err(bad()),
        };
        total = total
            .checked_add(decimal_times(num, ns_per).ok_or_else(bad)?)
            .ok_or_else(bad)?;
        rest = tail;
    }
    let secs = u64::try_from(total / 1_000_000_000).map_err(|_| bad())?;
    Ok(Duration::new(secs, (total % 1_000_000_000) as u32))
}

/// `num` (digits with at most one '.', a digit on each side) times `scale`, if whole.
fn decimal_times(num: &str, scale: u128) -> Option<u128> {
    let (whole, frac) = num.split_once('.').unwrap_or((num, ""));
    let digits = |d: &str| !d.is_empty() && d.len() <= 20 && d.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || (num.contains('.') && !digits(frac)) {
        return None;
    }
    let mut v = whole.parse::<u128>().ok()?.checked_mul(scale)?;
    let mut unit = scale;
    for b in frac.bytes() {
        let d = u128::from(b - b'0');
        if unit % 10 != 0 {
            // Finer than a nanosecond: refused rather than rounded.
            if d != 0 {
                return None;
            }
            continue;
        }
        unit /= 10;
        v = v.checked_add(d * unit)?;
    }
    Some(v)
}

/// A duration that must be a whole number of milliseconds (the module's unit): period,
/// threshold, `--until`. Returns the milliseconds.
fn parse_whole_ms(s: &str) -> Result<u64, String> {
    let d = parse_span(s)?;
    if d.subsec_nanos() % 1_000_000 != 0 {
        return Err(format!("'{s}' is not a whole number of milliseconds"));
    }
    u64::try_from(d.as_millis()).map_err(|_| format!("'{s}' is too long"))
}

/// A duration in nanoseconds (`--min`: 80, 1.5, 1.5ms, 2s).
fn parse_ns(s: &str) -> Result<u64, String> {
    u64::try_from(parse_span(s)?.as_nanos()).map_err(|_| format!("'{s}' is too long"))
}

/// A duration that must not be zero: `--interval`, `--duration`, `--since`.
fn parse_positive(s: &str) -> Result<Duration, String> {
    let d = parse_span(s)?;
    if d.is_zero() {
        return Err(format!(
            "'{s}' is zero: give a duration longer than that (e.g. 1s)"
        ));
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One syntax for every duration: a bare number is ms, units and decimals are accepted,
    /// anything else is refused with the same sentence.
    #[test]
    fn one_duration_syntax() {
        let ms = |v: u64| Ok(Duration::from_millis(v));
        assert_eq!(parse_span("10"), ms(10));
        assert_eq!(parse_span("10ms"), ms(10));
        assert_eq!(parse_span("1.5"), Ok(Duration::from_micros(1500)));
        assert_eq!(parse_span("1.5s"), ms(1500));
        assert_eq!(parse_span("2m"), ms(120_000));
        assert_eq!(parse_span("1.5m"), ms(90_000));
        assert_eq!(parse_span("1m30s"), ms(90_000));
        assert_eq!(parse_span("1h"), ms(3_600_000));
        assert_eq!(parse_span("250us"), Ok(Duration::from_micros(250)));
        assert_eq!(parse_span("0.000001"), Ok(Duration::from_nanos(1)));
        assert_eq!(parse_span("1.0000000s"), ms(1000));
        for bad in [
            "",
            " ",
            "-",
            "--1",
            "1.",
            ".5",
            "1.2.3",
            "abc",
            "1e3",
            "10 parsecs",
            "1m30",
            "1.0000001",
            "99999999999999999999999h",
        ] {
            assert_eq!(parse_span(bad), Err(format!("'{bad}' is not a duration (e.g. 10, 1.5ms, 2s, 5m: a bare number is milliseconds)")), "{bad}");
        }
        // A negative duration is said to be one.
        for neg in ["-1", "-5ms", "-1m30s"] {
            assert_eq!(
                parse_span(neg),
                Err(format!(
                    "'{neg}' is negative: a duration is 0 or more (e.g. 10, 1.5ms, 2s)"
                ))
            );
        }
    }

    /// The module's values are whole ms; zero is refused where it would mean nothing.
    #[test]
    fn whole_ms_nanoseconds_and_positive() {
        assert_eq!(parse_whole_ms("1s"), Ok(1000));
        assert_eq!(parse_whole_ms("20"), Ok(20));
        assert_eq!(
            parse_whole_ms("1.5"),
            Err("'1.5' is not a whole number of milliseconds".to_string())
        );
        assert_eq!(parse_ns("1.5"), Ok(1_500_000));
        assert_eq!(parse_ns("80"), Ok(80_000_000));
        assert_eq!(parse_ns("1.5s"), Ok(1_500_000_000));
        assert_eq!(parse_positive("1"), Ok(Duration::from_millis(1)));
        for zero in ["0", "0s", "0.0ms"] {
            assert_eq!(
                parse_positive(zero),
                Err(format!(
                    "'{zero}' is zero: give a duration longer than that (e.g. 1s)"
                ))
            );
        }
    }

    /// Claim: clap's debug_assert accepts the whole command-line definition: no clashing
    /// names or short flags, no defaults or `requires` that name missing arguments.
    #[test]
    fn the_definitions_hold_together() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}

/// `tagwait [on|off]` (its help is the doc comment of [`Command::Tagwait`]).
#[derive(Args, Debug)]
pub struct TagwaitArgs {
    /// Switch tracking on or off (it costs nothing while off).
    #[arg(value_enum)]
    pub switch: Option<OnOff>,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum OnOff {
    On,
    Off,
}

/// The reference's synopses and option prose against these definitions.
#[cfg(test)]
mod synopsis;
