// SPDX-License-Identifier: GPL-2.0

//! The decisions behind in-window profiles and the watcher. Pure logic (`core` only),
//! unit-tested on the host by `tools/tio-logic`.
//!
//! A window's *profile* is a small table of distinct stacks with counts, sampled while the
//! window is open: by NMI for a hardirq-off window (its CPU's hrtimer cannot run), by the
//! CPU's own hrtimer for a softirq-off window. Counts are in sampler periods, so that they
//! stay proportional to time when sampling thins out (see [`next_sample`]).
//!
//! A *claim* says which CPU watches an overdue CPU's window: one word that holds the
//! window (the overdue CPU's last hrtimer run, which only changes when the window ends)
//! and the watcher, so a claim on a window that ended is simply stale and never needs
//! releasing.

/// Distinct stacks a live profile holds; samples of further stacks count as `other`.
pub(crate) const PROFILE_STACKS: usize = 8;

/// Low bits of a claim word that hold the watcher (CPU + 1); CPU numbers stay below this.
const OWNER_BITS: u32 = 16;
const OWNER_MASK: u64 = (1 << OWNER_BITS) - 1;

/// The claim word of `cpu` on the window that started after the hrtimer run at `window`.
///
/// The window loses its low 16 bits (65 µs): two windows of one CPU start at least one
/// sampling period (>= 1 ms) apart, so they never share a key.
pub(crate) const fn claim(window: u64, cpu: u32) -> u64 {
    (window & !OWNER_MASK) | ((cpu as u64 + 1) & OWNER_MASK)
}

/// Whether claim word `c` is on `window`.
pub(crate) const fn claim_is_on(c: u64, window: u64) -> bool {
    c != 0 && (c & !OWNER_MASK) == (window & !OWNER_MASK)
}

/// The watcher of claim word `c`, if any.
pub(crate) const fn claim_owner(c: u64) -> Option<u32> {
    match c & OWNER_MASK {
        0 => None,
        n => Some(n as u32 - 1),
    }
}

/// What a watcher does with a peer's claim word `current`, for the overdue `window`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ClaimStep {
    /// Ours already: keep watching.
    Mine,
    /// Try to take it with a compare-exchange from `current` (first claim of this
    /// window, or a takeover from a watcher that stopped coming).
    Take { first: bool },
    /// Another watcher has it and keeps coming: leave it.
    Theirs,
}

/// Decides a watcher's step. `owner_seen_ns` is when the current owner last ran on it;
/// an owner absent for more than `stale_ns` (it went offline, or is stuck itself) may be
/// replaced.
pub(crate) const fn claim_step(
    current: u64,
    window: u64,
    me: u32,
    now: u64,
    owner_seen_ns: u64,
    stale_ns: u64,
) -> ClaimStep {
    if !claim_is_on(current, window) {
        return ClaimStep::Take { first: true };
    }
    match claim_owner(current) {
        Some(o) if o == me => ClaimStep::Mine,
        _ if now.saturating_sub(owner_seen_ns) > stale_ns => ClaimStep::Take { first: false },
        _ => ClaimStep::Theirs,
    }
}

/// Whether a window's sampler takes a sample on this run, and its weight in periods.
///
/// `taken`: samples taken in this window so far; `since`: sampler runs since the last one
/// (or since the window was claimed); `max`: `max_window_samples`. The first `max` samples
/// come every period, weighing 1; after that the stride doubles every `max / 2` samples,
/// and each sample weighs its stride. So the counts stay proportional to time over the
/// whole window, and a window of N periods costs about `max + max / 2 * log2(N / max)`
/// samples.
pub(crate) const fn next_sample(taken: u32, since: u32, max: u32) -> Option<u32> {
    let stride = stride(taken, max);
    if since >= stride {
        Some(stride)
    } else {
        None
    }
}

/// Periods between samples after `taken` samples (see [`next_sample`]).
const fn stride(taken: u32, max: u32) -> u32 {
    if taken < max {
        return 1;
    }
    let half = if max / 2 == 0 { 1 } else { max / 2 };
    let doublings = 1 + (taken - max) / half;
    if doublings >= 16 {
        1 << 16
    } else {
        1 << doublings
    }
}

