#!/usr/bin/env python3
"""Writes the loginoff dump (a real 144-HCA fabric) in the other forms InfiniBand tools print it in.

loginoff_infiniband_topology_ports.txt.gz: the fabric as
`ibnetdiscover --ports` prints the same fabric (infiniband-diags ibnetdiscover.c, dump_ports_report):
one line per port, "%2s %5d %2d 0x%016x %s %s" (node type CA/SW, LID (a switch's: its port 0 LID),
port, port GUID, width, speed) then " - " and the same four fields of the peer and
" ( 'description' - 'peer description' )". A switch's ports share its port GUID; a CA port has its own
(the "(portguid)" of the topology format).

loginoff_infiniband_topology_iblinkinfo.txt.gz and ..._iblinkinfo_line.txt.gz: the fabric as
`iblinkinfo` and `iblinkinfo --line` print it (infiniband-diags iblinkinfo.c): a "CA: name:" or
"Switch: 0x<guid> name:" header, then one line per port, "<lid> <port>[  ] ==( 4X 10.0 Gbps Active/
LinkUp)==> <peer lid> <peer port>[  ] "peer name" ( )" (a CA port line starts with its port GUID; a
switch lists all its ports, "Down/ Polling" for the unconnected ones); --line puts the node's GUID and
name before each port and the peer's GUID before its LID. Lane rates: QDR 10.0, FDR10 "10.0 Gbps
(FDR10)".

Run: python3 generate_ports_report.py"""
import gzip, re

src = gzip.open("loginoff_infiniband_topology_topo.ibnetdiscover.txt.gz", "rt").read().splitlines()
nodes = {}   # node guid -> {type, desc, lid, ports: {port: (portguid, peer node guid, peer port, width, speed)}}
order = []
cur = None
for line in src:
    m = re.match(r'(Switch|Ca)\s+(\d+)\s+"([SH])-([0-9a-f]+)"\s+#\s+"([^"]*)"(.*)', line)
    if m:
        cur = m.group(4)
        lid = re.search(r'lid (\d+)', m.group(6))
        nodes[cur] = {"type": "SW" if m.group(1) == "Switch" else "CA", "desc": m.group(5),
                      "lid": int(lid.group(1)) if lid else 0, "ports": {}}
        order.append(cur)
        continue
    m = re.match(r'\[(\d+)\](?:\(([0-9a-f]+)\))?\s+"([SH])-([0-9a-f]+)"\[(\d+)\](?:\(([0-9a-f]+)\))?\s+#(.*)', line)
    if m and cur:
        comment = m.group(7)
        ws = re.search(r'(\d+)x(\w+)\s*$', comment)
        lid = re.search(r'lid (\d+) lmc', comment)
        if lid:  # a CA port's own LID (a switch answers on its port 0 LID, in its header)
            nodes[cur].setdefault("port_lids", {})[int(m.group(1))] = int(lid.group(1))
            nodes[cur]["lid"] = int(lid.group(1))
        nodes[cur]["ports"][int(m.group(1))] = (m.group(2) or cur, m.group(4), int(m.group(5)), m.group(6),
                                                ws.group(1) + "x" if ws else "??", ws.group(2) if ws else "???")

def port_lid(node, port):
    """The LID a port answers on: a switch's port 0 LID, a CA port's own."""
    n = nodes[node]
    return n.get("port_lids", {}).get(port, n["lid"])


def port_guid(node, port):
    """A switch's ports share its port GUID (its node GUID in this dump); a CA port has its own."""
    n = nodes[node]
    return node if n["type"] == "SW" else n["ports"][port][0]

out = []
for g in order:
    n = nodes[g]
    for p in sorted(n["ports"], reverse=True):  # dump_ports_report walks the ports from the highest
        pg, peer, pp, _, width, speed = n["ports"][p]
        q = nodes[peer]
        out.append("%2s %5d %2d 0x%016x %s %s - %2s %5d %2d 0x%016x ( '%s' - '%s' )" % (
            n["type"], port_lid(g, p), p, int(port_guid(g, p), 16), width, speed,
            q["type"], port_lid(peer, pp), pp, int(port_guid(peer, pp), 16), n["desc"], q["desc"]))
with gzip.GzipFile("loginoff_infiniband_topology_ports.txt.gz", "wb", mtime=0) as f:
    f.write(("\n".join(out) + "\n").encode())

# iblinkinfo: per-lane rate as it prints it.
RATE = {"SDR": "2.5", "DDR": "5.0", "QDR": "10.0", "FDR10": "10.0", "FDR": "14.0625", "EDR": "25.78125",
        "HDR": "53.125", "NDR": "106.25"}
SWITCH_PORTS = 36

def state(width, speed):
    tail = " (FDR10)" if speed == "FDR10" else ""
    return "==( %3s %13s Gbps%s Active/  LinkUp)==>" % (width.upper(), RATE[speed], tail)

default, line = [], []
for g in order:
    n = nodes[g]
    if n["type"] == "SW":
        default.append("Switch: 0x%s %s:" % (g, n["desc"]))
        ports = range(1, SWITCH_PORTS + 1)
    else:
        default.append("CA: %s:" % n["desc"])
        ports = sorted(n["ports"])
    for p in ports:
        me = "0x%016x" % int(port_guid(g, p) if p in n["ports"] else g, 16)
        lead = ("      %s %6d %4d[  ] " % (me, port_lid(g, p), p)) if n["type"] == "CA" else (
            "           %d %4d[  ] " % (n["lid"], p))
        if p not in n["ports"]:
            default.append(lead + '==(                Down/ Polling)==>             [  ] "" ( )')
            line.append('%s "%30s" %6d %4d[  ] ==(                Down/ Polling)==>  %18s %6s %4s[  ] "" ( )' % (
                me, n["desc"], n["lid"], p, "", "", ""))
            continue
        pg, peer, pp, _, width, speed = n["ports"][p]
        q = nodes[peer]
        default.append(lead + '%s %7d %4d[  ] "%s" ( )' % (state(width, speed), port_lid(peer, pp), pp, q["desc"]))
        line.append('%s "%30s" %6d %4d[  ] %s  0x%016x %6d %4d[  ] "%s" ( )' % (
            me, n["desc"], port_lid(g, p), p, state(width, speed), int(port_guid(peer, pp), 16), port_lid(peer, pp), pp,
            q["desc"]))
for name, lines in (("loginoff_infiniband_topology_iblinkinfo.txt.gz", default),
                    ("loginoff_infiniband_topology_iblinkinfo_line.txt.gz", line)):
    with gzip.GzipFile(name, "wb", mtime=0) as f:
        f.write(("\n".join(lines) + "\n").encode())
