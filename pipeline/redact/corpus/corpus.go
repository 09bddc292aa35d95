// Package corpus reads the labelled corpus that measures secret redaction:
// lines that hold a secret and look-alike lines that do not, grouped by
// class, with the public source of each token format. Secret values are
// never stored: each item is a template whose generators («b62:36»,
// «jwt», ...) are expanded with a seeded random source, so the corpus file
// trips no secret scanner and every run can draw new values.
//
// File format, one directive per line:
//
//	# comment
//	class <name> <title>
//	source <where a token format is publicly described>
//	S <template>    an item holding a secret (every «...» it expands is secret)
//	H <template>    a harmless item (nothing in it may change)
//
// A template is the text after "S " or "H ", spaces kept. «~gen» expands a
// generator whose value is not secret (a user name, an id); «~nl» is a line
// break, for items that span lines.
package corpus

import (
	"bufio"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
)

// Class is one group of items.
type Class struct {
	Name, Title string
	Sources     []string
	Items       []*Item
}

// Item is one template of the corpus.
type Item struct {
	Class    string
	Secret   bool
	Template string
	Line     int // line in the corpus file
}

// Part is one expanded generator of a sample.
type Part struct {
	Gen    string // the generator as written, «...» included
	Value  string
	Secret bool
}

// Sample is an item expanded with random values.
type Sample struct {
	Item  *Item
	Text  string
	Parts []Part
}

// Load reads a corpus file.
func Load(path string) ([]*Class, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open corpus: %w", err)
	}
	defer f.Close()
	return parse(f, path)
}

// parse reads a corpus from r; name labels errors.
func parse(r io.Reader, name string) ([]*Class, error) {
	var classes []*Class
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "class "):
			f := strings.SplitN(strings.TrimPrefix(line, "class "), " ", 2)
			c := &Class{Name: f[0]}
			if len(f) == 2 {
				c.Title = f[1]
			}
			classes = append(classes, c)
		case strings.HasPrefix(line, "source "):
			if len(classes) == 0 {
				return nil, fmt.Errorf("%s:%d: source before any class", name, n)
			}
			c := classes[len(classes)-1]
			c.Sources = append(c.Sources, strings.TrimPrefix(line, "source "))
		case strings.HasPrefix(line, "S "), strings.HasPrefix(line, "H "):
			if len(classes) == 0 {
				return nil, fmt.Errorf("%s:%d: item before any class", name, n)
			}
			c := classes[len(classes)-1]
			it := &Item{Class: c.Name, Secret: line[0] == 'S', Template: line[2:], Line: n}
			if _, err := it.Expand(rand.New(rand.NewPCG(1, 2))); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, n, err)
			}
			if it.Secret && !strings.Contains(strings.ReplaceAll(it.Template, "«~", ""), "«") {
				return nil, fmt.Errorf("%s:%d: secret item without a secret generator", name, n)
			}
			c.Items = append(c.Items, it)
		default:
			return nil, fmt.Errorf("%s:%d: unknown directive %q", name, n, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return classes, nil
}

// Expand draws the item's generators from rng.
func (it *Item) Expand(rng *rand.Rand) (Sample, error) {
	s := Sample{Item: it}
	var b strings.Builder
	t := it.Template
	for {
		i := strings.Index(t, "«")
		if i < 0 {
			b.WriteString(t)
			break
		}
		j := strings.Index(t[i:], "»")
		if j < 0 {
			return s, fmt.Errorf("unclosed generator in %q", it.Template)
		}
		b.WriteString(t[:i])
		spec := t[i+len("«") : i+j]
		gen := t[i : i+j+len("»")]
		t = t[i+j+len("»"):]
		secret := it.Secret
		if strings.HasPrefix(spec, "~") {
			spec, secret = spec[1:], false
		}
		v, err := generate(spec, rng)
		if err != nil {
			return s, err
		}
		b.WriteString(v)
		s.Parts = append(s.Parts, Part{Gen: gen, Value: v, Secret: secret})
	}
	s.Text = b.String()
	return s, nil
}

// Secrets returns the secret values of a sample, a multi-line value split
// into its lines.
func (s Sample) Secrets() []string {
	var out []string
	for _, p := range s.Parts {
		if !p.Secret {
			continue
		}
		for _, l := range strings.Split(strings.ReplaceAll(p.Value, `\n`, "\n"), "\n") {
			l = strings.TrimLeft(l, "+")
			if strings.HasPrefix(l, "-----") || l == "" {
				continue
			}
			out = append(out, l)
		}
	}
	return out
}

