// Package constpath is Ruby's autoloading (Zeitwerk) convention: the file
// a qualified constant lives in.
package constpath

import (
	"path"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
)

// Reaches reports whether the constant recv::name lives in p: Foo::BarBaz
// in foo/bar_baz.rb under an autoload root (lib/, app/models/,
// app/services/, ...), and the enclosing namespaces' directories below it
// (Acme::Billing::InvoiceLine, written Billing::InvoiceLine inside module
// Acme, is lib/acme/billing/invoice_line.rb).
func Reaches(recv, name, p string) bool {
	rel := lexed.Snake(recv) + "/" + lexed.Snake(name) + path.Ext(p)
	if p != rel && !strings.HasSuffix(p, "/"+rel) {
		return false
	}
	root := strings.Split(strings.TrimSuffix(strings.TrimSuffix(p, rel), "/"), "/")
	for i, d := range root {
		if d == "lib" || d == "app" && i+1 < len(root) {
			return true
		}
	}
	return false
}
