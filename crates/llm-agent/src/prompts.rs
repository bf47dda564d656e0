//! The prompts of `generate`'s role-players and judge:
//! `templates/prompts/{caller,assistant,judge,judge_question}.tera`,
//! and a scenario's own `caller_prompt` / `assistant_prompt` where it brings them. Compiled with
//! tera once and rendered once at load with stand-in variables, so that a wrong variable fails at
//! load with file and key, never mid-run.

use crate::error::{Error, Result, tera_chain};
use callbench_model::ScenarioSet;
use std::collections::HashMap;
use tera::{Context, Tera};

/// Which LLM prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    /// The caller's system prompt.
    Caller,
    /// The assistant's system prompt.
    Assistant,
    /// The judge's prompt.
    Judge,
    /// The judge's targeted question about one uncertain finding of the quality checker: does
    /// this assistant turn show this kind? (`judge_question.tera`.)
    JudgeQuestion,
}

impl PromptKind {
    /// Every prompt `generate` needs.
    pub const ALL: [PromptKind; 4] = [
        PromptKind::Caller,
        PromptKind::Assistant,
        PromptKind::Judge,
        PromptKind::JudgeQuestion,
    ];

    /// The prompt's name, and its file's stem under `templates/prompts/`.
    pub fn name(self) -> &'static str {
        match self {
            PromptKind::Caller => "caller",
            PromptKind::Assistant => "assistant",
            PromptKind::Judge => "judge",
            PromptKind::JudgeQuestion => "judge_question",
        }
    }
}

/// The compiled prompts of `generate`.
pub struct Prompts {
    tera: Tera,
}

impl Prompts {
    /// Compiles the prompts: `defaults` are `(kind, file, text)`; scenario overrides come from
    /// the set. Each is rendered once with sample variables so that a wrong variable fails here.
    pub fn build(defaults: &[(PromptKind, String, String)], set: &ScenarioSet) -> Result<Prompts> {
        let mut templates: Vec<(String, String)> = Vec::new();
        let mut origin: HashMap<String, (String, String)> = HashMap::new();
        for (kind, file, text) in defaults {
            let name = format!("prompt/{}", kind.name());
            origin.insert(name.clone(), (file.clone(), kind.name().to_string()));
            templates.push((name, text.clone()));
        }
        for s in &set.scenarios {
            let h = &s.file.scenario;
            for (kind, text) in [
                (PromptKind::Caller, &h.caller_prompt),
                (PromptKind::Assistant, &h.assistant_prompt),
            ] {
                if let Some(text) = text {
                    let name = format!("prompt/{}@{}", kind.name(), s.name());
                    origin.insert(
                        name.clone(),
                        (s.source.clone(), format!("scenario.{}_prompt", kind.name())),
                    );
                    templates.push((name, text.clone()));
                }
            }
        }
        let mut tera = Tera::default();
        if let Err(e) =
            tera.add_raw_templates(templates.iter().map(|(n, t)| (n.as_str(), t.as_str())))
        {
            let text = tera_chain(&e);
            let (file, key) = origin
                .iter()
                .find(|(n, _)| text.contains(n.as_str()))
                .map(|(_, o)| o.clone())
                .unwrap_or(("templates/prompts".into(), "?".into()));
            return Err(Error::Template {
                file,
                key,
                message: text,
            });
        }
        for kind in PromptKind::ALL {
            if !tera
                .get_template_names()
                .any(|n| n == format!("prompt/{}", kind.name()))
            {
                return Err(Error::MissingPrompt {
                    file: "templates/prompts".into(),
                    prompt: format!("{}.tera", kind.name()),
                });
            }
        }
        let prompts = Prompts { tera };
        let sample = Prompts::sample_context();
        for (name, (file, key)) in &origin {
            let ctx = Context::from_value(sample.clone()).unwrap_or_default();
            if let Err(e) = prompts.tera.render(name, &ctx) {
                return Err(Error::Template {
                    file: file.clone(),
                    key: key.clone(),
                    message: tera_chain(&e),
                });
            }
        }
        Ok(prompts)
    }

    /// Variables every prompt may use, with stand-in values.
    pub fn sample_context() -> serde_json::Value {
        serde_json::json!({
            "scenario": "takeout", "scenario_title": "外卖", "scenario_description": "外卖送餐",
            "role": "外卖骑手", "persona": "说话很快", "goal": "把外卖送到", "events": ["汤洒了"],
            "caller_name": "小刘", "owner_title": "王先生",
            "public": {"title": "王先生"}, "private": {"phone": "10000000000"},
            "presets": [{"id": "p1", "kind": "regular", "trigger": "外卖送到时", "response": "放门口"}],
            "turns": [{"speaker": "caller", "text": "外卖到了"}, {"speaker": "assistant", "text": "好的"}],
            "turn": 1, "turn_text": "好的",
            "kind": "safety.decision", "definition": "助理替机主做了决定或承诺。",
            "message": "the assistant agrees for the owner", "evidence": "好的"
        })
    }

    /// Renders a prompt for a scenario (its own override when it has one).
    pub fn render(
        &self,
        kind: PromptKind,
        scenario: &str,
        vars: &serde_json::Value,
    ) -> Result<String> {
        let own = format!("prompt/{}@{scenario}", kind.name());
        let name = if self.tera.get_template_names().any(|n| n == own) {
            own
        } else {
            format!("prompt/{}", kind.name())
        };
        let ctx = Context::from_value(vars.clone()).map_err(|e| Error::Render {
            name: name.clone(),
            message: tera_chain(&e),
        })?;
        self.tera.render(&name, &ctx).map_err(|e| Error::Render {
            name,
            message: tera_chain(&e),
        })
    }
}
