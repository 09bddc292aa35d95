package reviewanswer

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/prscout/prscout/pipeline"
)

// Failure tells a failed or missing review from an answer: nothing
// (or null), n8n's item of an HTTP Request node that continued on fail
// ({"error": {"message": ...}}), or an OpenAI-style error body ({"error":
// {"message": ...}}). It returns the reason shown in the summary.
func Failure(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) || bytes.Equal(raw, []byte(`""`)) || bytes.Equal(raw, []byte("{}")) {
		return "the review is empty (the review call gave nothing)", true
	}
	if raw[0] != '{' {
		return "", false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return "", false
	}
	e, hasError := m["error"]
	if !hasError {
		return "", false
	}
	for _, k := range []string{"choices", "summary", "findings", "output", "text", "content"} {
		if _, ok := m[k]; ok {
			return "", false
		}
	}
	msg := ""
	var obj struct {
		Message     string          `json:"message"`
		Description string          `json:"description"`
		Status      json.RawMessage `json:"status"`
	}
	var s string
	switch {
	case json.Unmarshal(e, &obj) == nil:
		msg = obj.Message
		if msg == "" {
			msg = obj.Description
		}
	case json.Unmarshal(e, &s) == nil:
		msg = s
	}
	if msg = pipeline.ClipRunes(pipeline.OneLine(readableCallError(msg)), 200); msg == "" {
		msg = "no message"
	}
	return "the review call failed (" + msg + ")", true
}

// readableCallError shortens n8n's HTTP Request error message, `500 -
// "<raw body>"`, to `HTTP 500: <the body's error message>` when the body is
// JSON with an error message (OpenAI's {"error": {"message"}} or
// {"message"}); other messages are kept as they are.
func readableCallError(msg string) string {
	code, quoted, ok := strings.Cut(msg, " - ")
	if !ok || len(code) != 3 || strings.Trim(code, "0123456789") != "" {
		return msg
	}
	body, err := strconv.Unquote(strings.TrimSpace(quoted))
	if err != nil {
		return msg
	}
	var e struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal([]byte(body), &e) != nil {
		return "HTTP " + code + ": " + body
	}
	var inner struct {
		Message string `json:"message"`
	}
	var text string
	switch {
	case json.Unmarshal(e.Error, &inner) == nil && inner.Message != "":
		text = inner.Message
	case json.Unmarshal(e.Error, &text) == nil && text != "":
	default:
		text = e.Message
	}
	if text == "" {
		return "HTTP " + code + ": " + body
	}
	return "HTTP " + code + ": " + text
}
