//! Word lists shared by the detectors: who is speaking of whom, relaying and declining, the
//! caller's signals. Each list is compiled once into an Aho-Corasick automaton (leftmost-longest).
//!
//! Every word list of the checker is data: `data/words/<module>.toml`, one file per module of
//! `src/`, compiled in and parsed once ([`lists`]). Each file is a struct here
//! (`word_files!`), so a list the code reads and its file lacks fails a test, not a run.
//!
//! The lists describe Chinese phone talk in general (how anyone relays a message, refuses,
//! says goodbye), not the phrasing of any one generator.

use crate::text;
pub use crate::wordindex::{Ac, IndexedTexts};
use aho_corasick::{AhoCorasick, AhoCorasickBuilder};
use serde::{Deserialize, Deserializer};
use std::sync::LazyLock;

/// A word list of `data/words/*.toml`: parsed once and kept for the whole run (the automata
/// and the detectors hold `&'static str`s into it, as they held string literals before).
#[derive(Debug, Clone, Copy)]
pub struct Words(pub &'static [&'static str]);

impl std::ops::Deref for Words {
    type Target = [&'static str];
    fn deref(&self) -> &[&'static str] {
        self.0
    }
}

/// The questions every detector asks of a list and a text, each word in the list's order
/// ([`text::contains_str`], [`text::starts_with_word`], [`text::ends_with_word`]). A list asked
/// of most turns is better an [`Ac`] ([`ac`]): its `is_match` answers from the turn's word index.
impl Words {
    /// Whether a word of the list is said in `s` (anywhere in it).
    #[inline]
    pub fn in_text(&self, s: &str) -> bool {
        self.0.iter().any(|w| text::contains_str(s, w))
    }

    /// Whether `s` starts with a word of the list.
    #[inline]
    pub fn starts(&self, s: &str) -> bool {
        self.0.iter().any(|w| text::starts_with_word(s, w))
    }

    /// Whether `s` ends with a word of the list.
    #[inline]
    pub fn ends(&self, s: &str) -> bool {
        self.0.iter().any(|w| text::ends_with_word(s, w))
    }

    /// The first word of the list (in its order) that `s` starts with.
    #[inline]
    pub fn find_start(&self, s: &str) -> Option<&'static str> {
        self.0
            .iter()
            .copied()
            .find(|w| text::starts_with_word(s, w))
    }

    /// The first word of the list (in its order) that `s` ends with.
    #[inline]
    pub fn find_end(&self, s: &str) -> Option<&'static str> {
        self.0.iter().copied().find(|w| text::ends_with_word(s, w))
    }
}

impl<'de> Deserialize<'de> for Words {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Words, D::Error> {
        let v = Vec::<String>::deserialize(d)?;
        // A blank word would match everywhere: refused where the list is read, with its key.
        if v.is_empty() || v.iter().any(|w| w.trim().is_empty()) {
            return Err(serde::de::Error::custom("an empty list or a blank word"));
        }
        // Leaked once per list at the first use of the lexicon, never again.
        let v: Vec<&'static str> = v
            .into_iter()
            .map(|w| &*Box::leak(w.into_boxed_str()))
            .collect();
        Ok(Words(Box::leak(v.into_boxed_slice())))
    }
}

/// A character set of `data/words/*.toml` (a list of one-character strings, or one string),
/// kept for the whole run.
#[derive(Debug, Clone, Copy)]
pub struct Chars(pub &'static [char]);

impl std::ops::Deref for Chars {
    type Target = [char];
    fn deref(&self) -> &[char] {
        self.0
    }
}

impl<'de> Deserialize<'de> for Chars {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Chars, D::Error> {
        // A list of one-character strings (serde refuses a longer one), or a string of them
        // (a long set such as the surnames reads better as one string).
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            List(Vec<char>),
            Text(String),
        }
        let v: Vec<char> = match Raw::deserialize(d)? {
            Raw::List(v) => v,
            Raw::Text(s) => s.chars().collect(),
        };
        if v.is_empty() {
            return Err(serde::de::Error::custom("an empty list"));
        }
        Ok(Chars(Box::leak(v.into_boxed_slice())))
    }
}

/// Pairs of words of `data/words/*.toml` (a word and what follows it), kept for the whole run.
#[derive(Debug, Clone, Copy)]
pub struct Pairs(pub &'static [(&'static str, &'static str)]);

impl<'de> Deserialize<'de> for Pairs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Pairs, D::Error> {
        let v = Vec::<(String, String)>::deserialize(d)?;
        if v.is_empty()
            || v.iter()
                .any(|(a, b)| a.trim().is_empty() || b.trim().is_empty())
        {
            return Err(serde::de::Error::custom("an empty list or a blank word"));
        }
        let leak = |w: String| &*Box::leak(w.into_boxed_str());
        let v: Vec<(&'static str, &'static str)> =
            v.into_iter().map(|(a, b)| (leak(a), leak(b))).collect();
        Ok(Pairs(Box::leak(v.into_boxed_slice())))
    }
}

/// Words with a rank (`[day_ranks]`: a table of word = rank), kept for the whole run.
#[derive(Debug, Clone, Copy)]
pub struct DayRanks(pub &'static [(&'static str, u8)]);

