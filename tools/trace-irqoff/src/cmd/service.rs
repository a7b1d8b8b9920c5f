// SPDX-License-Identifier: GPL-2.0
//! `service start|stop|check`: what `trace-irqoff.service` runs. `start` checks the
//! configuration file whole, saves the module's state as it is (loaded or not, sampling,
//! period, threshold, CPUs, tag-wait), loads the module if needed and applies the file;
//! `stop` puts the saved state back (unloading the module if `start` loaded it). A file
//! that is refused changes nothing; a write the module refuses puts everything back.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::{Ctx, Outcome};
use crate::cli::{ServiceAction, ServiceArgs};
use crate::error::Problem;
use crate::model::settings::Settings;
use crate::output;
use crate::parse::conf::{self, Conf};
use crate::source::files::AtomicFile;
use crate::source::procfs::{Dir, Module, ProcError};

/// The module's name, as modprobe knows it.
const MODULE: &str = "trace_irqoff";

/// The module's state before `start`, what `stop` puts back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Prior {
    /// Whether the module was loaded; when not, `stop` unloads it and nothing else counts.
    pub loaded: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<Settings>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag_wait: Option<bool>,
}

pub fn run(a: &ServiceArgs, proc_root: &Path, ctx: &Ctx) -> Result<Outcome> {
    let open = || Module::open(Dir::new(proc_root));
    match a.action {
        ServiceAction::Check => {
            let m = open().ok();
            let c = read_conf(&a.config, m.as_ref())?;
            report(
                ctx,
                &serde_json::json!({ "config": a.config, "valid": true, "settings": c }),
                &format!("{}: valid\n", a.config.display()),
            )
        }
        ServiceAction::Start => start(a, &open, ctx),
        ServiceAction::Stop => stop(a, &open, ctx),
    }
}

fn start(
    a: &ServiceArgs,
    open: &dyn Fn() -> Result<Module<Dir>, ProcError>,
    ctx: &Ctx,
) -> Result<Outcome> {
    let before = match open() {
        Ok(m) => Some(m),
        Err(ProcError::NotLoaded(_)) => None,
        Err(e) => return Err(e.into()),
    };
    // The whole file first: a refused one changes nothing, the module included.
    let c = read_conf(&a.config, before.as_ref())?;
    let prior = match &before {
        Some(m) => Prior {
            loaded: true,
            settings: Some(m.settings()?),
            cpus: m.cpus()?,
            tag_wait: m.counters()?.tag_wait.map(|t| t.enabled),
        },
        None => Prior {
            loaded: false,
            settings: None,
            cpus: None,
            tag_wait: None,
        },
    };
    // A second start (restart without stop, or a start after a crash) keeps the state of
    // the first: that is what the machine had before the service.
    let prior = match load_prior(&a.state)? {
        Some(p) => p,
        None => {
            save_prior(&a.state, &prior)?;
            prior
        }
    };
    let m = match before {
        Some(m) => {
            note_load_params(&m, &c);
            m
        }
        None => {
            modprobe(&a.modprobe, &c.load_params())?;
            open().context("the module was loaded but /proc/trace_irqoff is missing")?
        }
    };
    if let Err(e) = apply(&m, &c) {
        // Back to what the machine had, then the module's refusal.
        let back = restore(&m, &prior, &a.modprobe);
        if back.is_ok() {
            let _ = std::fs::remove_file(&a.state);
        }
        return Err(e);
    }
    let s = m.settings()?;
    let cpus = m.cpus()?.unwrap_or_else(|| "all".into());
    report(
        ctx,
        &serde_json::json!({ "config": a.config, "settings": s, "cpus": cpus }),
        &format!(
            "{}  cpus {cpus} (from {})\n",
            crate::render::status_view::settings_line(&s).trim_end(),
            a.config.display()
        ),
    )
}

fn stop(
    a: &ServiceArgs,
    open: &dyn Fn() -> Result<Module<Dir>, ProcError>,
    ctx: &Ctx,
) -> Result<Outcome> {
    let prior = load_prior(&a.state)?;
    let m = match open() {
        Ok(m) => Some(m),
        Err(ProcError::NotLoaded(_)) => None,
        Err(e) => return Err(e.into()),
    };
    let said = match (&m, &prior) {
        (None, _) => "trace_irqoff: not loaded, nothing to restore".to_string(),
        // No saved state (start never ran, or it was removed): sampling stops, as the
        // unit promises, and the rest stays.
        (Some(m), None) => {
            m.set_enabled(false)?;
            "trace_irqoff: disabled (no saved state to restore)".to_string()
        }
        (Some(m), Some(p)) => {
            restore(m, p, &a.modprobe)?;
            if p.loaded {
                format!(
                    "restored: {}",
                    crate::render::status_view::settings_line(&m.settings()?).trim_end()
                )
            } else {
                "trace_irqoff: unloaded (it was not loaded before the service)".to_string()
            }
        }
    };
    if prior.is_some() {
        std::fs::remove_file(&a.state)
            .with_context(|| format!("cannot remove {}", a.state.display()))?;
    }
    report(
        ctx,
        &serde_json::json!({ "stopped": true, "prior": prior }),
        &format!("{said}\n"),
    )
}

