//! The integration tests, one binary: each module is a file of its own (the README's Tests
//! section says what each holds). One binary links the crate once instead of once a file.

mod common;
mod screen;

mod audit_log;
mod boundaries;
mod chaining;
mod cli;
mod clubs;
mod copies;
mod database;
mod exports;
mod fide_lists;
mod hostile_input;
mod ledger_invariant;
mod ledger_isl;
mod ledger_tsf;
mod ledger_tsf_mixed;
mod migration;
mod playoffs;
mod receipt;
mod reentry;
mod registry;
mod reliability;
mod security;
mod serving;
mod terminal;
mod trf_files;
mod tui;
mod tui_card;
mod tui_focus;
mod tui_opening;
mod tui_rulebooks;
mod tui_tables;
