package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/prscout/prscout/n8n"
)

const deployUsage = `usage: prscout deploy [flags] EXPORT.json
       prscout deploy --rollback BACKUP.json [flags]
       prscout deploy --setup [flags] [EXPORT.json...]

Safe deploy of one n8n workflow through n8n's public API:
  1. gate the export: every Code/Function node must compile in V8 (as
     validate-workflow); nothing is sent when it fails;
  2. back up the live workflow: GET /api/v1/workflows/{id} saved to
     --backup-dir/<id>-<UTC time>.json;
  3. PUT /api/v1/workflows/{id} with only {name, nodes, connections, settings}
     (n8n answers 400 to any other field; node and settings keys outside n8n's
     schema are dropped, with a warning).

Setup: --setup is the one-command install of the shipped workflows
(default workflows/pr-review.json and workflows/pr-comments.json): it finds
the three credentials they name (by name and type) or creates them from
PRSCOUT_API_KEYS (the first key), LLM_API_KEY and PRSCOUT_FORWARD_TOKEN,
links every node to them, sets Config's prscoutUrl and llmBaseUrl when
--prscout-url and --llm-base-url are given, creates each workflow (or
updates the one of the same name, after a backup) and publishes it.

Rollback: --rollback BACKUP.json deploys a backup file the same way: it is
gated, the current live version is backed up first, then the backup is PUT.

The workflow id comes from --id, else from the export's "id".
The API key comes from --api-key or the environment variable N8N_API_KEY.
Redirects are not followed (the key would go along): give the URL n8n's API
answers at.

Exit codes:
  0  deployed (or, with --dry-run, would deploy)
  1  the gate failed: nothing was changed in n8n
  2  usage error or unreadable export
  3  n8n's API failed (backup or update); see the message

Flags:
`

// deployOptions are the flags of `prscout deploy`; file is the export (or
// the backup, with --rollback) to deploy.
type deployOptions struct {
	baseURL, apiKey, id, backupDir, rollback, file string
	dryRun, allowUndecided, expressions            bool
	// setup: --setup with its files and Config values (deploy_setup.go).
	setup                  bool
	setupFiles             []string
	prscoutURL, llmBaseURL string
}

// deployExit is a step's failure: the exit code and the message for
// stderr ("" when the step has written its own).
type deployExit struct {
	code int
	msg  string
}

// exitWith is a deployExit whose message is "deploy: " and the format.
func exitWith(code int, format string, args ...any) *deployExit {
	return &deployExit{code: code, msg: "deploy: " + fmt.Sprintf(format, args...)}
}

// runDeploy is `prscout deploy`: parse the flags, then gate, back up and
// PUT (deploy); a step's failure becomes its exit code.
func runDeploy(args []string, stdout, stderr io.Writer) int {
	o, e := parseDeployFlags(args, stderr)
	switch {
	case e == nil && o.setup:
		e = setup(o, stdout, stderr)
	case e == nil:
		e = deploy(o, stdout, stderr)
	}
	if e == nil {
		return 0
	}
	if e.msg != "" {
		fmt.Fprintln(stderr, e.msg)
	}
	return e.code
}

// parseDeployFlags reads the flags and the one file to deploy; the API
// key and the n8n URL fall back to the environment.
func parseDeployFlags(args []string, stderr io.Writer) (deployOptions, *deployExit) {
	var o deployOptions
	fl := flag.NewFlagSet("deploy", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.StringVar(&o.baseURL, "n8n-url", os.Getenv("N8N_URL"), "n8n base URL, e.g. http://127.0.0.1:5678 (default $N8N_URL)")
	fl.StringVar(&o.apiKey, "api-key", "", "n8n API key (default $N8N_API_KEY)")
	fl.StringVar(&o.id, "id", "", "workflow id in n8n (default: the export's id)")
	fl.StringVar(&o.backupDir, "backup-dir", "backups", "folder for backups of the live workflow")
	fl.StringVar(&o.rollback, "rollback", "", "deploy this backup file instead of an export (it is gated too)")
	fl.BoolVar(&o.dryRun, "dry-run", false, "gate and back up, print the body that would be PUT, change nothing")
	fl.BoolVar(&o.allowUndecided, "allow-undecided", false, "let snippets the gate cannot decide through")
	fl.BoolVar(&o.expressions, "expressions", true, "also gate n8n expressions")
	fl.BoolVar(&o.setup, "setup", false, "create or find the credentials, then create or update and publish the shipped workflows")
	fl.StringVar(&o.prscoutURL, "prscout-url", "", "with --setup: Config's prscoutUrl, prscout's URL as n8n reaches it")
	fl.StringVar(&o.llmBaseURL, "llm-base-url", "", "with --setup: Config's llmBaseUrl, the OpenAI-compatible API root as n8n reaches it")
	fl.Usage = func() {
		fmt.Fprint(stderr, deployUsage)
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, &deployExit{code: 0}
		}
		return o, &deployExit{code: 2}
	}
	if o.apiKey == "" {
		o.apiKey = os.Getenv("N8N_API_KEY")
	}
	if o.setup {
		return o, setupArgs(&o, fl.Args())
	}
	o.file = o.rollback
	switch {
	case o.file != "" && fl.NArg() > 0:
		return o, exitWith(2, "give either EXPORT.json or --rollback BACKUP.json, not both")
	case o.file == "" && fl.NArg() != 1:
		fmt.Fprintln(stderr, "deploy: give exactly one workflow export file")
		fl.Usage()
		return o, &deployExit{code: 2}
	case o.file == "":
		o.file = fl.Arg(0)
	}
	if o.baseURL == "" {
		return o, exitWith(2, "--n8n-url (or N8N_URL) is required")
	}
	if o.apiKey == "" {
		return o, exitWith(2, "no API key: set N8N_API_KEY or pass --api-key")
	}
	return o, nil
}

