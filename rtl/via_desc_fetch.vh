// via_desc_fetch.vh: the constants of the descriptor fetch units
// (rtl/via_desc_fetch.v and its pipelined form rtl/via_desc_pipe.v), from
// the generated layouts: result kinds, checks, status bits, the operation
// and TPT kind values, AXI4 attributes. Included inside the module body
// (after `include "via_desc.vh" and "via_bar0.vh").

// result kinds (desc.layout enum FETCH_RESULT)
localparam [31:0] RES_DESC_32 = `VIA_DESC_FETCH_RESULT_DESC;
localparam [31:0] RES_STATUS_32 = `VIA_DESC_FETCH_RESULT_STATUS;
localparam [31:0] RES_BUS_32 = `VIA_DESC_FETCH_RESULT_BUS;
localparam [1:0] RES_DESC = RES_DESC_32[1:0];
localparam [1:0] RES_STATUS = RES_STATUS_32[1:0];
localparam [1:0] RES_BUS = RES_BUS_32[1:0];

// the check that decided a result (desc.layout enum FETCH_CHECK)
localparam [31:0] CHK_OK_32 = `VIA_DESC_FETCH_CHECK_OK;
localparam [31:0] CHK_XLAT_CTL_32 = `VIA_DESC_FETCH_CHECK_XLAT_CTL;
localparam [31:0] CHK_XLAT_SEGS_32 = `VIA_DESC_FETCH_CHECK_XLAT_SEGS;
localparam [31:0] CHK_RESERVED_32 = `VIA_DESC_FETCH_CHECK_RESERVED;
localparam [31:0] CHK_OP_32 = `VIA_DESC_FETCH_CHECK_OP;
localparam [31:0] CHK_RDMA_EN_32 = `VIA_DESC_FETCH_CHECK_RDMA_EN;
localparam [31:0] CHK_NO_ADDR_SEG_32 = `VIA_DESC_FETCH_CHECK_NO_ADDR_SEG;
localparam [31:0] CHK_SEG_LIMIT_32 = `VIA_DESC_FETCH_CHECK_SEG_LIMIT;
localparam [31:0] CHK_ADDR_RESERVED_32 = `VIA_DESC_FETCH_CHECK_ADDR_RESERVED;
localparam [31:0] CHK_LEN_SUM_32 = `VIA_DESC_FETCH_CHECK_LEN_SUM;
localparam [31:0] CHK_LEN_MAX_32 = `VIA_DESC_FETCH_CHECK_LEN_MAX;
localparam [31:0] CHK_BUS_32 = `VIA_DESC_FETCH_CHECK_BUS;
localparam [3:0] CHK_OK = CHK_OK_32[3:0];
localparam [3:0] CHK_XLAT_CTL = CHK_XLAT_CTL_32[3:0];
localparam [3:0] CHK_XLAT_SEGS = CHK_XLAT_SEGS_32[3:0];
localparam [3:0] CHK_RESERVED = CHK_RESERVED_32[3:0];
localparam [3:0] CHK_OP = CHK_OP_32[3:0];
localparam [3:0] CHK_RDMA_EN = CHK_RDMA_EN_32[3:0];
localparam [3:0] CHK_NO_ADDR_SEG = CHK_NO_ADDR_SEG_32[3:0];
localparam [3:0] CHK_SEG_LIMIT = CHK_SEG_LIMIT_32[3:0];
localparam [3:0] CHK_ADDR_RESERVED = CHK_ADDR_RESERVED_32[3:0];
localparam [3:0] CHK_LEN_SUM = CHK_LEN_SUM_32[3:0];
localparam [3:0] CHK_LEN_MAX = CHK_LEN_MAX_32[3:0];
localparam [3:0] CHK_BUS = CHK_BUS_32[3:0];

// status bits (desc.layout CTL.STATUS)
localparam [31:0] ST_FORMAT     = 32'd1 << `VIA_DESC_CTL_STATUS_LOCAL_FORMAT_ERROR_LSB;
localparam [31:0] ST_PROTECTION = 32'd1 << `VIA_DESC_CTL_STATUS_LOCAL_PROTECTION_ERROR_LSB;
localparam [31:0] ST_LENGTH     = 32'd1 << `VIA_DESC_CTL_STATUS_LOCAL_LENGTH_ERROR_LSB;
localparam [31:0] ST_TRANSPORT  = 32'd1 << `VIA_DESC_CTL_STATUS_TRANSPORT_ERROR_LSB;

localparam [31:0] CONTROL_RESERVED32 = `VIA_DESC_CONTROL_RESERVED_MASK;
localparam [31:0] OP_SEND_RECV32  = `VIA_DESC_OP_SEND_RECV;
localparam [31:0] OP_RDMA_WRITE32 = `VIA_DESC_OP_RDMA_WRITE;
localparam [31:0] OP_RDMA_READ32  = `VIA_DESC_OP_RDMA_READ;
localparam [31:0] KIND_LOCAL_READ32 = `VIA_TPT_KIND_LOCAL_READ;
localparam [15:0] CONTROL_RESERVED = CONTROL_RESERVED32[15:0];
localparam [1:0]  OP_SEND_RECV  = OP_SEND_RECV32[1:0];
localparam [1:0]  OP_RDMA_WRITE = OP_RDMA_WRITE32[1:0];
localparam [1:0]  OP_RDMA_READ  = OP_RDMA_READ32[1:0];
localparam [1:0]  KIND_LOCAL_READ = KIND_LOCAL_READ32[1:0];

// AXI4 attributes (as via_dma_diag): normal non-cacheable bufferable, data,
// non-secure, unprivileged
localparam [3:0] AXI_CACHE = 4'b0011;
localparam [2:0] AXI_PROT = 3'b010;
