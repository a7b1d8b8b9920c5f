// SPDX-License-Identifier: GPL-2.0
//! What the guest tools share: reading the kernel's own trace to check the module's events
//! against ([`witness`]).

pub mod witness;
