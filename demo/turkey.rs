//! Turkey's demo federation: players named in Turkish, with a UKD on the standard list for
//! about half of them, fewer on rapid and blitz, and unrated players with performances already
//! archived towards their first UKD; and the events Turkey plays at all three tempos — Swiss
//! opens in the cities, round robins (the national championship, closed rapid and blitz
//! events), junior championships full of unrated players, foreign guests rated by their FIDE
//! rating — whose results reach the federation days or weeks after the end: some after the
//! 25th, so that they are rated in the next month.

use chrono::Days;

use super::play::{
    Play, ages, date, date_rounds, event as new_event, first_name, person, push_event, push_player,
    tc,
};
use super::{Generated, Params, Rng, opens_per_year};
use crate::book::Book;
use crate::model::{Event, FideEntry, PlayerIdx, PlayerInfo, Sex};
use crate::rules::tsf::{Archived, Tsf, TsfState};

const FIRST_M: [&str; 30] = [
    "Mehmet", "Ahmet", "Mustafa", "Emre", "Burak", "Barış", "Çağrı", "Doğan", "Ömer", "Ümit",
    "İlker", "Yiğit", "Oğuz", "Şahin", "Kaan", "Onur", "Serkan", "Tolga", "Ilgaz", "Eren", "Uğur",
    "Hakan", "Cem", "Gökhan", "Alp", "Efe", "Can", "Arda", "Kerem", "Mert",
];
const FIRST_F: [&str; 20] = [
    "Ayşe", "Fatma", "Zeynep", "Elif", "Şule", "Gülşen", "Işıl", "Özge", "Tuğba", "Büşra", "Ekin",
    "Ceren", "Damla", "Dilek", "İrem", "Sıla", "Çiğdem", "Gökçe", "Nur", "Eylül",
];
const LAST: [&str; 40] = [
    "Yılmaz",
    "Kaya",
    "Demir",
    "Şahin",
    "Çelik",
    "Yıldız",
    "Yıldırım",
    "Öztürk",
    "Aydın",
    "Özdemir",
    "Arslan",
    "Doğan",
    "Kılıç",
    "Aslan",
    "Çetin",
    "Kara",
    "Koç",
    "Kurt",
    "Özkan",
    "Şimşek",
    "Polat",
    "Korkmaz",
    "Karataş",
    "Erdem",
    "Güneş",
    "Akgül",
    "Işık",
    "Ağaoğlu",
    "Çakır",
    "Uğurlu",
    "Bulut",
    "Türkmen",
    "Gök",
    "Ünal",
    "Tekin",
    "Keskin",
    "Aksoy",
    "Sarıgül",
    "Coşkun",
    "İnce",
];
const CITIES: [&str; 16] = [
    "İstanbul",
    "Ankara",
    "İzmir",
    "Antalya",
    "Bursa",
    "Eskişehir",
    "Kocaeli",
    "Konya",
    "Trabzon",
    "Muğla",
    "Çanakkale",
    "Gaziantep",
    "Diyarbakır",
    "Samsun",
    "Kayseri",
    "Edirne",
];
/// Players' clubs.
const CLUBS: [&str; 12] = [
    "Beşiktaş",
    "Galatasaray",
    "Fenerbahçe",
    "Ankara Demirspor",
    "İzmir BB",
    "Bursa Osmangazi",
    "Antalya Muratpaşa",
    "Eskişehir Tepebaşı",
    "Kocaeli Kartepe",
    "Konya Selçuklu",
    "Trabzon Ortahisar",
    "Çankaya",
];
const FOREIGN: [(&str, &str); 8] = [
    ("AZE", "Mammadov, Rauf"),
    ("GEO", "Beridze, Levan"),
    ("IRI", "Tabatabaei, Amir"),
    ("UKR", "Kovalenko, Oleksii"),
    ("BUL", "Georgiev, Nikolay"),
    ("GRE", "Papadopoulos, Nikos"),
    ("ARM", "Petrosyan, Arman"),
    ("SRB", "Marković, Stefan"),
];

/// The tempos: (list name in event names, minutes, increment seconds, rounds).
const STANDARD: (&str, u32, u32) = ("Açık", 90, 30);
const RAPID: (&str, u32, u32) = ("Hızlı", 15, 10);
const BLITZ: (&str, u32, u32) = ("Yıldırım", 3, 2);

struct Generator {
    play: Play,
    book: Book<Tsf>,
    turks: Vec<PlayerIdx>,
    foreign: Vec<PlayerIdx>,
}

