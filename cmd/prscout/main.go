// Command prscout is the review worker: `prscout serve` runs the HTTP service
// that n8n calls; other subcommands run single steps from a shell or CI.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/prscout/prscout/api"
)

func main() {
	// The served version (logs, metrics, SARIF) is the one `prscout version`
	// prints: set at link time, else taken from the build information.
	api.Version = buildVersion()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// command is one subcommand: it gets the arguments after its name and returns
// the process exit code.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{"serve", "run the HTTP service", runServe},
		{"validate-workflow", "check the JavaScript of n8n Code nodes in workflow exports", runValidateWorkflow},
		{"deploy", "deploy one workflow through n8n's public API (gated, with backup and rollback)", runDeploy},
		{"preview", "show which changed files a base..head review sees, with reasons and prompt sizes, without a model", runPreview},
		{"rules", "rules check PATH...: show which rule layer and pattern win for each path", runRules},
		{"sarif", "write a saved review (review answer + /v1/context answer) as SARIF 2.1.0", runSARIF},
		{"report-insights", "put a SARIF log on a Bitbucket commit as a Code Insights report", runReportInsights},
		{"version", "print the version, the Go version and the platform (also --version)", runVersion},
		{"docs-config", "print docs/configuration.md from the settings table (-w writes it)", runDocsConfig},
	}
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] == "--version" || args[0] == "-version" {
		return runVersion(args[1:], stdout, stderr)
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "prscout: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: prscout <command> [flags]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-18s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'prscout <command> -h' for a command's flags.")
}
