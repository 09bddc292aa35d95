package merge

import (
	"strings"
	"sync"
	"unsafe"

	"github.com/prscout/prscout/pipeline"
)

// TextMemo keeps what counting a prompt asks of each large text written
// fenced (its runes and longest backtick run): planning a large change's
// review groups counts every diff and source once per file cost and again
// for each group it tries, and a Counter that shares a memo counts each
// text once. Texts are known by the address and length of their bytes, so
// a memo may only serve texts that stay unchanged while it lives (one
// request's diffs and sources); its keys keep those bytes alive. Safe for
// use by several goroutines.
type TextMemo struct{ m sync.Map }

// memoMinBytes is the shortest text a memo keeps: shorter ones are counted
// faster than looked up.
const memoMinBytes = 512

type textKey struct {
	p *byte
	n int
}

type textFacts struct{ runes, ticks int }

func (t *TextMemo) facts(s string) textFacts {
	k := textKey{unsafe.StringData(s), len(s)}
	if v, ok := t.m.Load(k); ok {
		return v.(textFacts)
	}
	f := textFacts{pipeline.RuneCount(s), longestRun(s, '`')}
	t.m.Store(k, f)
	return f
}

// Runes is pipeline.RuneCount(s), kept for a large s (t may be nil).
func (t *TextMemo) Runes(s string) int {
	if t == nil || len(s) < memoMinBytes {
		return pipeline.RuneCount(s)
	}
	return t.facts(s).runes
}

// countFenced adds to c what WriteFenced(c, lang, s) would write, from
// c.Memo; false when c has no memo or s is short.
func countFenced(c *Counter, lang, s string) bool {
	if c.Memo == nil || len(s) < memoMinBytes {
		return false
	}
	f := c.Memo.facts(s)
	fence := max(3, f.ticks+1)
	// fence, info string, newline, s, a newline s lacks, fence, newline.
	c.N += 2*fence + pipeline.RuneCount(fenceLang(lang)) + 2 + f.runes
	if !strings.HasSuffix(s, "\n") {
		c.N++
	}
	return true
}
