package redact

import (
	"hash/maphash"
	"math"
	"strings"

	"github.com/maypok86/otter/v2"
)

// A pull request's update asks for the same files' sources and diffs
// again, most of them unchanged, and redaction is a scan of every byte.
// Kept remembers what Secrets made of a text, by its content: the text
// itself is kept with it and compared on each hit, so that no hash
// collision can answer with another text's redaction.

// keptBytes bounds the memory the kept texts take.
const keptBytes = 32 << 20

// keptMin is the shortest text kept: shorter ones cost less to scan than
// to keep.
const keptMin = 2 << 10

type keptKey struct {
	sum uint64
	n   int
}

type keptText struct {
	in, out string
	counts  []kindCount
}

type kindCount struct {
	kind string
	n    int
}

var (
	keptSeed = maphash.MakeSeed()
	kept     = otter.Must(&otter.Options[keptKey, keptText]{
		MaximumWeight: keptBytes,
		Weigher: func(_ keptKey, t keptText) uint32 {
			w := len(t.in) + 64
			if t.out != t.in {
				w += len(t.out)
			}
			return uint32(min(w, math.MaxUint32))
		},
	})
)

// Kept is Secrets for texts that come back from one request to the next
// (sources and diffs): the same answer and counts, from memory when the
// same text was redacted before.
func Kept(s string, counts map[string]int) string {
	if len(s) < keptMin {
		return Secrets(s, counts)
	}
	k := keptKey{maphash.String(keptSeed, s), len(s)}
	if t, ok := kept.GetIfPresent(k); ok && t.in == s {
		if counts != nil {
			for _, c := range t.counts {
				counts[c.kind] += c.n
			}
		}
		return t.out
	}
	found := map[string]int{}
	out := Secrets(s, found)
	t := keptText{in: strings.Clone(s)}
	t.out = t.in
	if out != s {
		t.out = out
	}
	for kind, n := range found {
		t.counts = append(t.counts, kindCount{kind, n})
		if counts != nil {
			counts[kind] += n
		}
	}
	if len(t.in)+len(t.out) <= keptBytes/16 {
		kept.Set(k, t)
	}
	return out
}
