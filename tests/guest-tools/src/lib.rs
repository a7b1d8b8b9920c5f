// SPDX-License-Identifier: GPL-2.0
//! What the guest tools share: reading the kernel's own trace to check the module's events
//! against ([`witness`]), and making the calling thread SCHED_FIFO ([`set_fifo`]).

pub mod witness;

/// sched_setscheduler(2) on the calling thread. musl's wrapper is a stub returning ENOSYS
/// (and its `sched_param` has more fields than the kernel's), so the system call is made
/// directly with the kernel's `struct sched_param`: one int.
pub fn set_fifo(prio: i32) -> std::io::Result<()> {
    let param: libc::c_int = prio;
    // SAFETY: `param` is a valid kernel `struct sched_param` (a single int) that outlives
    // the call; pid 0 is the calling thread; the kernel only reads `param`.
    let r = unsafe {
        libc::syscall(
            libc::SYS_sched_setscheduler,
            0,
            libc::SCHED_FIFO,
            &param as *const libc::c_int,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}
