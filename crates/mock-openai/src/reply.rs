//! What the mock answers: parsing a chat-completion request and producing a reply whose
//! content follows the request's JSON schema.
//!
//! Pure functions of `(config, request body)`: no IO, no clock, no shared state.

use serde_json::{Map, Value, json};

use crate::config::RuleScope;
use crate::rng::{SplitMix64, fnv1a, mix};
use crate::{MockConfig, ReplyMode};

/// Short colloquial sentences a phone-call party might say.
const SENTENCES: &[&str] = &[
    "喂，您好，请问是哪位？",
    "嗯嗯，我听着呢，您说。",
    "好的，我先记一下，您稍等啊。",
    "不好意思，刚才信号不太好，您能再说一遍吗？",
    "这个我得跟机主确认一下，回头再告诉您。",
    "您是送外卖的吧？放门口就行。",
    "麻烦您放到快递柜里吧，谢谢啊。",
    "他现在不太方便接电话，您有什么事吗？",
    "行，那您大概几点能到？",
    "没事没事，不着急，您慢慢来。",
    "您说的是哪个小区？我帮您转告一下。",
    "哦，这样啊，那我知道了。",
    "他现在在开会，您要不晚点再打过来？",
    "您贵姓？我让他给您回个电话。",
    "对，就是这个号码，没错。",
    "我这边没听说有这回事儿，您是不是打错了？",
    "好嘞，我跟他说一声。",
    "您稍微等一下，我看看啊。",
    "嗯，明白了，还有别的事吗？",
    "那您到了楼下给我打个电话就行。",
    "抱歉，这个我不方便透露。",
    "可以的，您直接说吧。",
    "师傅，您现在到哪儿了？",
    "我在小区东门这儿等您。",
];

/// Closing lines, said once the conversation is long enough to end.
const CLOSINGS: &[&str] = &[
    "好的，那就先这样，再见！",
    "行，我都记下了，拜拜。",
    "好嘞，谢谢您啊，再见。",
    "那先不打扰您了，再见。",
    "没问题，回头联系，拜拜！",
    "好的，辛苦了，再见。",
];

/// String properties whose value is what a party says (a closing line once the call ends).
const SPOKEN: &[&str] = &[
    "utterance",
    "text",
    "reply",
    "content",
    "message",
    "say",
    "speech",
    "response",
    "line",
];

/// Keys that mark an example object in a prompt as the reply's format.
const REPLY_MARKERS: &[&str] = &["utterance", "end_call", "reply", "say", "speech"];

/// Options of an `action` enum that end the call, by preference.
const CLOSING_ACTIONS: &[&str] = &["close", "end_call", "hang_up", "end", "goodbye"];

/// Array properties that list problems: left at their minimum length (usually empty), so a
/// mock judge finds nothing wrong.
const PROBLEM_LISTS: &[&str] = &["violations", "errors", "issues", "findings", "problems"];

/// Boolean properties that report success: always true.
const SUCCESS_FLAGS: &[&str] = &["passed", "ok", "valid", "success"];

/// Below this depth in the schema, optional properties are skipped, arrays take their minimum
/// length and nullable values are null, so recursive schemas terminate.
const SHALLOW: u32 = 6;
/// Past this depth, give up and answer null.
const MAX_DEPTH: u32 = 32;

/// A request the mock refuses with `400`, in OpenAI's words.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BadRequest {
    pub message: String,
    pub param: Option<&'static str>,
}

impl BadRequest {
    fn new(message: impl Into<String>, param: Option<&'static str>) -> Self {
        BadRequest {
            message: message.into(),
            param,
        }
    }
}

/// The reply to one chat-completion request, before faults and formatting.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Completion {
    /// `chatcmpl-…`, derived from the seed and the body.
    pub id: String,
    /// The model as reported (the request's, or a `.gguf` path).
    pub model: String,
    pub content: String,
    pub finish_reason: &'static str,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

/// Estimated token count of `text`: CJK characters (ideographs, CJK and full-width
/// punctuation) count 1/1.5 token each, every other byte 1/4 token; each part rounds up.
///
/// Real tokenizers differ; the estimate only needs the right order of magnitude for token
/// budgets and usage reports.
pub fn estimate_tokens(text: &str) -> u64 {
    let mut cjk = 0u64;
    let mut other_bytes = 0u64;
    for c in text.chars() {
        if is_cjk(c) {
            cjk += 1;
        } else {
            other_bytes += c.len_utf8() as u64;
        }
    }
    (cjk * 2).div_ceil(3) + other_bytes.div_ceil(4)
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3000..=0x303F      // CJK symbols and punctuation
        | 0x3400..=0x4DBF    // extension A
        | 0x4E00..=0x9FFF    // unified ideographs
        | 0xF900..=0xFAFF    // compatibility ideographs
        | 0xFF00..=0xFFEF    // full-width forms
        | 0x20000..=0x2FA1F) // extensions B–F, compatibility supplement
}

