//! What the application needs of a federation's rulebook beyond rating and JSON: one bound,
//! [`Federation`], for everything the workstation, the command line and the files do, so that
//! each use-case is written once for every rulebook.

use crate::book::Book;
use crate::demo::Params;
use crate::json::JsonRules;
use crate::rules::isl::Isl;
use crate::rules::ssl::Ssl;
use crate::rules::tsf::Tsf;

/// A federation the application serves: its rulebook, read and written as JSON, with what its
/// screens and files show of it.
pub trait Federation: JsonRules + 'static {
    /// The demo federation of this rulebook — its players and events, and the events of each
    /// year as ranges of event ids — or `None` when the rulebook has none.
    fn demo(&self, params: &Params) -> Option<Demo<Self>>;
}

/// A demo federation's book and the event ids of each of its years.
pub type Demo<R> = (Book<R>, Vec<std::ops::Range<usize>>);

impl Federation for Ssl {
    fn demo(&self, params: &Params) -> Option<Demo<Self>> {
        Some(crate::demo::generate(params))
    }
}

impl Federation for Isl {
    fn demo(&self, params: &Params) -> Option<Demo<Self>> {
        Some(crate::demo::generate_iceland(params))
    }
}

impl Federation for Tsf {
    fn demo(&self, params: &Params) -> Option<Demo<Self>> {
        Some(crate::demo::generate_turkey(params))
    }
}
