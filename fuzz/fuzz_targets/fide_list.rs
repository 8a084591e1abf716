//! A FIDE rating list, TXT or XML, as any of the three lists: read or refused, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ratedesk::import::fide_list::{Kind, read_all};

fuzz_target!(|bytes: &[u8]| {
    let _ = read_all(bytes, None);
    let _ = read_all(bytes, Some(Kind::Rapid));
});
