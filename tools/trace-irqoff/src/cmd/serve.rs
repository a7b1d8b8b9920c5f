// SPDX-License-Identifier: GPL-2.0
//! `serve --listen ADDR`: the Prometheus exporter. `GET /metrics` answers with the
//! exposition of `metrics`, read from the module's `counters` file on every scrape (its size
//! grows with the CPUs only: a scrape never walks the records); a module that is not loaded
//! is `trace_irqoff_loaded 0`, not an error. One thread, one scrape at a time: a scrape is
//! one read of one file.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use tiny_http::{Header, Method, Request, Response, Server};

use super::Outcome;
use crate::cli::ServeArgs;
use crate::error::Problem;
use crate::output;
use crate::source::procfs::{Dir, Module};

/// The Prometheus text format's content type.
const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

pub fn run(a: &ServeArgs, proc_root: &Path, stop: &Arc<AtomicBool>) -> Result<Outcome> {
    let server = Server::http(&a.listen).map_err(|e| not_listening(&a.listen, &*e))?;
    output::note(&format!("serving /metrics on http://{}/metrics", a.listen));
    let mut served = 0u64;
    while !stop.load(Ordering::SeqCst) {
        // Wakes up now and then to see whether SIGTERM or Ctrl-C came.
        let Some(req) = server.recv_timeout(Duration::from_millis(250))? else {
            continue;
        };
        let scrape = answer(req, proc_root, a.per_cpu);
        if let Err(e) = scrape.1 {
            output::note(&format!("a client went away: {e}"));
        }
        served += u64::from(scrape.0);
        if a.scrapes.is_some_and(|n| served >= n) {
            break;
        }
    }
    // SIGTERM is how systemd stops the exporter: a clean end, exit status 0.
    Ok(Outcome::Done)
}

/// Why `serve` could not listen on `addr`, with a hint that fits the cause: only an
/// address that is taken, not on this machine, not allowed or not an address is helped
/// by picking another one; anything else (no sockets here: ENOSYS in a sandbox, a
/// seccomp filter) is the system's, whatever the address.
fn not_listening(addr: &str, e: &(dyn std::error::Error + 'static)) -> Problem {
    use std::io::ErrorKind;
    let sentence = format!("cannot listen on {addr}: {e}");
    let Some(io) = e.downcast_ref::<std::io::Error>() else {
        return Problem::failure(
            sentence,
            "the system refused the socket; see the error above",
        );
    };
    match io.kind() {
        ErrorKind::AddrInUse | ErrorKind::AddrNotAvailable | ErrorKind::InvalidInput => {
            Problem::failure(
                sentence,
                "pick a free address and port of this machine with --listen, e.g. --listen 127.0.0.1:9809",
            )
        }
        ErrorKind::PermissionDenied => Problem::failure(
            sentence,
            "ports below 1024 need root (or CAP_NET_BIND_SERVICE): pick a higher one, e.g. --listen 127.0.0.1:9809",
        ),
        _ => Problem::failure(
            sentence,
            "this system gives the process no listening socket (a sandbox or seccomp filter?): run serve where it may open one",
        ),
    }
}

/// Answers one request; whether it was a scrape of /metrics, and how the reply went.
fn answer(req: Request, proc_root: &Path, per_cpu: bool) -> (bool, std::io::Result<()>) {
    let path = req.url().split('?').next().unwrap_or("").to_string();
    if !matches!(req.method(), Method::Get | Method::Head) {
        return (false, req.respond(text(405, "only GET and HEAD\n")));
    }
    match path.as_str() {
        "/metrics" => {
            let (status, body) = match super::metrics::exposition(Module::open(Dir::new(proc_root)), per_cpu) {
                Ok(body) => (200, body),
                // Not a series: Prometheus marks the target down and keeps the message.
                Err(e) => (500, format!("trace-irqoff: {e}\n")),
            };
            (true, req.respond(text(status, &body)))
        }
        "/" => (
            false,
            req.respond(
                with_type(
                    Response::from_string("<html><head><title>trace-irqoff exporter</title></head><body><h1>trace-irqoff exporter</h1><p><a href=\"/metrics\">/metrics</a></p></body></html>\n"),
                    "text/html; charset=utf-8",
                ),
            ),
        ),
        _ => (false, req.respond(text(404, "not found: try /metrics\n"))),
    }
}

fn text(status: u16, body: &str) -> Response<std::io::Cursor<Vec<u8>>> {
    with_type(
        Response::from_string(body).with_status_code(status),
        CONTENT_TYPE,
    )
}

/// `r` with a Content-Type (a constant of this file: valid ASCII, so never left out).
fn with_type(
    r: Response<std::io::Cursor<Vec<u8>>>,
    value: &str,
) -> Response<std::io::Cursor<Vec<u8>>> {
    match Header::from_bytes(&b"Content-Type"[..], value.as_bytes()) {
        Ok(h) => r.with_header(h),
        Err(()) => r,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claim: a socket the system does not give (ENOSYS) is not answered with "pick a
    /// free address"; a taken address is.
    #[test]
    fn the_hint_fits_why_it_could_not_listen() {
        let nosys = std::io::Error::from_raw_os_error(rustix::io::Errno::NOSYS.raw_os_error());
        let p = not_listening("127.0.0.1:9809", &nosys);
        assert!(
            p.sentence.starts_with("cannot listen on 127.0.0.1:9809: "),
            "{}",
            p.sentence
        );
        assert!(!p.hint.contains("free address"), "{}", p.hint);
        assert!(p.hint.contains("no listening socket"), "{}", p.hint);
        let taken = std::io::Error::from(std::io::ErrorKind::AddrInUse);
        assert!(not_listening("127.0.0.1:9809", &taken)
            .hint
            .contains("pick a free address"));
        let other = std::fmt::Error;
        assert!(!not_listening("x", &other).hint.contains("free address"));
    }
}
