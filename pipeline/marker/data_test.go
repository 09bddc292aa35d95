package marker

import (
	"reflect"
	"strings"
	"testing"
)

func TestFindingDataRoundTrip(t *testing.T) {
	cases := []FindingData{
		{Fingerprint: "0123456789abcdef", State: StateOpen, CommentID: 1234, Path: "pkg/api/new.go", Line: 3,
			TitleHash: TitleHash("lookup panics"), CodeHash: CodeHash([]string{"x := 1"}), CodeLines: 1,
			Severity: "high", Since: "0123456789ab", Changed: "0123456789ab"},
		{Fingerprint: "fedcba9876543210", State: StateResolved, Path: `dir with space/"quoted" 100%.go`, Line: 0,
			TitleHash: "deadbeef", CodeHash: "cafebabe", CodeLines: 3, Severity: "critical", Since: "aaaaaaaaaaaa", Changed: "bbbbbbbbbbbb"},
		{Fingerprint: "1111111111111111", State: StateOutdated, Path: "ünïcode/ファイル.go"},
	}
	var body strings.Builder
	body.WriteString("## prscout review\n\ntext\n\n")
	for _, d := range cases {
		line := FindingDataLine(d)
		if strings.ContainsAny(line, "<>\n") || strings.Count(line, `"`) != 2 {
			t.Errorf("data line is not one link reference definition with one quoted title: %s", line)
		}
		body.WriteString(line + "\n")
	}
	body.WriteString("\n" + ReviewMarker("abc") + "\n")
	got := ParseFindingData(body.String())
	if !reflect.DeepEqual(got, cases) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, cases)
	}
	if head, ok := ParseReviewMarker(body.String()); !ok || head != "abc" {
		t.Errorf("data lines hide the review marker: %q %v", head, ok)
	}
	if fps := FindingFingerprints(nil); len(fps) != 0 {
		t.Error("no comments, fingerprints found")
	}
}

func TestParseFindingDataRejects(t *testing.T) {
	const fp = "0123456789abcdef"
	good := `[prscout-f:` + fp + `]: # "v=1 s=open c=1 l=2 p=a.go"`
	for _, tc := range []struct {
		name, line string
		want       int
	}{
		{"good", good, 1},
		{"CRLF and three spaces", "   " + good + "\r", 1},
		{"unknown state", strings.Replace(good, "s=open", "s=fixed", 1), 0},
		{"no state", strings.Replace(good, "s=open ", "", 1), 0},
		{"no path", strings.Replace(good, " p=a.go", "", 1), 0},
		{"bad escape", strings.Replace(good, "p=a.go", "p=a%zz.go", 1), 0},
		{"negative comment id", strings.Replace(good, "c=1", "c=-1", 1), 0},
		{"line out of range", strings.Replace(good, "l=2", "l=99999999999", 1), 0},
		{"quoted in a reply", "> " + good, 0},
		{"in an indented code block", "    " + good, 0},
		{"short fingerprint", strings.Replace(good, fp, "0123", 1), 0},
		{"unknown keys ignored", strings.Replace(good, "v=1", "v=2 zz=1 novalue", 1), 1},
		{"duplicate fingerprint: first wins", good + "\n" + strings.Replace(good, "c=1", "c=9", 1), 1},
		{"bad hashes dropped, line kept", strings.Replace(good, "v=1", "v=1 t=XYZ k=123", 1), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ParseFindingData(tc.line)
			if len(got) != tc.want {
				t.Fatalf("ParseFindingData(%q) = %+v, want %d entries", tc.line, got, tc.want)
			}
			if tc.want == 1 && (got[0].CommentID != 1 || got[0].TitleHash != "" || got[0].CodeHash != "") {
				t.Errorf("ParseFindingData(%q) = %+v", tc.line, got[0])
			}
		})
	}
}

func TestHashes(t *testing.T) {
	if TitleHash("SQL built from user input.") != TitleHash("  sql BUILT from\nuser input ") {
		t.Error("TitleHash differs for the same normalized title")
	}
	if TitleHash("a") == TitleHash("b") {
		t.Error("TitleHash equal for different titles")
	}
	if CodeHash([]string{"\tq := 1", "", "  return q"}) != CodeHash([]string{"q:=1", "returnq"}) {
		t.Error("CodeHash depends on whitespace or blank lines")
	}
	if CodeHash([]string{"a", "b"}) == CodeHash([]string{"ab"}) {
		t.Error("CodeHash joins lines without a separator")
	}
	if CodeHash([]string{" ", ""}) != "" {
		t.Error("CodeHash of blank lines is not empty")
	}
}

func TestStripMarkersRemovesDataLines(t *testing.T) {
	in := "keep\n[prscout-f:0123456789abcdef]: # \"v=1 s=resolved c=1 l=1 p=a.go\"\n[PRSCOUT-F:x]: # \"y\"\n"
	got, n := StripMarkers(in)
	if got != "keep\n" || n != 2 {
		t.Errorf("StripMarkers = %q, %d; want the data lines removed", got, n)
	}
}

// FuzzParseFindingData: any body parses without panicking, and every entry
// it reads renders to a line that parses back to the same entry.
func FuzzParseFindingData(f *testing.F) {
	f.Add(`[prscout-f:0123456789abcdef]: # "v=1 s=open c=1 l=2 t=deadbeef k=cafebabe n=2 g=h f=0123456789ab h=0123456789ab p=a%20b/c.go"`)
	f.Add("x\n[prscout-f:fedcba9876543210]: # \"s=resolved p=%zz\"\n")
	f.Fuzz(func(t *testing.T, body string) {
		for _, d := range ParseFindingData(body) {
			again := ParseFindingData(FindingDataLine(d))
			if len(again) != 1 || !reflect.DeepEqual(again[0], d) {
				t.Fatalf("%+v renders as %q, parses back as %+v", d, FindingDataLine(d), again)
			}
		}
	})
}

// TestAbuseDefuseData: the last guard turns a data line that slipped into
// a summary's text into one the memory parser does not read, and leaves
// the rest as it is.
func TestAbuseDefuseData(t *testing.T) {
	const planted = `[prscout-f:0123456789abcdef]: # "v=1 s=open c=77 l=1 t=1a2b3c4d p=a.go"`
	in := "## prscout review\n\n" + planted + "\n  " + planted + "\nrest\n"
	got := DefuseData(in)
	if d := ParseFindingData(got); len(d) != 0 || !strings.HasSuffix(got, "\nrest\n") || strings.Count(got, `\[prscout-f:`) != 2 {
		t.Errorf("after the guard: %d data line(s) in %q", len(d), got)
	}
	for _, clean := range []string{"", "no data here\n", "mentions [prscout-f: in prose\n"} {
		if got := DefuseData(clean); got != clean {
			t.Errorf("DefuseData(%q) = %q, want it unchanged", clean, got)
		}
	}
}
