package gate

import (
	"strings"
	"testing"
)

func TestCheckExportShapes(t *testing.T) {
	code := `{"name":"C","type":"n8n-nodes-base.code","parameters":{"jsCode":"return items;"}}`
	bad := `{"name":"B","type":"n8n-nodes-base.code","parameters":{"jsCode":"return };"}}`
	tests := []struct {
		name      string
		data      string
		workflows int
		nodes     int
		ok        bool
		problem   string
	}{
		{"single object", `{"name":"W","nodes":[` + code + `],"connections":{}}`, 1, 1, true, ""},
		{"array", `[{"name":"A","nodes":[` + code + `]},{"name":"B","nodes":[` + bad + `]}]`, 2, 2, false, ""},
		{"canvas copy", `{"nodes":[` + code + `],"connections":{},"pinData":{}}`, 1, 1, true, ""},
		{"template wrapper", `{"id":1,"workflow":{"nodes":[` + code + `]}}`, 1, 1, true, ""},
		{"BOM", "\xEF\xBB\xBF" + `{"nodes":[` + code + `]}`, 1, 1, true, ""},
		{"python skipped", `{"nodes":[{"type":"n8n-nodes-base.code","parameters":{"language":"python","pythonCode":"x"}}]}`, 1, 1, true, ""},
		{"missing jsCode", `{"nodes":[{"type":"n8n-nodes-base.code","parameters":{}}]}`, 1, 1, false, ""},
		{"function default sample", `{"nodes":[{"type":"n8n-nodes-base.function","parameters":{}}]}`, 1, 1, true, ""},
		{"jsCode not a string", `{"nodes":[{"type":"n8n-nodes-base.code","parameters":{"jsCode":5}}]}`, 1, 1, false, ""},
		{"node not an object", `{"nodes":[5,` + code + `]}`, 1, 1, false, "node 0 is not an object"},
		{"nodes not an array", `{"nodes":{}}`, 0, 0, false, `"nodes" is not an array`},
		{"no nodes", `{"name":"x"}`, 0, 0, false, `no "nodes" array`},
		{"empty array", `[]`, 0, 0, false, "empty array"},
		{"array of junk", `[1, {"nodes":[]}]`, 1, 0, false, "array element(s) 0"},
		{"scalar", `"hello"`, 0, 0, false, "neither an object nor an array"},
		{"not JSON", `{"nodes": [`, 0, 0, false, "not valid JSON"},
		{"trailing garbage", `{"nodes": []} x`, 0, 0, false, "not valid JSON"},
		{"name not a string", `{"name":5,"nodes":[{"name":7,"type":"n8n-nodes-base.code","parameters":{"jsCode":"return 1"}}]}`, 1, 1, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := CheckExport("f.json", []byte(tc.data), Options{})
			if rep.Stats.Workflows != tc.workflows || len(rep.Nodes) != tc.nodes || rep.OK != tc.ok {
				t.Errorf("workflows %d nodes %d ok %v, want %d %d %v; %+v", rep.Stats.Workflows, len(rep.Nodes), rep.OK, tc.workflows, tc.nodes, tc.ok, rep)
			}
			if tc.problem == "" && len(rep.Problems) > 0 {
				t.Errorf("unexpected problems %+v", rep.Problems)
			}
			if tc.problem != "" && (len(rep.Problems) == 0 || !strings.Contains(rep.Problems[0].Message, tc.problem)) {
				t.Errorf("problems %+v, want one containing %q", rep.Problems, tc.problem)
			}
		})
	}
}
