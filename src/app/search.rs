//! Finding players as the officer types: fuzzy matching over names, ids, FIDE ids and clubs.
//! The matcher folds only ASCII case, so every key is folded once (`Järvinen` → `jarvinen`)
//! and queries are folded the same way; the original names are what the screen shows. Each
//! word of a query is matched on its own, so names match in either order (`eero mäk` finds
//! `Mäkelä, Eero`) and a club narrows a shared name (`mäkelä eero hsk`); a query that is
//! exactly a player's id (with or without its letters) or FIDE id puts him first. Every match
//! is returned; the screen draws only what it shows. Over many matches (the first letters
//! typed over a federation of a million) the matcher's score would take too long: they are
//! ranked plainly ([`plain_score`]), equals in the list's order. With no query, players come in the order
//! of the federation's alphabet ([`collation_key`]).

use std::cmp::Reverse;

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

use serde::{Deserialize, Serialize};

use crate::cores::{map_on_cores, threads};
use crate::model::{NameOrder, PlayerIdx, PlayerInfo, fold_name, fold_name_into};

/// A name's place in a list sorted by `alphabet` (lowercase letters in their order): each
/// letter by its position; a letter outside it (é in Finnish) as its folded letters; what is no
/// letter (space, comma, hyphen) before every letter, so that `Mäkelä, Eero` comes before
/// `Mäkeläinen, Aino`. In an alphabet with dotless ı, capital I is ı and İ is i.
pub fn collation_key(name: &str, alphabet: &str) -> Vec<u32> {
    Collation::new(alphabet).key(name)
}

/// An alphabet's order, looked up by letter ([`collation_key`]).
struct Collation {
    turkish: bool,
    /// Places of the ASCII letters (0: not in the alphabet).
    ascii: [u32; 128],
    /// Places of the other letters.
    other: Vec<(char, u32)>,
}

impl Collation {
    fn new(alphabet: &str) -> Self {
        let mut ascii = [0; 128];
        let mut other = Vec::new();
        for (i, c) in alphabet.chars().enumerate() {
            let place = i as u32 + 1;
            match usize::try_from(u32::from(c)) {
                Ok(a) if a < ascii.len() => ascii[a] = place,
                _ => other.push((c, place)),
            }
        }
        Self {
            turkish: alphabet.contains('ı'),
            ascii,
            other,
        }
    }

    fn place(&self, c: char) -> Option<u32> {
        let place = match usize::try_from(u32::from(c)) {
            Ok(a) if a < self.ascii.len() => self.ascii[a],
            _ => self
                .other
                .iter()
                .find(|(o, _)| *o == c)
                .map_or(0, |(_, place)| *place),
        };
        (place > 0).then_some(place)
    }

    fn key(&self, name: &str) -> Vec<u32> {
        let mut key = Vec::with_capacity(name.len());
        self.places(name, |place| key.push(place));
        key
    }

    /// The key of `name` written at the end of `bytes`: a place below 255 as its byte, a higher
    /// one as 255 and its four bytes (big-endian). No place's bytes begin another's, and they
    /// are in the places' order, so keys compared as bytes compare as their places do.
    fn write_bytes(&self, name: &str, bytes: &mut Vec<u8>) {
        self.places(name, |place| match u8::try_from(place) {
            Ok(small) if small < u8::MAX => bytes.push(small),
            _ => {
                bytes.push(u8::MAX);
                bytes.extend_from_slice(&place.to_be_bytes());
            }
        });
    }

    /// The places of `name`'s characters, in order ([`collation_key`]).
    fn places(&self, name: &str, mut push: impl FnMut(u32)) {
        let mut letter = |c: char| {
            if let Some(p) = self.place(c) {
                push(p);
            } else if c.is_alphanumeric() {
                let folded = fold_name(&c.to_string());
                folded
                    .chars()
                    .for_each(|f| push(self.place(f).unwrap_or(u32::from(f) + 1_000)));
            } else {
                push(0);
            }
        };
        for c in name.chars() {
            match c {
                'I' if self.turkish => letter('ı'),
                'İ' => letter('i'),
                c if c.is_ascii() => letter(c.to_ascii_lowercase()),
                c => c.to_lowercase().for_each(&mut letter),
            }
        }
    }
}

/// A folded character's bit in a key's masks: a–z and 0–9 have one each (`true`: the bit is
/// that character alone), the rest share the other bits; a space (any whitespace) has none.
fn char_bit(c: char) -> Option<(u64, bool)> {
    let (bit, alone) = match c {
        c if c.is_whitespace() => return None,
        'a'..='z' => (c as u32 - 'a' as u32, true),
        '0'..='9' => (26 + (c as u32 - '0' as u32), true),
        _ => (36 + c as u32 % 28, false),
    };
    Some((1 << bit, alone))
}

/// The characters a folded text holds, a bit each ([`char_bit`]): a key that lacks a character
/// of the query cannot match it, whatever the order, so most keys are passed over without
/// reading them.
fn char_mask(text: &str) -> u64 {
    text.chars()
        .filter_map(char_bit)
        .fold(0, |mask, (bit, _)| mask | bit)
}

/// Whether a word of a key begins at byte `at`: the key's start, or after a space, a comma or
/// a hyphen.
fn begins_word(key: &[u8], at: usize) -> bool {
    // These are ASCII, and no byte of a longer character is.
    at.checked_sub(1)
        .is_none_or(|before| matches!(key[before], b' ' | b',' | b'-'))
}

/// The characters that begin a word of a folded text, a bit each ([`char_bit`]).
fn starts_mask(text: &str) -> u64 {
    text.char_indices()
        .filter(|&(at, _)| begins_word(text.as_bytes(), at))
        .filter_map(|(_, c)| char_bit(c))
        .fold(0, |mask, (bit, _)| mask | bit)
}

/// A word of the query, and its bit when it is one character that has a bit of its own: the
/// masks then answer for it without the key being read.
struct Word<'a> {
    text: &'a str,
    alone: Option<u64>,
}

