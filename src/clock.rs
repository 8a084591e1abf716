//! The one clock every part of ratedesk reads: today's date (the list in force, the selection
//! date, a confirmation's day), the time of an audit entry, and the local time that names
//! backups and locks. Debug builds let a test set it (`RATEDESK_TEST_NOW=2026-03-01T12:00:00`,
//! local time) so that what depends on the day is tested on a day of its choosing; release
//! builds have no such switch (an audit entry's time is never what the environment says).

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
fn set_by_test() -> Option<NaiveDateTime> {
    static SET: std::sync::OnceLock<Option<NaiveDateTime>> = std::sync::OnceLock::new();
    *SET.get_or_init(|| {
        std::env::var("RATEDESK_TEST_NOW")
            .ok()
            .and_then(|v| NaiveDateTime::parse_from_str(&v, "%Y-%m-%dT%H:%M:%S").ok())
    })
}
