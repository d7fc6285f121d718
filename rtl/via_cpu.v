// via_cpu: the NIC's control processor, a small multi-cycle RV32I core with
// its instruction and data memories, a host port to load and inspect them and
// a valid/ready peripheral port.
//
// ISA: RV32I (all 37 user instructions; FENCE is a no-op), Zicsr, WFI.
// Machine mode only. CSRs: mstatus (reads 0x00001800, MPP=M; writes ignored),
// misa (reads 0x40000100, RV32I; writes ignored), mhartid (0, read-only),
// mscratch, mepc (bits 1:0 read 0), mcause (bits 4:0 kept, others read 0),
// mtval, and the read-only counters cycle, cycleh, instret, instreth. Any
// other CSR, a write to a read-only CSR, and any other encoding (all-zero and
// all-ones words included) is an illegal instruction.
//
// Traps stop the core. The firmware has no trap handler: a trap is a
// firmware fault that the driver must see. On a trap mepc, mcause and mtval
// are written, the faulting instruction has no other effect (no register,
// memory, CSR or peripheral write, no peripheral access, not counted in
// instret), and halted and fault go to 1 until rst. Causes and mtval:
//   0 instruction address misaligned  taken branch/JAL/JALR target not 4-aligned
//                                     (mepc = the jump, mtval = target)
//   1 instruction access fault        fetch outside instruction memory (mepc =
//                                     mtval = the fetch address)
//   2 illegal instruction             mtval = the instruction word
//   3 breakpoint (EBREAK)             mtval = pc
//   4/6 load/store address misaligned mtval = effective address
//   5/7 load/store access fault       address in no window, store to
//                                     instruction memory, or per_err; mtval =
//                                     effective address
//   11 ECALL                          mtval = 0
// Misaligned is checked before access fault. The firmware uses neither ECALL
// nor EBREAK; both halt like any other fault.
//
// Address map (core view):
//   0x0000_0000 + IMEM_BYTES  instruction memory: fetch, load; store faults
//   0x1000_0000 + DMEM_BYTES  data memory: load, store
//   0x2000_0000 .. 0x2000_FFFF peripheral window, routed to the per_* port
//   anything else             access fault
//
// Microarchitecture: a multi-cycle machine without pipeline hazards. Every
// instruction ends by presenting the next pc to the instruction memory, whose
// synchronous read port then delivers the instruction in DECODE; DECODE
// latches it and reads both source registers (register file with synchronous
// read ports, so it maps to RAM too); EXEC does all the work. Cycles per
// instruction: 2 for ALU, LUI/AUIPC, jumps and branches (taken or not), CSR,
// FENCE and stores to data memory; 3 for loads from either memory; 3 plus the
// cycles per_ready stays 0 for a peripheral access. WFI stays in EXEC while
// irq_wake is 0 and takes 2 cycles if irq_wake is already 1; wfi is 1 while
// it is in EXEC, so wfi && !irq_wake means idle (a simulator may skip those
// cycles). No output depends combinationally on an input.
//
// Host port: while rst is 1 and while the core runs. A request is one cycle
// with host_en 1; it is always accepted. host_sel selects the memory (0
// instruction, 1 data), host_addr the 32-bit word. host_we 1 writes
// host_wdata; host_we 0 reads, and host_rdata is valid in the next cycle,
// flagged by host_rvalid. One request per cycle, back to back. A word index
// outside the memory is ignored on write and reads as 0. The driver loads the
// memories while the core is held in reset; a host write into a memory the
// running core uses is legal but races with it. The memories are not reset.
//
// Peripheral port: the core holds per_valid, per_we, per_addr, per_wdata and
// per_wstrb stable until a cycle with per_ready 1 (which may be the first);
// per_rdata and per_err are sampled in that cycle. per_addr is the byte
// offset in the window of the addressed 32-bit word (bits 1:0 are 0); byte
// and halfword stores put their data in the lanes selected by per_wstrb
// (AXI4-Lite style); loads read the whole word (per_wstrb 0) and extract the
// bytes in the core. per_err 1 with per_ready is an access fault (cause 5 for
// a load, 7 for a store). per_valid is never 1 in two accesses back to back:
// it drops for at least one cycle after each per_ready.

