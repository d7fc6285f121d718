package vcd

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// SaveGroup is a named group of signals in a GTKWave save file.
type SaveGroup struct {
	Name    string   // title of the group
	Signals []string // names relative to the save file's scope, such as "m_axi_awvalid" or "core.state"
}

// GTKWave trace flags, as in GTKWave's save files.
const (
	gtkwHex      = 0x2
	gtkwBin      = 0x8
	gtkwRJustify = 0x20
	gtkwBlank    = 0x200
	gtkwGrpBegin = 0x800000
	gtkwGrpEnd   = 0x1000000
)

// GTKWaveSave writes to w a GTKWave save file (.gtkw) that shows, group by
// group, the signals of scope named in groups. Names and bit ranges are
// taken from the variables of the dump, which GTKWave needs to match
// exactly; pass the scope of a Reader that read the dump's declarations,
// such as r.Lookup("TOP.tb.dut.clk").Scope. Signals that scope lacks are
// left out and returned in missing; groups left empty are left out. Every
// name in the file starts with scope.Path and a dot: a dump whose hierarchy
// differs needs a save file of its own (sim-scripts/wave-shot.sh adapts
// one on the fly).
func GTKWaveSave(w io.Writer, scope *Scope, groups []SaveGroup) (missing []string, err error) {
	bw := bufio.NewWriter(w)
	prefix := ""
	if scope.Path != "" {
		prefix = scope.Path + "."
	}
	fmt.Fprintf(bw, "[*]\n[*] GTKWave save file written by vianic's vcd.GTKWaveSave.\n")
	fmt.Fprintf(bw, "[*] prefix %s\n[*]\n", prefix)
	fmt.Fprintf(bw, "[timestart] 0\n[size] 1400 900\n[pos] -1 -1\n")
	// Open the hierarchy down to the scope in the signal tree.
	for i := range prefix {
		if prefix[i] == '.' {
			fmt.Fprintf(bw, "[treeopen] %s\n", prefix[:i+1])
		}
	}
	fmt.Fprintf(bw, "[sst_width] 220\n[signals_width] 260\n[sst_expanded] 1\n[sst_vpaned_height] 250\n")
	for _, g := range groups {
		var lines []string
		for _, name := range g.Signals {
			v := scopeVar(scope, name)
			if v == nil {
				missing = append(missing, prefix+name)
				continue
			}
			// GTKWave shows reals as numbers whatever the flags say.
			flags := gtkwRJustify | gtkwHex
			if v.Width == 1 || strings.HasPrefix(v.Type, "real") {
				flags = gtkwRJustify | gtkwBin
			}
			full := prefix + name + gtkwRange(v)
			lines = append(lines, fmt.Sprintf("@%x\n%s\n", flags, full))
		}
		if len(lines) == 0 {
			continue
		}
		fmt.Fprintf(bw, "@%x\n-%s\n", gtkwGrpBegin|gtkwBlank, g.Name)
		for _, l := range lines {
			bw.WriteString(l)
		}
		fmt.Fprintf(bw, "@%x\n-%s\n", gtkwGrpEnd|gtkwBlank, g.Name)
	}
	fmt.Fprintf(bw, "[pattern_trace] 1\n[pattern_trace] 0\n")
	return missing, bw.Flush()
}

// gtkwRange returns the bit range as GTKWave appends it to a name: as
// declared, except that a one-bit range "[n:n]" becomes "[n]".
func gtkwRange(v *Var) string {
	if v.Range != "" && v.MSB == v.LSB && strings.Contains(v.Range, ":") {
		return fmt.Sprintf("[%d]", v.MSB)
	}
	return v.Range
}

// scopeVar finds name, which may name a nested scope ("core.state"), in s.
func scopeVar(s *Scope, name string) *Var {
	for {
		head, rest, nested := strings.Cut(name, ".")
		if !nested {
			return s.Var(name)
		}
		var next *Scope
		for _, c := range s.Scopes {
			if c.Name == head {
				next = c
				break
			}
		}
		if next == nil {
			return nil
		}
		s, name = next, rest
	}
}