/// How the request constrains the reply's format.
enum Format {
    /// `json_schema` with a schema (or none given).
    Schema(Option<Value>),
    /// `json_object`.
    JsonObject,
    /// No `response_format`, or `text`.
    Unconstrained,
}

/// Builds the reply to a chat-completion request body.
pub(crate) fn complete(body: &[u8], cfg: &MockConfig) -> Result<Completion, BadRequest> {
    let request: Value = serde_json::from_slice(body)
        .map_err(|e| BadRequest::new(format!("the request body is not valid JSON: {e}"), None))?;
    let Value::Object(request) = request else {
        return Err(BadRequest::new(
            "the request body must be a JSON object",
            None,
        ));
    };
    if request.get("stream").and_then(Value::as_bool) == Some(true) {
        return Err(BadRequest::new(
            "streaming is not supported by this mock server; send \"stream\": false",
            Some("stream"),
        ));
    }
    let model = match request.get("model") {
        None | Some(Value::Null) => cfg.models[0].clone(),
        Some(Value::String(m)) if !m.is_empty() => m.clone(),
        Some(_) => {
            return Err(BadRequest::new(
                "`model` must be a non-empty string",
                Some("model"),
            ));
        }
    };
    let Some(Value::Array(messages)) = request.get("messages") else {
        return Err(BadRequest::new(
            "`messages` must be an array of messages",
            Some("messages"),
        ));
    };
    if messages.is_empty() {
        return Err(BadRequest::new(
            "`messages` must hold at least one message",
            Some("messages"),
        ));
    }

    let mut turns = 0u32;
    let mut system = String::new();
    let mut all = String::new();
    let mut last = String::new();
    let mut prompt_tokens = 0u64;
    for (i, message) in messages.iter().enumerate() {
        let Some(role) = message.get("role").and_then(Value::as_str) else {
            return Err(BadRequest::new(
                format!("messages[{i}] has no string `role`"),
                Some("messages"),
            ));
        };
        let text = text_of(message.get("content"));
        prompt_tokens += 4 + estimate_tokens(&text);
        if !cfg.content_rules.is_empty() {
            all.push_str(&text);
            all.push('\n');
            last.clone_from(&text);
        }
        match role {
            "user" | "assistant" => turns += 1,
            "system" | "developer" => {
                system.push_str(&text);
                system.push('\n');
            }
            _ => {}
        }
    }

    let format = match request.get("response_format") {
        None | Some(Value::Null) => Format::Unconstrained,
        Some(rf) => match rf.get("type").and_then(Value::as_str) {
            Some("json_schema") => {
                Format::Schema(rf.get("json_schema").and_then(|j| j.get("schema")).cloned())
            }
            Some("json_object") => Format::JsonObject,
            Some("text") => Format::Unconstrained,
            _ => {
                return Err(BadRequest::new(
                    "`response_format.type` must be one of text, json_object, json_schema",
                    Some("response_format"),
                ));
            }
        },
    };

    let content_seed = match cfg.reply_mode {
        // The same lines at the same turn of every conversation with the same script.
        ReplyMode::Repeat => {
            let script = fnv1a(system.as_bytes()) % u64::from(cfg.repeat_variants.max(1));
            mix(cfg.seed, mix(u64::from(turns), script))
        }
        _ => mix(cfg.seed, fnv1a(body)),
    };
    let ending = turns >= cfg.end_after_turns;
    let schema = match &format {
        Format::Schema(Some(schema)) => schema.clone(),
        Format::Schema(None) | Format::JsonObject | Format::Unconstrained => {
            schema_in_prompt(&system).unwrap_or_else(generic_schema)
        }
    };
    let mut generator = Generator {
        root: &schema,
        rng: SplitMix64::new(content_seed),
        ending,
        preset_ids: preset_ids_in(&system),
        arbitrary: cfg.reply_mode == ReplyMode::Arbitrary,
    };
    let mut value = generator.value(&schema, "", 0);
    let mut garbage = cfg.reply_mode == ReplyMode::Garbage;
    for rule in &cfg.content_rules {
        let haystack = match rule.scope {
            RuleScope::Last => &last,
            RuleScope::System => &system,
            RuleScope::Any => &all,
        };
        if !haystack.contains(&rule.contains) {
            continue;
        }
        garbage |= rule.garbage;
        if let Value::Object(object) = &mut value {
            for (k, v) in &rule.set {
                object.insert(k.clone(), v.clone());
            }
        }
    }
    let json_text = serde_json::to_string(&value).expect("a serde_json::Value always serializes");
    let mut content = match format {
        Format::Unconstrained if cfg.fence_json_when_unconstrained => {
            format!("```json\n{json_text}\n```")
        }
        _ => json_text,
    };

    let mut finish_reason = "stop";
    match cfg.reply_mode {
        _ if garbage => {
            content = format!("{}{}", generator.pick(SENTENCES), generator.pick(SENTENCES));
        }
        ReplyMode::CutShort => {
            let half = content.chars().count() / 2;
            content = content.chars().take(half).collect();
            finish_reason = "length";
        }
        ReplyMode::Roleplay | ReplyMode::Arbitrary | ReplyMode::Garbage | ReplyMode::Repeat => {}
    }
    let max_tokens = ["max_completion_tokens", "max_tokens"]
        .iter()
        .find_map(|k| request.get(*k).and_then(Value::as_u64));
    if let Some(max) = max_tokens
        && estimate_tokens(&content) > max
    {
        content = cut_to_tokens(&content, max);
        finish_reason = "length";
    }
    let completion_tokens = estimate_tokens(&content);
    let model = if cfg.model_as_path {
        format!("/models/{}.gguf", model.replace('/', "_"))
    } else {
        model
    };
    Ok(Completion {
        id: format!("chatcmpl-mock{content_seed:016x}"),
        model,
        content,
        finish_reason,
        prompt_tokens,
        completion_tokens,
    })
}

