package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// GTKWave views: a translate filter per enum of the RTL layouts, and the save
// files described by sim-scripts/gtkwave/waves.txt with the filters attached
// to the signals that carry an enum.

const (
	waveDir     = "sim-scripts/gtkwave"
	waveDesc    = waveDir + "/waves.txt"
	filterDir   = waveDir + "/filters"
	gtkwSaveDir = "/vianic-gtkwave" // see GTKWaveSave: the directory the save files claim to live in
)

// GTKWave trace flags (GTKWave's TR_* bits).
const (
	gtkwHex         = 0x2
	gtkwBin         = 0x8
	gtkwRJustify    = 0x20
	gtkwBlank       = 0x200
	gtkwFTranslated = 0x2000
	gtkwGrpBegin    = 0x800000
	gtkwGrpEnd      = 0x1000000
)

// filterPath is where the translate filter of enum e of layout l goes.
func filterPath(l *Layout, e *Enum) string {
	return filterDir + "/" + l.Name + "_" + strings.ToLower(e.Name) + ".txt"
}

// Filter writes e as a GTKWave translate filter: one line per value, the
// value as GTKWave shows a hex trace as wide as the enum (upper-case digits,
// zero padded), then the name.
func (l *Layout) Filter(e *Enum) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# "+banner+"\n# GTKWave translate filter of enum %s (%d bits, hex format): %s\n", l.File, e.Name, e.Bits, e.Doc)
	digits := (e.Bits + 3) / 4
	for _, c := range e.Values {
		fmt.Fprintf(&b, "%0*X %s\n", digits, c.Value, e.valueName(c))
	}
	return b.Bytes()
}

// flagsPath is where the flags filter of member m of struct s goes.
func flagsPath(l *Layout, s *Struct, m *Member) string {
	return filterDir + "/" + l.Name + "_" + strings.ToLower(s.Name) + "_" + strings.ToLower(m.Name) + ".txt"
}

// maxFlagsValues bounds a flags filter (GTKWave reads the whole file).
const maxFlagsValues = 4096