/// The indices of `counts` (at most `N` of them are looked at), most counted first (ties:
/// lower index first). Returns them and how many there are.
pub(crate) fn by_count<const N: usize>(counts: &[u32]) -> ([usize; N], usize) {
    let n = counts.len().min(N);
    let mut order = [0usize; N];
    for (i, o) in order.iter_mut().enumerate().take(n) {
        *o = i;
    }
    // Insertion sort: N is a handful.
    for i in 1..n {
        let mut j = i;
        while j > 0 && counts[order[j]] > counts[order[j - 1]] {
            order.swap(j, j - 1);
            j -= 1;
        }
    }
    (order, n)
}

/// Length of the common bottom part of two stacks of `la` and `lb` frames (top first);
/// `eq(a, b)`: frame `a` of the first equals frame `b` of the second.
pub(crate) fn common_suffix(la: usize, lb: usize, eq: impl Fn(usize, usize) -> bool) -> usize {
    let mut c = 0;
    while c < la && c < lb && eq(la - 1 - c, lb - 1 - c) {
        c += 1;
    }
    c
}

/// When a live profile's table is full and a new stack comes: of `n` stacks (the table's,
/// then the new one at `n - 1`), the two with the longest common bottom part, `(i, j,
/// len)` with `i < j`, to be merged into that part; `None` if no two share a frame.
/// `common(i, j)` gives the length of the common part.
///
/// Merging the closest pair keeps the table's stacks apart where they differ most: leaf
/// variations of one loop (the helper it was in when the NMI came, its exact instruction)
/// fold into the loop's own frame, while two different loops stay two stacks.
pub(crate) fn closest_pair(
    n: usize,
    common: impl Fn(usize, usize) -> usize,
) -> Option<(usize, usize, usize)> {
    let mut best: Option<(usize, usize, usize)> = None;
    // The new stack first: on a tie it joins a stored one rather than two stored ones
    // merging.
    for j in (1..n).rev() {
        for i in 0..j {
            let c = common(i, j);
            if c > 0 && best.is_none_or(|(_, _, b)| c > b) {
                best = Some((i, j, c));
            }
        }
    }
    best
}

/// The ring of `c` from the first two CPUs on after it, `n1` and `n2` (round the ring, so
/// possibly `c` itself): never `c`, never the same one twice.
fn ring_of(c: u32, n1: Option<u32>, n2: Option<u32>) -> [Option<u32>; 2] {
    let first = n1.filter(|&f| f != c);
    let second = if first.is_some() {
        n2.filter(|&s| s != c && Some(s) != first)
    } else {
        None
    };
    [first, second]
}

/// Every CPU's watched CPUs at once: for each CPU below `nr`, calls `set(cpu, ring)` with
/// the next two CPUs after it in the ring for which `on` holds (never itself, never the
/// same one twice), as [`watched`] gives them, in O(nr) for all of them: worked out in
/// process context whenever a sampler starts or stops, so that the hrtimer only copies
/// its two numbers.
pub(crate) fn rings(nr: u32, on: impl Fn(u32) -> bool, mut set: impl FnMut(u32, [Option<u32>; 2])) {
    let (mut n1, mut n2): (Option<u32>, Option<u32>) = (None, None);
    // Twice round the ring backwards: on the second round every CPU's successors are known.
    for i in (0..nr.saturating_mul(2)).rev() {
        let c = if i >= nr { i - nr } else { i };
        if i < nr {
            set(c, ring_of(c, n1, n2));
        }
        if on(c) {
            if n1 != Some(c) {
                n2 = n1;
            }
            n1 = Some(c);
        }
    }
}

