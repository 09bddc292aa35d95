package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/prscout/prscout/api"
	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/insights"
	"github.com/prscout/prscout/pipeline/review"
	"github.com/prscout/prscout/sarif"
)

const sarifUsage = `usage: prscout sarif --review FILE [--context FILE] [flags]

Writes a saved review as SARIF 2.1.0, for CI systems and code scanning tools.
The review is rendered exactly as /v1/comments renders it (same parsing,
anchoring and fingerprints) without posting anything.

  --review FILE   the review LLM's answer: any shape /v1/comments accepts
                  (JSON, or the model's raw text)
  --context FILE  the /v1/context answer of the same review (its files and
                  ref): findings are anchored on its diffs; without it every
                  finding is listed without a line

Exit codes:
  0  SARIF written (and, with --fail-on, no finding at the threshold)
  1  --fail-on: a finding at or above the threshold
  2  usage error, or an input could not be read or parsed

Flags:
`

// sarifContext is the part of a /v1/context answer (or of a /v1/comments
// request) the SARIF command reads.
type sarifContext struct {
	Ref      string                 `json:"ref"`
	Mode     string                 `json:"mode"`
	Files    []pipeline.ChangedFile `json:"files"`
	Excluded []pipeline.Excluded    `json:"excluded"`
}

// runSARIF is `prscout sarif`.
func runSARIF(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("sarif", flag.ContinueOnError)
	fl.SetOutput(stderr)
	reviewPath := fl.String("review", "", "file with the review LLM's answer (required)")
	contextPath := fl.String("context", "", "file with the /v1/context answer (files, ref)")
	ref := fl.String("ref", "", "the reviewed head commit (default: the context's ref)")
	out := fl.String("out", "", "write the SARIF to this file instead of stdout")
	failOn := fl.String("fail-on", "none", "exit 1 when a finding is at or above this severity: none, critical, high or medium")
	fl.Usage = func() {
		fmt.Fprint(stderr, sarifUsage)
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	threshold, err := insights.ParseFailOn(*failOn)
	if err != nil {
		fmt.Fprintf(stderr, "sarif: --fail-on: %v\n", err)
		return 2
	}
	if *reviewPath == "" || fl.NArg() > 0 {
		fmt.Fprintln(stderr, "sarif: give --review FILE (and no other arguments)")
		fl.Usage()
		return 2
	}
	answer, err := readReview(*reviewPath)
	if err != nil {
		fmt.Fprintf(stderr, "sarif: --review: %v\n", err)
		return 2
	}
	var ctx sarifContext
	if *contextPath != "" {
		b, err := os.ReadFile(*contextPath)
		if err != nil {
			fmt.Fprintf(stderr, "sarif: --context: %v\n", err)
			return 2
		}
		if err := json.Unmarshal(b, &ctx); err != nil {
			fmt.Fprintf(stderr, "sarif: --context %s is not a /v1/context answer: %v\n", *contextPath, err)
			return 2
		}
	}
	if *ref != "" {
		ctx.Ref = *ref
	}
	if ctx.Ref == "" {
		ctx.Ref = "unknown" // only the summary's marker would carry it
	}
	if ctx.Mode == "skip" {
		ctx.Mode = ""
	}
	r, err := review.Render(review.CommentsInput{
		Ref: ctx.Ref, Mode: ctx.Mode, Files: ctx.Files, Excluded: ctx.Excluded, Review: answer, DryRun: true,
	})
	if err != nil {
		fmt.Fprintf(stderr, "sarif: %v\n", err)
		return 2
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(stderr, "sarif: warning: %s\n", w)
	}
	findings := review.ReportFindings(r)
	b, err := sarif.FromFindings(findings, sarif.Options{ToolVersion: api.Version}).Marshal()
	if err != nil {
		fmt.Fprintf(stderr, "sarif: %v\n", err)
		return 2
	}
	if *out != "" {
		err = os.WriteFile(*out, b, 0o644)
	} else {
		_, err = stdout.Write(b)
	}
	if err != nil {
		fmt.Fprintf(stderr, "sarif: write: %v\n", err)
		return 2
	}
	if insights.ThresholdFails(threshold, insights.Count(findings)) {
		fmt.Fprintf(stderr, "sarif: %s (fail-on %s)\n", insights.Description(insights.Count(findings), r.Coverage), threshold)
		return 1
	}
	return 0
}

// readReview reads a review file: JSON as it is, anything else as the
// model's raw text.
func readReview(path string) (json.RawMessage, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if t := bytes.TrimSpace(b); len(t) > 0 && json.Valid(t) {
		return t, nil
	}
	if strings.TrimSpace(string(b)) == "" {
		return nil, fmt.Errorf("%s is empty", path)
	}
	raw, err := json.Marshal(string(b))
	if err != nil {
		return nil, err
	}
	return raw, nil
}