impl<'a> Word<'a> {
    fn new(text: &'a str) -> Self {
        let mut chars = text.chars();
        let alone = match (chars.next().and_then(char_bit), chars.next()) {
            (Some((bit, true)), None) => Some(bit),
            _ => None,
        };
        Self { text, alone }
    }
}

/// Whether `word`'s characters all come in `key`, in order: what the fuzzy matcher asks of a
/// match before it scores one.
fn in_order(keys: &Keys, k: usize, word: &str) -> bool {
    if word.is_ascii() {
        // Byte by byte: no byte of a longer character is ASCII.
        let mut rest = keys.key_bytes(k).iter();
        return word.bytes().all(|b| rest.any(|&c| c == b));
    }
    let mut rest = keys.key(k).chars();
    word.chars().all(|c| rest.any(|k| k == c))
}

/// Where `word` next comes whole in `key` from byte `from` on. Compared as bytes: a character's
/// bytes match only where the character itself is.
fn find_from(key: &[u8], word: &[u8], from: usize) -> Option<usize> {
    let (&first, _) = word.split_first()?;
    let last = key.len().checked_sub(word.len())?;
    (from..=last).find(|&at| key[at] == first && &key[at..at + word.len()] == word)
}

/// The candidates (key positions, ascending) whose key holds every word's characters in order.
fn matching(keys: &Keys, candidates: &[u32], words: &[Word], mask: u64) -> Vec<u32> {
    candidates
        .iter()
        .copied()
        .filter(|&k| keys.masks[k as usize] & mask == mask)
        .filter(|&k| {
            words
                .iter()
                .filter(|w| w.alone.is_none())
                .all(|w| in_order(keys, k as usize, w.text))
        })
        .collect()
}

/// More matches than this are ranked by [`plain_score`] instead of the fuzzy matcher: the
/// first letters typed over a million names match most of them, and the matcher's score of
/// each would take the officer's key press a second.
const FUZZY_AT_MOST: usize = 20_000;

/// Each key's score for the words (the keys all match them): the sum of `word_score` (of a
/// key's position and a word) over the words.
fn scores(matched: &[u32], words: &[Word], word_score: impl Fn(usize, &Word) -> i64) -> Vec<i64> {
    matched
        .iter()
        .map(|&k| words.iter().map(|w| word_score(k as usize, w)).sum())
        .collect()
}

/// The fuzzy matcher's score of each key. Each call has its own matcher (one holds a cache
/// that is not shared across threads).
fn fuzzy_score(keys: &Keys, matched: &[u32], words: &[Word]) -> Vec<i64> {
    let matcher = SkimMatcherV2::default().respect_case();
    scores(matched, words, |k, w| {
        matcher.fuzzy_match(keys.key(k), w.text).unwrap_or(0)
    })
}

/// A plain score of each key, for many matches: per word, 3 where a word of the key begins
/// with it, 2 where the key holds it whole, 1 where its letters only come in order.
fn plain_score(keys: &Keys, matched: &[u32], words: &[Word]) -> Vec<i64> {
    scores(matched, words, |k, w| {
        if let Some(bit) = w.alone {
            // The key holds the character (it matched): whether a word begins with it.
            return if keys.starts[k] & bit != 0 { 3 } else { 2 };
        }
        word_score(keys.key_bytes(k), w.text.as_bytes())
    })
}

/// [`plain_score`] of one word of several characters: 3 where a word of the key begins with
/// it, 2 where the key holds it whole, 1 otherwise. Its places are found one after another, as
/// `str::match_indices` finds them.
fn word_score(key: &[u8], word: &[u8]) -> i64 {
    let mut held = 1;
    let mut from = 0;
    while let Some(at) = find_from(key, word, from) {
        if begins_word(key, at) {
            return 3;
        }
        held = 2;
        from = at + word.len();
    }
    held
}

/// One query typed, the keys (positions) it matched and the players it found, in order.
struct Step {
    query: String,
    matched: Vec<u32>,
    found: Vec<PlayerIdx>,
}

/// The keys of a run of players, built on one core and sorted in the list's order: the texts
/// one after another, and a row per player saying where his are.
struct Run {
    /// Folded name, id, FIDE id and club of each player, as matched.
    text: String,
    /// Each player's place in the alphabet's order ([`Collation::write_bytes`]).
    order: Vec<u8>,
    rows: Vec<Row>,
}

/// Where one player's keys are in his [`Run`] (byte ranges of its texts).
#[derive(Clone, Copy)]
struct Row {
    player: PlayerIdx,
    key: (u32, u32),
    /// The first eight bytes of the order ([`prefix`]), then where it is.
    first: u64,
    order: (u32, u32),
    /// The key's characters, and those that begin a word of it ([`char_mask`],
    /// [`starts_mask`]).
    masks: (u64, u64),
    /// Within the key, for exact matches: the folded id, its number without letters (from its
    /// first digit to its end; empty without a digit) and the FIDE id (empty without one).
    id: (u32, u32),
    number: u32,
    fide: (u32, u32),
}

impl Run {
    /// The keys of `listed`, sorted.
    fn build(
        listed: &[PlayerIdx],
        players: &[PlayerInfo],
        collation: &Collation,
        order: NameOrder,
    ) -> Self {
        let bytes: usize = listed
            .iter()
            .map(|&p| {
                let info = &players[p];
                info.name.len() + info.id.len() + info.club.as_ref().map_or(0, String::len) + 16
            })
            .sum();
        let mut run = Self {
            text: String::with_capacity(bytes),
            order: Vec::with_capacity(bytes),
            rows: Vec::with_capacity(listed.len()),
        };
        for &p in listed {
            run.push(p, &players[p], collation, order);
        }
        let mut rows = std::mem::take(&mut run.rows);
        rows.sort_unstable_by(|a, b| listed_order((&run, a), (&run, b)));
        run.rows = rows;
        run
    }