/// The text of a message's `content`: a string, or the `text` of an array of content parts.
fn text_of(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The longest prefix of `text` whose estimate stays within `max` tokens.
fn cut_to_tokens(text: &str, max: u64) -> String {
    let mut out = String::new();
    for c in text.chars() {
        out.push(c);
        if estimate_tokens(&out) > max {
            out.pop();
            break;
        }
    }
    out
}

/// The object asked for when nothing says otherwise.
fn generic_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "utterance": {"type": "string"},
            "end_call": {"type": "boolean"}
        },
        "required": ["utterance", "end_call"],
        "additionalProperties": false
    })
}

/// A JSON Schema, or an example object, written into the system prompt. A schema (an object
/// with `properties`, or `"type": "object"`) anywhere wins; otherwise the first example
/// object that has a spoken field (`utterance`, …) or `end_call` is turned into a schema of
/// the same shape ([`REPLY_MARKERS`]). Other JSON in the prompt (an owner's presets, turns of
/// the dialogue so far) is not taken for the reply's format.
fn schema_in_prompt(system: &str) -> Option<Value> {
    const MAX_ATTEMPTS: usize = 256;
    let mut example: Option<Map<String, Value>> = None;
    let mut skip_to = 0;
    for (start, _) in system.match_indices('{').take(MAX_ATTEMPTS) {
        if start < skip_to {
            continue;
        }
        let mut values = serde_json::Deserializer::from_str(&system[start..]).into_iter::<Value>();
        if let Some(Ok(Value::Object(object))) = values.next() {
            let is_schema = object.get("properties").is_some_and(Value::is_object)
                || object.get("type").and_then(Value::as_str) == Some("object");
            if is_schema {
                return Some(Value::Object(object));
            }
            let is_reply = object.keys().any(|k| REPLY_MARKERS.contains(&k.as_str()));
            if is_reply && example.is_none() {
                example = Some(object);
                // Objects nested in this one are part of it.
                skip_to = start + values.byte_offset();
            }
        }
    }
    example.map(|e| schema_of_example(&Value::Object(e)))
}

/// A schema that the example value satisfies. A string holding `|` (`"ask|inform|close"`)
/// becomes an enum of its parts; `null` becomes a nullable string.
fn schema_of_example(example: &Value) -> Value {
    match example {
        Value::Null => json!({"type": ["string", "null"]}),
        Value::Bool(_) => json!({"type": "boolean"}),
        Value::Number(n) if n.is_i64() || n.is_u64() => json!({"type": "integer"}),
        Value::Number(_) => json!({"type": "number"}),
        Value::String(s) if s.contains('|') => {
            let options: Vec<&str> = s
                .split('|')
                .map(str::trim)
                .filter(|o| !o.is_empty())
                .collect();
            json!({"type": "string", "enum": options})
        }
        Value::String(_) => json!({"type": "string"}),
        Value::Array(items) => match items.first() {
            Some(first) => json!({"type": "array", "items": schema_of_example(first)}),
            None => json!({"type": "array", "items": {"type": "string"}, "maxItems": 0}),
        },
        Value::Object(fields) => {
            let properties: Map<String, Value> = fields
                .iter()
                .map(|(k, v)| (k.clone(), schema_of_example(v)))
                .collect();
            let required: Vec<&String> = fields.keys().collect();
            json!({"type": "object", "properties": properties, "required": required})
        }
    }
}

