package engine

import "fmt"

// UseItem is the reason to list the file that declares sym, which the
// change in the file at from uses: every reader words it alike.
func UseItem(sym, from string, score float64, m Method) Item {
	return Item{Kind: KindUses, Symbol: sym, Method: m, Score: score,
		Reason: fmt.Sprintf("declares `%s`, used by the change in %s", sym, PathBase(from))}
}

// ImpactItem is the reason to list a file that refers to sym, a
// declaration the change touched as ch says; verb says how the file refers
// to it (Verb, "overrides", "constructs").
func ImpactItem(verb, sym string, ch DeclChange, score float64, m Method, call bool) Item {
	return Item{Kind: KindImpact, Symbol: sym, Method: m, Score: score, Call: call, Change: ch,
		Reason: fmt.Sprintf("%s `%s`, %s", verb, sym, ch.Phrase())}
}

// Verb is how a reference refers to what it names: "calls" for a call,
// else "uses".
func Verb(call bool) string {
	if call {
		return "calls"
	}
	return "uses"
}
