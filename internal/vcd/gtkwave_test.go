package vcd_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vianic/vianic/internal/vcd"
)

func TestGTKWaveSave(t *testing.T) {
	src := `$timescale 1ps $end
$scope module TOP $end
$scope module tb $end
$scope module dut $end
$var wire 1 ! clk $end
$var wire 8 " data [7:0] $end
$var wire 1 # one [0:0] $end
$var wire 1 $ bit [3] $end
$var real 64 % temp $end
$scope module core $end
$var reg 4 & state [3:0] $end
$upscope $end
$upscope $end
$upscope $end
$upscope $end
$enddefinitions $end
`
	r, err := vcd.NewReader(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	missing, err := vcd.GTKWaveSave(&buf, r.Lookup("tb.dut.clk").Scope, []vcd.SaveGroup{
		{Name: "Clock", Signals: []string{"clk"}},
		{Name: "Empty", Signals: []string{"nothing"}},
		{Name: "Data path", Signals: []string{"data", "one", "bit", "temp", "core.state", "core.nothing"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(missing) != "[TOP.tb.dut.nothing TOP.tb.dut.core.nothing]" {
		t.Errorf("missing = %v", missing)
	}
	want := `[*]
[*] GTKWave save file written by vianic's vcd.GTKWaveSave.
[*] prefix TOP.tb.dut.
[*]
[timestart] 0
[size] 1400 900
[pos] -1 -1
[treeopen] TOP.
[treeopen] TOP.tb.
[treeopen] TOP.tb.dut.
[sst_width] 220
[signals_width] 260
[sst_expanded] 1
[sst_vpaned_height] 250
@800200
-Clock
@28
TOP.tb.dut.clk
@1000200
-Clock
@800200
-Data path
@22
TOP.tb.dut.data[7:0]
@28
TOP.tb.dut.one[0]
@28
TOP.tb.dut.bit[3]
@28
TOP.tb.dut.temp
@22
TOP.tb.dut.core.state[3:0]
@1000200
-Data path
[pattern_trace] 1
[pattern_trace] 0
`
	if got := buf.String(); got != want {
		t.Errorf("save file:\n%s\nwant:\n%s", got, want)
	}
}

// saveFiles are the generated save files (cmd/layoutgen, from
// sim-scripts/gtkwave/waves.txt) of the benches and where their signals live
// in the benches' dumps.
var saveFiles = []struct {
	bench, file, scope string
}{
	{"via_nic", "via_nic.gtkw", "tb_via_nic.dut"},
	{"via_dma_diag", "via_dma_diag.gtkw", "tb_via_dma_diag.env_a.dut"},
	{"via_nic", "via_vi.gtkw", "tb_via_nic.dut"},
}

// gtkwRange is the bit range of v as GTKWave names it ([n:n] is [n]).
func gtkwRange(v *vcd.Var) string {
	if v.Range != "" && v.MSB == v.LSB && strings.Contains(v.Range, ":") {
		return fmt.Sprintf("[%d]", v.MSB)
	}
	return v.Range
}

// readFilter reads a GTKWave translate filter file: value -> name.
func readFilter(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		v, name, ok := strings.Cut(l, " ")
		if !ok {
			t.Fatalf("%s: bad line %q", path, l)
		}
		m[v] = strings.TrimSpace(name)
	}
	return m
}

// filterFile maps a filter as a generated save file names it (under the
// directory its [savefile] line claims) to the file in the tree.
func filterFile(t *testing.T, name string) string {
	t.Helper()
	rel, ok := strings.CutPrefix(name, "/vianic-gtkwave/")
	if !ok {
		t.Fatalf("filter %q is not under /vianic-gtkwave/", name)
	}
	return filepath.Join(repoRoot(t), "sim-scripts", "gtkwave", rel)
}

// CheckSaveFileAgainstDump checks that every signal file shows exists in
// the dump r read with the same bit range, and that every translate filter
// attached to a signal exists and is as wide as the signal.
func checkSaveFileAgainstDump(t *testing.T, file string, r *vcd.Reader) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sigs, err := vcd.SaveFileSignals(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(sigs) == 0 {
		t.Fatalf("%s shows no signals", file)
	}
	filtered := 0
	for _, s := range sigs {
		v := r.Lookup(s.Name)
		if v == nil {
			t.Errorf("%s: %s is not in the dump", filepath.Base(file), s.Name)
			continue
		}
		if got := gtkwRange(v); got != s.Range {
			t.Errorf("%s: %s%s is %s%s in the dump", filepath.Base(file), s.Name, s.Range, s.Name, got)
		}
		if s.Filter == "" {
			continue
		}
		filtered++
		digits := (v.Width + 3) / 4
		for val := range readFilter(t, filterFile(t, s.Filter)) {
			if len(val) != digits {
				t.Errorf("%s: filter %s of %s (%d bits) has value %q, GTKWave shows %d hex digits", filepath.Base(file), s.Filter, s.Name, v.Width, val, digits)
			}
		}
	}
	if filtered == 0 {
		t.Errorf("%s attaches no translate filter", filepath.Base(file))
	}
}

// TestSaveFilesMatchDumps checks the generated save files against the
// Verilator dumps of their benches: a signal renamed or resized in the RTL
// shows here (fix sim-scripts/gtkwave/waves.txt, then make generate).
func TestSaveFilesMatchDumps(t *testing.T) {
	t.Parallel()
	for _, sf := range saveFiles {
		t.Run(strings.TrimSuffix(sf.file, ".gtkw"), func(t *testing.T) {
			path := benchVCD(t, sf.bench, "verilator")
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r, err := vcd.NewReader(f)
			if err != nil {
				t.Fatal(err)
			}
			checkSaveFileAgainstDump(t, filepath.Join(repoRoot(t), "sim-scripts", "gtkwave", sf.file), r)
		})
	}
}

// TestFilterFilesMapValues: the generated translate filters map the values
// GTKWave shows (hex digits) to the layouts' names.
func TestFilterFilesMapValues(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "sim-scripts", "gtkwave", "filters")
	resp := readFilter(t, filepath.Join(dir, "axi_resp.txt"))
	want := map[string]string{"0": "OKAY", "1": "EXOKAY", "2": "SLVERR", "3": "DECERR"}
	if fmt.Sprint(resp) != fmt.Sprint(want) {
		t.Errorf("axi_resp.txt = %v, want %v", resp, want)
	}
	if ev := readFilter(t, filepath.Join(dir, "fw_ev.txt")); ev["01"] != "ADMIN" || ev["02"] != "TIMER" {
		t.Errorf("fw_ev.txt = %v: want 01 ADMIN, 02 TIMER", ev)
	}
	if op := readFilter(t, filepath.Join(dir, "admin_op.txt")); op["0001"] != "QUERY_NIC" {
		t.Errorf("admin_op.txt = %v: want 0001 QUERY_NIC", op)
	}
	if st := readFilter(t, filepath.Join(dir, "desc_tx_state.txt")); st["0"] != "IDLE" || st["2"] != "REQ" || st["9"] != "FIN" {
		t.Errorf("desc_tx_state.txt = %v: want 0 IDLE, 2 REQ, 9 FIN", st)
	}
	// The Status word's flags filter: every value an engine writes.
	st := readFilter(t, filepath.Join(dir, "desc_ctl_status.txt"))
	for v, name := range map[string]string{
		"00000000": "0", "00000001": "DONE|op=SEND", "00010009": "DONE|LOCAL_LENGTH_ERROR|op=RECEIVE",
		"00090001": "DONE|op=RECEIVE|IMMEDIATE", "00000041": "DONE|TRANSPORT_ERROR|op=SEND", "00000002": "LOCAL_FORMAT_ERROR|op=SEND",
	} {
		if st[v] != name {
			t.Errorf("desc_ctl_status.txt: %s is %q, want %q", v, st[v], name)
		}
	}
	if _, ok := st["00000007"]; ok {
		t.Error("desc_ctl_status.txt names two error bits at once")
	}
}

// checkShot checks that a screenshot of GTKWave shows waveforms: many
// colours, most of the window not background, and green traces.
func checkShot(img image.Image) (string, error) {
	b := img.Bounds()
	if b.Dx() < 800 || b.Dy() < 500 {
		return "", fmt.Errorf("image is %dx%d, want a GTKWave window of at least 800x500", b.Dx(), b.Dy())
	}
	counts := make(map[color.RGBA]int)
	green := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			counts[c]++
			if c.G > 150 && c.R < 100 && c.B < 100 {
				green++
			}
		}
	}
	total := b.Dx() * b.Dy()
	most := 0
	for _, n := range counts {
		most = max(most, n)
	}
	other := float64(total-most) / float64(total)
	greenFrac := float64(green) / float64(total)
	stats := fmt.Sprintf("%dx%d, %d colours, %.0f%% not the main colour, %.1f%% trace green",
		b.Dx(), b.Dy(), len(counts), 100*other, 100*greenFrac)
	if len(counts) < 16 || other < 0.2 || greenFrac < 0.01 {
		return stats, fmt.Errorf("image looks blank: %s", stats)
	}
	return stats, nil
}

func TestCheckShotRejectsBlank(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 1400, 900))
	if _, err := checkShot(img); err == nil {
		t.Error("a black image passes")
	}
	for y := 0; y < 900; y++ {
		for x := 0; x < 1400; x++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 200, 255}) // colourful, but no traces
		}
	}
	if _, err := checkShot(img); err == nil {
		t.Error("an image without traces passes")
	}
}