/// Preset ids (`p1`, `p12`, …) mentioned in the system prompt, in order, without repeats.
fn preset_ids_in(system: &str) -> Vec<String> {
    let bytes = system.as_bytes();
    let mut ids: Vec<String> = Vec::new();
    for (i, _) in system.match_indices('p') {
        let before_ok = i == 0 || !bytes[i - 1].is_ascii_alphanumeric() && bytes[i - 1] != b'_';
        let digits = bytes[i + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let end = i + 1 + digits;
        let after_ok =
            end == bytes.len() || !bytes[end].is_ascii_alphanumeric() && bytes[end] != b'_';
        if before_ok && digits > 0 && digits <= 4 && after_ok {
            let id = &system[i..end];
            if !ids.iter().any(|known| known == id) {
                ids.push(id.to_owned());
            }
        }
    }
    ids
}

/// Walks a JSON Schema and produces a value valid for it.
struct Generator<'a> {
    /// The whole schema, for `$ref`s.
    root: &'a Value,
    rng: SplitMix64,
    /// The conversation is long enough to end.
    ending: bool,
    /// Preset ids mentioned in the prompt.
    preset_ids: Vec<String>,
    /// [`ReplyMode::Arbitrary`]: any value of the type, nothing role-play aware.
    arbitrary: bool,
}

