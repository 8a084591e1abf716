//! What the workstation shows of Finland's rulebook: ratings published after every event, the
//! players' lists in the Finnish alphabet, and a third tab of titles (SSL 6) and the selection
//! numbers.

use super::{Demo, Federation};
use crate::app::titles::TitlesView;
use crate::demo::Params;
use crate::rules::ssl::Ssl;

impl Federation for Ssl {
    fn demo(&self, params: &Params) -> Option<Demo<Self>> {
        Some(crate::demo::generate(params))
    }

    fn alphabet(&self) -> &'static str {
        crate::app::search::FINNISH
    }

    fn third_tab(&self) -> &'static str {
        "Titles"
    }

    fn views(&self) -> &'static [TitlesView] {
        &TitlesView::TITLES
    }

    /// A new selo after every event (each event rated in the order of the ledger), not by
    /// period.
    fn by_period(&self) -> bool {
        false
    }
}
