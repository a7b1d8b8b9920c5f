// SPDX-License-Identifier: GPL-2.0

//! Which events a full record buffer keeps: the N worst since the last clear. Pure logic.

/// What to do with a new event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decision {
    /// Store it in this free slot.
    Insert(usize),
    /// Overwrite this slot, whose event is the least bad kept and less bad than the new one.
    Replace(usize),
    /// Keep the buffer as it is: every kept event is at least as bad.
    Drop,
}

/// Decides for a new event of `latency`, given the latencies of the `used` slots.
pub(crate) fn decide(kept: &[u64], capacity: usize, latency: u64) -> Decision {
    if kept.len() < capacity {
        return Decision::Insert(kept.len());
    }
    let mut min_i = 0;
    for (i, &l) in kept.iter().enumerate() {
        if l < kept[min_i] {
            min_i = i;
        }
    }
    match kept.get(min_i) {
        Some(&min) if min < latency => Decision::Replace(min_i),
        _ => Decision::Drop,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claim: `decide` inserts into the next free slot until the buffer is full, then
    /// replaces the least bad kept event only for a strictly worse one and drops one no
    /// worse; a buffer of capacity 0 drops everything.
    #[test]
    fn fills_then_keeps_the_worst() {
        assert_eq!(decide(&[], 2, 5), Decision::Insert(0));
        assert_eq!(decide(&[5], 2, 1), Decision::Insert(1));
        assert_eq!(decide(&[5, 1], 2, 3), Decision::Replace(1));
        assert_eq!(decide(&[5, 3], 2, 3), Decision::Drop);
        assert_eq!(decide(&[5, 3], 2, 2), Decision::Drop);
        assert_eq!(decide(&[], 0, 2), Decision::Drop);
    }

    /// Claim: a stream of ten latencies fed through `decide` into a buffer of four keeps
    /// exactly the four largest (8, 9, 11, 12).
    #[test]
    fn simulated_stream_keeps_n_largest() {
        let n = 4;
        let mut kept: [u64; 4] = [0; 4];
        let mut used = 0;
        let stream = [7u64, 3, 9, 1, 12, 5, 8, 2, 11, 4];
        for &l in &stream {
            match decide(&kept[..used], n, l) {
                Decision::Insert(i) => {
                    kept[i] = l;
                    used += 1;
                }
                Decision::Replace(i) => kept[i] = l,
                Decision::Drop => {}
            }
        }
        let mut got = kept;
        got.sort_unstable();
        assert_eq!(got, [8, 9, 11, 12]);
    }
}
