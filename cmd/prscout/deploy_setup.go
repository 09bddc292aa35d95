package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/prscout/prscout/n8n"
	"github.com/prscout/prscout/pipeline/gate"
)

// setupCredential is one credential the shipped workflows name
// (workflows/README.md, "Credentials"): its name, its n8n type and the
// data it is created with.
type setupCredential struct {
	name, typ string
	data      map[string]any
}

// defaultSetupFiles are the shipped workflows, relative to the checkout.
var defaultSetupFiles = []string{"workflows/pr-review.json", "workflows/pr-comments.json"}

// setupArgs checks the --setup flags and takes the files.
func setupArgs(o *deployOptions, args []string) *deployExit {
	switch {
	case o.rollback != "" || o.id != "":
		return exitWith(2, "--setup takes no --rollback or --id")
	case o.baseURL == "":
		return exitWith(2, "--n8n-url (or N8N_URL) is required")
	case o.apiKey == "":
		return exitWith(2, "no API key: set N8N_API_KEY or pass --api-key")
	}
	o.setupFiles = args
	if len(args) == 0 {
		o.setupFiles = defaultSetupFiles
	}
	return nil
}

// setupCredentials are the credentials --setup creates, from prscout's
// settings in the environment.
func setupCredentials(getenv func(string) string, llmBase string) ([]setupCredential, *deployExit) {
	key, _, _ := strings.Cut(getenv("PRSCOUT_API_KEYS"), ",")
	key = strings.TrimSpace(key)
	token := getenv("PRSCOUT_FORWARD_TOKEN")
	header := getenv("PRSCOUT_FORWARD_HEADER")
	if header == "" {
		header = "X-Prscout-Token"
	}
	switch {
	case key == "":
		return nil, exitWith(2, "--setup: PRSCOUT_API_KEYS is empty (the key n8n sends to prscout)")
	case token == "":
		return nil, exitWith(2, "--setup: PRSCOUT_FORWARD_TOKEN is empty (the token n8n's Webhook nodes check)")
	}
	llmKey := getenv("LLM_API_KEY")
	if llmKey == "" {
		llmKey = "none"
	}
	if llmBase == "" {
		llmBase = "https://api.openai.com/v1"
	}
	return []setupCredential{
		{"prscout API key", "httpBearerAuth", map[string]any{"token": key}},
		{"LLM API key", "openAiApi", map[string]any{"apiKey": llmKey, "url": llmBase, "header": false}},
		{"prscout webhook token", "httpHeaderAuth", map[string]any{"name": header, "value": token}},
	}, nil
}

// setup is `prscout deploy --setup`: gate every file, find or create the
// credentials, then create or update each workflow with them and publish it.
func setup(o deployOptions, stdout, stderr io.Writer) *deployExit {
	c, err := n8n.New(n8n.Config{BaseURL: o.baseURL, APIKey: o.apiKey})
	if err != nil {
		return exitWith(2, "%v", err)
	}
	d := &deployer{deployOptions: o, n8n: c, stdout: stdout, stderr: stderr}
	var wfs []map[string]any
	for _, f := range o.setupFiles {
		d.file = f
		wf, e := d.gateFile()
		if e != nil {
			return e
		}
		wfs = append(wfs, wf)
	}
	want, e := setupCredentials(os.Getenv, o.llmBaseURL)
	if e != nil {
		return e
	}
	ctx := context.Background()
	ids, e := d.ensureCredentials(ctx, want)
	if e != nil {
		return e
	}
	existing, err := c.Workflows(ctx)
	if err != nil {
		return exitWith(3, "list workflows: %v%s", err, n8nHint(err))
	}
	for i, wf := range wfs {
		if e := n8n.LinkCredentials(wf, ids); e != nil {
			return exitWith(2, "%s: %v", o.setupFiles[i], e)
		}
		n8n.SetConfig(wf, map[string]string{"prscoutUrl": o.prscoutURL, "llmBaseUrl": o.llmBaseURL})
		if e := d.createOrUpdate(ctx, wf, existing); e != nil {
			return e
		}
	}
	return nil
}