// waveShot runs sim-scripts/wave-shot.sh and checks the PNG it writes. It
// returns what the script printed.
func waveShot(t *testing.T, dump, save string, args ...string) string {
	t.Helper()
	requireTools(t, "gtkwave", "Xvfb")
	out := filepath.Join(t.TempDir(), "shot.png")
	args = append(args, dump, save, out)
	cmd := exec.Command(filepath.Join(repoRoot(t), "sim-scripts", "wave-shot.sh"), args...)
	msg, err := cmd.CombinedOutput()
	t.Logf("wave-shot.sh:\n%s", msg)
	if err != nil {
		t.Fatalf("wave-shot.sh: %v", err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	stats, err := checkShot(img)
	if err != nil {
		t.Error(err)
	}
	t.Logf("screenshot: %s", stats)
	if keep := os.Getenv("VIANIC_KEEP_SHOTS"); keep != "" {
		b, _ := os.ReadFile(out)
		name := filepath.Join(keep, strings.ReplaceAll(t.Name(), "/", "_")+".png")
		if err := os.WriteFile(name, b, 0o644); err == nil {
			t.Logf("screenshot kept as %s", name)
		}
	}
	return string(msg)
}

var foundRE = regexp.MustCompile(`(\d+) of (\d+) signals of the save file found under "([^"]*)"`)

// checkFound checks that wave-shot.sh found every signal of the save file
// under scope.
func checkFound(t *testing.T, msg, scope string) {
	t.Helper()
	m := foundRE.FindStringSubmatch(msg)
	if m == nil || m[1] != m[2] || m[3] != scope {
		t.Errorf("wave-shot.sh did not find all signals under %q: %q", scope, m)
	}
}

// TestWaveShot runs the NIC's top-level bench (or, while it does not
// exist, the DMA bench) with a waveform and takes a GTKWave screenshot of
// it with the committed save file, zoomed to the first DMA write.
func TestWaveShot(t *testing.T) {
	t.Parallel()
	requireTools(t, "gtkwave", "Xvfb")
	root := repoRoot(t)
	sf := saveFiles[0]
	if _, err := os.Stat(filepath.Join(root, "testbench", sf.bench, "files.f")); err != nil {
		sf = saveFiles[1]
	}
	dump := benchVCD(t, sf.bench, "verilator")
	// Find the first DMA write address handshake: the window starts there.
	f, err := os.Open(dump)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := vcd.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	aw, rst := r.Lookup(sf.scope+".m_axi_awvalid"), r.Lookup(sf.scope+".rst")
	if aw == nil || rst == nil {
		t.Fatalf("no %s.m_axi_awvalid or .rst in the dump", sf.scope)
	}
	r.Select(aw.Signal, rst.Signal)
	var start uint64
	inReset := true
	for start == 0 {
		ev, err := r.Next()
		if err == io.EOF {
			t.Fatal("m_axi_awvalid never rises after reset")
		}
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case ev.Kind != vcd.ValueChange:
		case ev.Signal == rst.Signal:
			inReset = ev.Value[0] != '0'
		case !inReset && ev.Value[0] == '1':
			start = ev.Time
		}
	}
	unit := r.Header().Timescale
	window := fmt.Sprintf("%d:%d", start-min(start, 100_000), start+1_400_000)
	if unit != "1ps" {
		t.Fatalf("timescale %s: the window assumes 1ps", unit)
	}
	msg := waveShot(t, dump, filepath.Join(root, "sim-scripts", "gtkwave", sf.file), "-r", window)
	checkFound(t, msg, "TOP."+sf.scope+".")
}

// TestWaveShotAdaptsSaveFile shows a dump with another hierarchy and other
// widths than the bench's (as a co-simulation would write) with the
// committed via_nic save file.
func TestWaveShotAdaptsSaveFile(t *testing.T) {
	t.Parallel()
	requireTools(t, "gtkwave", "Xvfb")
	dump := filepath.Join(t.TempDir(), "cosim.vcd")
	f, err := os.Create(dump)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := vcd.NewWriter(f, "1ns")
	w.Scope("cosim_top")
	w.Scope("node0")
	w.Scope("nic")
	widths := map[string]int{ // a 128-bit NIC with 2 interrupts
		"s_axil_awaddr": 20, "s_axil_araddr": 20, "s_axil_awprot": 3, "s_axil_arprot": 3, "s_axil_wdata": 32,
		"s_axil_rdata": 32, "s_axil_wstrb": 4, "s_axil_bresp": 2, "s_axil_rresp": 2,
		"m_axi_awid": 4, "m_axi_arid": 4, "m_axi_bid": 4, "m_axi_rid": 4, "m_axi_awaddr": 48, "m_axi_araddr": 48,
		"m_axi_awlen": 8, "m_axi_arlen": 8, "m_axi_awsize": 3, "m_axi_arsize": 3, "m_axi_awburst": 2, "m_axi_arburst": 2,
		"m_axi_awcache": 4, "m_axi_arcache": 4, "m_axi_awprot": 3, "m_axi_arprot": 3, "m_axi_wdata": 128,
		"m_axi_rdata": 128, "m_axi_wstrb": 16, "m_axi_bresp": 2, "m_axi_rresp": 2,
		"s_axis_tdata": 128, "m_axis_tdata": 128, "s_axis_tkeep": 16, "m_axis_tkeep": 16, "irq": 2,
	}
	save := filepath.Join(repoRoot(t), "sim-scripts", "gtkwave", "via_nic.gtkw")
	sf, err := os.Open(save)
	if err != nil {
		t.Fatal(err)
	}
	sigs, err := vcd.SaveFileSignals(sf)
	sf.Close()
	if err != nil {
		t.Fatal(err)
	}
	var hs []vcd.Handle
	var ws []int
	n := 0
	scope := "" // the current sub-scope under nic (signals of an instance, as tpt_inst.lk_valid, come together)
	for _, sig := range sigs {
		s := strings.TrimPrefix(sig.Name, "TOP.tb_via_nic.dut.")
		width := max(widths[s], 1)
		sub, leaf := "", s
		if i := strings.LastIndexByte(s, '.'); i >= 0 {
			sub, leaf = s[:i], s[i+1:]
		}
		if sub != scope {
			for range strings.Count(scope, ".") + min(len(scope), 1) {
				w.Up()
			}
			if sub != "" {
				for _, part := range strings.Split(sub, ".") {
					w.Scope(part)
				}
			}
			scope = sub
		}
		h, err := w.Wire(leaf, width)
		if err != nil {
			t.Fatal(err)
		}
		hs, ws = append(hs, h), append(ws, width)
		n++
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for c := uint64(0); c < 400; c++ {
		w.Time(10 * c)
		w.Set(hs[0], 0) // clk
		w.Set(hs[1], map[bool]uint64{true: 1, false: 0}[c < 5])
		w.Time(10*c + 5)
		w.Set(hs[0], 1)
		for i := 2; i < len(hs); i++ {
			if rng.IntN(8) == 0 {
				w.Set(hs[i], rng.Uint64())
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	msg := waveShot(t, dump, save, "-r", "0:1us")
	checkFound(t, msg, "cosim_top.node0.nic.")
	if !strings.Contains(msg, fmt.Sprintf("%d of %d signals", n, n)) {
		t.Errorf("not all %d signals found", n)
	}
}
