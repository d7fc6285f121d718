// Package vipl is the VI Provider Library of vianic: the VIA user agent, in
// idiomatic Go. An application opens a NIC, creates protection tags,
// registers memory, creates virtual interfaces (VIs), posts descriptors on
// their send and receive queues by ringing doorbells from user level, and
// reaps completions, without the kernel agent on the data path. The calls
// follow the VIPL API of the Virtual Interface Architecture specification
// 1.0 (VipOpenNic, VipCreateVi, VipPostSend, ...), and every error maps one
// to one to a VIP_* return code.
//
// Layer: vipl sits on the driver (the kernel agent) and reaches it through
// one narrow kernel-agent interface, in-process for now, so that the agent
// can later move into a process of its own without changing this package's
// API. It imports driver and internal/hw (the generated layouts) and never
// the bridge client (cosim): doorbells and host memory reach it through the
// interfaces the driver hands out.
//
// This package is being built: today it holds only this description; the
// calls arrive with the virtual-interface data path.
package vipl