impl Generator {
    fn new(p: &Params) -> Self {
        let mut g = Self {
            play: Play::seeded(p.seed, 0xD1B5_4A32_D192_ED03),
            book: Book::default(),
            turks: Vec::new(),
            foreign: Vec::new(),
        };
        let first_year = p.last_year - p.years as i32 + 1;
        for k in 0..p.players {
            let rng = &mut g.play.rng;
            let (female, first) = first_name(rng, 4, &FIRST_F, &FIRST_M);
            let last = LAST[rng.below(LAST.len())];
            let (age, born, strength) = person(rng, first_year);
            let fide_id = (strength > 1800.0 && rng.below(3) > 0).then(|| 6_300_000 + k as u64);
            let info = PlayerInfo {
                reentries: Vec::new(),
                id: format!("TUR{:06}", 100_000 + k),
                name: format!("{last}, {first}"),
                federation: None,
                // Not drawn from the generator, so every other draw stays as it was.
                club: Some(CLUBS[(k * 7 + k / CLUBS.len()) % CLUBS.len()].into()),
                fide_id,
                born: Some(born),
                sex: Some(if female { Sex::Female } else { Sex::Male }),
                fide: Vec::new(),
                national: Vec::new(),
            };
            let ukd = strength.round().clamp(1000.0, 2600.0) as i32;
            let standard = if rng.below(2) == 0 && age > 10 {
                Some(TsfState::Rated {
                    rating: ukd,
                    games: 10 + rng.below(300) as u32,
                })
            } else {
                archive(rng, strength)
            };
            // Fewer have a rapid or blitz UKD; a standard UKD counts in a first rapid or blitz
            // event (B.1.l–m).
            let quick = |rng: &mut Rng, one_in: usize, offset: i32| {
                (standard.is_some() && rng.below(one_in) == 0).then(|| TsfState::Rated {
                    rating: (ukd + offset).max(1000),
                    games: 5 + rng.below(100) as u32,
                })
            };
            let rapid = quick(rng, 3, -20);
            let blitz = quick(rng, 4, -40);
            let idx = push_player(
                &mut g.book,
                &mut g.play,
                info,
                vec![standard, rapid, blitz],
                strength,
            );
            g.turks.push(idx);
        }
        // Foreign guests count with their FIDE rating of the event's tempo (B.1.d).
        for (k, (fed, name)) in FOREIGN.iter().enumerate() {
            let elo = 2200 + 50 * k as i32;
            let fide = (0..p.years)
                .map(|y| FideEntry {
                    list_date: date(first_year + y as i32, 1, 1),
                    standard: Some(elo + 4 * y as i32),
                    rapid: Some(elo - 30),
                    blitz: Some(elo - 60),
                })
                .collect();
            let info = PlayerInfo {
                id: format!("{fed}{}", 100 + k),
                name: (*name).into(),
                federation: Some((*fed).into()),
                fide_id: Some(13_000_000 + k as u64),
                fide,
                ..PlayerInfo::default()
            };
            let idx = push_player(
                &mut g.book,
                &mut g.play,
                info,
                vec![None, None, None],
                f64::from(elo),
            );
            g.foreign.push(idx);
        }
        g
    }

    /// A Swiss open at a tempo, its results received `delay` days after the end.
    #[allow(clippy::too_many_arguments)]
    fn open(
        &mut self,
        id: String,
        name: String,
        start: chrono::NaiveDate,
        days: u64,
        tempo: (&str, u32, u32),
        pool: &[PlayerIdx],
        size: usize,
        rounds: u32,
    ) -> Event {
        let field = self.play.field(pool, size);
        let mut event = new_event(id, name, start, days, tc(tempo.1, tempo.2));
        self.play.swiss(&mut event, field, rounds);
        date_rounds(&mut event);
        event
    }

    /// When the results reach the federation: mostly within ten days of the end, one event in
    /// five weeks later (past the 25th more often than not: rated a month later).
    fn receive(&mut self, event: &mut Event) {
        let delay = if self.play.rng.below(5) == 0 {
            20 + self.play.rng.below(30)
        } else {
            self.play.rng.below(10)
        };
        event.received = Some(event.end + Days::new(delay as u64));
    }

