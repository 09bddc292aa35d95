package goscan

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/prscout/prscout/pipeline/ident"
)

// IsGenerated reports whether Go source carries the standard marker
// "// Code generated ... DO NOT EDIT." before its package clause.
func IsGenerated(src []byte) bool {
	head := src
	if i := bytes.Index(head, []byte("\npackage ")); i >= 0 {
		head = head[:i]
	}
	return bytes.Contains(head, []byte("// Code generated ")) && bytes.Contains(head, []byte("DO NOT EDIT"))
}

// Chars are the bytes of Go identifiers as the engine reads them: every
// non-ASCII byte counts, '$' does not.
const Chars = ident.Unicode

// Decls calls add for each top-level name that gofmt-formatted Go source
// declares ("Name", or "Recv.Name" for methods), reading only the lines that
// start a declaration, and returns the package name.
func Decls(src []byte, add func(string)) (pkg string) {
	block := ""
	for len(src) > 0 {
		line := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		if block != "" {
			if len(line) > 0 && line[0] == ')' {
				block = ""
				continue
			}
			if len(line) > 1 && line[0] == '\t' && line[1] != '\t' && line[1] != '/' {
				rest := line[1:]
				if block == "type" {
					add(string(leadingIdent(rest)))
				} else {
					for _, n := range bytes.Split(leadingNames(rest), []byte(",")) {
						add(string(bytes.TrimSpace(n)))
					}
				}
			}
			continue
		}
		switch {
		case bytes.HasPrefix(line, []byte("func ")):
			rest := bytes.TrimSpace(line[5:])
			if len(rest) > 0 && rest[0] == '(' {
				end := bytes.IndexByte(rest, ')')
				if end < 0 {
					continue
				}
				recv := RecvTypeName(rest[1:end])
				name := leadingIdent(bytes.TrimSpace(rest[end+1:]))
				if recv != "" && len(name) > 0 {
					add(recv + "." + string(name))
				}
				continue
			}
			add(string(leadingIdent(rest)))
		case bytes.HasPrefix(line, []byte("type ")), bytes.HasPrefix(line, []byte("var ")), bytes.HasPrefix(line, []byte("const ")):
			kw := string(line[:bytes.IndexByte(line, ' ')])
			rest := bytes.TrimSpace(line[len(kw)+1:])
			if len(rest) > 0 && rest[0] == '(' {
				block = kw
				if bytes.Contains(rest, []byte(")")) {
					block = ""
				}
				continue
			}
			if kw == "type" {
				add(string(leadingIdent(rest)))
			} else {
				for _, n := range bytes.Split(leadingNames(rest), []byte(",")) {
					add(string(bytes.TrimSpace(n)))
				}
			}
		case pkg == "" && bytes.HasPrefix(line, []byte("package ")):
			pkg = string(leadingIdent(bytes.TrimSpace(line[8:])))
		}
	}
	return pkg
}

// leadingIdent returns the identifier at the start of b.
func leadingIdent(b []byte) []byte {
	return b[:ident.End(b, 0, Chars)]
}

// leadingNames returns "a, b" from "a, b int = ...".
func leadingNames(b []byte) []byte {
	i := 0
	for i < len(b) && (Chars.IsByte(b[i]) || b[i] == ',' || b[i] == ' ') {
		if b[i] == ' ' {
			j := i
			for j < len(b) && b[j] == ' ' {
				j++
			}
			if j < len(b) && b[j] != ',' && (i == 0 || b[i-1] != ',') {
				break
			}
		}
		i++
	}
	return b[:i]
}

// RecvTypeName returns T from a receiver "r *T", "T", "r *T[K]".
func RecvTypeName(b []byte) string {
	b = bytes.TrimSpace(b)
	if i := bytes.IndexAny(b, "[("); i >= 0 {
		b = b[:i]
	}
	f := bytes.Fields(b)
	if len(f) == 0 {
		return ""
	}
	return string(bytes.TrimLeft(f[len(f)-1], "*"))
}

// ModulePath reads the module directive of a go.mod file.
func ModulePath(src []byte) string {
	for _, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			rest = strings.TrimSpace(rest)
			if i := strings.Index(rest, "//"); i >= 0 {
				rest = strings.TrimSpace(rest[:i])
			}
			if u, err := strconv.Unquote(rest); err == nil {
				return u
			}
			return rest
		}
	}
	return ""
}

// ImportName guesses a package's name from its import path: the last
// element without a major version suffix or a "go-" prefix.
func ImportName(ip string) string {
	parts := strings.Split(ip, "/")
	n := parts[len(parts)-1]
	if len(parts) > 1 && len(n) > 1 && n[0] == 'v' && isDigits(n[1:]) {
		n = parts[len(parts)-2]
	}
	if i := strings.Index(n, ".v"); i > 0 && isDigits(n[i+2:]) {
		n = n[:i]
	}
	n = strings.TrimPrefix(n, "go-")
	n = strings.TrimSuffix(n, "-go")
	n = strings.TrimSuffix(n, ".go")
	return strings.ReplaceAll(n, "-", "")
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Universe holds Go's predeclared identifiers, which are never looked up.
var Universe = map[string]bool{
	"bool": true, "byte": true, "complex64": true, "complex128": true, "error": true, "float32": true,
	"float64": true, "int": true, "int8": true, "int16": true, "int32": true, "int64": true, "rune": true,
	"string": true, "uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true,
	"uintptr": true, "any": true, "comparable": true, "true": true, "false": true, "iota": true,
	"nil": true, "append": true, "cap": true, "clear": true, "close": true, "complex": true,
	"copy": true, "delete": true, "imag": true, "len": true, "make": true, "max": true, "min": true,
	"new": true, "panic": true, "print": true, "println": true, "real": true, "recover": true, "_": true,
}
