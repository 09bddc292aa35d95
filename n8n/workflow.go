package n8n

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// Workflow exports as `prscout deploy` sends them: the one workflow of an
// export, the body n8n's public API accepts, and the credentials and Config
// values set in it.

// The fields a PUT of n8n 2.x's public API may carry (docs/operations.md,
// "Deploying a workflow"): AllowedNodeKeys of a node, AllowedSettingsKeys of
// the settings.
var (
	AllowedNodeKeys = StringSet("id", "name", "webhookId", "disabled", "notesInFlow", "notes", "type", "typeVersion",
		"executeOnce", "alwaysOutputData", "retryOnFail", "maxTries", "waitBetweenTries", "continueOnFail", "onError",
		"position", "parameters", "credentials")
	AllowedSettingsKeys = StringSet("saveExecutionProgress", "saveManualExecutions", "saveDataErrorExecution",
		"saveDataSuccessExecution", "executionTimeout", "errorWorkflow", "timezone", "executionOrder", "callerPolicy",
		"callerIds", "timeSavedPerExecution", "availableInMCP")
)

// StringSet is a set of keys.
func StringSet(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// SingleWorkflow returns the one workflow of an export: an object, or an
// array holding exactly one workflow (export:workflow --id).
func SingleWorkflow(data []byte) (map[string]any, error) {
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

// PutBody builds the PUT body {name, nodes, connections, settings} from the
// export, keeping only node and settings keys n8n's schema allows. The name
// falls back to the live workflow's (a canvas copy has none).
func PutBody(wf, live map[string]any) (map[string]any, []string) {
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
		for _, k := range slices.Sorted(maps.Keys(n)) {
			if AllowedNodeKeys[k] {
				clean[k] = n[k]
			} else {
				dropped = append(dropped, fmt.Sprintf("nodes[%d].%s", i, k))
			}
		}
		nodes = append(nodes, clean)
	}
	settings := map[string]any{}
	if s, ok := wf["settings"].(map[string]any); ok {
		for _, k := range slices.Sorted(maps.Keys(s)) {
			if AllowedSettingsKeys[k] {
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

// LinkCredentials sets the id of every credential a node of wf names.
func LinkCredentials(wf map[string]any, ids map[string]string) error {
	for _, raw := range wf["nodes"].([]any) {
		n, _ := raw.(map[string]any)
		creds, _ := n["credentials"].(map[string]any)
		for typ, v := range creds {
			ref, _ := v.(map[string]any)
			name, _ := ref["name"].(string)
			id, ok := ids[typ+"/"+name]
			if !ok {
				return fmt.Errorf("node %v names a %s credential %q that is not made", n["name"], typ, name)
			}
			ref["id"] = id
		}
	}
	return nil
}

// SetConfig sets the given fields of the workflow's Config node (empty
// values are left as they are).
func SetConfig(wf map[string]any, set map[string]string) {
	for _, raw := range wf["nodes"].([]any) {
		n, _ := raw.(map[string]any)
		if n["name"] != "Config" {
			continue
		}
		p, _ := n["parameters"].(map[string]any)
		as, _ := p["assignments"].(map[string]any)
		list, _ := as["assignments"].([]any)
		for _, a := range list {
			m, _ := a.(map[string]any)
			if v := set[fmt.Sprint(m["name"])]; v != "" {
				m["value"] = v
			}
		}
	}
}
