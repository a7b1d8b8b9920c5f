// SPDX-License-Identifier: GPL-2.0

//! What the files under `/proc/trace_irqoff` show, and what writing them does. The first
//! four keep the original tool's formats (additions only at the end of lines); `records`
//! is the lossless, versioned form the CLI reads. See `Documentation/trace-irqoff.rst`.
//!
//! The parts: `original` (the original tool's `trace_latency` and `distribute`),
//! `records_file` (`records`), `counters_file` (`counters`, and the lines `records`
//! repeats from it), and `common`, what they show alike.

mod common;
mod counters_file;
mod original;
mod records_file;

use crate::ffi::file_id;
use crate::logic::gap::NSEC_PER_MSEC;
use crate::state::State;
use common::{nr_cpus, CpuList};
use counters_file::{counters_elements, show_counters_element};
use kernel::prelude::*;
use kernel::seq_file::SeqFile;
use kernel::seq_print;
use original::{
    show_distribute_element, show_trace_latency_element, trace_latency_elements,
    DISTRIBUTE_ELEMENTS,
};
use records_file::{records_elements, show_records_element};

/// The files under `/proc/trace_irqoff`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum ProcFile {
    Enable,
    SamplingPeriod,
    TraceLatency,
    Distribute,
    Records,
    TagWait,
    Cpus,
    Counters,
}

impl ProcFile {
    /// The file the shim means by `id`.
    pub(crate) fn from_id(id: u32) -> Option<Self> {
        Some(match id {
            file_id::ENABLE => Self::Enable,
            file_id::SAMPLING_PERIOD => Self::SamplingPeriod,
            file_id::TRACE_LATENCY => Self::TraceLatency,
            file_id::DISTRIBUTE => Self::Distribute,
            file_id::RECORDS => Self::Records,
            file_id::TAG_WAIT => Self::TagWait,
            file_id::CPUS => Self::Cpus,
            file_id::COUNTERS => Self::Counters,
            _ => return None,
        })
    }
}

/// The number of elements of a file, each shown by one seq_file `show` call (the shim's
/// iterator). A read holds one element at a time in the kernel, and a seq_file buffer that
/// overflows makes seq_file show that one element again with a buffer twice as large, not
/// the whole file: a read costs O(its output). The files that grow with the CPUs have an
/// element per CPU and part; the others have one.
pub(crate) fn elements(state: &State, file: ProcFile) -> usize {
    match file {
        ProcFile::TraceLatency => trace_latency_elements(state),
        ProcFile::Distribute => DISTRIBUTE_ELEMENTS,
        ProcFile::Records => records_elements(state),
        ProcFile::Counters => counters_elements(state),
        ProcFile::Enable | ProcFile::SamplingPeriod | ProcFile::TagWait | ProcFile::Cpus => 1,
    }
}

/// Renders element `index` of a file (see [`elements`]); nothing past the end.
pub(crate) fn show(state: &State, file: ProcFile, m: &SeqFile, index: usize) {
    match file {
        ProcFile::Enable if index == 0 => {
            seq_print!(m, "{}\n", state.phase().name());
        }
        ProcFile::SamplingPeriod if index == 0 => {
            seq_print!(m, "{}ms\n", state.settings.period_ns() / NSEC_PER_MSEC);
        }
        ProcFile::TraceLatency => show_trace_latency_element(state, m, index),
        ProcFile::Distribute => show_distribute_element(state, m, index),
        ProcFile::Records => show_records_element(state, m, index),
        ProcFile::Counters => show_counters_element(state, m, index),
        ProcFile::TagWait if index == 0 => state.tag_wait.show(m),
        ProcFile::Cpus if index == 0 => {
            seq_print!(
                m,
                "{}\n",
                CpuList(nr_cpus(state), |c| state.peers.selected(c))
            );
        }
        _ => {}
    }
}

/// Applies a write to one file.
pub(crate) fn write(state: &State, file: ProcFile, buf: &[u8]) -> Result {
    match file {
        ProcFile::Enable => state.write_enable(buf),
        ProcFile::SamplingPeriod => state.write_period(buf),
        ProcFile::TraceLatency => state.write_trace_latency(buf),
        ProcFile::TagWait => state.tag_wait.write(buf),
        ProcFile::Cpus => state.write_cpus(buf),
        ProcFile::Distribute | ProcFile::Records | ProcFile::Counters => Err(EPERM),
    }
}
