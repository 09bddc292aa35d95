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
	"sort"
	"strings"
	"time"

	"github.com/prscout/prscout/n8n"
	"github.com/prscout/prscout/pipeline/gate"
)

const deployUsage = `usage: prscout deploy [flags] EXPORT.json
       prscout deploy --rollback BACKUP.json [flags]

Safe deploy of one n8n workflow through n8n's public API:
  1. gate the export: every Code/Function node must compile in V8 (as
     validate-workflow); nothing is sent when it fails;
  2. back up the live workflow: GET /api/v1/workflows/{id} saved to
     --backup-dir/<id>-<UTC time>.json;
  3. PUT /api/v1/workflows/{id} with only {name, nodes, connections, settings}
     (n8n answers 400 to any other field; node and settings keys outside n8n's
     schema are dropped, with a warning).

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

// Public API schema of n8n 2.x (docs/operations.md, "Deploying a workflow"): fields a PUT may carry.
var (
	allowedNodeKeys = stringSet("id", "name", "webhookId", "disabled", "notesInFlow", "notes", "type", "typeVersion",
		"executeOnce", "alwaysOutputData", "retryOnFail", "maxTries", "waitBetweenTries", "continueOnFail", "onError",
		"position", "parameters", "credentials")
	allowedSettingsKeys = stringSet("saveExecutionProgress", "saveManualExecutions", "saveDataErrorExecution",
		"saveDataSuccessExecution", "executionTimeout", "errorWorkflow", "timezone", "executionOrder", "callerPolicy",
		"callerIds", "timeSavedPerExecution", "availableInMCP")
)

func stringSet(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// runDeploy is `prscout deploy`.
func runDeploy(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("deploy", flag.ContinueOnError)
	fl.SetOutput(stderr)
	baseURL := fl.String("n8n-url", os.Getenv("N8N_URL"), "n8n base URL, e.g. http://127.0.0.1:5678 (default $N8N_URL)")
	apiKey := fl.String("api-key", "", "n8n API key (default $N8N_API_KEY)")
	id := fl.String("id", "", "workflow id in n8n (default: the export's id)")
	backupDir := fl.String("backup-dir", "backups", "folder for backups of the live workflow")
	rollback := fl.String("rollback", "", "deploy this backup file instead of an export (it is gated too)")
	dryRun := fl.Bool("dry-run", false, "gate and back up, print the body that would be PUT, change nothing")
	allowUndecided := fl.Bool("allow-undecided", false, "let snippets the gate cannot decide through")
	expressions := fl.Bool("expressions", true, "also gate n8n expressions")
	fl.Usage = func() {
		fmt.Fprint(stderr, deployUsage)
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *apiKey == "" {
		*apiKey = os.Getenv("N8N_API_KEY")
	}
	file := *rollback
	switch {
	case file != "" && fl.NArg() > 0:
		fmt.Fprintln(stderr, "deploy: give either EXPORT.json or --rollback BACKUP.json, not both")
		return 2
	case file == "" && fl.NArg() != 1:
		fmt.Fprintln(stderr, "deploy: give exactly one workflow export file")
		fl.Usage()
		return 2
	case file == "":
		file = fl.Arg(0)
	}
	if *baseURL == "" {
		fmt.Fprintln(stderr, "deploy: --n8n-url (or N8N_URL) is required")
		return 2
	}
	if *apiKey == "" {
		fmt.Fprintln(stderr, "deploy: no API key: set N8N_API_KEY or pass --api-key")
		return 2
	}
	c, err := n8n.New(n8n.Config{BaseURL: *baseURL, APIKey: *apiKey})
	if err != nil {
		fmt.Fprintf(stderr, "deploy: %v\n", err)
		return 2
	}

	data, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "deploy: read export: %v\n", err)
		return 2
	}
	// 1. Gate.
	rep := gate.CheckExport(filepath.ToSlash(file), data, gate.Options{Expressions: *expressions, AllowUndecided: *allowUndecided})
	if len(rep.Problems) > 0 {
		_ = rep.WriteText(stderr)
		return 2
	}
	if !rep.OK {
		_ = rep.WriteText(stderr)
		fmt.Fprintln(stderr, "deploy: the gate failed; nothing was sent to n8n")
		return 1
	}
	wf, err := singleWorkflow(data)
	if err != nil {
		fmt.Fprintf(stderr, "deploy: %v\n", err)
		return 2
	}
	if *id == "" {
		*id, _ = wf["id"].(string)
	}
	if *id == "" {
		fmt.Fprintln(stderr, "deploy: the export has no id: pass --id")
		return 2
	}

	ctx := context.Background()
	// 2. Back up the live workflow.
	live, err := c.Workflow(ctx, *id)
	if err != nil {
		fmt.Fprintf(stderr, "deploy: back up workflow %s: %v%s\n", *id, err, n8nHint(err))
		return 3
	}
	backup, err := writeBackup(*backupDir, *id, live)
	if err != nil {
		fmt.Fprintf(stderr, "deploy: %v\n", err)
		return 3
	}
	fmt.Fprintf(stdout, "backed up live workflow %s to %s\n", *id, backup)

	// 3. PUT only the writable fields.
	var liveObj map[string]any
	_ = json.Unmarshal(live, &liveObj)
	body, dropped := putBody(wf, liveObj)
	for _, d := range dropped {
		fmt.Fprintf(stderr, "deploy: warning: dropped %s (not accepted by n8n's public API)\n", d)
	}
	payload, err := json.Marshal(body)
	if err != nil {
		fmt.Fprintf(stderr, "deploy: encode body: %v\n", err)
		return 2
	}
	if *dryRun {
		fmt.Fprintf(stdout, "dry run: would PUT %s with:\n%s\n", c.WorkflowURL(*id), payload)
		return 0
	}
	if err := c.UpdateWorkflow(ctx, *id, payload); err != nil {
		fmt.Fprintf(stderr, "deploy: update workflow %s: %v%s\nrollback: prscout deploy --rollback %s --id %s\n", *id, err, n8nHint(err), backup, *id)
		return 3
	}
	what := "deployed"
	if *rollback != "" {
		what = "rolled back"
	}
	fmt.Fprintf(stdout, "%s workflow %s (%q, %d node(s)); to undo: prscout deploy --rollback %s --id %s\n",
		what, *id, body["name"], len(body["nodes"].([]any)), backup, *id)
	return 0
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

// singleWorkflow returns the one workflow of an export: an object, or an
// array holding exactly one workflow (export:workflow --id).
func singleWorkflow(data []byte) (map[string]any, error) {
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("read export: %w", err)
	}
	if arr, ok := doc.([]any); ok {
		if len(arr) != 1 {
			return nil, fmt.Errorf("the export holds %d workflows; deploy one at a time", len(arr))
		}
		doc = arr[0]
	}
	wf, ok := doc.(map[string]any)
	if !ok {
		return nil, errors.New("the export is not a workflow object")
	}
	if inner, ok := wf["workflow"].(map[string]any); ok && wf["nodes"] == nil {
		wf = inner
	}
	if _, ok := wf["nodes"].([]any); !ok {
		return nil, errors.New("the export has no nodes array")
	}
	return wf, nil
}

// putBody builds the PUT body {name, nodes, connections, settings} from the
// export, keeping only node and settings keys n8n's schema allows. The name
// falls back to the live workflow's (a canvas copy has none).
func putBody(wf, live map[string]any) (map[string]any, []string) {
	var dropped []string
	name, _ := wf["name"].(string)
	if name == "" && live != nil {
		name, _ = live["name"].(string)
	}
	var nodes []any
	for i, raw := range wf["nodes"].([]any) {
		n, ok := raw.(map[string]any)
		if !ok {
			nodes = append(nodes, raw)
			continue
		}
		clean := map[string]any{}
		for _, k := range sortedMapKeys(n) {
			if allowedNodeKeys[k] {
				clean[k] = n[k]
			} else {
				dropped = append(dropped, fmt.Sprintf("nodes[%d].%s", i, k))
			}
		}
		nodes = append(nodes, clean)
	}
	settings := map[string]any{}
	if s, ok := wf["settings"].(map[string]any); ok {
		for _, k := range sortedMapKeys(s) {
			if allowedSettingsKeys[k] {
				settings[k] = s[k]
			} else {
				dropped = append(dropped, "settings."+k)
			}
		}
	}
	connections, ok := wf["connections"].(map[string]any)
	if !ok {
		connections = map[string]any{}
	}
	if nodes == nil {
		nodes = []any{}
	}
	return map[string]any{"name": name, "nodes": nodes, "connections": connections, "settings": settings}, dropped
}

func sortedMapKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
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
