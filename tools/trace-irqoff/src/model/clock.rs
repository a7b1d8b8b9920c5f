// SPDX-License-Identifier: GPL-2.0
//! Wall-clock times for the module's timestamps, which are CLOCK_MONOTONIC ns: incidents are
//! correlated by wall clock, so every time a person reads is shown as both. Also the
//! plain forms of a length (ms) and of a time since boot (s) that every view prints.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rustix::time::{clock_gettime, ClockId};

/// Test only: a fixed boot time (RFC 3339) instead of this machine's, so that outputs on a
/// fake proc root are the same on every run.
pub const BOOT_TIME_ENV: &str = "TRACE_IRQOFF_BOOT_TIME";

/// When CLOCK_MONOTONIC was 0, in wall-clock time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    boot: SystemTime,
}

impl Clock {
    /// The boot time as of now: CLOCK_REALTIME - CLOCK_MONOTONIC, read at once. Not
    /// /proc/stat's btime: that is whole seconds, and counts from CLOCK_BOOTTIME, which
    /// also runs during suspend, when CLOCK_MONOTONIC (the module's clock) stops. Read
    /// anew for each snapshot, it follows changes of the wall clock (NTP steps) too.
    pub fn now() -> Self {
        if let Some(boot) = std::env::var(BOOT_TIME_ENV)
            .ok()
            .and_then(|v| humantime::parse_rfc3339(&v).ok())
        {
            return Self { boot };
        }
        let mono = duration(clock_gettime(ClockId::Monotonic));
        let real = duration(clock_gettime(ClockId::Realtime));
        Self {
            boot: UNIX_EPOCH + real.saturating_sub(mono),
        }
    }

    /// The clock a file was read with, from its anchor (CLOCK_REALTIME minus
    /// CLOCK_MONOTONIC then, in ns): right on any machine, whatever its own boot time.
    pub fn anchored(realtime_offset_ns: u64) -> Self {
        Self {
            boot: UNIX_EPOCH + Duration::from_nanos(realtime_offset_ns),
        }
    }

    /// The clock of a file's anchor where it has one, else this machine's as of now.
    pub fn of_anchor(realtime_offset_ns: Option<u64>) -> Self {
        realtime_offset_ns.map_or_else(Self::now, Self::anchored)
    }

    /// The anchor of this clock (see [`Clock::anchored`]), to save beside its timestamps.
    pub fn realtime_offset_ns(&self) -> u64 {
        self.boot
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    }

    /// The clock behind a wall-clock time and the monotonic timestamp it was made from
    /// (RFC 3339, as saved files have them); `None` if it does not parse.
    pub fn from_pair(rfc3339: &str, monotonic_ns: u64) -> Option<Self> {
        let wall = humantime::parse_rfc3339(rfc3339).ok()?;
        Some(Self {
            boot: wall.checked_sub(Duration::from_nanos(monotonic_ns))?,
        })
    }

    /// The wall-clock time of a CLOCK_MONOTONIC timestamp.
    pub fn wall(&self, monotonic_ns: u64) -> SystemTime {
        self.boot + Duration::from_nanos(monotonic_ns)
    }

    /// It as RFC 3339 in UTC, to the µs: "2026-05-07T10:21:33.178514Z".
    pub fn rfc3339(&self, monotonic_ns: u64) -> String {
        humantime::format_rfc3339_micros(self.wall(monotonic_ns)).to_string()
    }
}

/// Current CLOCK_MONOTONIC in ns: the clock of the module's timestamps.
pub fn monotonic_ns() -> u64 {
    duration(clock_gettime(ClockId::Monotonic)).as_nanos() as u64
}

/// Now, as RFC 3339 in UTC.
pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_micros(SystemTime::now()).to_string()
}

fn duration(t: rustix::time::Timespec) -> Duration {
    Duration::new(t.tv_sec.max(0) as u64, t.tv_nsec as u32)
}

/// A length as people read it: 107234567 ns -> "107.234 ms".
pub fn ms(ns: u64) -> String {
    format!("{}.{:03} ms", ns / 1_000_000, (ns % 1_000_000) / 1000)
}

/// Seconds since boot, as in the kernel log.
pub fn secs(ns: u64) -> String {
    format!("{}.{:06}", ns / 1_000_000_000, (ns % 1_000_000_000) / 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claim: a monotonic timestamp becomes a wall time as boot time (realtime less
    /// monotonic) plus the timestamp, written RFC 3339 in UTC to the microsecond, and on
    /// this machine a monotonic "now" maps to within 100 ms of the wall clock's now.
    #[test]
    fn boot_time_is_realtime_less_monotonic() {
        let c = Clock {
            boot: UNIX_EPOCH + Duration::from_secs(1_778_000_000),
        };
        assert_eq!(c.rfc3339(4_033_412_345), "2026-05-05T16:53:24.033412Z");
        // This machine's: a monotonic timestamp of now is now.
        let here = Clock {
            boot: UNIX_EPOCH
                + duration(clock_gettime(ClockId::Realtime))
                    .saturating_sub(duration(clock_gettime(ClockId::Monotonic))),
        };
        let skew = here
            .wall(monotonic_ns())
            .duration_since(SystemTime::now())
            .unwrap_or_else(|e| e.duration());
        assert!(skew < Duration::from_millis(100), "{skew:?}");
    }

    /// A file's anchor gives the same wall time on every machine, and a saved pair (wall
    /// time, timestamp) gives the anchor back to the µs the wall time has.
    #[test]
    fn anchors_round_trip() {
        let c = Clock::anchored(1_778_000_000_123_456_789);
        assert_eq!(c.rfc3339(4_033_412_345), "2026-05-05T16:53:24.156869Z");
        assert_eq!(c.realtime_offset_ns(), 1_778_000_000_123_456_789);
        let back = Clock::from_pair(&c.rfc3339(4_033_412_345), 4_033_412_345).expect("parses");
        assert_eq!(back.rfc3339(9_000_000_000), c.rfc3339(9_000_000_000));
        assert_eq!(Clock::from_pair("yesterday", 1), None);
    }
}