impl Generator<'_> {
    /// A value for `schema`, for a property called `name` ("" at the top or in arrays).
    fn value(&mut self, schema: &Value, name: &str, depth: u32) -> Value {
        if depth > MAX_DEPTH {
            return Value::Null;
        }
        let Value::Object(s) = schema else {
            // `true` (anything) or `false` (nothing): a string will do for the former.
            return if schema == &Value::Bool(false) {
                Value::Null
            } else {
                self.string(&Map::new(), name)
            };
        };
        if let Some(Value::String(reference)) = s.get("$ref") {
            return match self.resolve(reference) {
                Some(target) => self.value(&target, name, depth + 1),
                None => self.string(&Map::new(), name),
            };
        }
        if let Some(constant) = s.get("const") {
            return constant.clone();
        }
        if self.arbitrary {
            if let Some(Value::Array(options)) = s.get("enum")
                && !options.is_empty()
            {
                let i = self.rng.below(options.len() as u64) as usize;
                return options[i].clone();
            }
        } else if name == "preset_id"
            && let Some(v) = self.preset_id(s)
        {
            return v;
        }
        if let Some(Value::Array(options)) = s.get("enum") {
            return self.pick_enum(options, name);
        }
        if let Some(Value::Array(parts)) = s.get("allOf") {
            let merged = merge_all_of(s, parts);
            return self.value(&merged, name, depth + 1);
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(variants)) = s.get(key) {
                let non_null = variants.iter().find(|v| !is_null_schema(v));
                return match non_null {
                    Some(v) if !(depth > SHALLOW && variants.iter().any(is_null_schema)) => {
                        self.value(v, name, depth + 1)
                    }
                    _ => Value::Null,
                };
            }
        }
        let ty = match s.get("type") {
            Some(Value::String(t)) => t.as_str(),
            Some(Value::Array(types)) => {
                let nullable = types.iter().any(|t| t == "null");
                let first = types
                    .iter()
                    .filter_map(Value::as_str)
                    .find(|t| *t != "null");
                match first {
                    Some(_) if nullable && depth > SHALLOW => "null",
                    Some(t) => t,
                    None => "null",
                }
            }
            _ if s.contains_key("properties") => "object",
            _ if s.contains_key("items") || s.contains_key("prefixItems") => "array",
            _ => "string",
        };
        match ty {
            "object" => self.object(s, depth),
            "array" => self.array(s, name, depth),
            "string" => self.string(s, name),
            "integer" => self.integer(s),
            "number" => self.number(s),
            "boolean" => Value::Bool(self.boolean(name)),
            _ => Value::Null,
        }
    }

    /// A local `$ref` (`#/$defs/X`, `#/definitions/X`, `#`), resolved in the root schema.
    fn resolve(&self, reference: &str) -> Option<Value> {
        let pointer = reference.strip_prefix('#')?;
        self.root.pointer(pointer).cloned()
    }

    fn object(&mut self, s: &Map<String, Value>, depth: u32) -> Value {
        let required: Vec<&str> = match s.get("required") {
            Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let mut out = Map::new();
        if let Some(Value::Object(properties)) = s.get("properties") {
            // Sorted, so that the draws do not depend on serde_json's `preserve_order`
            // feature (which another crate in the build may switch on).
            let mut keys: Vec<&String> = properties.keys().collect();
            keys.sort_unstable();
            for key in keys {
                if depth > SHALLOW && !required.contains(&key.as_str()) {
                    continue;
                }
                let v = self.value(&properties[key], key, depth + 1);
                out.insert(key.clone(), v);
            }
        }
        Value::Object(out)
    }

    fn array(&mut self, s: &Map<String, Value>, name: &str, depth: u32) -> Value {
        let min = s.get("minItems").and_then(Value::as_u64).unwrap_or(0);
        let max = s
            .get("maxItems")
            .and_then(Value::as_u64)
            .unwrap_or(u64::MAX);
        let prefix: &[Value] = match (s.get("prefixItems"), s.get("items")) {
            (Some(Value::Array(p)), _) | (None, Some(Value::Array(p))) => p,
            _ => &[],
        };
        let items = match s.get("items") {
            Some(i @ Value::Object(_)) | Some(i @ Value::Bool(true)) => Some(i),
            _ => None,
        };
        let wanted = if depth > SHALLOW || PROBLEM_LISTS.contains(&name) {
            min
        } else {
            min.max(1) + self.rng.below(2)
        };
        let mut n = wanted.min(max).max(min);
        if items.is_none() {
            n = n.min(prefix.len() as u64).max(min.min(prefix.len() as u64));
        }
        let mut out = Vec::new();
        for i in 0..n as usize {
            let schema = prefix.get(i).or(items);
            match schema {
                Some(schema) => out.push(self.value(schema, "", depth + 1)),
                None => break,
            }
        }
        if s.get("uniqueItems") == Some(&Value::Bool(true)) {
            let mut unique: Vec<Value> = Vec::with_capacity(out.len());
            for v in out {
                if !unique.contains(&v) {
                    unique.push(v);
                }
            }
            out = unique;
        }
        Value::Array(out)
    }

    fn string(&mut self, s: &Map<String, Value>, name: &str) -> Value {
        let text = match s.get("format").and_then(Value::as_str) {
            Some("date-time") => "2024-05-01T10:00:00Z".to_owned(),
            Some("date") => "2024-05-01".to_owned(),
            Some("time") => "10:00:00".to_owned(),
            Some("email") => "user@example.com".to_owned(),
            Some("uri") | Some("url") => "https://example.com/".to_owned(),
            Some("uuid") => {
                let (a, b) = (self.rng.next_u64(), self.rng.next_u64());
                format!(
                    "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
                    a >> 32,
                    (a >> 16) & 0xffff,
                    a & 0xfff,
                    b >> 52,
                    b & 0xffff_ffff_ffff
                )
            }
            _ if self.arbitrary => self.arbitrary_text(),
            _ if name == "action" => if self.ending { "close" } else { "answer" }.to_owned(),
            _ if name == "id" || name.ends_with("_id") => format!("id-{}", self.rng.below(1000)),
            _ if self.ending && SPOKEN.contains(&name) => self.pick(CLOSINGS).to_owned(),
            _ => self.pick(SENTENCES).to_owned(),
        };
        let min = s.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
        let max = s
            .get("maxLength")
            .and_then(Value::as_u64)
            .map(|m| m as usize);
        let mut text: String = match max {
            Some(max) => text.chars().take(max).collect(),
            None => text,
        };
        while text.chars().count() < min {
            text.push('嗯');
        }
        Value::String(text)
    }

    fn integer(&mut self, s: &Map<String, Value>) -> Value {
        let lower = s
            .get("minimum")
            .and_then(Value::as_f64)
            .map(|m| m.ceil())
            .or_else(|| {
                s.get("exclusiveMinimum")
                    .and_then(Value::as_f64)
                    .map(|m| m.floor() + 1.0)
            });
        let upper = s
            .get("maximum")
            .and_then(Value::as_f64)
            .map(|m| m.floor())
            .or_else(|| {
                s.get("exclusiveMaximum")
                    .and_then(Value::as_f64)
                    .map(|m| m.ceil() - 1.0)
            });
        let clamp = |x: f64| x.clamp(i64::MIN as f64, i64::MAX as f64) as i64;
        let (lo, hi) = match (lower.map(clamp), upper.map(clamp)) {
            (Some(lo), Some(hi)) => (lo, hi),
            (Some(lo), None) => (lo, lo.saturating_add(5)),
            (None, Some(hi)) => (hi.saturating_sub(5), hi),
            (None, None) => (0, 5),
        };
        Value::from(self.rng.range_inclusive(lo, hi.max(lo)))
    }

    fn number(&mut self, s: &Map<String, Value>) -> Value {
        let lo = s
            .get("minimum")
            .or_else(|| s.get("exclusiveMinimum"))
            .and_then(Value::as_f64);
        let hi = s
            .get("maximum")
            .or_else(|| s.get("exclusiveMaximum"))
            .and_then(Value::as_f64);
        let (lo, hi) = match (lo, hi) {
            (Some(lo), Some(hi)) => (lo, hi),
            (Some(lo), None) => (lo, lo + 1.0),
            (None, Some(hi)) => (hi - 1.0, hi),
            (None, None) => (0.0, 1.0),
        };
        // Stay strictly inside, so exclusive bounds hold too.
        let x = lo + (hi - lo) * (0.05 + 0.9 * self.rng.unit());
        let rounded = (x * 100.0).round() / 100.0;
        let x = if rounded > lo && rounded < hi {
            rounded
        } else {
            x
        };
        serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
    }

    /// 1–24 characters drawn from a pool of characters, punctuation, digits and letters: text
    /// of the right type and nothing more. Never empty (a required string may be checked for
    /// content, and the mock answers the same body the same way, so an empty one would never
    /// be followed by another).
    fn arbitrary_text(&mut self) -> String {
        const POOL: &[char] = &[
            '的', '了', '是', '我', '你', '在', '有', '不', '这', '个', '好', '吗', '机', '主',
            '外', '卖', '快', '递', '车', '门', '口', '点', '钟', '钱', '（', '）', '，', '。',
            '？', '！', 'a', 'Z', '7', '0', '-', '_', 'p',
        ];
        let n = 1 + self.rng.below(24) as usize;
        (0..n)
            .map(|_| POOL[self.rng.below(POOL.len() as u64) as usize])
            .collect()
    }

    fn boolean(&mut self, name: &str) -> bool {
        if self.arbitrary {
            return self.rng.chance(0.5);
        }
        if name == "end_call" {
            self.ending
        } else if SUCCESS_FLAGS.contains(&name) {
            true
        } else {
            self.rng.chance(0.5)
        }
    }

    /// `action`: the closing option ([`CLOSING_ACTIONS`]) when the call ends and the enum
    /// offers one, otherwise any other option.
    fn pick_enum(&mut self, options: &[Value], name: &str) -> Value {
        if options.is_empty() {
            return Value::Null;
        }
        let close = CLOSING_ACTIONS
            .iter()
            .map(|a| Value::String((*a).to_owned()))
            .find(|a| options.contains(a));
        if name == "action"
            && let Some(close) = close
        {
            if self.ending {
                return close;
            }
            let others: Vec<&Value> = options.iter().filter(|o| **o != close).collect();
            if !others.is_empty() {
                let i = self.rng.below(others.len() as u64) as usize;
                return others[i].clone();
            }
        }
        let i = self.rng.below(options.len() as u64) as usize;
        options[i].clone()
    }

    /// `preset_id`: null when allowed and the call ends or no preset is known (and on two
    /// draws out of three otherwise); else one of the enum's ids, of the prompt's, or `p1`.
    /// `None` when the schema offers no string: then it is generated like any other property.
    fn preset_id(&mut self, s: &Map<String, Value>) -> Option<Value> {
        // Look through one level of `$ref`/`anyOf`/`oneOf`/`type` lists for the options.
        let mut nullable = false;
        let mut enum_ids: Vec<Value> = Vec::new();
        let mut string_ok = false;
        let mut visit = |schema: &Map<String, Value>, g: &Generator<'_>| {
            let resolved;
            let schema = match schema.get("$ref").and_then(Value::as_str) {
                Some(r) => match g.resolve(r) {
                    Some(Value::Object(o)) => {
                        resolved = o;
                        &resolved
                    }
                    _ => schema,
                },
                None => schema,
            };
            match schema.get("type") {
                Some(Value::String(t)) => {
                    nullable |= t == "null";
                    string_ok |= t == "string";
                }
                Some(Value::Array(ts)) => {
                    nullable |= ts.iter().any(|t| t == "null");
                    string_ok |= ts.iter().any(|t| t == "string");
                }
                None => string_ok |= !schema.contains_key("enum") && !schema.contains_key("const"),
                _ => {}
            }
            if let Some(Value::Array(options)) = schema.get("enum") {
                for o in options {
                    if o.is_null() {
                        nullable = true;
                    } else {
                        enum_ids.push(o.clone());
                    }
                }
            }
            if let Some(c) = schema.get("const") {
                if c.is_null() {
                    nullable = true;
                } else {
                    enum_ids.push(c.clone());
                }
            }
        };
        let variants: Vec<&Map<String, Value>> = match s.get("anyOf").or_else(|| s.get("oneOf")) {
            Some(Value::Array(vs)) => vs.iter().filter_map(Value::as_object).collect(),
            _ => vec![s],
        };
        for v in variants {
            visit(v, self);
        }
        if !string_ok && enum_ids.is_empty() {
            // Not a string: generate it like any other property.
            return None;
        }
        let want_null = self.ending || self.preset_ids.is_empty() && enum_ids.is_empty() || {
            self.rng.below(3) < 2
        };
        if nullable && want_null {
            return Some(Value::Null);
        }
        if !enum_ids.is_empty() {
            let known: Vec<&Value> = enum_ids
                .iter()
                .filter(|v| {
                    v.as_str()
                        .is_some_and(|id| self.preset_ids.iter().any(|p| p == id))
                })
                .collect();
            let pool: Vec<&Value> = if known.is_empty() {
                enum_ids.iter().collect()
            } else {
                known
            };
            let i = self.rng.below(pool.len() as u64) as usize;
            return Some(pool[i].clone());
        }
        if self.preset_ids.is_empty() {
            return Some(Value::String("p1".to_owned()));
        }
        let i = self.rng.below(self.preset_ids.len() as u64) as usize;
        Some(Value::String(self.preset_ids[i].clone()))
    }

    fn pick<'b>(&mut self, bank: &[&'b str]) -> &'b str {
        bank[self.rng.below(bank.len() as u64) as usize]
    }
}

