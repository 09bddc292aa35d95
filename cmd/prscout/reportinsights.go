package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/prscout/prscout/bitbucket"
	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/sarif"
)

const reportInsightsUsage = `usage: prscout report-insights --sarif FILE [flags]

Puts a SARIF log (for example from 'prscout validate-workflow --format sarif')
on a Bitbucket commit as a Code Insights report: FAILED when a result is an
error, PASSED otherwise, with one annotation per result (at most 1,000).

Repository and commit default to Bitbucket Pipelines' BITBUCKET_WORKSPACE,
BITBUCKET_REPO_SLUG and BITBUCKET_COMMIT. Credentials are
PRSCOUT_BITBUCKET_ACCESS_TOKEN, or PRSCOUT_BITBUCKET_EMAIL and
PRSCOUT_BITBUCKET_TOKEN (PRSCOUT_BITBUCKET_BASE_URL for another API root).
Without them inside a Pipelines step (BITBUCKET_COMMIT set), calls go
through the step's authenticating proxy (--proxy, default
http://localhost:29418; from a pipe's container use
http://host.docker.internal:29418).

Exit codes:
  0  report written, or skipped with a warning because the credentials lack
     the scope (a missing scope never fails the build)
  1  Bitbucket refused or failed the call
  2  usage error, or the SARIF file could not be read

Flags:
`

// runReportInsights is `prscout report-insights`.
func runReportInsights(args []string, stdout, stderr io.Writer) int {
	return reportInsights(args, stdout, stderr, os.Getenv)
}

