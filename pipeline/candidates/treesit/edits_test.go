//go:build cgo

package treesit

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// editSources are a source of each language the reader parses.
var editSources = map[string]string{
	"rust": `use std::io;
mod util;

pub struct Point {
    x: i32,
    y: i32,
}

impl Point {
    pub fn new(x: i32, y: i32) -> Point {
        Point { x, y }
    }

    fn norm(&self) -> i32 {
        let sq = self.x * self.x + self.y * self.y;
        util::isqrt(
            sq,
            io::stdout(),
        )
    }
}
`,
	"c": `#include "point.h"
#include <stdio.h>

struct point {
	int x;
	int y;
};

static int norm(struct point *p) {
	int sq = p->x * p->x + p->y * p->y;
	return isqrt(
		sq);
}

int main(void) {
	struct point p = {1, 2};
	printf("%d\n", norm(&p));
	return 0;
}
`,
	"cpp": `#include "point.hpp"

namespace geo {

class GEO_API Point : public Shape {
public:
  Point(int x, int y) : x_(x), y_(y) {}
  int norm() const;

private:
  int x_;
  int y_;
};

int Point::norm() const {
  return isqrt(x_ * x_ +
               y_ * y_);
}

}  // namespace geo
`,
	"csharp": `using System;
using Geo.Util;

namespace Geo
{
    public class Point : Shape, IComparable
    {
        private int x;
        private int y;

        public Point(int x, int y)
        {
            this.x = x;
            this.y = y;
        }

        public int Norm()
        {
            return Maths.Isqrt(
                x * x + y * y);
        }
    }
}
`,
	"kotlin": `package geo

import geo.util.isqrt

class Point(val x: Int, val y: Int) : Shape() {
    fun norm(): Int {
        val sq = x * x + y * y
        return isqrt(
            sq,
        )
    }

    companion object {
        fun origin() = Point(0, 0)
    }
}
`,
	"php": `<?php

namespace Geo;

use Geo\Util\Maths;

class Point extends Shape
{
    private int $x;
    private int $y;

    public function __construct(int $x, int $y)
    {
        $this->x = $x;
        $this->y = $y;
    }

    public function norm(): int
    {
        return Maths::isqrt(
            $this->x * $this->x + $this->y * $this->y
        );
    }
}
`,
	"ruby": `require "geo/util"

module Geo
  class Point < Shape
    attr_reader :x, :y

    def initialize(x, y)
      @x = x
      @y = y
    end

    def norm
      Util.isqrt(
        x * x + y * y
      )
    end
  end
end
`,
	"scala": `package geo

import geo.util.Maths

class Point(val x: Int, val y: Int) extends Shape {
  def norm: Int = {
    val sq = x * x + y * y
    Maths.isqrt(
      sq
    )
  }
}

object Point {
  def origin: Point = new Point(0, 0)
}
`,
	"swift": `import Foundation

struct Point: Shape {
    let x: Int
    let y: Int

    func norm() -> Int {
        let sq = x * x + y * y
        return Maths.isqrt(
            sq
        )
    }
}

extension Point {
    static let origin = Point(x: 0, y: 0)
}
`,
}

// editExt is a file extension of each language of editSources.
var editExt = map[string]string{"rust": ".rs", "c": ".c", "cpp": ".cpp", "csharp": ".cs", "kotlin": ".kt",
	"php": ".php", "ruby": ".rb", "scala": ".scala", "swift": ".swift"}

// edited are changes of a source's lines: removing, adding, changing
// lines at its start, middle and end, several places at once, and a
// change that leaves the source broken.
func edited(src string) map[string]string {
	lines := strings.SplitAfter(src, "\n")
	n := len(lines) - 1 // the last is ""
	mid := n / 2
	join := func(ls ...[]string) string {
		var b strings.Builder
		for _, l := range ls {
			b.WriteString(strings.Join(l, ""))
		}
		return b.String()
	}
	at := func(from, to int) []string { return lines[from:to] }
	return map[string]string{
		"line removed":       join(at(0, mid), at(mid+1, n)),
		"lines added":        join(at(0, mid), []string{"\n", lines[mid]}, at(mid, n)),
		"first line changed": join([]string{"\n"}, at(1, n)),
		"last lines doubled": join(at(0, n), at(n-3, n)),
		"several places":     join(at(0, 2), at(3, mid), []string{lines[mid], lines[mid+1]}, at(mid, n-2), at(n-1, n)),
		"no final newline":   strings.TrimSuffix(src, "\n"),
		"broken":             join(at(0, mid), []string{"(((\n"}, at(mid, n)),
	}
}

