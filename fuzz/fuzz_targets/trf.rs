//! A TRF file: read, turned into an event and written again, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ratedesk::import::{trf, trf_event};

fuzz_target!(|bytes: &[u8]| {
    let Ok(file) = trf::parse(bytes) else {
        return;
    };
    let start = file.header("042").and_then(trf_event::parse_date);
    let infos: Vec<_> = file
        .players
        .iter()
        .map(|p| trf_event::player_info(p, "fuzz", start))
        .collect();
    let numbers = file
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| (p.start_number, i))
        .collect();
    if let Ok(event) = trf_event::to_event(&file, "fuzz", &numbers, trf_event::parse_base_increment("90+30")) {
        let _ = ratedesk::export::trf::write(&event, &infos);
    }
});
