package python

import (
	"strings"
	"sync"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
	"github.com/prscout/prscout/pipeline/ident"
)

// Reading a Python file for the Python search (pysearch.go): its imports
// with the names they bind, the names bound locally, and its declared-type facts
// (lexed.TypeModel): x = C(), self.x = C(), with C() as x, annotations of
// variables, parameters and returns, and class bases.

// pyImport is one import statement's binding.
type pyImport struct {
	// mod is the module as written: "a.b", ".x", "..". "import a.b" binds
	// local "a" to module "a" (and loads a.b: pyImports).
	mod string
	// from: "from mod import name as local"; else "import mod [as local]".
	from  bool
	name  string // from-import: the imported name ("*" for a star import)
	local string // the name bound in the importing file
}

// pyFile is a Python file read for the search.
type pyFile struct {
	*lexed.File
	imports []pyImport
	// binds maps a local name to the imports binding it.
	binds map[string][]int
	stars []int // star imports
	// importToks are the token indexes of names an import binds or
	// imports: definitions, not references.
	importToks map[int]bool
	// top maps a module-level name to its declaration.
	top map[string]*lexed.Decl
	// members maps a class to its members' declarations.
	members map[string]map[string]*lexed.Decl
	locals  map[string]bool // names bound in a function: parameters, assignments, loop targets
	// defAt marks the tokens (by line and name) that name a declaration.
	defAt map[lexed.DeclAt]bool
	isPkg bool // an __init__.py
	// The facts read on first use; a searched file is shared by
	// concurrent searches (cachedPython).
	typesOnce, localsOnce sync.Once
}

// declares reports whether token t names one of f's declarations.
func (f *pyFile) declares(t lexed.Tok) bool { return f.defAt[lexed.DeclAt{Line: t.Line, Name: t.Text}] }

func readPython(p string, src []byte) *pyFile {
	f := &pyFile{File: lexed.Read(p, src), binds: map[string][]int{}, top: map[string]*lexed.Decl{},
		members: map[string]map[string]*lexed.Decl{}}
	f.Decls = pythonDecls(f.Toks)
	base := engine.PathBase(p)
	f.isPkg = base == "__init__.py" || base == "__init__.pyi"
	f.importToks = map[int]bool{}
	f.imports = pyImports(f.Toks, f.importToks)
	for i, im := range f.imports {
		if im.name == "*" {
			f.stars = append(f.stars, i)
			continue
		}
		f.binds[im.local] = append(f.binds[im.local], i)
	}
	f.defAt = map[lexed.DeclAt]bool{}
	for i, t := range f.Toks {
		if (t.Text == "def" || t.Text == "class") && t.Kind == lexed.TkIdent && i+1 < len(f.Toks) && f.Toks[i+1].Kind == lexed.TkIdent {
			f.defAt[lexed.DeclAt{Line: f.Toks[i+1].Line, Name: f.Toks[i+1].Text}] = true
		}
	}
	for i := range f.Decls {
		d := &f.Decls[i]
		if d.Kind == "variable" || d.Kind == "field" {
			f.defAt[lexed.DeclAt{Line: d.From, Name: d.Name}] = true
		}
		if d.Container == "" {
			if f.top[d.Name] == nil {
				f.top[d.Name] = d
			}
			continue
		}
		ms := f.members[d.Container]
		if ms == nil {
			ms = map[string]*lexed.Decl{}
			f.members[d.Container] = ms
		}
		if ms[d.Name] == nil {
			ms[d.Name] = d
		}
	}
	return f
}

// cachedPython is readPython for a changed or searched file, through the
// readers' cache: the file read is shared with every request that reads
// the same path and content, so nothing may change it but its facts read
// on first use (typeFacts, localNames), each once.
func cachedPython(c *engine.Cache, p string, src []byte) *pyFile {
	return engine.Cached(c, "python", p, src, func() (*pyFile, int64) {
		f := readPython(p, src)
		f.Index()
		w := lexed.Weight(f.File, len(src)) + int64(len(f.imports))*96 + int64(len(f.importToks)+len(f.defAt))*32 +
			int64(len(f.top)+len(f.members))*48
		return f, w
	})
}

// typeFacts answers the file's declared-type facts, read on first use:
// most searched files never need them.
func (f *pyFile) typeFacts() *lexed.TypeModel {
	f.typesOnce.Do(func() {
		if f.Types == nil {
			f.Types = pyTypes(f)
		}
	})
	return f.Types
}

