package candidates

import (
	"strings"
	"testing"
)

// A changed argument line inside a multi-line call links the callee's
// declaration, though the callee's own line is unchanged: the same in
// every reader. The callers' call `compute(3)` is written over three
// lines, and the change edits only the argument's line.
func TestEnclosingCallInEveryReader(t *testing.T) {
	for _, l := range touchLangs {
		t.Run(l.name, func(t *testing.T) {
			call, label := l.fn+"(3)", ""
			if !strings.Contains(l.callerSrc, call) {
				call, label = l.fn+"(n: 3)", "n: " // Swift labels its arguments
			}
			if !strings.Contains(l.callerSrc, call) {
				t.Fatalf("the caller has no %s", call)
			}
			multi := func(arg string) string {
				return strings.Replace(l.callerSrc, call, l.fn+"(\n            "+label+arg+"\n        )", 1)
			}
			base := map[string]string{l.lib: l.libSrc, l.caller: multi("3")}
			for p, s := range l.extra {
				base[p] = s
			}
			got := repo{base: base, changed: map[string]string{l.caller: multi("4")}}.run(t)
			if len(got) != 1 || got[0].Path != l.lib || got[0].Kind != KindUses {
				t.Fatalf("want %s listed as used, got:\n%s", l.lib, dump(got))
			}
		})
	}
}
