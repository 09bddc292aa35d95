package bitbuckettest

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

const insCommit = "668218c13e04a1b2c3d4e5f60718293a4b5c6d7e"

func newInsightsFake(t *testing.T) (*Server, func(method, path, body string) (int, string)) {
	t.Helper()
	s := NewServer()
	t.Cleanup(s.Close)
	s.AddCommit("acme", "shop", insCommit)
	call := func(method, path, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, s.BaseURL+"/repositories/acme/shop/commit/"+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := s.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	return s, call
}

func annotationsJSON(from, n int, extra string) string {
	var parts []string
	for i := from; i < from+n; i++ {
		parts = append(parts, fmt.Sprintf(`{"type":"report_annotation","external_id":"a-%d","summary":"s","annotation_type":"BUG"%s}`, i, extra))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// TestInsightsRules checks the documented rules, one request each.
func TestInsightsRules(t *testing.T) {
	_, call := newInsightsFake(t)
	report := insCommit + "/reports/prscout"
	if code, body := call(http.MethodPost, report+"/annotations", annotationsJSON(0, 1, "")); code != http.StatusNotFound {
		t.Fatalf("annotations before the report: %d %s", code, body)
	}
	if code, body := call(http.MethodPut, report, `{"type":"report","title":"t","report_type":"BUG"}`); code != http.StatusOK || !strings.Contains(body, `"external_id":"prscout"`) {
		t.Fatalf("put report: %d %s", code, body)
	}
	tests := []struct {
		name, method, path, body string
		code                     int
		contains                 string
	}{
		{"status ok", http.MethodPost, insCommit + "/statuses/build", `{"type":"build","key":"prscout","state":"INPROGRESS","url":"https://x.example/1"}`, 201, `"state":"INPROGRESS"`},
		{"status short commit", http.MethodPost, insCommit[:12] + "/statuses/build", `{"type":"build","key":"prscout","state":"FAILED","url":"https://x.example/1"}`, 201, insCommit},
		{"status unknown commit", http.MethodPost, "deadbeefdeadbeef/statuses/build", `{"type":"build","key":"k","state":"FAILED","url":"https://x.example/"}`, 404, "Commit not found"},
		{"status without key", http.MethodPost, insCommit + "/statuses/build", `{"type":"build","state":"FAILED","url":"https://x.example/"}`, 400, `"key: This field is required."`},
		{"status bad state", http.MethodPost, insCommit + "/statuses/build", `{"type":"build","key":"k","state":"DONE","url":"https://x.example/"}`, 400, `state: \"DONE\" is not a valid choice.`},
		{"status without url", http.MethodPost, insCommit + "/statuses/build", `{"type":"build","key":"k","state":"FAILED"}`, 400, `"url: Enter a valid URL."`},
		{"status relative url", http.MethodPost, insCommit + "/statuses/build", `{"type":"build","key":"k","state":"FAILED","url":"/builds/1"}`, 400, `"url: Enter a valid URL."`},
		{"report without title", http.MethodPut, report, `{"type":"report","report_type":"BUG"}`, 400, "title: This field is required."},
		{"status without its object type", http.MethodPost, insCommit + "/statuses/build", `{"key":"k","state":"FAILED","url":"https://x.example/"}`, 400, `"type: This field is required."`},
		{"report without its object type", http.MethodPut, report, `{"title":"t","report_type":"BUG"}`, 400, `"type: This field is required."`},
		{"report without report type", http.MethodPut, report, `{"type":"report","title":"t"}`, 400, "report_type: This field is required."},
		{"report bad type", http.MethodPut, report, `{"type":"report","title":"t","report_type":"LINT"}`, 400, "report_type: "},
		{"report bad result", http.MethodPut, report, `{"type":"report","title":"t","report_type":"BUG","result":"OK"}`, 400, "result: "},
		{"report bad datum type", http.MethodPut, report, `{"type":"report","title":"t","report_type":"BUG","data":[{"title":"n","type":"COUNT","value":1}]}`, 400, "data.0.type: "},
		{"report text as number", http.MethodPut, report, `{"type":"report","title":"t","report_type":"BUG","data":[{"title":"n","type":"NUMBER","value":"1"}]}`, 400, "data.0.value: "},
		{"report percentage over 100", http.MethodPut, report, `{"type":"report","title":"t","report_type":"BUG","data":[{"title":"n","type":"PERCENTAGE","value":100.5}]}`, 400, "data.0.value: "},
		{"report link without href", http.MethodPut, report, `{"type":"report","title":"t","report_type":"BUG","data":[{"title":"n","type":"LINK","value":{"text":"x"}}]}`, 400, "data.0.value.href: This field is required."},
		{"report all data types", http.MethodPut, report, `{"type":"report","title":"t","report_type":"BUG","data":[{"title":"b","type":"BOOLEAN","value":false},{"title":"d","type":"DATE","value":1730000000000},{"title":"u","type":"DURATION","value":14},{"title":"l","type":"LINK","value":{"text":"x","href":"https://x.example/"}},{"title":"p","type":"PERCENTAGE","value":93},{"title":"t","type":"TEXT","value":"x"},{"title":"plain","value":3}]}`, 200, `"report_type":"BUG"`},
		{"no annotations", http.MethodPost, report + "/annotations", `[]`, 400, "minimum number of items is 1"},                           // the description's minItems
		{"101 annotations", http.MethodPost, report + "/annotations", annotationsJSON(0, 101, ""), 400, "maximum number of items is 100"}, // its maxItems
		{"annotation without external id", http.MethodPost, report + "/annotations", `[{"type":"report_annotation","summary":"s","annotation_type":"BUG"}]`, 400, "0.external_id: This field is required."},
		{"annotation without summary", http.MethodPost, report + "/annotations", `[{"type":"report_annotation","external_id":"x","annotation_type":"BUG"}]`, 400, "0.summary: This field is required."},
		{"annotation without its object type", http.MethodPost, report + "/annotations", `[{"external_id":"x","summary":"s","annotation_type":"BUG"}]`, 400, "0.type: This field is required."},
		{"annotation without annotation type", http.MethodPost, report + "/annotations", `[{"type":"report_annotation","external_id":"x","summary":"s"}]`, 400, "0.annotation_type: This field is required."},
		{"annotation bad severity", http.MethodPost, report + "/annotations", annotationsJSON(0, 2, `,"severity":"high"`), 400, "0.severity: "},
		{"annotation bad result", http.MethodPost, report + "/annotations", annotationsJSON(0, 1, `,"result":"PENDING"`), 400, "0.result: "},
		{"annotation bad line", http.MethodPost, report + "/annotations", annotationsJSON(0, 1, `,"line":-2`), 400, "0.line: "},
		{"100 annotations", http.MethodPost, report + "/annotations", annotationsJSON(0, 100, `,"severity":"LOW","result":"FAILED","line":3,"path":"a.go"`), 200, `"external_id":"a-99"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := call(tt.method, tt.path, tt.body)
			if code != tt.code || !strings.Contains(body, tt.contains) {
				t.Errorf("%s %s: %d %s\nwant %d containing %s", tt.method, tt.path, code, body, tt.code, tt.contains)
			}
		})
	}
}

// TestAnnotationsPerReport: upserts by external_id do not count twice, and
// a request that would pass 1,000 annotations is refused whole.
func TestAnnotationsPerReport(t *testing.T) {
	s, call := newInsightsFake(t)
	report := insCommit + "/reports/prscout"
	if code, _ := call(http.MethodPut, report, `{"type":"report","title":"t","report_type":"BUG"}`); code != 200 {
		t.Fatal("put report")
	}
	for i := range 10 {
		if code, body := call(http.MethodPost, report+"/annotations", annotationsJSON(i*100, 100, "")); code != 200 {
			t.Fatalf("batch %d: %d %s", i, code, body)
		}
	}
	if code, body := call(http.MethodPost, report+"/annotations", annotationsJSON(0, 100, `,"severity":"HIGH"`)); code != 200 {
		t.Fatalf("upserting existing ids at the cap: %d %s", code, body)
	}
	if code, body := call(http.MethodPost, report+"/annotations", annotationsJSON(950, 51, "")); code != 400 || !strings.Contains(body, "up to 1000 annotations") {
		t.Fatalf("1,001st annotation: %d %s", code, body)
	}
	got := s.Annotations("acme", "shop", insCommit, "prscout")
	if len(got) != 1000 || got[0].Severity != "HIGH" || got[999].ExternalID != "a-999" {
		t.Fatalf("stored %d annotations, first %+v", len(got), got[0])
	}
	// Listing pages through them; a PUT keeps them; deleting the report drops them.
	code, body := call(http.MethodGet, report+"/annotations?pagelen=100", "")
	if code != 200 || strings.Count(body, `"external_id"`) != 100 || !strings.Contains(body, `"next"`) {
		t.Fatalf("list: %d, %d values", code, strings.Count(body, `"external_id"`))
	}
	call(http.MethodPut, report, `{"type":"report","title":"t2","report_type":"BUG","result":"PASSED"}`)
	if n := len(s.Annotations("acme", "shop", insCommit, "prscout")); n != 1000 {
		t.Fatalf("a PUT left %d annotations", n)
	}
	if code, _ := call(http.MethodDelete, report+"/annotations/a-5", ""); code != http.StatusNoContent {
		t.Fatalf("delete annotation: %d", code)
	}
	if code, _ := call(http.MethodDelete, report+"/annotations/a-5", ""); code != http.StatusNotFound {
		t.Fatalf("delete again: %d", code)
	}
	if code, _ := call(http.MethodDelete, report, ""); code != http.StatusNoContent {
		t.Fatalf("delete report: %d", code)
	}
	if len(s.Reports("acme", "shop", insCommit)) != 0 || s.Annotations("acme", "shop", insCommit, "prscout") != nil {
		t.Fatal("report or annotations left after DELETE")
	}
}

func TestDenyScope(t *testing.T) {
	s, call := newInsightsFake(t)
	s.DenyScope(OpSetStatus)
	code, body := call(http.MethodPost, insCommit+"/statuses/build", `{"type":"build","key":"k","state":"FAILED","url":"https://x.example/"}`)
	if code != http.StatusForbidden || body != ScopeErrorBody {
		t.Fatalf("denied: %d %s", code, body)
	}
	if code, _ := call(http.MethodPut, insCommit+"/reports/r", `{"type":"report","title":"t","report_type":"BUG"}`); code != 200 {
		t.Fatalf("an operation not denied answered %d", code)
	}
	s.DenyScope()
	if code, _ := call(http.MethodPost, insCommit+"/statuses/build", `{"type":"build","key":"k","state":"FAILED","url":"https://x.example/"}`); code != 201 {
		t.Fatalf("after lifting: %d", code)
	}
	if st, ok := s.Status("acme", "shop", insCommit, "k"); !ok || len(st.States) != 1 {
		t.Fatalf("status %+v", st)
	}
}