// localNames answers the names bound in functions, read on first use.
func (f *pyFile) localNames() map[string]bool {
	f.localsOnce.Do(func() {
		if f.locals == nil {
			f.locals = pyLocals(f.Toks)
		}
	})
	return f.locals
}

// pyImports reads "import a.b [as c], d" and "from x import a, b as c" (in
// parentheses or continued with backslashes) anywhere in the file: imports
// under if TYPE_CHECKING: or in a function bind names too.
func pyImports(toks []lexed.Tok, names map[int]bool) []pyImport {
	var out []pyImport
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.Kind != lexed.TkIdent || t.Col != t.Indent || (i > 0 && toks[i-1].Line == t.Line && toks[i-1].Text != ";") {
			continue
		}
		switch t.Text {
		case "import":
			j := i + 1
			for j < len(toks) {
				mod, next := lexed.DottedName(toks, j)
				if mod == "" || strings.HasPrefix(mod, ".") {
					break
				}
				j = next
				im := pyImport{mod: mod, local: mod}
				if k := strings.IndexByte(mod, '.'); k >= 0 {
					im.local = mod[:k]
				}
				if j+1 < len(toks) && toks[j].Text == "as" {
					im.local = toks[j+1].Text
					j += 2
				} else {
					im.mod = im.local // import a.b binds a, the package
					if im.mod != mod {
						// a.b is loaded too: a.b.x resolves through a's
						// attribute b, a submodule.
						out = append(out, pyImport{mod: im.mod, local: im.local})
						im = pyImport{mod: mod, local: ""}
					}
				}
				out = append(out, im)
				if j < len(toks) && toks[j].Text == "," {
					j++
					continue
				}
				break
			}
			i = j - 1
		case "from":
			mod, j := lexed.DottedName(toks, i+1)
			if mod == "" || j >= len(toks) || toks[j].Text != "import" {
				continue
			}
			paren := false
			for j++; j < len(toks); j++ {
				u := toks[j]
				if u.Text == "(" {
					paren = true
					continue
				}
				if u.Text == ")" || (!paren && u.Line != toks[j-1].Line && toks[j-1].Text != "\\") {
					break
				}
				if u.Text == "*" {
					out = append(out, pyImport{mod: mod, from: true, name: "*"})
					continue
				}
				if u.Kind != lexed.TkIdent || u.Text == "as" {
					continue
				}
				im := pyImport{mod: mod, from: true, name: u.Text, local: u.Text}
				names[j] = true
				if j+2 < len(toks) && toks[j+1].Text == "as" && toks[j+2].Kind == lexed.TkIdent {
					im.local = toks[j+2].Text
					names[j+2] = true
					j += 2
				}
				out = append(out, im)
			}
			i = j - 1
		}
	}
	return out
}

// pyLocals are the names a function binds: parameters, assignment and
// loop targets, with/except ... as x, comprehension variables, globals.
func pyLocals(toks []lexed.Tok) map[string]bool {
	out := map[string]bool{}
	inFor := false
	for i, t := range toks {
		if t.Kind != lexed.TkIdent {
			continue
		}
		switch {
		case t.Text == "for":
			inFor = true
			continue
		case t.Text == "in":
			inFor = false
			continue
		}
		prev, next := "", ""
		if i > 0 {
			prev = toks[i-1].Text
		}
		if i+1 < len(toks) {
			next = toks[i+1].Text
		}
		member := prev == "."
		switch {
		case member:
		case inFor:
			out[t.Text] = true
		case prev == "as" || prev == "global" || prev == "nonlocal" || prev == "lambda":
			out[t.Text] = true
		case next == "=" && (i+2 >= len(toks) || toks[i+2].Text != "="):
			out[t.Text] = true
		case next == "," || next == ")" || next == ":" || next == "=":
			if pyInParams(toks, i) {
				out[t.Text] = true
			}
		}
	}
	return out
}

// pyInParams reports whether toks[i] is a parameter name of a def or
// lambda: inside the parentheses of a def header, after "(" or ",".
func pyInParams(toks []lexed.Tok, i int) bool {
	if i == 0 {
		return false
	}
	p := toks[i-1].Text
	if p != "(" && p != "," && p != "*" && p != "**" {
		return false
	}
	depth := 0
	for j := i - 1; j >= 0 && j > i-400; j-- {
		switch toks[j].Text {
		case ")", "]", "}":
			depth++
		case "(", "[", "{":
			if depth == 0 {
				return toks[j].Text == "(" && j >= 2 && toks[j-1].Kind == lexed.TkIdent && toks[j-2].Text == "def"
			}
			depth--
		case "lambda":
			if depth == 0 {
				return true
			}
		}
	}
	return false
}