    fn push(
        &mut self,
        player: PlayerIdx,
        info: &PlayerInfo,
        collation: &Collation,
        order: NameOrder,
    ) {
        let text = &mut self.text;
        let at = |text: &String| text.len() as u32;
        let start = at(text);
        fold_name_into(&info.name, text);
        text.push(' ');
        let id = at(text);
        fold_name_into(&info.id, text);
        let id = (id, at(text));
        let number = text[id.0 as usize..]
            .find(|c: char| c.is_ascii_digit())
            .map_or(id.1, |digit| id.0 + digit as u32);
        let fide = match info.fide_id {
            Some(fide) => {
                text.push(' ');
                let from = at(text);
                text.push_str(&fide.to_string());
                (from, at(text))
            }
            None => (id.1, id.1),
        };
        if let Some(club) = &info.club {
            text.push(' ');
            fold_name_into(club, text);
        }
        let key = &text[start as usize..];
        let masks = (char_mask(key), starts_mask(key));
        let order_start = self.order.len() as u32;
        collation.write_bytes(&order.write(&info.name), &mut self.order);
        let order = (order_start, self.order.len() as u32);
        self.rows.push(Row {
            player,
            key: (start, at(text)),
            first: prefix(&self.order[order.0 as usize..]),
            order,
            masks,
            id,
            number,
            fide,
        });
    }

    fn text(&self, (from, to): (u32, u32)) -> &str {
        &self.text[from as usize..to as usize]
    }

    fn bytes(&self, (from, to): (u32, u32)) -> &[u8] {
        &self.text.as_bytes()[from as usize..to as usize]
    }

    fn order_of(&self, row: &Row) -> &[u8] {
        &self.order[row.order.0 as usize..row.order.1 as usize]
    }
}

/// The list's order of two players' rows: by the alphabet's order of their names, then by their
/// keys, then by player.
fn listed_order((a_run, a): (&Run, &Row), (b_run, b): (&Run, &Row)) -> std::cmp::Ordering {
    a.first
        .cmp(&b.first)
        .then_with(|| a_run.order_of(a).cmp(b_run.order_of(b)))
        .then_with(|| a_run.bytes(a.key).cmp(b_run.bytes(b.key)))
        .then(a.player.cmp(&b.player))
}

/// The first eight bytes of a text as a number (zeros after a shorter one): most texts are
/// told apart by it without reading them. Texts compared by it and then by their bytes are in
/// a total order, equal when their bytes are.
fn prefix(bytes: &[u8]) -> u64 {
    let mut first = [0; 8];
    let n = bytes.len().min(8);
    first[..n].copy_from_slice(&bytes[..n]);
    u64::from_be_bytes(first)
}

/// An id, id number or FIDE id of a key, where it is in the keys' text.
#[derive(Clone, Copy, Serialize, Deserialize)]
struct IdAt {
    prefix: u64,
    at: u32,
    len: u32,
    /// The key's position.
    k: u32,
}

/// Every key in the list's order, held compactly (a million players take under 200 MB, a
/// fifth of it the texts): the texts one after another, where each ends, each key's
/// characters, its player, and where its ids are.
#[derive(Serialize, Deserialize)]
struct Keys {
    text: String,
    ends: Vec<u32>,
    masks: Vec<u64>,
    /// Per key, the characters that begin a word of it ([`starts_mask`]).
    starts: Vec<u64>,
    players: Vec<PlayerIdx>,
    /// Every non-empty id, id number and FIDE id with its key's position, sorted by the id
    /// (then by position): an exact match is a binary search.
    ids: Vec<IdAt>,
}

impl Keys {
    /// The keys of sorted runs, merged in the list's order.
    fn new(runs: Vec<Run>) -> Self {
        let count: usize = runs.iter().map(|run| run.rows.len()).sum();
        let mut keys = Self {
            text: String::with_capacity(runs.iter().map(|run| run.text.len()).sum()),
            ends: Vec::with_capacity(count),
            masks: Vec::with_capacity(count),
            starts: Vec::with_capacity(count),
            players: Vec::with_capacity(count),
            ids: Vec::with_capacity(3 * count),
        };
        let mut next = vec![0; runs.len()];
        loop {
            let mut first: Option<(usize, &Row)> = None;
            for (r, run) in runs.iter().enumerate() {
                if let Some(row) = run.rows.get(next[r])
                    && first
                        .is_none_or(|(f, best)| listed_order((run, row), (&runs[f], best)).is_lt())
                {
                    first = Some((r, row));
                }
            }
            let Some((r, row)) = first else { break };
            next[r] += 1;
            keys.push(&runs[r], row);
        }
        let text = keys.text.as_bytes();
        let id_text = |id: &IdAt| &text[id.at as usize..(id.at + id.len) as usize];
        keys.ids.sort_unstable_by(|a, b| {
            a.prefix
                .cmp(&b.prefix)
                .then_with(|| id_text(a).cmp(id_text(b)))
                .then(a.k.cmp(&b.k))
        });
        keys.ids
            .dedup_by(|a, b| a.k == b.k && a.prefix == b.prefix && id_text(a) == id_text(b));
        keys
    }

