//go:build cgo

package treesit

import (
	"embed"
	"fmt"
	"sync"

	"github.com/prscout/prscout/pipeline/candidates/treesit/cwalk"
	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/csharp"
	"github.com/smacker/go-tree-sitter/kotlin"
	"github.com/smacker/go-tree-sitter/php"
	"github.com/smacker/go-tree-sitter/ruby"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/scala"
	"github.com/smacker/go-tree-sitter/swift"
)

// Built reports whether this build reads the languages of the table: the
// grammars need cgo.
const Built = true

// grammars are the languages' tree-sitter grammars, by name.
var grammars = map[string]func() *sitter.Language{
	"csharp": csharp.GetLanguage, "kotlin": kotlin.GetLanguage, "scala": scala.GetLanguage,
	"php": php.GetLanguage, "ruby": ruby.GetLanguage, "rust": rust.GetLanguage,
	"c": c.GetLanguage, "cpp": cpp.GetLanguage, "swift": swift.GetLanguage,
}

//go:embed queries/*.scm
var queryFiles embed.FS

// compiled is a language's grammar and query, made once.
type compiled struct {
	grammar *sitter.Language
	query   *sitter.Query
	// what each capture index names: its role and, for a declaration,
	// its kind.
	roles []role
	kinds []string
	// parents say of each capture index whether a reading asks its
	// nodes' parents: a package's, and a body's matched apart from its
	// declaration.
	parents []cwalk.Parents
	// symbols name the grammar's node types, once a tree is at hand.
	symbols     []string
	symbolsOnce sync.Once
	// parsers are the parsers of the grammar not in use.
	parsers sync.Pool
}

type role uint8

const (
	roleNone role = iota
	roleDecl
	roleName
	roleBody
	roleSuper
	roleRef
	roleMember
	roleRecv
	roleImport
	rolePackage
	roleComment
	roleScope
	roleSkip
	roleCall
	roleVar
	roleType
)

var roleNames = map[string]role{
	"name": roleName, "body": roleBody, "super": roleSuper, "ref": roleRef, "member": roleMember,
	"recv": roleRecv, "import": roleImport, "package": rolePackage, "comment": roleComment,
	"scope": roleScope, "skip": roleSkip, "call": roleCall,
	"var": roleVar, "type": roleType,
}

var (
	compileOnce sync.Map // name -> func() (*compiled, error)
)

// prepareLanguage compiles l's query ahead of its first use (Prepare; a
// test replaces it to see which languages are prepared).
var prepareLanguage = func(l *language) { _, _ = compile(l) }

// compile answers l's grammar and query, compiled on first use.
func compile(l *language) (*compiled, error) {
	f, _ := compileOnce.LoadOrStore(l.name, sync.OnceValues(func() (*compiled, error) { return compileNow(l.name) }))
	return f.(func() (*compiled, error))()
}

func compileNow(name string) (*compiled, error) {
	g := grammars[name]
	if g == nil {
		return nil, fmt.Errorf("treesit: no grammar for %s", name)
	}
	src, err := queryFiles.ReadFile("queries/" + name + ".scm")
	if err != nil {
		return nil, fmt.Errorf("treesit: %s: %w", name, err)
	}
	c := &compiled{grammar: g()}
	if c.query, err = sitter.NewQuery(src, c.grammar); err != nil {
		return nil, fmt.Errorf("treesit: queries/%s.scm: %w", name, err)
	}
	n := int(c.query.CaptureCount())
	c.roles, c.kinds = make([]role, n), make([]string, n)
	for i := range n {
		capName := c.query.CaptureNameForId(uint32(i))
		if kind, ok := cutPrefix(capName, "decl."); ok {
			c.roles[i], c.kinds[i] = roleDecl, kind
			continue
		}
		r, ok := roleNames[capName]
		if !ok {
			return nil, fmt.Errorf("treesit: queries/%s.scm: unknown capture @%s", name, capName)
		}
		c.roles[i] = r
	}
	c.parents = make([]cwalk.Parents, n)
	for i, r := range c.roles {
		switch r {
		case rolePackage:
			c.parents[i] = cwalk.Parent
		case roleBody:
			c.parents[i] = cwalk.ParentAlone
		case roleDecl:
			c.parents[i] = cwalk.Owner
		}
	}
	c.parsers.New = func() any {
		p := sitter.NewParser()
		p.SetLanguage(c.grammar)
		return p
	}
	return c, nil
}

func cutPrefix(s, prefix string) (string, bool) {
	if len(s) > len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix):], true
	}
	return "", false
}

// symbolNames names the grammar's node types, read from the tree under
// root the first time.
func (c *compiled) symbolNames(root *sitter.Node) []string {
	c.symbolsOnce.Do(func() { c.symbols = cwalk.SymbolNames(root) })
	return c.symbols
}