// chainBefore returns the dotted chain of names ending at toks[i]
// ("a.b.c" for the c of a.b.c), and the index of its first token.
func chainBefore(toks []lexed.Tok, i int) (string, int) {
	parts := []string{toks[i].Text}
	j := i
	for j >= 2 && toks[j-1].Text == "." && toks[j-2].Kind == lexed.TkIdent && len(parts) < maxChainParts {
		j -= 2
		parts = append(parts, toks[j].Text)
	}
	for a, b := 0, len(parts)-1; a < b; a, b = a+1, b-1 {
		parts[a], parts[b] = parts[b], parts[a]
	}
	return strings.Join(parts, "."), j
}

// maxChainParts bounds the names chainBefore and chainAfter read: a chain
// of thousands of names read once per member would be quadratic.
const maxChainParts = 64

// chainAfter reads the dotted chain starting at toks[i], returning it and
// the index after it.
func chainAfter(toks []lexed.Tok, i int) (string, int) {
	if i >= len(toks) || toks[i].Kind != lexed.TkIdent {
		return "", i
	}
	parts := []string{toks[i].Text}
	j := i + 1
	for j+1 < len(toks) && toks[j].Text == "." && toks[j+1].Kind == lexed.TkIdent && len(parts) < maxChainParts {
		parts = append(parts, toks[j+1].Text)
		j += 2
	}
	return strings.Join(parts, "."), j
}

// pyTypes fills the file's declared-type facts.
func pyTypes(f *pyFile) *lexed.TypeModel {
	m := lexed.NewTypeModel()
	toks := f.Toks
	// methods maps a method's def line and name to its class; a decorated
	// method's declaration starts at its first decorator, so the def's own
	// line is found by its name token.
	methods := map[lexed.DeclAt]string{}
	for _, d := range f.Decls {
		if d.Kind == "method" {
			for l := d.From; l <= d.To && l <= d.From+20; l++ {
				methods[lexed.DeclAt{Line: l, Name: d.Name}] = d.Container
			}
		}
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.Kind != lexed.TkIdent {
			continue
		}
		switch {
		case t.Text == "class" && i+1 < len(toks) && toks[i+1].Kind == lexed.TkIdent && t.Col == t.Indent:
			cls := toks[i+1].Text
			if i+2 < len(toks) && toks[i+2].Text == "(" {
				for j := i + 3; j < len(toks) && toks[j].Text != ")" && toks[j].Text != ":"; {
					ch, next := chainAfter(toks, j)
					if ch != "" && (next >= len(toks) || toks[next].Text != "=") {
						m.AddSuper(cls, ch)
					}
					if next == j {
						next++
					}
					j = next
				}
			}
		case t.Text == "def" && i+1 < len(toks) && toks[i+1].Kind == lexed.TkIdent:
			pyDefTypes(f, m, methods, i)
		case t.Col == t.Indent:
			pyAssignTypes(toks, m, i)
		case i >= 2 && toks[i-1].Text == "as" && toks[i-2].Text == ")":
			// with C(...) as x: the call's chain before the parentheses.
			if j := f.Brackets.Open(i - 2); j > 0 && toks[j-1].Kind == lexed.TkIdent {
				ch, _ := chainBefore(toks, j-1)
				m.AddVar(t.Text, ch)
			}
		}
	}
	return m
}

// pyAssignTypes records "x = C(...)", "self.x = C(...)", "x: C = ..." and
// "self.x: C" starting at toks[i].
func pyAssignTypes(toks []lexed.Tok, m *lexed.TypeModel, i int) {
	name, j := chainAfter(toks, i)
	if name == "" || j >= len(toks) || strings.Count(name, ".") > 1 || (strings.Contains(name, ".") && !strings.HasPrefix(name, "self.")) {
		return
	}
	switch toks[j].Text {
	case "=":
		if j+1 < len(toks) && toks[j+1].Text != "=" {
			k := j + 1
			if toks[k].Text == "await" {
				k++
			}
			if ch, next := chainAfter(toks, k); ch != "" && next < len(toks) && toks[next].Text == "(" {
				m.AddVar(name, ch)
			}
		}
	case ":":
		for _, ch := range annotationChains(toks, j+1) {
			m.AddVar(name, ch)
		}
	}
}

