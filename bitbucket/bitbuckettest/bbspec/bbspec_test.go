package bbspec

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

const (
	repoPath   = "/repositories/{workspace}/{repo_slug}"
	reportPath = repoPath + "/commit/{commit}/reports/{reportId}"
	commit     = "668218c13e04a1b2c3d4e5f60718293a4b5c6d7e"
)

var params = map[string]string{
	"workspace": "acme", "repo_slug": "shop", "commit": commit, "reportId": "prscout",
	"pull_request_id": "42", "comment_id": "7", "task_id": "9",
}

// request is a request of method on the description's path with body.
func request(t *testing.T, method, path, body string) *http.Request {
	t.Helper()
	url := "https://api.bitbucket.example/2.0" + strings.NewReplacer(
		"{workspace}", "acme", "{repo_slug}", "shop", "{commit}", commit, "{reportId}", "prscout",
		"{pull_request_id}", "42", "{comment_id}", "7", "{task_id}", "9").Replace(path)
	r, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/json")
	return r
}

// checkRequest validates a request of method on path with body against the
// description; it answers the violation's field and message, or ok.
func checkRequest(t *testing.T, method, path, body string) (field, msg string, ok bool) {
	t.Helper()
	doc, err := Spec()
	if err != nil {
		t.Fatal(err)
	}
	v, ok := doc.CheckRequest(path, request(t, method, path, body), params, []byte(body))
	return v.Field, v.Msg, ok
}

// checkAnswer validates a JSON answer of status to a GET of path.
func checkAnswer(t *testing.T, path string, status int, body string) string {
	t.Helper()
	doc, err := Spec()
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{"Content-Type": {"application/json"}}
	return doc.CheckResponse(path, request(t, http.MethodGet, path, ""), params, status, h, []byte(body))
}

// TestReportDataValues pins which value each report data type takes, as
// the description's own texts give them (its schema says object; see the
// file's header): a wrong one is refused naming the datum's value, an
// unknown type naming the type.
func TestReportDataValues(t *testing.T) {
	for _, tc := range []struct {
		typ, value string
		ok         bool
	}{
		{"", `true`, true}, {"", `3`, true}, {"", `"x"`, true}, {"", `{"a":1}`, false}, {"", `[1]`, false},
		{"BOOLEAN", `false`, true}, {"BOOLEAN", `"true"`, false}, {"BOOLEAN", `1`, false},
		{"DATE", `1730000000000`, true}, {"DATE", `"2026-12-07"`, false},
		{"DURATION", `14`, true}, {"DURATION", `"14s"`, false},
		{"LINK", `{"text":"x","href":"https://x.example/"}`, true}, {"LINK", `{"text":"x"}`, false},
		{"LINK", `{"href":"https://x.example/"}`, false}, {"LINK", `"https://x.example/"`, false},
		{"NUMBER", `1.5`, true}, {"NUMBER", `"1"`, false}, {"NUMBER", `{}`, false},
		{"PERCENTAGE", `0`, true}, {"PERCENTAGE", `100`, true}, {"PERCENTAGE", `93.5`, true},
		{"PERCENTAGE", `100.5`, false}, {"PERCENTAGE", `-1`, false}, {"PERCENTAGE", `"93"`, false},
		{"TEXT", `"x"`, true}, {"TEXT", `3`, false}, {"TEXT", `{"text":"x"}`, false},
	} {
		typ := ""
		if tc.typ != "" {
			typ = fmt.Sprintf(`"type":%q,`, tc.typ)
		}
		body := fmt.Sprintf(`{"type":"report","title":"t","report_type":"BUG","data":[{"title":"d",%s"value":%s}]}`, typ, tc.value)
		field, msg, ok := checkRequest(t, http.MethodPut, reportPath, body)
		if ok != tc.ok {
			t.Errorf("%s %s: accepted %v, want %v (%s: %s)", tc.typ, tc.value, ok, tc.ok, field, msg)
		}
		if !ok && !strings.HasPrefix(field, "data.0.value") && !(tc.typ == "" && field == "data.0.value") {
			t.Errorf("%s %s: refused naming %q, want data.0.value", tc.typ, tc.value, field)
		}
	}
	field, msg, ok := checkRequest(t, http.MethodPut, reportPath, `{"type":"report","title":"t","report_type":"BUG","data":[{"title":"d","type":"COUNT","value":1}]}`)
	if ok || field != "data.0.type" || msg != `"COUNT" is not a valid choice.` {
		t.Errorf("unknown data type: %v %q %q", ok, field, msg)
	}
}

