package llmanswer

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Envelopes: the shapes an LLM API or an n8n node wraps the model's text in.
// unwrap returns what the envelope holds (text or a JSON value), where it
// was found, and the finish reason it states.
//
//	{"choices":[{"message":{"content","refusal","tool_calls"},"finish_reason"}]}   chat completions (also "text": legacy completions)
//	{"output":[{"type":"message","content":[{"type":"output_text","text"}]}],"status","incomplete_details"}  responses
//	{"output_text": "..."}                                                            responses, SDK convenience field
//	{"content":[{"type":"text","text"}],"stop_reason"}                                Anthropic messages
//	{"candidates":[{"content":{"parts":[{"text"}]},"finishReason"}]}                  Gemini
//	{"message":{"content"},"finish_reason"|"done_reason"}                             n8n OpenAI node, Ollama chat
//	{"response":"...","done_reason"}                                                  Ollama generate
//	{"output"|"text"|"content"|"json"|"data"|"result"|"response"|"body": ...}         n8n items and nodes
//	[{"type":"text","text"}, ...]                                                      content parts (joined)
//	[item, ...]                                                                        n8n items: the first

// wrapperKeys are the n8n item and node fields followed, in this order.
var wrapperKeys = []string{"output", "text", "content", "json", "data", "result", "response", "body"}

// unwrapped is what an envelope holds.
type unwrapped struct {
	value   any    // the inner value (a string is the model's text)
	where   string // path of the inner value, e.g. "choices[0].message.content"
	finish  string // finish reason stated by the envelope ("" when none)
	refusal bool   // the value is the model's refusal (choices[0].message.refusal)
	note    string // something worth a warning ("2 choices: the first was read")
}

// unwrap looks into v when it is an envelope; ok is false when it is not.
func unwrap(v any) (u unwrapped, ok bool) {
	switch x := v.(type) {
	case map[string]any:
		return unwrapObject(x)
	case []any:
		if len(x) == 0 {
			return u, false
		}
		if text, ok := joinParts(x); ok {
			return unwrapped{value: text, where: "[*].text"}, true
		}
		switch x[0].(type) {
		case map[string]any, string:
		default:
			return u, false // [1, 2]: a value, not a list of items
		}
		u = unwrapped{value: x[0], where: "[0]"}
		if len(x) > 1 {
			u.note = strconv.Itoa(len(x)) + " items: the first was read"
		}
		return u, true
	}
	return u, false
}

func unwrapObject(m map[string]any) (unwrapped, bool) {
	if cs, ok := m["choices"].([]any); ok && len(cs) > 0 {
		c0, _ := cs[0].(map[string]any)
		u := unwrapped{finish: str(c0["finish_reason"])}
		if len(cs) > 1 {
			u.note = strconv.Itoa(len(cs)) + " choices: the first was read"
		}
		if msg, ok := c0["message"].(map[string]any); ok {
			u.value, u.where, u.refusal = messageContent(msg, "choices[0].message")
			return u, true
		}
		if t, ok := c0["text"]; ok {
			u.value, u.where = t, "choices[0].text"
			return u, true
		}
		return u, false
	}
	if cs, ok := m["candidates"].([]any); ok && len(cs) > 0 {
		c0, _ := cs[0].(map[string]any)
		u := unwrapped{finish: str(c0["finishReason"])}
		if content, ok := c0["content"].(map[string]any); ok {
			if parts, ok := content["parts"].([]any); ok {
				if text, ok := joinParts(parts); ok {
					u.value, u.where = text, "candidates[0].content.parts"
					return u, true
				}
			}
		}
		return u, false
	}
	if out, ok := m["output"].([]any); ok && isResponsesOutput(out) {
		u := unwrapped{}
		if m["status"] == "incomplete" {
			u.finish = "incomplete"
			if d, ok := m["incomplete_details"].(map[string]any); ok && str(d["reason"]) != "" {
				u.finish = str(d["reason"])
			}
		}
		for i, it := range out {
			item, _ := it.(map[string]any)
			switch item["type"] {
			case "message":
				if parts, ok := item["content"].([]any); ok {
					if text, ok := joinParts(parts); ok {
						u.value, u.where = text, "output["+strconv.Itoa(i)+"].content"
						return u, true
					}
				}
			case "function_call":
				if args, ok := item["arguments"]; ok {
					u.value, u.where = args, "output["+strconv.Itoa(i)+"].arguments"
					return u, true
				}
			}
		}
		return u, false
	}
	if t, ok := m["output_text"].(string); ok {
		return unwrapped{value: t, where: "output_text", finish: responsesFinish(m)}, true
	}
	if parts, ok := m["content"].([]any); ok {
		// Anthropic: a tool_use part holds the answer as a value; else
		// the text parts hold it.
		u := unwrapped{finish: str(m["stop_reason"])}
		for i, p := range parts {
			if pm, ok := p.(map[string]any); ok && pm["type"] == "tool_use" {
				u.value, u.where = pm["input"], "content["+strconv.Itoa(i)+"].input"
				return u, true
			}
		}
		if text, ok := joinParts(parts); ok {
			u.value, u.where = text, "content"
			return u, true
		}
	}
	finish := firstString(m, "finish_reason", "done_reason", "stop_reason", "finishReason")
	if msg, ok := m["message"].(map[string]any); ok {
		u := unwrapped{finish: finish}
		u.value, u.where, u.refusal = messageContent(msg, "message")
		return u, true
	}
	for _, k := range wrapperKeys {
		if w, ok := m[k]; ok && w != nil {
			return unwrapped{value: w, where: k, finish: finish}, true
		}
	}
	return unwrapped{}, false
}

