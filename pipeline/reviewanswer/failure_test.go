package reviewanswer

import (
	"encoding/json"
	"testing"
)

// TestFailureShapes: what counts as a failed review call.
func TestFailureShapes(t *testing.T) {
	for raw, want := range map[string]string{
		`{"error":{"message":"500 - \"{\\\"error\\\":{\\\"message\\\":\\\"model overloaded\\\"}}\\n\""}}`: "the review call failed (HTTP 500: model overloaded)",
		`{"error":{"message":"502 - \"<html>bad gateway</html>\""}}`:                                      "the review call failed (HTTP 502: <html>bad gateway</html>)",
		`{"error":{"message":"timeout of 600000ms exceeded"}}`:                                            "the review call failed (timeout of 600000ms exceeded)",
		`{"error":{"description":"quota used up"}}`:                                                       "the review call failed (quota used up)",
		`{"error":{}}`: "the review call failed (no message)",
		`{"error":{"message":"429 - \"{\\\"message\\\":\\\"slow down\\\"}\""}}`: "the review call failed (HTTP 429: slow down)",
		`{"error":{"message":"500 - \"{\\\"error\\\":\\\"text\\\"}\""}}`:        "the review call failed (HTTP 500: text)",
		`{"error":{"message":"500 - not quoted"}}`:                              "the review call failed (500 - not quoted)",
		`""`: "the review is empty (the review call gave nothing)",
	} {
		if got, _ := Failure(json.RawMessage(raw)); got != want {
			t.Errorf("%s:\n got %s\nwant %s", raw, got, want)
		}
	}
	for raw, want := range map[string]bool{
		``:     true,
		`null`: true,
		`{}`:   true,
		`{"error":{"message":"500 - \"boom\"","name":"AxiosError"}}`: true,
		`{"error":{"message":"rate limited","type":"requests"}}`:     true,
		`{"error":"timeout of 600000ms exceeded"}`:                   true,
		`{"summary":"ok","findings":[],"error":"none"}`:              false,
		`{"choices":[{"message":{"content":"{}"}}]}`:                 false,
		`"plain text review"`:                                        false,
		`{not json`:                                                  false,
		`{"findings":[]}`:                                            false,
	} {
		if _, got := Failure(json.RawMessage(raw)); got != want {
			t.Errorf("%s: failed=%v, want %v", raw, got, want)
		}
	}
}