// lineDiff is the lines of old a line diff removes and those of new it
// adds (from 1), as git's diff marks them.
func lineDiff(old, new string) (removed, added map[int]bool) {
	a, b := strings.SplitAfter(old, "\n"), strings.SplitAfter(new, "\n")
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	removed, added = map[int]bool{}, map[int]bool{}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			i, j = i+1, j+1
		case j < len(b) && (i == len(a) || lcs[i][j+1] >= lcs[i+1][j]):
			if b[j] != "" {
				added[j+1] = true
			}
			j++
		default:
			if a[i] != "" {
				removed[i+1] = true
			}
			i++
		}
	}
	return removed, added
}

// TestEditedHeadReadsAsParsedWhole: a change's head parsed from its base's
// tree edited by the change's lines reads as the head parsed on its own,
// in every language and for every shape of change.
func TestEditedHeadReadsAsParsedWhole(t *testing.T) {
	ctx := context.Background()
	for name, src := range editSources {
		l := languages[name]
		p := "src/point" + editExt[name]
		for shape, head := range edited(src) {
			t.Run(name+"/"+shape, func(t *testing.T) {
				removed, added := lineDiff(src, head)
				c, old, err := prepareSource(l, []byte(src))
				if err != nil {
					t.Fatal(err)
				}
				tree, parsed, err := parseTree(ctx, c, l, old, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer tree.Close()
				got, err := parseEdited(ctx, c, l, p, tree, parsed, old, []byte(head), removed, added)
				if err != nil || got == nil {
					t.Fatalf("edited parse: %v, %v", got, err)
				}
				want, err := parse(ctx, l, p, []byte(head), true)
				if err != nil {
					t.Fatal(err)
				}
				if len(want.decls) == 0 && shape != "first line changed" {
					t.Fatalf("the head declares nothing: %+v", want)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("edited parse differs from a whole parse:\n%s\nwant\n%s", describe(got), describe(want))
				}
			})
		}
	}
}

// describe lists f's declarations and references, to tell two readings apart.
func describe(f *file) string {
	var b strings.Builder
	for _, d := range f.decls {
		fmt.Fprintf(&b, "decl %s %s %s %d-%d (%d) %q\n", d.kind, d.container, d.name, d.from, d.to, d.headTo, d.sig)
	}
	for _, r := range f.refs {
		fmt.Fprintf(&b, "ref %s.%s %d\n", r.recv, r.name, r.line)
	}
	fmt.Fprintf(&b, "imports %v spans %v\n", f.imports, f.spans)
	return b.String()
}

// TestSidesParsedOnceTogether: a change whose sides are not kept is parsed
// in one parseChange; once kept, not again.
func TestSidesParsedOnceTogether(t *testing.T) {
	calls := 0
	old := parseSides
	parseSides = func(ctx context.Context, l *language, bp string, o []byte, hp string, n []byte, rm, ad map[int]bool) (*file, *file, error, error) {
		calls++
		return old(ctx, l, bp, o, hp, n, rm, ad)
	}
	defer func() { parseSides = old }()
	src := editSources["rust"]
	head := edited(src)["lines added"]
	removed, added := lineDiff(src, head)
	ch := &engine.Change{Path: "src/point.rs", Old: []byte(src), New: []byte(head), Removed: removed, Added: added}
	c := engine.NewCache(1 << 20)
	for range 2 {
		h, b := cachedSides(context.Background(), c, ch)
		if h == nil || b == nil || h.spans == nil {
			t.Fatalf("sides %v %v", h, b)
		}
	}
	if calls != 1 {
		t.Fatalf("parseChange calls: %d, want 1", calls)
	}
}