// FlagsFilter writes member m of struct s, a word of bit fields, as a
// GTKWave translate filter that names every value the word can take under
// these rules: a one-bit field is a flag, named when set; the one-bit
// fields inside the layout's constant MEMBER_ERROR_MASK (STATUS_ERROR_MASK
// for a member STATUS) are exclusive, at most one is set (a descriptor's
// Status carries one error bit); a field with an enum takes each of the
// enum's values, named field=VALUE in lower case (op=RECEIVE). Names list
// the fields from the lowest bit up, joined by |, as
// DONE|LOCAL_LENGTH_ERROR|op=RECEIVE. In a word with an error mask (a
// status: zero means nothing is reported yet) the value 0 is named 0. Other
// fields (several bits, no enum) are not supported.
func (l *Layout) FlagsFilter(s *Struct, m *Member) ([]byte, error) {
	if len(m.Fields) == 0 || !m.IsInt() || m.Size > 4 {
		return nil, fmt.Errorf("%s.%s.%s: a flags filter needs an integer member of at most 4 bytes with bit fields", l.Name, s.Name, m.Name)
	}
	var mask uint64
	for _, c := range l.Consts {
		if c.Name == m.Name+"_ERROR_MASK" {
			mask = c.Value
		}
	}
	fields := append([]*Field(nil), m.Fields...)
	sort.Slice(fields, func(i, j int) bool { return fields[i].LSB < fields[j].LSB })
	// Each choice is one way to fill the fields it covers: a value and a
	// name per alternative.
	type alt struct {
		value uint64
		name  string
	}
	var choices [][]alt
	var exclusive []alt
	for _, f := range fields {
		switch {
		case f.Enum != "":
			e := l.enumByName(f.Enum)
			if e == nil {
				return nil, fmt.Errorf("%s.%s.%s.%s: no enum %s", l.Name, s.Name, m.Name, f.Name, f.Enum)
			}
			var c []alt
			for _, v := range e.Values {
				c = append(c, alt{v.Value << f.LSB, strings.ToLower(f.Name) + "=" + e.valueName(v)})
			}
			choices = append(choices, c)
		case f.Width() == 1 && mask>>f.LSB&1 == 1:
			if len(exclusive) == 0 {
				exclusive = append(exclusive, alt{})
				choices = append(choices, nil) // filled below: the exclusive set's place
			}
			exclusive = append(exclusive, alt{1 << f.LSB, f.Name})
		case f.Width() == 1:
			choices = append(choices, []alt{{}, {1 << f.LSB, f.Name}})
		default:
			return nil, fmt.Errorf("%s.%s.%s.%s: %d bits without an enum: a flags filter cannot name its values", l.Name, s.Name, m.Name, f.Name, f.Width())
		}
	}
	for i := range choices {
		if choices[i] == nil {
			choices[i] = exclusive
		}
	}
	combos := []alt{{}}
	for _, c := range choices {
		var next []alt
		for _, a := range combos {
			for _, b := range c {
				n := a.name
				if b.name != "" {
					if n != "" {
						n += "|"
					}
					n += b.name
				}
				next = append(next, alt{a.value | b.value, n})
			}
		}
		combos = next
		if len(combos) > maxFlagsValues {
			return nil, fmt.Errorf("%s.%s.%s: more than %d values: too many for a flags filter", l.Name, s.Name, m.Name, maxFlagsValues)
		}
	}
	sort.Slice(combos, func(i, j int) bool { return combos[i].value < combos[j].value })
	var b bytes.Buffer
	fmt.Fprintf(&b, "# "+banner+"\n# GTKWave translate filter of %s.%s (%d bits, hex format, flags): %s\n", l.File, s.Name, m.Name, m.Size*8, m.Doc)
	digits := m.Size * 2
	for _, c := range combos {
		name := c.name
		if c.value == 0 && (mask != 0 || name == "") {
			name = "0"
		}
		fmt.Fprintf(&b, "%0*X %s\n", digits, c.value, name)
	}
	return b.Bytes(), nil
}

// waveSignal is one signal of a save file.
type waveSignal struct {
	Name     string // relative to the save file's prefix, with its bit range
	Width    int
	Filter   string // path of the translate filter, or ""
	Line     int
	FromEnum string // LAYOUT.ENUM of the filter
}

type waveGroup struct {
	Title   string
	Signals []waveSignal
}

type waveSave struct {
	File, Prefix, Title string
	Groups              []waveGroup
}

var waveRangeRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_.$]*)(\[(\d+)(?::(\d+))?\])?$`)

// parseWaves reads the save-file description; enums maps LAYOUT.ENUM to the
// enum and its filter's path.
func parseWaves(file string, r io.Reader, enums map[string]*Enum, filters map[string]string) ([]*waveSave, error) {
	fail := func(line int, format string, args ...any) error {
		return &ParseError{File: file, Line: line, Reason: fmt.Sprintf(format, args...)}
	}
	var saves []*waveSave
	byFile := map[string]*waveSave{}
	var cur *waveSave
	sc := bufio.NewScanner(r)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		toks, quoted, err := tokenize(sc.Text())
		if err != nil {
			return nil, fail(lineNo, "%v", err)
		}
		if len(toks) == 0 {
			continue
		}
		if toks[0] != "save" && cur == nil {
			return nil, fail(lineNo, "%s before the first save", toks[0])
		}
		switch toks[0] {
		case "save", "include":
			if len(toks) != 4 || !quoted[3] || quoted[1] || quoted[2] {
				return nil, fail(lineNo, `%s takes FILE PREFIX "title"`, toks[0])
			}
			prefix := toks[2]
			if prefix == "-" {
				prefix = ""
			} else if !strings.HasSuffix(prefix, ".") {
				return nil, fail(lineNo, "prefix %q must end with a dot (or be - for none)", prefix)
			}
			if toks[0] == "save" {
				if !strings.HasSuffix(toks[1], ".gtkw") || strings.ContainsAny(toks[1], "/\\") {
					return nil, fail(lineNo, "save file %q must be a NAME.gtkw in %s", toks[1], waveDir)
				}
				if byFile[toks[1]] != nil {
					return nil, fail(lineNo, "save file %s described twice", toks[1])
				}
				cur = &waveSave{File: toks[1], Prefix: prefix, Title: toks[3]}
				byFile[toks[1]] = cur
				saves = append(saves, cur)
				continue
			}
			from := byFile[toks[1]]
			if from == nil || from == cur {
				return nil, fail(lineNo, "include: no earlier save file %s", toks[1])
			}
			for _, g := range from.Groups {
				ng := waveGroup{Title: toks[3] + g.Title}
				for _, s := range g.Signals {
					s.Name = prefix + s.Name
					ng.Signals = append(ng.Signals, s)
				}
				cur.Groups = append(cur.Groups, ng)
			}
		case "group":
			if len(toks) != 2 || !quoted[1] {
				return nil, fail(lineNo, `group takes "title"`)
			}
			cur.Groups = append(cur.Groups, waveGroup{Title: toks[1]})
		case "signal":
			if len(toks) < 2 || len(toks) > 3 || quoted[1] {
				return nil, fail(lineNo, "signal takes NAME[MSB:LSB] [filter=LAYOUT.ENUM or filter=LAYOUT.STRUCT.MEMBER]")
			}
			if len(cur.Groups) == 0 {
				return nil, fail(lineNo, "signal outside a group")
			}
			m := waveRangeRE.FindStringSubmatch(toks[1])
			if m == nil {
				return nil, fail(lineNo, "bad signal %q (want name or name[MSB:LSB])", toks[1])
			}
			width := 1
			if m[2] != "" {
				var msb, lsb int
				fmt.Sscan(m[3], &msb)
				lsb = msb
				if m[4] != "" {
					fmt.Sscan(m[4], &lsb)
				}
				width = max(msb, lsb) - min(msb, lsb) + 1
			}
			s := waveSignal{Name: toks[1], Width: width, Line: lineNo}
			if len(toks) == 3 {
				ref, ok := strings.CutPrefix(toks[2], "filter=")
				e := enums[ref]
				if !ok || e == nil {
					return nil, fail(lineNo, "%q: want filter=LAYOUT.ENUM naming an enum of rtl/layouts, or filter=LAYOUT.STRUCT.MEMBER naming a struct member of bit fields (a flags filter)", toks[2])
				}
				if e.Bits != width {
					return nil, fail(lineNo, "signal %s is %d bits, enum %s %d", toks[1], width, ref, e.Bits)
				}
				s.Filter, s.FromEnum = filters[ref], ref
			}
			g := &cur.Groups[len(cur.Groups)-1]
			g.Signals = append(g.Signals, s)
		default:
			return nil, fail(lineNo, "unknown directive %q (known: save group signal include)", toks[0])
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fail(lineNo+1, "%v", err)
	}
	return saves, nil
}

// gtkwName writes a name with its bit range as GTKWave names a vector:
// [n:n] is [n].
func gtkwName(name string) string {
	m := waveRangeRE.FindStringSubmatch(name)
	if m != nil && m[4] != "" && m[3] == m[4] {
		return m[1] + "[" + m[3] + "]"
	}
	return name
}

// GTKWaveSave writes s as a GTKWave save file. Translate filters are named
// by an absolute path under a fixed directory that the [savefile] line
// claims the save file lives in: GTKWave resolves them relative to where
// the save file really is (its find_dumpfile rule), whatever the current
// directory; sim-scripts/wave-shot.sh rewrites them to real paths.
func (s *waveSave) GTKWaveSave() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "[*] %s/%s: %s.\n", waveDir, s.File, s.Title)
	fmt.Fprintf(&b, "[*] Generated by cmd/layoutgen (make generate) from %s; DO NOT EDIT.\n", waveDesc)
	b.WriteString("[*] Signals carrying an enum show its names (translate filters in filters/).\n")
	fmt.Fprintf(&b, "[*]\n[*] prefix %s\n[*]\n", s.Prefix)
	fmt.Fprintf(&b, "[savefile] \"%s/%s\"\n", gtkwSaveDir, s.File)
	b.WriteString("[timestart] 0\n[size] 1400 900\n[pos] -1 -1\n")
	for i := range s.Prefix {
		if s.Prefix[i] == '.' {
			fmt.Fprintf(&b, "[treeopen] %s\n", s.Prefix[:i+1])
		}
	}
	b.WriteString("[sst_width] 220\n[signals_width] 260\n[sst_expanded] 1\n[sst_vpaned_height] 250\n")
	filter := "" // the filter GTKWave currently attaches
	for _, g := range s.Groups {
		if len(g.Signals) == 0 {
			continue
		}
		fmt.Fprintf(&b, "@%x\n-%s\n", gtkwGrpBegin|gtkwBlank, g.Title)
		for _, sig := range g.Signals {
			flags := gtkwRJustify | gtkwHex
			if sig.Width == 1 {
				flags = gtkwRJustify | gtkwBin
			}
			if sig.Filter != "" {
				if sig.Filter != filter {
					rel := strings.TrimPrefix(sig.Filter, waveDir+"/")
					fmt.Fprintf(&b, "^1 %s/%s\n", gtkwSaveDir, rel)
					filter = sig.Filter
				}
				flags |= gtkwFTranslated
			}
			fmt.Fprintf(&b, "@%x\n%s%s\n", flags, s.Prefix, gtkwName(sig.Name))
		}
		fmt.Fprintf(&b, "@%x\n-%s\n", gtkwGrpEnd|gtkwBlank, g.Title)
	}
	b.WriteString("[pattern_trace] 1\n[pattern_trace] 0\n")
	return b.Bytes()
}

// generateWaves writes a filter for every enum of the RTL layouts and the
// save files of sim-scripts/gtkwave/waves.txt (none without it).
func generateWaves(root string, layouts []*Layout) ([]Output, error) {
	var outs []Output
	enums := map[string]*Enum{}
	filters := map[string]string{}
	for _, l := range layouts {
		for _, e := range l.Enums {
			p := filterPath(l, e)
			outs = append(outs, Output{p, l.Filter(e)})
			enums[l.Name+"."+e.Name] = e
			filters[l.Name+"."+e.Name] = p
		}
	}
	// Flags filters (LAYOUT.STRUCT.MEMBER): written only for the members a
	// save file uses.
	type flagsOf struct {
		l *Layout
		s *Struct
		m *Member
	}
	flags := map[string]flagsOf{}
	for _, l := range layouts {
		for _, s := range l.Structs {
			for _, m := range s.Members {
				if len(m.Fields) == 0 || !m.IsInt() || m.Size > 4 {
					continue
				}
				ref := l.Name + "." + s.Name + "." + m.Name
				enums[ref] = &Enum{Name: s.Name + "." + m.Name, Bits: m.Size * 8}
				filters[ref] = flagsPath(l, s, m)
				flags[filters[ref]] = flagsOf{l, s, m}
			}
		}
	}
	f, err := os.Open(filepath.Join(root, waveDesc))
	if os.IsNotExist(err) {
		return outs, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	saves, err := parseWaves(waveDesc, f, enums, filters)
	if err != nil {
		return nil, err
	}
	written := map[string]bool{}
	for _, s := range saves {
		for _, g := range s.Groups {
			for _, sig := range g.Signals {
				fl, ok := flags[sig.Filter]
				if !ok || written[sig.Filter] {
					continue
				}
				b, err := fl.l.FlagsFilter(fl.s, fl.m)
				if err != nil {
					return nil, &ParseError{File: waveDesc, Line: sig.Line, Reason: err.Error()}
				}
				outs = append(outs, Output{sig.Filter, b})
				written[sig.Filter] = true
			}
		}
		outs = append(outs, Output{waveDir + "/" + s.File, s.GTKWaveSave()})
	}
	return outs, nil
}