// deployer runs one deploy: the flags, the n8n client and where to write.
type deployer struct {
	deployOptions
	n8n            *n8n.Client
	stdout, stderr io.Writer
}

// deploy runs the three steps of deployUsage: gate the file, back up the
// live workflow, PUT the writable fields.
func deploy(o deployOptions, stdout, stderr io.Writer) *deployExit {
	c, err := n8n.New(n8n.Config{BaseURL: o.baseURL, APIKey: o.apiKey})
	if err != nil {
		return exitWith(2, "%v", err)
	}
	d := &deployer{deployOptions: o, n8n: c, stdout: stdout, stderr: stderr}
	wf, e := d.gate()
	if e != nil {
		return e
	}
	ctx := context.Background()
	live, backup, e := d.backUp(ctx)
	if e != nil {
		return e
	}
	return d.put(ctx, wf, live, backup)
}

// gate reads the file, gates its Code and Function nodes and returns its
// one workflow; the id falls back to the workflow's.
func (d *deployer) gate() (map[string]any, *deployExit) {
	wf, e := d.gateFile()
	if e != nil {
		return nil, e
	}
	if d.id == "" {
		d.id, _ = wf["id"].(string)
	}
	if d.id == "" {
		return nil, exitWith(2, "the export has no id: pass --id")
	}
	return wf, nil
}

// backUp saves the live workflow to the backup folder and returns it and
// the backup's path.
func (d *deployer) backUp(ctx context.Context) (live []byte, backup string, e *deployExit) {
	live, err := d.n8n.Workflow(ctx, d.id)
	if err != nil {
		return nil, "", exitWith(3, "back up workflow %s: %v%s", d.id, err, n8nHint(err))
	}
	backup, err = writeBackup(d.backupDir, d.id, live)
	if err != nil {
		return nil, "", exitWith(3, "%v", err)
	}
	fmt.Fprintf(d.stdout, "backed up live workflow %s to %s\n", d.id, backup)
	return live, backup, nil
}

// put PUTs only the writable fields of wf (or, with --dry-run, prints
// them) and says how to undo it with the backup.
func (d *deployer) put(ctx context.Context, wf map[string]any, live []byte, backup string) *deployExit {
	var liveObj map[string]any
	_ = json.Unmarshal(live, &liveObj)
	body, dropped := n8n.PutBody(wf, liveObj)
	for _, k := range dropped {
		fmt.Fprintf(d.stderr, "deploy: warning: dropped %s (not accepted by n8n's public API)\n", k)
	}
	payload, err := json.Marshal(body)
	if err != nil {
		return exitWith(2, "encode body: %v", err)
	}
	if d.dryRun {
		fmt.Fprintf(d.stdout, "dry run: would PUT %s with:\n%s\n", d.n8n.WorkflowURL(d.id), payload)
		return nil
	}
	if err := d.n8n.UpdateWorkflow(ctx, d.id, payload); err != nil {
		return exitWith(3, "update workflow %s: %v%s\nrollback: prscout deploy --rollback %s --id %s", d.id, err, n8nHint(err), backup, d.id)
	}
	what := "deployed"
	if d.rollback != "" {
		what = "rolled back"
	}
	fmt.Fprintf(d.stdout, "%s workflow %s (%q, %d node(s)); to undo: prscout deploy --rollback %s --id %s\n",
		what, d.id, body["name"], len(body["nodes"].([]any)), backup, d.id)
	return nil
}

// n8nHint says what to check when n8n refused the key or knows no such
// workflow; "" for other errors.
func n8nHint(err error) string {
	var ae *n8n.APIError
	if !errors.As(err, &ae) {
		return ""
	}
	switch ae.Status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return "\nhint: n8n refused the API key: check --api-key or N8N_API_KEY"
	case http.StatusNotFound:
		return "\nhint: n8n has no workflow with this id: check --id or the export's id"
	}
	return ""
}

func writeBackup(dir, id string, live []byte) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create backup folder: %w", err)
	}
	safe := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == '.' || r < ' ' {
			return '_'
		}
		return r
	}, id)
	path := filepath.Join(dir, fmt.Sprintf("%s-%s.json", safe, time.Now().UTC().Format("20060102T150405.000000000Z")))
	var pretty bytes.Buffer
	if json.Indent(&pretty, live, "", "  ") != nil {
		pretty.Reset()
		pretty.Write(live)
	}
	if err := os.WriteFile(path, pretty.Bytes(), 0o600); err != nil {
		return "", fmt.Errorf("write backup: %w", err)
	}
	return path, nil
}