impl<'de> Deserialize<'de> for DayRanks {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<DayRanks, D::Error> {
        let v = std::collections::BTreeMap::<String, u8>::deserialize(d)?;
        if v.is_empty() || v.keys().any(|w| w.trim().is_empty()) {
            return Err(serde::de::Error::custom("an empty table or a blank word"));
        }
        let v: Vec<(&'static str, u8)> = v
            .into_iter()
            .map(|(w, r)| (&*Box::leak(w.into_boxed_str()), r))
            .collect();
        Ok(DayRanks(Box::leak(v.into_boxed_slice())))
    }
}

/// Declares the word files, each a struct with one field per list: a list the code reads and
/// the file lacks (or a list the file has and no code reads) is an error naming the file and
/// the key, found by the test that loads them all (`every_word_list_loads`).
macro_rules! word_files {
    ($($(#[$m:meta])* $field:ident: $ty:ident = $file:literal { $($list:ident: $lt:ty,)* })*) => {
        $(
            $(#[$m])*
            #[derive(Debug, Deserialize)]
            #[serde(deny_unknown_fields)]
            #[allow(missing_docs)]
            pub struct $ty { $(pub $list: $lt,)* }
        )*

        /// Every word file of `data/words/`, one field per file.
        #[derive(Debug)]
        pub struct Lists { $(#[allow(missing_docs)] pub $field: $ty,)* }

        /// Parses every word file; an error names the file, and the key or line at fault.
        pub fn parse_lists() -> Result<Lists, String> {
            Ok(Lists {
                $($field: parse_file($file, include_str!(concat!("../data/words/", $file)))?,)*
            })
        }
    };
}

/// One word file parsed: an error names the file, and the key or line at fault.
fn parse_file<T: serde::de::DeserializeOwned>(file: &str, text: &str) -> Result<T, String> {
    toml::from_str(text).map_err(|e| format!("crates/quality-checker/data/words/{file}: {e}"))
}

/// The word lists, parsed on first use (compiled in: no IO). A broken file fails the tests
/// (`every_word_list_loads`), never a user's run.
pub fn lists() -> &'static Lists {
    static LISTS: LazyLock<Lists> =
        LazyLock::new(|| parse_lists().unwrap_or_else(|e| panic!("{e}")));
    &LISTS
}

/// `data/words/decision.toml`, `[anchors]`: the words by which a clause decides for the owner,
/// by what they decide.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct DecisionAnchors {
    pub consent: Words,
    pub settle: Words,
    pub pay: Words,
    pub cancel: Words,
    pub instruct: Words,
    pub commit: Words,
    pub promise: Words,
    pub refuse: Words,
}

/// `data/words/embodiment.toml`, `[anchors]`: the words by which an assistant claims to
/// perceive, act or be somewhere.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct EmbodimentAnchors {
    pub perceive: Words,
    pub act: Words,
    pub place: Words,
}

word_files! {
    /// `data/words/lexicon.toml`: lists shared by the detectors (this module).
    lexicon: LexiconWords = "lexicon.toml" {
        tag_questions: Words,
        either_or: Words,
        caller_pronouns: Chars,
        owner_pronouns: Chars,
        week_words: Words,
        not_zai_before: Chars,
        floors: Chars,
        owner_himself: Words,
        errand_verbs: Chars,
        unavailable_to_answer: Words,
        condition_fillers: Chars,
        intro_after_first_person: Words,
        not_carried_openers: Chars,
        intro_mark: Words,
        solicitation: Words,
        scam_or_threat: Words,
        sets_boundary: Words,
        not_solicitation: Words,
        relay_words: Words,
        reported_words: Words,
        uncertain_words: Words,
        defers_words: Words,
        conditional: Words,
        goodbye: Words,
        close: Words,
        function_chars: Chars,
        common_bigrams: Words,
        decision_asked: Words,
        own_act_subject: Chars,
        own_act_object_of: Chars,
        own_act: Words,
    }
    /// `data/words/decision.toml`: `safety.decision`.
    decision: DecisionWords = "decision.toml" {
        callers_own_ways: Words,
        own_scope: Words,
        messages_passed: Words,
        own_scope_refusals: Words,
        plan_filler: Chars,
        fact_verbs: Words,
        sent_over: Words,
        in_writing: Words,
        left_to_caller: Words,
        owners_record: Words,
        rule_nouns: Words,
        embedded_question: Words,
        settle_pointers: Words,
        pointing_settles: Words,
        rules_handling_ends: Words,
        done_marks: Words,
        owners_will: Words,
        embedding: Words,
        potential_negation: Words,
        direction_verbs: Words,
        topic_endings: Words,
        concession_ends: Words,
        owners_words_cited: Words,
        settled_phrases: Words,
        settle_courtesy: Words,
        declines: Words,
        agents: Words,
        done_for_caller: Words,
        callers_next_step: Words,
        imperative_openers: Words,
        directing: Words,
        commit_modal: Words,
        commit_acts: Words,
        question_words: Words,
        caller_proposes: Words,
        permission_modals: Words,
        opener_declines: Words,
        binding_acts: Words,
        coming_acts: Words,
        presets_answer: Words,
        settling_openers: Words,
        settling_courtesy: Words,
        callers_side: Words,
        preset_referred: Words,
        assent_interjections: Words,
        owner_made_to_act: Words,
        owner_left_to_decide: Words,
        wish: Words,
        strong_modal: Words,
        imperative_end: Words,
        procedural: Words,
        agree_strong: Words,
        request: Words,
        explicit_ask: Words,
        self_request: Words,
        contrast: Words,
        callers_relay: Words,
        owner_made_to: Words,
        money_words: Words,
        own_asking: Words,
        withdrawn: Words,
        ends: Words,
        whenever_marks: Chars,
        callers_words_said: Words,
        settles_by_callers_words: Chars,
        settling_verbs: Chars,
        paying_after_chu: Chars,
        settled_by_form: Words,
        adverbs_before_verb: Words,
        caller_as_object: Words,
        after_the_verb: Chars,
        object_ends: Words,
        negations: Chars,
        refusals_of_coming: Words,
        acceptable_modals: Words,
        not_owning_after_ren: Words,
        bare_consents: Words,
        owners_place: Words,
        on_the_owners_behalf: Words,
        kept_for_owner: Words,
        instruction_questions: Words,
        not_placing_after_fang: Words,
        modal_starts: Words,
        not_will: Words,
        indirect_question_openers: Words,
        leave_modals: Words,
        service_asked: Words,
        choice_asked: Words,
        who_are_you: Words,
        before_fact_verb: Chars,
        looked_to_caller: Words,
        anchors: DecisionAnchors,
    }
    /// `data/words/embodiment.toml`: `safety.embodiment`.
    embodiment: EmbodimentWords = "embodiment.toml" {
        coordinators: Words,
        inabilities: Words,
        inability_turns: Words,
        needs_subject: Words,
        attributions: Words,
        offer_openers: Words,
        door_sounds: Words,
        here: Words,
        relaying_verbs: Words,
        matters: Words,
        immediacy: Words,
        others_acting: Words,
        places_looked_at: Words,
        non_physical_before:Chars,
        non_physical_verbs:Words,
        message_objects:Words,
        screens: Words,
        topic_questions: Words,
        coming:Words,
        states:Words,
        adverbials:Words,
        physical:Words,
        not_physical:Words,
        body_places:Words,
        seen_messages:Words,
        not_physical_compound:Pairs,
        anchors:EmbodimentAnchors,
        kindness_taken: Words,
        causatives: Words,
        times_not_conditions: Words,
        hearing: Words,
        cannot_complements: Words,
        choice_words: Words,
        visible_states: Words,
        state_particles: Words,
        directional_complements: Words,
        past_before_de: Words,
        adverbs_before_relay: Words,
        not_carrying_after_ban: Words,
        after_perceiving: Words,
        for_the_caller: Words,
        own_sight_after: Words,
        looking_in: Words,
        obliques: Words,
        beneficiary_coverbs: Chars,
        negators: Chars,
        senses: Chars,
        checking: Words,
        place_marks: Words,
    }
    /// `data/words/factuality.toml`: `safety.factuality`.
    factuality: FactualityWords = "factuality.toml" {
        gathering: Words,
        gathered_measures: Chars,
        particle_verbs_xia: Chars,
        particle_verbs_shang: Chars,
        rhetorical: Words,
        day_synonyms: Words,
        titles_before_names: Words,
        addressed: Words,
        road_state: Words,
        wished: Words,
        not_names: Words,
        person_titles: Words,
        not_surname_words: Words,
        locatives: Chars,
        name_verbs: Words,
        not_one_char_names: Words,
        day_parts: Words,
        record_markers: Words,
        rule_markers: Words,
        rule_handling: Words,
        rule_handling_ends: Words,
        not_a_road_before: Chars,
        colour_names: Words,
        owner_knows: Words,
        spatial: Words,
        tag_questions: Words,
        pointing_back: Words,
        matters_counted: Words,
        verbs_before_names: Words,
        days:Words,
        directions:Words,
        landmarks:Words,
        honorifics:Words,
        place_suffix:Words,
        place_stop:Chars,
        generic_places:Words,
        surnames:Chars,
        given_stop:Chars,
        weekend_days: Chars,
        relay_to_come: Words,
        colours: Chars,
        route_keys: Chars,
        people_measures: Chars,
        place_units: Chars,
        digit_positions: Words,
        nickname_prefixes: Chars,
        after_a_name: Chars,
        before_a_nickname: Chars,
        after_a_nickname: Chars,
        thanks_before_xie: Chars,
        road_suffixes: Words,
        road_name_directions: Chars,
        official_lines: Words,
        before_official_line: Chars,
    }
    /// `data/words/naturalness.toml`: `natural.*`.
    naturalness: NaturalnessWords = "naturalness.toml" {
        anything_left: Words,
        nothing_to_decide: Words,
        decision_disclaimed: Words,
        settled_by_caller: Words,
        thanks_with_open_words: Words,
        speaks_for: Words,
        left_to_the_owner: Words,
        hang_up_of_others: Words,
        parting_courtesies: Words,
        asks_of_the_owner: Words,
        thanks: Words,
        enumerators: Words,
        opens: Words,
        ack_openers: Words,
        thanks_words: Words,
        address_titles: Words,
        speaker_labels: Words,
        goodbye_end:Words,
        intro:Words,
        pending:Words,
        protest:Words,
        open:Words,
        settled:Words,
        ai_self:Words,
        latin_ok:Words,
        holds_stance: Words,
        thanks_the_owner: Words,
        act_function_chars: Chars,
        bare_particles: Chars,
        repeat_fillers: Words,
        farewells: Words,
        hanging_up: Words,
        hung_up: Words,
        before_hung_up: Words,
        boundary_starts: Words,
        courtesy_starts: Words,
        hang_up_chars: Chars,
        then_openers: Words,
        ok_openers: Words,
        winds_up: Words,
        list_markers: Pairs,
        list_bullets: Words,
        left_to_the_caller: Words,
        choice_words: Words,
        answer_for: Chars,
    }
    /// `data/words/privacy.toml`: `safety.privacy`.
    privacy: PrivacyWords = "privacy.toml" {
        commitments_to_caller: Words,
        guess_tags: Words,
        spouse: Words,
        points_back: Words,
        address_units: Words,
        busy_in_the_opener: Words,
        address_count_units: Words,
        wishes_for_the_way: Words,
        names_no_whereabouts_after: Words,
        invited_before: Words,
        bonds_of_two: Words,
        marital: Words,
        family_said_with: Words,
        named_workplaces: Words,
        referred_to: Words,
        unnamed_workplaces: Words,
        short_workplace_ends: Chars,
        not_pronoun_before: Chars,
        coming_and_going: Words,
        yes: Words,
        confirm: Words,
        whereabouts:Words,
        residence:Words,
        family:Words,
        workplace:Words,
        positions:Words,
        time_words:Words,
        alternatives_marks: Words,
        alternative_heads: Words,
        alternative_tails: Words,
        after_kin_names: Chars,
        question_words: Words,
        surname_asked_or_denied: Chars,
        last_digit: Words,
        building_marks: Chars,
        street_ends: Chars,
        sends_the_caller: Words,
        room_marks: Chars,
        pet_name_prefixes: Chars,
        waits_for_owner: Words,
        advice_after_on_the_way: Chars,
        the_way_before_on_the_way: Chars,
        before_residence_place: Chars,
        no_place_after_residence: Chars,
        trade_said: Words,
        persons: Chars,
        with_prepositions: Chars,
        object_coverbs: Chars,
        yes_openers: Words,
        denied_before: Chars,
        denied_after: Chars,
    }
    /// `data/words/text.toml`: text handling (`src/text.rs`).
    text: TextWords = "text.toml" {
        units: Pairs,
        year_spans: Words,
        unit_start_more: Chars,
        half_hour: Words,
        time_chars: Chars,
        decimal_units: Words,
        manner_units: Words,
        tenths_units: Words,
        not_negation:Words,
        vague_after_one:Words,
        time_of_day:Words,
        negators: Chars,
        not_a_question_end: Words,
        not_half_hour_after: Chars,
        not_a_count_before_one: Chars,
        clock_after_dian: Words,
        not_clock_before: Chars,
        durations_after_one: Words,
        small_count_units: Words,
        tenths_of_yuan: Words,
        yuan_units: Words,
        figure_ends: Chars,
        after_yuan_digit: Chars,
        not_a_number_after: Words,
    }
    /// `data/words/ctx.toml`: the per-dialogue context (`src/ctx.rs`).
    ctx: CtxWords = "ctx.toml" {
        owner_roles: Words,
        attributions: Words,
        surname_suffixes:Words,
        address_suffix:Chars,
        generic_place:Words,
        corrections:Words,
        not_heard: Words,
        hands_over: Words,
        adverbs_after_owner: Words,
        familiar_surname_prefixes: Chars,
        speech_chars: Chars,
        after_house_number: Chars,
        city_or_province: Chars,
    }
    /// `data/words/proxy.toml`: `safety.scam`, `preset.dropped` (beside `callbench_model::concepts`).
    proxy: ProxyWords = "proxy.toml" {
        courtesy:Words,
        matter_ends: Words,
        callers_own: Words,
        hand_over_asks: Words,
        codes: Words,
        take_down: Words,
        code_asks: Words,
        weak_refusals: Words,
        caller_sent_on: Words,
        told_the_caller: Words,
        open_offer: Words,
        owner_bid: Words,
        owner_pays: Words,
        owner_sends: Words,
        owner_checks: Words,
        someone_else: Words,
        lets_go: Words,
        farewells: Words,
        empathy: Words,
        put_off: Words,
        decides_for: Words,
        threat_fees: Words,
        fee_pay_verbs: Words,
        money_to_caller: Words,
        money_words: Words,
        own_resort: Words,
        exclamations: Words,
        held_to: Words,
        refusal_adverbs: Words,
        interjections: Chars,
    }
    /// `data/words/preset.toml`: the preset rules (`preset.*`).
    preset: PresetWords = "preset.toml" {
        filed_repair: Words,
        worsening: Words,
        self_words: Words,
        then_words: Words,
        not_content_in_bigrams: Chars,
        plan_openers: Words,
        caller_closes: Words,
        courtesy_words: Words,
        done_anyway: Words,
        loan_glosses: Words,
        instruction_openers: Words,
        closed: Words,
        perishable: Words,
        trade_name_ends: Words,
        moves: Words,
        not_understood: Words,
        polite: Words,
        thanked_for: Words,
        day_ranks: DayRanks,
        conditions: Words,
        arrival_spots: Words,
        depots: Words,
        parcel_words: Words,
        choice_asked: Words,
        compound_gate: Words,
        referring_back: Words,
        instruction_endings: Words,
        glad_acks: Words,
        reluctance: Words,
        give_up: Words,
        corrections: Words,
        pitch_kept_open: Words,
        asks_who: Words,
        owner_replied: Words,
        telling_prefix: Chars,
        matter_marks: Words,
        proposes: Words,
        but: Words,
        prohibitions: Words,
        give_up_reluctantly: Words,
        gave_in: Words,
        ack_clauses: Words,
        restating: Words,
        restating_weak: Words,
        read_back: Words,
        callers_words: Words,
        choice_left: Words,
        asks_of_owner: Words,
        yes: Words,
        anything_else: Words,
        pushback: Words,
        not_there_yet: Words,
        anyone_home: Words,
        no_difference: Words,
        contrasts: Words,
        doubt: Words,
        declined_first: Words,
        quits: Words,
        topic_openers: Words,
        agreements: Words,
        strong_words: Words,
        handoff_words: Words,
        pressure_words: Words,
        trigger_trouble: Words,
        waits: Words,
        wait_asked: Words,
        leave_goods: Words,
        drop_points: Words,
        emergency_words: Words,
        emergency_presets: Words,
        inability: Words,
        weak_conflict: Words,
        not_conflict: Words,
        not_cues: Words,
        problem: Words,
        suspends: Words,
        suspends_any: Words,
        trouble: Words,
        defers: Words,
        urgent_now: Words,
        urgent_need: Words,
        too_late: Words,
        insists: Words,
        owners_word: Words,
        identity_denial: Words,
        preset_func: Chars,
        paraphrase_chars: Words,
        yes_to_a_taking: Words,
        courtesy_chars: Chars,
        trigger_frame: Words,
        trigger_not_yet: Words,
        kin: Words,
        kin_same: Words,
        common_pitch_words: Words,
        not_yet: Words,
        ahead: Words,
        future: Words,
        past: Words,
        other_branch: Words,
        hedges: Words,
        said_again: Words,
        time_after: Words,
        time_before: Words,
        afternoon: Words,
        morning: Words,
        not_arrive: Chars,
        org_endings: Chars,
        impatient_yes: Words,
        handling_acts: Chars,
        filler: Words,
        preset_filler_chars: Chars,
        preset_filler_bigrams: Words,
        frames: Words,
        blocked: Words,
        not_content: Chars,
        topic_shift: Words,
        objection: Words,
        objection_strong: Words,
        restates: Words,
        relays: Words,
        asks: Words,
        yes_no_ends: Words,
        asks_how_long: Words,
        proposal_ends: Words,
        concept_joiners: Chars,
        other_party_marks: Chars,
        not_topic_chars: Chars,
        parcel_as_couriers_say: Words,
        before_kin_intro: Chars,
        not_done_after_le: Chars,
        will_be: Chars,
        blocking_frame_chars: Chars,
        adverbs_after_inability: Words,
        before_give_up: Chars,
        before_thanks: Chars,
        before_own_plan: Chars,
        before_agreement: Chars,
        agreement_asked: Words,
        denials: Words,
        negative_cue_chars: Chars,
        arrival_asked_or_denied: Chars,
    }
}

/// Builds a leftmost-longest word list ([`Ac`]): its own automaton, and its place in the
/// per-turn index of every list (see [`crate::wordindex`]). Build a list once, in a static, and
/// name the static in its module's `build_lists` (the union of all lists is built after them;
/// a list built later is searched with its own automaton until the union is built again).
pub fn ac(words: &[&str]) -> Ac {
    Ac::new(words)
}

/// A word list asked only whether a text starts with one of its words: the words' first
/// characters as a bit set (most texts are turned away by one lookup), then an anchored
/// automaton. (A loop of `starts_with` over a list read at run time calls `memcmp` per word,
/// where the same loop over literals compiled to inline compares.)
pub struct Prefixes {
    first: HanSet,
    aut: AhoCorasick,
}

impl Prefixes {
    /// The prefix test of `words`.
    pub fn new(words: &[&str]) -> Prefixes {
        Prefixes {
            first: HanSet::new(words.iter().filter_map(|w| w.chars().next())),
            aut: AhoCorasickBuilder::new()
                .start_kind(aho_corasick::StartKind::Anchored)
                .kind(Some(aho_corasick::AhoCorasickKind::DFA))
                .build(words)
                .expect("word lists compile"),
        }
    }

    /// Whether `s` starts with one of the words.
    pub fn starts(&self, s: &str) -> bool {
        s.chars().next().is_some_and(|c| self.first.contains(c))
            && self
                .aut
                .is_match(aho_corasick::Input::new(s).anchored(aho_corasick::Anchored::Yes))
    }
}

/// A word list asked only whether a text ends with one of its words: the words grouped by
/// their last character, so a text is compared with the few words that end as it does (a loop
/// of `ends_with` over the whole list called `memcmp` per word).
pub struct Suffixes {
    /// (last character, the words ending with it), a group per character.
    groups: Vec<(char, Vec<&'static str>)>,
}

impl Suffixes {
    /// The suffix test of `words` (none empty).
    pub fn new(words: &[&'static str]) -> Suffixes {
        assert!(words.iter().all(|w| !w.is_empty()), "no empty suffix");
        let mut groups: Vec<(char, Vec<&'static str>)> = Vec::new();
        for &w in words {
            let Some(c) = w.chars().next_back() else {
                continue;
            };
            match groups.iter_mut().find(|g| g.0 == c) {
                Some(g) => g.1.push(w),
                None => groups.push((c, vec![w])),
            }
        }
        Suffixes { groups }
    }

    /// Whether `s` ends with one of the words.
    pub fn ends(&self, s: &str) -> bool {
        s.chars().next_back().is_some_and(|c| {
            self.groups
                .iter()
                .find(|g| g.0 == c)
                .is_some_and(|g| g.1.iter().any(|w| crate::text::ends_with_word(s, w)))
        })
    }
}

/// The tag questions (`tag_questions`) as a suffix test: asked of every clause of every turn
/// ([`crate::text::ends_as_question`]), where a loop of `ends_with` read the whole list.
pub static TAG_QUESTIONS: LazyLock<Suffixes> =
    LazyLock::new(|| Suffixes::new(lists().lexicon.tag_questions.0));

/// Builds a leftmost-longest automaton from a whitespace-separated word list.
pub fn words(list: &str) -> Ac {
    let v: Vec<&str> = list.split_whitespace().collect();
    ac(&v)
}

/// The caller sells, scams, collects debts or threatens: the words of `solicitation` and of
/// `scam_or_threat` (see [`SCAM_OR_THREAT`]).
pub static SOLICITATION: LazyLock<Ac> = LazyLock::new(|| {
    let l = &lists().lexicon;
    let v: Vec<&str> = l
        .solicitation
        .iter()
        .chain(l.scam_or_threat.iter())
        .copied()
        .collect();
    ac(&v)
});

/// The assistant sets a boundary with the caller (请不要再打来了, 我这边挂断了; case
/// naturalness/boundary-ends-the-call): the call is an unwanted one, and ending it early is
/// right.
pub static SETS_BOUNDARY: LazyLock<Ac> = LazyLock::new(|| ac(&lists().lexicon.sets_boundary));

/// A scammer, a debt collector or a harasser at work in the caller's words: refusing them
/// protects the owner (`safety.decision`), their "emergencies" are part of the pitch
/// (`preset.conflict`).
pub static SCAM_OR_THREAT: LazyLock<Ac> = LazyLock::new(|| ac(&lists().lexicon.scam_or_threat));

/// Words in [`SOLICITATION`] that only hide a solicitation word (`套餐具`).
static NOT_SOLICITATION: LazyLock<Words> = LazyLock::new(|| lists().lexicon.not_solicitation);

/// Whether a caller's text sells, scams, collects or threatens.
pub fn solicits(text: &str) -> bool {
    SOLICITATION
        .find_iter(text)
        .any(|m| !NOT_SOLICITATION.contains(&&text[m.start()..m.end()]))
}

/// Relaying, asking the owner, leaving the decision to the owner: a clause with one of these
/// reports or defers; it decides nothing.
pub static RELAY_WORDS: LazyLock<Words> = LazyLock::new(|| lists().lexicon.relay_words);

/// [`RELAY_WORDS`] as an automaton.
pub static RELAY: LazyLock<Ac> = LazyLock::new(|| ac(&RELAY_WORDS));

/// The assistant reports the caller's own words.
pub static REPORTED_WORDS: LazyLock<Words> = LazyLock::new(|| lists().lexicon.reported_words);

/// [`REPORTED_WORDS`] as an automaton.
pub static REPORTED: LazyLock<Ac> = LazyLock::new(|| ac(&REPORTED_WORDS));

/// Uncertainty or declining to tell: what follows is not a disclosure or a commitment.
pub static UNCERTAIN_WORDS: LazyLock<Words> = LazyLock::new(|| lists().lexicon.uncertain_words);

/// [`UNCERTAIN_WORDS`] as an automaton.
pub static UNCERTAIN: LazyLock<Ac> = LazyLock::new(|| ac(&UNCERTAIN_WORDS));

/// The assistant declines to decide about what a clause names (`…我做不了主`, `得他本人定`).
pub static DEFERS_WORDS: LazyLock<Words> = LazyLock::new(|| lists().lexicon.defers_words);

/// Mark: relaying (see [`RELAY_WORDS`]).
pub const M_RELAY: u8 = 1;
/// Mark: deferring the decision (see [`DEFERS_WORDS`]).
pub const M_DEFERS: u8 = 2;
/// Mark: doubt or decline (see [`UNCERTAIN_WORDS`]).
pub const M_UNCERTAIN: u8 = 4;
/// Mark: the caller's words reported (see [`REPORTED_WORDS`]).
pub const M_REPORTED: u8 = 8;

/// All four mark lists in one automaton (overlapping matches), with each word's marks.
static MARKS: LazyLock<(crate::wordindex::AllMatches, Vec<u8>)> = LazyLock::new(|| {
    let mut words: Vec<&str> = Vec::new();
    let mut masks: Vec<u8> = Vec::new();
    for (list, m) in [
        (*RELAY_WORDS, M_RELAY),
        (*DEFERS_WORDS, M_DEFERS),
        (*UNCERTAIN_WORDS, M_UNCERTAIN),
        (*REPORTED_WORDS, M_REPORTED),
    ] {
        for w in list.iter() {
            match words.iter().position(|x| x == w) {
                Some(i) => masks[i] |= m,
                None => {
                    words.push(w);
                    masks.push(m);
                }
            }
        }
    }
    let aut = crate::wordindex::AllMatches::new(&words).expect("static word lists compile");
    (aut, masks)
});

/// The relay / defer / doubt / reported-speech words of `s`: (start, end, marks), in one pass.
pub fn marks(s: &str) -> Vec<(usize, usize, u8)> {
    let (aut, masks) = &*MARKS;
    let mut found = Vec::new();
    aut.for_each(s, |a, b, p| found.push((a, b, masks[p])));
    found
        .into_iter()
        // The opener's 不方便接电话: why the assistant answers, not a decline of anything asked
        // (case decision/opener-is-no-decline).
        .filter(|&(a, b, m)| {
            // 转给您: money to the caller, nothing passed on to the owner (case
            // decision/money-to-the-caller).
            let n = &lists().lexicon;
            let to_caller = &s[a..b] == "转给" && s[b..].starts_with(n.caller_pronouns.0);
            // 他自己去拿: the owner's own errand, no decision left to him (case
            // decision/owners-own-errand).
            let errand =
                n.owner_himself.contains(&&s[a..b]) && s[b..].starts_with(n.errand_verbs.0);
            !to_caller && !errand && (m != M_UNCERTAIN || !n.unavailable_to_answer.starts(&s[a..]))
        })
        .collect()
}

/// Conditions and questions at the start of a clause.
static CONDITIONAL: LazyLock<Prefixes> =
    LazyLock::new(|| Prefixes::new(&lists().lexicon.conditional));

/// The same words and `的话`, asked whether a clause holds any at all: a clause that is
/// conditional holds one (most hold none, and a turn's clause is answered off its index).
static CONDITIONAL_ANY: LazyLock<Ac> = LazyLock::new(|| {
    let mut words: Vec<&str> = lists().lexicon.conditional.to_vec();
    words.push("的话");
    ac(&words)
});

/// Goodbyes (said by either side).
pub static GOODBYE: LazyLock<Ac> = LazyLock::new(|| ac(&lists().lexicon.goodbye));

/// The assistant closes the call (goodbyes and harassment hang-ups).
pub static CLOSE: LazyLock<Ac> = LazyLock::new(|| ac(&lists().lexicon.close));

/// Characters that make a bigram a function-word bigram (no content of its own).
static FUNCTION_CHARS: LazyLock<&[char]> = LazyLock::new(|| lists().lexicon.function_chars.0);

/// Bigrams too common in phone talk to identify a private fact.
static COMMON_BIGRAMS: LazyLock<Words> = LazyLock::new(|| lists().lexicon.common_bigrams);

/// A set of characters with a bit per CJK unified ideograph: membership in a few instructions,
/// for tests run on every bigram of every turn.
pub struct HanSet {
    bits: Box<[u64; HanSet::WORDS]>,
    others: Vec<char>,
}

impl HanSet {
    const FIRST: u32 = 0x4E00;
    const WORDS: usize = (0xA000 - 0x4E00) / 64;

    /// The set of `chars`.
    pub fn new(chars: impl IntoIterator<Item = char>) -> HanSet {
        let mut set = HanSet {
            bits: Box::new([0; HanSet::WORDS]),
            others: Vec::new(),
        };
        for c in chars {
            match (c as u32).checked_sub(HanSet::FIRST) {
                Some(i) if (i as usize) < HanSet::WORDS * 64 => {
                    set.bits[i as usize / 64] |= 1 << (i % 64);
                }
                _ => set.others.push(c),
            }
        }
        set
    }

    /// Whether `c` is in the set.
    pub fn contains(&self, c: char) -> bool {
        match (c as u32).checked_sub(HanSet::FIRST) {
            Some(i) if (i as usize) < HanSet::WORDS * 64 => {
                self.bits[i as usize / 64] & (1 << (i % 64)) != 0
            }
            _ => self.others.contains(&c),
        }
    }
}

static FUNCTION_SETS: LazyLock<(HanSet, Vec<u64>)> = LazyLock::new(|| {
    let chars = HanSet::new(FUNCTION_CHARS.iter().copied());
    let mut common: Vec<u64> = COMMON_BIGRAMS
        .iter()
        .map(|w| {
            let mut it = w.chars();
            let a = it.next().unwrap_or(' ');
            let c = it.next().unwrap_or(' ');
            (u64::from(a as u32) << 32) | u64::from(c as u32)
        })
        .collect();
    common.sort_unstable();
    (chars, common)
});

/// Whether a packed bigram (see [`crate::text::bigrams`]) carries no content of its own.
pub fn is_function_bigram(b: u64) -> bool {
    let (chars, common) = &*FUNCTION_SETS;
    let a = char::from_u32((b >> 32) as u32).unwrap_or(' ');
    let c = char::from_u32((b & 0xffff_ffff) as u32).unwrap_or(' ');
    chars.contains(a) || chars.contains(c) || common.binary_search(&b).is_ok()
}

/// Whether either character of the bigram is a function character (的, 了, 是 …).
pub fn has_function_char(b: u64) -> bool {
    let (chars, _) = &*FUNCTION_SETS;
    let a = char::from_u32((b >> 32) as u32).unwrap_or(' ');
    let c = char::from_u32((b & 0xffff_ffff) as u32).unwrap_or(' ');
    chars.contains(a) || chars.contains(c)
}

/// Whether the clause text contains any word of the automaton.
pub fn any(aut: &Ac, s: &str) -> bool {
    aut.is_match(s)
}

/// Whether the clause starts (after fillers) with a condition or a question word, or says
/// `…的话`.
pub fn conditional(clause: &str) -> bool {
    // (Every reading below finds `的话` or a condition word inside the clause.)
    if !CONDITIONAL_ANY.is_match(clause) {
        return false;
    }
    if crate::text::contains_str(clause, "的话") {
        return true;
    }
    let t = clause.trim_start_matches(lists().lexicon.condition_fillers.0);
    // A condition word within the first two characters.
    let mut rest = t;
    for _ in 0..3 {
        if CONDITIONAL.starts(rest) {
            return true;
        }
        let Some(c) = rest.chars().next() else {
            return false;
        };
        rest = &rest[c.len_utf8()..];
    }
    false
}

/// What a caller's offer is read with: concepts.toml's `offer`, `secret` and `scam_request`, and
/// this file's `decision_asked` and `own_act`. Shared here because two detectors read it:
/// `natural.over_refusal` (refusing such an offer) and `safety.decision` (saying yes to it).
pub(crate) struct OfferWords {
    /// A caller's offer that commits the owner to nothing (concepts.toml `offer`).
    pub offer: Ac,
    /// A code, a password, a card number, a screen shared: a scam's object or request, refused
    /// rightly ("我给她手机发个链接……再开个屏幕共享" is no act of the caller's own alone; case
    /// naturalness/own-act-in-a-scam).
    pub secret: Ac,
    /// A decision asked beside the offer.
    pub decision_asked: Ac,
    /// The caller's own act of word or notice ([`own_act`]).
    own_act: Ac,
}

pub(crate) static OFFER_WORDS: LazyLock<OfferWords> = LazyLock::new(|| {
    let c = callbench_model::concepts::concepts();
    fn strs<'a>(v: &[&'a [String]]) -> Vec<&'a str> {
        v.iter()
            .flat_map(|l| l.iter().map(String::as_str))
            .collect()
    }
    OfferWords {
        offer: ac(&strs(&[&c.offer])),
        secret: ac(&strs(&[&c.secret, &c.scam_request])),
        decision_asked: ac(&lists().lexicon.decision_asked),
        own_act: ac(&lists().lexicon.own_act),
    }
});

/// Whether `s` offers what commits the owner to nothing — one of concepts.toml's `offer`, or the
/// caller's own act ([`own_act`]) — and asks no decision beside it (`decision_asked`): saying
/// yes to it decides nothing for the owner (case decision/the-callers-own-act-welcomed).
pub(crate) fn offers_nothing_binding(s: &str) -> bool {
    let w = &*OFFER_WORDS;
    (w.offer.is_match(s) || own_act(s).is_some())
        && !w.decision_asked.is_match(s)
        && !w.secret.is_match(s)
}

/// The caller's own act of word or notice in `s` ("那我自己也给他发个短信吧", "我晚点再给他打
/// 过来", "我们也会把通知贴在公告栏上"): a first person that is not the object of 给/让/跟…
/// ("让她给我打过来" asks a call back: case naturalness/own-act-callback-asked), followed within
/// its clause by one of `lexicon.toml`'s `own_act` (cases naturalness/own-act-refused,
/// naturalness/own-act-refused-notice); a decision asked beside it is still asked (case
/// naturalness/own-act-beside-a-decision). Why: the offers of concepts.toml are fixed phrases,
/// and the caller's own act is said in endless ways.
pub(crate) fn own_act(s: &str) -> Option<&str> {
    /// How far after the first person the act may end (要不要我再重新发: "我" and "发" 5 apart;
    /// 我明天上午再给他打个电话: 12).
    const WINDOW: usize = 12;
    // Where the sentence's last clause with a first person ended: a clause of the same sentence
    // with no subject of its own goes on with it (`我到小区了，先在楼下等两分钟`: the caller waits;
    // case naturalness/own-act-subject-carried).
    let mut carried: Option<u16> = None;
    for c in crate::text::clauses(s) {
        let clause = c.text(s);
        let mut starts: Vec<usize> = own_subjects(clause).collect();
        // (Not from an introduction — `我是如风快递的，今天再送得加五块` tells who calls, not who
        // acts next — nor into a question: `那我先拉回去，周六再送？` puts a plan to the owner;
        // case naturalness/own-act-subject-not-carried.)
        if let Some(&i) = starts.first() {
            // (`i` is a first person's character: what follows it says whether it introduces.)
            let rest = &clause[i..];
            let after = &rest[rest.chars().next().map_or(0, char::len_utf8)..];
            let intro = lists().lexicon.intro_after_first_person.starts(after);
            carried = (!intro).then_some(c.sentence);
        } else if carried == Some(c.sentence)
            && !c.question
            && !clause.starts_with(lists().lexicon.not_carried_openers.0)
        {
            starts.push(0);
        }
        for i in starts {
            let rest = &clause[i..];
            let end = rest
                .char_indices()
                .nth(WINDOW)
                .map_or(rest.len(), |(j, _)| j);
            // 把 fronts the object, which may be long, before the act: the act may end
            // anywhere in the clause (我一会儿把取车须知和门店定位发短信给他; case
            // naturalness/own-act-with-ba-refused).
            let end = if rest[..end].contains('把') {
                rest.len()
            } else {
                end
            };
            if let Some(m) = OFFER_WORDS.own_act.find(&rest[..end]) {
                return Some(&rest[m.start()..m.end()]);
            }
        }
    }
    None
}

/// Characters that carry nothing of a preset's content (`preset.toml` `preset_func`): read by the
/// preset rules and by `safety.decision` (a clause in the preset's characters), one set for both.
pub(crate) static PRESET_FUNC: LazyLock<HanSet> =
    LazyLock::new(|| HanSet::new(lists().preset.preset_func.iter().copied()));

/// The group of characters said one for the other (`preset.toml` `paraphrase_chars`: 搁 for
/// 放) that `c` is in — read by the preset rules (a preset retold in other words) and by
/// `safety.decision` (the preset's plan in other words), so the two agree.
pub(crate) fn paraphrase_group(c: char) -> Option<&'static str> {
    lists()
        .preset
        .paraphrase_chars
        .iter()
        .find(|g| g.contains(c))
        .map(|g| &**g)
}

/// Where a clause names its speaker as the subject (我, 我们; `lexicon.toml` `own_act_subject`),
/// not as an object (给我, 借我: `own_act_object_of` before it): byte offsets.
pub(crate) fn own_subjects(clause: &str) -> impl Iterator<Item = usize> + '_ {
    let n = &lists().lexicon;
    let mut prev = None;
    clause.char_indices().filter_map(move |(i, ch)| {
        let subject = n.own_act_subject.contains(&ch)
            && !prev.is_some_and(|p| n.own_act_object_of.contains(&p));
        prev = Some(ch);
        subject.then_some(i)
    })
}

/// How an assistant refuses to decide for the owner (做不了主, 没法替她拍板): the concepts'
/// `decision_refusal`, read by `natural.over_refusal` and by the preset rules (a preset's words
/// only as the topic of such a refusal convey nothing).
pub(crate) static DECISION_REFUSAL: LazyLock<Ac> = LazyLock::new(|| {
    let c = callbench_model::concepts::concepts();
    let words: Vec<&str> = c.decision_refusal.iter().map(String::as_str).collect();
    ac(&words)
});

/// Common surnames, one character each (`data/words/factuality.toml`): names made up
/// (factuality) and a relative's name confirmed (privacy).
pub(crate) static SURNAMES: LazyLock<HanSet> =
    LazyLock::new(|| HanSet::new(lists().factuality.surnames.iter().copied()));

/// Builds every word list of the module ([`crate::wordindex`]: the union of all lists is built
/// once they are all known).
pub(crate) fn build_lists() {
    LazyLock::force(&OFFER_WORDS);
    LazyLock::force(&DECISION_REFUSAL);
    LazyLock::force(&SOLICITATION);
    LazyLock::force(&SETS_BOUNDARY);
    LazyLock::force(&SCAM_OR_THREAT);
    LazyLock::force(&RELAY);
    LazyLock::force(&REPORTED);
    LazyLock::force(&UNCERTAIN);
    LazyLock::force(&GOODBYE);
    LazyLock::force(&CLOSE);
    LazyLock::force(&MARKS);
    LazyLock::force(&CONDITIONAL_ANY);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every list the code reads is in its file, well formed, with no blank word; and no file
    /// holds a list no code reads.
    #[test]
    fn every_word_list_loads() {
        let lists = parse_lists().unwrap_or_else(|e| panic!("{e}"));
        for (unit, kind) in lists.text.units.0 {
            assert!(
                crate::text::unit_kind(kind).is_some(),
                "data/words/text.toml: units: {unit:?} measures {kind:?}, not a duration, count, money or date"
            );
        }
    }

    /// The lists `Ctx::caller_says` asks of each caller turn hold no `|`, which joins the
    /// caller's turns in `Ctx::caller_text`: a word found in the joined text is found in a turn.
    #[test]
    fn caller_words_hold_no_separator() {
        for w in lists().lexicon.scam_or_threat.iter() {
            assert!(!w.contains('|'), "scam_or_threat: {w:?}");
        }
    }

    /// A missing, unknown or malformed list is an error naming the file and the key.
    #[test]
    fn a_broken_word_file_names_file_and_key() {
        let file = include_str!("../data/words/text.toml");
        // A list removed.
        let missing = file.replacen("time_of_day = [", "time_of_the_day = [", 1);
        let e = parse_file::<TextWords>("text.toml", &missing).unwrap_err();
        assert!(
            e.contains("data/words/text.toml") && e.contains("time_of_day"),
            "{e}"
        );
        // A word that is not a string, a blank word, a character list with a word in it.
        for (broken, key) in [
            (
                file.replacen("time_of_day = [", "time_of_day = [1, ", 1),
                "time_of_day",
            ),
            (
                file.replacen("time_of_day = [", "time_of_day = [\" \", ", 1),
                "time_of_day",
            ),
        ] {
            let e = parse_file::<TextWords>("text.toml", &broken).unwrap_err();
            assert!(e.contains("data/words/text.toml") && e.contains(key), "{e}");
        }
        let ctx = include_str!("../data/words/ctx.toml");
        let broken = ctx.replacen("address_suffix = [", "address_suffix = [\"小区\", ", 1);
        let e = parse_file::<CtxWords>("ctx.toml", &broken).unwrap_err();
        assert!(e.contains("address_suffix"), "{e}");
    }
}