    fn push(&mut self, run: &Run, row: &Row) {
        let k = self.players.len() as u32;
        let base = self.text.len() as u32;
        self.text.push_str(run.text(row.key));
        self.ends.push(self.text.len() as u32);
        self.masks.push(row.masks.0);
        self.starts.push(row.masks.1);
        self.players.push(row.player);
        for (from, to) in [row.id, (row.number, row.id.1), row.fide] {
            if to > from {
                self.ids.push(IdAt {
                    prefix: prefix(run.bytes((from, to))),
                    at: base + (from - row.key.0),
                    len: to - from,
                    k,
                });
            }
        }
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    fn key(&self, k: usize) -> &str {
        &self.text[self.span(k)]
    }

    /// A key's bytes (no check of where its characters begin: matching by bytes needs none).
    fn key_bytes(&self, k: usize) -> &[u8] {
        &self.text.as_bytes()[self.span(k)]
    }

    fn span(&self, k: usize) -> std::ops::Range<usize> {
        let start = k.checked_sub(1).map_or(0, |i| self.ends[i] as usize);
        start..self.ends[k] as usize
    }

    fn id_text(&self, id: &IdAt) -> &[u8] {
        &self.text.as_bytes()[id.at as usize..(id.at + id.len) as usize]
    }

    /// Whether keys read back from a file hold together as [`Keys::new`] makes them, for a
    /// federation of `players`: every span and id inside the text and on its characters' edges,
    /// a row for each key, every player one of the federation's, the ids sorted as a search
    /// halves them. (Whether they are this record's keys, the file's stamp says.)
    fn hold_together(&self, players: usize) -> bool {
        let n = self.ends.len();
        let rows = [self.masks.len(), self.starts.len(), self.players.len()];
        let spans = self.ends.iter().try_fold(0u32, |start, &end| {
            (start <= end && self.text.is_char_boundary(end as usize)).then_some(end)
        });
        let within = |id: &IdAt| {
            (id.k as usize) < n
                && u64::from(id.at) + u64::from(id.len) <= self.text.len() as u64
                && id.prefix == prefix(self.id_text(id))
        };
        // Within 2³² bytes, as the positions in it are kept.
        u32::try_from(self.text.len()).is_ok()
            && rows.iter().all(|&len| len == n)
            && spans.is_some()
            && self.players.iter().all(|&p| p < players)
            && self.ids.iter().all(within)
            && self.ids.windows(2).all(|w| {
                (w[0].prefix, self.id_text(&w[0]), w[0].k)
                    < (w[1].prefix, self.id_text(&w[1]), w[1].k)
            })
    }

    /// The positions of the keys whose id, id number or FIDE id is exactly `query`, ascending.
    fn exactly(&self, query: &str) -> Vec<u32> {
        let query = query.as_bytes();
        let first = prefix(query);
        let from = self
            .ids
            .partition_point(|id| (id.prefix, self.id_text(id)) < (first, query));
        // Sorted by position within an id, and without repeats (`Keys::new`).
        self.ids[from..]
            .iter()
            .take_while(|id| id.prefix == first && self.id_text(id) == query)
            .map(|id| id.k)
            .collect()
    }
}

/// The keys of an index as kept beside the database, read back ([`SearchIndex::from_kept`]).
#[derive(Deserialize)]
pub struct Kept(Keys);

/// The keys of an index, written to be kept ([`SearchIndex::kept`]).
#[derive(Serialize)]
pub struct KeptRef<'a>(&'a Keys);

/// Where a match ranks: an exact id first, then the higher score.
type Rank = (Reverse<bool>, Reverse<i64>);

/// How many steps of typing are kept (a name is rarely longer).
const STEPS: usize = 48;

pub struct SearchIndex {
    keys: Keys,
    /// Matches up to this many are ranked by the fuzzy matcher ([`FUZZY_AT_MOST`]).
    fuzzy_at_most: usize,
    /// The queries typed so far, each extending the one before, with the keys each matched and
    /// what it found: a query that extends one can only match among its keys (a fuzzy match of
    /// "jarvi" is one of "jarv"), so typing narrows instead of rescanning, and a backspace back
    /// to a query typed before finds its answer kept.
    typed: std::cell::RefCell<Vec<Step>>,
}

impl SearchIndex {
    /// Builds the folded keys of the players marked `active`, listed by their names as the
    /// federation writes them (`order`) in the order of `alphabet`.
    pub fn new(players: &[PlayerInfo], active: &[bool], alphabet: &str, order: NameOrder) -> Self {
        // A run of players a core: folded and sorted there, then merged here.
        Self::in_runs(players, active, alphabet, order, threads())
    }

    /// [`SearchIndex::new`], its players built in `runs` runs (the same index however many).
    fn in_runs(
        players: &[PlayerInfo],
        active: &[bool],
        alphabet: &str,
        order: NameOrder,
        runs: usize,
    ) -> Self {
        let collation = Collation::new(alphabet);
        let listed: Vec<PlayerIdx> = (0..players.len())
            .filter(|&p| active.get(p).copied().unwrap_or(false))
            .collect();
        let runs: Vec<&[PlayerIdx]> = listed
            .chunks(listed.len().div_ceil(runs.max(1)).max(1))
            .collect();
        let runs = map_on_cores(&runs, threads(), |run| {
            Run::build(run, players, &collation, order)
        });
        Self {
            keys: Keys::new(runs),
            fuzzy_at_most: FUZZY_AT_MOST,
            typed: std::cell::RefCell::new(Vec::new()),
        }
    }

    /// The index kept beside the database ([`SearchIndex::kept`]), read back for a federation
    /// of `players`: `None` when it does not hold together (a damaged file is made again, not
    /// trusted).
    pub fn from_kept(kept: Kept, players: usize) -> Option<Self> {
        kept.0.hold_together(players).then(|| Self {
            keys: kept.0,
            fuzzy_at_most: FUZZY_AT_MOST,
            typed: std::cell::RefCell::new(Vec::new()),
        })
    }

