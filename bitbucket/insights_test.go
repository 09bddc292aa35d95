package bitbucket

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/insights"
)

const summaryURL = "https://bitbucket.example/acme/uploader/pull-requests/42#comment-1001"

func TestBuildStatusInProgressThenFinished(t *testing.T) {
	cov := pipeline.Coverage{Changed: 15, Reviewed: 14}
	tests := []struct {
		name   string
		failOn string
		counts map[string]int
		want   string
	}{
		{"fail-on none passes", "none", map[string]int{"critical": 1}, pipeline.StatusSuccessful},
		{"below the threshold passes", "critical", map[string]int{"high": 2, "medium": 1}, pipeline.StatusSuccessful},
		{"at the threshold fails", "high", map[string]int{"high": 2, "medium": 1}, pipeline.StatusFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newFake(t)
			c, rec := newClient(t, s, nil)
			ctx := context.Background()
			if err := c.SetBuildStatus(ctx, acme, headFull, insights.InProgress(summaryURL)); err != nil {
				t.Fatal(err)
			}
			st, _ := s.Status("acme", "uploader", headFull, "prscout")
			if st.State != pipeline.StatusInProgress {
				t.Fatalf("after start: state %q", st.State)
			}
			if err := c.SetBuildStatus(ctx, acme, headFull, insights.Finished(summaryURL, tt.failOn, tt.counts, 0, cov)); err != nil {
				t.Fatal(err)
			}
			st, ok := s.Status("acme", "uploader", headFull, "prscout")
			if !ok {
				t.Fatal("no status stored")
			}
			if d := cmp.Diff([]string{pipeline.StatusInProgress, tt.want}, st.States); d != "" {
				t.Errorf("states (-want +got):\n%s", d)
			}
			if st.URL != summaryURL || st.Name != "prscout review" || !strings.HasSuffix(st.Description, "· 14 of 15 files reviewed") {
				t.Errorf("status %+v", st)
			}
			for _, a := range rec.got() {
				if a.Op != "set_status" {
					t.Errorf("observer op %q, want set_status", a.Op)
				}
			}
		})
	}
}

func TestBuildStatusRefusedBeforeSending(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, nil)
	err := c.SetBuildStatus(context.Background(), acme, headFull, pipeline.BuildStatus{Key: "prscout", State: "SUCCESSFUL"})
	var ie *pipeline.InvalidError
	if !errors.As(err, &ie) || ie.Field != "url" {
		t.Fatalf("want an invalid url error, got %v", err)
	}
	if err := c.SetBuildStatus(context.Background(), acme, "main..x", insights.InProgress(summaryURL)); err == nil {
		t.Fatal("a bad commit was accepted")
	}
	if n := s.Calls(bitbuckettest.OpSetStatus); n != 0 {
		t.Fatalf("%d requests sent for invalid input", n)
	}
}

func reviewFindings() []pipeline.ReportFinding {
	return []pipeline.ReportFinding{
		{Path: "upload/retry.go", Line: 12, Severity: "high", Title: "Retry loop never stops", Body: "attempt is never incremented", Fingerprint: "1111111111111111"},
		{Path: "upload/retry.go", Line: 30, Severity: "medium", Title: "Sleep ignores ctx", Body: "use a timer", Fingerprint: "2222222222222222"},
		{Path: "upload/client.go", Severity: "low", Title: "Off-diff naming", Body: "file level", Fingerprint: "3333333333333333"},
	}
}

func putReview(t *testing.T, c *Client, findings []pipeline.ReportFinding) pipeline.PutReportResult {
	t.Helper()
	r := insights.Report(findings, insights.ReportOptions{FailOn: "high", Coverage: pipeline.Coverage{Changed: 3, Reviewed: 3}, Mode: "full", Link: summaryURL})
	res, err := c.PutReport(context.Background(), acme, headFull, insights.Key, r, insights.Annotations(findings))
	if err != nil {
		t.Fatalf("PutReport: %v", err)
	}
	return res
}

