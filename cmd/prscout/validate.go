package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/prscout/prscout/api"
	"github.com/prscout/prscout/pipeline/gate"
	"github.com/prscout/prscout/sarif"
	"golang.org/x/sync/errgroup"
)

const validateUsage = `usage: prscout validate-workflow [flags] PATH...

Checks that V8 (the engine n8n runs) compiles the JavaScript of every
n8n-nodes-base.code (jsCode), .function and .functionItem (functionCode) node,
wrapped exactly as n8n wraps it, in the given n8n workflow exports. PATH is a
file or a folder (searched recursively for *.json). Exports may be a single
workflow, an array of workflows, or a canvas copy {nodes, connections}.

Verdicts: ok, syntax_error, missing_code (a Code node without jsCode fails in
n8n 2.x), skipped (Python), undecided (the gate cannot tell what V8 would say;
counts as a failure unless --allow-undecided), too_deep (nested deeper than
--max-depth: not parsed, as the parser could exhaust the stack), too_large
(over --max-code-bytes, or the workflow's code over its limit), timeout (not
reached within --timeout). too_deep, too_large and timeout always fail.

With --format sarif the report is a SARIF 2.1.0 log for CI and code scanning
tools: one result per invalid node, located at the line and column of the
export where the offending code is written.

Exit codes:
  0  every checked node is ok
  1  some node is invalid (or undecided without --allow-undecided)
  2  usage error, or an input could not be read or is not a workflow export

Flags:
`

// runValidateWorkflow is `prscout validate-workflow`.
func runValidateWorkflow(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("validate-workflow", flag.ContinueOnError)
	fl.SetOutput(stderr)
	format := fl.String("format", "text", "output format: text, json or sarif (SARIF 2.1.0: one result per invalid node, at its line and column in the export)")
	expressions := fl.Bool("expressions", true, "also check n8n expressions (={{ ... }} parameters); --expressions=false switches the check off")
	allowUndecided := fl.Bool("allow-undecided", false, "count undecided snippets as ok (default: fail closed)")
	def := gate.DefaultLimits()
	maxDepth := fl.Int("max-depth", def.MaxDepth, "nesting depth of a snippet the gate parses (brackets, template substitutions, chained operators); deeper ones are too_deep")
	maxCode := fl.Int("max-code-bytes", def.MaxCodeBytes, "largest snippet the gate parses; larger ones are too_large")
	timeout := fl.Duration("timeout", 0, "time budget of the whole check (0: none); snippets not reached are reported")
	fl.Usage = func() {
		fmt.Fprint(stderr, validateUsage)
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *format != "text" && *format != "json" && *format != "sarif" {
		fmt.Fprintf(stderr, "validate-workflow: --format must be text, json or sarif, not %q\n", *format)
		return 2
	}
	if fl.NArg() == 0 {
		fmt.Fprintln(stderr, "validate-workflow: give at least one workflow file or folder")
		fl.Usage()
		return 2
	}
	if *maxDepth < 10 || *maxDepth > maxGateDepth {
		fmt.Fprintf(stderr, "validate-workflow: --max-depth must be between 10 and %d\n", maxGateDepth)
		return 2
	}
	opt := gate.Options{Expressions: *expressions, AllowUndecided: *allowUndecided,
		Limits: gate.Limits{MaxDepth: *maxDepth, MaxCodeBytes: *maxCode}}
	ctx := context.Background()
	if *timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}

	rep := gate.NewReport()
	var files []string
	for _, p := range fl.Args() {
		found, err := workflowFiles(p)
		if err != nil {
			rep.AddProblem(p, err.Error())
			continue
		}
		if len(found) == 0 {
			rep.AddProblem(p, "no *.json files in this folder")
		}
		files = append(files, found...)
	}
	for _, r := range checkFiles(ctx, files, opt) {
		rep.Merge(r)
	}

	var err error
	switch *format {
	case "json":
		err = rep.WriteJSON(stdout)
	case "sarif":
		err = writeGateSARIF(stdout, rep)
	default:
		err = rep.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "validate-workflow: write report: %v\n", err)
		return 2
	}
	return validateExitCode(rep)
}

// writeGateSARIF writes the report as SARIF 2.1.0. The exports with an
// invalid node are read again, so each result points at the line and column
// of the export where the bad code is written.
func writeGateSARIF(w io.Writer, rep gate.Report) error {
	sources := map[string][]byte{}
	for _, n := range rep.Nodes {
		if n.OK {
			continue
		}
		if _, done := sources[n.File]; done {
			continue
		}
		data, err := os.ReadFile(filepath.FromSlash(n.File))
		if err != nil {
			data = nil // the result then points at the file alone
		}
		sources[n.File] = data
	}
	b, err := sarif.FromGateReport(rep, sources, sarif.Options{ToolVersion: api.Version}).Marshal()
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// validateExitCode maps a report to the documented exit codes.
func validateExitCode(rep gate.Report) int {
	switch {
	case len(rep.Problems) > 0:
		return 2
	case !rep.OK:
		return 1
	}
	return 0
}

// workflowFiles returns path itself when it is a file, or the *.json files
// under it (recursively, in lexical order, skipping .git and node_modules).
func workflowFiles(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read: %w", err)
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	var out []string
	err = fs.WalkDir(os.DirFS(path), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != "." && (d.Name() == ".git" || d.Name() == "node_modules") {
			return fs.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(strings.ToLower(d.Name()), ".json") {
			out = append(out, filepath.Join(path, filepath.FromSlash(p)))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walk folder: %w", err)
	}
	sort.Strings(out)
	return out, nil
}

// checkFiles checks files in parallel and returns the reports in file order.
func checkFiles(ctx context.Context, files []string, opt gate.Options) []gate.Report {
	reports := make([]gate.Report, len(files))
	// A file that cannot be read is a problem in its own report, so the
	// goroutines return nil.
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range files {
		g.Go(func() error {
			name := filepath.ToSlash(files[i])
			data, err := os.ReadFile(files[i])
			if err != nil {
				r := gate.NewReport()
				r.Stats.Files = 1
				r.AddProblem(name, fmt.Sprintf("cannot read: %v", err))
				reports[i] = r
				return nil
			}
			reports[i] = gate.CheckExportContext(ctx, name, data, opt)
			return nil
		})
	}
	_ = g.Wait()
	return reports
}
