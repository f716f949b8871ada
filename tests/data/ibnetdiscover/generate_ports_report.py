#!/usr/bin/env python3
"""Writes loginoff_infiniband_topology_ports.txt.gz: the loginoff dump (a real 144-HCA fabric) as
`ibnetdiscover --ports` prints the same fabric (infiniband-diags ibnetdiscover.c, dump_ports_report):
one line per port, "%2s %5d %2d 0x%016x %s %s" (node type CA/SW, LID (a switch's: its port 0 LID),
port, port GUID, width, speed) then " - " and the same four fields of the peer and
" ( 'description' - 'peer description' )". A switch's ports share its port GUID; a CA port has its own
(the "(portguid)" of the topology format). Run: python3 generate_ports_report.py"""
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
        if lid:
            nodes[cur]["lid"] = int(lid.group(1))
        nodes[cur]["ports"][int(m.group(1))] = (m.group(2) or cur, m.group(4), int(m.group(5)), m.group(6),
                                                ws.group(1) + "x" if ws else "??", ws.group(2) if ws else "???")

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
            n["type"], n["lid"], p, int(port_guid(g, p), 16), width, speed,
            q["type"], q["lid"], pp, int(port_guid(peer, pp), 16), n["desc"], q["desc"]))
with gzip.GzipFile("loginoff_infiniband_topology_ports.txt.gz", "wb", mtime=0) as f:
    f.write(("\n".join(out) + "\n").encode())