    /// What is kept of the index beside the database when the workstation closes: its keys
    /// (what it found as queries were typed is not).
    pub fn kept(&self) -> KeptRef<'_> {
        KeptRef(&self.keys)
    }

    /// Players matching `query`, best first (all players by name for an empty query): an exact
    /// id or FIDE id first, then by how well every word of the query matches, then in the
    /// list's order.
    pub fn search(&self, query: &str) -> Vec<PlayerIdx> {
        let query = fold_name(query.trim());
        if query.is_empty() {
            return self.keys.players.clone();
        }
        let words: Vec<Word> = query.split_whitespace().map(Word::new).collect();
        let mut typed = self.typed.borrow_mut();
        while typed
            .last()
            .is_some_and(|step| !query.starts_with(step.query.as_str()))
        {
            typed.pop();
        }
        if let Some(step) = typed.last().filter(|step| step.query == query) {
            return step.found.clone();
        }
        let all: Vec<u32>;
        let candidates: &[u32] = match typed.last() {
            Some(step) => &step.matched,
            None => {
                all = (0..self.keys.len() as u32).collect();
                &all
            }
        };
        // The candidates are matched, then scored, in chunks on every core (a first key
        // matches nearly all).
        let keys = &self.keys;
        let mask = char_mask(&query);
        let on_cores = |n: usize| crate::cores::threads().min(n.div_ceil(2_000)).max(1);
        let chunks = |items: &[u32]| -> (usize, usize) {
            let threads = on_cores(items.len());
            (threads, items.len().div_ceil(threads).max(1))
        };
        let (threads, chunk) = chunks(candidates);
        let parts: Vec<&[u32]> = candidates.chunks(chunk).collect();
        let matched: Vec<u32> =
            crate::cores::map_on_cores(&parts, threads, |part| matching(keys, part, &words, mask))
                .into_iter()
                .flatten()
                .collect();
        let (threads, chunk) = chunks(&matched);
        let parts: Vec<&[u32]> = matched.chunks(chunk).collect();
        let fuzzy = matched.len() <= self.fuzzy_at_most;
        let scores: Vec<i64> = crate::cores::map_on_cores(&parts, threads, |part| {
            if fuzzy {
                fuzzy_score(keys, part, &words)
            } else {
                plain_score(keys, part, &words)
            }
        })
        .into_iter()
        .flatten()
        .collect();
        let exactly = self.keys.exactly(&query);
        let mut ranked: Vec<(Rank, u32)> = matched
            .iter()
            .zip(scores)
            .map(|(&k, score)| {
                (
                    (Reverse(exactly.binary_search(&k).is_ok()), Reverse(score)),
                    k,
                )
            })
            .collect();
        // Best first, and in the list's order (the matches are) among equals.
        if fuzzy {
            ranked.sort_by_key(|&(rank, _)| rank);
        } else {
            // Many matches of few plain scores: put into a bucket a score, in order.
            let mut buckets: Vec<(Rank, Vec<u32>)> = Vec::new();
            for (rank, k) in ranked.drain(..) {
                match buckets.iter_mut().find(|(r, _)| *r == rank) {
                    Some((_, bucket)) => bucket.push(k),
                    None => buckets.push((rank, vec![k])),
                }
            }
            buckets.sort_unstable_by_key(|&(rank, _)| rank);
            ranked.extend(
                buckets
                    .into_iter()
                    .flat_map(|(rank, bucket)| bucket.into_iter().map(move |k| (rank, k))),
            );
        }
        let found: Vec<PlayerIdx> = ranked
            .into_iter()
            .map(|(_, k)| self.keys.players[k as usize])
            .collect();
        if typed.len() >= STEPS {
            typed.remove(0);
        }
        typed.push(Step {
            query,
            matched,
            found: found.clone(),
        });
        found
    }
}

#[cfg(test)]
mod tests {
    /// Finland's alphabet, as its federation gives it.
    const FINNISH: &str = crate::federations::ssl::ALPHABET;
    const ICELANDIC: &str = crate::federations::isl::ALPHABET;
    const TURKISH: &str = crate::federations::tsf::ALPHABET;
    use super::*;

    fn player(id: &str, name: &str, fide: Option<u64>) -> PlayerInfo {
        PlayerInfo {
            id: id.into(),
            name: name.into(),
            fide_id: fide,
            ..PlayerInfo::default()
        }
    }

    #[test]
    fn accents_fold_both_ways_and_ids_match() {
        let players = vec![
            player("FIN1", "Järvinen, Aino", Some(501234)),
            player("FIN2", "Jarva, Pekka", None),
            player("FIN3", "Könönen, Otso", None),
        ];
        let index = SearchIndex::new(
            &players,
            &[true, true, true],
            FINNISH,
            NameOrder::SurnameFirst,
        );
        assert_eq!(index.search("jarvinen").first(), Some(&0));
        assert_eq!(index.search("järvi").first(), Some(&0));
        assert_eq!(index.search("jarv").len(), 2, "both Järvinen and Jarva");
        assert_eq!(index.search("kon").first(), Some(&2));
        assert_eq!(index.search("fin3").first(), Some(&2), "the exact id first");
        assert_eq!(index.search("501234"), vec![0]);
        assert_eq!(index.search(""), vec![1, 0, 2], "by folded name");
    }

    #[test]
    fn typing_narrows_to_the_same_results_as_a_fresh_search() {
        let book = generated();
        let all = vec![true; book.players.len()];
        let typed = SearchIndex::new(&book.players, &all, FINNISH, NameOrder::SurnameFirst);
        // Typing on, a backspace, a word added, a new name.
        for query in [
            "k", "ko", "kor", "korh", "kor", "ko", "kos", "ka", "kal", "kal e", "ka", "jä", "järv",
            "jä", "",
        ] {
            let fresh = SearchIndex::new(&book.players, &all, FINNISH, NameOrder::SurnameFirst);
            assert_eq!(typed.search(query), fresh.search(query), "{query}");
        }
    }

    /// A generated federation of 400 players.
    fn generated() -> crate::book::Book<crate::rules::ssl::Ssl> {
        let (book, _) = crate::demo::generate(&crate::demo::Params {
            players: 400,
            years: 1,
            opens_per_year: Some(1),
            ..crate::demo::Params::demo()
        });
        book
    }

    /// An index written as kept and read back.
    fn kept_and_read(index: &SearchIndex, players: usize) -> Option<SearchIndex> {
        let config = bincode::config::standard();
        let bytes = bincode::serde::encode_to_vec(index.kept(), config).expect("written");
        let (kept, _): (Kept, usize) =
            bincode::serde::decode_from_slice(&bytes, config).expect("read");
        SearchIndex::from_kept(kept, players)
    }