func TestPutReportWithAnnotations(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, nil)
	res := putReview(t, c, reviewFindings())
	if d := cmp.Diff(pipeline.PutReportResult{Annotations: 3, Warnings: []string{}}, res); d != "" {
		t.Errorf("result (-want +got):\n%s", d)
	}
	reps := s.Reports("acme", "uploader", headFull)
	rep, ok := reps["prscout"]
	if len(reps) != 1 || !ok {
		t.Fatalf("reports %v", reps)
	}
	if rep.Title != "prscout review" || rep.ReportType != "BUG" || rep.Result != "FAILED" || rep.Details != "1 high, 1 medium, 1 low · 3 of 3 files reviewed" || rep.Link != summaryURL {
		t.Errorf("report %+v", rep)
	}
	if !strings.Contains(string(rep.Data), `{"title":"High","type":"NUMBER","value":1}`) {
		t.Errorf("report data %s", rep.Data)
	}
	got := s.Annotations("acme", "uploader", headFull, "prscout")
	for i := range got {
		got[i].UUID = ""
	}
	want := []bitbuckettest.Annotation{
		{ExternalID: "prscout-1111111111111111", Path: "upload/retry.go", Line: 12, Summary: "Retry loop never stops", Details: "attempt is never incremented", Severity: "HIGH", AnnotationType: "BUG", Result: "FAILED"},
		{ExternalID: "prscout-2222222222222222", Path: "upload/retry.go", Line: 30, Summary: "Sleep ignores ctx", Details: "use a timer", Severity: "MEDIUM", AnnotationType: "BUG", Result: "FAILED"},
		{ExternalID: "prscout-3333333333333333", Path: "upload/client.go", Summary: "Off-diff naming", Details: "file level", Severity: "LOW", AnnotationType: "BUG", Result: "FAILED"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("annotations (-want +got):\n%s", d)
	}
}

func TestPutReportRerunSameCommit(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, nil)
	putReview(t, c, reviewFindings())
	first := s.Annotations("acme", "uploader", headFull, "prscout")

	// The same review again: one report, the same annotations, nothing deleted.
	res := putReview(t, c, reviewFindings())
	if res.Stale != 0 || res.Annotations != 3 {
		t.Errorf("re-run result %+v", res)
	}
	reps := s.Reports("acme", "uploader", headFull)
	if len(reps) != 1 || reps["prscout"].Puts != 2 {
		t.Fatalf("after a re-run: %d reports, %d puts", len(reps), reps["prscout"].Puts)
	}
	if d := cmp.Diff(first, s.Annotations("acme", "uploader", headFull, "prscout")); d != "" {
		t.Errorf("annotations changed on a re-run (-first +second):\n%s", d)
	}
	if n := s.Calls(bitbuckettest.OpDeleteAnnotation); n != 0 {
		t.Errorf("%d annotations deleted on an identical re-run", n)
	}

	// A later run on the same commit whose review lost a finding and found
	// another: the gone one is removed, the new one added.
	next := reviewFindings()[1:]
	next = append(next, pipeline.ReportFinding{Path: "upload/retry.go", Line: 40, Severity: "critical", Title: "Token logged", Fingerprint: "4444444444444444"})
	res = putReview(t, c, next)
	if res.Stale != 1 || res.Annotations != 3 {
		t.Errorf("changed re-run result %+v", res)
	}
	var ids []string
	for _, a := range s.Annotations("acme", "uploader", headFull, "prscout") {
		ids = append(ids, a.ExternalID)
	}
	if d := cmp.Diff([]string{"prscout-2222222222222222", "prscout-3333333333333333", "prscout-4444444444444444"}, ids); d != "" {
		t.Errorf("annotation ids (-want +got):\n%s", d)
	}
}