/// The rings that `x` starting or stopping can change, set again as [`rings`] sets them:
/// those of the CPUs before `x` in the ring down to the second one for which `on` holds
/// (the CPUs whose next two are, or were, `x`), and `x`'s own (its entry may be new).
/// O(the CPUs walked: those between the two CPUs on before `x` and the two after it):
/// for one CPU's hotplug; a switch of every CPU at once sets all rings with [`rings`]
/// once, at its end.
pub(crate) fn rings_around(
    nr: u32,
    x: u32,
    on: impl Fn(u32) -> bool,
    mut set: impl FnMut(u32, [Option<u32>; 2]),
) {
    if x >= nr {
        return;
    }
    let step = |c: u32, back: bool| match (back, c) {
        (true, 0) => nr - 1,
        (true, c) => c - 1,
        (false, c) if c + 1 >= nr => 0,
        (false, c) => c + 1,
    };
    // The first two CPUs on from `x` onwards, round the whole ring: what `rings` holds
    // when it reaches the CPU before `x`.
    let (mut n1, mut n2): (Option<u32>, Option<u32>) = (None, None);
    let mut c = x;
    for _ in 0..nr {
        if on(c) {
            if n1.is_none() {
                n1 = Some(c);
            } else {
                n2 = Some(c);
                break;
            }
        }
        c = step(c, false);
    }
    // `x`'s own: the first two of those that are not `x`, or the next one after them.
    let own = if n1 == Some(x) {
        let mut third = None;
        let mut c = n2.unwrap_or(x);
        for _ in 0..nr {
            c = step(c, false);
            if c == x {
                break;
            }
            if on(c) {
                third = Some(c);
                break;
            }
        }
        [n2, n2.and(third)]
    } else {
        [n1, n1.and(n2)]
    };
    set(x, own);
    let mut c = x;
    let mut seen = 0;
    for _ in 1..nr {
        c = step(c, true);
        set(c, ring_of(c, n1, n2));
        if on(c) {
            seen += 1;
            if seen == 2 {
                return;
            }
            if n1 != Some(c) {
                n2 = n1;
            }
            n1 = Some(c);
        }
    }
}

/// The next online CPU after `cpu` in a ring of `nr` CPU numbers, by `online`; `None` if
/// no other CPU is online.
#[cfg(test)]
fn next_online(cpu: u32, nr: u32, online: impl Fn(u32) -> bool) -> Option<u32> {
    // No division: nothing here can panic.
    let mut c = cpu;
    for _ in 1..nr {
        c = match c.checked_add(1) {
            Some(n) if n < nr => n,
            _ => 0,
        };
        if online(c) {
            return Some(c);
        }
    }
    None
}

/// The watcher's trust in a CPU after one of its NMIs came late: one more doubling of
/// the spacing between NMIs to it, at most `max`.
pub(crate) const fn slower(slow: u32, max: u32) -> u32 {
    if slow < max {
        slow + 1
    } else {
        max
    }
}

/// Whether an NMI may be sent to a CPU trusted at `slow`, `since` watcher runs after the
/// last one: at most every 2^slow runs.
pub(crate) const fn trusted(since: u32, slow: u32) -> bool {
    slow == 0 || since >= 1u32 << (if slow < 31 { slow } else { 31 })
}

/// How long after a CPU's NMI count moved past a request's send a request still pending
/// is taken for lost by its watcher ([`remote_settle`]): NMIs do not nest, one latched
/// behind another is taken as soon as that one returns (microseconds), so ours would have
/// come by then unless the host did not run that vCPU for this long.
pub(crate) const LOST_REMOTE_NS: u64 = 500_000_000;

/// What the watcher of a CPU does about a request of ours still pending on it
/// ([`remote_settle`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RemoteSettle {
    /// Nothing yet: no NMI reached the CPU since the send (ours may still be on its way),
    /// or one did less than [`LOST_REMOTE_NS`] ago (ours may be latched behind it).
    Wait,
    /// An NMI reached the CPU since the send, first seen now: note the time.
    Moved,
    /// The CPU took an NMI after the send [`LOST_REMOTE_NS`] ago or more and ours has
    /// not claimed the request: ours was taken by another handler or swallowed. Clear it,
    /// so that a foreign NMI that comes in the rest of a long window is reported unknown.
    Lost,
}

/// The watcher's settle of a request pending on a CPU whose own hrtimer cannot settle it
/// (it is in a long window): the CPU's NMI count `at_send` (read before the send) and
/// `now_count`, when the watcher first saw it moved (`moved_at`, 0: not yet) and `now`.
pub(crate) const fn remote_settle(
    at_send: u64,
    now_count: u64,
    moved_at: u64,
    now: u64,
) -> RemoteSettle {
    if now_count == at_send {
        RemoteSettle::Wait
    } else if moved_at == 0 {
        RemoteSettle::Moved
    } else if now.saturating_sub(moved_at) >= LOST_REMOTE_NS {
        RemoteSettle::Lost
    } else {
        RemoteSettle::Wait
    }
}

/// What the watcher does about a window open for `length_ns` once it reaches the stuck
/// length (`stuck_ns`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stuck {
    /// Shorter, or logged already.
    Nothing,
    /// Log the stuck line (and fire the stuck tracepoint).
    Log,
    /// Overdue past the stuck length, but no NMI of the window has shown the CPU running
    /// anything but the idle loop: not logged, counted once (a vCPU the hypervisor is not
    /// running, or a VM frozen with its clock running, answers no NMI).
    Unconfirmed,
}

