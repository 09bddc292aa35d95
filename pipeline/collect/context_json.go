package collect

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/jsonsplice"
)

// WriteJSON writes r to w as exactly the bytes json.Marshal(r) gives, but
// streams the large strings (each file's diff and source, the scout prompt)
// straight into w instead of first building the whole document in memory.
// On a 20 MB change json.Marshal holds a buffer of about twice the answer
// (escaping and growth by doubling) on top of the result itself; WriteJSON
// holds a small skeleton, a 64 KiB buffer and a bounded window of escaped
// strings (package jsonsplice). The API should answer
// /v1/context with it.
func (r ContextResult) WriteJSON(w io.Writer) error {
	sp := jsonsplice.New(placeholderNonce())
	sp.Window, sp.Keep = escapeWindow, escapeKeep
	if err := sp.Write(w, r.skeleton(sp.Hold), r); err != nil {
		return fmt.Errorf("encode context: %w", err)
	}
	return nil
}

// skeleton is r with its large strings held by hold.
func (r ContextResult) skeleton(hold func(*string)) ContextResult {
	holdFiles := func(fs []pipeline.ChangedFile) []pipeline.ChangedFile {
		out := append([]pipeline.ChangedFile(nil), fs...)
		if fs != nil && out == nil {
			out = []pipeline.ChangedFile{}
		}
		for i := range out {
			hold(&out[i].Diff)
			hold(&out[i].Source)
		}
		return out
	}
	skel := r
	skel.Files = holdFiles(r.Files)
	hold(&skel.ScoutPrompt.System)
	hold(&skel.ScoutPrompt.User)
	skel.Groups = append([]ContextGroup(nil), r.Groups...)
	for g := range skel.Groups {
		grp := &skel.Groups[g]
		grp.Files = holdFiles(grp.Files)
		hold(&grp.ScoutPrompt.System)
		hold(&grp.ScoutPrompt.User)
	}
	return skel
}

// escapeWindow and escapeKeep are jsonsplice's Window and Keep for
// WriteJSON (variables for the tests).
var (
	escapeWindow = 4 << 20
	escapeKeep   = 8 << 20
)

// placeholderNonce makes WriteJSON's placeholders unguessable, so content
// cannot imitate them (tests replace it).
var placeholderNonce = func() string { return strconv.FormatUint(rand.Uint64(), 36) }
