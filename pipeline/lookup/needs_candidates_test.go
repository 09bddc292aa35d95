package lookup

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/prscout/prscout/pipeline"
)

func cands(paths ...string) []pipeline.Candidate {
	out := make([]pipeline.Candidate, len(paths))
	for i, p := range paths {
		out[i] = pipeline.Candidate{Path: p, Kind: pipeline.CandidateUses, Reason: "declares `X`", Symbols: []string{"X"}, Method: "go", Score: 1}
	}
	return out
}

// requested lists the requests as "op path source".
func requested(res NeedsResult) []string {
	var out []string
	for _, r := range res.Requests {
		out = append(out, r.Op+" "+r.Path+" "+r.Source)
	}
	return out
}

func TestNeedsAddsCandidates(t *testing.T) {
	scoutNeeds := func(paths ...string) json.RawMessage {
		var needs []string
		for _, p := range paths {
			needs = append(needs, `{"op":"get_file","path":"`+p+`"}`)
		}
		return scoutText(`{"files":[{"path":"src/a.go","needs":[` + strings.Join(needs, ",") + `]}]}`)
	}
	many := make([]string, 12)
	for i := range many {
		many[i] = fmt.Sprintf("lib/f%d.go", i)
	}
	tests := []struct {
		name   string
		scout  json.RawMessage
		cands  []pipeline.Candidate
		limits func(*pipeline.Limits)
		want   []string
		stats  CandidateStats
	}{
		{
			name:  "scout answers nothing: the top 3 are fetched",
			scout: scoutText(`{"files":[]}`),
			cands: cands("pkg/x.go", "pkg/y.go", "pkg/z.go", "pkg/w.go"),
			want:  []string{"get_file pkg/x.go candidate", "get_file pkg/y.go candidate", "get_file pkg/z.go candidate"},
			stats: CandidateStats{Listed: 4, Added: 3},
		},
		{
			name:  "the scout asked for one of the top 3 itself",
			scout: scoutNeeds("./pkg/y.go", "docs/api.md"),
			cands: cands("pkg/x.go", "pkg/y.go", "pkg/z.go", "pkg/w.go"),
			want:  []string{"get_file pkg/y.go scout", "get_file docs/api.md scout", "get_file pkg/x.go candidate", "get_file pkg/z.go candidate"},
			stats: CandidateStats{Listed: 4, AskedByScout: 1, Added: 2},
		},
		{
			name:  "asked by the scout further down the list counts too",
			scout: scoutNeeds("pkg/w.go"),
			cands: cands("pkg/x.go", "pkg/y.go", "pkg/z.go", "pkg/w.go"),
			want:  []string{"get_file pkg/w.go scout", "get_file pkg/x.go candidate", "get_file pkg/y.go candidate", "get_file pkg/z.go candidate"},
			stats: CandidateStats{Listed: 4, AskedByScout: 1, Added: 3},
		},
		{
			name:  "a refused scout need for a candidate still counts as asked",
			scout: scoutText(`{"files":[{"path":"src/a.go","needs":[{"op":"get_file","path":"pkg/x.go"},{"op":"get_file","path":"pkg/x.go"}]}]}`),
			cands: cands("pkg/x.go"),
			want:  []string{"get_file pkg/x.go scout"},
			stats: CandidateStats{Listed: 1, AskedByScout: 1},
		},
		{
			name:  "changed files, secret and noise paths, escapes are never added",
			scout: scoutText(`{"files":[]}`),
			cands: cands("src/b.go", ".env", "node_modules/x/i.js", "../../etc/passwd"),
			want:  nil,
			stats: CandidateStats{Listed: 4},
		},
		{
			name:  "a list_dir of the candidate's folder does not replace the file",
			scout: scoutText(`{"files":[{"path":"src/a.go","needs":[{"op":"list_dir","path":"pkg"}]}]}`),
			cands: cands("pkg/x.go"),
			want:  []string{"list_dir pkg scout", "get_file pkg/x.go candidate"},
			stats: CandidateStats{Listed: 1, Added: 1},
		},
		{
			name: "the total cap holds",
			scout: scoutText(`{"needs":[` + strings.Join(func() []string {
				var o []string
				for _, p := range many {
					o = append(o, `{"op":"get_file","path":"`+p+`"}`)
				}
				return o
			}(), ",") + `]}`),
			cands:  cands("pkg/x.go"),
			limits: func(l *pipeline.Limits) { l.NeedsPerFile = 12 },
			want: func() []string {
				var o []string
				for _, p := range many {
					o = append(o, "get_file "+p+" scout")
				}
				return o
			}(),
			stats: CandidateStats{Listed: 1},
		},
		{
			name:   "the candidates share one per-file cap",
			scout:  scoutText(`{"files":[]}`),
			cands:  cands("pkg/x.go", "pkg/y.go", "pkg/z.go"),
			limits: func(l *pipeline.Limits) { l.NeedsPerFile = 2 },
			want:   []string{"get_file pkg/x.go candidate", "get_file pkg/y.go candidate"},
			stats:  CandidateStats{Listed: 3, Added: 2},
		},
		{
			name:   "PRSCOUT_CANDIDATES_AUTO=0 adds none, still counts what the scout asked",
			scout:  scoutNeeds("pkg/y.go"),
			cands:  cands("pkg/x.go", "pkg/y.go"),
			limits: func(l *pipeline.Limits) { l.CandidatesAuto = 0 },
			want:   []string{"get_file pkg/y.go scout"},
			stats:  CandidateStats{Listed: 2, AskedByScout: 1},
		},
		{
			name:  "a name found only as text is offered, not fetched",
			scout: scoutText(`{"files":[]}`),
			cands: func() []pipeline.Candidate {
				cs := cands("pkg/x.go", "pkg/t1.py", "pkg/t2.rb", "pkg/y.go", "pkg/z.go", "pkg/w.go")
				cs[1].Method, cs[2].Method = pipeline.MethodTextual, pipeline.MethodIdentifier
				return cs
			}(),
			want:  []string{"get_file pkg/x.go candidate", "get_file pkg/y.go candidate", "get_file pkg/z.go candidate"},
			stats: CandidateStats{Listed: 6, Added: 3},
		},
		{
			name:  "no candidates: the placeholder as before",
			scout: scoutText(`{"files":[]}`),
			want:  nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lim := pipeline.DefaultLimits()
			if tt.limits != nil {
				tt.limits(&lim)
			}
			in := needsIn(tt.scout)
			in.Candidates = tt.cands
			res, err := Needs(in, lim)
			if err != nil {
				t.Fatal(err)
			}
			checkNeedsInvariants(t, res, lim)
			if diff := cmp.Diff(tt.want, requested(res)); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
			if res.Stats.Candidates != tt.stats {
				t.Errorf("stats.candidates = %+v, want %+v", res.Stats.Candidates, tt.stats)
			}
			if res.Skip != (len(tt.want) == 0) {
				t.Errorf("skip = %v with %d requests", res.Skip, len(tt.want))
			}
			for _, r := range res.Requests {
				if r.Workspace != "ws" || r.RepoSlug != "repo" || r.Ref != "abc123" {
					t.Errorf("request %+v lacks the repository coordinates", r)
				}
			}
		})
	}
}

// TestNeedsCandidatesFromContextAnswer: the needs request may carry the
// context answer's candidates exactly as /v1/context gives them.
func TestNeedsCandidatesFromContextAnswer(t *testing.T) {
	body := `{"workspace":"ws","repoSlug":"repo","ref":"abc123","files":[{"path":"src/a.go"}],"scout":"{\"files\":[]}",
	 "candidates":[{"path":"internal/store/store.go","kind":"uses","reason":"declares ` + "`Order`" + `","symbols":["Order"],"method":"go","score":1}]}`
	var in NeedsInput
	if err := json.Unmarshal([]byte(body), &in); err != nil {
		t.Fatal(err)
	}
	res, err := Needs(in, pipeline.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"get_file internal/store/store.go candidate"}, requested(res)); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	out, _ := json.Marshal(res.Requests[0])
	if !strings.Contains(string(out), `"source":"candidate"`) {
		t.Errorf("request JSON %s lacks its source", out)
	}
}
