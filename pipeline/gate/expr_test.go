package gate

import "testing"

func TestCheckExpressionText(t *testing.T) {
	tests := []struct {
		expr    string
		verdict string
		line    int
		column  int
	}{
		{"{{ $json.title }}", VerdictOK, 0, 0},
		{"Hello {{ $json.name }}, you have {{ $json.items.length }} items", VerdictOK, 0, 0},
		{"{{ { a: 1 } }}", VerdictOK, 0, 0},
		{"{{ $json.x // note }}", VerdictOK, 0, 0},
		{"{{ $json.x.isEmpty() ? 'a' : 'b' }}", VerdictOK, 0, 0},
		{"{{ JSON.stringify($json.title) }}", VerdictOK, 0, 0},
		{"price: {{ $json.price * }}", VerdictSyntaxError, 1, 25},
		{"a\nb {{ $json. }}", VerdictSyntaxError, 2, 13},
		{"{{ $json['a' }}", VerdictSyntaxError, 1, 14},
		{"\\{{ not code }}", VerdictOK, 0, 0},
		{"{{ unclosed", VerdictOK, 0, 0},
		{"{{ }}", VerdictOK, 0, 0},
		{"{{ /a(/.test($json.x) }}", VerdictSyntaxError, 1, 4},
		{"{{ a; b }}", VerdictOK, 0, 0},
		{"{{ Date.now(); }}", VerdictOK, 0, 0},
		{"{{ return 1 }}", VerdictSyntaxError, 1, 4},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			res := checkExpressionText(tc.expr)
			if res.Verdict != tc.verdict || res.Line != tc.line || res.Column != tc.column {
				t.Errorf("checkExpressionText(%q) = %s %d:%d %q, want %s %d:%d", tc.expr, res.Verdict, res.Line, res.Column, res.Message, tc.verdict, tc.line, tc.column)
			}
		})
	}
}