/// Reads and checks the file; a missing file is an empty one (the module's defaults).
fn read_conf(path: &Path, m: Option<&Module<Dir>>) -> Result<Conf> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => {
            return Err(Problem::failure(
                format!("cannot read {}: {e}", path.display()),
                "the service reads it as root; check its permissions",
            )
            .into())
        }
    };
    let period = match m {
        Some(m) => m.settings()?.period_ms,
        None => conf::LOAD_PERIOD_MS,
    };
    Conf::parse(&path.display().to_string(), &text, period).map_err(|r| {
        Problem::usage(
            format!("{r}; nothing was changed"),
            format!(
                "fix {} (its keys: trace-irqoff service --help) and start the service again",
                path.display()
            ),
        )
        .into()
    })
}

/// Sampling off, then the file's settings in the order the module takes them (CPUs and
/// period only while off), then sampling as the file says (on by default).
fn apply(m: &Module<Dir>, c: &Conf) -> Result<()> {
    m.set_enabled(false)?;
    if let Some(list) = &c.cpus {
        m.set_cpus(list.trim())?;
    }
    if let Some(p) = c.period_ms {
        m.set_period(p)?;
    }
    if let Some(t) = c.threshold_ms {
        m.set_threshold(t)?;
    }
    if let Some(on) = c.tag_wait {
        set_tag_wait(m, on)?;
    }
    m.set_enabled(c.enable.unwrap_or(true))?;
    Ok(())
}

/// Puts `p` back: unloads the module if it was not loaded, else its settings.
fn restore(m: &Module<Dir>, p: &Prior, modprobe: &str) -> Result<()> {
    m.set_enabled(false)?;
    if !p.loaded {
        return modprobe_remove(modprobe);
    }
    if let Some(list) = p.cpus.as_deref().filter(|l| *l != "-") {
        m.set_cpus(list)?;
    }
    if let Some(tw) = p.tag_wait {
        set_tag_wait(m, tw)?;
    }
    if let Some(s) = p.settings {
        m.restore(s)?;
    }
    Ok(())
}

/// Turning tag-wait off where the kernel offers no source is not an error: it is off.
fn set_tag_wait(m: &Module<Dir>, on: bool) -> Result<()> {
    match m.set_tag_wait(on) {
        Err(ProcError::Unsupported) if !on => Ok(()),
        r => Ok(r?),
    }
}

/// Module parameters take effect at a load only: says so when the loaded module's differ.
fn note_load_params(m: &Module<Dir>, c: &Conf) {
    let Some(want) = c.records_per_cpu else {
        return;
    };
    if let Ok(s) = m.counters() {
        let have = s.config.records_per_cpu;
        if have != want {
            output::note(&format!(
                "the loaded module keeps {have} records per CPU; records_per_cpu = {want} applies from its next load (systemctl stop trace-irqoff; modprobe -r {MODULE}; systemctl start trace-irqoff)"
            ));
        }
    }
}

fn modprobe(program: &str, params: &[String]) -> Result<()> {
    run_modprobe(
        program,
        std::iter::once(MODULE.to_string())
            .chain(params.iter().cloned())
            .collect(),
    )
}

fn modprobe_remove(program: &str) -> Result<()> {
    run_modprobe(program, vec!["-r".into(), MODULE.into()])
}

fn run_modprobe(program: &str, args: Vec<String>) -> Result<()> {
    let out = Command::new(program).args(&args).output().map_err(|e| {
        Problem::failure(
            format!("cannot run {program}: {e}"),
            "install kmod, or give the program with --modprobe",
        )
    })?;
    if out.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&out.stderr);
    let said = said.lines().next().unwrap_or("").trim();
    Err(Problem::failure(
        format!("{program} {} failed: {said}", args.join(" ")),
        "is trace-irqoff-dkms built for this kernel? (dkms status; journalctl -k | grep trace_irqoff)",
    )
    .into())
}

fn load_prior(path: &Path) -> Result<Option<Prior>> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(Some(serde_json::from_str(&t).with_context(|| {
            format!(
                "{} is not a saved state (remove it to start afresh)",
                path.display()
            )
        })?)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

fn save_prior(path: &Path, p: &Prior) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let f = AtomicFile::create(path)?;
    f.commit(serde_json::to_string_pretty(p)?.as_bytes())?;
    Ok(())
}

fn report(ctx: &Ctx, json: &serde_json::Value, text: &str) -> Result<Outcome> {
    if ctx.json {
        output::print_json(json)?;
    } else {
        output::print(text)?;
    }
    Ok(Outcome::Done)
}
