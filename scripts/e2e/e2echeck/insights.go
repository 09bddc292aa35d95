package main

import (
	"encoding/json"
	"strings"
)

// insightsState is the fake's /_fake/insights answer (bitbuckettest's
// CommitStatus, Report and Annotation).
type insightsState struct {
	Status *struct {
		State, Description, URL string
		States                  []string
	}
	Reports map[string]struct {
		Title, Details, ReportType, Result, Link string
		Data                                     json.RawMessage
		Puts                                     int
	}
	Annotations []struct {
		ExternalID, Path, Summary, Severity, AnnotationType string
		Line                                                int
	}
}

// insights checks the head commit's build status and Code Insights report
// against the /v1/comments answer: the states posted (oldest first), one
// report "prscout" written puts times, and one annotation per counted
// finding (the inline ones and those the comment budget or severity floor
// kept in the summary on their line, the unanchored ones without; the
// unverified ones are not counted).
func (c *checker) insights(control, ref string, answer map[string]any, wantStates string, puts int) {
	var st insightsState
	if err := getJSON(control+"/_fake/insights?commit="+ref, &st); err != nil {
		c.check(false, "read the build status and report of %s: %v", ref, err)
		return
	}
	posted, _ := answer["posted"].(map[string]any)
	summaryURL := str(posted["summaryUrl"])
	short := ref
	if len(short) > 12 {
		short = short[:12]
	}
	if c.check(st.Status != nil, "build status prscout on %s", short); st.Status != nil {
		c.check(strings.Join(st.Status.States, ",") == wantStates, "build status states %s (got %s)", wantStates, strings.Join(st.Status.States, ","))
		c.check(st.Status.URL == summaryURL && strings.Contains(summaryURL, "#comment-"), "build status links to the summary comment %s (got %s)", summaryURL, st.Status.URL)
		c.check(strings.Contains(st.Status.Description, "files reviewed"), "build status says %q", st.Status.Description)
	}
	bs, _ := posted["buildStatus"].(map[string]any)
	rr, _ := posted["report"].(map[string]any)
	c.check(bs["outcome"] == "ok" && rr["outcome"] == "ok", "/v1/comments answered posted.buildStatus and posted.report ok: %v / %v", bs["outcome"], rr["outcome"])
	rep, ok := st.Reports["prscout"]
	c.check(len(st.Reports) == 1 && ok && rep.Result == "PASSED" && rep.ReportType == "BUG" && rep.Link == summaryURL && rep.Puts == puts,
		"one Code Insights report prscout, PASSED, BUG, linked to the summary, written %d time(s) (got %d report(s), %s %s, puts %d)",
		puts, len(st.Reports), rep.Result, rep.ReportType, rep.Puts)
	inline, summaryOnly, unanchored := list(answer["inline"]), list(answer["summaryOnly"]), list(answer["unanchored"])
	c.check(len(st.Annotations) == len(inline)+len(summaryOnly)+len(unanchored) && num(rr["annotations"]) == float64(len(st.Annotations)),
		"one annotation per finding: %d inline + %d summary only + %d unanchored (got %d; posted.report.annotations %v)", len(inline), len(summaryOnly), len(unanchored), len(st.Annotations), rr["annotations"])
	byID := map[string]int{}
	lines := map[int]int{}
	for _, a := range st.Annotations {
		byID[a.ExternalID]++
		lines[a.Line]++
	}
	for _, in := range append(append([]map[string]any(nil), inline...), summaryOnly...) {
		fp := "prscout-" + str(in["fingerprint"])
		found := false
		for _, a := range st.Annotations {
			if a.ExternalID == fp {
				found = a.Path == str(in["path"]) && float64(a.Line) == num(in["line"]) && a.AnnotationType == "BUG"
			}
		}
		c.check(byID[fp] == 1 && found, "annotation %s on %s:%v", fp, str(in["path"]), in["line"])
	}
	c.check(lines[0] == len(unanchored), "%d unanchored finding(s) annotated without a line (got %d)", len(unanchored), lines[0])
}
