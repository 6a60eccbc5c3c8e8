//! Where to retry, shared by `simulate` and `sweep`: `--layers L` puts a chain of `L`
//! services between the clients and the servers (the servers are its last layer), and
//! `--retry-at every|top` says whether every layer retries or only the clients.
//!
//! Both are optional and, left out, the core's defaults hold (one layer, `every`); knowing
//! which were given lets `aws-occ`, which models no chain, refuse them rather than ignore
//! them.

use clap::Args as ClapArgs;
use stampede::Field;
use stampede::sim::{MAX_LAYERS, RetryAt, SimSettings};
use stampede_cli::args::{flag_for, whole};

use crate::model_flags::{or_list, parse_name, with_default};

const LAYERS: &str = "Layers";

/// The chain's flags. `None`: not given, the core's default.
#[derive(ClapArgs, Debug, Clone, Default)]
pub struct LayerFlags {
    #[arg(long, value_name = "L", value_parser = whole(Field::Layers), allow_hyphen_values = true,
          help_heading = LAYERS,
          help = with_default(format!("Services in the chain each request goes through, 1 to {MAX_LAYERS}; \
                                       the last is the servers, the others pass calls on"),
                              SimSettings::default().layers))]
    layers: Option<u32>,
    #[arg(long, value_name = "WHERE", value_parser = parse_name::<RetryAt>, help_heading = LAYERS,
          help = with_default(format!("Which layers retry: {}; every multiplies attempts at the bottom \
                                       (attempts^layers), top keeps them at the clients' attempts",
                                      or_list(RetryAt::NAMES)),
                              SimSettings::default().retry_at))]
    retry_at: Option<RetryAt>,
}

impl LayerFlags {
    /// `base` with every given flag applied.
    pub fn apply(&self, base: SimSettings) -> SimSettings {
        SimSettings {
            layers: self.layers.unwrap_or(base.layers),
            retry_at: self.retry_at.unwrap_or(base.retry_at),
            ..base
        }
    }

    /// A note when `--retry-at` is given to a single service (`--layers` 1, the default):
    /// there is no chain whose layers could retry.
    pub fn moot_note(&self) -> Option<String> {
        let single = self.layers.unwrap_or(SimSettings::default().layers) == 1;
        (self.retry_at.is_some() && single).then(|| {
            "note: --retry-at is not read with one layer (--layers 1), with no chain to retry \
             in: it changes nothing"
                .to_owned()
        })
    }

    /// The first flag given, in the order `--help` lists them; `None` if none was.
    pub fn first_given(&self) -> Option<&'static str> {
        let given = [
            (self.layers.is_some(), Field::Layers),
            (self.retry_at.is_some(), Field::RetryAt),
        ];
        given.iter().find(|(g, _)| *g).map(|&(_, f)| flag_for(f))
    }

    /// `3 layers, retrying at every layer`, for the text output; `None` with one layer.
    pub fn describe(s: &SimSettings) -> Option<String> {
        (s.layers > 1).then(|| {
            let at = match s.retry_at {
                RetryAt::Top => "only the clients retrying",
                _ => "every layer retrying",
            };
            format!("{} layers, {at}", s.layers)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_given_is_the_cores_default_and_each_flag_is_named() {
        let none = LayerFlags::default();
        assert_eq!(none.apply(SimSettings::default()), SimSettings::default());
        assert_eq!(none.first_given(), None);
        let top = LayerFlags {
            retry_at: Some(RetryAt::Top),
            ..LayerFlags::default()
        };
        assert_eq!(top.first_given(), Some("--retry-at"));
        let both = LayerFlags {
            layers: Some(3),
            ..top
        };
        assert_eq!(both.first_given(), Some("--layers"));
        let s = both.apply(SimSettings::default());
        assert_eq!((s.layers, s.retry_at), (3, RetryAt::Top));
        assert_eq!(
            LayerFlags::describe(&s).as_deref(),
            Some("3 layers, only the clients retrying")
        );
        assert_eq!(LayerFlags::describe(&SimSettings::default()), None);
    }
}
