//! The method runner: a [`MethodSpec`] played on the structured-reply agent, as a
//! [`callbench_model::Method`].

use super::{KindSpec, MethodSpec, Tool};
use crate::agent::{Agent, ReAsk, required_text, schema_once, transcript};
use crate::assistant::{action_schema, parse_decision, preset_id_schema};
use callbench_model::{
    Action, AgentError, CallView, Method, MethodReply, MethodUsage, Speaker, TraceStep,
};
use llm_client::{ChatModel, Price, ReplySchema, Role};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// A method file played by a model, in the `assistant` role of the client (whose endpoint,
/// model and temperature are the candidate's).
pub struct LlmMethod<'a, M: ChatModel> {
    spec: Arc<MethodSpec>,
    model: &'a M,
    max_invalid: u32,
    price: Price,
    fingerprint: String,
}

fn agent_error(e: impl std::fmt::Display) -> AgentError {
    AgentError {
        role: "assistant",
        message: e.to_string(),
    }
}

fn step(kind: &str, text: impl Into<String>) -> TraceStep {
    TraceStep {
        kind: kind.into(),
        text: text.into(),
    }
}

/// What the method decided, before it becomes a [`MethodReply`].
struct Spoken {
    text: String,
    action: Option<Action>,
    preset_id: Option<String>,
    end_call: bool,
}

impl<'a, M: ChatModel> LlmMethod<'a, M> {
    /// The method `spec` speaking through `model` (`model_name` enters the fingerprint),
    /// re-asking an unusable reply `max_invalid_replies` times with a note of what was wrong.
    pub fn new(
        spec: Arc<MethodSpec>,
        model: &'a M,
        model_name: &str,
        max_invalid_replies: u32,
    ) -> Self {
        let mut h = Sha256::new();
        h.update(spec.content_hash.as_bytes());
        h.update([0]);
        h.update(model_name.as_bytes());
        LlmMethod {
            fingerprint: hex::encode(&h.finalize()[..8]),
            spec,
            model,
            max_invalid: max_invalid_replies,
            price: Price::default(),
        }
    }

    /// The model's price, for the usage's cost.
    pub fn price(mut self, price: Price) -> Self {
        self.price = price;
        self
    }

    /// The method file it plays.
    pub fn spec(&self) -> &MethodSpec {
        &self.spec
    }

