package jira

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/criteria"
)

// fakeClock is a settable clock for the field cache.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestRequirementsFromConfiguredFieldID(t *testing.T) {
	fj := newFakeJira(t, "", basicAuth)
	c, _, _ := newTestClient(t, Config{BaseURL: fj.URL(), AcceptanceField: "customfield_10042"})
	got, err := lookupSplit(context.Background(), c, "PROJ-124")
	if err != nil {
		t.Fatal(err)
	}
	// The field is ADF (a rich-text field): heading, bullets, and a
	// trailing paragraph that is not a criterion.
	want := []pipeline.Requirement{
		{ID: "PROJ-124#1", Issue: "PROJ-124", Text: "exports CSV"},
		{ID: "PROJ-124#2", Issue: "PROJ-124", Text: "asks @Kim"},
	}
	if d := cmp.Diff(want, got.Requirements); d != "" {
		t.Errorf("requirements (-want +got):\n%s", d)
	}
	if got.RequirementsSource != "field customfield_10042" || got.RequirementsWarnings != nil {
		t.Errorf("source %q, warnings %q", got.RequirementsSource, got.RequirementsWarnings)
	}
	if n := fj.calls("/rest/api/2/field"); n != 0 {
		t.Errorf("field list fetched %d times for a configured id", n)
	}
}

// With no field configured, fields named like "Acceptance criteria" are
// found by name, with one field list request for all lookups.
func TestFieldFoundByNameOnce(t *testing.T) {
	fj := newFakeJira(t, "", basicAuth)
	c, _, _ := newTestClient(t, Config{BaseURL: fj.URL(), MaxIssues: 10})
	issues, warnings := lookupAllSplit(context.Background(), c, []string{"PROJ-123", "proj-124", "PROJ-125", "SHOP-12", "LONG-1", "PROJ-123"})
	if len(warnings) != 0 || len(issues) != 5 {
		t.Fatalf("issues %d, warnings %q", len(issues), warnings)
	}
	if n := fj.calls("/rest/api/2/field"); n != 1 {
		t.Errorf("field list fetched %d times, want 1", n)
	}
	if n := fj.calls("/rest/api/2/issue/PROJ-123"); n != 1 {
		t.Errorf("PROJ-123 read %d times, want 1 (keys are deduplicated)", n)
	}
	if q := fj.lastRequest().URL.Query().Get("fields"); q != "summary,status,description,customfield_10042,customfield_10099" {
		t.Errorf("fields = %q", q)
	}
	type summary struct {
		Key, Source string
		Texts       []string
	}
	var got []summary
	for _, iss := range issues {
		s := summary{Key: iss.Key, Source: iss.RequirementsSource}
		for _, r := range iss.Requirements {
			if !strings.HasPrefix(r.ID, iss.Key+"#") || r.Issue != iss.Key {
				t.Errorf("requirement %+v of %s", r, iss.Key)
			}
			s.Texts = append(s.Texts, r.Text)
		}
		got = append(got, s)
	}
	want := []summary{
		{"PROJ-123", `field "Acceptance Criteria" (customfield_10042)`,
			[]string{"Given 5 failed logins, the account is locked for 15 minutes", "A locked account gets HTTP 423"}},
		{"PROJ-124", `field "Acceptance Criteria" (customfield_10042)`, []string{"exports CSV", "asks @Kim"}},
		// The second field of the same name holds this one's criteria.
		{"PROJ-125", `field "acceptance criteria" (customfield_10099)`, []string{"fast", "safe"}},
		// No field value: the description's section (wiki markup, API v2).
		{"SHOP-12", `description section "Acceptance Criteria"`, []string{
			"The cart page shows a shipping estimate under the subtotal: based on the customer's default address",
			"The estimate updates within 1 s when the cart changes",
			`Errors from the rates API show "Estimate unavailable"`,
		}},
		{"LONG-1", "", nil},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("requirements (-want +got):\n%s", d)
	}
}

