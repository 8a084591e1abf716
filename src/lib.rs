//! ratedesk: a rating officer's workstation. The library holds everything; `main.rs` only
//! parses the command line and calls [`cli::run`].

pub mod app;
pub mod bench;
pub mod book;
pub mod cli;
pub mod clock;
pub mod cores;
/// The demo federation's generator (`demo/generator.rs`).
#[path = "../demo/generator.rs"]
pub mod demo;
pub mod export;
pub mod federations;
pub mod figures;
pub mod import;
pub mod json;
pub mod ledger;
pub mod model;
pub mod paged;
pub mod rules;
pub mod store;
pub mod ui;