`timescale 1ns / 1ps
`default_nettype none

`include "via_param_check.vh"
module via_cpu #(
    parameter IMEM_BYTES = 16384,  // instruction memory bytes: power of two, 8 .. 256 KiB
    parameter DMEM_BYTES = 8192    // data memory bytes: power of two, 8 .. 256 KiB
) (
    input  wire        clk,
    input  wire        rst,

    // host port: download and inspection of the memories
    input  wire        host_en,
    input  wire        host_we,
    input  wire        host_sel,     // 0 instruction memory, 1 data memory
    input  wire [15:0] host_addr,    // word index
    input  wire [31:0] host_wdata,
    output wire [31:0] host_rdata,
    output wire        host_rvalid,

    // peripheral port: 0x2000_0000 .. 0x2000_FFFF
    output wire        per_valid,
    output wire        per_we,
    output wire [15:0] per_addr,
    output wire [31:0] per_wdata,
    output wire [3:0]  per_wstrb,
    input  wire        per_ready,
    input  wire [31:0] per_rdata,
    input  wire        per_err,

    // WFI completes while this is 1
    input  wire        irq_wake,

    // status
    output wire        halted,       // stopped by a trap (only rst restarts)
    output wire        fault,        // a trap happened; equal to halted
    output wire        wfi,          // executing WFI: done in the first cycle with irq_wake 1
    output wire [4:0]  trap_cause,   // mcause
    output wire [31:0] trap_pc,      // mepc
    output wire [31:0] trap_val,     // mtval
    output wire [31:0] pc,           // pc of the instruction in progress
    output wire [63:0] retired       // instret
);

generate
    if (IMEM_BYTES < 8 || IMEM_BYTES > 262144 || (IMEM_BYTES & (IMEM_BYTES - 1)) != 0) begin : g_bad_imem_bytes
        `VIA_PARAM_FAIL(("via_cpu: IMEM_BYTES=%0d, must be a power of two, 8 .. 262144", IMEM_BYTES))
    end
    if (DMEM_BYTES < 8 || DMEM_BYTES > 262144 || (DMEM_BYTES & (DMEM_BYTES - 1)) != 0) begin : g_bad_dmem_bytes
        `VIA_PARAM_FAIL(("via_cpu: DMEM_BYTES=%0d, must be a power of two, 8 .. 262144", DMEM_BYTES))
    end
endgenerate

localparam IMEM_WORDS = IMEM_BYTES / 4;
localparam DMEM_WORDS = DMEM_BYTES / 4;
localparam IMEM_AW = $clog2(IMEM_WORDS);
localparam DMEM_AW = $clog2(DMEM_WORDS);
localparam [31:0] IMEM_END = IMEM_BYTES;
localparam [31:0] DMEM_BASE = 32'h1000_0000;
localparam [31:0] DMEM_END = DMEM_BASE + DMEM_BYTES;
localparam [31:0] IMEM_WORDS32 = IMEM_WORDS;
localparam [31:0] DMEM_WORDS32 = DMEM_WORDS;
localparam [16:0] IMEM_WORDS_H = IMEM_WORDS32[16:0];  // host_addr compares
localparam [16:0] DMEM_WORDS_H = DMEM_WORDS32[16:0];

localparam [2:0]
    S_FETCH  = 3'd0,  // after reset: read the first instruction
    S_DECODE = 3'd1,  // instruction arrives; read rs1/rs2
    S_EXEC   = 3'd2,  // execute; fetch the next instruction or start a load
    S_LOAD   = 3'd3,  // load data arrives from a memory
    S_PER    = 3'd4,  // peripheral access in progress
    S_HALT   = 3'd5;  // trapped

localparam [6:0]
    OP_LUI    = 7'b0110111,
    OP_AUIPC  = 7'b0010111,
    OP_JAL    = 7'b1101111,
    OP_JALR   = 7'b1100111,
    OP_BRANCH = 7'b1100011,
    OP_LOAD   = 7'b0000011,
    OP_STORE  = 7'b0100011,
    OP_IMM    = 7'b0010011,
    OP_OP     = 7'b0110011,
    OP_FENCE  = 7'b0001111,
    OP_SYSTEM = 7'b1110011;

localparam [31:0]
    INSN_ECALL  = 32'h0000_0073,
    INSN_EBREAK = 32'h0010_0073,
    INSN_WFI    = 32'h1050_0073;

localparam [4:0]
    CAUSE_FETCH_MISALIGNED = 5'd0,
    CAUSE_FETCH_FAULT      = 5'd1,
    CAUSE_ILLEGAL          = 5'd2,
    CAUSE_BREAKPOINT       = 5'd3,
    CAUSE_LOAD_MISALIGNED  = 5'd4,
    CAUSE_LOAD_FAULT       = 5'd5,
    CAUSE_STORE_MISALIGNED = 5'd6,
    CAUSE_STORE_FAULT      = 5'd7,
    CAUSE_ECALL_M          = 5'd11;

localparam [11:0]
    CSR_MSTATUS  = 12'h300,
    CSR_MISA     = 12'h301,
    CSR_MSCRATCH = 12'h340,
    CSR_MEPC     = 12'h341,
    CSR_MCAUSE   = 12'h342,
    CSR_MTVAL    = 12'h343,
    CSR_CYCLE    = 12'hC00,
    CSR_INSTRET  = 12'hC02,
    CSR_CYCLEH   = 12'hC80,
    CSR_INSTRETH = 12'hC82,
    CSR_MHARTID  = 12'hF14;

function [31:0] bitrev32;
    input [31:0] v;
    integer i;
    begin
        for (i = 0; i < 32; i = i + 1) begin
            bitrev32[i] = v[31 - i];
        end
    end
endfunction

// ---------------------------------------------------------------- state

reg [2:0]  state_reg, state_next;
reg [31:2] pc_reg, pc_next;          // instructions are 4-aligned
reg [31:0] ir_reg, ir_next;          // instruction in DECODE..end
reg        ld_imem_reg, ld_imem_next; // the pending load reads instruction memory

reg        per_valid_reg, per_valid_next;
reg        per_we_reg, per_we_next;
reg [15:2] per_addr_reg, per_addr_next;
reg [31:0] per_wdata_reg, per_wdata_next;
reg [3:0]  per_wstrb_reg, per_wstrb_next;

reg [31:2] mepc_reg, mepc_next;
reg [4:0]  mcause_reg, mcause_next;
reg [31:0] mtval_reg, mtval_next;
reg [31:0] mscratch_reg, mscratch_next;
reg [63:0] cycle_reg;
reg [63:0] instret_reg;

reg        host_rvalid_reg;
reg        host_sel_reg;
reg        host_hit_reg;

// register file: x1..x31 (x0 is never written and reads as 0)
reg [31:0] rf [0:31];
reg [31:0] rs1_data_reg;
reg [31:0] rs2_data_reg;

// ---------------------------------------------------------------- memories

wire [31:0] imem_a_rdata;
wire [31:0] imem_b_rdata;
wire [31:0] dmem_a_rdata;
wire [31:0] dmem_b_rdata;

reg         imem_a_en;
reg  [IMEM_AW-1:0] imem_a_addr;
reg         dmem_a_en;
reg  [3:0]  dmem_a_we;

wire host_imem_hit = !host_sel && ({1'b0, host_addr} < IMEM_WORDS_H);
wire host_dmem_hit =  host_sel && ({1'b0, host_addr} < DMEM_WORDS_H);

// ---------------------------------------------------------------- decode

wire [6:0]  opcode   = ir_reg[6:0];
wire [4:0]  rd       = ir_reg[11:7];
wire [2:0]  funct3   = ir_reg[14:12];
wire [4:0]  rs1      = ir_reg[19:15];
wire [4:0]  rs2      = ir_reg[24:20];
wire [6:0]  funct7   = ir_reg[31:25];
wire [11:0] csr_addr = ir_reg[31:20];

wire is_lui    = opcode == OP_LUI;
wire is_auipc  = opcode == OP_AUIPC;
wire is_jal    = opcode == OP_JAL;
wire is_jalr   = opcode == OP_JALR;
wire is_branch = opcode == OP_BRANCH;
wire is_load   = opcode == OP_LOAD;
wire is_store  = opcode == OP_STORE;
wire is_opimm  = opcode == OP_IMM;
wire is_op     = opcode == OP_OP;
wire is_system = opcode == OP_SYSTEM;
wire is_ecall  = ir_reg == INSN_ECALL;
wire is_ebreak = ir_reg == INSN_EBREAK;
wire is_wfi    = ir_reg == INSN_WFI;
wire is_csr    = is_system && funct3[1:0] != 2'b00;   // funct3 001 010 011 101 110 111

wire [31:0] imm_i = {{20{ir_reg[31]}}, ir_reg[31:20]};
wire [31:0] imm_s = {{20{ir_reg[31]}}, ir_reg[31:25], ir_reg[11:7]};
wire [31:0] imm_b = {{19{ir_reg[31]}}, ir_reg[31], ir_reg[7], ir_reg[30:25], ir_reg[11:8], 1'b0};
wire [31:0] imm_u = {ir_reg[31:12], 12'b0};
wire [31:0] imm_j = {{11{ir_reg[31]}}, ir_reg[31], ir_reg[19:12], ir_reg[20], ir_reg[30:21], 1'b0};

wire [31:0] pc_cur  = {pc_reg, 2'b00};
wire [31:2] pc_plus4 = pc_reg + 30'd1;

// x0 reads as 0 whatever the RAM word 0 holds
wire [31:0] rs1_val = (rs1 == 5'd0) ? 32'd0 : rs1_data_reg;
wire [31:0] rs2_val = (rs2 == 5'd0) ? 32'd0 : rs2_data_reg;

// ---------------------------------------------------------------- ALU

// One adder serves ADD/SUB, the comparisons (SLT*, branches) and the
// load/store/JALR address: a + b, or a - b as a + ~b + 1.
wire [31:0] alu_b = (is_op || is_branch) ? rs2_val : (is_store ? imm_s : imm_i);
wire alu_sub = is_branch
            || ((is_op || is_opimm) && funct3[2:1] == 2'b01)
            || (is_op && funct3 == 3'b000 && funct7[5]);
wire [32:0] alu_sum = {1'b0, rs1_val} + {1'b0, alu_b ^ {32{alu_sub}}} + {32'd0, alu_sub};
wire alu_eq  = alu_sum[31:0] == 32'd0;
wire alu_ltu = !alu_sum[32];
wire alu_lt  = (rs1_val[31] != alu_b[31]) ? rs1_val[31] : alu_sum[31];

// One right shifter serves all shifts: a left shift is a right shift of the
// bit-reversed operand, reversed back.
wire        sh_left  = funct3 == 3'b001;
wire        sh_arith = funct7[5] && !sh_left;
wire [31:0] sh_in    = sh_left ? bitrev32(rs1_val) : rs1_val;
/* verilator lint_off UNUSEDSIGNAL */  // bit 32 is only the fill bit
wire [32:0] sh_wide  = $signed({sh_arith && sh_in[31], sh_in}) >>> alu_b[4:0];
/* verilator lint_on UNUSEDSIGNAL */
wire [31:0] sh_res   = sh_left ? bitrev32(sh_wide[31:0]) : sh_wide[31:0];

reg [31:0] alu_res;
always @* begin
    case (funct3)
        3'b000:  alu_res = alu_sum[31:0];
        3'b010:  alu_res = {31'd0, alu_lt};
        3'b011:  alu_res = {31'd0, alu_ltu};
        3'b100:  alu_res = rs1_val ^ alu_b;
        3'b110:  alu_res = rs1_val | alu_b;
        3'b111:  alu_res = rs1_val & alu_b;
        default: alu_res = sh_res;    // 001, 101
    endcase
end

// ---------------------------------------------------------------- control flow

wire [31:0] pc_imm = is_branch ? imm_b : (is_jal ? imm_j : imm_u);
wire [31:0] pc_rel = pc_cur + pc_imm;                      // branch/JAL target, AUIPC
wire [31:0] jump_target = is_jalr ? {alu_sum[31:1], 1'b0} : pc_rel;
wire branch_taken = (funct3[2] ? (funct3[1] ? alu_ltu : alu_lt) : alu_eq) ^ funct3[0];
wire jump_taken = is_jal || is_jalr || (is_branch && branch_taken);
wire jump_misaligned = jump_taken && jump_target[1];

// ---------------------------------------------------------------- loads and stores

wire [31:0] ls_addr = alu_sum[31:0];
wire ls_misaligned = (funct3[1:0] == 2'b01 && ls_addr[0])
                  || (funct3[1:0] == 2'b10 && ls_addr[1:0] != 2'b00);
wire ls_imem = ls_addr < IMEM_END;
wire ls_dmem = ls_addr >= DMEM_BASE && ls_addr < DMEM_END;
wire ls_per  = ls_addr[31:16] == 16'h2000;

reg [31:0] st_data;
reg [3:0]  st_strb;
always @* begin
    case (funct3[1:0])
        2'b00: begin
            st_data = {4{rs2_val[7:0]}};
            st_strb = 4'b0001 << ls_addr[1:0];
        end
        2'b01: begin
            st_data = {2{rs2_val[15:0]}};
            st_strb = ls_addr[1] ? 4'b1100 : 4'b0011;
        end
        default: begin
            st_data = rs2_val;
            st_strb = 4'b1111;
        end
    endcase
end

wire [31:0] ld_word  = (state_reg == S_PER) ? per_rdata : (ld_imem_reg ? imem_a_rdata : dmem_a_rdata);
wire [15:0] ld_half  = ls_addr[1] ? ld_word[31:16] : ld_word[15:0];
wire [7:0]  ld_byte  = ls_addr[0] ? ld_half[15:8] : ld_half[7:0];
reg  [31:0] ld_data;
always @* begin
    case (funct3[1:0])
        2'b00:   ld_data = {{24{!funct3[2] && ld_byte[7]}}, ld_byte};
        2'b01:   ld_data = {{16{!funct3[2] && ld_half[15]}}, ld_half};
        default: ld_data = ld_word;
    endcase
end

// ---------------------------------------------------------------- CSRs

// CSRRS/CSRRC (and the I forms) with rs1/uimm 0 only read.
wire        csr_write = funct3[1:0] == 2'b01 || rs1 != 5'd0;
wire [31:0] csr_src   = funct3[2] ? {27'd0, rs1} : rs1_val;
reg         csr_known;
reg  [31:0] csr_rdata;
always @* begin
    csr_known = 1'b1;
    case (csr_addr)
        CSR_MSTATUS:  csr_rdata = 32'h0000_1800;
        CSR_MISA:     csr_rdata = 32'h4000_0100;
        CSR_MSCRATCH: csr_rdata = mscratch_reg;
        CSR_MEPC:     csr_rdata = {mepc_reg, 2'b00};
        CSR_MCAUSE:   csr_rdata = {27'd0, mcause_reg};
        CSR_MTVAL:    csr_rdata = mtval_reg;
        CSR_CYCLE:    csr_rdata = cycle_reg[31:0];
        CSR_CYCLEH:   csr_rdata = cycle_reg[63:32];
        CSR_INSTRET:  csr_rdata = instret_reg[31:0];
        CSR_INSTRETH: csr_rdata = instret_reg[63:32];
        CSR_MHARTID:  csr_rdata = 32'd0;
        default: begin
            csr_known = 1'b0;
            csr_rdata = 32'd0;
        end
    endcase
end
reg [31:0] csr_wdata;
always @* begin
    case (funct3[1:0])
        2'b01:   csr_wdata = csr_src;
        2'b10:   csr_wdata = csr_rdata | csr_src;
        default: csr_wdata = csr_rdata & ~csr_src;
    endcase
end
// addresses 0xC.. and 0xF.. are read-only by the privileged spec
wire csr_ok = csr_known && !(csr_addr[11:10] == 2'b11 && csr_write);

// ---------------------------------------------------------------- legality

reg legal;
always @* begin
    case (opcode)
        OP_LUI, OP_AUIPC, OP_JAL: legal = 1'b1;
        OP_JALR:   legal = funct3 == 3'b000;
        OP_BRANCH: legal = funct3[2:1] != 2'b01;
        OP_LOAD:   legal = funct3[1:0] != 2'b11 && funct3 != 3'b110;
        OP_STORE:  legal = !funct3[2] && funct3[1:0] != 2'b11;
        OP_IMM:    legal = (funct3 == 3'b001) ? funct7 == 7'b0000000
                         : (funct3 == 3'b101) ? (funct7 == 7'b0000000 || funct7 == 7'b0100000)
                         : 1'b1;
        OP_OP:     legal = funct7 == 7'b0000000
                         || (funct7 == 7'b0100000 && (funct3 == 3'b000 || funct3 == 3'b101));
        OP_FENCE:  legal = funct3 == 3'b000;  // FENCE, FENCE.TSO; not FENCE.I
        OP_SYSTEM: legal = is_ecall || is_ebreak || is_wfi || (is_csr && csr_ok);
        default:   legal = 1'b0;
    endcase
end

// ---------------------------------------------------------------- traps

wire fetch_ok = pc_cur < IMEM_END;

reg        exec_trap;
reg [4:0]  exec_cause;
reg [31:0] exec_tval;
always @* begin
    exec_trap  = 1'b1;
    exec_cause = CAUSE_ILLEGAL;
    exec_tval  = 32'd0;
    if (!fetch_ok) begin
        exec_cause = CAUSE_FETCH_FAULT;
        exec_tval  = pc_cur;
    end else if (!legal) begin
        exec_cause = CAUSE_ILLEGAL;
        exec_tval  = ir_reg;
    end else if (is_ecall) begin
        exec_cause = CAUSE_ECALL_M;
    end else if (is_ebreak) begin
        exec_cause = CAUSE_BREAKPOINT;
        exec_tval  = pc_cur;
    end else if (jump_misaligned) begin
        exec_cause = CAUSE_FETCH_MISALIGNED;
        exec_tval  = jump_target;
    end else if (is_load && ls_misaligned) begin
        exec_cause = CAUSE_LOAD_MISALIGNED;
        exec_tval  = ls_addr;
    end else if (is_store && ls_misaligned) begin
        exec_cause = CAUSE_STORE_MISALIGNED;
        exec_tval  = ls_addr;
    end else if (is_load && !(ls_imem || ls_dmem || ls_per)) begin
        exec_cause = CAUSE_LOAD_FAULT;
        exec_tval  = ls_addr;
    end else if (is_store && !(ls_dmem || ls_per)) begin
        exec_cause = CAUSE_STORE_FAULT;
        exec_tval  = ls_addr;
    end else begin
        exec_trap  = 1'b0;
    end
end

// ---------------------------------------------------------------- execute

wire in_exec   = state_reg == S_EXEC;
wire exec_go   = in_exec && !exec_trap;
wire wfi_wait  = exec_go && is_wfi && !irq_wake;
wire exec_mem  = exec_go && is_load && (ls_imem || ls_dmem);
wire exec_per  = exec_go && (is_load || is_store) && ls_per;
wire exec_done = exec_go && !wfi_wait && !exec_mem && !exec_per;
wire per_done  = state_reg == S_PER && per_ready;
wire per_trap  = per_done && per_err;
wire retire    = exec_done || state_reg == S_LOAD || (per_done && !per_err);

wire exec_writes_rd = is_lui || is_auipc || is_jal || is_jalr || is_op || is_opimm || is_csr;

reg [31:0] exec_result;
always @* begin
    if (is_lui) begin
        exec_result = imm_u;
    end else if (is_auipc) begin
        exec_result = pc_rel;
    end else if (is_jal || is_jalr) begin
        exec_result = {pc_plus4, 2'b00};
    end else if (is_csr) begin
        exec_result = csr_rdata;
    end else begin
        exec_result = alu_res;
    end
end

wire        rf_we = rd != 5'd0
                 && ((exec_done && exec_writes_rd)
                  || state_reg == S_LOAD
                  || (per_done && !per_err && !per_we_reg));
wire [31:0] rf_wdata = in_exec ? exec_result : ld_data;

always @(posedge clk) begin
    if (rf_we) begin
        rf[rd] <= rf_wdata;
    end
end

always @(posedge clk) begin
    if (state_reg == S_DECODE) begin
        rs1_data_reg <= rf[imem_a_rdata[19:15]];
        rs2_data_reg <= rf[imem_a_rdata[24:20]];
    end
end

// ---------------------------------------------------------------- next state

always @* begin
    state_next     = state_reg;
    pc_next        = pc_reg;
    ir_next        = ir_reg;
    ld_imem_next   = ld_imem_reg;
    per_valid_next = per_valid_reg && !per_ready;
    per_we_next    = per_we_reg;
    per_addr_next  = per_addr_reg;
    per_wdata_next = per_wdata_reg;
    per_wstrb_next = per_wstrb_reg;
    mepc_next      = mepc_reg;
    mcause_next    = mcause_reg;
    mtval_next     = mtval_reg;
    mscratch_next  = mscratch_reg;

    // instruction memory port A: the next fetch, or a load
    imem_a_en        = 1'b0;
    imem_a_addr      = pc_plus4[IMEM_AW+1:2];
    dmem_a_en        = 1'b0;
    dmem_a_we        = 4'b0000;

    case (state_reg)
        S_FETCH: begin
            imem_a_en        = 1'b1;
            imem_a_addr      = pc_reg[IMEM_AW+1:2];
            state_next       = S_DECODE;
        end
        S_DECODE: begin
            ir_next    = imem_a_rdata;
            state_next = S_EXEC;
        end
        S_EXEC: begin
            if (exec_trap) begin
                mepc_next   = pc_reg;
                mcause_next = exec_cause;
                mtval_next  = exec_tval;
                state_next  = S_HALT;
            end else if (wfi_wait) begin
                state_next = S_EXEC;
            end else if (exec_mem) begin
                ld_imem_next = ls_imem;
                imem_a_en        = ls_imem;
                imem_a_addr      = ls_addr[IMEM_AW+1:2];
                dmem_a_en        = !ls_imem;
                state_next       = S_LOAD;
            end else if (exec_per) begin
                per_valid_next = 1'b1;
                per_we_next    = is_store;
                per_addr_next  = ls_addr[15:2];
                per_wdata_next = st_data;
                per_wstrb_next = is_store ? st_strb : 4'b0000;
                state_next     = S_PER;
            end else begin
                if (is_store) begin
                    dmem_a_en = 1'b1;
                    dmem_a_we = st_strb;
                end
                if (is_csr && csr_write) begin
                    case (csr_addr)
                        CSR_MSCRATCH: mscratch_next = csr_wdata;
                        CSR_MEPC:     mepc_next     = csr_wdata[31:2];
                        CSR_MCAUSE:   mcause_next   = csr_wdata[4:0];
                        CSR_MTVAL:    mtval_next    = csr_wdata;
                        default: ;   // read-only or WARL constant
                    endcase
                end
                pc_next          = jump_taken ? jump_target[31:2] : pc_plus4;
                imem_a_en        = 1'b1;
                imem_a_addr      = jump_taken ? jump_target[IMEM_AW+1:2] : pc_plus4[IMEM_AW+1:2];
                state_next       = S_DECODE;
            end
        end
        S_LOAD: begin
            pc_next    = pc_plus4;
            imem_a_en  = 1'b1;
            state_next = S_DECODE;
        end
        S_PER: begin
            if (per_trap) begin
                mepc_next   = pc_reg;
                mcause_next = per_we_reg ? CAUSE_STORE_FAULT : CAUSE_LOAD_FAULT;
                mtval_next  = ls_addr;
                state_next  = S_HALT;
            end else if (per_done) begin
                pc_next    = pc_plus4;
                imem_a_en  = 1'b1;
                state_next = S_DECODE;
            end
        end
        default: begin   // S_HALT
            state_next = S_HALT;
        end
    endcase
end

always @(posedge clk) begin
    if (rst) begin
        state_reg     <= S_FETCH;
        pc_reg        <= 30'd0;
        per_valid_reg <= 1'b0;
        mepc_reg      <= 30'd0;
        mcause_reg    <= 5'd0;
        mtval_reg     <= 32'd0;
        mscratch_reg  <= 32'd0;
        cycle_reg     <= 64'd0;
        instret_reg   <= 64'd0;
    end else begin
        state_reg     <= state_next;
        pc_reg        <= pc_next;
        per_valid_reg <= per_valid_next;
        mepc_reg      <= mepc_next;
        mcause_reg    <= mcause_next;
        mtval_reg     <= mtval_next;
        mscratch_reg  <= mscratch_next;
        cycle_reg     <= cycle_reg + 64'd1;
        instret_reg   <= instret_reg + {63'd0, retire};
    end
    // datapath registers without reset
    ir_reg        <= ir_next;
    ld_imem_reg   <= ld_imem_next;
    per_we_reg    <= per_we_next;
    per_addr_reg  <= per_addr_next;
    per_wdata_reg <= per_wdata_next;
    per_wstrb_reg <= per_wstrb_next;
end

// ---------------------------------------------------------------- memories

// The host port works whatever rst is, so its flops have no reset: they
// follow host_en every cycle.
always @(posedge clk) begin
    host_rvalid_reg <= host_en && !host_we;
    host_sel_reg    <= host_sel;
    host_hit_reg    <= host_imem_hit || host_dmem_hit;
end

assign host_rvalid = host_rvalid_reg;
assign host_rdata  = !host_hit_reg ? 32'd0 : (host_sel_reg ? dmem_b_rdata : imem_b_rdata);

via_cpu_ram #(
    .WORDS(IMEM_WORDS),
    .AW(IMEM_AW)
) imem (
    .clk(clk),
    .a_en(imem_a_en),
    .a_we(4'b0000),
    .a_addr(imem_a_addr),
    .a_wdata(32'd0),
    .a_rdata(imem_a_rdata),
    .b_en(host_en && host_imem_hit),
    .b_we(host_we),
    .b_addr(host_addr[IMEM_AW-1:0]),
    .b_wdata(host_wdata),
    .b_rdata(imem_b_rdata)
);

via_cpu_ram #(
    .WORDS(DMEM_WORDS),
    .AW(DMEM_AW)
) dmem (
    .clk(clk),
    .a_en(dmem_a_en),
    .a_we(dmem_a_we),
    .a_addr(ls_addr[DMEM_AW+1:2]),
    .a_wdata(st_data),
    .a_rdata(dmem_a_rdata),
    .b_en(host_en && host_dmem_hit),
    .b_we(host_we),
    .b_addr(host_addr[DMEM_AW-1:0]),
    .b_wdata(host_wdata),
    .b_rdata(dmem_b_rdata)
);

// ---------------------------------------------------------------- outputs

assign per_valid  = per_valid_reg;
assign per_we     = per_we_reg;
assign per_addr   = {per_addr_reg, 2'b00};
assign per_wdata  = per_wdata_reg;
assign per_wstrb  = per_wstrb_reg;

assign halted     = state_reg == S_HALT;
assign fault      = state_reg == S_HALT;
assign wfi        = in_exec && !exec_trap && is_wfi;
assign trap_cause = mcause_reg;
assign trap_pc    = {mepc_reg, 2'b00};
assign trap_val   = mtval_reg;
assign pc         = pc_cur;
assign retired    = instret_reg;

endmodule

`default_nettype wire
