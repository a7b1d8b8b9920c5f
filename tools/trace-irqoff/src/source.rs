// SPDX-License-Identifier: GPL-2.0
//! Where the data comes from.

pub mod explain_instance;
pub mod files;
pub mod procfs;
pub mod ring;
pub mod saved;
pub mod sysfs;
