//! The one registry of the rulebooks a database can keep: a stored rulebook code turned into a
//! call of a generic function ([`with_federation`] with a [`WithFederation`]), one line per
//! rulebook. Adding a rulebook to the databases is one line here.

use super::Federation;
use crate::rules::isl::Isl;
use crate::rules::ssl::Ssl;
use crate::rules::tsf::Tsf;

/// A use of the database that works for every rulebook: the registry calls [`Self::with`] with
/// the rulebook a code names.
pub trait WithFederation {
    type Output;
    fn with<R: Federation>(self, rulebook: R) -> Self::Output;
}

/// A rulebook code no database can keep.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown rulebook '{code}' ({known})", code = .0, known = CODES.join(", "))]
pub struct UnknownRulebook(pub String);

/// The rulebook of a database made without choosing one, and of the demo without `--rules`.
pub const DEFAULT: &str = "ssl";

/// The rulebooks a database can keep, one line each: calls `use_` with the one `code` names.
pub fn with_federation<W: WithFederation>(
    code: &str,
    use_: W,
) -> Result<W::Output, UnknownRulebook> {
    match code {
        "ssl" => Ok(use_.with(Ssl)),
        "isl" => Ok(use_.with(Isl)),
        "tsf" => Ok(use_.with(Tsf)),
        other => Err(UnknownRulebook(other.into())),
    }
}

/// The codes [`with_federation`] knows, for messages and argument checks.
pub const CODES: [&str; 3] = ["ssl", "isl", "tsf"];

#[cfg(test)]
mod tests {
    use super::*;

    struct Code;
    impl WithFederation for Code {
        type Output = (&'static str, &'static str);
        fn with<R: Federation>(self, rulebook: R) -> Self::Output {
            (rulebook.code(), rulebook.home_federation())
        }
    }

    #[test]
    fn the_registry_knows_every_code_once() {
        let found: Vec<_> = CODES
            .iter()
            .map(|c| with_federation(c, Code).expect("known"))
            .collect();
        assert_eq!(found, [("ssl", "FIN"), ("isl", "ISL"), ("tsf", "TUR")]);
        assert_eq!(
            with_federation("xyz", Code),
            Err(UnknownRulebook("xyz".into()))
        );
    }
}