/// The stuck decision: `logged` (the stuck line is out for this window already),
/// `busy_seen` (an NMI of this window found the CPU outside the idle loop), `nmi_usable`
/// (NMIs can be asked at all; where they cannot, nothing can confirm the window, and the
/// line is logged as it stands).
pub(crate) const fn stuck_step(
    length_ns: u64,
    stuck_ns: u64,
    logged: bool,
    busy_seen: bool,
    nmi_usable: bool,
) -> Stuck {
    if length_ns < stuck_ns || logged {
        Stuck::Nothing
    } else if busy_seen || !nmi_usable {
        Stuck::Log
    } else {
        Stuck::Unconfirmed
    }
}

/// The (up to two) CPUs that `cpu` watches: its next two online CPUs in the ring. O(nr):
/// the reference for [`rings`], which the module uses.
#[cfg(test)]
fn watched(cpu: u32, nr: u32, online: impl Fn(u32) -> bool) -> [Option<u32>; 2] {
    let first = next_online(cpu, nr, &online);
    let second = first
        .and_then(|f| next_online(f, nr, &online))
        .filter(|&s| s != cpu);
    [first, second]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claim: a request of ours pending on a CPU in a long window is cleared by its
    /// watcher only once the CPU took an NMI after the send and half a second more went
    /// by (ours, latched behind that one, would have come); never while no NMI reached
    /// the CPU since the send (ours may still be on its way).
    #[test]
    fn a_lost_request_is_settled_from_another_cpu() {
        const MS: u64 = 1_000_000;
        assert_eq!(remote_settle(7, 7, 0, 900 * MS), RemoteSettle::Wait);
        assert_eq!(
            remote_settle(7, 7, 100 * MS, 5_000 * MS),
            RemoteSettle::Wait
        );
        assert_eq!(remote_settle(7, 8, 0, 100 * MS), RemoteSettle::Moved);
        assert_eq!(remote_settle(7, 8, 100 * MS, 599 * MS), RemoteSettle::Wait);
        assert_eq!(remote_settle(7, 9, 100 * MS, 600 * MS), RemoteSettle::Lost);
        // The count wraps: any change is a move.
        assert_eq!(remote_settle(u64::MAX, 0, 0, 1), RemoteSettle::Moved);
    }

    /// A stuck line only once an NMI of the window found code other than the idle loop
    /// (or where NMIs cannot be used at all); once per window.
    #[test]
    fn stuck_needs_a_busy_sample() {
        let (ms, stuck) = (1_000_000, 1_000_000_000);
        // Not yet stuck.
        assert_eq!(
            stuck_step(stuck - 1, stuck, false, true, true),
            Stuck::Nothing
        );
        // Stuck, a sample showed the culprit: logged.
        assert_eq!(stuck_step(stuck, stuck, false, true, true), Stuck::Log);
        // Stuck, no NMI answered (a frozen vCPU) or only the idle loop seen: not logged.
        assert_eq!(
            stuck_step(stuck + 500 * ms, stuck, false, false, true),
            Stuck::Unconfirmed
        );
        // A sample comes in later in the same window: logged then.
        assert_eq!(
            stuck_step(stuck + 600 * ms, stuck, false, true, true),
            Stuck::Log
        );
        // Logged already for this window: nothing more.
        assert_eq!(
            stuck_step(stuck + 700 * ms, stuck, true, true, true),
            Stuck::Nothing
        );
        assert_eq!(
            stuck_step(stuck + 700 * ms, stuck, true, false, true),
            Stuck::Nothing
        );
        // NMIs unusable (watch=0 aside: not x86_64, registration failed): logged as it
        // stands, without an in-window stack.
        assert_eq!(stuck_step(stuck, stuck, false, false, false), Stuck::Log);
    }

    /// A CPU whose NMIs come late is asked at most every 2^slow watcher runs, never less
    /// often than every 64th, and a trusted one every run.
    #[test]
    fn late_nmis_space_out_and_recover() {
        assert_eq!(slower(0, 6), 1);
        assert_eq!(slower(6, 6), 6);
        assert!(trusted(1, 0));
        assert!(!trusted(1, 1));
        assert!(trusted(2, 1));
        assert!(!trusted(63, 6));
        assert!(trusted(64, 6));
        assert!(trusted(u32::MAX, 40));
    }

    /// Claim: a claim word of CPU 5 on a window is on that window and not on one 1 ms
    /// later, the zero word is on none and has no owner, and the owner reads back (5, and
    /// 8191 for the largest CPU numbers).
    #[test]
    fn claims_name_window_and_owner() {
        let w = 123_456_789_000;
        let c = claim(w, 5);
        assert!(claim_is_on(c, w));
        assert!(!claim_is_on(c, w + 1_000_000));
        assert!(!claim_is_on(0, w));
        assert_eq!(claim_owner(c), Some(5));
        assert_eq!(claim_owner(0), None);
        assert_eq!(claim_owner(claim(w, 8191)), Some(8191));
    }

    /// Claim: a watcher takes a free claim word, or one on an earlier window, as a first
    /// claim; it keeps its own, leaves another's whose owner came within `stale_ns`, and
    /// takes over, not as a first claim, one whose owner did not come for longer.
    #[test]
    fn one_watcher_per_window() {
        let w = 10_000_000_000;
        assert_eq!(
            claim_step(0, w, 1, 0, 0, 30),
            ClaimStep::Take { first: true }
        );
        // A claim on an earlier window is stale: a new first claim.
        assert_eq!(
            claim_step(claim(w - 20_000_000, 2), w, 1, 0, 0, 30),
            ClaimStep::Take { first: true }
        );
        let c = claim(w, 2);
        assert_eq!(claim_step(c, w, 2, 100, 90, 30), ClaimStep::Mine);
        assert_eq!(claim_step(c, w, 1, 100, 90, 30), ClaimStep::Theirs);
        // Its owner stopped coming: taken over, not announced again.
        assert_eq!(
            claim_step(c, w, 1, 200, 90, 30),
            ClaimStep::Take { first: false }
        );
    }

    /// Claim: `next_sample` samples every period, weight 1, for the first `max` samples,
    /// then at strides doubling every `max / 2` samples, each sample weighing its stride;
    /// over windows of 100 to 100000 periods the weights add up to 70-100% of the periods,
    /// each half of the window gets at least 30% of them, and the samples taken grow only
    /// with the log of the length.
    #[test]
    fn sampling_thins_after_the_cap_and_keeps_weight() {
        assert_eq!(next_sample(0, 0, 64), None);
        assert_eq!(next_sample(0, 1, 64), Some(1));
        assert_eq!(next_sample(63, 1, 64), Some(1));
        assert_eq!(next_sample(64, 1, 64), None);
        assert_eq!(next_sample(64, 2, 64), Some(2));
        assert_eq!(next_sample(96, 3, 64), None);
        assert_eq!(next_sample(96, 4, 64), Some(4));
        assert_eq!(next_sample(1, 1, 1), None);
        assert_eq!(next_sample(1, 2, 1), Some(2));
        // Over long windows: samples grow with the log of the length, the weights add up
        // to the periods sampled, and each half of a window weighs about half.
        for periods in [100u32, 1_000, 100_000] {
            let (mut taken, mut since, mut first, mut second) = (0u32, 0u32, 0u64, 0u64);
            for p in 0..periods {
                since += 1;
                if let Some(w) = next_sample(taken, since, 64) {
                    taken += 1;
                    since = 0;
                    if p < periods / 2 {
                        first += u64::from(w)
                    } else {
                        second += u64::from(w)
                    }
                }
            }
            let total = first + second;
            assert!(
                total <= u64::from(periods) && total * 10 >= u64::from(periods) * 7,
                "{periods}: {total}"
            );
            assert!(
                first * 10 >= total * 3 && second * 10 >= total * 3,
                "{periods}: {first} {second}"
            );
            let bound = 64 + 32 * (32 - (periods / 64).leading_zeros()) + 1;
            assert!(taken <= bound, "{periods}: {taken} > {bound}");
        }
    }

    /// Claim: `by_count` orders indices by count, largest first, ties by lower index ([3,
    /// 9, 9, 1, 7] gives 1, 2, 4, 0, 3), and gives none for no counts.
    #[test]
    fn most_counted_first() {
        let (o, n) = by_count::<8>(&[3, 9, 9, 1, 7]);
        assert_eq!(n, 5);
        assert_eq!(&o[..n], &[1, 2, 4, 0, 3]);
        let (o, n) = by_count::<8>(&[2, 5]);
        assert_eq!((n, &o[..n]), (2, &[1, 0][..]));
        assert_eq!(by_count::<8>(&[]).1, 0);
    }

    /// Claim: `common_suffix` counts the frames two stacks share at the bottom, and
    /// `closest_pair` picks the pair sharing the most, a tie going to the new (last) stack;
    /// stacks sharing no frame give `None`.
    #[test]
    fn full_tables_merge_the_closest_stacks() {
        let stacks: [&[u64]; 4] = [
            &[1, 10, 11, 20, 99],
            &[2, 3, 10, 11, 20, 99],
            &[5, 12, 20, 99],
            &[4, 10, 11, 20, 99],
        ];
        let common = |i: usize, j: usize| {
            let (a, b) = (stacks[i], stacks[j]);
            common_suffix(a.len(), b.len(), |x, y| a[x] == b[y])
        };
        assert_eq!(common(0, 1), 4);
        assert_eq!(common(0, 2), 2);
        // The new stack (3) joins the one it shares most with (a tie with 0-1 goes to it).
        assert_eq!(closest_pair(4, common), Some((0, 3, 4)));
        assert_eq!(closest_pair(3, common), Some((0, 1, 4)));
        let apart: [&[u64]; 2] = [&[1, 2], &[3, 4]];
        assert_eq!(
            closest_pair(2, |i, j| common_suffix(2, 2, |x, y| apart[i][x]
                == apart[j][y])),
            None
        );
    }

    /// Claim: `rings` gives every CPU the same two watched CPUs as `watched` (the next two
    /// online after it, never itself) for every online mask of up to 7 CPUs; `rings_around`
    /// after one CPU's switch sets again every ring that changed, and with every other CPU
    /// of 4096 on, one CPU's switch sets at most 3 rings; and `watched` wraps round the
    /// ring and skips offline CPUs.
    #[test]
    fn rings_of_online_cpus() {
        // All rings at once agree with each CPU's own, for every mask of up to 7 CPUs.
        for nr in 0..=7u32 {
            for mask in 0..(1u32 << nr) {
                let on = |c: u32| mask & (1 << c) != 0;
                let mut n = 0;
                rings(nr, on, |c, ring| {
                    assert_eq!(ring, watched(c, nr, on), "nr={nr} mask={mask:b} cpu={c}");
                    n += 1;
                });
                assert_eq!(n, nr);
            }
        }
        // One CPU switched: every ring that changed is set again, each as `watched` gives
        // it, for every mask of up to 7 CPUs and every CPU switched.
        for nr in 0..=7u32 {
            for mask in 0..(1u32 << nr) {
                for x in 0..nr {
                    let before = |c: u32| (mask ^ (1 << x)) & (1 << c) != 0;
                    let on = |c: u32| mask & (1 << c) != 0;
                    let mut set = [false; 8];
                    rings_around(nr, x, on, |c, ring| {
                        assert_eq!(
                            ring,
                            watched(c, nr, on),
                            "nr={nr} mask={mask:b} x={x} cpu={c}"
                        );
                        set[c as usize] = true;
                    });
                    for c in 0..nr {
                        if watched(c, nr, on) != watched(c, nr, before) {
                            assert!(
                                set[c as usize],
                                "nr={nr} mask={mask:b} x={x}: cpu {c} not set"
                            );
                        }
                    }
                }
            }
        }
        // One CPU's switch walks its neighbourhood, not the ring: with every other CPU of
        // 4096 on, a handful of rings each.
        let nr = 4096;
        for x in [0, 1, 2047, 4095] {
            let mut n = 0;
            rings_around(nr, x, |c| c != x || x % 2 == 0, |_, _| n += 1);
            assert!(n <= 3, "{n} rings set for cpu {x}");
        }
        let all = |_| true;
        assert_eq!(watched(0, 2, all), [Some(1), None]);
        assert_eq!(watched(1, 2, all), [Some(0), None]);
        assert_eq!(watched(63, 64, all), [Some(0), Some(1)]);
        assert_eq!(watched(0, 1, all), [None, None]);
        let some = |c: u32| c != 2 && c != 3;
        assert_eq!(watched(1, 8, some), [Some(4), Some(5)]);
        assert_eq!(watched(0, 3, |c| c != 2), [Some(1), None]);
    }
}