// Hidden reports whether out shows none of the secrets: no window of
// min(8, len) bytes of any secret remains.
func Hidden(out string, secrets []string) bool {
	for _, sec := range secrets {
		w := min(8, len(sec))
		for i := 0; i+w <= len(sec); i++ {
			if strings.Contains(out, sec[i:i+w]) {
				return false
			}
		}
	}
	return true
}

// Untemplate writes the generated values still present in out back as
// their generators, so a redacted sample can be compared with a golden file
// that holds no generated value.
func (s Sample) Untemplate(out string) string {
	for _, p := range s.Parts {
		if len(p.Value) >= 4 { // shorter values (a digit) would match anywhere
			out = strings.ReplaceAll(out, p.Value, p.Gen)
		}
	}
	return out
}

const (
	lower  = "abcdefghijklmnopqrstuvwxyz"
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	digits = "0123456789"
	b62    = upper + lower + digits
	b64    = b62 + "+/"
	b64u   = b62 + "-_"
	pwSym  = "!#%&*+-=?@^_~"
)

// words for human-style passwords (a word, digits, a symbol).
var humanWords = []string{"Falcon", "Marble", "Orchid", "Tundra", "Copper", "Willow", "Harbor", "Summit", "Lantern", "Cobalt", "Juniper", "Pepper", "Quartz", "Raven", "Sierra", "Velvet"}

// alphabets are the generators that draw n characters from an alphabet.
var alphabets = map[string]string{
	"b62": b62, "hex": "0123456789abcdef", "HEX": "0123456789ABCDEF", "b64": b64, "b64u": b64u,
	"dec": digits, "lower": lower, "upper": upper, "alnum": lower + digits, "ualnum": upper + digits,
	"b32": upper + "234567", "bech32": strings.ToUpper("qpzry9x8gf2tvdw0s3jn54khce6mual7l"), "pw": b62 + pwSym, "upw": b62 + "-_.~!*",
}

// gen draws from one random source.
type gen struct{ rng *rand.Rand }

func (g gen) pick(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.rng.IntN(len(alphabet))]
	}
	return string(b)
}

func (g gen) raw(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.rng.IntN(256))
	}
	return b
}

func needLength(spec string, n int) error {
	if n <= 0 || n > 4096 {
		return fmt.Errorf("generator %q needs a length 1..4096", spec)
	}
	return nil
}

// generate expands one generator spec.
func generate(spec string, rng *rand.Rand) (string, error) {
	name, arg, _ := strings.Cut(spec, ":")
	n, _ := strconv.Atoi(arg)
	g := gen{rng}
	if alphabet, ok := alphabets[name]; ok {
		if err := needLength(spec, n); err != nil {
			return "", err
		}
		if name == "pw" || name == "upw" {
			return g.password(alphabet, n), nil
		}
		return g.pick(alphabet, n), nil
	}
	switch name {
	case "nl":
		return "\n", nil // items spanning lines: a name above its value
	case "human":
		return humanWords[rng.IntN(len(humanWords))] + g.pick(digits, 2+rng.IntN(3)) + g.pick("!#%&*?@", 1), nil
	case "awssecret":
		v := g.pick(b64, 40)
		switch arg {
		case "/", "+":
			v = v[:39] + arg
		}
		return v, nil
	case "wg", "sbkey":
		return base64.StdEncoding.EncodeToString(g.raw(32)), nil
	case "azkey":
		return base64.StdEncoding.EncodeToString(g.raw(64)), nil
	case "azsecret":
		return g.pick(b62, 3) + g.pick(digits, 1) + "Q~" + g.pick(b62+"_~.-", 34), nil
	case "discord":
		id := strconv.FormatInt(1e17+rng.Int64N(9e17), 10)
		return base64.RawURLEncoding.EncodeToString([]byte(id)) + "." + g.pick(b64u, 6) + "." + g.pick(b64u, 38), nil
	case "telegram":
		return strconv.FormatInt(1e9+rng.Int64N(8e9), 10) + ":AA" + g.pick(b64u, 33), nil
	case "uuid":
		b := g.raw(16)
		b[6] = b[6]&0x0f | 0x40
		b[8] = b[8]&0x3f | 0x80
		h := hex.EncodeToString(b)
		return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], nil
	case "sri":
		return "sha512-" + base64.StdEncoding.EncodeToString(g.raw(64)), nil
	case "b64raw":
		if err := needLength(spec, n); err != nil {
			return "", err
		}
		return base64.StdEncoding.EncodeToString(g.raw(n)), nil
	case "basic":
		return base64.StdEncoding.EncodeToString([]byte(g.pick(lower, 6) + ":" + g.pick(b62, 14))), nil
	case "jwt":
		header := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
		payload := base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf(`{"sub":"%d","name":"%s","iat":%d}`, rng.IntN(1e9), g.pick(lower, 8), 1.6e9+rng.IntN(1e8))))
		return header + "." + payload + "." + base64.RawURLEncoding.EncodeToString(g.raw(32)), nil
	case "pem", "pemdiff", "pemjson", "pemnoend":
		return g.pem(name, arg), nil
	}
	return "", fmt.Errorf("unknown generator %q", spec)
}