// pyDefTypes records a def's parameter and return annotations; toks[i] is
// "def".
func pyDefTypes(f *pyFile, m *lexed.TypeModel, methods map[lexed.DeclAt]string, i int) {
	toks := f.Toks
	name := toks[i+1].Text
	key := name
	if c, ok := methods[lexed.DeclAt{Line: toks[i].Line, Name: name}]; ok {
		key = c + "." + name
	}
	if i+2 >= len(toks) || toks[i+2].Text != "(" {
		return
	}
	end := f.Brackets.Close(i + 2)
	if end < 0 {
		return
	}
	depth := 0
	for j := i + 3; j < end; j++ {
		switch toks[j].Text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		}
		if depth == 0 && toks[j].Kind == lexed.TkIdent && j+1 < end && toks[j+1].Text == ":" && (toks[j-1].Text == "(" || toks[j-1].Text == "," || toks[j-1].Text == "*") {
			for _, ch := range annotationChains(toks, j+2) {
				m.AddVar(toks[j].Text, ch)
			}
		}
	}
	if end+1 < len(toks) && toks[end+1].Text == "-" && end+2 < len(toks) && toks[end+2].Text == ">" {
		for _, ch := range annotationChains(toks, end+3) {
			m.AddReturn(key, ch)
		}
	}
}

// annotationChains returns the dotted names of the annotation starting at
// toks[i] (up to a top-level ",", "=", ")" or ":"), quoted forward
// references included; typing's wrappers resolve to nothing and drop out.
func annotationChains(toks []lexed.Tok, i int) []string {
	var out []string
	depth := 0
	for j := i; j < len(toks) && j < i+60; j++ {
		t := toks[j]
		switch t.Text {
		case "(", "[", "{":
			depth++
			continue
		case ")", "]", "}":
			if depth == 0 {
				return out
			}
			depth--
			continue
		case ",", "=", ":":
			if depth == 0 {
				return out
			}
		}
		if t.Kind == lexed.TkString && isPyChain(t.Text) {
			out = append(out, t.Text)
			continue
		}
		if t.Kind == lexed.TkIdent && (j == 0 || toks[j-1].Text != ".") {
			ch, next := chainAfter(toks, j)
			if !pyBuiltins[ch] && !typingNames[ch] {
				out = append(out, ch)
			}
			j = next - 1
		}
	}
	return out
}

// isPyChain reports whether s is a dotted name: identifier bytes
// (pipeline/ident) and dots.
func isPyChain(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '.' && !ident.Chars(0).IsByte(s[i]) {
			return false
		}
	}
	return s != ""
}

var (
	// pyReserved are Python's keywords: never names.
	pyReserved = engine.Words("False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield")
	// pyBuiltins are the builtins: names that resolve to nothing in the
	// repository unless a file binds them (a module's own open or str).
	pyBuiltins = engine.Words("self cls print len str int list dict set tuple bool float object super isinstance issubclass range type bytes bytearray open iter next enumerate zip map filter sorted reversed min max sum any all abs round repr hash id getattr setattr hasattr delattr callable vars dir format hex oct ord chr divmod pow input globals locals staticmethod classmethod property frozenset complex memoryview slice exec eval compile breakpoint help ascii bin NotImplemented Ellipsis Exception BaseException ValueError TypeError KeyError IndexError AttributeError RuntimeError NotImplementedError StopIteration StopAsyncIteration OSError IOError ImportError LookupError AssertionError ZeroDivisionError UnicodeDecodeError UnicodeEncodeError UnicodeError FileNotFoundError PermissionError TimeoutError ConnectionError KeyboardInterrupt SystemExit GeneratorExit Warning DeprecationWarning UserWarning RuntimeWarning __name__ __file__ __doc__ __all__ __class__ __dict__ __init__")
	// typingNames are typing's and collections.abc's generic wrappers.
	typingNames = engine.Words("typing t typing_extensions Optional Union List Dict Set Tuple FrozenSet Type Any Callable Iterable Iterator AsyncIterable AsyncIterator Generator AsyncGenerator Sequence MutableSequence Mapping MutableMapping Awaitable Coroutine Literal ClassVar Final Annotated TypeVar Generic Protocol NoReturn Never Self IO TextIO BinaryIO None")
)

// Decls reads the declarations of the Python file at p, in source order.
func Decls(p string, src []byte) []lexed.Decl { return readPython(p, src).Decls }
