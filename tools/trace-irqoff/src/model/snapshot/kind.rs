// SPDX-License-Identifier: GPL-2.0
//! The kinds of window the module measures, why softirqs could not run, and which sampler
//! ended a window: the module's own types (`logic::grammar::KindName`,
//! `logic::cause::Cause`, `logic::grammar::EndedBy`, each declared once with its names in
//! the files), which `tio-logic` gives their JSON and command-line forms by those names.
//! What only the CLI says of them is here.

pub use tio_logic::grammar::{Cause, EndedBy, KindName as Kind};

/// What only the CLI says of a kind.
pub trait KindLabel {
    /// The kind in the CLI's words: `hardirq-off` or `softirq-off`.
    fn label(self) -> &'static str;
}

impl KindLabel for Kind {
    fn label(self) -> &'static str {
        match self {
            Kind::Hard => "hardirq-off",
            Kind::Soft => "softirq-off",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claim: the JSON names every kind, cause and ending sampler as the module's files do
    /// (its `NAMES`), and reads each back from that name; an unknown name is refused.
    #[test]
    fn json_names_are_the_modules() {
        for (k, name) in Kind::ALL.into_iter().zip(Kind::NAMES) {
            assert_eq!(serde_json::to_string(&k).unwrap(), format!("\"{name}\""));
            assert_eq!(
                serde_json::from_str::<Kind>(&format!("\"{name}\"")).unwrap(),
                k
            );
        }
        for (c, name) in Cause::ALL.into_iter().zip(Cause::NAMES) {
            assert_eq!(serde_json::to_string(&c).unwrap(), format!("\"{name}\""));
            assert_eq!(
                serde_json::from_str::<Cause>(&format!("\"{name}\"")).unwrap(),
                c
            );
        }
        assert_eq!(
            serde_json::to_string(&[Kind::Hard, Kind::Soft]).unwrap(),
            r#"["hard","soft"]"#
        );
        assert_eq!(
            serde_json::to_string(&[Cause::BhOff, Cause::KsoftirqdWait]).unwrap(),
            r#"["bh-off","ksoftirqd-wait"]"#
        );
        for (e, name) in EndedBy::ALL.into_iter().zip(EndedBy::NAMES) {
            assert_eq!(serde_json::to_string(&e).unwrap(), format!("\"{name}\""));
            assert_eq!(
                serde_json::from_str::<EndedBy>(&format!("\"{name}\"")).unwrap(),
                e
            );
        }
        assert_eq!(
            serde_json::to_string(&EndedBy::ALL).unwrap(),
            r#"["hrtimer","probe","timer"]"#
        );
        assert!(serde_json::from_str::<EndedBy>("\"timer_list\"").is_err());
        assert!(serde_json::from_str::<Kind>("\"Hard\"").is_err());
        assert!(serde_json::from_str::<Cause>("\"bh_off\"").is_err());
    }

    /// Claim: `--kind` takes the module's names of the kinds, each with its doc comment as
    /// help, as the CLI's own enum gave them.
    #[test]
    fn kind_values_are_the_modules_names() {
        use clap::ValueEnum;
        let values: Vec<_> = Kind::value_variants()
            .iter()
            .filter_map(|k| k.to_possible_value())
            .map(|v| {
                (
                    v.get_name().to_string(),
                    v.get_help().map(|h| h.to_string()),
                )
            })
            .collect();
        assert_eq!(
            values,
            [
                ("hard".into(), Some("Hard interrupts were off".into())),
                ("soft".into(), Some("Softirqs could not run".into())),
            ]
        );
        assert_eq!(Kind::from_str("soft", false), Ok(Kind::Soft));
    }
}
