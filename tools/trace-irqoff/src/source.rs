// SPDX-License-Identifier: GPL-2.0
//! The source wing: where the data comes from. The module's files under /proc
//! (`procfs`: read, written, their errors in sentences), its event ring in tracefs
//! (`ring`), `explain`'s own tracefs instance (`explain_instance`) and what it reads of
//! sysfs and /proc (`sysfs`), a `record` file read back (`saved`), and output files
//! written whole (`files`). Text read here is handed to `parse`.

pub mod explain_instance;
pub mod files;
pub mod procfs;
pub mod ring;
pub mod saved;
pub mod sysfs;
