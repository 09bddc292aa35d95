package bbql

import (
	"strings"
	"testing"
)

// TestWrittenFiltersRun: what the adapter writes (CommentsBy, quoting
// included) parses and selects exactly the comments it means: by the
// account's id or braced uuid, text contained in any case, any-of and
// all-of; quotes and backslashes in a text survive the round trip.
func TestWrittenFiltersRun(t *testing.T) {
	comment := func(account, uuid, raw string) map[string]any {
		return map[string]any{"id": 1, "content": map[string]any{"raw": raw}, "user": map[string]any{"account_id": account, "uuid": uuid}}
	}
	q := CommentsBy([]string{"bot-1", "5f2a"}, []string{`[prscout]: #`, `say "hi" \o/`}, []string{"head="})
	e, err := Parse(q, Comments)
	if err != nil {
		t.Fatalf("Parse(%s): %v", q, err)
	}
	for _, tc := range []struct {
		c    map[string]any
		want bool
	}{
		{comment("bot-1", "{x}", "sum\n[PRSCOUT]: # \"review head=abc\""), true},
		{comment("other", "{5f2a}", `she said: SAY "HI" \O/ head=1`), true},
		{comment("other", "{x}", "[prscout]: # \"review head=abc\""), false}, // another account
		{comment("bot-1", "{x}", "[prscout]: # no head"), false},             // all-of missing
		{comment("bot-1", "{x}", "head= only"), false},                       // any-of missing
	} {
		if got := e.Match(tc.c); got != tc.want {
			t.Errorf("%v: match %v, want %v (q=%s)", tc.c, got, tc.want, q)
		}
	}
}

// TestRefused: what the fake cannot run is an error naming the parameter.
func TestRefused(t *testing.T) {
	objs := []map[string]any{{"id": 1}}
	for _, tc := range []struct{ q, sort, prefix string }{
		{`deleted = false`, "", "q: "},
		{`content.raw >= "a"`, "", "q: "},
		{`content.raw ~ "a" OR`, "", "q: "},
		{`content.raw ~ "a")`, "", "q: "},
		{`content.raw ~ "a" & content.raw ~ "b"`, "", "q: "},
		{"", "-size", "sort: "},
	} {
		if _, err := Apply(objs, tc.q, tc.sort, Comments); err == nil || !strings.HasPrefix(err.Error(), tc.prefix) {
			t.Errorf("q=%s sort=%s: %v, want an error starting %q", tc.q, tc.sort, err, tc.prefix)
		}
	}
}
