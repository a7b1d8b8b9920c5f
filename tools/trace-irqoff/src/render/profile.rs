// SPDX-License-Identifier: GPL-2.0
//! A window's in-window profile as every view shows it: the stacks the module sampled
//! while the window was open, with those of one loop merged (stacks whose functions are
//! the same once the mechanism frames at their leaf are set aside: a clock read, lock
//! debugging, a delay, where a sample happened to land inside the same code), most-seen
//! first, each with its share of the window's sampled periods. `records`, `watch
//! --stacks` and the report's window details all take their shares from [`Shares`], so
//! one window has one profile wherever it is read.

use crate::model::snapshot::{Profile, ProfileStack};
use crate::symbols::function;

/// A profile's stacks as shown, and what they leave out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shares {
    /// The window's sampled periods: what every share is of.
    pub weight: u64,
    /// The stacks, those of one loop merged into its most-seen member; most-seen first.
    pub stacks: Vec<ProfileStack>,
    /// Weight and number of the stacks the module did not keep (beyond its table).
    unkept_weight: u64,
    unkept_stacks: u64,
}

impl Shares {
    /// The shares of `p`.
    pub fn of(p: &Profile) -> Self {
        let mut out: Vec<(Vec<&str>, ProfileStack)> = Vec::new();
        for st in &p.stacks {
            let k = loop_key(&st.frames);
            match out.iter_mut().find(|(ok, _)| *ok == k) {
                Some((_, merged)) => merged.count += st.count,
                None => out.push((k, st.clone())),
            }
        }
        let mut stacks: Vec<ProfileStack> = out.into_iter().map(|(_, st)| st).collect();
        // Stable: equal counts keep the module's order.
        stacks.sort_by_key(|s| std::cmp::Reverse(s.count));
        Self {
            weight: p.weight,
            stacks,
            unkept_weight: p.unkept(),
            unkept_stacks: p.distinct.saturating_sub(p.stacks.len() as u64),
        }
    }

    /// The share of `count` periods in the window, in whole per cent ("-" without
    /// weight).
    pub fn percent(&self, count: u64) -> String {
        share(count, self.weight)
    }

    /// What is not among the first `shown` stacks: its weight in periods (with the
    /// stacks the module did not keep) and how many stacks that is.
    pub fn rest(&self, shown: usize) -> (u64, u64) {
        let hidden = &self.stacks[self.stacks.len().min(shown)..];
        (
            hidden.iter().map(|s| s.count).sum::<u64>() + self.unkept_weight,
            hidden.len() as u64 + self.unkept_stacks,
        )
    }
}

/// A stack's functions without the mechanism frames at its leaf (all of them when it is
/// nothing but mechanism): what one loop's samples have in common.
fn loop_key(frames: &[String]) -> Vec<&str> {
    let names: Vec<&str> = frames.iter().map(|f| function(f)).collect();
    let leaf = names
        .iter()
        .take_while(|f| crate::enrich::mechanism::is_mechanism(f))
        .count();
    names[if leaf == names.len() { 0 } else { leaf }..].to_vec()
}

/// `part` of `whole` in whole percent, rounded ("45%"); "-" of nothing.
pub fn share(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "-".into();
    }
    format!("{}%", (part.saturating_mul(100) + whole / 2) / whole)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn st(count: u64, frames: &[&str]) -> ProfileStack {
        ProfileStack {
            count,
            frames: frames.iter().map(|f| f.to_string()).collect(),
        }
    }

    /// The window: a 2.99 s spin of 288 sampled periods, 284 of them in one loop
    /// whose samples landed in three leaves (a clock read, a delay, the loop itself), 4
    /// elsewhere.
    pub(crate) fn one_loop() -> Profile {
        let code = ["spin_here+0x10/0x40 [drv]", "drv_ioctl+0x55/0x90 [drv]"];
        Profile {
            samples: 288,
            weight: 288,
            distinct: 5,
            other: 0,
            stacks: vec![
                st(167, &["ktime_get+0xb/0xc", code[0], code[1]]),
                st(58, &["__const_udelay+0x1/0x2", code[0], code[1]]),
                st(59, &code),
                st(4, &["other_code+0x1/0x2 [drv]", code[1]]),
            ],
        }
    }

    /// Claim: one loop sampled under lockdep, whose samples land in six different lock
    /// debugging leaves above the same code, is one stack of the profile; other code stays
    /// apart, and the most-seen member is what is shown.
    #[test]
    fn one_loop_is_one_stack_whatever_its_leaves() {
        let code = ["spin_here+0x10/0x40 [drv]", "drv_ioctl+0x55/0x90 [drv]"];
        // Most-seen first, as the module keeps them.
        let mut stacks = vec![st(40, &["other_code+0x1/0x2 [drv]", code[1]])];
        for (i, leaf) in [
            "lock_acquire+0x1/0x2",
            "lock_release+0x3/0x4",
            "__lock_acquire+0x5/0x6",
            "mark_lock+0x7/0x8",
            "lock_is_held_type+0x9/0xa",
            "ktime_get+0xb/0xc",
        ]
        .iter()
        .enumerate()
        {
            stacks.push(st(15 - i as u64, &[leaf, code[0], code[1]]));
        }
        let p = Profile {
            samples: 115,
            weight: 115,
            distinct: 7,
            other: 0,
            stacks,
        };
        let m = Shares::of(&p).stacks;
        assert_eq!(m.len(), 2, "{m:?}");
        assert_eq!(
            (m[0].count, m[0].frames[0].as_str()),
            (15 + 14 + 13 + 12 + 11 + 10, "lock_acquire+0x1/0x2")
        );
        assert_eq!(
            (m[1].count, m[1].frames[0].as_str()),
            (40, "other_code+0x1/0x2 [drv]")
        );
    }

    /// Claim: the loop's share is 99% (284 of 288), the rest 1%, and what is left beyond
    /// the stacks shown counts the stacks the module did not keep.
    #[test]
    fn shares_of_one_loop() {
        let s = Shares::of(&one_loop());
        assert_eq!(s.stacks.len(), 2);
        assert_eq!(
            (s.stacks[0].count, s.percent(s.stacks[0].count)),
            (284, "99%".into())
        );
        // The other stack's 4 periods; it, and the one stack the module did not keep
        // (5 distinct, 4 kept, no weight left over).
        assert_eq!(s.rest(1), (4, 2));
        assert_eq!(s.rest(2), (0, 1));
    }
}