    #[test]
    fn a_kept_index_finds_what_the_index_it_was_kept_from_finds() {
        let book = generated();
        let active: Vec<bool> = (0..book.players.len()).map(|p| p % 7 != 3).collect();
        let made = SearchIndex::new(&book.players, &active, TURKISH, NameOrder::SurnameFirst);
        let read = kept_and_read(&made, book.players.len()).expect("it holds together");
        let some = &book.players[10];
        let id_number: String = some.id.chars().filter(char::is_ascii_digit).collect();
        for query in [
            "", "k", "kor", "a e", &some.id, &id_number, &some.name, "zzz",
        ] {
            assert_eq!(read.search(query), made.search(query), "{query:?}");
        }
        assert_eq!(
            kept_and_read(&made, book.players.len() - 1).map(|_| ()),
            None,
            "a player past the federation's"
        );
    }

    #[test]
    fn a_kept_index_that_does_not_hold_together_is_refused() {
        let players = vec![
            player("TUR1", "Işıkoğlu, İlkay", Some(501234)),
            player("TUR2", "Şükrü, Çağlar", None),
            player("TUR3", "Aksoy, Ela", Some(7)),
        ];
        let index = || SearchIndex::new(&players, &[true; 3], TURKISH, NameOrder::SurnameFirst);
        assert!(kept_and_read(&index(), 3).is_some());
        type Damage = fn(&mut Keys);
        let damaged: [(&str, Damage); 7] = [
            ("an end past the text", |k| {
                *k.ends.last_mut().expect("a key") += 1_000
            }),
            ("an end inside a letter", |k| {
                k.text.push('€');
                *k.ends.last_mut().expect("a key") = (k.text.len() - 1) as u32;
            }),
            ("ends out of order", |k| k.ends.swap(0, 1)),
            ("a row short", |k| {
                k.masks.pop();
            }),
            ("an id past the text", |k| k.ids[0].len = u32::MAX),
            ("ids out of order", |k| {
                let last = k.ids.len() - 1;
                k.ids.swap(0, last);
            }),
            ("an id of a key that is not", |k| k.ids[0].k = 3),
        ];
        for (what, damage) in damaged {
            let mut index = index();
            damage(&mut index.keys);
            assert!(kept_and_read(&index, 3).is_none(), "{what}");
        }
    }

    #[test]
    fn an_exact_id_or_fide_id_ranks_first_and_names_match_in_either_order() {
        let players = vec![
            player("FIN11727", "Aalto, Mikko", Some(117254)),
            player("FIN11725", "Ström, Eva", None),
            player("FIN3", "Mäkelä, Eero", Some(502117)),
            player("FIN4", "Mäki, Eeva", None),
        ];
        let index = SearchIndex::new(&players, &[true; 4], FINNISH, NameOrder::SurnameFirst);
        assert_eq!(index.search("11725").first(), Some(&1), "the id's number");
        assert_eq!(index.search("fin11725").first(), Some(&1), "the whole id");
        let index = SearchIndex::new(&players, &[true; 4], FINNISH, NameOrder::SurnameFirst);
        assert_eq!(
            index.search("eero mäk").first(),
            Some(&2),
            "first name first"
        );
        assert_eq!(index.search("mäkelä eero").first(), Some(&2));
        assert!(
            !index.search("eero mäk").contains(&3),
            "every word must match"
        );
        let only_fide = vec![player("FIN9", "Aho, Aku", Some(11725)), players[0].clone()];
        let index = SearchIndex::new(&only_fide, &[true; 2], FINNISH, NameOrder::SurnameFirst);
        assert_eq!(index.search("11725").first(), Some(&0), "the exact FIDE id");
    }

    #[test]
    fn icelandic_and_turkish_names_are_found_as_typed_on_any_keyboard() {
        let players = vec![
            player("ISL1", "Þórhallsdóttir, Guðrún", None),
            player("ISL2", "Ævarsson, Sæþór", None),
            player("TUR1", "Işıkoğlu, İlkay", None),
            player("TUR2", "Çağlar, Şükrü", None),
        ];
        let index = SearchIndex::new(&players, &[true; 4], FINNISH, NameOrder::SurnameFirst);
        assert_eq!(index.search("thorhalls").first(), Some(&0), "þ as th");
        assert_eq!(index.search("Þórhalls").first(), Some(&0), "as written");
        assert_eq!(index.search("gudrun").first(), Some(&0), "ð as d");
        assert_eq!(index.search("aevars saethor").first(), Some(&1), "æ as ae");
        assert_eq!(
            index.search("aevars\u{a0}saethor").first(),
            Some(&1),
            "a no-break space between the words, as some keyboards type it"
        );
        assert_eq!(index.search("aevars\tsaethor").first(), Some(&1), "a tab");
        assert_eq!(index.search("isikoglu").first(), Some(&2), "ı as i, ğ as g");
        assert_eq!(index.search("ilkay").first(), Some(&2), "İ as i");
        assert_eq!(index.search("İLKAY").first(), Some(&2), "capital İ");
        assert_eq!(index.search("caglar sukru").first(), Some(&3), "ç, ş, ü");
        assert_eq!(index.search("ÇAĞLAR").first(), Some(&3));
    }

    #[test]
    fn a_club_tells_apart_players_who_share_a_name() {
        let with_club = |id: &str, club: &str| PlayerInfo {
            club: Some(club.into()),
            ..player(id, "Mäkelä, Eero", None)
        };
        let players = vec![
            with_club("FIN1", "EtVaS"),
            with_club("FIN2", "HSK"),
            player("FIN3", "Mäkelä, Eero", None),
            with_club("FIN4", "TuS"),
        ];
        let index = SearchIndex::new(&players, &[true; 4], FINNISH, NameOrder::SurnameFirst);
        assert_eq!(index.search("mäkelä eero").len(), 4);
        assert_eq!(index.search("mäkelä eero hsk"), vec![1]);
        assert_eq!(index.search("eero tus"), vec![3], "in either order");
        assert_eq!(index.search("fin3").first(), Some(&2), "an id still first");
    }