// ViaNICGroups shows the interfaces of the NIC's top level, via_nic
// (rtl/via_nic.v), one group each. It is the layout of
// sim-scripts/gtkwave/via_nic.gtkw.
var ViaNICGroups = []SaveGroup{
	{Name: "Clock/reset", Signals: []string{"clk", "rst"}},
	{Name: "BAR0 AXI-Lite", Signals: []string{
		"s_axil_awvalid", "s_axil_awready", "s_axil_awaddr", "s_axil_awprot",
		"s_axil_wvalid", "s_axil_wready", "s_axil_wdata", "s_axil_wstrb",
		"s_axil_bvalid", "s_axil_bready", "s_axil_bresp",
		"s_axil_arvalid", "s_axil_arready", "s_axil_araddr", "s_axil_arprot",
		"s_axil_rvalid", "s_axil_rready", "s_axil_rdata", "s_axil_rresp",
	}},
	{Name: "DMA AXI4 write", Signals: []string{
		"m_axi_awvalid", "m_axi_awready", "m_axi_awid", "m_axi_awaddr", "m_axi_awlen", "m_axi_awsize",
		"m_axi_awburst", "m_axi_awlock", "m_axi_awcache", "m_axi_awprot",
		"m_axi_wvalid", "m_axi_wready", "m_axi_wdata", "m_axi_wstrb", "m_axi_wlast",
		"m_axi_bvalid", "m_axi_bready", "m_axi_bid", "m_axi_bresp",
	}},
	{Name: "DMA AXI4 read", Signals: []string{
		"m_axi_arvalid", "m_axi_arready", "m_axi_arid", "m_axi_araddr", "m_axi_arlen", "m_axi_arsize",
		"m_axi_arburst", "m_axi_arlock", "m_axi_arcache", "m_axi_arprot",
		"m_axi_rvalid", "m_axi_rready", "m_axi_rid", "m_axi_rdata", "m_axi_rresp", "m_axi_rlast",
	}},
	{Name: "Network RX (s_axis)", Signals: []string{"s_axis_tvalid", "s_axis_tready", "s_axis_tdata", "s_axis_tkeep", "s_axis_tlast"}},
	{Name: "Network TX (m_axis)", Signals: []string{"m_axis_tvalid", "m_axis_tready", "m_axis_tdata", "m_axis_tkeep", "m_axis_tlast"}},
	{Name: "Interrupts", Signals: []string{"irq"}},
}

// ViaDMADiagGroups shows the DMA diagnostic engine, via_dma_diag
// (rtl/via_dma_diag.v): its control port and its AXI4 master. It is the
// layout of sim-scripts/gtkwave/via_dma_diag.gtkw.
var ViaDMADiagGroups = []SaveGroup{
	{Name: "Clock/reset", Signals: []string{"clk", "rst"}},
	{Name: "Control", Signals: []string{
		"start", "abort", "src_addr", "dst_addr", "len", "busy", "done", "error", "err_resp", "err_addr",
	}},
	{Name: "DMA AXI4 write", Signals: []string{
		"m_axi_awvalid", "m_axi_awready", "m_axi_awid", "m_axi_awaddr", "m_axi_awlen", "m_axi_awsize",
		"m_axi_awburst", "m_axi_awlock", "m_axi_awcache", "m_axi_awprot",
		"m_axi_wvalid", "m_axi_wready", "m_axi_wdata", "m_axi_wstrb", "m_axi_wlast",
		"m_axi_bvalid", "m_axi_bready", "m_axi_bid", "m_axi_bresp",
	}},
	{Name: "DMA AXI4 read", Signals: []string{
		"m_axi_arvalid", "m_axi_arready", "m_axi_arid", "m_axi_araddr", "m_axi_arlen", "m_axi_arsize",
		"m_axi_arburst", "m_axi_arlock", "m_axi_arcache", "m_axi_arprot",
		"m_axi_rvalid", "m_axi_rready", "m_axi_rid", "m_axi_rdata", "m_axi_rresp", "m_axi_rlast",
	}},
}

// CosimGroups shows via_nic's interfaces for each of the given nodes of a
// co-simulation dump, whose NICs are the scopes node0.via_nic, node1.via_nic
// and so on under the dump's root. Use it with the dump's Root scope. It is
// the layout of sim-scripts/gtkwave/cosim.gtkw (two nodes).
func CosimGroups(nodes int) []SaveGroup {
	var groups []SaveGroup
	for n := 0; n < nodes; n++ {
		prefix := fmt.Sprintf("node%d.via_nic.", n)
		for _, g := range ViaNICGroups {
			sg := SaveGroup{Name: fmt.Sprintf("node%d %s", n, g.Name)}
			for _, s := range g.Signals {
				sg.Signals = append(sg.Signals, prefix+s)
			}
			groups = append(groups, sg)
		}
	}
	return groups
}
