//! Tolerant extraction of a JSON object from a model's reply: servers that are not constrained
//! wrap JSON in a fenced block or add prose around it.

/// The first JSON object in `text`: the whole text if it parses, else the content of a fenced
/// block, else the span from the first `{` to its matching `}`.
pub fn extract_json(text: &str) -> Option<serde_json::Value> {
    let t = text.trim();
    if let Ok(v @ serde_json::Value::Object(_)) = serde_json::from_str::<serde_json::Value>(t) {
        return Some(v);
    }
    if let Some(start) = t.find("```") {
        let rest = &t[start + 3..];
        let rest = rest
            .strip_prefix("json")
            .or_else(|| rest.strip_prefix("JSON"))
            .unwrap_or(rest);
        if let Some(end) = rest.find("```")
            && let Ok(v @ serde_json::Value::Object(_)) =
                serde_json::from_str::<serde_json::Value>(rest[..end].trim())
        {
            return Some(v);
        }
    }
    // Scan for a balanced object, respecting strings.
    let bytes = t.as_bytes();
    let mut start = None;
    let (mut depth, mut in_str, mut escaped) = (0i32, false, false);
    for (i, &b) in bytes.iter().enumerate() {
        if in_str {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' if start.is_some() => in_str = true,
            b'{' => {
                if start.is_none() {
                    start = Some(i);
                }
                depth += 1;
            }
            b'}' if start.is_some() => {
                depth -= 1;
                if depth == 0 {
                    let s = start?;
                    if let Ok(v @ serde_json::Value::Object(_)) = serde_json::from_str(&t[s..=i]) {
                        return Some(v);
                    }
                    start = None;
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::extract_json;

    #[test]
    fn plain_fenced_and_wrapped_json_are_found() {
        assert_eq!(extract_json(r#"{"a":1}"#).unwrap()["a"], 1);
        assert_eq!(extract_json("```json\n{\"a\": 2}\n```").unwrap()["a"], 2);
        assert_eq!(
            extract_json("好的，回复如下：{\"a\": \"}{\", \"b\": 3} 谢谢").unwrap()["b"],
            3
        );
        assert!(extract_json("没有 JSON").is_none());
        assert!(extract_json("{\"a\": 1").is_none());
    }
}