func TestFieldNameMatching(t *testing.T) {
	list := []rawField{
		{ID: "customfield_1", Name: "Acceptance criteria (Gherkin)"},
		{ID: "customfield_2", Name: "Acceptance Criteria"},
		{ID: "customfield_3", Name: "Acceptance Test Plan"},
		{ID: "customfield_4", Name: "acceptance-criteria"},
		{ID: "customfield_5", Name: "Not acceptance criteria"},
		{ID: "customfield_2", Name: "Acceptance Criteria"},
	}
	got, err := matchFields(list, "")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"customfield_2", "customfield_1", "customfield_4"}, got.ids); d != "" {
		t.Errorf("ids (-want +got):\n%s", d)
	}
	if got.names["customfield_1"] != "Acceptance criteria (Gherkin)" {
		t.Errorf("names %v", got.names)
	}
	if got, err := matchFields(list[2:3], ""); err != nil || len(got.ids) != 0 {
		t.Errorf("no match: %v, %v", got, err)
	}
	if _, err := matchFields(list, "DoD"); err == nil || err.Error() != `PRSCOUT_JIRA_AC_FIELD "DoD": Jira has no field with that name or id` {
		t.Errorf("configured unknown name: %v", err)
	}
}

// A failed field list is kept for a while (the issue is still read, with
// criteria from the description and a warning), then tried again.
func TestFieldListFailureCachedThenRetried(t *testing.T) {
	fj := newFakeJira(t, "", basicAuth)
	c, _, _ := newTestClient(t, Config{BaseURL: fj.URL()})
	clock := &fakeClock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	c.fields.now = clock.now
	fj.push(fault{status: http.StatusInternalServerError})

	got, err := lookupSplit(context.Background(), c, "SHOP-12")
	if err != nil {
		t.Fatal(err)
	}
	wantWarn := []string{"SHOP-12: acceptance criteria field not resolved (list fields: HTTP 500: Internal Server Error); criteria taken from the description"}
	if d := cmp.Diff(wantWarn, got.RequirementsWarnings); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
	if len(got.Requirements) != 3 || got.RequirementsSource != `description section "Acceptance Criteria"` {
		t.Errorf("requirements %v from %q", got.Requirements, got.RequirementsSource)
	}

	clock.add(10 * time.Second)
	got, err = lookupSplit(context.Background(), c, "PROJ-123")
	if err != nil || got.AcceptanceCriteria != "" || len(got.Requirements) != 0 {
		t.Fatalf("within the failure window: %+v, %v", got, err)
	}
	if w := got.RequirementsWarnings; len(w) != 1 || !strings.Contains(w[0], "HTTP 500: Internal Server Error (kept; next try in 20s)") {
		t.Errorf("warnings %q", w)
	}
	if n := fj.calls("/rest/api/2/field"); n != 1 {
		t.Errorf("field list fetched %d times within the failure window, want 1", n)
	}

	clock.add(21 * time.Second)
	got, err = lookupSplit(context.Background(), c, "PROJ-123")
	if err != nil || len(got.Requirements) != 2 || got.RequirementsWarnings != nil {
		t.Fatalf("after the window: %+v, %v", got, err)
	}
	if n := fj.calls("/rest/api/2/field"); n != 2 {
		t.Errorf("field list fetched %d times, want 2", n)
	}
	// A list that was read is kept for good.
	clock.add(24 * time.Hour)
	if _, err := lookupSplit(context.Background(), c, "PROJ-124"); err != nil {
		t.Fatal(err)
	}
	if n := fj.calls("/rest/api/2/field"); n != 2 {
		t.Errorf("field list fetched %d times after success, want 2", n)
	}
}

// A longer Retry-After than the default window is honoured.
func TestFieldListFailureHonoursRetryAfter(t *testing.T) {
	fj := newFakeJira(t, "", basicAuth)
	c, _, _ := newTestClient(t, Config{BaseURL: fj.URL()})
	clock := &fakeClock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	c.fields.now = clock.now
	// 120 s is more than the SDK client waits, so it is not retried there.
	fj.push(fault{status: http.StatusTooManyRequests, header: map[string]string{"Retry-After": "120"}})
	if _, err := c.ResolveAcceptanceField(context.Background()); !isStatus(err, http.StatusTooManyRequests) {
		t.Fatalf("err = %v", err)
	}
	clock.add(90 * time.Second)
	if _, err := c.ResolveAcceptanceField(context.Background()); err == nil || !strings.HasSuffix(err.Error(), "(kept; next try in 30s)") {
		t.Fatalf("err = %v", err)
	}
	clock.add(31 * time.Second)
	ids, err := c.ResolveAcceptanceField(context.Background())
	if err != nil || len(ids) != 2 {
		t.Fatalf("ids %v, err %v", ids, err)
	}
	if n := fj.calls("/rest/api/2/field"); n != 2 {
		t.Errorf("field list fetched %d times, want 2", n)
	}
}

