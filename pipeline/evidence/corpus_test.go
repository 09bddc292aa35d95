package evidence_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/anchor"
	"github.com/prscout/prscout/pipeline/evidence"
	"github.com/prscout/prscout/pipeline/reviewanswer"
)

// update rewrites testdata/corpus/verdicts.golden.json:
// go test ./pipeline/evidence -update.
var update = flag.Bool("update", false, "rewrite the corpus golden")

// corpusFixture is what a review was shown: the changed files (diff, and
// the new source unless the fixture leaves it out, as /v1/merge's echo does)
// and the additional context.
type corpusFixture struct {
	Files             []pipeline.ChangedFile `json:"files"`
	AdditionalContext []pipeline.ContextItem `json:"additionalContext"`
}

// corpusAnswer is one review answer with a hand label per finding, in the
// answer's order: whether its quote is code the finding is about, as it is
// in the file it names as the review was shown (whitespace, diff markers,
// part of a line and an abridged quote are still that code; a paraphrase,
// another file's code, removed code or no quote are not).
type corpusAnswer struct {
	Fixture string          `json:"fixture"`
	Review  json.RawMessage `json:"review"`
	Labels  []struct {
		Verified bool   `json:"verified"`
		Kind     string `json:"kind"`
		ID       string `json:"id"`
	} `json:"labels"`
}

type goldenVerdict struct {
	ID     string          `json:"id"`
	Kind   string          `json:"kind"`
	Label  bool            `json:"label"`
	Result evidence.Result `json:"result"`
}

// TestCorpus checks every finding of the labelled corpus, compares the
// verdicts with the golden, and reports the precision and recall of
// `verified` against the labels.
func TestCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "corpus")
	fixtures := map[string]*evidence.Shown{}
	paths, _ := filepath.Glob(filepath.Join(dir, "answers", "*.json"))
	if len(paths) < 40 {
		t.Fatalf("%d answers in the corpus, want at least 40", len(paths))
	}
	sort.Strings(paths)
	got := map[string][]goldenVerdict{}
	var tp, fp, fn, tn int
	kinds := map[string]int{}
	var misses []string
	for _, p := range paths {
		var a corpusAnswer
		readJSON(t, p, &a)
		shown, ok := fixtures[a.Fixture]
		if !ok {
			var fx corpusFixture
			readJSON(t, filepath.Join(dir, "fixtures", a.Fixture+".json"), &fx)
			ix, _ := anchor.NewIndex(fx.Files)
			shown = evidence.New(ix, fx.Files, fx.AdditionalContext)
			fixtures[a.Fixture] = shown
		}
		parsed, err := reviewanswer.Parse(a.Review)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if len(parsed.Findings) != len(a.Labels) {
			t.Fatalf("%s: %d findings read, %d labels", p, len(parsed.Findings), len(a.Labels))
		}
		name := filepath.Base(p)
		for i, f := range parsed.Findings {
			l := a.Labels[i]
			r := shown.Check(f)
			got[name] = append(got[name], goldenVerdict{ID: l.ID, Kind: l.Kind, Label: l.Verified, Result: r})
			kinds[l.Kind]++
			switch {
			case r.OK() && l.Verified:
				tp++
			case r.OK():
				fp++
				misses = append(misses, fmt.Sprintf("false verified: %s %s (%s, %s)", name, l.ID, l.Kind, a.Fixture))
			case l.Verified:
				fn++
				misses = append(misses, fmt.Sprintf("missed: %s %s (%s, %s): %s", name, l.ID, l.Kind, a.Fixture, r.Reason))
			default:
				tn++
			}
		}
	}
	for _, k := range []string{"present", "paraphrased", "other_file", "no_quote", "deleted", "whitespace"} {
		if kinds[k] == 0 {
			t.Errorf("the corpus has no finding of kind %q", k)
		}
	}
	precision := float64(tp) / float64(max(tp+fp, 1))
	recall := float64(tp) / float64(max(tp+fn, 1))
	t.Logf("%d answers, %d findings (%d labelled verified): verified precision %.3f (%d/%d), recall %.3f (%d/%d); %d rightly not verified",
		len(paths), tp+fp+fn+tn, tp+fn, precision, tp, tp+fp, recall, tp, tp+fn, tn)
	for _, m := range misses {
		t.Log(m)
	}

	golden := filepath.Join(dir, "verdicts.golden.json")
	data, err := json.MarshalIndent(got, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, '\n')
	if *update {
		if err := os.WriteFile(golden, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("read golden (run with -update to create it): %v", err)
	}
	if string(want) != string(data) {
		t.Errorf("verdicts differ from %s (run with -update and review the diff):\n%s", golden, firstDiff(string(want), string(data)))
	}
	// The figures the golden holds must stay what they are measured as.
	if precision < 0.9 || recall < 0.8 {
		t.Errorf("precision %.3f / recall %.3f below 0.9 / 0.8", precision, recall)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(al), len(bl))
}