// TestDescriptionRulesStayExact fails when a rule of the description that
// this file once loosened is loosened again: `type` on every status,
// report and annotation body; pull request endpoint commits and comment
// content closed (no `type` in them); report data values typed (an object
// value fits no type but LINK).
func TestDescriptionRulesStayExact(t *testing.T) {
	comments := repoPath + "/pullrequests/{pull_request_id}/comments"
	for _, tc := range []struct{ method, path, untyped, field, typed string }{
		{http.MethodPost, repoPath + "/commit/{commit}/statuses/build",
			`{"key":"prscout","state":"INPROGRESS","url":"https://x.example/"}`, "type",
			`{"type":"build","key":"prscout","state":"INPROGRESS","url":"https://x.example/"}`},
		{http.MethodPut, reportPath, `{"title":"t","report_type":"BUG"}`, "type", `{"type":"report","title":"t","report_type":"BUG"}`},
		{http.MethodPost, reportPath + "/annotations", `[{"external_id":"a","summary":"s","annotation_type":"BUG"}]`, "0.type",
			`[{"type":"report_annotation","external_id":"a","summary":"s","annotation_type":"BUG"}]`},
		{http.MethodPost, comments, `{"content":{"raw":"x"}}`, "type", `{"type":"pullrequest_comment","content":{"raw":"x"}}`},
		{http.MethodPost, comments, `{"type":"pullrequest_comment","content":{"raw":"x"},"parent":{"id":3}}`, "parent.type",
			`{"type":"pullrequest_comment","content":{"raw":"x"},"parent":{"type":"pullrequest_comment","id":3}}`},
		{http.MethodPost, repoPath + "/pullrequests/{pull_request_id}/tasks", `{"content":{"raw":"x"},"comment":{"id":3}}`, "comment.type",
			`{"content":{"raw":"x"},"comment":{"type":"pullrequest_comment","id":3}}`},
	} {
		field, msg, ok := checkRequest(t, tc.method, tc.path, tc.untyped)
		if ok || field != tc.field || msg != "This field is required." {
			t.Errorf("%s %s without %s: accepted %v, field %q, %q", tc.method, tc.path, tc.field, ok, field, msg)
		}
		if _, msg, ok := checkRequest(t, tc.method, tc.path, tc.typed); !ok {
			t.Errorf("%s %s with %s refused: %s", tc.method, tc.path, tc.field, msg)
		}
	}

	pr := repoPath + "/pullrequests/{pull_request_id}"
	comment := pr + "/comments/{comment_id}"
	for _, tc := range []struct {
		path, fits, closed string
	}{
		{pr, `{"type":"pullrequest","id":42,"destination":{"commit":{"hash":"6c5f0bc9b2aa"}}}`, `{"type":"pullrequest","id":42,"destination":{"commit":{"hash":"6c5f0bc9b2aa","type":"commit"}}}`},
		{comment, `{"type":"pullrequest_comment","id":7,"content":{"raw":"x","markup":"markdown","html":"<p>x</p>"}}`, `{"type":"pullrequest_comment","id":7,"content":{"raw":"x","markup":"markdown","html":"<p>x</p>","type":"rendered"}}`},
		{pr + "/tasks/{task_id}", `{"id":9,"state":"UNRESOLVED","content":{"raw":"x"},"creator":{"type":"user"},"created_on":"2026-11-02T10:06:00Z","updated_on":"2026-11-02T10:06:00Z"}`, `{"type":"pullrequest_comment_task","id":9,"state":"UNRESOLVED","content":{"raw":"x"},"creator":{"type":"user"},"created_on":"2026-11-02T10:06:00Z","updated_on":"2026-11-02T10:06:00Z"}`},
	} {
		if v := checkAnswer(t, tc.path, http.StatusOK, tc.fits); v != "" {
			t.Errorf("GET %s: a fitting answer is a violation: %s", tc.path, v)
		}
		if v := checkAnswer(t, tc.path, http.StatusOK, tc.closed); !strings.Contains(v, `property "type" is unsupported`) {
			t.Errorf("GET %s: `type` in a closed object is no violation: %q", tc.path, v)
		}
	}

	if _, _, ok := checkRequest(t, http.MethodPut, reportPath, `{"type":"report","title":"t","report_type":"BUG","data":[{"title":"d","type":"NUMBER","value":{"v":1}}]}`); ok {
		t.Error("a NUMBER datum with an object value is accepted: report_data.value is untyped again")
	}
}
