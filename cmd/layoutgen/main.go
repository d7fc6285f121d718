// Command layoutgen generates the Verilog, Go, C and Markdown views of the
// project's layout files (rtl/layouts/*.layout). Run it from the repository
// root, or through `make generate`; with -check it writes nothing and fails
// when a generated file differs from what it would write.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Output is one generated file.
type Output struct {
	Path string
	Data []byte
}

// Generate parses every layout under root/rtl/layouts and returns the files
// they produce, paths relative to root.
func Generate(root string) ([]Output, error) {
	files, err := filepath.Glob(filepath.Join(root, "rtl", "layouts", "*.layout"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no layout files in %s", filepath.Join(root, "rtl", "layouts"))
	}
	sort.Strings(files)
	var outs []Output
	for _, path := range files {
		rel, _ := filepath.Rel(root, path)
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		l, err := Parse(filepath.ToSlash(rel), f)
		f.Close()
		if err != nil {
			return nil, err
		}
		goSrc, err := l.Go("hw")
		if err != nil {
			return nil, err
		}
		outs = append(outs,
			Output{"rtl/generated/via_" + l.Name + ".vh", l.Verilog()},
			Output{"firmware/include/via_" + l.Name + ".h", l.C()},
			Output{"cosim/hw/" + l.Name + "_gen.go", goSrc},
		)
		doc := "docs/" + l.Name + ".md"
		if l.Name == "bar0" {
			doc = "docs/registers.md"
		}
		outs = append(outs, Output{doc, l.Markdown()})
	}
	return outs, nil
}

// Stale returns the generated files whose content on disk differs.
func Stale(root string, outs []Output) []string {
	var stale []string
	for _, o := range outs {
		have, err := os.ReadFile(filepath.Join(root, o.Path))
		if err != nil || !bytes.Equal(have, o.Data) {
			stale = append(stale, o.Path)
		}
	}
	return stale
}

func main() {
	root := flag.String("root", ".", "repository root")
	check := flag.Bool("check", false, "write nothing; exit 1 if a generated file is out of date")
	flag.Parse()
	outs, err := Generate(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "layoutgen:", err)
		os.Exit(1)
	}
	if *check {
		if stale := Stale(*root, outs); len(stale) > 0 {
			for _, p := range stale {
				fmt.Fprintf(os.Stderr, "layoutgen: %s is out of date; run `make generate`\n", p)
			}
			os.Exit(1)
		}
		return
	}
	for _, o := range outs {
		p := filepath.Join(*root, o.Path)
		if have, err := os.ReadFile(p); err == nil && bytes.Equal(have, o.Data) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "layoutgen:", err)
			os.Exit(1)
		}
		if err := os.WriteFile(p, o.Data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "layoutgen:", err)
			os.Exit(1)
		}
		fmt.Println("layoutgen: wrote", o.Path)
	}
}
