package vipl

import "github.com/vianic/vianic/driver"

// AgentSession and AgentNIC reach the driver session and NIC behind a Nic
// of OpenNic, for the grant tests (which open a second session on the same
// NIC and check the session's token and grants).
func AgentSession(n *Nic) *driver.Session { return n.agent.(*LocalAgent).s }
func AgentNIC(n *Nic) *driver.NIC         { return n.agent.(*LocalAgent).nic }
