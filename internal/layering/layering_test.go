package layering

import (
	"bufio"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// rule is one row of the import map.
type rule struct {
	imports     []string // project packages the package may import
	testImports []string // more project packages its tests may import
	line        int
}

// root is the module root: this package is internal/layering.
func root(t *testing.T) string {
	t.Helper()
	r, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func modulePath(t *testing.T, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(l), "module "); ok {
			return strings.TrimSpace(m)
		}
	}
	t.Fatal("go.mod has no module line")
	return ""
}

// cells splits a Markdown table row and returns the package paths named in
// backquotes in each cell.
func cells(row string) [][]string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(strings.TrimSuffix(row, "|"), "|")
	var out [][]string
	for _, c := range strings.Split(row, "|") {
		var names []string
		for {
			i := strings.IndexByte(c, '`')
			if i < 0 {
				break
			}
			j := strings.IndexByte(c[i+1:], '`')
			if j < 0 {
				break
			}
			names = append(names, c[i+1:i+1+j])
			c = c[i+1+j+1:]
		}
		out = append(out, names)
	}
	return out
}

// parseMap reads the import map from docs/architecture.md.
func parseMap(path string) (map[string]rule, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rules := map[string]rule{}
	in := false
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n++
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "<!-- import-map"):
			in = true
			continue
		case strings.HasPrefix(l, "<!-- end import-map"):
			in = false
			continue
		}
		if !in || !strings.HasPrefix(l, "|") || strings.HasPrefix(l, "|---") || strings.HasPrefix(l, "| package") {
			continue
		}
		c := cells(l)
		if len(c) != 4 || len(c[0]) != 1 {
			return nil, fmt.Errorf("%s:%d: a row needs four cells and one package in the first: %q", path, n, l)
		}
		pkg := c[0][0]
		if _, dup := rules[pkg]; dup {
			return nil, fmt.Errorf("%s:%d: package %s has two rows", path, n, pkg)
		}
		rules[pkg] = rule{imports: c[2], testImports: c[3], line: n}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(rules) == 0 {
		return nil, fmt.Errorf("%s: no import map between <!-- import-map --> and <!-- end import-map -->", path)
	}
	return rules, nil
}

// pkgInfo is what the test needs of one package directory.
type pkgInfo struct {
	rel                  string
	imports, testImports []string
}

// packages lists the module's Go packages, skipping testdata, hidden
// directories and build outputs.
func packages(t *testing.T, root, mod string) []pkgInfo {
	t.Helper()
	var out []pkgInfo
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "build" || name == "obj_dir") {
			return filepath.SkipDir
		}
		if p != root {
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		bp, err := build.ImportDir(p, build.ImportComment)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			return fmt.Errorf("%s: %w", p, err)
		}
		rel, _ := filepath.Rel(root, p)
		info := pkgInfo{rel: filepath.ToSlash(rel)}
		own := func(list []string) []string {
			var r []string
			sort.Strings(list)
			list = slices.Compact(list)
			for _, imp := range list {
				if imp == mod {
					r = append(r, ".")
				} else if s, ok := strings.CutPrefix(imp, mod+"/"); ok {
					r = append(r, s)
				}
			}
			return r
		}
		info.imports = own(bp.Imports)
		info.testImports = own(append(append([]string(nil), bp.TestImports...), bp.XTestImports...))
		out = append(out, info)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestImportsFollowTheSoftwareMap(t *testing.T) {
	r := root(t)
	mod := modulePath(t, r)
	doc := filepath.Join(r, "docs", "architecture.md")
	rules, err := parseMap(doc)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, p := range packages(t, r, mod) {
		seen[p.rel] = true
		ru, ok := rules[p.rel]
		if !ok {
			t.Errorf("package %s is not on the software map in docs/architecture.md: add a row that says its layer and what it may import", p.rel)
			continue
		}
		for _, imp := range p.imports {
			if imp != p.rel && !slices.Contains(ru.imports, imp) {
				t.Errorf("%s imports %s, which docs/architecture.md:%d does not allow", p.rel, imp, ru.line)
			}
		}
		for _, imp := range p.testImports {
			if imp != p.rel && !slices.Contains(ru.imports, imp) && !slices.Contains(ru.testImports, imp) {
				t.Errorf("tests of %s import %s, which docs/architecture.md:%d does not allow", p.rel, imp, ru.line)
			}
		}
	}
	var stale []string
	for pkg := range rules {
		if !seen[pkg] {
			stale = append(stale, pkg)
		}
	}
	sort.Strings(stale)
	for _, pkg := range stale {
		t.Errorf("docs/architecture.md:%d names package %s, which does not exist", rules[pkg].line, pkg)
	}
}

// TestMapParserRejectsMalformedRows keeps the parser honest: a row it cannot
// read must fail the test rather than silently allow everything.
func TestMapParserRejectsMalformedRows(t *testing.T) {
	for name, body := range map[string]string{
		"no map":    "# nothing here\n",
		"short row": "<!-- import-map -->\n| `a` | layer |\n<!-- end import-map -->\n",
		"two pkgs":  "<!-- import-map -->\n| `a` `b` | layer | | |\n<!-- end import-map -->\n",
		"duplicate": "<!-- import-map -->\n| `a` | x | | |\n| `a` | y | | |\n<!-- end import-map -->\n",
	} {
		p := filepath.Join(t.TempDir(), "arch.md")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := parseMap(p); err == nil {
			t.Errorf("%s: parsed without error", name)
		}
	}
	p := filepath.Join(t.TempDir(), "arch.md")
	os.WriteFile(p, []byte("<!-- import-map -->\n| package | layer | may import | tests |\n|---|---|---|---|\n| `x/y` | z | `a`, `b` | `c` |\n<!-- end import-map -->\n"), 0o644)
	rules, err := parseMap(p)
	if err != nil {
		t.Fatal(err)
	}
	got := rules["x/y"]
	if !slices.Equal(got.imports, []string{"a", "b"}) || !slices.Equal(got.testImports, []string{"c"}) {
		t.Fatalf("parsed %+v", got)
	}
}