    #[test]
    fn every_match_is_returned() {
        let players: Vec<PlayerInfo> = (0..450)
            .map(|i| player(&format!("FIN{i}"), &format!("Virtanen, {i}"), None))
            .collect();
        let index = SearchIndex::new(&players, &vec![true; 450], FINNISH, NameOrder::SurnameFirst);
        assert_eq!(index.search("").len(), 450);
        assert_eq!(index.search("virt").len(), 450);
    }

    #[test]
    fn many_matches_rank_a_word_begun_first_then_one_held_whole_in_the_lists_order() {
        let names = [
            "Aho, Kalle",
            "Koski, Aino",
            "Mäkelä, Erkki",
            "Kallio, Eero",
            "Lahti, Mika",
            "Salo, Ilkka",
        ];
        let players: Vec<PlayerInfo> = (1..)
            .zip(names)
            .map(|(i, name)| player(&format!("FIN{i}"), name, None))
            .collect();
        let all = vec![true; players.len()];
        let fuzzy = SearchIndex::new(&players, &all, FINNISH, NameOrder::SurnameFirst);
        let mut plain = SearchIndex::new(&players, &all, FINNISH, NameOrder::SurnameFirst);
        plain.fuzzy_at_most = 2;
        // "k": every name holds one; Kallio and Koski begin with it, then Aho, Kalle (a first
        // name begun), then the rest in the list's order.
        assert_eq!(plain.search("k"), vec![0, 3, 1, 4, 2, 5]);
        // "ka": Kalle and Kallio begin a word with it, Mika and Ilkka hold it whole, Koski
        // Aino and Mäkelä only have its letters in order.
        let found = plain.search("ka");
        assert_eq!(found, vec![0, 3, 4, 5, 1, 2]);
        let mut fuzzily = fuzzy.search("ka");
        fuzzily.sort_unstable();
        assert_eq!(fuzzily, vec![0, 1, 2, 3, 4, 5], "the same players match");
        // Few matches again: the fuzzy matcher ranks them, as a fresh search does.
        let fresh = SearchIndex::new(&players, &all, FINNISH, NameOrder::SurnameFirst);
        assert_eq!(plain.search("kal"), fresh.search("kal"));
    }

    #[test]
    fn retired_records_are_not_found() {
        let players = vec![
            player("A", "Aho, Aino", None),
            player("B", "Aho, Aino", None),
        ];
        let index = SearchIndex::new(&players, &[true, false], FINNISH, NameOrder::SurnameFirst);
        assert_eq!(index.search("aho"), vec![0]);
    }

    fn sorted_as(names: &[&str], alphabet: &str, order: NameOrder) -> Vec<String> {
        let players: Vec<PlayerInfo> = names
            .iter()
            .enumerate()
            .map(|(i, n)| player(&format!("X{i}"), n, None))
            .collect();
        let index = SearchIndex::new(&players, &vec![true; names.len()], alphabet, order);
        index
            .search("")
            .into_iter()
            .map(|p| players[p].name.clone())
            .collect()
    }

    fn sorted(names: &[&str], alphabet: &str) -> Vec<String> {
        sorted_as(names, alphabet, NameOrder::SurnameFirst)
    }

    #[test]
    fn iceland_lists_players_by_first_name() {
        // The Icelandic list: by first name, then patronymic, in the Icelandic alphabet.
        assert_eq!(
            sorted_as(
                &[
                    "Ævarsson, Jón",
                    "Þórsson, Dagur",
                    "Arnardóttir, Ásdís",
                    "Ásgeirsson, Ari",
                    "Davíðsson, Ari",
                    "Arnarson, Ari",
                ],
                ICELANDIC,
                NameOrder::GivenFirst
            ),
            [
                "Arnarson, Ari",
                "Ásgeirsson, Ari",
                "Davíðsson, Ari",
                "Arnardóttir, Ásdís",
                "Þórsson, Dagur",
                "Ævarsson, Jón"
            ]
        );
    }

    #[test]
    fn an_empty_query_lists_players_in_the_federations_alphabet() {
        // Finnish: å, ä, ö after z; a name before its longer forms; é as e.
        assert_eq!(
            sorted(
                &[
                    "Östman, Ari",
                    "Ärölä, Ilkka",
                    "Zetterberg, Ville",
                    "Mäkeläinen, Aino",
                    "Mäkelä, Eero",
                    "Aalto, Ee",
                    "Mäkelä, Éva"
                ],
                FINNISH
            ),
            [
                "Aalto, Ee",
                "Mäkelä, Eero",
                "Mäkelä, Éva",
                "Mäkeläinen, Aino",
                "Zetterberg, Ville",
                "Ärölä, Ilkka",
                "Östman, Ari"
            ]
        );
        // Icelandic: á after a, ð after d, þ æ ö last.
        assert_eq!(
            sorted(
                &[
                    "Ævarsson, Jón",
                    "Þórsson, Dagur",
                    "Ásgeirsson, Ari",
                    "Arnarson, Ari",
                    "Davíðsson, Ari",
                    "Zóphóníasson, Ari"
                ],
                ICELANDIC
            ),
            [
                "Arnarson, Ari",
                "Ásgeirsson, Ari",
                "Davíðsson, Ari",
                "Zóphóníasson, Ari",
                "Þórsson, Dagur",
                "Ævarsson, Jón"
            ]
        );
        // Turkish: ç after c, ı before i (capital I is ı, İ is i), ö after o, ş after s.
        assert_eq!(
            sorted(
                &[
                    "İnce, Sıla",
                    "Işık, Barış",
                    "Çelik, Efe",
                    "Cem, Ali",
                    "Öztürk, Ali",
                    "Oral, Ali",
                    "Şahin, Eren",
                    "Sarı, Ali"
                ],
                TURKISH
            ),
            [
                "Cem, Ali",
                "Çelik, Efe",
                "Işık, Barış",
                "İnce, Sıla",
                "Oral, Ali",
                "Öztürk, Ali",
                "Sarı, Ali",
                "Şahin, Eren"
            ]
        );
    }

