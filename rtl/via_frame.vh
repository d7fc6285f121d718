// via_frame.vh: the internal frame format of the vianic data path (issue 9),
// hand-written (a later issue moves it into a layout file).
//
// Engine TX -> network loopback FIFO -> engine RX. AXI-Stream, DATA_WIDTH
// bits, tdata/tkeep/tlast, little endian. A frame is:
//   1. HEADER: FRAME_HDR_BYTES (16) bytes: bytes 0..1 dst_vi (u16), 2..3
//      src_vi (u16), 4..7 length (u32, message bytes), 8..11 immediate (u32),
//      12 flags (bit 0: immediate present), 13 op (0 = send, 1 = RDMA
//      write, 2 = RDMA read request, 3 = RDMA read response), 14 peer node (u8: from the send engine, the node the frame
//      goes to; from the network, the node it came from), 15 zero.
//      DATA_WIDTH 64: 2 beats; wider: one beat with bytes 0..15 in lanes
//      0..15, the other lanes 0. Header beats: tkeep all ones, tlast 0.
//   1a. RDMA EXTENSION (ops 1, 2 and 3): FRAME_EXT_BYTES (16) bytes
//      from the next beat boundary: bytes 0..7 remote VA (u64: the target
//      address of the message's first byte), 8..11 remote memory handle
//      (u32), 12..15 TAG (u32: 0 in an RDMA write; an RDMA read's tag,
//      which its response carries back). DATA_WIDTH 64: 2 beats; wider:
//      one beat with bytes 0..15 in lanes 0..15, the other lanes 0. tkeep
//      all ones, tlast 0. `length` counts the payload only.
//      RDMA read request (op 2): length 0 (no payload), immediate = the
//      read's length in bytes, flags bit 0 set; the extension names the
//      range to read at the target. RDMA read response (op 3): length =
//      the read's length, immediate 0, flags 0, extension VA and handle 0
//      and the request's TAG; the payload is the range's bytes; a nonzero
//      trailer status is the error the initiator's descriptor completes
//      with (RDMA_PROTECTION_ERROR: the target refused the range).
//   2. PAYLOAD: the message bytes packed from lane 0 of the first payload
//      beat, ceil(n/BYTES) beats; the last one's tkeep has the low n%BYTES
//      lanes set (all if 0); tlast 0. Zero-length message: no payload beat.
//   3. TRAILER: one beat, tlast 1, tkeep all ones; bytes 0..3 = status
//      (u32): 0 = whole; nonzero = aborted by the sender (the value is the
//      sender's Status error bits), the payload is cut short or void.
// The receiver takes a frame as good only if the trailer says 0 AND exactly
// `length` payload bytes came.
//
// Byte offsets (FRAME_*_OFF) and sizes in bytes; bit ranges of a 128-bit
// header (FRAME_HDR_*_RANGE) for code that assembles it as one vector.

`ifndef VIA_FRAME_VH
`define VIA_FRAME_VH

`define VIA_FRAME_HDR_BYTES      16

`define VIA_FRAME_DST_VI_OFF     0
`define VIA_FRAME_DST_VI_SIZE    2
`define VIA_FRAME_SRC_VI_OFF     2
`define VIA_FRAME_SRC_VI_SIZE    2
`define VIA_FRAME_LENGTH_OFF     4
`define VIA_FRAME_LENGTH_SIZE    4
`define VIA_FRAME_IMM_OFF        8
`define VIA_FRAME_IMM_SIZE       4
`define VIA_FRAME_FLAGS_OFF      12
`define VIA_FRAME_FLAGS_SIZE     1
`define VIA_FRAME_OP_OFF         13
`define VIA_FRAME_OP_SIZE        1
`define VIA_FRAME_PEER_NODE_OFF  14
`define VIA_FRAME_PEER_NODE_SIZE 1
`define VIA_FRAME_PAD_OFF        15
`define VIA_FRAME_PAD_SIZE       1

// bit ranges inside the 128-bit header (byte offset * 8)
`define VIA_FRAME_HDR_DST_VI_RANGE  15:0
`define VIA_FRAME_HDR_SRC_VI_RANGE  31:16
`define VIA_FRAME_HDR_LENGTH_RANGE  63:32
`define VIA_FRAME_HDR_IMM_RANGE     95:64
`define VIA_FRAME_HDR_FLAGS_RANGE   103:96
`define VIA_FRAME_HDR_OP_RANGE      111:104
`define VIA_FRAME_HDR_PEER_NODE_RANGE 119:112
`define VIA_FRAME_HDR_PAD_RANGE     127:120

// flags byte
`define VIA_FRAME_FLAG_IMM_BIT   0       // immediate present

// op byte
`define VIA_FRAME_OP_SEND        8'd0
`define VIA_FRAME_OP_RDMA_WRITE  8'd1
`define VIA_FRAME_OP_READ_REQ    8'd2
`define VIA_FRAME_OP_READ_RESP   8'd3

// RDMA extension (after the header of an RDMA write)
`define VIA_FRAME_EXT_BYTES      16
`define VIA_FRAME_EXT_VA_RANGE      63:0
`define VIA_FRAME_EXT_HANDLE_RANGE  95:64
`define VIA_FRAME_EXT_TAG_RANGE     127:96

// trailer: bytes 0..3 of the trailer beat
`define VIA_FRAME_TRL_STATUS_OFF   0
`define VIA_FRAME_TRL_STATUS_SIZE  4
`define VIA_FRAME_TRL_STATUS_RANGE 31:0
`define VIA_FRAME_TRL_WHOLE      32'd0   // trailer status: message whole

`endif // VIA_FRAME_VH