// gateFile reads d.file, gates its Code and Function nodes and returns its
// one workflow.
func (d *deployer) gateFile() (map[string]any, *deployExit) {
	data, err := os.ReadFile(d.file)
	if err != nil {
		return nil, exitWith(2, "read export: %v", err)
	}
	rep := gate.CheckExport(filepath.ToSlash(d.file), data, gate.Options{Expressions: d.expressions, AllowUndecided: d.allowUndecided})
	if len(rep.Problems) > 0 {
		_ = rep.WriteText(d.stderr)
		return nil, &deployExit{code: 2}
	}
	if !rep.OK {
		_ = rep.WriteText(d.stderr)
		return nil, exitWith(1, "the gate failed; nothing was sent to n8n")
	}
	wf, err := n8n.SingleWorkflow(data)
	if err != nil {
		return nil, exitWith(2, "%v", err)
	}
	return wf, nil
}

// ensureCredentials finds each wanted credential by name and type, or
// creates it; it returns their ids by "type/name".
func (d *deployer) ensureCredentials(ctx context.Context, want []setupCredential) (map[string]string, *deployExit) {
	have, err := d.n8n.Credentials(ctx)
	if err != nil {
		return nil, exitWith(3, "list credentials: %v%s", err, n8nHint(err))
	}
	ids := map[string]string{}
	for _, w := range want {
		var found []n8n.Item
		for _, h := range have {
			if h.Name == w.name && h.Type == w.typ {
				found = append(found, h)
			}
		}
		switch {
		case len(found) > 1:
			return nil, exitWith(3, "n8n has %d %s credentials named %q: keep one", len(found), w.typ, w.name)
		case len(found) == 1:
			ids[w.typ+"/"+w.name] = found[0].ID
			fmt.Fprintf(d.stdout, "credential %q (%s): found, id %s\n", w.name, w.typ, found[0].ID)
			continue
		case d.dryRun:
			ids[w.typ+"/"+w.name] = "(new)"
			fmt.Fprintf(d.stdout, "dry run: would create credential %q (%s)\n", w.name, w.typ)
			continue
		}
		it, err := d.n8n.CreateCredential(ctx, w.name, w.typ, w.data)
		if err != nil {
			return nil, exitWith(3, "create credential %q: %v%s", w.name, err, n8nHint(err))
		}
		ids[w.typ+"/"+w.name] = it.ID
		fmt.Fprintf(d.stdout, "credential %q (%s): created, id %s\n", w.name, w.typ, it.ID)
	}
	return ids, nil
}

// createOrUpdate creates wf, or updates the workflow of its name after a
// backup, then publishes it.
func (d *deployer) createOrUpdate(ctx context.Context, wf map[string]any, existing []n8n.Item) *deployExit {
	name, _ := wf["name"].(string)
	d.id = ""
	for _, it := range existing {
		if it.Name == name {
			if d.id != "" {
				return exitWith(3, "n8n has two workflows named %q: keep one", name)
			}
			d.id = it.ID
		}
	}
	if d.id != "" {
		live, backup, e := d.backUp(ctx)
		if e != nil {
			return e
		}
		if e := d.put(ctx, wf, live, backup); e != nil {
			return e
		}
	} else {
		body, _ := n8n.PutBody(wf, nil)
		payload, err := json.Marshal(body)
		if err != nil {
			return exitWith(2, "encode body: %v", err)
		}
		if d.dryRun {
			fmt.Fprintf(d.stdout, "dry run: would create workflow %q\n", name)
			return nil
		}
		if d.id, err = d.n8n.CreateWorkflow(ctx, payload); err != nil {
			return exitWith(3, "create workflow %q: %v%s", name, err, n8nHint(err))
		}
		fmt.Fprintf(d.stdout, "workflow %q: created, id %s\n", name, d.id)
	}
	if d.dryRun {
		return nil
	}
	if err := d.n8n.ActivateWorkflow(ctx, d.id); err != nil {
		return exitWith(3, "publish workflow %q (%s): %v%s", name, d.id, err, n8nHint(err))
	}
	fmt.Fprintf(d.stdout, "workflow %q: published\n", name)
	return nil
}