// password draws n characters with every class present, as password
// rules demand.
func (g gen) password(alphabet string, n int) string {
	for {
		v := g.pick(alphabet, n)
		if n < 4 || strings.ContainsAny(v, lower) && strings.ContainsAny(v, upper) && strings.ContainsAny(v, digits) && strings.ContainsAny(v, pwSym+"-_.~!*") {
			return v
		}
	}
}

// pem is a private key block of the kind arg names (RSA, EC, PGP, ...), as
// a file holds it, as a diff adds it, inside a JSON string, or cut before
// its end.
func (g gen) pem(name, arg string) string {
	kind, block := arg, ""
	if kind != "" {
		kind += " "
	}
	if arg == "PGP" {
		block = " BLOCK"
	}
	body := base64.StdEncoding.EncodeToString(g.raw(600))
	var lines []string
	for len(body) > 64 {
		lines = append(lines, body[:64])
		body = body[64:]
	}
	lines = append(lines, body)
	begin, end := "-----BEGIN "+kind+"PRIVATE KEY"+block+"-----", "-----END "+kind+"PRIVATE KEY"+block+"-----"
	switch name {
	case "pemnoend":
		return begin + "\n+" + strings.Join(lines[:4], "\n+")
	case "pemjson":
		return begin + `\n` + strings.Join(lines, `\n`) + `\n` + end + `\n`
	case "pemdiff":
		return begin + "\n+" + strings.Join(lines, "\n+") + "\n+" + end
	}
	return begin + "\n" + strings.Join(lines, "\n") + "\n" + end
}

// Samples expands every item of classes, in order. Each item draws from
// its own random source, seeded by seed and its template, so adding an
// item leaves the others' values (and golden files) as they were.
func Samples(classes []*Class, seed uint64) ([]Sample, error) {
	var out []Sample
	for _, c := range classes {
		for _, it := range c.Items {
			h := fnv.New64a()
			h.Write([]byte(it.Template))
			s, err := it.Expand(rand.New(rand.NewPCG(seed, h.Sum64())))
			if err != nil {
				return nil, fmt.Errorf("corpus line %d: %w", it.Line, err)
			}
			out = append(out, s)
		}
	}
	return out, nil
}

// Score counts one redactor's results on a set of samples.
type Score struct {
	Secrets, Hidden  int // secret items, and those whose secrets were all hidden
	Harmless, Alarms int // harmless items, and those that were changed
}

// Add scores the redactor's output for s and reports whether it was right
// (secrets hidden, or a harmless item left as it was).
func (sc *Score) Add(s Sample, out string) bool {
	if s.Item.Secret {
		sc.Secrets++
		if Hidden(out, s.Secrets()) {
			sc.Hidden++
			return true
		}
		return false
	}
	sc.Harmless++
	if out != s.Text {
		sc.Alarms++
		return false
	}
	return true
}

// Recall is the share of secret items whose secrets were hidden.
func (sc Score) Recall() float64 { return ratio(sc.Hidden, sc.Secrets) }

// AlarmRate is the share of harmless items that were changed.
func (sc Score) AlarmRate() float64 { return ratio(sc.Alarms, sc.Harmless) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