func TestPutReport1200Findings(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, nil)
	var findings []pipeline.ReportFinding
	for i := range 1200 {
		sev := "low"
		if i%10 == 0 {
			sev = "high" // 120 high findings spread through the list
		}
		findings = append(findings, pipeline.ReportFinding{
			Path: fmt.Sprintf("gen/f%04d.go", i), Line: 1 + i%50, Severity: sev,
			Title: fmt.Sprintf("finding %d", i), Fingerprint: fmt.Sprintf("%016x", i),
		})
	}
	res := putReview(t, c, findings)
	if res.Annotations != 1000 || res.Omitted != 200 || len(res.Warnings) != 1 {
		t.Fatalf("result %+v", res)
	}
	wantNote := "200 of 1200 findings not annotated: Bitbucket keeps at most 1000 annotations per report; the least severe are left out"
	if res.Warnings[0] != wantNote {
		t.Errorf("warning %q", res.Warnings[0])
	}
	rep := s.Reports("acme", "uploader", headFull)["prscout"]
	if !strings.HasSuffix(rep.Details, " · "+wantNote) {
		t.Errorf("details %q do not say what was left out", rep.Details)
	}
	got := s.Annotations("acme", "uploader", headFull, "prscout")
	high := 0
	for _, a := range got {
		if a.Severity == "HIGH" {
			high++
		}
	}
	if len(got) != 1000 || high != 120 {
		t.Errorf("stored %d annotations with %d high; want 1000 with all 120 high", len(got), high)
	}
	if n := s.Calls(bitbuckettest.OpPostAnnotations); n != 10 {
		t.Errorf("%d annotation requests, want 10 of 100", n)
	}
	for _, r := range s.Requests() {
		if r.Op == bitbuckettest.OpPostAnnotations && strings.Count(string(r.Body), `"external_id"`) > 100 {
			t.Errorf("a request carried more than 100 annotations")
		}
	}
}

func TestInsightsMissingScope(t *testing.T) {
	s := newFake(t)
	s.DenyScope(bitbuckettest.InsightsOps...)
	c, _ := newClient(t, s, nil)
	err := c.SetBuildStatus(context.Background(), acme, headFull, insights.InProgress(summaryURL))
	if !errors.Is(err, pipeline.ErrMissingScope) || !isMissingScope(err) {
		t.Fatalf("status: want ErrMissingScope, got %v", err)
	}
	var mse *MissingScopeError
	if !errors.As(err, &mse) || !cmp.Equal(mse.Required, []string{"write:repository:bitbucket"}) || mse.Err.Status != http.StatusForbidden {
		t.Errorf("MissingScopeError %+v", mse)
	}
	if !isPermissionError(err) {
		t.Error("a scope error is also a permission error")
	}
	want := "set build status prscout on " + headFull + ": bitbucket set_status: 403: the credentials lack a required scope (write:repository:bitbucket): " +
		"Your credentials lack one or more required privilege scopes. (Required scopes: write:repository:bitbucket. Granted: read:repository:bitbucket, read:pullrequest:bitbucket, write:pullrequest:bitbucket.)"
	if err.Error() != want {
		t.Errorf("error %q\nwant  %q", err, want)
	}
	_, err = c.PutReport(context.Background(), acme, headFull, "prscout", insights.Report(nil, insights.ReportOptions{}), nil)
	if !errors.Is(err, pipeline.ErrMissingScope) {
		t.Fatalf("report: want ErrMissingScope, got %v", err)
	}
	if n := s.Calls(bitbuckettest.OpSetStatus); n != 1 {
		t.Errorf("a 403 was retried: %d calls", n)
	}

	// A 403 that does not speak of scopes (no write permission on the
	// repository) stays a plain permission error.
	s.DenyScope()
	s.Fail(bitbuckettest.OpSetStatus, bitbuckettest.Fault{Status: http.StatusForbidden})
	err = c.SetBuildStatus(context.Background(), acme, headFull, insights.InProgress(summaryURL))
	if errors.Is(err, pipeline.ErrMissingScope) || !isPermissionError(err) {
		t.Errorf("plain 403: got %v", err)
	}
}

