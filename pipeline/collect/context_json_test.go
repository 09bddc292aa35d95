package collect

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
)

func TestWriteJSONMatchesMarshal(t *testing.T) {
	repo := ctxBasicRepo(t)
	res, err := collectRange(context.Background(), repo.f, repo.f, ctxBasicInput(), pipeline.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	tricky := strings.Repeat("x", 300) + "<a href=\"&\">\u2028\u2029\x00\x1f\t\r\n\b\f\\ \xff\xfe 한국어 " + string([]byte{0xe2, 0x80})
	odd := res
	odd.Files = append([]pipeline.ChangedFile{{Path: "t<&>.go", Status: "added", Diff: tricky, Source: tricky}}, res.Files...)
	odd.ScoutPrompt.User = tricky + odd.ScoutPrompt.User
	// A small field holding a placeholder-like text must not confuse it.
	spoof := res
	spoof.PR.Title = "\x00prscout:fixed:0\x00"
	defer func(old func() string) { placeholderNonce = old }(placeholderNonce)
	placeholderNonce = func() string { return "fixed" }
	for name, r := range map[string]ContextResult{"basic": res, "tricky strings": odd, "spoof": spoof, "empty": {}} {
		t.Run(name, func(t *testing.T) { checkWriteJSON(t, r) })
	}
}

// TestWriteJSONWindows: strings escaped a window at a time, some written
// again from the copies kept and some past the room kept for them, give
// json.Marshal's bytes.
func TestWriteJSONWindows(t *testing.T) {
	defer func(w, k int) { escapeWindow, escapeKeep = w, k }(escapeWindow, escapeKeep)
	escapeWindow, escapeKeep = 1000, 2500
	var r ContextResult
	for i := range 12 {
		body := strings.Repeat(fmt.Sprintf("line %d <&> \"x\" é\n", i), 20+i*7) // 400-1000 bytes
		r.Files = append(r.Files, pipeline.ChangedFile{Path: fmt.Sprintf("f%d.go", i), Diff: body, Source: "src " + body})
	}
	for g := range 3 {
		r.Groups = append(r.Groups, ContextGroup{ID: fmt.Sprintf("g%d", g+1), ContextResult: ContextResult{Files: r.Files[g*4 : g*4+4]}})
	}
	checkWriteJSON(t, r)
}

// checkWriteJSON fails t when r.WriteJSON writes other bytes than
// json.Marshal(r).
func checkWriteJSON(t *testing.T, r ContextResult) {
	t.Helper()
	want, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := r.WriteJSON(&got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("WriteJSON differs from json.Marshal:\n%s", ctxFirstDiff(string(want), got.String()))
	}
}