    #[test]
    fn ids_that_begin_alike_are_told_apart_exactly() {
        // The same first eight characters: only the whole id (or FIDE id) is exact.
        let players = vec![
            player("TUR12345678", "Kaya, Ali", Some(123_456_789)),
            player("TUR12345679", "Kaya, Ali", Some(123_456_780)),
            player("TUR1234567", "Kaya, Ali", None),
        ];
        let index = SearchIndex::new(&players, &[true; 3], TURKISH, NameOrder::GivenFirst);
        assert_eq!(index.keys.exactly("tur12345679"), vec![index_of(&index, 1)]);
        assert_eq!(index.keys.exactly("12345678"), vec![index_of(&index, 0)]);
        assert_eq!(index.keys.exactly("1234567"), vec![index_of(&index, 2)]);
        assert_eq!(index.keys.exactly("123456780"), vec![index_of(&index, 1)]);
        assert!(index.keys.exactly("tur123456").is_empty());
        assert!(index.keys.exactly("1234567890").is_empty());
        assert_eq!(index.search("123456789").first(), Some(&0));
        assert_eq!(index.search("tur1234567").first(), Some(&2));
    }

    /// The key position of `player` in the index.
    fn index_of(index: &SearchIndex, player: PlayerIdx) -> u32 {
        let k = index.keys.players.iter().position(|&p| p == player);
        k.expect("an indexed player") as u32
    }

    proptest::proptest! {
        /// The index lists players as their names sort by the alphabet's order (then by their
        /// keys, then by player), whatever the characters — letters of the alphabet, letters
        /// outside it, digits, punctuation — and finds exactly the players whose id, id number
        /// or FIDE id a query is, however many runs it is built in.
        #[test]
        fn the_listing_is_the_alphabets_order_and_every_id_is_found_exactly(
            players in proptest::collection::vec(
                (
                    "[A-Za-zÄÖÅäöåÇçĞğIıİiŞşÜüÞþÆæéΩωЖжЯя0-9 ,-]{0,14}",
                    "[A-Zİa-z ]{0,3}[0-9٣]{0,3}",
                    proptest::option::of(0u64..40),
                    proptest::option::of("[A-Za-zä ]{0,6}"),
                ),
                1..60,
            ),
            turkish in proptest::bool::ANY,
            runs in 1usize..5,
        ) {
            let alphabet = if turkish { TURKISH } else { FINNISH };
            let order = if turkish { NameOrder::GivenFirst } else { NameOrder::SurnameFirst };
            let players: Vec<PlayerInfo> = players
                .iter()
                .map(|(name, id, fide, club)| PlayerInfo {
                    club: club.clone(),
                    ..player(id, name, *fide)
                })
                .collect();
            let active = vec![true; players.len()];
            let index = SearchIndex::in_runs(&players, &active, alphabet, order, runs);
            let key = |info: &PlayerInfo| {
                let fide = info.fide_id.map(|f| format!(" {f}")).unwrap_or_default();
                let club = info.club.as_deref().map(|c| format!(" {}", fold_name(c))).unwrap_or_default();
                format!("{} {}{fide}{club}", fold_name(&info.name), fold_name(&info.id))
            };
            let mut expected: Vec<PlayerIdx> = (0..players.len()).collect();
            expected.sort_by_cached_key(|&p| {
                (collation_key(&order.write(&players[p].name), alphabet), key(&players[p]), p)
            });
            proptest::prop_assert_eq!(index.search(""), expected);
            // Each player's ids as the index should know them: the folded id, its number from
            // its first ASCII digit, the FIDE id (none of them empty).
            let ids = |info: &PlayerInfo| {
                let id = fold_name(&info.id);
                let number = id.trim_start_matches(|c: char| !c.is_ascii_digit()).to_string();
                let fide = info.fide_id.map(|f| f.to_string()).unwrap_or_default();
                [id, number, fide].into_iter().filter(|id| !id.is_empty()).collect::<Vec<_>>()
            };
            let mut queries: Vec<String> = players.iter().flat_map(ids).collect();
            queries.extend(["", "0", "x", "1 2"].map(String::from));
            for query in &queries {
                let mut found: Vec<u32> = (0..players.len())
                    .filter(|&p| ids(&players[p]).contains(query))
                    .map(|p| index_of(&index, p))
                    .collect();
                found.sort_unstable();
                proptest::prop_assert_eq!(index.keys.exactly(query), found, "{:?}", query);
            }
            for (p, info) in players.iter().enumerate() {
                proptest::prop_assert_eq!(index.keys.key(index_of(&index, p) as usize), key(info));
            }
        }
    }

    #[test]
    fn a_words_places_are_found_one_after_another() {
        // `a-a` in `ba-a-a`: at 1 (inside the word `ba`), then nothing from 4 on — the place
        // at 3, after a hyphen, overlaps the first and is not one of them.
        assert_eq!(word_score(b"ba-a-a", b"a-a"), 2);
        assert_eq!(word_score(b"b a-a", b"a-a"), 3);
        assert_eq!(word_score(b"bab", b"ab"), 2);
        assert_eq!(word_score(b"b", b"ab"), 1);
        assert_eq!(word_score("jäärä".as_bytes(), "ärä".as_bytes()), 2);
    }

    proptest::proptest! {
        /// A word's plain score, found as bytes, is what `str::match_indices` gives.
        #[test]
        fn a_words_plain_score_is_what_the_text_search_gives(
            key in "[ab ,ä-]{0,12}",
            word in "[ab,ä-]{1,3}",
        ) {
            let mut expected = 1;
            for (at, _) in key.match_indices(word.as_str()) {
                if begins_word(key.as_bytes(), at) {
                    expected = 3;
                    break;
                }
                expected = 2;
            }
            proptest::prop_assert_eq!(word_score(key.as_bytes(), word.as_bytes()), expected);
        }
    }
}
