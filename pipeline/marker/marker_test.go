package marker

import (
	"math/rand"
	"reflect"
	"testing"

	"github.com/prscout/prscout/pipeline"
)

func TestParseReviewMarker(t *testing.T) {
	const sha = "0123456789abcdef0123456789abcdef01234567"
	tests := []struct {
		name   string
		body   string
		want   string
		wantOK bool
	}{
		{"ours", "## prscout review\n\ntext\n\n" + ReviewMarker(sha) + "\n", sha, true},
		{"no version", `[prscout]: # "review head=abc123"`, "abc123", true},
		{"indented up to three spaces", `   [prscout]: # "review head=abc123 v=1"`, "abc123", true},
		{"CRLF", "x\r\n\r\n[prscout]: # \"review head=abc123 v=1\"\r\n", "abc123", true},
		{"legacy HTML comment", "summary\n<!-- prscout review head=deadbeef -->", "deadbeef", true},
		{"legacy inline in a line", "text <!--prscout review head=deadbeef v=1--> more", "deadbeef", true},
		{"last of several", ReviewMarker("aaa") + "\n" + ReviewMarker("bbb"), "bbb", true},
		{"quoted in a reply", `> [prscout]: # "review head=abc123 v=1"`, "", false},
		{"in a code block indent", `    [prscout]: # "review head=abc123 v=1"`, "", false},
		{"other marker", `[prscout-finding]: # "fp=0123456789abcdef v=1"`, "", false},
		{"bad head", `[prscout]: # "review head=abc"def v=1"`, "", false},
		{"plain text", "prscout review head=abc", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParseReviewMarker(tt.body)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("ParseReviewMarker(%q) = %q, %v; want %q, %v", tt.body, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestParseFindingMarker(t *testing.T) {
	fp := Fingerprint("a.go", "Title", "x := 1")
	for _, tt := range []struct {
		body   string
		want   string
		wantOK bool
	}{
		{"**High** · t\n\n" + FindingMarker(fp), fp, true},
		{"<!-- prscout finding fp=" + fp + " -->", fp, true},
		{`[prscout-finding]: # "fp=XYZ v=1"`, "", false},
		{ReviewMarker("abc"), "", false},
	} {
		got, ok := ParseFindingMarker(tt.body)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("ParseFindingMarker(%q) = %q, %v; want %q, %v", tt.body, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestLastReviewedCommit(t *testing.T) {
	comments := []pipeline.Comment{
		{ID: 5, Body: "hello"},
		{ID: 30, Body: "old\n\n" + ReviewMarker("ccc"), Deleted: true},
		{ID: 20, Body: "summary\n\n" + ReviewMarker("bbb")},
		{ID: 3, Body: "<!-- prscout review head=aaa -->"},
		{ID: 40, Body: ReviewMarker("inline-ddd"), Inline: &pipeline.InlineAnchor{Path: "a.go", Line: 1}},
		{ID: 7, Body: "someone else"},
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 20; i++ {
		shuffled := append([]pipeline.Comment(nil), comments...)
		rng.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
		sha, id, ok := LastReviewedCommit(shuffled)
		if sha != "bbb" || id != 20 || !ok {
			t.Fatalf("order %v: LastReviewedCommit = %q, %d, %v; want bbb, 20, true", ids(shuffled), sha, id, ok)
		}
	}
	if _, _, ok := LastReviewedCommit(comments[:1]); ok {
		t.Error("found a marker in comments without one")
	}
	if _, _, ok := LastReviewedCommit(nil); ok {
		t.Error("found a marker in no comments")
	}
}

// TestLastReviewedCommitIgnoresForeign: a marker another account pasted
// neither skips a review nor moves the delta base.
func TestLastReviewedCommitIgnoresForeign(t *testing.T) {
	ours := pipeline.Comment{ID: 10, Body: "summary\n\n" + ReviewMarker("old")}
	cases := []struct {
		name     string
		comments []pipeline.Comment
		wantSHA  string
		wantID   int64
		wantOK   bool
	}{
		{"only a foreign marker for the head", []pipeline.Comment{
			{ID: 20, Body: "lgtm\n\n" + ReviewMarker("head"), Foreign: true},
		}, "", 0, false},
		{"foreign legacy marker", []pipeline.Comment{
			{ID: 20, Body: "<!-- prscout review head=head -->", Foreign: true},
		}, "", 0, false},
		{"newer foreign marker after ours", []pipeline.Comment{
			ours,
			{ID: 20, Body: ReviewMarker("head"), Foreign: true},
		}, "old", 10, true},
		{"older foreign marker before ours", []pipeline.Comment{
			{ID: 5, Body: ReviewMarker("head"), Foreign: true},
			ours,
		}, "old", 10, true},
		{"unknown author (Foreign false) is trusted", []pipeline.Comment{
			{ID: 20, Body: ReviewMarker("head"), Author: "someone"},
		}, "head", 20, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sha, id, ok := LastReviewedCommit(tc.comments)
			if sha != tc.wantSHA || id != tc.wantID || ok != tc.wantOK {
				t.Errorf("LastReviewedCommit = %q, %d, %v; want %q, %d, %v", sha, id, ok, tc.wantSHA, tc.wantID, tc.wantOK)
			}
		})
	}
}

func ids(cs []pipeline.Comment) []int64 {
	out := make([]int64, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

func TestFindingFingerprints(t *testing.T) {
	a, b, c := Fingerprint("a.go", "A", ""), Fingerprint("b.go", "B", ""), Fingerprint("c.go", "C", "")
	got := FindingFingerprints([]pipeline.Comment{
		{ID: 1, Body: "x\n\n" + FindingMarker(a), Inline: &pipeline.InlineAnchor{Path: "a.go", Line: 1}},
		{ID: 2, Body: "<!-- prscout finding fp=" + b + " -->"},
		{ID: 3, Body: FindingMarker(c), Deleted: true},
		{ID: 4, Body: ReviewMarker("abc")},
	})
	want := map[string]bool{a: true, b: true, c: true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("FindingFingerprints = %v, want %v", got, want)
	}
}

func TestFindingFingerprintsIgnoresForeign(t *testing.T) {
	a, b := Fingerprint("a.go", "A", ""), Fingerprint("b.go", "B", "")
	cases := []struct {
		name     string
		comments []pipeline.Comment
		want     map[string]bool
	}{
		{"foreign inline marker", []pipeline.Comment{
			{ID: 1, Body: FindingMarker(a), Inline: &pipeline.InlineAnchor{Path: "a.go", Line: 1}, Foreign: true},
		}, map[string]bool{}},
		{"foreign legacy marker in a general comment", []pipeline.Comment{
			{ID: 1, Body: "<!-- prscout finding fp=" + a + " -->", Foreign: true},
		}, map[string]bool{}},
		{"foreign deleted marker", []pipeline.Comment{
			{ID: 1, Body: FindingMarker(a), Deleted: true, Foreign: true},
		}, map[string]bool{}},
		{"ours next to a foreign one", []pipeline.Comment{
			{ID: 1, Body: FindingMarker(a), Foreign: true},
			{ID: 2, Body: FindingMarker(b), Inline: &pipeline.InlineAnchor{Path: "b.go", Line: 2}},
		}, map[string]bool{b: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := FindingFingerprints(tc.comments); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("FindingFingerprints = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestFingerprintStability(t *testing.T) {
	base := Fingerprint("api/handler.go", "SQL built from user input", "q := \"SELECT\" + id")
	same := []struct{ path, title, code string }{
		{"api/handler.go", "  sql BUILT from\nuser input. ", "q := \"SELECT\" + id"},
		{"api/handler.go", "SQL built from user input", "\tq  :=  \"SELECT\"+id\r\n"},
	}
	for _, s := range same {
		if got := Fingerprint(s.path, s.title, s.code); got != base {
			t.Errorf("Fingerprint(%q, %q, %q) = %s, want %s (same finding)", s.path, s.title, s.code, got, base)
		}
	}
	differ := []struct{ path, title, code string }{
		{"api/other.go", "SQL built from user input", "q := \"SELECT\" + id"},
		{"api/handler.go", "SQL injection", "q := \"SELECT\" + id"},
		{"api/handler.go", "SQL built from user input", "q := \"UPDATE\" + id"},
	}
	for _, s := range differ {
		if got := Fingerprint(s.path, s.title, s.code); got == base {
			t.Errorf("Fingerprint(%q, %q, %q) = %s, same as a different finding", s.path, s.title, s.code, got)
		}
	}
	if len(base) != 16 {
		t.Errorf("fingerprint %q is not 16 hex digits", base)
	}
}

func TestStripMarkers(t *testing.T) {
	in := "keep\n[prscout]: # \"review head=fff v=1\"\n  [PRSCOUT-finding]: # \"fp=0123456789abcdef\"\nalso <!-- prscout review head=fff -->\nprscout is a tool\n"
	got, n := StripMarkers(in)
	if want := "keep\nprscout is a tool\n"; got != want || n != 3 {
		t.Errorf("stripMarkers = %q, %d; want %q, 3", got, n, want)
	}
}