// No lock is held while the field list is fetched: a caller whose context
// ends does not wait for another caller's slow fetch.
func TestSlowFieldListBlocksNoOne(t *testing.T) {
	fj := newFakeJira(t, "", basicAuth)
	hang, arrived := make(chan struct{}), make(chan struct{})
	fj.push(fault{hang: hang, arrived: arrived})
	// The first lookup hangs until the test ends (no client timeout cuts it
	// short): a second caller waiting on it would never return.
	c, _, _ := newTestClient(t, Config{BaseURL: fj.URL(), Timeout: time.Hour})

	first := make(chan error, 1)
	go func() {
		_, err := lookupSplit(context.Background(), c, "PROJ-123")
		first <- err
	}()
	<-arrived // the first lookup's field list hangs upstream
	if n := fj.calls("/rest/api/2/field"); n != 1 {
		t.Fatalf("the hanging request is not the field list (%d field requests)", n)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := c.ResolveAcceptanceField(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || err.Error() != "list fields: context deadline exceeded" {
		t.Errorf("second caller err = %v", err)
	}
	if n := fj.calls("/rest/api/2/field"); n != 1 {
		t.Errorf("field list fetched %d times, want 1 (shared)", n)
	}

	close(hang) // the fake answers 200 with no body: a failed list
	select {
	case err := <-first:
		if err != nil {
			t.Errorf("first lookup: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("first lookup never returned")
	}
}

func TestLookupIssuesBoundedByMaxIssues(t *testing.T) {
	fj := newFakeJira(t, "", basicAuth)
	c, _, _ := newTestClient(t, Config{BaseURL: fj.URL(), MaxIssues: 2, AcceptanceField: AcceptanceFieldNone})
	if c.MaxIssues() != 2 {
		t.Fatalf("MaxIssues() = %d", c.MaxIssues())
	}
	issues, warnings := lookupAllSplit(context.Background(), c, []string{"PROJ-999", "proj-124", "PROJ-124", " ", "PROJ-125", "LONG-1"})
	if len(issues) != 1 || issues[0].Key != "PROJ-124" {
		t.Errorf("issues %+v", issues)
	}
	want := []string{"jira PROJ-999: not found", "jira: 2 more keys not looked up (limit 2): PROJ-125, LONG-1"}
	if d := cmp.Diff(want, warnings); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
	if n := fj.calls("/rest/api/2/issue/PROJ-125") + fj.calls("/rest/api/2/issue/LONG-1"); n != 0 {
		t.Errorf("%d lookups past the limit", n)
	}

	d, err := New(Config{BaseURL: fj.URL(), PAT: "x"})
	if err != nil || d.MaxIssues() != defaultMaxIssues {
		t.Errorf("default MaxIssues() = %d, %v", d.MaxIssues(), err)
	}
	if issues, warnings := lookupAllSplit(context.Background(), c, nil); issues != nil || warnings != nil {
		t.Errorf("no keys: %v %v", issues, warnings)
	}
}

// lookupSplit is LookupIssue followed by the context stage's split of the
// acceptance criteria (criteria.Fill): the issue as a review sees it.
func lookupSplit(ctx context.Context, c *Client, key string) (pipeline.Issue, error) {
	iss, err := c.LookupIssue(ctx, key)
	criteria.Fill(&iss)
	return iss, err
}

// lookupAllSplit is LookupIssues with the same split for each issue.
func lookupAllSplit(ctx context.Context, c *Client, keys []string) ([]pipeline.Issue, []string) {
	issues, warnings := c.LookupIssues(ctx, keys)
	for i := range issues {
		criteria.Fill(&issues[i])
	}
	return issues, warnings
}