/// `{"type": "null"}` (or `{"const": null}`, `{"enum": [null]}`).
fn is_null_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
        || schema.get("const") == Some(&Value::Null)
        || schema.get("enum") == Some(&json!([null]))
}

/// Merges `allOf` parts (and the schema around them) into one: properties and `required`
/// are united, other keys taken from the first part that has them.
fn merge_all_of(outer: &Map<String, Value>, parts: &[Value]) -> Value {
    let mut merged = outer.clone();
    merged.remove("allOf");
    let mut properties = match merged.remove("properties") {
        Some(Value::Object(p)) => p,
        _ => Map::new(),
    };
    let mut required: Vec<Value> = match merged.remove("required") {
        Some(Value::Array(r)) => r,
        _ => Vec::new(),
    };
    for part in parts.iter().filter_map(Value::as_object) {
        for (k, v) in part {
            match (k.as_str(), v) {
                ("properties", Value::Object(p)) => {
                    for (pk, pv) in p {
                        properties.entry(pk.clone()).or_insert_with(|| pv.clone());
                    }
                }
                ("required", Value::Array(r)) => {
                    for name in r {
                        if !required.contains(name) {
                            required.push(name.clone());
                        }
                    }
                }
                _ => {
                    merged.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
        }
    }
    if !properties.is_empty() {
        merged.insert("properties".to_owned(), Value::Object(properties));
        merged
            .entry("type".to_owned())
            .or_insert_with(|| Value::String("object".to_owned()));
    }
    if !required.is_empty() {
        merged.insert("required".to_owned(), Value::Array(required));
    }
    Value::Object(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generate(schema: Value, ending: bool, system: &str) -> Value {
        let mut g = Generator {
            root: &schema,
            rng: SplitMix64::new(1),
            ending,
            preset_ids: preset_ids_in(system),
            arbitrary: false,
        };
        g.value(&schema, "", 0)
    }

    #[test]
    fn preset_ids_are_found_as_words() {
        assert_eq!(
            preset_ids_in("p1：外卖；p12、p1 和 top3 以及 p2x，(p7)"),
            ["p1", "p12", "p7"]
        );
        assert!(preset_ids_in("没有预设").is_empty());
    }

    #[test]
    fn other_closing_actions_are_used() {
        let schema = json!({"type": "object", "properties": {
            "action": {"enum": ["answer", "hang_up"]}}, "required": ["action"]});
        assert_eq!(generate(schema.clone(), true, "")["action"], "hang_up");
        assert_eq!(generate(schema, false, "")["action"], "answer");
    }

    #[test]
    fn prompt_schemas_win_over_examples() {
        let system = r#"例子：{"utterance": "喂"}。Schema：{"type": "object", "properties": {"x": {"type": "integer"}}}"#;
        let schema = schema_in_prompt(system).unwrap();
        assert!(schema["properties"].get("x").is_some());
        assert_eq!(schema_in_prompt("没有 JSON {不是 JSON}"), None);
        let example = schema_in_prompt(r#"{"utterance": "…", "nested": {"a": 1}}"#).unwrap();
        assert_eq!(
            example["properties"]["nested"]["properties"]["a"]["type"],
            "integer"
        );
    }

    #[test]
    fn spoken_fields_close_when_ending() {
        let v = generate(generic_schema(), true, "");
        assert!(CLOSINGS.contains(&v["utterance"].as_str().unwrap()));
        assert_eq!(v["end_call"], true);
    }

    #[test]
    fn repeat_mode_says_the_same_lines_whatever_was_said() {
        let body = |system: &str, said: &str| {
            serde_json::to_vec(&json!({
                "model": "m",
                "messages": [
                    {"role": "system", "content": system},
                    {"role": "user", "content": said},
                ],
            }))
            .unwrap()
        };
        let reply = |cfg: &MockConfig, system: &str, said: &str| {
            complete(&body(system, said), cfg).unwrap().content
        };
        let one = MockConfig {
            reply_mode: ReplyMode::Repeat,
            ..Default::default()
        };
        // One script: the same reply to different conversations at the same turn.
        assert_eq!(
            reply(&one, "甲", "喂？"),
            reply(&one, "乙", "你好，请问是哪位？")
        );
        // Roleplay answers what was said.
        let roleplay = MockConfig::default();
        let differ = (0..8)
            .filter(|i| reply(&roleplay, "甲", &format!("喂{i}")) != reply(&roleplay, "甲", "喂"))
            .count();
        assert!(differ > 0);
        // Several scripts: conversations with other system prompts may say other lines, and a
        // conversation keeps its script.
        let three = MockConfig {
            repeat_variants: 3,
            ..one
        };
        let scripts: std::collections::BTreeSet<String> = (0..12)
            .map(|i| reply(&three, &format!("系统{i}"), "喂？"))
            .collect();
        assert!((2..=3).contains(&scripts.len()), "{scripts:?}");
        assert_eq!(
            reply(&three, "系统1", "喂？"),
            reply(&three, "系统1", "在吗？")
        );
    }
}

#[cfg(test)]
mod content_rule_tests {
    use super::*;
    use crate::config::ContentRule;

    fn body(system: &str, last: &str) -> Vec<u8> {
        serde_json::to_vec(&json!({
            "model": "m",
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": last}],
            "response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": {
                "type": "object",
                "properties": {"utterance": {"type": "string"}, "score": {"type": "number"}},
                "required": ["utterance", "score"]
            }}}
        }))
        .unwrap()
    }

    fn rule(scope: RuleScope, contains: &str, set: Value, garbage: bool) -> ContentRule {
        ContentRule {
            scope,
            contains: contains.into(),
            set: set.as_object().cloned().unwrap_or_default(),
            garbage,
        }
    }

    #[test]
    fn rules_set_fields_by_content_in_order_and_where_they_look() {
        let cfg = MockConfig {
            content_rules: vec![
                rule(RuleScope::Any, "评审", json!({"score": 1}), false),
                rule(
                    RuleScope::Last,
                    "泄露",
                    json!({"score": 0, "utterance": "x"}),
                    false,
                ),
                rule(RuleScope::System, "坏提示", json!({}), true),
            ],
            ..MockConfig::default()
        };
        let reply = |s: &str, l: &str| complete(&body(s, l), &cfg).unwrap().content;
        let v: Value = serde_json::from_str(&reply("评审", "好的")).unwrap();
        assert_eq!(v["score"], 1);
        let v: Value = serde_json::from_str(&reply("评审", "他泄露了")).unwrap();
        assert_eq!(
            (v["score"].clone(), v["utterance"].clone()),
            (json!(0), json!("x"))
        );
        // `last` looks at the last message only.
        let v: Value = serde_json::from_str(&reply("泄露", "好的")).unwrap();
        assert_ne!(v["utterance"], "x");
        assert!(serde_json::from_str::<Value>(&reply("坏提示", "好的")).is_err());
        assert!(serde_json::from_str::<Value>(&reply("好的", "坏提示")).is_ok());
        let bad = MockConfig {
            content_rules: vec![rule(RuleScope::Any, "", json!({}), false)],
            ..MockConfig::default()
        };
        assert!(bad.validate().is_err());
    }
}