func TestPutReportInvalidInput(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, nil)
	ok := pipeline.InsightsReport{Title: "t", ReportType: pipeline.ReportTypeBug}
	bad := []pipeline.Annotation{{ExternalID: "a", Summary: "s", AnnotationType: "BUG"}, {ExternalID: "b", Summary: "s", AnnotationType: "LINT"}}
	_, err := c.PutReport(context.Background(), acme, headFull, "prscout", ok, bad)
	var ie *pipeline.InvalidError
	if !errors.As(err, &ie) || ie.Field != "annotations[1].annotationType" {
		t.Fatalf("got %v", err)
	}
	if _, err := c.PutReport(context.Background(), acme, headFull, "prs/cout", ok, nil); !errors.As(err, &ie) || ie.Field != "key" {
		t.Fatalf("bad key: got %v", err)
	}
	dup := []pipeline.Annotation{{ExternalID: "a", Summary: "s", AnnotationType: "BUG"}, {ExternalID: "a", Summary: "t", AnnotationType: "BUG"}}
	res, err := c.PutReport(context.Background(), acme, headFull, "prscout", ok, dup)
	if err != nil || res.Annotations != 1 || len(res.Warnings) != 1 {
		t.Fatalf("duplicate ids: %+v, %v", res, err)
	}
	if n := s.Calls(bitbuckettest.OpPutReport); n != 1 {
		t.Errorf("%d reports sent; invalid input must send none", n)
	}
}

func TestCapAnnotationsKeepsOrder(t *testing.T) {
	in := []pipeline.Annotation{
		{ExternalID: "l1", Severity: "LOW"}, {ExternalID: "h1", Severity: "HIGH"}, {ExternalID: "m1", Severity: "MEDIUM"},
		{ExternalID: "c1", Severity: "CRITICAL"}, {ExternalID: "l2", Severity: "LOW"},
	}
	got, omitted := capAnnotations(in, 3)
	var ids []string
	for _, a := range got {
		ids = append(ids, a.ExternalID)
	}
	if omitted != 2 || !cmp.Equal(ids, []string{"h1", "m1", "c1"}) {
		t.Errorf("capAnnotations = %v, %d", ids, omitted)
	}
}

// TestPipelinesProxy sends a report through a proxy, as a Pipelines step
// does: the request goes to the proxy with no Authorization of its own.
func TestPipelinesProxy(t *testing.T) {
	s := newFake(t)
	cfg, err := PipelinesConfig(s.URL) // the fake answers the proxied requests itself
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(cfg.BaseURL, "http://") {
		t.Fatalf("base URL %q: the proxy takes plain http", cfg.BaseURL)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.PutReport(context.Background(), acme, headFull, "prscout-gate", pipeline.InsightsReport{Title: "gate", ReportType: "BUG", Result: "PASSED"}, nil)
	if err != nil || res.Annotations != 0 {
		t.Fatalf("PutReport through the proxy: %+v, %v", res, err)
	}
	if _, ok := s.Reports("acme", "uploader", headFull)["prscout-gate"]; !ok {
		t.Fatal("report not stored")
	}
	for _, r := range s.Requests() {
		if r.Authorization != "" {
			t.Errorf("%s sent Authorization %q through the proxy", r.Op, r.Authorization)
		}
	}
	if _, err := PipelinesConfig("https://proxy.example:1"); err == nil {
		t.Error("an https proxy URL was accepted")
	}
}

// A finding's 2,000-character title reaches Bitbucket as a summary it takes
// (Bitbucket refuses more than 450 characters, and with it the whole
// batch): cut at a word, the rest leading the details.
func TestPutReportLongTitleFitsTheSummaryLimit(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, nil)
	title := strings.TrimSpace(strings.Repeat("the upload handler trusts a size header ", 52))
	if len(title) < 2000 {
		t.Fatalf("title of %d characters, want 2,000 or more", len(title))
	}
	findings := []pipeline.ReportFinding{
		{Path: "app/upload.py", Line: 12, Severity: "high", Title: title, Body: "details here", Fingerprint: "aa11"},
		{Path: "app/upload.py", Line: 14, Severity: "low", Title: "short", Fingerprint: "bb22"},
	}
	res, err := c.PutReport(context.Background(), acme, headFull, "prscout", insights.Report(findings, insights.ReportOptions{}), insights.Annotations(findings))
	if err != nil {
		t.Fatal(err)
	}
	if res.Annotations != 2 {
		t.Fatalf("%d annotations posted, want 2", res.Annotations)
	}
	got := s.Annotations("acme", "uploader", headFull, "prscout")
	if len(got) != 2 {
		t.Fatalf("fake holds %d annotations", len(got))
	}
	sum := got[0].Summary
	if n := len([]rune(sum)); n > pipeline.MaxAnnotationSummary || !strings.HasSuffix(sum, "…") {
		t.Fatalf("summary of %d characters: %q", n, sum)
	}
	if !strings.HasPrefix(got[0].Details, "…") || !strings.HasSuffix(got[0].Details, "details here") ||
		len(strings.TrimSuffix(sum, "…"))+len(got[0].Details) < len(title) {
		t.Fatalf("details %q do not carry the rest", got[0].Details)
	}
}