func reportInsights(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	fl := flag.NewFlagSet("report-insights", flag.ContinueOnError)
	fl.SetOutput(stderr)
	sarifPath := fl.String("sarif", "", "SARIF 2.1.0 file to report (required)")
	key := fl.String("key", "prscout-workflow-gate", "report id on the commit (letters, digits, '.', '_', '-')")
	title := fl.String("title", "", "report title (default: the SARIF tool's name)")
	workspace := fl.String("workspace", getenv("BITBUCKET_WORKSPACE"), "Bitbucket workspace (env BITBUCKET_WORKSPACE)")
	repoSlug := fl.String("repo-slug", getenv("BITBUCKET_REPO_SLUG"), "repository slug (env BITBUCKET_REPO_SLUG)")
	commit := fl.String("commit", getenv("BITBUCKET_COMMIT"), "commit to report on (env BITBUCKET_COMMIT)")
	proxy := fl.String("proxy", "", "Pipelines authenticating proxy URL (default "+bitbucket.PipelinesProxyURL+" inside a step without credentials)")
	link := fl.String("link", "", "link shown on the report (e.g. the pipeline's URL)")
	timeout := fl.Duration("timeout", time.Minute, "bound on the whole reporting")
	fl.Usage = func() {
		fmt.Fprint(stderr, reportInsightsUsage)
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	switch {
	case *sarifPath == "" || fl.NArg() > 0:
		fmt.Fprintln(stderr, "report-insights: give --sarif FILE (and no other arguments)")
		fl.Usage()
		return 2
	case *workspace == "" || *repoSlug == "" || *commit == "":
		fmt.Fprintln(stderr, "report-insights: --workspace, --repo-slug and --commit are required outside Bitbucket Pipelines")
		return 2
	}
	data, err := os.ReadFile(*sarifPath)
	if err != nil {
		fmt.Fprintf(stderr, "report-insights: --sarif: %v\n", err)
		return 2
	}
	log, err := sarif.Parse(data)
	if err != nil {
		fmt.Fprintf(stderr, "report-insights: --sarif %s: %v\n", *sarifPath, err)
		return 2
	}
	wd, _ := os.Getwd()
	report, annotations := insightsFromSARIF(log, *title, wd)
	report.Link = *link

	cfg, err := reportConfig(getenv, *proxy)
	if err != nil {
		fmt.Fprintf(stderr, "report-insights: %v\n", err)
		return 2
	}
	client, err := bitbucket.New(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "report-insights: %v\n", err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	repo := pipeline.Repo{Workspace: *workspace, RepoSlug: *repoSlug}
	res, err := client.PutReport(ctx, repo, *commit, *key, report, annotations)
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "report-insights: warning: %s\n", w)
	}
	var ie *pipeline.InvalidError
	switch {
	case errors.Is(err, pipeline.ErrMissingScope):
		fmt.Fprintf(stderr, "report-insights: warning: report not written: %v\n", err)
		return 0
	case errors.As(err, &ie):
		fmt.Fprintf(stderr, "report-insights: %v\n", err)
		return 2
	case err != nil:
		fmt.Fprintf(stderr, "report-insights: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "report %s on %s: %s, %d annotation(s)", *key, *commit, report.Result, res.Annotations)
	if res.Omitted > 0 {
		fmt.Fprintf(stdout, ", %d left out", res.Omitted)
	}
	fmt.Fprintln(stdout)
	return 0
}

// reportConfig picks the credentials: PRSCOUT_BITBUCKET_* when set, else
// the Pipelines proxy inside a step (or when --proxy is given).
func reportConfig(getenv func(string) string, proxy string) (bitbucket.Config, error) {
	cfg := bitbucket.Config{
		BaseURL: getenv("PRSCOUT_BITBUCKET_BASE_URL"), Email: getenv("PRSCOUT_BITBUCKET_EMAIL"),
		Token: getenv("PRSCOUT_BITBUCKET_TOKEN"), AccessToken: getenv("PRSCOUT_BITBUCKET_ACCESS_TOKEN"),
	}
	hasCreds := cfg.Email != "" || cfg.Token != "" || cfg.AccessToken != ""
	if proxy == "" && (hasCreds || getenv("BITBUCKET_COMMIT") == "") {
		return cfg, nil // New names the missing variable, if any
	}
	if hasCreds {
		return bitbucket.Config{}, errors.New("--proxy sends no credentials: unset PRSCOUT_BITBUCKET_* or drop --proxy")
	}
	return bitbucket.PipelinesConfig(proxy)
}

// insightsFromSARIF turns a SARIF log into a Code Insights report and one
// annotation per result: FAILED when any result is an error; severity from
// the result's properties.severity (prscout's own) or its level (error
// HIGH, warning MEDIUM, note or none LOW); the external id from prscout's
// fingerprint, or else a hash of the rule, location and message. Paths are
// made relative to the repository root: file URIs under wd lose that
// prefix, other absolute paths are dropped (the annotation stays, without a
// place).
func insightsFromSARIF(log sarif.Log, title, wd string) (pipeline.InsightsReport, []pipeline.Annotation) {
	counts := map[string]int{}
	var anns []pipeline.Annotation
	tool := ""
	for _, run := range log.Runs {
		if tool == "" {
			tool = run.Tool.Driver.Name
		}
		var levels map[string]string // built on the first result without a level
		for _, r := range run.Results {
			level := r.Level
			if level == "" {
				if levels == nil {
					levels = ruleLevels(run)
				}
				level = ruleLevel(run, levels, r)
			}
			counts[level]++
			a := pipeline.Annotation{AnnotationType: pipeline.AnnotationBug, Result: pipeline.AnnotationFailed, Severity: annotationSeverity(r, level)}
			summary, details, _ := strings.Cut(strings.TrimSpace(r.Message.Text), "\n")
			a.Summary, a.Details = strings.TrimSpace(summary), strings.TrimSpace(details)
			if a.Summary == "" {
				a.Summary = r.RuleID
			}
			if a.Summary == "" {
				a.Summary = "(no message)"
			}
			if r.RuleID != "" && a.Summary != r.RuleID {
				a.Summary = r.RuleID + ": " + a.Summary
			}
			var uri string
			if len(r.Locations) > 0 && r.Locations[0].PhysicalLocation != nil {
				pl := r.Locations[0].PhysicalLocation
				uri = pl.ArtifactLocation.URI
				a.Path = repoPath(uri, wd)
				if pl.Region != nil && a.Path != "" {
					a.Line = pl.Region.StartLine
					if pl.Region.StartColumn > 0 && a.Details == "" {
						a.Details = fmt.Sprintf("line %d, column %d", pl.Region.StartLine, pl.Region.StartColumn)
					}
				}
			}
			if fp := r.PartialFingerprints[sarif.FingerprintKey]; fp != "" {
				a.ExternalID = "prscout-" + fp
			} else {
				h := sha256.Sum256([]byte(strings.Join([]string{r.RuleID, uri, fmt.Sprint(a.Line), r.Message.Text}, "\x00")))
				a.ExternalID = "sarif-" + hex.EncodeToString(h[:8])
			}
			anns = append(anns, a.Fit())
		}
	}
	if title == "" {
		title = tool
	}
	if title == "" {
		title = "SARIF report"
	}
	rep := pipeline.InsightsReport{Title: title, ReportType: pipeline.ReportTypeBug, Result: pipeline.ReportPassed, Reporter: "prscout"}
	if counts[sarif.LevelError] > 0 {
		rep.Result = pipeline.ReportFailed
	}
	total := len(anns)
	if total == 0 {
		rep.Details = "no results"
	} else {
		rep.Details = fmt.Sprintf("%d result(s): %d error(s), %d warning(s), %d note(s)", total,
			counts[sarif.LevelError], counts[sarif.LevelWarning], counts[sarif.LevelNote]+counts["none"])
	}
	rep.Data = []pipeline.ReportDatum{
		{Title: "Errors", Type: pipeline.DatumNumber, Value: counts[sarif.LevelError]},
		{Title: "Warnings", Type: pipeline.DatumNumber, Value: counts[sarif.LevelWarning]},
		{Title: "Notes", Type: pipeline.DatumNumber, Value: counts[sarif.LevelNote] + counts["none"]},
	}
	return rep, anns
}

// ruleLevels indexes a run's rules by id: the default level of the first
// rule with that id that has one. One pass per run, so a log of many rules
// and many results costs their sum, not their product.
func ruleLevels(run sarif.Run) map[string]string {
	levels := make(map[string]string, len(run.Tool.Driver.Rules))
	for _, rule := range run.Tool.Driver.Rules {
		if dc := rule.DefaultConfiguration; dc != nil && dc.Level != "" {
			if _, seen := levels[rule.ID]; !seen {
				levels[rule.ID] = dc.Level
			}
		}
	}
	return levels
}

// ruleLevel is a result's level from its rule's default configuration (by
// ruleIndex, else by ruleId through levels), else SARIF's default, warning.
func ruleLevel(run sarif.Run, levels map[string]string, r sarif.Result) string {
	rules := run.Tool.Driver.Rules
	if r.RuleIndex != nil && *r.RuleIndex >= 0 && *r.RuleIndex < len(rules) {
		if dc := rules[*r.RuleIndex].DefaultConfiguration; dc != nil && dc.Level != "" {
			return dc.Level
		}
	}
	if l, ok := levels[r.RuleID]; ok {
		return l
	}
	return sarif.LevelWarning
}

func annotationSeverity(r sarif.Result, level string) string {
	if s, ok := r.Properties["severity"].(string); ok {
		switch strings.ToLower(s) {
		case "critical", "high", "medium", "low":
			return strings.ToUpper(s)
		}
	}
	switch level {
	case sarif.LevelError:
		return pipeline.AnnotationHigh
	case sarif.LevelWarning:
		return pipeline.AnnotationMedium
	}
	return pipeline.AnnotationLow
}

// repoPath turns a SARIF artifact URI into a path relative to the
// repository root (wd, where the step runs), or "" when it is outside it.
func repoPath(uri, wd string) string {
	if uri == "" {
		return ""
	}
	u, err := url.Parse(uri)
	if err != nil {
		return ""
	}
	p := u.Path
	if u.Scheme == "file" || filepath.IsAbs(p) {
		if wd == "" {
			return ""
		}
		rel, err := filepath.Rel(wd, filepath.FromSlash(p))
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return ""
		}
		return filepath.ToSlash(rel)
	}
	if u.Scheme != "" {
		return ""
	}
	p = strings.TrimPrefix(p, "./")
	if p == ".." || strings.HasPrefix(p, "../") {
		return ""
	}
	return p
}