// messageContent reads a chat message: its first tool call's arguments (a
// model that calls a tool puts its answer there), else its content (text or
// parts), else its refusal.
func messageContent(msg map[string]any, at string) (any, string, bool) {
	if calls, ok := msg["tool_calls"].([]any); ok && len(calls) > 0 {
		if call, ok := calls[0].(map[string]any); ok {
			if fn, ok := call["function"].(map[string]any); ok {
				return fn["arguments"], at + ".tool_calls[0].function.arguments", false
			}
		}
	}
	switch c := msg["content"].(type) {
	case string:
		if strings.TrimSpace(c) != "" {
			return c, at + ".content", false
		}
	case []any:
		if text, ok := joinParts(c); ok {
			return text, at + ".content", false
		}
	}
	if r, ok := msg["refusal"].(string); ok && r != "" {
		return r, at + ".refusal", true
	}
	return msg["content"], at + ".content", false
}

// isResponsesOutput reports whether a are items of the responses API (typed
// objects), not an n8n "output" array of values.
func isResponsesOutput(a []any) bool {
	for _, it := range a {
		item, ok := it.(map[string]any)
		if !ok {
			return false
		}
		switch item["type"] {
		case "message", "function_call", "reasoning", "web_search_call", "file_search_call":
		default:
			return false
		}
	}
	return len(a) > 0
}

func responsesFinish(m map[string]any) string {
	if m["status"] != "incomplete" {
		return ""
	}
	if d, ok := m["incomplete_details"].(map[string]any); ok && str(d["reason"]) != "" {
		return str(d["reason"])
	}
	return "incomplete"
}

// joinParts joins the text of content parts: [{"type":"text","text":...}],
// [{"type":"output_text","text":...}], Gemini's [{"text":...}]. Reasoning
// and thinking parts are left out. ok is false when a is not a parts array.
func joinParts(a []any) (string, bool) {
	var b strings.Builder
	found := false
	for _, p := range a {
		pm, ok := p.(map[string]any)
		if !ok {
			return "", false
		}
		t, ok := pm["text"].(string)
		if !ok {
			if _, typed := pm["type"]; typed {
				continue // a thinking, image or tool part
			}
			return "", false
		}
		switch pm["type"] {
		case nil, "text", "output_text":
		default:
			continue
		}
		if pm["thought"] == true {
			continue // a Gemini thinking part
		}
		found = true
		b.WriteString(t)
	}
	return b.String(), found
}

// str returns v when it is a string, cut to 64 bytes: the envelope's
// fields (finish reasons) are reported, and an envelope is input too.
func str(v any) string {
	s, _ := v.(string)
	return clip(s)
}

func clip(s string) string {
	if len(s) <= 64 {
		return s
	}
	s = s[:64]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

func firstString(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && s != "" {
			return clip(s)
		}
	}
	return ""
}

// lengthReasons are the finish reasons meaning the model hit its token
// limit (OpenAI, Ollama: length; Anthropic: max_tokens; Gemini:
// MAX_TOKENS; responses: max_output_tokens).
func isLengthReason(s string) bool {
	switch strings.ToLower(s) {
	case "length", "max_tokens", "max_output_tokens", "model_length", "incomplete":
		return true
	}
	return false
}
