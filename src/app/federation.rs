//! What the application needs of a federation's rulebook beyond rating and JSON: one bound,
//! [`Federation`], for everything the workstation, the command line and the files do, so that
//! each use-case is written once for every rulebook.

use crate::json::JsonRules;
use crate::rules::isl::Isl;
use crate::rules::ssl::Ssl;
use crate::rules::tsf::Tsf;

/// A federation the application serves: its rulebook, read and written as JSON, with what its
/// screens and files show of it.
pub trait Federation: JsonRules + 'static {}

impl Federation for Ssl {}
impl Federation for Isl {}
impl Federation for Tsf {}