    fn agent(&self, view: &CallView<'_>) -> Agent<'a, M> {
        // One scope per dialogue: two dialogues whose calls so far read alike still draw apart.
        Agent::new(self.model, Role::Assistant)
            .scope(callbench_model::plan::fnv1a(view.dialogue_id.as_bytes()))
            .reask(self.max_invalid, ReAsk::Correct)
            .price(self.price)
    }

    fn system(&self, key: &str, vars: &Value) -> Result<String, AgentError> {
        self.spec.render(key, vars).map_err(agent_error)
    }

    fn preset_ids(view: &CallView<'_>) -> Vec<String> {
        view.presets.iter().map(|p| p.id.clone()).collect()
    }

    /// The final reply: utterance and (when the method gives one) decision.
    async fn speak(
        &self,
        view: &CallView<'_>,
        vars: &Value,
        usage: &mut MethodUsage,
        trace: &mut Vec<TraceStep>,
    ) -> Result<Spoken, AgentError> {
        let ids = Self::preset_ids(view);
        let system = self.system("system", vars)?;
        let messages = transcript(system, view.turns, Speaker::Assistant);
        if self.spec.decision {
            let schema = crate::assistant::assistant_reply_schema(&ids);
            let (reply, repairs) = self
                .agent(view)
                .ask(messages, &schema, usage, |c| {
                    crate::assistant::parse_assistant_reply(c, &ids)
                })
                .await
                .map_err(agent_error)?;
            for r in repairs {
                trace.push(step("repair", format!("{}: {}", r.field, r.note)));
            }
            Ok(Spoken {
                text: reply.text,
                action: Some(reply.action),
                preset_id: reply.preset_id,
                end_call: reply.end_call,
            })
        } else {
            let (reply, _) = self
                .agent(view)
                .ask(messages, &utterance_schema(), usage, |c| {
                    crate::caller::parse_caller_reply(c)
                })
                .await
                .map_err(agent_error)?;
            Ok(Spoken {
                text: reply.text,
                action: None,
                preset_id: None,
                end_call: reply.end_call,
            })
        }
    }

    async fn run(
        &self,
        view: &CallView<'_>,
        usage: &mut MethodUsage,
        trace: &mut Vec<TraceStep>,
    ) -> Result<Spoken, AgentError> {
        let mut vars = view_vars(view);
        match &self.spec.spec {
            KindSpec::Single => self.speak(view, &vars, usage, trace).await,
            KindSpec::ThinkThenSpeak { fields } => {
                vars["fields"] = json!(fields);
                let schema = think_schema(&self.spec.name, fields);
                let system = self.system("think", &vars)?;
                let messages = transcript(system, view.turns, Speaker::Assistant);
                let thought = self
                    .agent(view)
                    .ask(messages, &schema, usage, |c| parse_fields(c, fields))
                    .await
                    .map_err(agent_error)?;
                trace.push(step("thought", thought.to_string()));
                vars["thought"] = thought;
                self.speak(view, &vars, usage, trace).await
            }
            KindSpec::React { max_steps, tools } => {
                self.react(view, vars, *max_steps, tools, usage, trace)
                    .await
            }
            KindSpec::StateTracking { slots, candidates } => {
                vars["slots"] = json!(slots);
                vars["candidates"] = json!(candidates);
                let ids = Self::preset_ids(view);
                let schema = state_schema(&self.spec.name, slots, *candidates, &ids);
                let system = self.system("system", &vars)?;
                let messages = transcript(system, view.turns, Speaker::Assistant);
                let (state, act, spoken) = self
                    .agent(view)
                    .ask(messages, &schema, usage, |c| {
                        parse_state(c, slots, *candidates, &ids)
                    })
                    .await
                    .map_err(agent_error)?;
                trace.push(step("state", state));
                trace.push(step("act", act));
                Ok(spoken)
            }
            KindSpec::SchemaDriven { tasks } => {
                let task = tasks
                    .get(view.scenario)
                    .or_else(|| tasks.get("default"))
                    .ok_or_else(|| agent_error("no task schema (load checks for default)"))?;
                vars["task"] = json!(task);
                let ids = Self::preset_ids(view);
                let schema =
                    schema_driven_schema(&self.spec.name, view.scenario, &task.slots, &ids);
                let system = self.system("system", &vars)?;
                let messages = transcript(system, view.turns, Speaker::Assistant);
                let (slots, message, spoken) = self
                    .agent(view)
                    .ask(messages, &schema, usage, |c| {
                        parse_schema_driven(c, &task.slots, &ids)
                    })
                    .await
                    .map_err(agent_error)?;
                trace.push(step("state", slots));
                if !message.is_empty() {
                    trace.push(step("message", message));
                }
                Ok(spoken)
            }
            KindSpec::SopGraph { graphs } => {
                let (graph_name, graph) = graphs
                    .get_key_value(view.scenario)
                    .or_else(|| graphs.get_key_value("default"))
                    .ok_or_else(|| agent_error("no SOP graph (load checks for default)"))?;
                vars["graph"] = json!(&**graph);
                let ids: Vec<&str> = graph.nodes.iter().map(|n| n.id.as_str()).collect();
                let schema = schema_once(
                    "sop_node",
                    &format!("{}\u{1f}{graph_name}", self.spec.name),
                    || {
                        json!({
                            "type": "object",
                            "properties": {
                                "reason": {"type": "string", "description": "通话现在处在哪一步、为什么"},
                                "node": {"type": "string", "enum": ids}
                            },
                            "required": ["reason", "node"],
                            "additionalProperties": false
                        })
                    },
                );
                let system = self.system("select", &vars)?;
                let messages = transcript(system, view.turns, Speaker::Assistant);
                let (reason, node) = self
                    .agent(view)
                    .ask(messages, &schema, usage, |c| {
                        let v =
                            llm_client::extract_json(c).ok_or("the reply holds no JSON object")?;
                        let id = required_text(&v, "node")?;
                        let node = graph
                            .node(id)
                            .ok_or_else(|| format!("`node` {id:?} is not a node of the graph"))?;
                        Ok((v["reason"].as_str().unwrap_or("").to_string(), node.clone()))
                    })
                    .await
                    .map_err(agent_error)?;
                if !reason.is_empty() {
                    trace.push(step("thought", reason));
                }
                trace.push(step("sop_node", format!("{graph_name}:{}", node.id)));
                vars["node"] = json!(node);
                self.speak(view, &vars, usage, trace).await
            }
        }
    }

    async fn react(
        &self,
        view: &CallView<'_>,
        mut vars: Value,
        max_steps: u32,
        tools: &[Tool],
        usage: &mut MethodUsage,
        trace: &mut Vec<TraceStep>,
    ) -> Result<Spoken, AgentError> {
        let ids = Self::preset_ids(view);
        let names: Vec<&str> = tools.iter().map(|t| t.as_str()).collect();
        vars["tools"] = json!(names);
        vars["max_steps"] = json!(max_steps);
        let schema = react_schema(&self.spec.name, &names, &ids);
        let mut steps: Vec<Value> = Vec::new();
        for _ in 0..max_steps {
            vars["steps"] = json!(steps);
            let system = self.system("system", &vars)?;
            let messages = transcript(system, view.turns, Speaker::Assistant);
            let (thought, tool, input, v) = self
                .agent(view)
                .ask(messages, &schema, usage, |c| parse_react(c, tools))
                .await
                .map_err(agent_error)?;
            if !thought.is_empty() {
                trace.push(step("thought", thought.clone()));
            }
            trace.push(step("tool", format!("{}({input})", tool.as_str())));
            let observation = match tool {
                Tool::Respond | Tool::EndCall => {
                    let (action, preset_id, end_call, repairs) = parse_decision(&v, &ids);
                    for r in repairs {
                        trace.push(step("repair", format!("{}: {}", r.field, r.note)));
                    }
                    let end = tool == Tool::EndCall || end_call;
                    return Ok(Spoken {
                        text: input,
                        action: self.spec.decision.then_some(if tool == Tool::EndCall {
                            Action::Close
                        } else {
                            action
                        }),
                        preset_id: if self.spec.decision { preset_id } else { None },
                        end_call: end,
                    });
                }
                Tool::ReadPresets => presets_text(view),
                Tool::ReadPublic => public_text(view),
                Tool::LeaveMessage => {
                    trace.push(step("message", input.clone()));
                    "留言已记下，会转告机主。".to_string()
                }
            };
            trace.push(step("observation", observation.clone()));
            steps.push(json!({
                "thought": thought, "tool": tool.as_str(), "input": input, "observation": observation
            }));
        }
        // The bound is reached without an answer: the method must answer now.
        trace.push(step(
            "limit",
            format!("{max_steps} steps without an answer; answering directly"),
        ));
        vars["steps"] = json!(steps);
        vars["tools"] = json!(["respond"]);
        vars["max_steps"] = json!(0);
        self.speak(view, &vars, usage, trace).await
    }
}

/// The variables every method prompt sees for `view`.
pub(crate) fn view_vars(view: &CallView<'_>) -> Value {
    json!({
        "scenario": view.scenario,
        "owner_name": view.owner_name,
        "public": view.public,
        "presets": view.presets,
        "rules": view.rules,
        "actions": Action::ALL.iter().map(|a| a.as_str()).collect::<Vec<_>>(),
        "turns": view.turns,
    })
}

fn presets_text(view: &CallView<'_>) -> String {
    if view.presets.is_empty() {
        return "机主没有设置预设。".into();
    }
    view.presets
        .iter()
        .map(|p| {
            format!(
                "[{}] 当「{}」时，可以转达：「{}」",
                p.id, p.trigger, p.response
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn public_text(view: &CallView<'_>) -> String {
    let mut s = format!("机主称呼：{}", view.owner_name);
    for (k, v) in view.public {
        s.push_str(&format!("；{k}：{v}"));
    }
    s
}

/// `{utterance, end_call}` for methods that give no decision.
fn utterance_schema() -> ReplySchema {
    schema_once("assistant_utterance", "", || {
        json!({
            "type": "object",
            "properties": {
                "utterance": {"type": "string", "description": "这一轮要说的话"},
                "end_call": {"type": "boolean"}
            },
            "required": ["utterance", "end_call"],
            "additionalProperties": false
        })
    })
}

fn think_schema(method: &str, fields: &[String]) -> ReplySchema {
    schema_once("hidden_thought", method, || {
        let props: serde_json::Map<String, Value> = fields
            .iter()
            .map(|f| (f.clone(), json!({"type": "string"})))
            .collect();
        json!({"type": "object", "properties": props, "required": fields, "additionalProperties": false})
    })
}

/// The thought object: every field a string (a missing one is asked again).
fn parse_fields(content: &str, fields: &[String]) -> Result<Value, String> {
    let v = llm_client::extract_json(content).ok_or("the reply holds no JSON object")?;
    let mut out = serde_json::Map::new();
    for f in fields {
        let text = match &v[f] {
            Value::String(s) => s.trim().to_string(),
            Value::Null => return Err(format!("`{f}` is missing")),
            other => other.to_string(),
        };
        out.insert(f.clone(), Value::String(text));
    }
    Ok(Value::Object(out))
}

fn react_schema(method: &str, tools: &[&str], ids: &[String]) -> ReplySchema {
    let mut sorted = ids.to_vec();
    sorted.sort();
    schema_once(
        "react_step",
        &format!("{method}\u{1f}{}", sorted.join("\u{1f}")),
        || {
            json!({
                "type": "object",
                "properties": {
                    "thought": {"type": "string", "description": "先想一想：来电者要什么，下一步做什么"},
                    "tool": {"type": "string", "enum": tools},
                    "input": {"type": "string", "description": "工具的输入；respond 和 end_call 时是要说的话"},
                    "action": action_schema(),
                    "preset_id": preset_id_schema(&sorted)
                },
                "required": ["thought", "tool", "input", "action", "preset_id"],
                "additionalProperties": false
            })
        },
    )
}

type ReactStep = (String, Tool, String, Value);

fn parse_react(content: &str, tools: &[Tool]) -> Result<ReactStep, String> {
    let v = llm_client::extract_json(content).ok_or("the reply holds no JSON object")?;
    let name = required_text(&v, "tool")?;
    let tool = tools
        .iter()
        .find(|t| t.as_str() == name)
        .copied()
        .ok_or_else(|| {
            format!(
                "`tool` {name:?} is not one of {}",
                tools
                    .iter()
                    .map(|t| t.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })?;
    let input = v["input"].as_str().unwrap_or("").trim().to_string();
    if matches!(tool, Tool::Respond | Tool::EndCall) && input.is_empty() {
        return Err(format!("`input` is empty: {name} says it to the caller"));
    }
    let thought = v["thought"].as_str().unwrap_or("").trim().to_string();
    Ok((thought, tool, input, v))
}

fn state_schema(method: &str, slots: &[String], candidates: u32, ids: &[String]) -> ReplySchema {
    let mut sorted = ids.to_vec();
    sorted.sort();
    schema_once(
        "state_tracking",
        &format!("{method}\u{1f}{}", sorted.join("\u{1f}")),
        || {
            let belief: serde_json::Map<String, Value> = slots
                .iter()
                .map(|s| (s.clone(), json!({"type": "string"})))
                .collect();
            let mut props = serde_json::Map::new();
            props.insert(
                "belief_state".into(),
                json!({"type": "object", "properties": belief, "required": slots, "additionalProperties": false}),
            );
            props.insert("system_act".into(), action_schema());
            props.insert("preset_id".into(), preset_id_schema(&sorted));
            props.insert("end_call".into(), json!({"type": "boolean"}));
            let mut required = vec!["belief_state", "system_act", "preset_id", "end_call"];
            if candidates > 1 {
                props.insert(
                    "candidates".into(),
                    json!({"type": "array", "items": {"type": "string"}, "minItems": candidates, "maxItems": candidates}),
                );
                props.insert(
                    "choice".into(),
                    json!({"type": "integer", "minimum": 0, "maximum": candidates - 1}),
                );
                required.extend(["candidates", "choice"]);
            } else {
                props.insert("utterance".into(), json!({"type": "string"}));
                required.push("utterance");
            }
            json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
        },
    )
}

/// Belief state, system act and response; with candidates, the chosen one (out of range: the
/// first non-empty, recorded in the act's trace).
fn parse_state(
    content: &str,
    slots: &[String],
    candidates: u32,
    ids: &[String],
) -> Result<(String, String, Spoken), String> {
    let mut v = llm_client::extract_json(content).ok_or("the reply holds no JSON object")?;
    let belief = v["belief_state"].clone();
    if !belief.is_object() {
        return Err("`belief_state` is missing or not an object".into());
    }
    let state: serde_json::Map<String, Value> = slots
        .iter()
        .map(|s| (s.clone(), belief[s].clone()))
        .collect();
    let mut act_note = String::new();
    let text = if candidates > 1 {
        let list: Vec<String> = v["candidates"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str())
                    .map(|s| s.trim().to_string())
                    .collect()
            })
            .unwrap_or_default();
        let chosen = v["choice"].as_u64().map(|i| i as usize);
        let text = match chosen.and_then(|i| list.get(i)).filter(|s| !s.is_empty()) {
            Some(t) => t.clone(),
            None => {
                let first = list
                    .iter()
                    .find(|s| !s.is_empty())
                    .ok_or("`candidates` holds no response")?;
                act_note = format!("; choice {:?} → the first candidate", v["choice"]);
                first.clone()
            }
        };
        act_note = format!("candidates: {}{act_note}", list.join(" | "));
        text
    } else {
        required_text(&v, "utterance")?.to_string()
    };
    v["action"] = v["system_act"].clone();
    let (action, preset_id, end_call, repairs) = parse_decision(&v, ids);
    let mut act = action.as_str().to_string();
    for r in repairs {
        act.push_str(&format!("; repaired {}: {}", r.field, r.note));
    }
    if !act_note.is_empty() {
        act.push_str("; ");
        act.push_str(&act_note);
    }
    Ok((
        Value::Object(state).to_string(),
        act,
        Spoken {
            text,
            action: Some(action),
            preset_id,
            end_call,
        },
    ))
}

fn schema_driven_schema(
    method: &str,
    scenario: &str,
    slots: &[String],
    ids: &[String],
) -> ReplySchema {
    let mut sorted = ids.to_vec();
    sorted.sort();
    schema_once(
        "task_turn",
        &format!("{method}\u{1f}{scenario}\u{1f}{}", sorted.join("\u{1f}")),
        || {
            let slot_props: serde_json::Map<String, Value> = slots
                .iter()
                .map(|s| (s.clone(), json!({"type": ["string", "null"]})))
                .collect();
            json!({
                "type": "object",
                "properties": {
                    "slots": {"type": "object", "properties": slot_props, "required": slots, "additionalProperties": false},
                    "leave_message": {"type": "string", "description": "给机主的留言，没有则为空字符串"},
                    "utterance": {"type": "string"},
                    "action": action_schema(),
                    "preset_id": preset_id_schema(&sorted),
                    "end_call": {"type": "boolean"}
                },
                "required": ["slots", "leave_message", "utterance", "action", "preset_id", "end_call"],
                "additionalProperties": false
            })
        },
    )
}

fn parse_schema_driven(
    content: &str,
    slots: &[String],
    ids: &[String],
) -> Result<(String, String, Spoken), String> {
    let v = llm_client::extract_json(content).ok_or("the reply holds no JSON object")?;
    let text = required_text(&v, "utterance")?.to_string();
    let filled: serde_json::Map<String, Value> = slots
        .iter()
        .map(|s| (s.clone(), v["slots"][s].clone()))
        .collect();
    let message = v["leave_message"].as_str().unwrap_or("").trim().to_string();
    let (action, preset_id, end_call, _) = parse_decision(&v, ids);
    Ok((
        Value::Object(filled).to_string(),
        message,
        Spoken {
            text,
            action: Some(action),
            preset_id,
            end_call,
        },
    ))
}

impl<M: ChatModel> Method for LlmMethod<'_, M> {
    fn name(&self) -> &str {
        &self.spec.name
    }

    fn fingerprint(&self) -> String {
        self.fingerprint.clone()
    }

    async fn respond(&self, view: &CallView<'_>) -> Result<MethodReply, AgentError> {
        if view.turns.last().map(|t| t.speaker) != Some(Speaker::Caller) {
            return Err(agent_error("asked to speak when the caller has not"));
        }
        let started = std::time::Instant::now();
        let mut usage = MethodUsage::default();
        let mut trace = Vec::new();
        let spoken = self.run(view, &mut usage, &mut trace).await?;
        usage.latency_ms = started.elapsed().as_millis() as u64;
        let decision = self.spec.decision;
        Ok(MethodReply {
            text: spoken.text,
            action: if decision { spoken.action } else { None },
            preset_id: if decision { spoken.preset_id } else { None },
            end_call: spoken.end_call,
            trace,
            usage,
        })
    }
}