    fn year(&mut self, year: i32, opens: usize) {
        let age = ages(&self.book, year);
        let turks = self.turks.clone();
        let adults: Vec<PlayerIdx> = turks.iter().copied().filter(|&p| age[p] >= 14).collect();
        let juniors: Vec<PlayerIdx> = turks.iter().copied().filter(|&p| age[p] <= 16).collect();
        let standard = (opens / 2).max(1);
        let quick = (opens / 4).max(1);
        // Standard Swiss opens through the year, seven rounds over three days.
        for k in 0..standard {
            let start = date(year, 1, 6) + Days::new((k as u64 * 340) / standard as u64);
            let city = CITIES[k % CITIES.len()];
            let size = 30 + self.play.rng.below(40);
            let mut pool = adults.clone();
            if k % CITIES.len() == 0 {
                pool.extend(self.foreign.iter().copied());
            }
            let mut event = self.open(
                format!("{year}-open-{k:03}"),
                format!("{city} {} Turnuvası {year}", STANDARD.0),
                start,
                2,
                STANDARD,
                &pool,
                size,
                7,
            );
            self.receive(&mut event);
            push_event(&mut self.book, event);
        }
        // Rapid and blitz opens, one day each.
        for (tempo, label, rounds) in [(RAPID, "rapid", 9), (BLITZ, "blitz", 11)] {
            for k in 0..quick {
                let start = date(year, 1, 20) + Days::new((k as u64 * 330) / quick as u64);
                let city = CITIES[(k + 5) % CITIES.len()];
                let size = 24 + self.play.rng.below(40);
                let mut event = self.open(
                    format!("{year}-{label}-{k:03}"),
                    format!("{city} {} Satranç Turnuvası {year}", tempo.0),
                    start,
                    0,
                    tempo,
                    &turks,
                    size,
                    rounds,
                );
                self.receive(&mut event);
                push_event(&mut self.book, event);
            }
        }
        // Round robins: the championship (standard, one round a day) and closed rapid and
        // blitz events of the strongest.
        let mut strongest = adults.clone();
        strongest.sort_by(|a, b| self.play.strength[*b].total_cmp(&self.play.strength[*a]));
        for (k, (tempo, name, month, days)) in [
            (STANDARD, "Türkiye Şampiyonası", 11u32, 9u64),
            (RAPID, "Türkiye Hızlı Satranç Şampiyonası", 6, 1),
            (BLITZ, "Türkiye Yıldırım Satranç Şampiyonası", 6, 0),
        ]
        .into_iter()
        .enumerate()
        {
            let field: Vec<PlayerIdx> = strongest.iter().copied().skip(k * 3).take(10).collect();
            let mut event = new_event(
                format!("{year}-championship-{k}"),
                format!("{name} {year}"),
                date(year, month, 3 + 4 * k as u32),
                days,
                tc(tempo.1, tempo.2),
            );
            self.play.round_robin(&mut event, field);
            date_rounds(&mut event);
            self.receive(&mut event);
            push_event(&mut self.book, event);
        }
        // Junior championships: unrated players archive their performances here.
        if juniors.len() >= 10 {
            for (k, (limit, month)) in [(12u32, 4u32), (16, 8)].into_iter().enumerate() {
                let young: Vec<PlayerIdx> = juniors
                    .iter()
                    .copied()
                    .filter(|&p| age[p] <= limit as i32)
                    .collect();
                if young.len() < 8 {
                    continue;
                }
                let size = 20 + self.play.rng.below(30);
                let mut event = self.open(
                    format!("{year}-juniors-{k}"),
                    format!("Türkiye {limit} Yaş Altı Şampiyonası {year}"),
                    date(year, month, 10),
                    3,
                    STANDARD,
                    &young,
                    size,
                    7,
                );
                self.receive(&mut event);
                push_event(&mut self.book, event);
            }
        }
        self.play.drift(|p| age[p]);
    }
}

/// An unrated player's archive (fewer than seven games), or nothing, by a draw.
fn archive(rng: &mut Rng, strength: f64) -> Option<TsfState> {
    (rng.below(3) == 0).then(|| {
        let games = 1 + rng.below(6) as u32;
        let performance = (strength.round() as i32 - 150 + rng.below(300) as i32).max(700);
        TsfState::Unrated {
            performances: vec![Archived {
                performance,
                games,
                event: None,
            }]
            .into(),
        }
    })
}

/// Generates a Turkish federation. The events come in year order; the ranges give, per year,
/// the events of that year (so a caller can write them as one edit a year).
pub fn generate(p: &Params) -> Generated<Tsf> {
    let mut g = Generator::new(p);
    let opens = opens_per_year(p);
    let mut years = Vec::new();
    for year in (p.last_year - p.years as i32 + 1)..=p.last_year {
        let from = g.book.events.len();
        g.year(year, opens);
        years.push(from..g.book.events.len());
    }
    (g.book, years)
}
