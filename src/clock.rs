//! The one clock every part of ratedesk reads: today's date (the list in force, the selection
//! date, a confirmation's day), the time of an audit entry, and the local time that names
//! backups and locks. Debug builds let a test set it (`RATEDESK_TEST_NOW=2026-03-01T12:00:00`,
//! local time), or an in-process test its thread's ([`set_for_this_thread`]), so that what
//! depends on the day is tested on a day of its choosing; release builds have no such switch
//! (an audit entry's time is never what the environment says).

use chrono::{NaiveDate, NaiveDateTime};

/// The local date and time now.
pub fn local_now() -> NaiveDateTime {
    #[cfg(debug_assertions)]
    if let Some(set) = set_by_test() {
        return set;
    }
    chrono::Local::now().naive_local()
}

/// Today's date, local.
pub fn today() -> NaiveDate {
    local_now().date()
}

/// Seconds since the Unix epoch (an audit entry's time).
pub fn timestamp() -> i64 {
    #[cfg(debug_assertions)]
    if let Some(set) = set_by_test() {
        return set.and_utc().timestamp();
    }
    chrono::Utc::now().timestamp()
}

#[cfg(debug_assertions)]
thread_local! {
    static SET_HERE: std::cell::Cell<Option<NaiveDateTime>> = const { std::cell::Cell::new(None) };
}

/// Sets the clock of this thread, for a test of a debug build that works in process (the
/// screens' tests): what it draws then does not depend on the day it runs.
#[cfg(debug_assertions)]
pub fn set_for_this_thread(now: NaiveDateTime) {
    SET_HERE.with(|c| c.set(Some(now)));
}

#[cfg(debug_assertions)]
fn set_by_test() -> Option<NaiveDateTime> {
    static SET: std::sync::OnceLock<Option<NaiveDateTime>> = std::sync::OnceLock::new();
    SET_HERE.with(std::cell::Cell::get).or_else(|| {
        *SET.get_or_init(|| {
            std::env::var("RATEDESK_TEST_NOW")
                .ok()
                .and_then(|v| NaiveDateTime::parse_from_str(&v, "%Y-%m-%dT%H:%M:%S").ok())
        })
    })
}