// The fake refuses what Bitbucket refuses: a summary past 450 characters
// fails the whole batch with 400.
func TestFakeRefusesLongSummary(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, nil)
	if _, err := c.PutReport(context.Background(), acme, headFull, "prscout", insights.Report(nil, insights.ReportOptions{}), nil); err != nil {
		t.Fatal(err)
	}
	body := `[{"external_id":"x","annotation_type":"BUG","summary":"` + strings.Repeat("a", 451) + `"}]`
	req, _ := http.NewRequest(http.MethodPost, s.BaseURL+"/repositories/acme/uploader/commit/"+headFull+"/reports/prscout/annotations", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("fake answered %d to a 451-character summary", resp.StatusCode)
	}
}

// TestErrorTextFromRealShapes: Bitbucket's error text reaches the error
// (and through it the caller's cause) whether error.detail is the string
// the API description gives or an object, as scope errors have sent; a
// 403 that is not about scopes keeps its text too.
func TestErrorTextFromRealShapes(t *testing.T) {
	objectDetail := `{"type": "error", "error": {"message": "Your credentials lack one or more required privilege scopes.", "detail": {"required": ["write:repository:bitbucket"], "granted": ["read:repository:bitbucket", "read:pullrequest:bitbucket", "write:pullrequest:bitbucket", "read:account", "read:workspace:bitbucket"]}}}`
	cases := []struct {
		name, body, want string
		required         []string
	}{
		{"detail string", bitbuckettest.ScopeErrorBody, "Required scopes: write:repository:bitbucket.", []string{"write:repository:bitbucket"}},
		{"detail object", objectDetail, `"required":["write:repository:bitbucket"]`, []string{"write:repository:bitbucket"}},
		{"not a scope", `{"type": "error", "error": {"message": "You may not write to this branch.", "detail": "Branch restrictions forbid writes to main."}}`,
			"You may not write to this branch. (Branch restrictions forbid writes to main.)", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newFake(t)
			s.Fail(bitbuckettest.OpSetStatus, bitbuckettest.Fault{Status: http.StatusForbidden, Body: tc.body})
			c, _ := newClient(t, s, nil)
			err := c.SetBuildStatus(context.Background(), acme, headFull, insights.InProgress(summaryURL))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to carry %q", err, tc.want)
			}
			var mse *MissingScopeError
			if errors.As(err, &mse) != (tc.required != nil) || (mse != nil && !cmp.Equal(mse.Required, tc.required)) {
				t.Fatalf("MissingScopeError %+v, want required %v", mse, tc.required)
			}
		})
	}
}
