// Package vipl is the VI Provider Library of vianic: the VIA user agent, in
// idiomatic Go. An application opens a NIC, creates protection tags,
// allocates and registers memory, builds descriptors in it, creates
// virtual interfaces (VIs), posts descriptors on their send and receive
// queues by ringing doorbells from user level, and reaps completions by
// polling or waiting, without the kernel agent on the data path. The calls follow
// the VIPL API of the Virtual Interface Architecture specification 1.0:
//
//	VipOpenNic          OpenNic (or NewNic over a KernelAgent)
//	VipCloseNic         Nic.Close
//	VipQueryNic         Nic.Query
//	VipCreatePtag       Nic.CreatePtag
//	VipDestroyPtag      Nic.DestroyPtag
//	VipRegisterMem      Nic.RegisterMem (memory from Nic.Alloc)
//	VipDeregisterMem    Nic.DeregisterMem
//	VipQueryMem         Nic.QueryMem
//	VipSetMemAttributes Nic.SetMemAttributes
//	VipCreateVi         Nic.CreateVi (no completion queues yet)
//	VipDestroyVi        Vi.Destroy
//	VipQueryVi          Vi.Query
//	VipSetViAttributes  Vi.SetAttributes
//	VIP_DESCRIPTOR      Descriptor (what it says), Desc (one in registered memory: Nic.NewDesc)
//	VipPostSend         Vi.PostSend
//	VipPostRecv         Vi.PostRecv
//	VipSendDone         Vi.SendDone
//	VipRecvDone         Vi.RecvDone
//	VipSendWait         Vi.SendWait (timeout in simulated milliseconds, Infinite)
//	VipRecvWait         Vi.RecvWait
//	VipConnectWait      Nic.ConnectWait (a ConnRequest: Reject, or Vi.ConnectAccept)
//	VipConnectRequest   Vi.ConnectRequest
//	VipConnectPeerRequest, VipConnectPeerDone, VipConnectPeerWait
//	                    Vi.ConnectPeerRequest, Vi.ConnectPeerDone, Vi.ConnectPeerWait
//	VipDisconnect       Vi.Disconnect
//	(not VIPL)          Vi.ConnectLoopback: two VIs of one NIC; Vi.ConnectRemote:
//	                    a VI of another node without a handshake (bring-up, tests)
//
// Every call takes a context and returns an error that maps one to one to
// a VIP_* return code: Code(err) is the code, and errors.Is(err,
// ErrInvalidPtag) (one sentinel per code) tests for one. A descriptor's
// status word is a Status, whose String names its bits
// ("DONE|LOCAL_LENGTH_ERROR|op=RECEIVE|IMMEDIATE"). Layouts, codes and bit
// names come from the generated definitions (rtl/layouts/desc.layout and
// vip.layout); docs/vipl.md is the user's guide.
//
// Layer: vipl sits on the driver (the kernel agent) and reaches it only
// through the KernelAgent interface: plain data in and out, in-process for
// now (LocalAgent over a driver session), so that the agent can later move
// into a process of its own without changing this package's API. It
// imports driver, driver/simbus (OpenNic's connection to the simulator)
// and internal/hw, never the bridge client (cosim) itself.
//
// In lockstep mode (time passes only while the process waits) SendDone and
// RecvDone let Options.PollInterval cycles pass when they find nothing, so
// that polling loops progress the same way every run; SendWait and
// RecvWait block on the NIC's completion interrupt, whose wake-ups the
// kernel agent shares out (KernelAgent.Events).
//
// What comes next: completion queues, RDMA, connection management and the
// name service.
package vipl
